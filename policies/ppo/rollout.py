"""Rollouts: the training envs as the runner's torch code sees them (:class:`EnvBridge`) and
one rollout of every env into the storage (:func:`collect_rollout`).

Two kinds of env, one loop. A host env (numba on the CPU, PyBullet, ...) takes and returns
numpy arrays; the observations are copied to the torch device. A tensor env (``env.device``
a torch device: the GPU-resident numba env of :mod:`policies.ppo.device_envs`, Isaac) keeps
observations, rewards and dones as tensors on its device through the rollout: no host copy
and no synchronization per step; its actions are checked for non-finite entries once per
rollout, and its episode statistics are read to the host once per update
(:class:`policies.ppo.progress.EpisodeStats`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch

from policies.ppo.progress import EpisodeStats
from policies.ppo.storage import RolloutStorage

ValueFn = Callable[[torch.Tensor], torch.Tensor]
"""The critic: observations -> values (the time-out bootstrap reads it)."""


class EnvBridge:
    """Conversions between the torch ``device`` and ``env`` (a host or a tensor env; see
    the module docstring)."""

    def __init__(self, env, device: torch.device):
        self.env = env
        self.device = device
        """Where the model, and so the observations it reads, live."""
        self.on_device = isinstance(getattr(env, "device", None), torch.device)
        """Whether the env speaks torch tensors (a tensor env)."""

    def reset(self, seed: int) -> torch.Tensor:
        """Reset every env; the observations on :attr:`device`."""
        if self.on_device:  # TorchDeviceEnv.reset returns the observations alone
            return self.to_torch(self.env.reset(seed=seed))
        obs, _ = self.env.reset(seed=seed)
        return self.to_torch(obs)

    def to_torch(self, array) -> torch.Tensor:
        """Observations (or rewards) as a float32 tensor on :attr:`device` (an array on the
        GPU exposing ``__cuda_array_interface__`` is taken without a host copy)."""
        return torch.as_tensor(array, dtype=torch.float32, device=self.device)

    def to_env(self, actions: torch.Tensor):
        """Actions as the env takes them: a tensor on the env's device for a tensor env (no
        copy where that is :attr:`device`), else a host numpy array."""
        if self.on_device:
            return actions.to(self.env.device)
        return actions.cpu().numpy()

    def outcome(self, reward, terminated, truncated, info, episodes, value, gamma):
        """A step's outcome into ``episodes``; returns the rewards to store (time-outs
        bootstrapped with ``gamma * value(final obs)``) and the dones."""
        if self.on_device:
            return self._device_outcome(
                reward, terminated, truncated, info, episodes, value, gamma
            )
        return self._host_outcome(reward, terminated, truncated, info, episodes, value, gamma)

    def _host_outcome(self, reward, terminated, truncated, info, episodes, value, gamma):
        reward = np.asarray(reward, dtype=np.float32)
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        done = terminated | truncated
        episodes.step(reward, terminated, done)
        episodes.add_terms(info)
        bootstrap = truncated & ~terminated
        if bootstrap.any():
            final = self.to_torch(np.asarray(info["final_obs"][bootstrap]))
            reward = reward.copy()
            reward[bootstrap] += gamma * value(final).cpu().numpy()
        return reward, done

    def _device_outcome(self, reward, terminated, truncated, info, episodes, value, gamma):
        """Without a host copy or synchronization: the bootstrap values are computed for
        every env and kept where an episode timed out."""
        reward = reward.to(torch.float32)
        done = terminated | truncated
        episodes.step(reward, terminated, done)
        episodes.add_terms(info)
        bootstrap = (truncated & ~terminated).to(self.device)
        final_values = value(self.to_torch(info["final_obs"]))
        reward = self.to_torch(reward)
        reward = torch.where(bootstrap, reward + gamma * final_values, reward)
        return reward, done


def collect_rollout(
    model,
    envs: EnvBridge,
    storage: RolloutStorage,
    episodes: EpisodeStats,
    steps: int,
    gamma: float,
    obs: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, float, float]:
    """``steps`` steps of every env from ``obs`` into ``storage`` (time-outs bootstrapped
    with the value of the final observation). Returns the next observations, their values,
    and the seconds spent in the env and in the policy."""
    model.train()
    env_s = policy_s = 0.0
    finite = torch.ones((), dtype=torch.bool, device=envs.device)
    with torch.no_grad():
        for _ in range(steps):
            t0 = time.perf_counter()
            actions, log_probs, values = model.act(obs)
            t1 = time.perf_counter()
            next_obs, reward, terminated, truncated, info = envs.env.step(envs.to_env(actions))
            t2 = time.perf_counter()
            if envs.on_device:
                finite &= torch.isfinite(actions).all()
            reward, done = envs.outcome(
                reward, terminated, truncated, info, episodes, model.value, gamma
            )
            storage.add(obs, actions, log_probs, values, reward, done)
            obs = envs.to_torch(next_obs)
            policy_s += (t1 - t0) + (time.perf_counter() - t2)
            env_s += t2 - t1
        last_values = model.value(obs)
    if envs.on_device and not bool(finite):  # one read per rollout
        raise FloatingPointError("the policy produced non-finite actions in this rollout")
    return obs, last_values, env_s, policy_s
