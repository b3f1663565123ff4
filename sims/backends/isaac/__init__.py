"""The Isaac backend: the tasks on Isaac Lab 3.0's kit-less physics, Newton (MuJoCo-Warp).

It runs in ``.venv-isaac`` (``make isaac``: Python 3.12, ``isaaclab==3.0.0``, which pins its
own torch and so cannot share ``.venv``), on ``cpu`` or ``cuda:N``; no Isaac Sim, no
Omniverse Kit, no RTX GPU. :mod:`sims.backends.isaac.env` holds the env,
:mod:`sims.backends.isaac.assets` the local asset folder. Importing this package is cheap;
where Isaac Lab / Newton are not importable, :func:`make_isaac_env` raises
:class:`IsaacLabNotAvailableError` (an ``ImportError``) that says ``make isaac``.
"""

from __future__ import annotations

import importlib

INSTALL_HINT = (
    "the 'isaac' backend needs Isaac Lab 3.0 with Newton physics (Python packages "
    "'isaaclab', 'newton', 'warp'), which this Python cannot import. Run `make isaac` "
    "(creates .venv-isaac with Python 3.12 and builds the local assets), then use "
    ".venv-isaac/bin/python. It runs on CPU (device='cpu') or an NVIDIA GPU "
    "(device='cuda:0'); backend='numba' or 'pybullet' need neither."
)


class IsaacLabNotAvailableError(ImportError):
    """Isaac Lab / Newton are not importable in this Python (run ``make isaac``)."""


def import_newton():
    """``(newton, warp)``, or :class:`IsaacLabNotAvailableError`."""
    errors = []
    modules = []
    for name in ("isaaclab", "warp", "newton"):
        try:
            modules.append(importlib.import_module(name))
        except ImportError as exc:  # includes ModuleNotFoundError
            errors.append(f"{name}: {exc}")
    if errors:
        raise IsaacLabNotAvailableError(f"{INSTALL_HINT} (import errors: {'; '.join(errors)})")
    warp = modules[1]
    if hasattr(warp, "LOG_WARNING"):  # no banner and no per-kernel load lines on stdout
        warp.config.log_level = warp.LOG_WARNING
    return modules[2], warp


def make_isaac_env(task_module, num_envs: int, config=None, **options):
    """An :class:`sims.backends.isaac.env.IsaacEnv` (its docstring lists ``options``)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    import_newton()
    from sims.backends.isaac.env import IsaacEnv

    return IsaacEnv(task_module, num_envs, config, **options)
