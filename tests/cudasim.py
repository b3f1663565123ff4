"""A test script in a fresh Python process, on numba's CUDA simulator by default: the
simulator is chosen by ``NUMBA_ENABLE_CUDASIM``, which numba reads once, when it is first
imported, so a test that wants it (or wants it off) cannot share the pytest process.
:func:`assert_steps_alike` is what such a script checks: a device env steps as the CPU one
(``from tests.cudasim import assert_steps_alike``; the script runs from the repository
root)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

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


def assert_steps_alike(
    cpu, gpu, steps: int, low: float = -1.0, high: float = 1.0, atol: float = 1e-9, seed: int = 1
) -> None:
    """Step ``cpu`` (a numba CPU env) and ``gpu`` (its device twin: an env or a stepper with
    ``state()``, same task, size and state) ``steps`` times with the same actions, uniform in
    [``low``, ``high``) from ``default_rng(seed)``; after every step the observations,
    rewards, terminations, truncations, each info entry and the state agree to ``atol``."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = rng.uniform(low, high, size=(cpu.num_envs, cpu.action_dim))
        want, got = cpu.step(actions), gpu.step(actions)
        for w, g in zip(want[:4], got[:4], strict=True):
            np.testing.assert_allclose(g, w, rtol=0, atol=atol)
        assert set(want[4]) == set(got[4])
        for key in want[4]:
            np.testing.assert_allclose(got[4][key], want[4][key], rtol=0, atol=atol)
        np.testing.assert_allclose(gpu.state(), cpu._st, rtol=0, atol=atol)
