"""GAE on a CUDA GPU: a numba.cuda kernel running :func:`policies.ppo.gae.gae_env` (the CPU
kernel's recursion) with one thread per env, for a rollout stored on the GPU
(:class:`policies.ppo.storage.RolloutStorage`). Imported only by a GPU run (importing
numba.cuda costs time); under numba's CUDA simulator it runs on host arrays (tests)."""

from __future__ import annotations

from numba import cuda

from policies.ppo.gae import gae_env

THREADS_PER_BLOCK = 128


@cuda.jit
def gae_cuda(rewards, values, dones, last_values, gamma, lam, advantages, returns):
    """:func:`policies.ppo.gae.gae_env` for env ``cuda.grid(1)``."""
    n = cuda.grid(1)
    if n < rewards.shape[1]:
        gae_env(n, rewards, values, dones, last_values, gamma, lam, advantages, returns)


def gae_on_device(rewards, values, dones, last_values, gamma, lam, advantages, returns, index=0):
    """GAE on CUDA device ``index``: writes ``advantages`` and ``returns`` [T, N] from
    ``rewards``, ``values``, ``dones`` [T, N] and ``last_values`` [N] (float32 CUDA torch
    tensors, or anything numba launches on; under the simulator, host arrays)."""
    num_envs = int(rewards.shape[1])
    threads = min(THREADS_PER_BLOCK, num_envs)
    blocks = (num_envs + threads - 1) // threads
    with cuda.gpus[index]:
        gae_cuda[blocks, threads](
            rewards, values, dones, last_values, float(gamma), float(lam), advantages, returns
        )
