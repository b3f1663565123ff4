"""The numba.cuda reach kernel: importable without a GPU, and equal to the CPU kernel under
numba's CUDA simulator (run in a subprocess: NUMBA_ENABLE_CUDASIM must be set before numba
is imported)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SIMULATED_ROLLOUT = textwrap.dedent(
    """
    import dataclasses, warnings
    import numpy as np
    warnings.simplefilter("ignore")  # uint64 wrap-around warns in the simulator
    from numba import config
    assert config.ENABLE_CUDASIM
    from sims import make_env
    from sims.backends.numba_cuda import CudaReachStepper, cuda_available
    from sims.tasks import reach
    from sims.tasks.base import DomainRandomization

    assert cuda_available()
    rnd = DomainRandomization(action_latency_steps=2, observation_noise_std=0.01)
    configs = [reach.CONFIG, dataclasses.replace(reach.CONFIG, randomization=rnd)]
    for cfg in configs:
        cpu = make_env("reach", "numba", 6, seed=21, config=cfg)
        gpu = CudaReachStepper.from_env(cpu)
        rng = np.random.default_rng(3)
        ended = 0
        for t in range(cfg.episode_steps + 3):
            actions = rng.uniform(-1.3, 1.3, size=(6, 7))
            a = cpu.step(actions)
            b = gpu.step(actions)
            for x, y in zip(a[:4], b[:4]):
                np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)
            for key in a[4]:
                np.testing.assert_allclose(a[4][key], b[4][key], rtol=0, atol=1e-12)
            np.testing.assert_allclose(cpu._st, gpu.state(), rtol=0, atol=1e-12)
            ended += int(a[4]["_final_obs"].sum())
        assert ended >= 6, ended  # autoreset ran on both
    print("CUDASIM_OK")
    """
)


def test_module_imports_without_a_gpu():
    from sims.backends import numba_cuda

    assert isinstance(numba_cuda.cuda_available(), bool)
    if not numba_cuda.cuda_available():
        from sims import make_env

        env = make_env("reach", "numba", 2, seed=0)
        with pytest.raises(RuntimeError, match="CUDA"):
            numba_cuda.CudaReachStepper.from_env(env)


def test_cuda_kernel_only_covers_joint_reach():
    from sims import make_env
    from sims.backends import numba_cuda

    env = make_env("push", "numba", 2, seed=0)
    with pytest.raises(ValueError, match="reach"):
        numba_cuda.CudaReachStepper.from_env(env)


def test_simulated_cuda_kernel_matches_the_cpu_kernel():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", SIMULATED_ROLLOUT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert "CUDASIM_OK" in proc.stdout
