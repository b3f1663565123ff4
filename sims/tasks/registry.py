"""The task registry: every backend finds a task here, by name, and nothing else names one.

A task is one module (or any object with the same attributes) holding all of it:

- ``CONFIG`` (:class:`~sims.tasks.base.TaskConfig`, its reward terms' weights in
  ``rewards`` / ``sparse_rewards``), ``LAYOUT`` (:class:`~sims.tasks.base.ObservationLayout`),
  ``REWARD_TERMS`` (the names of its reward terms, in order);
- numpy terms for the host-state backends (PyBullet, Isaac): ``observe(state)``,
  ``reward_terms(state, cfg)`` (term name -> values), ``reward(state, cfg, dense)``,
  ``success(state, cfg)``, and its reset sampling (``sample_reset(rng, n, cfg)`` for tasks
  with a cube, else ``reset_distribution`` and ``sample_goal``);
- ``KERNEL`` (:class:`TaskKernel`): the same terms as scalar per-env functions, which the
  numba kernels (CPU and CUDA, :mod:`sims.kernels.step`) are built around.

The built-in tasks (:data:`BUILTIN_TASKS`) are imported on first use; :func:`register` adds
another at run time. A new task is one new module plus its name in :data:`BUILTIN_TASKS`:
no kernel names a task, and the backends take the task object they are given (only the
PyBullet backend knows pick_place's stacking variant, its second cube).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from sims.kernels.layout import MAX_REWARD_TERMS

BUILTIN_TASKS = ("reach", "push", "pick_place", "turn")
"""Tasks shipped in ``sims/tasks/<name>.py``, in the order the CLI lists them."""

_REGISTERED: dict[str, object] = {}


@dataclass(frozen=True)
class TaskKernel:
    """A task's scalar per-env functions for the numba kernels: plain Python functions
    registered with :func:`numba.extending.register_jitable` (so that the CPU kernels, the
    CUDA kernels and numba's CUDA simulator all compile or run them), over the kernels'
    state rows (``st[k, S_*]``, :mod:`sims.kernels.layout`) and parameter vectors."""

    observe: Callable
    """``observe(k, st, out, noise_std, key, base)``: env ``k``'s observation row
    ``out[k]`` at the offsets of the task's ``LAYOUT``; observation noise: the draws
    ``base + i`` under ``key`` (:func:`sims.kernels.observe.obs_noise`)."""
    evaluate: Callable
    """``evaluate(k, fp, st) -> (terms, success)``: the values of the task's reward terms (a
    tuple of floats in the order of ``REWARD_TERMS``, unweighted) and whether it is solved;
    the kernel weighs the terms with the config's weights."""
    reset: Callable
    """``reset(k, fp, ip, key, st)``: the task's draws of a new episode (goal, cube) after
    the arm's (draw numbers as in :func:`sims.kernels.episode.reset_arm`)."""
    physics: Callable
    """``physics(k, fp, ip, st, scratch, a, cartesian, prev_x, prev_y, prev_z,
    prev_width)``: the world after the arm has moved (the TCP, a cube): one of the kernels'
    models, :func:`sims.kernels.kinematics.arm_physics` or
    :func:`sims.kernels.contact.cube_physics`."""
    pack: Callable
    """``pack(cfg, fp, ip)`` (Python): the task's numbers into the parameter vectors
    (``P_*``, ``I_*``), checking ``cfg`` first."""
    joint_fast_path: bool = False
    """Also compile the step for joint mode with the mode a constant (reach's training
    path: the IK is dropped); costs compile time."""


def has_goal_yaw(task) -> bool:
    """Whether ``task``'s episodes have a target yaw for the cube (its ``GOAL_YAW``; the
    backends then keep ``SimState.goal_yaw``, and its ``sample_reset`` draws it as a fifth
    array)."""
    return bool(getattr(task, "GOAL_YAW", False))


def places_object(task) -> bool:
    """Whether ``task``'s episodes place a cube (its ``sample_reset``, in
    ``CONFIG.object_xy_range``): the tasks a cube area (``env.object_region``,
    ``--object-region``) applies to."""
    return callable(getattr(task, "sample_reset", None))


def places_goal(task) -> bool:
    """Whether ``task``'s ``sample_reset`` also draws a goal apart from the cube (in
    ``CONFIG.goal_xy_range``, ``CONFIG.goal_distance_range`` from it): the tasks a goal area
    and a cube-goal distance (``env.goal_region``, ``env.goal_distance``) apply to. Not a
    task whose goal is the cube's own start (``GOAL_IN_PLACE``: turn)."""
    return places_object(task) and not getattr(task, "GOAL_IN_PLACE", False)


def object_task_names() -> str:
    """The tasks that place a cube (:func:`places_object`), as messages name them:
    ``push/pick_place/turn``."""
    return "/".join(n for n in names() if places_object(get(n)))


def goal_task_names() -> str:
    """The tasks that draw a goal apart from the cube (:func:`places_goal`), as messages
    name them: ``push/pick_place``."""
    return "/".join(n for n in names() if places_goal(get(n)))


def register(task) -> object:
    """Add ``task`` (a module or an object with a task module's attributes, see the module
    docstring; ``KERNEL`` only where it runs on the numba backend) under
    ``task.CONFIG.name``; returns it. ValueError when a different task has the name or an
    attribute is missing."""
    missing = [
        name
        for name in ("CONFIG", "LAYOUT", "REWARD_TERMS", "observe", "reward_terms", "success")
        if not hasattr(task, name)
    ]
    if missing:
        raise ValueError(f"a task needs {', '.join(missing)}")
    name = task.CONFIG.name
    if _REGISTERED.get(name, task) is not task:
        raise ValueError(f"a different task is registered as {name!r}")
    if not 1 <= len(task.REWARD_TERMS) <= MAX_REWARD_TERMS:
        raise ValueError(f"{name}: 1 to {MAX_REWARD_TERMS} reward terms, got {task.REWARD_TERMS}")
    _REGISTERED[name] = task
    return task


def unregister(name: str) -> None:
    """Forget a task added with :func:`register` (tests); built-in tasks come back on use."""
    _REGISTERED.pop(name, None)


def get(name: str):
    """The task registered as ``name`` (a built-in one is imported and registered here)."""
    if name not in _REGISTERED and name in BUILTIN_TASKS:
        register(importlib.import_module(f"sims.tasks.{name}"))
    if name not in _REGISTERED:
        raise ValueError(f"unknown task {name!r}; choose one of {', '.join(names())}")
    return _REGISTERED[name]


def names() -> tuple[str, ...]:
    """Every task's name: the built-in ones, then those registered since."""
    return BUILTIN_TASKS + tuple(n for n in _REGISTERED if n not in BUILTIN_TASKS)
