"""The numba backend's CUDA kernels (one GPU thread per env) and the device checks.

:func:`task_cuda_kernels` builds a task's kernels around the per-env step and reset that
:func:`sims.kernels.step.task_kernels` builds for its CPU kernels (from the task's
``KERNEL``), over the same state layout and parameter vectors.
:mod:`sims.backends.numba_cuda` holds the device state, the launches and the env, and
re-exports every name here. Importing this module needs no GPU: kernels compile on first
launch.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from numba import config as numba_config
from numba import cuda, float64, types
from numba.core.extending import overload

from sims.kernels.layout import C_EPISODE, C_STEPS, I_CARTESIAN, SCRATCH_SHAPE
from sims.kernels.step import task_kernels

THREADS_PER_BLOCK = 128

NO_GPU_MESSAGE = (
    "no CUDA device: the numba CUDA kernels need an NVIDIA GPU with a CUDA driver; use "
    "device='cpu', or set NUMBA_ENABLE_CUDASIM=1 (before numba is imported) to run them "
    "in numba's CUDA simulator (slow; for tests)"
)


def _scalars(*args) -> bool:
    return all(isinstance(a, (types.Number, types.Boolean)) for a in args)


@overload(max, target="cuda")
def _cuda_max2(a, b):
    """Two-argument ``max`` for the CUDA target. numba >= 0.66 made ``max``/``min`` one
    ``*args`` overload that the CUDA target fails to compile ("Signature mismatch: 2
    argument types given, but function takes 1 arguments", numba issue #10753); this
    fixed-arity overload is preferred on CUDA, with the CPU's result (``a`` unless
    ``b > a``). The CPU kernels keep numba's own."""
    if _scalars(a, b):
        return lambda a, b: b if b > a else a
    return None


@overload(min, target="cuda")
def _cuda_min2(a, b):
    """Two-argument ``min`` for the CUDA target (see :func:`_cuda_max2`)."""
    if _scalars(a, b):
        return lambda a, b: b if b < a else a
    return None


def cuda_available() -> bool:
    """True where a CUDA device (or numba's CUDA simulator) can run the kernels."""
    try:
        return bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - a broken driver install must not break imports
        return False


def simulated() -> bool:
    """True under numba's CUDA simulator (device arrays are host arrays there)."""
    return bool(numba_config.ENABLE_CUDASIM)


def require_cuda(index: int = 0) -> None:
    """RuntimeError (naming the simulator) unless CUDA device ``index`` can run kernels."""
    if not cuda_available():
        raise RuntimeError(NO_GPU_MESSAGE)
    count = len(cuda.gpus)
    if not 0 <= index < count:
        raise RuntimeError(f"no CUDA device {index}: this machine has {count} (0..{count - 1})")


# ======================================================================================
# Kernels
# ======================================================================================
_BUILT: dict = {}


def task_cuda_kernels(task_kernel) -> SimpleNamespace:
    """The CUDA kernels ``step_cuda`` and ``reset_cuda`` of a task, from its ``KERNEL``
    (:class:`sims.tasks.registry.TaskKernel`); built once per task, compiled on first
    launch."""
    if task_kernel not in _BUILT:
        _BUILT[task_kernel] = _build(task_kernel)
    return _BUILT[task_kernel]


def _step_kernel(step_envs, joint):
    """The CUDA step kernel around the CPU chunk step ``step_envs``: one step of env
    ``cuda.grid(1)`` (a chunk of one env), arguments as the CPU ``step_kernel`` (without
    ``n_chunks``). ``joint`` compiles joint mode as a constant (as the CPU kernel's fast
    path: no IK), else the mode is read from ``ip``."""

    @cuda.jit
    def step_cuda(fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags):
        k = cuda.grid(1)
        if k >= st.shape[0]:
            return
        w = cuda.local.array(SCRATCH_SHAPE, float64)
        cartesian = False if joint else ip[I_CARTESIAN] != 0
        step_envs(
            k, k + 1, cartesian, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, w
        )

    return step_cuda


def _build(task_kernel) -> SimpleNamespace:
    cpu = task_kernels(task_kernel)
    reset_env = cpu.reset_env
    observe_env = cpu.observe_env

    @cuda.jit
    def reset_cuda(fp, ip, seed, restart, st, cnt, abuf, obs):
        """A new episode in every env, as the CPU ``reset_kernel``: ``restart`` 1 zeroes the
        episode counters (a new seed), 0 advances them (a reset without one)."""
        k = cuda.grid(1)
        if k >= st.shape[0]:
            return
        scratch = cuda.local.array(SCRATCH_SHAPE, float64)
        if restart != 0:
            cnt[k, C_EPISODE] = 0
        else:
            cnt[k, C_EPISODE] += 1
        reset_env(k, fp, ip, seed, st, cnt, abuf, scratch)
        observe_env(k, fp, seed, st, cnt, obs, cnt[k, C_STEPS])

    joint_fast_path = task_kernel.joint_fast_path
    return SimpleNamespace(
        step_cuda=_step_kernel(cpu.step_envs, joint=False),
        step_cuda_joint=_step_kernel(cpu.step_envs, joint=True) if joint_fast_path else None,
        reset_cuda=reset_cuda,
    )


@cuda.jit
def prepare_actions(src, dst, bad, check):
    """Copy actions ``src`` [N, A] (any float dtype) into ``dst`` (float64); with ``check``
    1, ``bad[0]`` becomes the smallest flat index of a non-finite entry (atomic min)."""
    k = cuda.grid(1)
    if k >= dst.shape[0]:
        return
    a = dst.shape[1]
    for j in range(a):
        dst[k, j] = src[k, j]
        if check != 0 and not math.isfinite(dst[k, j]):
            cuda.atomic.min(bad, 0, k * a + j)
