"""The one goal resolver: skill parameters -> the task's object and goal position (the
cards' ``goal_mapping``), for the skill executor and the planner's grounding alike.

- reach ``{target}``: a named cube -> ``HOVER_HEIGHT`` above its centre; a named pad ->
  ``HOVER_HEIGHT`` above the table at the pad; a 3-vector -> that point.
- push ``{object, target}``: the named cube; a pad -> its centre on the table at the
  cube's rest height; a 2- or 3-vector -> that table point (z ignored).
- pick_place ``{object, target}``: the named cube; a pad -> resting on the pad (rest
  height); another named cube -> the place pose on top of it (stacking, the task's
  ``stack`` variant: :func:`sims.tasks.pick_place.stack_goal` of its centre; the goal
  says which cube in ``stack_on``); a 3-vector -> that point (it may be in the air).
  A cube cannot be stacked on itself, nor on a cube that is not resting on the table
  (one that is held, or already on another cube: the stack variant was trained on
  target cubes resting on the table), nor on one with another cube on top of it
  (:func:`stack_target_error`): :class:`GoalError` says so.

:func:`resolve_goal` is the executor's entry: cubes at their live poses
(``/miles/scene/objects``) at the time of the request, pads from the scene file.
:func:`goal_from_positions` is the same mapping over any name -> position tables (the
planner passes its symbolic world's). Coordinates are the robot base frame (m).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from miles_ros.runtime.observation import ObjectPose
from policies.card_content import HOVER_HEIGHT
from sims.scene import Scene
from sims.tasks import pick_place, push
from sims.tasks.base import SimState

__all__ = [
    "HOVER_HEIGHT",
    "Goal",
    "GoalError",
    "goal_from_positions",
    "resolve_goal",
    "stack_state",
    "stack_target_error",
]


class GoalError(ValueError):
    """Parameters that name something absent from the scene or that cannot be resolved."""


@dataclass(frozen=True)
class Goal:
    """What a running skill works on."""

    goal_pos: np.ndarray
    """Goal position [3] (m, base frame), as the task's ``goal_pos``."""
    object_name: str | None
    """The cube the task manipulates (None for reach)."""
    stack_on: str | None = None
    """pick_place stacking: the cube the object goes on top of (its pose moves the goal;
    success is the task's stack rule, ``SimState.stack``); None otherwise."""


def _named_position(
    name: str,
    objects: Mapping[str, Sequence[float]],
    places: Mapping[str, Sequence[float]],
    expected: Collection[str],
) -> np.ndarray:
    if name in objects:
        return np.asarray(objects[name], dtype=np.float64)
    if name in places:
        return np.asarray(places[name], dtype=np.float64)
    if name in expected:
        raise GoalError(f"no pose received yet for {name!r} (is the sim node running?)")
    known = ", ".join(dict.fromkeys([*expected, *objects, *places]))
    raise GoalError(f"no object or place named {name!r}; known: {known}")


def _vector(value, sizes: tuple[int, ...]) -> np.ndarray:
    v = np.asarray(value, dtype=np.float64).reshape(-1)
    if v.shape[0] not in sizes or not np.all(np.isfinite(v)):
        raise GoalError(f"expected {' or '.join(map(str, sizes))} finite numbers, got {value!r}")
    return v


def resting_on_table(z: float) -> bool:
    """True where a cube centred at height ``z`` (m) rests on the table (not held, not on
    another cube): the base a stack needs."""
    return abs(float(z) - pick_place.CUBE_REST_Z) <= pick_place.STACK_Z_TOLERANCE


def stack_target_error(
    obj: str | None, target: str, positions: Mapping[str, Sequence[float]]
) -> str | None:
    """Why ``obj`` cannot be stacked on the cube ``target`` given cube centres by name
    (m), or None: not on itself, only on a cube resting on the table, and not on one that
    already has another cube on top."""
    if target == obj:
        return f"{obj} cannot be stacked on itself"
    base = np.asarray(positions[target], dtype=np.float64)
    if not resting_on_table(base[2]):
        return (
            f"cannot stack on {target}: it is not resting on the table (its centre is at z "
            f"{base[2]:.3f} m: held in the gripper, or on another cube)"
        )
    top = pick_place.stack_goal(base)
    for name, position in positions.items():
        offset = np.asarray(position, dtype=np.float64) - top
        on_top = np.hypot(offset[0], offset[1]) < pick_place.CUBE_SIZE
        if name not in (obj, target) and on_top and abs(offset[2]) < pick_place.CUBE_SIZE / 2:
            return f"cannot stack on {target}: {name} already lies on top of it"
    return None


def resolve_goal(
    task: str, params: Mapping, scene: Scene, objects: Mapping[str, ObjectPose]
) -> Goal:
    """The :class:`Goal` of a request whose ``params`` already passed the card's schema:
    cubes at their live ``objects`` poses (a scene cube without one is an error), pads
    from the ``scene``."""
    return goal_from_positions(
        task,
        params,
        {name: pose.position for name, pose in objects.items()},
        {name: place.position for name, place in scene.places.items()},
        expected=scene.objects,
    )


def goal_from_positions(
    task: str,
    params: Mapping,
    objects: Mapping[str, Sequence[float]],
    places: Mapping[str, Sequence[float]],
    expected: Collection[str] = (),
) -> Goal:
    """The :class:`Goal` of ``params`` given cube centres and pad centres by name (m);
    ``expected``: cube names that exist but whose position is not known yet."""
    target = params.get("target")
    if task == "reach":
        if isinstance(target, str):
            point = _named_position(target, objects, places, expected).copy()
            base = point[2] if target in objects else 0.0
            point[2] = base + HOVER_HEIGHT
            return Goal(point, None)
        return Goal(_vector(target, (3,)), None)
    if task not in ("push", "pick_place"):
        raise GoalError(f"no goal mapping for task {task!r}")
    obj = params.get("object")
    if obj not in objects:
        if obj in expected:
            raise GoalError(f"no pose received yet for {obj!r} (is the sim node running?)")
        known = ", ".join(dict.fromkeys([*expected, *objects]))
        raise GoalError(f"no cube named {obj!r}; known: {known}")
    if isinstance(target, str) and task == "pick_place" and target in {*objects, *expected}:
        if target not in objects:
            raise GoalError(f"no pose received yet for {target!r} (is the sim node running?)")
        why = stack_target_error(obj, target, objects)
        if why:
            raise GoalError(why)
        goal = pick_place.stack_goal(np.asarray(objects[target], dtype=np.float64))
        return Goal(goal, obj, stack_on=target)
    if isinstance(target, str):
        if target not in places:
            raise GoalError(f"no pad named {target!r}; known: {', '.join(places)}")
        pad = places[target]
        return Goal(np.array([pad[0], pad[1], push.CUBE_REST_Z]), obj)
    if task == "push":
        v = _vector(target, (2, 3))
        return Goal(np.array([v[0], v[1], push.CUBE_REST_Z]), obj)
    return Goal(_vector(target, (3,)), obj)


def stack_state(state: SimState, target: ObjectPose | None) -> SimState:
    """A stacking call's task state: marked as a ``stack`` episode (the task's stack
    success rule applies), its goal on top of the target cube's live pose when known."""
    goal = state.goal_pos
    if target is not None:
        goal = pick_place.stack_goal(np.asarray(target.position, dtype=np.float64)).reshape(1, 3)
    return state._replace(goal_pos=goal, stack=np.ones(len(goal), dtype=bool))
