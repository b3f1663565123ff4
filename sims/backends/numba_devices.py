"""Which numba env a device gets: :func:`make_numba_env`, the numba backend's factory
(``sims.make_env(task, "numba", ...)``), apart from both envs so that neither imports the
other's module back."""

from __future__ import annotations

from sims.backends.numba_backend import NumbaEnv, parse_device


def make_numba_env(task_module, num_envs: int, config=None, device="cpu", **kwargs):
    """:class:`NumbaEnv` (``device="cpu"``) or, for ``"cuda"`` / ``"cuda:N"``, its GPU
    variant :class:`sims.backends.numba_cuda.NumbaCudaEnv` (same interface; RuntimeError
    before any work where no CUDA device is there)."""
    index = parse_device(device)
    if index is None:
        return NumbaEnv(task_module, num_envs, config, **kwargs)
    from sims.backends import numba_cuda  # numba.cuda only where asked for

    numba_cuda.require_cuda(index)
    return numba_cuda.NumbaCudaEnv(task_module, num_envs, config, device_index=index, **kwargs)
