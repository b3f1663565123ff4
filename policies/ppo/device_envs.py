"""Training envs on the GPU for torch: the numba backend's CUDA env
(:class:`sims.backends.numba_cuda.NumbaCudaEnv`) with observations, rewards and dones as
torch CUDA tensors and actions taken as torch CUDA tensors, with no host copies.

The env's outputs are numba device arrays; :func:`as_tensor` wraps each one with
``torch.as_tensor`` through ``__cuda_array_interface__`` (the tensor shares the device
memory and keeps the array alive); actions go in the same way (numba reads the tensor's
``__cuda_array_interface__``). Both libraries launch on the legacy default stream here,
so the env's kernels and torch's work are ordered without extra synchronization.

The trainer's GPU envs (``miles train SKILL --device cuda``: :func:`policies.ppo.envs.make_env`
builds them, :class:`policies.ppo.runner.OnPolicyRunner` steps them with tensors)::

    envs = make_device_envs("reach", 65536, seed=0, device="cuda")
    obs = envs.reset(seed=0)                       # torch.float32 [N, D] on cuda:0
    obs, reward, terminated, truncated, info = envs.step(actions)   # actions [N, A] cuda

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, for tests on machines without
a GPU) the "device" arrays are host arrays: the tensors are then CPU tensors sharing
their memory (``torch.from_numpy``), and actions go in as host arrays. Without a GPU and
without the simulator, :func:`make_device_envs` raises before any work; CPU training
never uses this module.
"""

from __future__ import annotations

import numpy as np
import torch

import sims
from sims.backends.numba_backend import parse_device


def _simulated() -> bool:
    from sims.backends import numba_cuda

    return numba_cuda.simulated()


def as_tensor(array, device: torch.device) -> torch.Tensor:
    """A torch tensor on ``device`` sharing the memory of a numba device array (CUDA:
    ``__cuda_array_interface__``; the simulator: its host array, ``torch.from_numpy``)."""
    if hasattr(array, "__cuda_array_interface__"):
        return torch.as_tensor(array, device=device)
    return torch.from_numpy(np.asarray(array))


class TorchDeviceEnv:
    """A :class:`~sims.backends.numba_cuda.NumbaCudaEnv` speaking torch tensors on
    ``device``. ``check_actions`` checks every action batch for non-finite entries (one
    8-byte copy to the host per step; False skips it).

    ``buffers``: 0 (default), every step's outputs are new device arrays; ``k >= 2``, the
    steps write into a ring of ``k`` output sets (no allocation, no deferred free, which
    synchronizes the device; the tensors of a set are made once), so a step's tensors hold
    its values until ``k`` steps later: the trainer uses 2 (it reads a step's observations
    until the next step)."""

    def __init__(self, env, device: torch.device, check_actions: bool = True, buffers: int = 0):
        if buffers == 1 or buffers < 0:
            raise ValueError(f"buffers must be 0 or >= 2, got {buffers}")
        self.env = env
        self.device = device
        self.check_actions = bool(check_actions)
        self.num_envs = env.num_envs
        self.obs_dim = env.obs_dim
        self.action_dim = env.action_dim
        self._simulated = _simulated()
        self._buffers = int(buffers)
        self._outs: list = []
        """The ring of output sets (allocated at the first step: the env's device state
        exists after its first reset)."""
        self._tensors: dict[int, tuple] = {}
        """The step result as tensors, per output set of the ring (made on first use)."""
        self._turn = 0

    @property
    def cfg(self):
        """The task config the envs run (the wrapped env's)."""
        return self.env.cfg

    @property
    def single_observation_space(self):
        return self.env.single_observation_space

    @property
    def single_action_space(self):
        return self.env.single_action_space

    @property
    def backend_name(self) -> str:
        return self.env.backend_name

    def reset(self, seed: int | None = None) -> torch.Tensor:
        """New episodes in every env (``seed`` as ``NumbaEnv.reset``): obs [N, D] float32."""
        return as_tensor(self.env.reset_device(seed=seed), self.device)

    def _actions(self, actions: torch.Tensor):
        if not isinstance(actions, torch.Tensor):
            raise TypeError(f"actions must be a torch.Tensor, got {type(actions).__name__}")
        actions = actions.detach()
        if self._simulated:
            return actions.cpu().numpy()
        if actions.device != self.device:
            raise ValueError(f"actions are on {actions.device}, the envs on {self.device}")
        if actions.dtype not in (torch.float32, torch.float64):
            actions = actions.to(torch.float64)
        return actions.contiguous()

    def step(self, actions: torch.Tensor):
        """One step of every env (SAME_STEP autoreset, see ``sims/backends/base.py``):
        ``(obs, reward, terminated, truncated, info)`` as tensors on :attr:`device`
        (obs float32 [N, D], reward float64 [N], terminated/truncated bool [N]; ``info``:
        ``success``, ``final_obs``, ``_final_obs``, ``episode_return``,
        ``episode_length``). They share the env's output memory: new each step, or the
        ring's (see ``buffers``)."""
        actions = self._actions(actions)
        if self._buffers:
            if not self._outs:
                self._outs = [self.env.output_arrays() for _ in range(self._buffers)]
            turn = self._turn
            self._turn = (turn + 1) % len(self._outs)
            out = self.env.step_device(actions, check=self.check_actions, out=self._outs[turn])
            if turn not in self._tensors:
                self._tensors[turn] = self._wrap(out)
            obs, reward, terminated, truncated, info = self._tensors[turn]
            return obs, reward, terminated, truncated, dict(info)
        return self._wrap(self.env.step_device(actions, check=self.check_actions))

    def _wrap(self, result):
        """A ``step_device`` result as tensors on :attr:`device` sharing its memory."""
        obs, reward, terminated, truncated, info = result
        dev = self.device
        return (
            as_tensor(obs, dev),
            as_tensor(reward, dev),
            as_tensor(terminated, dev),
            as_tensor(truncated, dev),
            {key: as_tensor(value, dev) for key, value in info.items()},
        )

    def close(self) -> None:
        """Release the env (its device memory goes with the last reference)."""
        self.env.close()


def make_device_envs(
    task: str,
    num_envs: int,
    seed: int | None = None,
    device: str = "cuda",
    config=None,
    dense_reward: bool = True,
    check_actions: bool = True,
    buffers: int = 0,
    actuator=None,
) -> TorchDeviceEnv:
    """``num_envs`` envs of ``task`` on the numba CUDA backend (``device`` "cuda" or
    "cuda:N"), reset with ``seed`` when given, behind :class:`TorchDeviceEnv`.

    ValueError for device "cpu" (CPU training uses ``sims.make_env`` directly);
    RuntimeError, before any work, where no CUDA device is there (unless numba's CUDA
    simulator is on) or where torch was built without CUDA. ``actuator``: the arm's
    command-path model (``sims.make_env``'s option; None: the backend's default).
    """
    index = parse_device(device)
    if index is None:
        raise ValueError("make_device_envs runs envs on a GPU: device must be 'cuda' or 'cuda:N'")
    if _simulated():
        torch_device = torch.device("cpu")
    else:
        from sims.backends import numba_cuda

        numba_cuda.require_cuda(index)
        if not torch.cuda.is_available():
            raise RuntimeError(
                "numba sees a CUDA device but this torch has no CUDA support "
                f"(torch {torch.__version__}); install a CUDA build of torch"
            )
        torch_device = torch.device("cuda", index)
    env = sims.make_env(
        task,
        "numba",
        num_envs,
        seed=seed,
        config=config,
        dense_reward=dense_reward,
        device=f"cuda:{index}",
        **({} if actuator is None else {"actuator": actuator}),
    )
    return TorchDeviceEnv(env, torch_device, check_actions, buffers)
