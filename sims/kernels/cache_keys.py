"""How a task's kernels are keyed in numba's on-disk cache (``cache=True``), so each task
has its own entries, the same in every process, and an edit of a task's module recompiles
them: :func:`task_stamp` (a hash of the task's source files, held by each kernel) and
:func:`compiled_once` (the chunk step as an ``njit`` function under a fixed id). Used by
:func:`sims.kernels.step.task_kernels`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit


def compiled_once(chunk, source: str):
    """The step over a chunk of envs, ``chunk``, as its own ``njit`` function, which the
    parallel step kernel calls.

    A ``register_jitable`` function called in a ``prange`` loop is compiled twice: once
    while numba types the kernel, and again for the loop's body, which numba compiles on
    its own with ``error_model="numpy"``, and a ``register_jitable`` function is compiled
    again for every set of flags of its callers. Only the second one runs. An ``njit``
    function is compiled once for its argument types, with its own flags. These flags are
    the loop body's (``error_model="numpy"``, no reference counting), so the code that runs
    is the same, and the step's cold compile about halves (the step is most of a task's).

    The kernel's cache key holds the functions it closes over, pickled; numba pickles a
    dispatcher with an id drawn per process, so this one gets a fixed id: a hash of
    ``source``, its generated source, and of its name (the task's)."""
    dispatcher = njit(error_model="numpy", _nrt=False)(chunk)
    digest = hashlib.sha256(f"{chunk.__qualname__}\n{source}".encode()).hexdigest()
    dispatcher._set_uuid(f"{chunk.__qualname__}-{digest[:32]}")
    return dispatcher


def task_stamp(task_kernel) -> int:
    """A 60-bit hash of the source files of ``task_kernel``'s functions: the kernels built
    for a task hold it, so numba's cache recompiles them when the task's module changes
    (numba's own check sees only the kernel's file)."""
    h = hashlib.sha256()
    for fn in (task_kernel.observe, task_kernel.evaluate, task_kernel.reset, task_kernel.physics):
        path = Path(fn.__code__.co_filename)
        h.update(path.read_bytes() if path.is_file() else fn.__code__.co_code)
    return int.from_bytes(h.digest()[:8], "little") >> 4
