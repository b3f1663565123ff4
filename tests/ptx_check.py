"""The CUDA kernels compiled to PTX as a GPU machine compiles them, kept per source key:
``python -m tests.ptx_check`` (from the repository root; without ``NUMBA_ENABLE_CUDASIM``).

``test_numba_cuda``'s ``test_kernels_compile_for_a_real_gpu`` runs it, and the warm-up
(:mod:`tests.numba_warm`) runs it before the test workers start. It puts a stand-in
``numba_cuda`` package on ``sys.path`` before anything imports ``sims`` (so the helpers
are device calls, not inlined at numba's IR level: ``sims/kernels/jit.py``), compiles
:data:`KERNELS` of every task for compute capability :data:`CC` with
``bench/cuda_sps.py``'s ``ptx_check`` and checks each PTX (its target, one entry per
kernel). Then it writes what it saw, each kernel's PTX hashed, to :func:`record_path`:
a file in the numba key folder (:mod:`sims.numba_cache`) named by a hash of every input
of the compile (:func:`compile_key`). A later run with the same inputs reads that record
instead of compiling again (the compile is deterministic in them; NVVM is about 22 of
its 31 CPU s here). A failed compile is never recorded; ``--no-cache`` (or
``MILES_NUMBA_CACHE=0``) compiles regardless and records nothing.

Prints ``NO_NVVM ...`` and exits 0 where there is no NVVM (no CUDA toolkit), ``PTX_OK``
(compiled) or ``PTX_OK cached`` after the kernels' results, else exits 1.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("step_cuda", "reset_cuda", "prepare_actions")
"""The kernels compiled (each task's step and reset, the shared action preparation)."""
CC = (9, 0)
"""The compute capability compiled for (an H100's)."""
RECORD_VERSION = 1
"""Bumped when what a record holds changes."""


def compile_key(nvvm_versions) -> str:
    """A hash of everything the PTX depends on: the numba key (the numba sources, numba's
    and Python's versions), every file of ``sims/`` (the constants the kernels read as
    globals too), ``bench/cuda_sps.py`` (the signatures), this file, NVVM's versions,
    :data:`CC` and :data:`KERNELS`."""
    from sims import numba_cache

    files = [*sorted((ROOT / "sims").rglob("*.py")), ROOT / "bench" / "cuda_sps.py"]
    files.append(Path(__file__).resolve())
    text = "\n".join(
        [
            numba_cache.cache_key(),
            numba_cache.sources_key(files, ROOT),
            repr((RECORD_VERSION, tuple(nvvm_versions), CC, KERNELS)),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def record_path(key: str) -> Path:
    """Where the record of a successful compile with ``key`` is kept."""
    from sims import numba_cache

    return numba_cache.key_dir() / "ptx" / f"{key}.json"


def expected_entries() -> dict[str, int]:
    """How many kernels (PTX entries) each of :data:`KERNELS` compiles: one per task for
    the step and reset kernels, one for the action preparation."""
    from sims import TASKS

    return {name: 1 if name == "prepare_actions" else len(TASKS) for name in KERNELS}


def checked(ptx: dict[str, list[str]]) -> dict[str, dict]:
    """Each kernel's PTX texts checked (the target, one entry each) and summarised."""
    target = f".target sm_{CC[0]}{CC[1]}"
    want = expected_entries()
    summary = {}
    for name in KERNELS:
        texts = ptx[name]
        assert len(texts) == want[name], (name, len(texts), want[name])
        for text in texts:
            assert target in text, (name, text[:300])
            assert text.count(".entry ") == 1, (name, text.count(".entry "))
        digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()
        summary[name] = {"kernels": len(texts), "target": target[8:], "sha256": digest}
    return summary


def load(path: Path) -> dict | None:
    """A record that holds every kernel with the expected count and target, else None
    (missing, unreadable or stale: compiled again)."""
    try:
        record = json.loads(path.read_text())
        kernels = record["kernels"]
        target = f"sm_{CC[0]}{CC[1]}"
        for name, count in expected_entries().items():
            entry = kernels[name]
            if entry["kernels"] != count or entry["target"] != target or not entry["sha256"]:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record


def bench_cuda_sps():
    """``bench/cuda_sps.py`` as a module (``bench/`` is no package, and it holds a
    ``sims.py`` that must not shadow the package on ``sys.path``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cuda_sps", ROOT / "bench" / "cuda_sps.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    use_cache = "--no-cache" not in argv
    with tempfile.TemporaryDirectory() as standin:
        # the stand-in first, before sims (sims.kernels.jit reads it once, when imported)
        (Path(standin) / "numba_cuda").mkdir()
        (Path(standin) / "numba_cuda" / "__init__.py").write_text("")
        sys.path.insert(0, standin)
        try:
            from numba.cuda.cudadrv import nvvm

            library = nvvm.NVVM()
            versions = (*library.get_version(), *library.get_ir_version())
        except Exception as err:  # noqa: BLE001 - no toolkit: reported, the caller skips
            print("NO_NVVM", type(err).__name__, err)
            return 0
        from sims.kernels import jit

        assert jit.INLINE == "never", jit.INLINE
        from sims import numba_cache

        use_cache = use_cache and numba_cache.enabled()  # MILES_NUMBA_CACHE=0: no record
        path = record_path(compile_key(versions)) if use_cache else None
        record = load(path) if path is not None else None
        if record is not None:
            print({name: "ok" for name in record["kernels"]}, "from", path)
            print("PTX_OK cached")
            return 0
        ptx: dict[str, list[str]] = {}
        result = bench_cuda_sps().ptx_check(cc=CC, names=list(KERNELS), out=ptx)
        print(result)
        if set(result.values()) != {"ok"}:
            return 1
        record = {"nvvm": list(versions), "kernels": checked(ptx)}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps(record, indent=1))
            os.replace(partial, path)  # whole or not at all: another process may read it
        print("PTX_OK")
        return 0


if __name__ == "__main__":
    sys.exit(main())
