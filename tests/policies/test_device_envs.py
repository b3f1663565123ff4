"""The torch bridge to the numba CUDA envs: clear errors without a GPU, and under numba's
CUDA simulator (a subprocess: NUMBA_ENABLE_CUDASIM must be set before numba is imported)
tensors that share the env's memory and a rollout equal to the CPU env's."""

import textwrap

import pytest

from tests.cudasim import run_script

SIMULATED = textwrap.dedent(
    """
    import warnings
    import numpy as np
    import torch
    warnings.simplefilter("ignore")  # uint64 wrap-around warns in the simulator
    from numba import cuda
    from policies.ppo.device_envs import TorchDeviceEnv, as_tensor, make_device_envs
    from sims import make_env

    # zero copy: the tensor is the device array's memory
    arr = cuda.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = as_tensor(arr, torch.device("cpu"))
    t[1, 2] = 42.0
    assert arr.copy_to_host()[1, 2] == 42.0

    N = 4
    envs = make_device_envs("pick_place", N, seed=3, device="cuda")
    assert isinstance(envs, TorchDeviceEnv) and envs.device == torch.device("cpu")
    cpu = make_env("pick_place", "numba", N, seed=3)
    np.testing.assert_array_equal(envs.reset(seed=11).numpy(), cpu.reset(seed=11)[0])
    gen = torch.Generator().manual_seed(0)
    ended = 0
    for _ in range(cpu.cfg.episode_steps + 2):
        actions = torch.rand((N, envs.action_dim), generator=gen, dtype=torch.float64) * 2 - 1
        obs, reward, terminated, truncated, info = envs.step(actions)
        want = cpu.step(actions.numpy())
        for x, y in zip((obs, reward, terminated, truncated), want[:4]):
            assert isinstance(x, torch.Tensor) and x.numpy().dtype == y.dtype
            np.testing.assert_allclose(x.numpy(), y, rtol=0, atol=1e-9)
        for key, value in want[4].items():
            np.testing.assert_allclose(info[key].numpy(), value, rtol=0, atol=1e-9)
        ended += int(info["_final_obs"].sum())
    assert ended >= N
    try:
        envs.step(np.zeros((N, envs.action_dim)))
    except TypeError as err:
        assert "torch.Tensor" in str(err)
    else:
        raise AssertionError("numpy actions were taken")
    print("BRIDGE_OK")
    """
)


def test_make_device_envs_refuses_the_cpu():
    from policies.ppo.device_envs import make_device_envs

    with pytest.raises(ValueError, match="cuda"):
        make_device_envs("reach", 2, device="cpu")


def test_make_device_envs_without_a_gpu_is_a_clear_error():
    from policies.ppo.device_envs import make_device_envs
    from sims.backends import numba_cuda

    if numba_cuda.cuda_available():
        pytest.skip("a CUDA device (or the simulator) is present: there is no error to see")
    with pytest.raises(RuntimeError, match=r"no CUDA device.*NUMBA_ENABLE_CUDASIM=1"):
        make_device_envs("reach", 2, seed=0, device="cuda")


def test_simulated_bridge_shares_memory_and_matches_the_cpu_env():
    proc = run_script(SIMULATED)
    assert "BRIDGE_OK" in proc.stdout
