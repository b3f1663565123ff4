"""Generalized advantage estimation as a numba kernel over [T, N] arrays: :func:`gae_env`
is one env's recursion, run by the CPU kernel :func:`compute_gae` and by the CUDA kernel
of :mod:`policies.ppo.storage` (a rollout stored on the GPU)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.extending import register_jitable


@register_jitable
def gae_env(n, rewards, values, dones, last_values, gamma, lam, advantages, returns):
    """Advantages and returns of env ``n`` (column ``n`` of the [T, N] arrays), written into
    ``advantages`` and ``returns``: the recursion :func:`compute_gae` documents."""
    next_adv = 0.0
    next_value = last_values[n]
    for t in range(rewards.shape[0] - 1, -1, -1):
        not_done = 1.0 - dones[t, n]
        delta = rewards[t, n] + gamma * next_value * not_done - values[t, n]
        next_adv = delta + gamma * lam * not_done * next_adv
        advantages[t, n] = next_adv
        returns[t, n] = next_adv + values[t, n]
        next_value = values[t, n]


@njit(cache=True, parallel=True)
def compute_gae(rewards, values, dones, last_values, gamma, lam):
    """Advantages and returns [T, N] (float32) for a rollout of T steps over N envs.

    ``rewards``, ``values``, ``dones``: [T, N]; ``dones[t]`` is 1 where the episode ended
    at step t (terminated or truncated; truncated rewards already include the bootstrap
    ``gamma * V(final_obs)``), so nothing flows back across it. ``last_values`` [N] is
    V(obs after the last step).

    delta_t = r_t + gamma * V_{t+1} * (1 - done_t) - V_t
    A_t = delta_t + gamma * lam * (1 - done_t) * A_{t+1};  returns = A + V
    """
    num_steps, num_envs = rewards.shape
    advantages = np.empty((num_steps, num_envs), dtype=np.float32)
    returns = np.empty((num_steps, num_envs), dtype=np.float32)
    for n in prange(num_envs):
        gae_env(n, rewards, values, dones, last_values, gamma, lam, advantages, returns)
    return advantages, returns
