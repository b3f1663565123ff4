"""The CPU step kernel's chunk step is compiled once, and the kernel's disk cache key is the
same in every process (:func:`sims.kernels.cache_keys.compiled_once`).

The chunk step is an ``njit`` function that the step kernel closes over, and numba keys a
closure's cache entry by its pickled cell contents. A dispatcher pickles with an id drawn per
process unless it is given one: with a drawn id no process would find the cache that another
wrote, and every ``miles up``, ``miles train`` and test worker would compile the step again
(20-30 CPU s a task)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from numba.core.registry import CPUDispatcher

from sims.tasks.registry import BUILTIN_TASKS

REPO = Path(__file__).resolve().parents[2]

KEYS = """
import json, sys
from sims import get_task
from sims.kernels.step import task_kernels

keys = {}
for task in sys.argv[1:]:
    kernel = task_kernels(get_task(task).KERNEL).step_kernel
    keys[task] = repr(kernel._cache._index_key((), kernel.targetctx.codegen()))
print(json.dumps(keys))
"""


def _cache_keys() -> dict[str, str]:
    """Each built-in task's step kernel cache key, computed in a fresh process (nothing is
    compiled: building the kernels only generates their source)."""
    proc = subprocess.run(
        [sys.executable, "-c", KEYS, *BUILTIN_TASKS],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_the_step_kernels_cache_key_is_the_same_in_every_process():
    first, second = _cache_keys(), _cache_keys()
    assert sorted(first) == sorted(BUILTIN_TASKS)
    assert first == second
    assert len(set(first.values())) == len(first)  # each task has its own entry


def test_the_chunk_step_is_an_njit_function_with_the_parallel_loops_flags():
    from sims import get_task
    from sims.kernels.step import task_kernels

    for task in BUILTIN_TASKS:
        kernel = task_kernels(get_task(task).KERNEL).step_kernel
        cells = [cell.cell_contents for cell in kernel.py_func.__closure__]
        chunks = [c for c in cells if isinstance(c, CPUDispatcher)]
        assert len(chunks) == 1, (task, cells)
        # the flags numba gives a prange loop's body, where the chunk step used to be
        # compiled: the same code runs
        assert chunks[0].targetoptions["error_model"] == "numpy"
        assert chunks[0].targetoptions["_nrt"] is False
