"""The one goal resolver: skill parameters -> the task's object and goal position (the
cards' ``goal_mapping``), for the skill executor and the planner's grounding alike.

- reach ``{target}``: a named cube -> ``HOVER_HEIGHT`` above its centre; a named pad ->
  ``HOVER_HEIGHT`` above the table at the pad; a 3-vector -> that point.
- push ``{object, target}``: the named cube; a pad -> its centre on the table at the
  cube's rest height; a 2- or 3-vector -> that table point (z ignored). A cube not resting
  on the table (on another cube, held) is not pushed (:func:`off_table_error`), nor one
  whose path passes another cube closer than :data:`~sims.tasks.push.PATH_CLEARANCE`
  (:func:`push_path_error`: the card's "nothing else lies on the path").
- pick_place ``{object, target}``: the named cube; a pad -> resting on the pad (rest
  height); another named cube -> the place pose on top of the stack that cube stands in
  (stacking, the task's ``stack`` and ``tower`` variants:
  :func:`sims.tasks.pick_place.stack_goal` of the top cube's centre; a cube with another
  on it resolves to the top of its stack, :func:`stack_top`; the goal says which cube in
  ``stack_on``); a 3-vector -> that point (it may be in the air).
  A cube with another cube on it is not moved (:func:`covered_error`, push too). A cube
  cannot be stacked on itself, nor on a cube that is not resting (held, or in the
  air: :func:`tower_level`), nor on a cube it stands on, nor above the third level: a
  tower is at most :data:`~sims.tasks.pick_place.TOWER_LEVELS` cubes high
  (:func:`stack_target_error`): :class:`GoalError` says so.
- turn ``{object, angle}``: the named cube, in place (its centre at the request, on the
  table at the rest height) and a goal yaw (:func:`turn_yaw`): the cube's yaw at the
  request plus ``angle`` degrees (counter-clockwise seen from above), or for
  :data:`FACE_ROBOT` the yaw whose face normal points at the robot base. A covered cube,
  or one not resting on the table, is not turned (:func:`in_place_error`), nor one with
  another cube closer than :data:`~sims.tasks.turn.TURN_CLEARANCE` (the card's 7 cm: the
  fingers go around it; :func:`crowded_error`); :func:`turn_place_error` is both. A cube looks
  the same every 90 degrees, so the turn the skill makes is the angle wrapped into
  [-45, 45) degrees (:func:`turn_made_deg`: 60 turns by -30, 100 by 10; the goal's
  ``turn_deg``, which the card's ``angle_deg`` envelope checks), and a multiple of 90
  degrees, which leaves the cube looking as it is, is not a goal (:class:`GoalError`).

:func:`resolve_goal` is the executor's entry: cubes at their live poses
(``/miles/scene/objects``) at the time of the request, pads from the scene file.
:func:`goal_from_positions` is the same mapping over any name -> position tables (the
planner passes its symbolic world's, which has no yaws: a relative turn's goal yaw is then
left None, its position is the same). Coordinates are the robot base frame (m).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from miles_ros.runtime.observation import ObjectPose
from policies.card_content import FACE_ROBOT, HOVER_HEIGHT
from policies.library import ROUTE_CUBE
from sims.scene import Scene
from sims.tasks import pick_place, push
from sims.tasks.base import SimState
from sims.tasks.turn import TURN_CLEARANCE, quarter_wrap

__all__ = [
    "FACE_ROBOT",
    "GOAL_KEYWORDS",
    "HOVER_HEIGHT",
    "Goal",
    "GoalError",
    "ON_TABLE_TASKS",
    "covered_error",
    "goal_from_positions",
    "in_place_error",
    "off_table_error",
    "push_path_error",
    "crowded_error",
    "resolve_goal",
    "rests_on",
    "stack_state",
    "stack_target_error",
    "stack_top",
    "tower_level",
    "turn_made_deg",
    "turn_place_error",
    "turn_yaw",
]

GOAL_KEYWORDS = frozenset({FACE_ROBOT})
"""Parameter values that are keywords of a goal, not names of scene things."""


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
    """pick_place stacking: the cube the object goes on top of, the top of the stack the
    named target stands in (its pose moves the goal; success is the task's stack rule,
    ``SimState.stack``); None otherwise."""
    goal_yaw: float | None = None
    """turn: the cube's target yaw (rad about z, base frame; the task's ``goal_yaw``, a
    cube looks the same every 90 degrees); None for the other skills, and for a relative
    turn resolved without the cube's yaw (the planner's world)."""
    turn_deg: float | None = None
    """turn by a number of degrees: the turn the skill makes (deg, counter-clockwise, in
    [-45, 45): :func:`turn_made_deg`), what the card's ``angle_deg`` envelope checks; None
    for the other skills and for :data:`FACE_ROBOT` (how far depends on the live yaw)."""

    @property
    def route_target(self) -> str | None:
        """The goal's target kind for a skill library's routes (``active.yaml``):
        :data:`~policies.library.ROUTE_CUBE` for a goal on a cube (``stack_on``), None for
        any other (it runs the active version)."""
        return ROUTE_CUBE if self.stack_on is not None else None


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


_ORDINALS = {1: "first", 2: "second", 3: "third"}


def resting_on_table(z: float) -> bool:
    """True where a cube centred at height ``z`` (m) rests on the table (the first level)."""
    return pick_place.cube_level(z) == 1


def rests_on(upper: Sequence[float], lower: Sequence[float]) -> bool:
    """True where a cube centred at ``upper`` lies on the cube centred at ``lower`` (m):
    about one cube edge higher (within half an edge) and overlapping it in xy (centres
    less than an edge apart)."""
    offset = np.asarray(upper, dtype=np.float64) - np.asarray(lower, dtype=np.float64)
    level = abs(offset[2] - pick_place.CUBE_SIZE) < pick_place.CUBE_SIZE / 2
    return bool(level and np.hypot(offset[0], offset[1]) < pick_place.CUBE_SIZE)


def _under(name: str, positions: Mapping[str, Sequence[float]]) -> str | None:
    """The cube ``name`` lies on, or None."""
    return next(
        (n for n, p in positions.items() if n != name and rests_on(positions[name], p)), None
    )


def tower_level(name: str, positions: Mapping[str, Sequence[float]]) -> int | None:
    """The level cube ``name`` rests at (1: on the table, 2: on one cube, 3: on two), or
    None when it is not resting: held, in the air, or at a level's height with nothing
    under it. Cube centres by name (m)."""
    below: list[str] = []
    current = name
    while (level := pick_place.cube_level(positions[current][2])) != 1:
        if level is None:
            return None
        current = _under(current, positions)
        if current is None or current in below:
            return None
        below.append(current)
    return len(below) + 1


def stack_top(obj: str | None, target: str, positions: Mapping[str, Sequence[float]]) -> str:
    """The top cube of the stack standing on ``target`` (``target`` itself when nothing
    lies on it), leaving out ``obj``, the cube being moved."""
    top, seen = target, {target}
    while True:
        above = next(
            (
                n
                for n, p in positions.items()
                if n not in seen and n != obj and rests_on(p, positions[top])
            ),
            None,
        )
        if above is None:
            return top
        top = above
        seen.add(top)


def covered_error(obj: str, positions: Mapping[str, Sequence[float]]) -> str | None:
    """Why the cube ``obj`` cannot be moved given cube centres by name (m): another cube
    lies on it (moving it would topple that one; the top of a stack moves first), or
    None."""
    above = next(
        (n for n, p in positions.items() if n != obj and rests_on(p, positions[obj])), None
    )
    if above is None:
        return None
    return f"cannot move {obj}: {above} lies on top of it (a stack is taken apart from the top)"


def in_place_error(obj: str, positions: Mapping[str, Sequence[float]]) -> str | None:
    """Why the cube ``obj`` cannot be worked on where it stands (turned) given cube
    centres by name (m): a cube lies on it (:func:`covered_error`), or it does not rest on
    the table (held, in the air, or on another cube); None when it can."""
    return covered_error(obj, positions) or off_table_error(obj, positions, "turn", " in place")


ON_TABLE_TASKS = frozenset({"push", "turn"})
"""Tasks whose episodes start the cube resting on the table: a cube on another cube, held
or in the air is neither pushed nor turned (:func:`off_table_error`)."""


def off_table_error(
    obj: str, positions: Mapping[str, Sequence[float]], verb: str, how: str = ""
) -> str | None:
    """Why the cube ``obj`` cannot be ``verb``-ed (turned, pushed: a skill whose task has
    the cube on the table) given cube centres by name (m): it does not rest on the table
    (held, in the air, or on another cube); None when it does."""
    z = float(positions[obj][2])
    if resting_on_table(z):
        return None
    return f"cannot {verb} {obj}{how}: it is not resting on the table (centre at z {z:.3f} m)"


def push_path_error(
    obj: str, goal_xy: Sequence[float], positions: Mapping[str, Sequence[float]]
) -> str | None:
    """Why the cube ``obj`` cannot be pushed to ``goal_xy`` given cube centres by name (m):
    another cube's centre lies within :data:`~sims.tasks.push.PATH_CLEARANCE` of the path
    the push sweeps (from the fingers behind the cube to the goal: the push card's
    precondition "nothing else lies on the path between the cube and the target"); None
    when none does. Of several, the one the push meets first is named (whatever the order
    of ``positions``). A push of zero length has no fingers' side: its path is the cube's
    centre."""
    start = np.asarray(positions[obj][:2], dtype=np.float64)
    end = np.asarray(goal_xy[:2], dtype=np.float64)
    way = end - start
    length = float(np.hypot(*way))
    if length > 0.0:
        start = start - way / length * push.PATH_BEHIND
        way, length = end - start, length + push.PATH_BEHIND
    blocking = []
    for other, p in positions.items():
        if other == obj:
            continue
        point = np.asarray(p[:2], dtype=np.float64)
        along = 0.0 if length == 0.0 else float(np.clip((point - start) @ way / length**2, 0, 1))
        gap = float(np.hypot(*(point - (start + along * way))))
        if gap < push.PATH_CLEARANCE:
            blocking.append((along, gap, other))
    if not blocking:
        return None
    _, gap, other = min(blocking)
    return (
        f"cannot push {obj} there: {other} stands {gap * 100:.1f} cm from its path, closer "
        f"than the {push.PATH_CLEARANCE * 100:.1f} cm the pushed cube needs to pass it (lift "
        "it over instead, or move the other cube first)"
    )


def crowded_error(obj: str, positions: Mapping[str, Sequence[float]]) -> str | None:
    """Why the cube ``obj`` cannot be turned where it stands given cube centres by name
    (m): another cube stands closer to it than :data:`~sims.tasks.turn.TURN_CLEARANCE` in
    the table plane (the fingers go around it: the turn card's precondition); None when
    none does."""
    x, y = float(positions[obj][0]), float(positions[obj][1])
    for other, p in positions.items():
        gap = math.hypot(float(p[0]) - x, float(p[1]) - y)
        if other != obj and gap < TURN_CLEARANCE:
            return (
                f"cannot turn {obj} in place: {other} stands {gap * 100:.0f} cm from it, closer "
                f"than the {TURN_CLEARANCE * 100:.0f} cm the fingers need around it"
            )
    return None


def turn_place_error(obj: str, positions: Mapping[str, Sequence[float]]) -> str | None:
    """Why the cube ``obj`` cannot be turned where it stands: :func:`in_place_error` (covered,
    not resting on the table), then :func:`crowded_error`; None when it can. The skill
    node's resolver and the planner's checks both ask this."""
    return in_place_error(obj, positions) or crowded_error(obj, positions)


def stack_target_error(
    obj: str | None, target: str, positions: Mapping[str, Sequence[float]]
) -> str | None:
    """Why ``obj`` cannot be stacked on the cube ``target`` (on the top of the stack it
    stands in, :func:`stack_top`) given cube centres by name (m), or None: not on itself,
    not on a cube that is not resting (:func:`tower_level`), not on a cube standing on
    ``obj``, and not above the third level (:data:`~sims.tasks.pick_place.TOWER_LEVELS`;
    said first when both hold)."""
    if target == obj:
        return f"{obj} cannot be stacked on itself"
    level = tower_level(target, positions)
    if level is None:
        z = float(positions[target][2])
        return (
            f"cannot stack on {target}: it is not resting on the table or on a stack of cubes "
            f"(its centre is at z {z:.3f} m: held in the gripper, or in the air)"
        )
    top = stack_top(obj, target, positions)
    top_level = tower_level(top, positions) or level
    below, current = [], target
    while (current := _under(current, positions)) is not None and current not in below:
        below.append(current)
    if top_level < pick_place.TOWER_LEVELS and obj in below:
        return f"cannot stack {obj} on {target}: {target} stands on {obj}"
    if top_level >= pick_place.TOWER_LEVELS:
        where = "" if top == target else f" of the tower on {target}"
        at = (
            f"the {_ORDINALS[top_level]} level" if top_level in _ORDINALS else f"level {top_level}"
        )
        return (
            f"a tower is at most {pick_place.TOWER_LEVELS} cubes high: {top} is already "
            f"{at}{where}"
        )
    return None


def turn_yaw(angle: float | str, yaw: float | None, centre: Sequence[float]) -> float | None:
    """The goal yaw (rad) of turning a cube at ``yaw`` (rad; None: unknown) centred at
    ``centre`` (m, base frame) by ``angle``: degrees counter-clockwise seen from above,
    relative to ``yaw`` (None when ``yaw`` is None), or :data:`FACE_ROBOT`: ``atan2(cy,
    cx)``, the yaw of the line from the base through the centre, so the cube's faces
    lie square to it and one (its local -x) faces the base (any of the four will do: the
    task's yaw error wraps at 45 degrees)."""
    if angle == FACE_ROBOT:
        return math.atan2(float(centre[1]), float(centre[0]))
    if not isinstance(angle, int | float) or isinstance(angle, bool) or not math.isfinite(angle):
        raise GoalError(f"angle must be a number of degrees or {FACE_ROBOT!r}, got {angle!r}")
    return None if yaw is None else float(yaw) + math.radians(float(angle))


NOTHING_TO_TURN_DEG = 1e-6
"""A turn whose wrapped angle (:func:`turn_made_deg`) is smaller than this (deg) leaves
the cube looking as it is."""


def turn_made_deg(angle: float) -> float:
    """The turn (deg, counter-clockwise) the skill makes for a request to turn a cube by
    ``angle`` degrees: ``angle`` wrapped into [-45, 45) (the task's yaw error wraps at a
    quarter turn, a cube looks the same every 90 degrees): 60 -> -30, 100 -> 10, 45 ->
    -45, 90 -> 0."""
    return math.degrees(float(quarter_wrap(np.radians(float(angle)))))


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
        yaws={name: pose.yaw for name, pose in objects.items()},
    )


def goal_from_positions(
    task: str,
    params: Mapping,
    objects: Mapping[str, Sequence[float]],
    places: Mapping[str, Sequence[float]],
    expected: Collection[str] = (),
    yaws: Mapping[str, float] | None = None,
) -> Goal:
    """The :class:`Goal` of ``params`` given cube centres and pad centres by name (m);
    ``expected``: cube names that exist but whose position is not known yet; ``yaws``:
    cube yaws by name (rad), which a turn's goal yaw is relative to (None: unknown)."""
    target = params.get("target")
    if task == "reach":
        if isinstance(target, str):
            point = _named_position(target, objects, places, expected).copy()
            base = point[2] if target in objects else 0.0
            point[2] = base + HOVER_HEIGHT
            return Goal(point, None)
        return Goal(_vector(target, (3,)), None)
    if task not in ("push", "pick_place", "turn"):
        raise GoalError(f"no goal mapping for task {task!r}")
    obj = params.get("object")
    if obj not in objects:
        if obj in expected:
            raise GoalError(f"no pose received yet for {obj!r} (is the sim node running?)")
        known = ", ".join(dict.fromkeys([*expected, *objects]))
        raise GoalError(f"no cube named {obj!r}; known: {known}")
    covered = covered_error(obj, objects)  # said after a stack target's own reason
    if isinstance(target, str) and task == "pick_place" and target in {*objects, *expected}:
        if target not in objects:
            raise GoalError(f"no pose received yet for {target!r} (is the sim node running?)")
        why = stack_target_error(obj, target, objects) or covered
        if why:
            raise GoalError(why)
        top = stack_top(obj, target, objects)
        goal = pick_place.stack_goal(np.asarray(objects[top], dtype=np.float64))
        return Goal(goal, obj, stack_on=top)
    if task == "turn":
        why = turn_place_error(obj, objects)
        if why:
            raise GoalError(why)
        centre = np.asarray(objects[obj], dtype=np.float64)
        yaw = None if yaws is None else yaws.get(obj)
        angle = params.get("angle")
        goal_yaw = turn_yaw(angle, yaw, centre)
        made = None if angle == FACE_ROBOT else turn_made_deg(angle)
        if made is not None and abs(made) < NOTHING_TO_TURN_DEG:
            raise GoalError(
                f"turning {obj} by {angle:g} deg leaves it looking as it is (a cube looks "
                "the same every 90 deg): nothing to do"
            )
        return Goal(
            np.array([centre[0], centre[1], push.CUBE_REST_Z]),
            obj,
            goal_yaw=goal_yaw,
            turn_deg=made,
        )
    if covered:
        raise GoalError(covered)
    if task in ON_TABLE_TASKS and (why := off_table_error(obj, objects, task)):
        raise GoalError(why)  # a push slides a cube across the table, never off a stack
    if isinstance(target, str):
        if target not in places:
            raise GoalError(f"no pad named {target!r}; known: {', '.join(places)}")
        pad = places[target]
        goal = Goal(np.array([pad[0], pad[1], push.CUBE_REST_Z]), obj)
    elif task == "push":
        v = _vector(target, (2, 3))
        goal = Goal(np.array([v[0], v[1], push.CUBE_REST_Z]), obj)
    else:
        return Goal(_vector(target, (3,)), obj)
    if task == "push" and (why := push_path_error(obj, goal.goal_pos, objects)):
        raise GoalError(why)
    return goal


def stack_state(state: SimState, target: ObjectPose | None) -> SimState:
    """A stacking call's task state: marked as a ``stack`` episode (the task's stack
    success rule applies), its goal on top of the target cube's live pose when known."""
    goal = state.goal_pos
    if target is not None:
        goal = pick_place.stack_goal(np.asarray(target.position, dtype=np.float64)).reshape(1, 3)
    return state._replace(goal_pos=goal, stack=np.ones(len(goal), dtype=bool))
