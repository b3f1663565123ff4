"""Rollout storage: preallocated [T, N, ...] tensors, GAE, shuffled minibatches."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch

from policies.ppo.gae import compute_gae


class RolloutStorage:
    """One rollout of ``num_steps`` steps over ``num_envs`` envs."""

    def __init__(self, num_steps: int, num_envs: int, obs_dim: int, action_dim: int):
        self.num_steps = num_steps
        self.num_envs = num_envs
        self.obs = torch.zeros(num_steps, num_envs, obs_dim)
        self.actions = torch.zeros(num_steps, num_envs, action_dim)
        self.log_probs = torch.zeros(num_steps, num_envs)
        self.values = torch.zeros(num_steps, num_envs)
        self.rewards = np.zeros((num_steps, num_envs), dtype=np.float32)
        self.dones = np.zeros((num_steps, num_envs), dtype=np.float32)
        self.advantages = torch.zeros(num_steps, num_envs)
        self.returns = torch.zeros(num_steps, num_envs)
        self.step = 0

    def add(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        log_probs: torch.Tensor,
        values: torch.Tensor,
        rewards: np.ndarray,
        dones: np.ndarray,
    ) -> None:
        if self.step >= self.num_steps:
            raise RuntimeError("rollout storage is full; call clear() after the update")
        t = self.step
        self.obs[t] = obs
        self.actions[t] = actions
        self.log_probs[t] = log_probs
        self.values[t] = values
        self.rewards[t] = rewards
        self.dones[t] = dones
        self.step += 1

    def clear(self) -> None:
        self.step = 0

    def compute_returns(self, last_values: torch.Tensor, gamma: float, lam: float) -> None:
        """GAE advantages and returns (numba kernel)."""
        adv, ret = compute_gae(
            self.rewards,
            self.values.numpy().astype(np.float32),
            self.dones,
            last_values.numpy().astype(np.float32),
            float(gamma),
            float(lam),
        )
        self.advantages = torch.from_numpy(adv)
        self.returns = torch.from_numpy(ret)

    def minibatches(
        self, num_minibatches: int, generator: torch.Generator | None = None
    ) -> Iterator[dict[str, torch.Tensor]]:
        """Shuffled minibatches over all T * N samples."""
        total = self.num_steps * self.num_envs
        size = total // num_minibatches
        flat = {
            "obs": self.obs.reshape(total, -1),
            "actions": self.actions.reshape(total, -1),
            "log_probs": self.log_probs.reshape(total),
            "values": self.values.reshape(total),
            "advantages": self.advantages.reshape(total),
            "returns": self.returns.reshape(total),
        }
        order = torch.randperm(total, generator=generator)
        for i in range(num_minibatches):
            idx = order[i * size : (i + 1) * size]
            yield {k: v[idx] for k, v in flat.items()}
