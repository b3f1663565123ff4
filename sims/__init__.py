"""Simulators: the Franka Panda model, tasks, and batched backends (numba, pybullet, isaac).

Layer rule: ``miles_ros -> policies -> sims``. ``sims`` is the bottom layer: it imports
neither ``policies`` nor ``miles_ros`` nor rclpy (``tests/test_layers.py`` fails
otherwise), and no torch in hot paths. Entry point: :func:`make_env`.
"""

from __future__ import annotations

import importlib

from sims import numba_cache

numba_cache.install()  # before any cache=True kernel: the content-keyed numba cache

from sims.tasks import registry  # noqa: E402

TASKS = registry.BUILTIN_TASKS
"""The built-in tasks; :func:`sims.tasks.registry.register` adds others."""
BACKENDS = ("numba", "pybullet", "isaac")

_BACKEND_MODULES = {
    "numba": ("sims.backends.numba_devices", "make_numba_env"),
    "pybullet": ("sims.backends.pybullet.env", "make_pybullet_env"),
    "isaac": ("sims.backends.isaac", "make_isaac_env"),
}


def get_task(name: str):
    """The task registered as ``name`` (a built-in one: the module ``sims.tasks.<name>``)."""
    return registry.get(name)


def make_env(
    task: str,
    backend: str = "numba",
    num_envs: int = 1,
    seed: int | None = None,
    config=None,
    **kwargs,
):
    """A batched env for ``task`` on ``backend`` with ``num_envs`` copies.

    ``config`` (a :class:`sims.tasks.base.TaskConfig`) overrides the task's defaults;
    backend-specific options go in ``kwargs`` (numba: ``device="cpu"``, the default, or
    ``"cuda"`` / ``"cuda:N"`` for its GPU kernels). The env is reset with ``seed`` when
    given.
    """
    task_module = get_task(task)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    module_name, factory_name = _BACKEND_MODULES[backend]
    factory = getattr(importlib.import_module(module_name), factory_name)
    env = factory(task_module, num_envs=num_envs, config=config, **kwargs)
    if seed is not None:
        env.reset(seed=seed)
    return env
