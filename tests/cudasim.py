"""A test script in a fresh Python process, on numba's CUDA simulator by default: the
simulator is chosen by ``NUMBA_ENABLE_CUDASIM``, which numba reads once, when it is first
imported, so a test that wants it (or wants it off) cannot share the pytest process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_script(
    script: str, *args: str, cudasim: bool = True, timeout: float = 600
) -> subprocess.CompletedProcess:
    """``python -c script args`` from the repository root (on ``PYTHONPATH``), with
    ``NUMBA_ENABLE_CUDASIM=1`` (``cudasim``) or without it; asserts that it exited 0 (its
    output's tails in the message) and returns it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if cudasim:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc
