"""Push: slide a cube on the table to a goal on the table. Cartesian actions, fingers closed.

Observation (31): joint_pos (7), joint_vel (7), tcp_pos (3), object_pos (3),
object_yaw_sincos (2: sin and cos of 4 * yaw, since a cube looks the same every 90 deg),
object_rel_tcp = object - tcp (3), goal_pos (3), goal_rel_object = goal - object (3).

Action (3): TCP displacement in [-1, 1] scaled by ``cartesian_step_max`` (m), turned into
joint targets by one damped-least-squares IK step, clipped to the datasheet limits. The
fingers stay closed (finger width 0).

Reset: home pose plus joint noise (:func:`reset_distribution`), cube resting on the table
(:func:`sample_object_pose`), goal on the table ``CONFIG.goal_distance_range`` (default
0.10-0.25 m) from the cube (:func:`sample_goal`); :func:`sample_reset` draws all three
in that order.

Reward: dense = -(object-goal xy distance) - ``REACH_WEIGHT`` * (TCP-object distance)
(the second term guides the fingers to the cube); sparse = -1 until success, then 0.
Success: xy distance between the cube and the goal < ``success_threshold``.
"""

from __future__ import annotations

import numpy as np

from sims.robots import panda
from sims.tasks.base import ObservationLayout, SimState, TaskConfig, goal_distance

GOAL_DISTANCE_RANGE = (0.10, 0.25)
"""Default distance (m) from the cube's start to the goal, uniform (``CONFIG``'s
``goal_distance_range``; a training config may widen it: ``env.goal_distance``)."""

CONFIG = TaskConfig(
    name="push",
    action_mode="cartesian",
    episode_steps=100,  # 4 s: reach the cube from home, get behind it, push up to 0.25 m
    has_object=True,
    has_gripper=False,
    tracking_gain=0.85,  # PyBullet covers ~83% of a DLS Cartesian step (measured)
    goal_distance_range=GOAL_DISTANCE_RANGE,
)

LAYOUT = ObservationLayout(
    [
        ("joint_pos", 7, "joint positions (rad)"),
        ("joint_vel", 7, "joint velocities (rad/s)"),
        ("tcp_pos", 3, "TCP position in the base frame (m)"),
        ("object_pos", 3, "cube centre in the base frame (m)"),
        ("object_yaw_sincos", 2, "sin(4 yaw), cos(4 yaw) of the cube (90 deg symmetric)"),
        ("object_rel_tcp", 3, "cube centre minus TCP (m)"),
        ("goal_pos", 3, "goal position in the base frame (m)"),
        ("goal_rel_object", 3, "goal minus cube centre (m)"),
    ]
)

CUBE_SIZE = 0.04
"""Cube edge (m); must equal ``cube_size`` in config/scene.yaml (a test checks)."""
CUBE_REST_Z = CUBE_SIZE / 2
"""Height (m) of the centre of a cube resting on the table (table top at z = 0)."""
INITIAL_FINGER_WIDTH = 0.0
"""Opening (m) between the fingers at reset: closed for pushing."""

OBJECT_XY_LOW = np.array([0.35, -0.20])
"""Area (m, base frame) where the cube starts."""
OBJECT_XY_HIGH = np.array([0.60, 0.20])
GOAL_XY_LOW = np.array([0.30, -0.25])
"""Area (m) where goals may lie: the cube area extended by 0.05 m on every side."""
GOAL_XY_HIGH = np.array([0.65, 0.25])
GOAL_SAMPLE_TRIES = 64
"""Rejection-sampling rounds for a goal inside the goal area; then it is clipped into it."""
REACH_WEIGHT = 0.5
"""Weight of the TCP-object distance in the dense reward."""


def reset_distribution(rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """Initial joint positions [n, 7]: home pose plus uniform noise, inside the limits."""
    noise = cfg.randomization.initial_joint_noise
    q = panda.home_joint_positions + rng.uniform(-noise, noise, size=(n, 7))
    return np.clip(q, panda.joint_position_min, panda.joint_position_max)


def sample_object_pose(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Cube centres [n, 3] resting on the table in the object area, and yaws [n] (rad)
    uniform in [-pi/4, pi/4) (every yaw up to the cube's 90 deg symmetry)."""
    pos = np.empty((n, 3))
    pos[:, :2] = rng.uniform(OBJECT_XY_LOW, OBJECT_XY_HIGH, size=(n, 2))
    pos[:, 2] = CUBE_REST_Z
    yaw = rng.uniform(-np.pi / 4, np.pi / 4, size=n)
    return pos, yaw


def check_distance_range(distance_range) -> tuple[float, float]:
    """``(lo, hi)`` as floats when ``0 <= lo <= hi`` (m), else ValueError."""
    try:
        lo, hi = (float(v) for v in distance_range)
    except (TypeError, ValueError):
        raise ValueError(
            f"goal distance range must be [lo, hi] in m, got {distance_range!r}"
        ) from None
    if not 0.0 <= lo <= hi:
        raise ValueError(f"goal distance range needs 0 <= lo <= hi (m), got [{lo}, {hi}]")
    return lo, hi


def sample_goal_xy(
    rng: np.random.Generator,
    object_xy: np.ndarray,
    distance_range: tuple[float, float] = GOAL_DISTANCE_RANGE,
) -> np.ndarray:
    """Goal xy [n, 2]: ``distance_range`` (m) from ``object_xy`` [n, 2] in a uniform
    direction, inside the goal area (rejection sampling)."""
    n = object_xy.shape[0]
    goal = np.empty((n, 2))
    todo = np.arange(n)
    for _ in range(GOAL_SAMPLE_TRIES):
        if todo.size == 0:
            break
        dist = rng.uniform(*distance_range, size=todo.size)
        angle = rng.uniform(-np.pi, np.pi, size=todo.size)
        cand = object_xy[todo] + dist[:, None] * np.stack([np.cos(angle), np.sin(angle)], 1)
        inside = np.all((cand >= GOAL_XY_LOW) & (cand <= GOAL_XY_HIGH), axis=1)
        goal[todo[inside]] = cand[inside]
        todo = todo[~inside]
        goal[todo] = np.clip(cand[~inside], GOAL_XY_LOW, GOAL_XY_HIGH)
    return goal


def sample_goal(
    rng: np.random.Generator,
    n: int,
    object_pos: np.ndarray | None = None,
    distance_range: tuple[float, float] = GOAL_DISTANCE_RANGE,
) -> np.ndarray:
    """Goals [n, 3] on the table (z = cube rest height) ``distance_range`` (m) from
    ``object_pos`` [n, 3]; without ``object_pos``, uniform over the goal area."""
    goal = np.empty((n, 3))
    if object_pos is None:
        goal[:, :2] = rng.uniform(GOAL_XY_LOW, GOAL_XY_HIGH, size=(n, 2))
    else:
        goal[:, :2] = sample_goal_xy(rng, np.asarray(object_pos)[:, :2], distance_range)
    goal[:, 2] = CUBE_REST_Z
    return goal


def sample_reset(
    rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Everything an episode starts from: joint positions [n, 7], cube position [n, 3],
    cube yaw [n], goal [n, 3] (``cfg.goal_distance_range`` from the cube)."""
    q = reset_distribution(rng, n, cfg)
    pos, yaw = sample_object_pose(rng, n)
    return q, pos, yaw, sample_goal(rng, n, pos, cfg.goal_distance_range)


def yaw_sincos(yaw: np.ndarray) -> np.ndarray:
    """[N, 2]: sin(4 yaw), cos(4 yaw), the cube's yaw modulo its 90 deg symmetry."""
    return np.stack([np.sin(4.0 * yaw), np.cos(4.0 * yaw)], axis=1)


def observe(state: SimState) -> np.ndarray:
    """Observation [N, 31] float32 from the batched state."""
    return np.concatenate(
        [
            state.joint_pos,
            state.joint_vel,
            state.tcp_pos,
            state.object_pos,
            yaw_sincos(state.object_yaw),
            state.object_pos - state.tcp_pos,
            state.goal_pos,
            state.goal_pos - state.object_pos,
        ],
        axis=1,
    ).astype(np.float32)


def object_goal_distance(state: SimState) -> np.ndarray:
    """[N] xy distance (m) between the cube and the goal."""
    return goal_distance(state.object_pos[:, :2], state.goal_pos[:, :2])


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    """Dense: -(cube-goal xy distance) - REACH_WEIGHT * |tcp - cube|; sparse: -1 until
    success, then 0."""
    d = object_goal_distance(state)
    if dense:
        return -d - REACH_WEIGHT * goal_distance(state.tcp_pos, state.object_pos)
    return -(d >= cfg.success_threshold).astype(np.float64)


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """True where the cube's xy distance to the goal is below the threshold."""
    return object_goal_distance(state) < cfg.success_threshold
