"""Scripted experts: memoryless state-feedback controllers, one per task, that an
imitation stage of ``miles train`` (DAgger) uses as the teacher of a neural skill.

Each task module (``policies.experts.push``, ``policies.experts.pick_place``, ...) has
``act(obs, cfg) -> actions``: batched observations ``[N, obs_dim]`` in the task's layout
(``sims.tasks.<task>.LAYOUT``) and its ``TaskConfig`` in, actions ``[N, action_dim]`` in
[-1, 1] out. An expert reads nothing but the observation (no hidden phase, no simulator
state), so it can label any state a student policy visits. A module may also have
``focus(obs, cfg) -> (actions, focus)`` (:func:`get_labeller`): the same actions
with a boolean ``[N]`` mask of the states where its students' errors do harm the actions
do not show (turn: low beside the cube going around it), which an imitation stage may weigh
more (``imitation.focus_weight``). A module may name settings with their defaults in a
``SETTINGS`` dict (turn: ``orbit_margin``), keyword arguments of its ``act`` and ``focus``
that a run sets with ``imitation.expert_settings`` (:func:`get_expert`). A module may also
keep a memory of past observations for a caller that runs it once per control period on
every env (a ``Memory`` class whose instance ``act`` and ``focus`` take as ``watch``;
pick_place: the finger reading's history, :class:`~policies.experts.pick_place.GripWatch`):
:func:`get_rollout_labeller`, a DAgger rollout under ``imitation.expert_memory``; without
one it is still a function of the observation.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping

import numpy as np

EXPERT_TASKS = ("reach", "push", "pick_place", "turn")
"""Tasks with a scripted expert."""

Expert = Callable[[np.ndarray, object], np.ndarray]
Labeller = Callable[[np.ndarray, object], tuple[np.ndarray, np.ndarray]]


def expert_settings(task: str, settings: Mapping | None = None) -> dict[str, float]:
    """``settings`` (name -> number) checked against ``task``'s expert's ``SETTINGS``, as
    floats; ValueError naming the settings it has (none: an empty ``settings`` only)."""
    if task not in EXPERT_TASKS:
        raise ValueError(
            f"no scripted expert for task {task!r}; experts exist for {', '.join(EXPERT_TASKS)}"
        )
    known = getattr(importlib.import_module(f"policies.experts.{task}"), "SETTINGS", {})
    out = {}
    for name, value in (settings or {}).items():
        if name not in known:
            have = ", ".join(known) or "none"
            raise ValueError(f"{task} expert has no setting {name!r} (its settings: {have})")
        try:
            out[name] = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{task} expert setting {name}: a number, got {value!r}") from None
    return out


def _bound(function, settings: dict[str, float]):
    return functools.partial(function, **settings) if settings else function


def get_expert(task: str, settings: Mapping | None = None) -> Expert:
    """The expert's ``act`` for ``task``, with ``settings`` (:func:`expert_settings`) bound
    where given; ValueError naming the tasks that have one."""
    settings = expert_settings(task, settings)
    return _bound(importlib.import_module(f"policies.experts.{task}").act, settings)


def get_labeller(task: str, settings: Mapping | None = None) -> Labeller:
    """``task``'s expert as ``(actions, focus)``: its module's ``focus`` where it has one,
    else :func:`get_expert`'s actions with no state in focus; ``settings`` and ValueError
    as :func:`get_expert`."""
    act = get_expert(task, settings)
    focus = getattr(importlib.import_module(f"policies.experts.{task}"), "focus", None)
    if focus is not None:
        return _bound(focus, expert_settings(task, settings))

    def unfocused(obs: np.ndarray, cfg) -> tuple[np.ndarray, np.ndarray]:
        actions = act(obs, cfg)
        return actions, np.zeros(np.shape(actions)[0], dtype=bool)

    return unfocused


def get_rollout_labeller(task: str, settings: Mapping | None = None) -> Labeller:
    """:func:`get_labeller`'s labeller with a memory of its own where ``task``'s module
    keeps one (a ``Memory`` class whose instance its ``focus`` takes as ``watch``;
    pick_place: the finger reading's history), for a caller that labels every env's state
    once per control period, in order (a DAgger rollout); else :func:`get_labeller`'s."""
    labeller = get_labeller(task, settings)
    memory = getattr(importlib.import_module(f"policies.experts.{task}"), "Memory", None)
    if memory is None:
        return labeller
    return functools.partial(labeller, watch=memory())


def observations(obs, layout, task: str) -> np.ndarray:
    """``obs`` as float64 ``[N, layout.dim]`` (``layout``: the task's
    ``ObservationLayout``); ValueError naming ``task``'s expert otherwise."""
    obs = np.asarray(obs, dtype=np.float64)
    if obs.ndim != 2 or obs.shape[1] != layout.dim:
        raise ValueError(f"{task} expert: observations must be [N, {layout.dim}], got {obs.shape}")
    return obs


def ramp(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """0 at ``x <= lo``, 1 at ``x >= hi``, linear in between."""
    return np.clip((x - lo) / (hi - lo), 0.0, 1.0)
