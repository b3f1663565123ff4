"""The numba backend's step as a numba.cuda kernel (one GPU thread per env), plus a small
wrapper that keeps the state on the device.

The kernel runs :func:`sims.kernels.step.step_env`, the same per-env step the CPU kernels
run (the kernels' scalar functions compile for both targets), over the same state layout
and parameter vectors, so a GPU rollout equals a CPU rollout for the same seed and
actions. This module holds only the launch and memory code; a test runs both under
numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) and compares them over full episodes.

Importing this module needs no GPU: kernels compile on first launch.
:func:`cuda_available` says whether a launch can work here.

Usage::

    env = make_env("reach", "numba", 4096, seed=0)      # CPU env: parameters and reset
    gpu = CudaReachStepper.from_env(env)                 # state copied to the device
    obs, reward, terminated, truncated, info = gpu.step(actions)   # host arrays
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float64

from sims.kernels.layout import (
    F_FINAL,
    F_SUCCESS,
    F_TERMINATED,
    F_TRUNCATED,
    I_CARTESIAN,
    I_KIND,
    KIND_REACH,
    R_FINAL_LENGTH,
    R_FINAL_RETURN,
    R_REWARD,
    SCRATCH_SHAPE,
)
from sims.kernels.step import step_env

THREADS_PER_BLOCK = 128


def cuda_available() -> bool:
    """True where a CUDA device (or numba's CUDA simulator) can run the kernel."""
    try:
        return bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - a broken driver install must not break imports
        return False


@cuda.jit
def step_cuda(fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags):
    """One step of env ``cuda.grid(1)``; arguments as
    :func:`sims.kernels.step.step_kernel` (without ``n_chunks``)."""
    k = cuda.grid(1)
    if k >= st.shape[0]:
        return
    scratch = cuda.local.array(SCRATCH_SHAPE, float64)
    step_env(
        k,
        ip[I_KIND],
        ip[I_CARTESIAN] != 0,
        fp,
        ip,
        seed,
        actions,
        st,
        cnt,
        abuf,
        obs,
        fin_obs,
        res,
        flags,
        scratch,
    )


class CudaReachStepper:
    """Reach envs stepped on the GPU. The state lives on the device; :meth:`step` takes
    host actions and returns host arrays like :meth:`NumbaEnv.step`."""

    def __init__(self, fp, ip, seed, st, cnt, abuf, obs_dim: int):
        if int(ip[I_KIND]) != KIND_REACH or int(ip[I_CARTESIAN]) != 0:
            raise ValueError("the CUDA kernel covers reach in joint mode only")
        if not cuda_available():
            raise RuntimeError(
                "no CUDA device: the CUDA reach kernel needs an NVIDIA GPU with a CUDA "
                "driver (or NUMBA_ENABLE_CUDASIM=1 for numba's simulator)"
            )
        self.num_envs = int(st.shape[0])
        self.obs_dim = int(obs_dim)
        self.action_dim = int(abuf.shape[2])
        self._seed = np.uint64(seed)
        self._fp = cuda.to_device(np.ascontiguousarray(fp))
        self._ip = cuda.to_device(np.ascontiguousarray(ip))
        self._st = cuda.to_device(np.ascontiguousarray(st))
        self._cnt = cuda.to_device(np.ascontiguousarray(cnt))
        self._abuf = cuda.to_device(np.ascontiguousarray(abuf))
        self._threads = min(THREADS_PER_BLOCK, self.num_envs)
        self._blocks = (self.num_envs + self._threads - 1) // self._threads

    @classmethod
    def from_env(cls, env) -> CudaReachStepper:
        """Copy a (reset) reach :class:`~sims.backends.numba_backend.NumbaEnv` to the GPU."""
        return cls(env._fp, env._ip, env._seed, env._st, env._cnt, env._abuf, env.obs_dim)

    def step(self, actions: np.ndarray):
        """One step of every env: ``(obs, reward, terminated, truncated, info)``."""
        actions = np.ascontiguousarray(actions, dtype=np.float64)
        if actions.shape != (self.num_envs, self.action_dim):
            raise ValueError(
                f"actions must have shape {(self.num_envs, self.action_dim)}, got {actions.shape}"
            )
        if not np.all(np.isfinite(actions)):
            raise ValueError("actions must be finite")
        n, dim = self.num_envs, self.obs_dim
        obs = cuda.device_array((n, dim), dtype=np.float32)
        fin_obs = cuda.device_array((n, dim), dtype=np.float32)
        res = cuda.device_array((3, n), dtype=np.float64)
        flags = cuda.device_array((4, n), dtype=np.bool_)
        step_cuda[self._blocks, self._threads](
            self._fp,
            self._ip,
            self._seed,
            cuda.to_device(actions),
            self._st,
            self._cnt,
            self._abuf,
            obs,
            fin_obs,
            res,
            flags,
        )
        res_h, flags_h = res.copy_to_host(), flags.copy_to_host()
        info = {
            "success": flags_h[F_SUCCESS],
            "final_obs": fin_obs.copy_to_host(),
            "_final_obs": flags_h[F_FINAL],
            "episode_return": res_h[R_FINAL_RETURN],
            "episode_length": res_h[R_FINAL_LENGTH],
        }
        return (
            obs.copy_to_host(),
            res_h[R_REWARD],
            flags_h[F_TERMINATED],
            flags_h[F_TRUNCATED],
            info,
        )

    def state(self) -> np.ndarray:
        """The per-env state rows [N, NUM_STATE] copied to the host."""
        return self._st.copy_to_host()
