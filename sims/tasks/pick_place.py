"""Pick and place: grasp a cube and bring it to a goal, on the table or in the air.

Observation (32): joint_pos (7), joint_vel (7), tcp_pos (3), finger_width (1),
object_pos (3), object_yaw_sincos (2: sin and cos of 4 * yaw), object_rel_tcp =
object - tcp (3), goal_pos (3), goal_rel_object = goal - object (3).

Action (4): TCP displacement (3) in [-1, 1] scaled by ``cartesian_step_max`` (m) through
one damped-least-squares IK step, plus a gripper command: > 0 opens the fingers (target
width ``panda.gripper_width_max``), <= 0 closes them (the cube stops them).

Reset: home pose plus joint noise, fingers open, cube resting on the table in the same
area as push; goal xy as push (0.10-0.25 m from the cube); goal z uniform in
``GOAL_Z_RANGE`` with probability ``AIR_GOAL_PROBABILITY``, on the table otherwise.

Reward: dense = -(3-D cube-goal distance) - ``REACH_WEIGHT`` * |tcp - cube|; sparse = -1
until success, then 0. Success: 3-D cube-goal distance < ``success_threshold``.
"""

from __future__ import annotations

import numpy as np

from sims.robots import panda
from sims.tasks import push
from sims.tasks.base import ObservationLayout, SimState, TaskConfig, goal_distance

CONFIG = TaskConfig(
    name="pick_place",
    action_mode="cartesian",
    episode_steps=75,
    has_object=True,
    has_gripper=True,
    tracking_gain=0.85,  # PyBullet covers ~83% of a DLS Cartesian step (measured)
)

LAYOUT = ObservationLayout(
    [
        ("joint_pos", 7, "joint positions (rad)"),
        ("joint_vel", 7, "joint velocities (rad/s)"),
        ("tcp_pos", 3, "TCP position in the base frame (m)"),
        ("finger_width", 1, "opening between the fingers (m)"),
        ("object_pos", 3, "cube centre in the base frame (m)"),
        ("object_yaw_sincos", 2, "sin(4 yaw), cos(4 yaw) of the cube (90 deg symmetric)"),
        ("object_rel_tcp", 3, "cube centre minus TCP (m)"),
        ("goal_pos", 3, "goal position in the base frame (m)"),
        ("goal_rel_object", 3, "goal minus cube centre (m)"),
    ]
)

CUBE_SIZE = push.CUBE_SIZE
CUBE_REST_Z = push.CUBE_REST_Z
INITIAL_FINGER_WIDTH = panda.gripper_width_max
"""Opening (m) between the fingers at reset: fully open."""
OBJECT_XY_LOW = push.OBJECT_XY_LOW
OBJECT_XY_HIGH = push.OBJECT_XY_HIGH
GOAL_XY_LOW = push.GOAL_XY_LOW
GOAL_XY_HIGH = push.GOAL_XY_HIGH
GOAL_DISTANCE_RANGE = push.GOAL_DISTANCE_RANGE
GOAL_SAMPLE_TRIES = push.GOAL_SAMPLE_TRIES
GOAL_Z_RANGE = (CUBE_REST_Z, 0.25)
"""Height (m) of the cube centre at an air goal, uniform."""
AIR_GOAL_PROBABILITY = 0.5
"""Fraction of episodes whose goal is in the air; the rest lie on the table."""
REACH_WEIGHT = push.REACH_WEIGHT
"""Weight of the TCP-object distance in the dense reward."""

reset_distribution = push.reset_distribution
sample_object_pose = push.sample_object_pose


def sample_goal(
    rng: np.random.Generator, n: int, object_pos: np.ndarray | None = None
) -> np.ndarray:
    """Goals [n, 3]: xy as in push (near ``object_pos`` [n, 3] when given), z in the air
    with probability ``AIR_GOAL_PROBABILITY``, else the cube's rest height."""
    goal = push.sample_goal(rng, n, object_pos)
    air = rng.uniform(size=n) < AIR_GOAL_PROBABILITY
    z = rng.uniform(*GOAL_Z_RANGE, size=n)
    goal[:, 2] = np.where(air, z, CUBE_REST_Z)
    return goal


def sample_reset(
    rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Joint positions [n, 7], cube position [n, 3], cube yaw [n], goal [n, 3]."""
    q = reset_distribution(rng, n, cfg)
    pos, yaw = sample_object_pose(rng, n)
    return q, pos, yaw, sample_goal(rng, n, pos)


def observe(state: SimState) -> np.ndarray:
    """Observation [N, 32] float32 from the batched state."""
    return np.concatenate(
        [
            state.joint_pos,
            state.joint_vel,
            state.tcp_pos,
            state.finger_width[:, None],
            state.object_pos,
            push.yaw_sincos(state.object_yaw),
            state.object_pos - state.tcp_pos,
            state.goal_pos,
            state.goal_pos - state.object_pos,
        ],
        axis=1,
    ).astype(np.float32)


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    """Dense: -(3-D cube-goal distance) - REACH_WEIGHT * |tcp - cube|; sparse: -1 until
    success, then 0."""
    d = goal_distance(state.object_pos, state.goal_pos)
    if dense:
        return -d - REACH_WEIGHT * goal_distance(state.tcp_pos, state.object_pos)
    return -(d >= cfg.success_threshold).astype(np.float64)


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """True where the cube is within the threshold of the goal (3-D)."""
    return goal_distance(state.object_pos, state.goal_pos) < cfg.success_threshold
