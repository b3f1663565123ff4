"""The numba backend on a CUDA GPU: its step and reset as numba.cuda kernels (one GPU
thread per env), the state kept on the device, and :class:`NumbaCudaEnv`, the env that
``sims.make_env(task, "numba", n, device="cuda")`` returns.

The kernels run the per-env step and reset the CPU kernels run (built for the task from its
``KERNEL`` by :func:`sims.kernels.step.task_kernels`; the scalar functions compile for both
targets), over the same state layout and parameter vectors, for every task in joint or
Cartesian mode. So a GPU rollout is the CPU rollout for the same
seed and actions: under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) a test
compares them over full episodes. On a real GPU the math library (libdevice) and fused
multiply-adds round differently in the last bits, so the two agree to rounding until a
contact or grasp threshold amplifies it (``bench/cuda_sps.py --parity`` measures it).

Two APIs:

- host, as the CPU env: ``env.step(actions)`` takes a host array and returns host arrays;
- device: ``env.step_device(actions)`` takes a numba device array or any object with
  ``__cuda_array_interface__`` (a CUDA torch tensor, a CuPy array) and returns numba
  device arrays (no host copy; ``torch.as_tensor`` wraps them without a copy, see
  :mod:`policies.ppo.device_envs`); ``env.reset_device(seed=...)`` likewise.

Importing this module needs no GPU: kernels compile on first launch.
:func:`cuda_available` says whether a launch can work here; a constructor without one
raises a RuntimeError naming the simulator. Usage::

    env = make_env("push", "numba", 65536, seed=0, device="cuda")
    obs, _ = env.reset(seed=0)                                    # host arrays
    obs_d, reward_d, term_d, trunc_d, info_d = env.step_device(actions_on_gpu)

:class:`CudaStepper` is the device state and launches alone (``CudaStepper.from_env`` copies
a CPU env's state to the GPU, as the parity test does).

The kernels and the device checks are in :mod:`sims.backends.numba_cuda_kernels`,
re-exported here (``numba_cuda.task_cuda_kernels``, ``numba_cuda.require_cuda``, ...).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from sims.backends.numba_backend import NumbaEnv, reward_term_infos
from sims.backends.numba_cuda_kernels import (
    NO_GPU_MESSAGE,
    THREADS_PER_BLOCK,
    cuda_available,
    prepare_actions,
    require_cuda,
    simulated,
    task_cuda_kernels,
)
from sims.kernels.layout import (
    F_FINAL,
    F_SUCCESS,
    F_TERMINATED,
    F_TRUNCATED,
    I_CARTESIAN,
    R_FINAL_LENGTH,
    R_FINAL_RETURN,
    R_REWARD,
    R_TERMS,
)

__all__ = [
    "NO_GPU_MESSAGE",
    "THREADS_PER_BLOCK",
    "CudaReachStepper",
    "CudaStepper",
    "NumbaCudaEnv",
    "cuda_available",
    "prepare_actions",
    "require_cuda",
    "simulated",
    "task_cuda_kernels",
]


# ======================================================================================
# Device state and launches
# ======================================================================================
class CudaStepper:
    """Envs of ``task`` (a registered task, :mod:`sims.tasks.registry`) stepped on CUDA
    device ``device_index``: the state (``st``, ``cnt``, ``abuf``) lives on the device.
    Arguments are the CPU env's parameter vectors and state arrays
    (:class:`~sims.backends.numba_backend.NumbaEnv`'s ``_fp``, ``_ip``, ``_seed``, ...)."""

    def __init__(self, task, fp, ip, seed, st, cnt, abuf, obs_dim: int, device_index: int = 0):
        require_cuda(device_index)
        self._kernels = task_cuda_kernels(task.KERNEL)
        self.reward_terms = tuple(task.REWARD_TERMS)
        self.device_index = int(device_index)
        self.num_envs = int(st.shape[0])
        self.obs_dim = int(obs_dim)
        self.action_dim = int(abuf.shape[2])
        self.seed = np.uint64(seed)
        joint = self._kernels.step_cuda_joint
        use_joint = joint is not None and int(ip[I_CARTESIAN]) == 0
        self._step = joint if use_joint else self._kernels.step_cuda
        self._threads = min(THREADS_PER_BLOCK, self.num_envs)
        self._blocks = (self.num_envs + self._threads - 1) // self._threads
        with self._on_device():
            self._fp = cuda.to_device(np.ascontiguousarray(fp))
            self._ip = cuda.to_device(np.ascontiguousarray(ip))
            self._st = cuda.to_device(np.ascontiguousarray(st))
            self._cnt = cuda.to_device(np.ascontiguousarray(cnt))
            self._abuf = cuda.to_device(np.ascontiguousarray(abuf))
            self._actions = cuda.device_array((self.num_envs, self.action_dim))
            self._bad = cuda.device_array(1, dtype=np.int64)

    @classmethod
    def from_env(cls, env, device_index: int = 0) -> CudaStepper:
        """Copy a CPU :class:`~sims.backends.numba_backend.NumbaEnv` (its parameters and
        current state) to the GPU."""
        return cls(
            env.task,
            env._fp,
            env._ip,
            env._seed,
            env._st,
            env._cnt,
            env._abuf,
            env.obs_dim,
            device_index,
        )

    def _on_device(self):
        return cuda.gpus[self.device_index]

    # ---------------------------------------------------------------------------------
    def reset_device(self, seed: int | None = None):
        """A new episode in every env (``seed``: restart the episode counters under it;
        None: the next episode of each env). Returns the observations [N, D] float32 as a
        device array."""
        restart = 0
        if seed is not None:
            self.seed = np.uint64(seed)
            restart = 1
        with self._on_device():
            obs = cuda.device_array((self.num_envs, self.obs_dim), dtype=np.float32)
            self._kernels.reset_cuda[self._blocks, self._threads](
                self._fp, self._ip, self.seed, restart, self._st, self._cnt, self._abuf, obs
            )
        return obs

    def device_actions(self, actions, check: bool = True):
        """``actions`` [N, A] as the float64 device array the step kernel reads.

        A numba device array or an object with ``__cuda_array_interface__`` stays on the
        device (a float32 or float64 one is copied there by a kernel); anything else is
        read as a host array and copied over. ``check`` raises ValueError for a
        non-finite entry (on the device: one 8-byte copy back, a synchronization)."""
        expected = (self.num_envs, self.action_dim)
        on_device = getattr(actions, "__cuda_ndarray__", False)
        if not on_device and hasattr(actions, "__cuda_array_interface__"):
            actions = cuda.as_cuda_array(actions)
            on_device = True
        if not on_device:
            host = np.asarray(actions)
            if host.shape != expected:
                raise ValueError(f"actions must have shape {expected}, got {host.shape}")
            if not np.issubdtype(host.dtype, np.number) or np.iscomplexobj(host):
                raise ValueError(f"actions must be real numbers, got dtype {host.dtype}")
            host = np.ascontiguousarray(host, dtype=np.float64)
            if check and not np.all(np.isfinite(host)):
                bad = np.argwhere(~np.isfinite(host))[0]
                raise ValueError(f"non-finite action at env {bad[0]}, dim {bad[1]}")
            with self._on_device():
                self._actions.copy_to_device(host)
            return self._actions
        if tuple(actions.shape) != expected:
            raise ValueError(f"actions must have shape {expected}, got {tuple(actions.shape)}")
        if np.dtype(actions.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"device actions must be float32 or float64, got {actions.dtype}")
        with self._on_device():
            if check:
                self._bad.copy_to_device(np.array([self.num_envs * self.action_dim]))
            prepare_actions[self._blocks, self._threads](
                actions, self._actions, self._bad, 1 if check else 0
            )
            if check:
                first = int(self._bad.copy_to_host()[0])
                if first < self.num_envs * self.action_dim:
                    env, dim = divmod(first, self.action_dim)
                    raise ValueError(f"non-finite action at env {env}, dim {dim}")
        return self._actions

    def output_arrays(self):
        """A set of step output arrays ``(obs, fin_obs, res, flags)`` on the device, for
        :meth:`step_device`'s ``out``."""
        n, dim = self.num_envs, self.obs_dim
        with self._on_device():
            return (
                cuda.device_array((n, dim), dtype=np.float32),
                cuda.device_array((n, dim), dtype=np.float32),
                cuda.device_array((R_TERMS + len(self.reward_terms), n), dtype=np.float64),
                cuda.device_array((4, n), dtype=np.bool_),
            )

    def step_device(self, actions, check: bool = True, out=None):
        """One step of every env (SAME_STEP autoreset, as ``NumbaEnv.step``):
        ``(obs, reward, terminated, truncated, info)``, all numba device arrays; ``actions``
        as :meth:`device_actions`, clipped to [-1, 1] by the kernel.

        The outputs are new arrays each call, or views of ``out`` (from
        :meth:`output_arrays`, overwritten by the next step that gets it), which saves the
        four allocations and their deferred frees (a free synchronizes the device)."""
        a = self.device_actions(actions, check)
        obs, fin_obs, res, flags = self.output_arrays() if out is None else out
        with self._on_device():
            self._step[self._blocks, self._threads](
                self._fp,
                self._ip,
                self.seed,
                a,
                self._st,
                self._cnt,
                self._abuf,
                obs,
                fin_obs,
                res,
                flags,
            )
        info = {
            "success": flags[F_SUCCESS],
            "final_obs": fin_obs,
            "_final_obs": flags[F_FINAL],
            "episode_return": res[R_FINAL_RETURN],
            "episode_length": res[R_FINAL_LENGTH],
            **reward_term_infos(self.reward_terms, res),
        }
        return obs, res[R_REWARD], flags[F_TERMINATED], flags[F_TRUNCATED], info

    def step(self, actions):
        """:meth:`step_device` with host arrays in and out."""
        return self.to_host(self.step_device(actions))

    def to_host(self, step_result):
        """The device arrays of a :meth:`step_device` result copied to the host."""
        obs, reward, terminated, truncated, info = step_result
        with self._on_device():
            return (
                obs.copy_to_host(),
                reward.copy_to_host(),
                terminated.copy_to_host(),
                truncated.copy_to_host(),
                {key: value.copy_to_host() for key, value in info.items()},
            )

    def state(self) -> np.ndarray:
        """The per-env state rows [N, NUM_STATE] copied to the host."""
        with self._on_device():
            return self._st.copy_to_host()

    def pull(self, st: np.ndarray, cnt: np.ndarray, abuf: np.ndarray) -> None:
        """Copy the device state into host arrays of the same shapes."""
        with self._on_device():
            self._st.copy_to_host(st)
            self._cnt.copy_to_host(cnt)
            self._abuf.copy_to_host(abuf)

    def push(self, st: np.ndarray, cnt: np.ndarray, abuf: np.ndarray) -> None:
        """Copy host state arrays to the device."""
        with self._on_device():
            self._st.copy_to_device(np.ascontiguousarray(st))
            self._cnt.copy_to_device(np.ascontiguousarray(cnt))
            self._abuf.copy_to_device(np.ascontiguousarray(abuf))


CudaReachStepper = CudaStepper
"""The former name (the kernel covered reach only)."""


# ======================================================================================
# The env
# ======================================================================================
class NumbaCudaEnv(NumbaEnv):
    """:class:`~sims.backends.numba_backend.NumbaEnv` stepped on CUDA device
    ``device_index``, with the same interface (host arrays) plus :meth:`step_device` and
    :meth:`reset_device` (device arrays). The state lives on the device; the inherited
    host arrays are a mirror refreshed by the methods that read them."""

    def __init__(
        self,
        task_module,
        num_envs: int,
        config=None,
        dense_reward: bool = True,
        device_index: int = 0,
        tune_malloc: bool = False,
        actuator=None,
    ):
        require_cuda(device_index)
        self._gpu: CudaStepper | None = None
        self._device_index = int(device_index)
        self.device = f"cuda:{self._device_index}"
        super().__init__(task_module, num_envs, config, dense_reward, tune_malloc, actuator)

    def _reset_all(self, seed: int | None, bump: bool) -> None:
        if self._gpu is None:
            self._gpu = CudaStepper(
                self.task,
                self._fp,
                self._ip,
                self._seed,
                self._st,
                self._cnt,
                self._abuf,
                self.obs_dim,
                self._device_index,
            )
        if seed is not None:
            self._seed = np.uint64(seed)
        self._obs_device = self._gpu.reset_device(seed)

    def reset_device(self, *, seed: int | None = None, options: dict | None = None):
        """:meth:`reset` returning the observations as a device array [N, D] float32."""
        NumbaEnv.reset(self, seed=seed, options=options)
        return self._obs_device

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """As ``NumbaEnv.reset``: ``(obs [N, D] float32, info)`` on the host."""
        obs = self.reset_device(seed=seed, options=options)
        with self._gpu._on_device():
            return obs.copy_to_host(), {}

    def step_device(self, actions, check: bool = True, out=None):
        """One step on the device: see :meth:`CudaStepper.step_device`."""
        return self._gpu.step_device(actions, check, out)

    def output_arrays(self):
        """Reusable step outputs: see :meth:`CudaStepper.output_arrays`."""
        return self._gpu.output_arrays()

    def step(self, actions):
        """As ``NumbaEnv.step``: host actions in (checked here), host arrays out."""
        return self._gpu.to_host(self.step_device(self.check_actions(actions), check=False))

    def _pull(self) -> None:
        self._gpu.pull(self._st, self._cnt, self._abuf)

    def get_state(self):
        self._pull()
        return super().get_state()

    def privileged_observation(self):
        """As ``NumbaEnv.privileged_observation``, computed on the host from the device's
        state (a copy per call)."""
        if not self.cfg.randomization.pose_error.on:
            return None
        self._pull()
        return super().privileged_observation()

    def set_state(self, *args, **kwargs) -> np.ndarray:
        self._pull()
        obs = super().set_state(*args, **kwargs)  # the CPU refresh of the observations
        self._gpu.push(self._st, self._cnt, self._abuf)
        return obs

    def randomization_state(self) -> dict[str, np.ndarray]:
        self._pull()
        return super().randomization_state()

    def grasped(self) -> np.ndarray:
        self._pull()
        return super().grasped()

    def state(self) -> np.ndarray:
        """The per-env state rows [N, NUM_STATE] copied to the host."""
        return self._gpu.state()
