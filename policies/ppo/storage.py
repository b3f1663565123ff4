"""Rollout storage: preallocated [T, N, ...] tensors on the run's device, GAE, shuffled
minibatches.

Everything lives on ``device`` (a GPU run keeps the rollout there: :meth:`add` takes
tensors on it, or host arrays, which it copies). GAE runs the one recursion of
:mod:`policies.ppo.gae`: the numba CPU kernel for a rollout on the CPU, its CUDA kernel
(:mod:`policies.ppo.gae_cuda`, one thread per env) for a rollout on a GPU numba can launch
on, else the CPU kernel over a host copy.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch

from policies.ppo.gae import compute_gae


def _numba_cuda_usable() -> bool:
    try:
        from sims.backends import numba_cuda
    except ImportError:
        return False
    return numba_cuda.cuda_available() and not numba_cuda.simulated()


class RolloutStorage:
    """One rollout of ``num_steps`` steps over ``num_envs`` envs, on ``device``."""

    def __init__(
        self,
        num_steps: int,
        num_envs: int,
        obs_dim: int,
        action_dim: int,
        device: str | torch.device = "cpu",
    ):
        self.num_steps = num_steps
        self.num_envs = num_envs
        self.device = torch.device(device)
        shape = (num_steps, num_envs)
        zeros = dict(device=self.device)
        self.obs = torch.zeros(*shape, obs_dim, **zeros)
        self.actions = torch.zeros(*shape, action_dim, **zeros)
        self.log_probs = torch.zeros(shape, **zeros)
        self.values = torch.zeros(shape, **zeros)
        self.rewards = torch.zeros(shape, **zeros)
        self.dones = torch.zeros(shape, **zeros)
        self.advantages = torch.zeros(shape, **zeros)
        self.returns = torch.zeros(shape, **zeros)
        self.step = 0

    def add(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        log_probs: torch.Tensor,
        values: torch.Tensor,
        rewards: torch.Tensor | np.ndarray,
        dones: torch.Tensor | np.ndarray,
    ) -> None:
        """Store one step (``dones``: bool or 0/1; host arrays are copied to the device)."""
        if self.step >= self.num_steps:
            raise RuntimeError("rollout storage is full; call clear() after the update")
        t = self.step
        self.obs[t] = obs
        self.actions[t] = actions
        self.log_probs[t] = log_probs
        self.values[t] = values
        self.rewards[t] = torch.as_tensor(rewards)
        self.dones[t] = torch.as_tensor(dones)
        self.step += 1

    def clear(self) -> None:
        self.step = 0

    def compute_returns(self, last_values: torch.Tensor, gamma: float, lam: float) -> None:
        """GAE advantages and returns (numba kernel; see the module docstring)."""
        last_values = torch.as_tensor(last_values, dtype=torch.float32)
        if self.device.type == "cuda" and _numba_cuda_usable():
            from policies.ppo.gae_cuda import gae_on_device

            self.advantages = torch.empty_like(self.values)
            self.returns = torch.empty_like(self.values)
            index = self.device.index
            gae_on_device(
                self.rewards,
                self.values,
                self.dones,
                last_values.to(self.device).contiguous(),
                gamma,
                lam,
                self.advantages,
                self.returns,
                torch.cuda.current_device() if index is None else index,
            )
            return
        adv, ret = compute_gae(
            self.rewards.cpu().numpy(),
            self.values.cpu().numpy().astype(np.float32),
            self.dones.cpu().numpy(),
            last_values.cpu().numpy(),
            float(gamma),
            float(lam),
        )
        self.advantages = torch.from_numpy(adv).to(self.device)
        self.returns = torch.from_numpy(ret).to(self.device)

    def minibatches(
        self, num_minibatches: int, generator: torch.Generator | None = None
    ) -> Iterator[dict[str, torch.Tensor]]:
        """Shuffled minibatches over all T * N samples (the permutation drawn on the
        storage's device, or the ``generator``'s)."""
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
        device = generator.device if generator is not None else self.device
        order = torch.randperm(total, generator=generator, device=device).to(self.device)
        for i in range(num_minibatches):
            idx = order[i * size : (i + 1) * size]
            yield {k: v[idx] for k, v in flat.items()}
