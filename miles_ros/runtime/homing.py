"""The scripted ``home`` skill's path: a time-parameterised joint-space polyline from the
measured pose to the home pose that keeps the TCP off the table.

A straight joint-space line to home is the simplest move, and from most poses the right
one. From a pose with the hand low and the shoulder far forward (an arm left near its
limits by a skill that timed out), that line swings the TCP down through the table before
it rises: the safety supervisor rightly refuses to follow it, and ``home`` could never
finish. :func:`home_path` checks the line (the TCP height at 64 points, datasheet FK from
:mod:`sims.robots.panda`) and, where it dips below ``min_height`` (or below the start,
when that is lower), first lifts the TCP straight up in Cartesian space (damped
least-squares steps, :func:`sims.kernels.kinematics.dls_ik_step`) until the line from there is
clear. :func:`path_target` moves along the polyline, one segment after the other, on a
minimum-jerk profile in time with the fastest joint's peak at a set speed, so the
supervisor sees a smooth, time-parameterised stream that starts and stops at rest.

The path must also stay inside the safety supervisor's other boundaries: its TCP workspace
box and keep-out zones, and the link spheres' (:class:`miles_ros.safety.links.Boundaries`,
those of config/safety.yaml), at least :data:`WALL_MARGIN`
inside them (or, from a start already nearer, no nearer than the start). From an arm
wedged behind its base by a skill that drove it to its limits, the line to home swings
the TCP out through the workspace's back wall: the supervisor holds the arm at the wall,
every target of the move is refused and ``home`` times out without moving (issue 28, the
wedge test's flake). Where the lifted path leaves them, :func:`home_path` moves the joints
home in stages instead (:func:`staged_path`): each stage the largest set of the joints
still away whose straight move home keeps inside.

An arm still moving when ``home`` starts (a skill that succeeded in passing, at speed)
is first braked to rest from the commanded state (:func:`brake_target`), and the path
starts where the brake ends: a stream that began at rest from the measured pose would ask
the supervisor, whose command runs ahead of the joints, to turn around at once.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from miles_ros.safety.config import SafetyConfig
from miles_ros.safety.links import Boundaries
from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda

LINE_SAMPLES = 64
"""TCP heights checked along each straight joint-space segment."""
LIFT_STEP = 0.01
"""Height gained per damped least-squares step of the lift (m)."""
LIFT_MAX = 0.40
"""Most the lift may raise the TCP (m) before the path gives up lifting."""
IK_DAMPING = 0.05
"""Damping of the lift's least-squares steps."""
LIMIT_MARGIN = 0.05
"""Lift waypoints stay this far (rad) inside the datasheet position limits."""
LIFT_CLEARANCE = 0.10
"""How far above the floor a via pose's TCP is lifted (m)."""
REPAIR_DEPTH = 4
"""Most times a segment is split at a lifted via pose."""


def _line(q0: np.ndarray, q1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``LINE_SAMPLES`` poses [S, 7] along the straight joint-space line q0 -> q1 and their
    TCP heights [S] (m, base frame)."""
    f = np.linspace(0.0, 1.0, LINE_SAMPLES)[:, None]
    qs = np.ascontiguousarray(q0[None, :] + f * (q1 - q0)[None, :])
    # one pose at a time: fk_tcp_batch's threads cost more than 64 poses (14 ms, loaded)
    return qs, np.array([panda.fk_tcp(q)[2] for q in qs])


def segment_min_height(q0: np.ndarray, q1: np.ndarray) -> float:
    """Lowest TCP height (m, base frame) along the straight joint-space line q0 -> q1."""
    return float(np.min(_line(q0, q1)[1]))


def _lift(q: np.ndarray, height: float) -> list[np.ndarray]:
    """Damped least-squares steps moving the TCP of ``q`` straight up until it is at
    ``height`` (or ``LIFT_MAX`` higher, or stuck at the limits): the poses after each step."""
    poses: list[np.ndarray] = []
    z = float(panda.fk_tcp(q)[2])
    top = min(height, z + LIFT_MAX)
    up = np.array([0.0, 0.0, LIFT_STEP])
    while z < top:
        nxt = q + dls_ik_step(q, up, IK_DAMPING)
        panda.clip_joint_positions(nxt, LIMIT_MARGIN)
        z_next = float(panda.fk_tcp(nxt)[2])
        if z_next <= z + 1e-4:
            break  # stuck at the limits
        q, z = nxt, z_next
        poses.append(q.copy())
    return poses


def _clear_line(a: np.ndarray, b: np.ndarray, floor: float, depth: int) -> list[np.ndarray]:
    """Waypoints after ``a`` up to ``b`` whose lines keep the TCP at or above ``floor``:
    the line itself, or (up to ``depth`` times) a via pose made from the line's lowest
    point lifted to ``LIFT_CLEARANCE`` above the floor."""
    qs, heights = _line(a, b)
    if depth == 0 or float(np.min(heights)) >= floor:
        return [b]
    lifted = _lift(qs[int(np.argmin(heights))], floor + LIFT_CLEARANCE)
    if not lifted:
        return [b]
    via = lifted[-1]
    return _clear_line(a, via, floor, depth - 1) + _clear_line(via, b, floor, depth - 1)


WALL_MARGIN = 0.02
"""How far (m) inside the supervisor's boundaries (:data:`SUPERVISOR`) a home move keeps
its TCP and link spheres, where its start is not nearer."""
STAGES_MAX = 7
"""Most stages of :func:`staged_path` (one joint home per stage at worst)."""
_SUBSETS = sorted(
    (s for n in range(1, panda.NUM_JOINTS + 1) for s in combinations(range(panda.NUM_JOINTS), n)),
    key=len,
    reverse=True,
)
"""Every set of joints, the largest first (:func:`staged_path`'s order)."""


SUPERVISOR = Boundaries.of(SafetyConfig())
"""The supervisor's boundaries of config/safety.yaml (its values are
:class:`~miles_ros.safety.config.SafetyConfig`'s defaults)."""


def _margin(boundaries: Boundaries, q: np.ndarray, line_to=None, stop_below=-np.inf) -> float:
    """The clearance of ``q`` (along the line to ``line_to``: the least, given up below
    ``stop_below``) less :data:`WALL_MARGIN` (m)."""
    clear = boundaries.clearance(
        q, line_to=line_to, samples=LINE_SAMPLES, stop_below=stop_below + WALL_MARGIN
    )
    return float(clear[0]) - WALL_MARGIN


def home_path(
    q_start: np.ndarray,
    q_home: np.ndarray | None = None,
    min_height: float = 0.05,
    boundaries: Boundaries | None = SUPERVISOR,
) -> np.ndarray:
    """Waypoints [M, 7] from ``q_start`` to ``q_home`` (default: the home pose) whose
    straight joint-space segments keep the TCP at or above ``min(min_height, start
    height)``: the straight line where it does; otherwise first a straight-up Cartesian
    lift (1 cm steps) until the line from there clears, and where no lift of at most
    ``LIFT_MAX`` clears it, via poses lifted from the line's lowest points. Where that
    path leaves ``boundaries`` (None: not checked; see :func:`path_clear`), the joints go
    home in stages (:func:`staged_path`) when some staging keeps inside."""
    q0 = np.clip(
        np.asarray(q_start, dtype=np.float64), panda.joint_position_min, panda.joint_position_max
    )
    goal = panda.home_joint_positions if q_home is None else np.asarray(q_home, np.float64)
    floor = min(float(min_height), float(panda.fk_tcp(q0)[2])) - 1e-6
    points = [q0]
    if segment_min_height(q0, goal) < floor:
        for q in _lift(q0, np.inf):
            points.append(q)
            if segment_min_height(q, goal) >= floor:
                break
    points.extend(_clear_line(points[-1], goal.copy(), floor, REPAIR_DEPTH))
    path = np.stack(points)
    if boundaries is None or path_clear(path, floor, boundaries):
        return path
    staged = staged_path(q0, goal, floor, boundaries)
    return path if staged is None else staged


def _bound(q0: np.ndarray, boundaries: Boundaries) -> float:
    """The least margin a path from ``q0`` may have: 0, or the start's own where lower."""
    return min(0.0, _margin(boundaries, q0)) - 1e-6


def _line_clear(a: np.ndarray, b: np.ndarray, floor: float, bound: float, boundaries) -> bool:
    inside = _margin(boundaries, a, line_to=b, stop_below=bound) >= bound
    return inside and segment_min_height(a, b) >= floor


def path_clear(path: np.ndarray, floor: float, boundaries: Boundaries) -> bool:
    """Whether every straight segment of ``path`` keeps the TCP at or above ``floor`` (m)
    and every pose :data:`WALL_MARGIN` inside ``boundaries``, or no nearer than
    ``path[0]`` where it starts nearer (the supervisor lets an arm move away from a
    boundary it is near, never further toward it)."""
    bound = _bound(path[0], boundaries)
    return all(
        _line_clear(a, b, floor, bound, boundaries)
        for a, b in zip(path[:-1], path[1:], strict=True)
    )


def staged_path(
    q0: np.ndarray, goal: np.ndarray, floor: float, boundaries: Boundaries
) -> np.ndarray | None:
    """Waypoints [M, 7] from ``q0`` to ``goal`` that :func:`path_clear` accepts, moving the
    joints home in stages: each stage, the largest set of the joints still away from
    ``goal`` whose straight move there keeps clear (the rest stay), until the line to
    ``goal`` itself is clear; None when no stage is (at most :data:`STAGES_MAX`)."""
    bound = _bound(q0, boundaries)
    points, q = [q0], q0
    for _ in range(STAGES_MAX):
        if _line_clear(q, goal, floor, bound, boundaries):
            return np.stack([*points, goal.copy()])
        away = {j for j in range(len(q)) if q[j] != goal[j]}
        for subset in _SUBSETS:
            if len(subset) >= len(away) or not away.issuperset(subset):
                continue
            nxt = q.copy()
            nxt[list(subset)] = goal[list(subset)]
            if _line_clear(q, nxt, floor, bound, boundaries):
                points.append(nxt)
                q = nxt
                break
        else:
            return None
    return None


BRAKE_FRACTION = 0.5
"""Fraction of each joint's datasheet acceleration limit a home move's opening brake uses."""


def brake_duration(v0: np.ndarray, fraction: float = BRAKE_FRACTION) -> float:
    """Seconds to bring joint velocities ``v0`` [7] (rad/s) to rest together on one
    straight joint-space line, the most loaded joint decelerating at ``fraction`` of its
    acceleration limit (:data:`sims.robots.panda.joint_acceleration_limits`)."""
    rates = np.abs(np.asarray(v0, dtype=np.float64)) / (fraction * panda.joint_acceleration_limits)
    return float(np.max(rates))


def brake_target(q0: np.ndarray, v0: np.ndarray, duration: float, elapsed: float) -> np.ndarray:
    """Where a brake from ``(q0, v0)`` to rest within ``duration`` s (every joint at a
    constant deceleration, so the joints stop together) is after ``elapsed`` s; at rest
    ``q0 + v0 duration / 2`` from ``duration`` on. Clipped to the datasheet position limits."""
    t = min(max(float(elapsed), 0.0), float(duration))
    q = np.asarray(q0, dtype=np.float64)
    v = np.asarray(v0, dtype=np.float64)
    shrink = 0.0 if duration <= 0.0 else 0.5 * t / duration
    return np.clip(q + v * t * (1.0 - shrink), panda.joint_position_min, panda.joint_position_max)


def brake_velocity(v0: np.ndarray, duration: float, elapsed: float) -> np.ndarray:
    """The velocity of :func:`brake_target`'s brake after ``elapsed`` s (rad/s)."""
    t = min(max(float(elapsed), 0.0), float(duration))
    left = 0.0 if duration <= 0.0 else 1.0 - t / duration
    return np.asarray(v0, dtype=np.float64) * left


MIN_JERK_PEAK = 1.875
"""Peak of the minimum-jerk profile's speed, in units of its mean speed."""


def _travel(waypoints: np.ndarray) -> float:
    """Sum over the segments of their fastest joint's travel (rad)."""
    return float(np.sum(np.max(np.abs(np.diff(waypoints, axis=0)), axis=1)))


def path_duration(waypoints: np.ndarray, max_speed: float) -> float:
    """Seconds :func:`path_target` takes over ``waypoints`` with its peak joint speed at
    ``max_speed`` (rad/s)."""
    return MIN_JERK_PEAK * _travel(np.asarray(waypoints, dtype=np.float64)) / float(max_speed)


def path_target(waypoints: np.ndarray, max_speed: float, elapsed: float) -> np.ndarray:
    """Where the move along ``waypoints`` is after ``elapsed`` seconds: the segments
    straight joint-space lines, every joint of a segment arriving together, the progress
    along the whole path a minimum-jerk profile in time (at rest at both ends, the fastest
    joint at most ``max_speed`` rad/s, at the middle), so the arm starts and stops within
    its acceleration limits instead of being clamped there; the last waypoint once the
    path is done. Clipped to the datasheet position limits."""
    w = np.asarray(waypoints, dtype=np.float64)
    total = _travel(w)
    duration = path_duration(w, max_speed) if total > 0.0 else 0.0
    tau = 1.0 if duration <= 0.0 else min(1.0, max(0.0, float(elapsed)) / duration)
    if tau >= 1.0:  # done: exactly the last waypoint (no rounding of the travel sums)
        return np.clip(w[-1], panda.joint_position_min, panda.joint_position_max)
    budget = total * tau**3 * (10.0 - 15.0 * tau + 6.0 * tau**2)  # peak joint travel done
    for a, b in zip(w[:-1], w[1:], strict=True):
        peak = float(np.max(np.abs(b - a)))
        if budget < peak:
            out = a + (budget / peak) * (b - a)
            return np.clip(out, panda.joint_position_min, panda.joint_position_max)
        budget -= peak
    return np.clip(w[-1], panda.joint_position_min, panda.joint_position_max)


VELOCITY_DT = 1e-3
"""Time step (s) of :func:`path_velocity`'s central difference."""


def path_velocity(waypoints: np.ndarray, max_speed: float, elapsed: float) -> np.ndarray:
    """The joint velocities (rad/s) of :func:`path_target`'s move after ``elapsed`` s (a
    central difference of it; 0 at rest before the start and after the end)."""
    before = path_target(waypoints, max_speed, max(float(elapsed) - VELOCITY_DT, 0.0))
    after = path_target(waypoints, max_speed, float(elapsed) + VELOCITY_DT)
    span = float(elapsed) + VELOCITY_DT - max(float(elapsed) - VELOCITY_DT, 0.0)
    return (after - before) / span


def home_point(
    brake: tuple[np.ndarray, np.ndarray, float] | None,
    path: np.ndarray,
    max_speed: float,
    elapsed: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(position, velocity) of a home move ``elapsed`` s after it was planned: the opening
    ``brake`` (q, velocity, duration; None: none) of :func:`brake_target`, then ``path`` on
    :func:`path_target`'s profile."""
    if brake is not None and elapsed < brake[2]:
        q0, v0, duration = brake
        return brake_target(q0, v0, duration, elapsed), brake_velocity(v0, duration, elapsed)
    t = elapsed - (0.0 if brake is None else brake[2])
    return path_target(path, max_speed, t), path_velocity(path, max_speed, t)


def plan_home(
    q: np.ndarray, moving: tuple[np.ndarray, np.ndarray] | None, min_height: float
) -> tuple[tuple[np.ndarray, np.ndarray, float] | None, np.ndarray]:
    """(brake, path) of a home move from the measured pose ``q``, or, when the command is
    still ``moving`` (q, velocity), from where braking that motion ends
    (:func:`brake_duration`, :func:`brake_target`); the path is :func:`home_path`'s."""
    if moving is None:
        return None, home_path(q, min_height=min_height)
    duration = brake_duration(moving[1])
    brake = (moving[0], moving[1], duration)
    return brake, home_path(brake_target(*brake, duration), min_height=min_height)
