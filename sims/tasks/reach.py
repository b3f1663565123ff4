"""Reach: move the TCP to a goal position. Pure kinematics; joint-space actions.

Observation (23): joint_pos (7), joint_vel (7), tcp_pos (3), goal_pos (3),
goal_rel_tcp = goal - tcp (3). Action (7): joint position deltas in [-1, 1], scaled
by ``joint_action_scale * velocity_limit * control_dt`` and clipped to the datasheet
position limits. Reward: dense = -distance; sparse = -(distance > threshold).
Success: distance < ``success_threshold``.
"""

from __future__ import annotations

import numpy as np

from sims.robots import panda
from sims.tasks.base import ObservationLayout, SimState, TaskConfig, goal_distance

CONFIG = TaskConfig(name="reach", action_mode="joint", episode_steps=50)

LAYOUT = ObservationLayout(
    [
        ("joint_pos", 7, "joint positions (rad)"),
        ("joint_vel", 7, "joint velocities (rad/s)"),
        ("tcp_pos", 3, "TCP position in the base frame (m)"),
        ("goal_pos", 3, "goal position in the base frame (m)"),
        ("goal_rel_tcp", 3, "goal minus TCP (m)"),
    ]
)

GOAL_LOW = np.array([0.30, -0.30, 0.05])
"""Goal box (m, base frame): above the table, in front of the robot."""
GOAL_HIGH = np.array([0.65, 0.30, 0.45])


def sample_goal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Goals [n, 3] uniform in the goal box."""
    return rng.uniform(GOAL_LOW, GOAL_HIGH, size=(n, 3))


def reset_distribution(rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """Initial joint positions [n, 7]: home pose plus uniform noise, inside the limits."""
    noise = cfg.randomization.initial_joint_noise
    q = panda.home_joint_positions + rng.uniform(-noise, noise, size=(n, 7))
    return np.clip(q, panda.joint_position_min, panda.joint_position_max)


def observe(state: SimState) -> np.ndarray:
    """Observation [N, 23] float32 from the batched state."""
    return np.concatenate(
        [
            state.joint_pos,
            state.joint_vel,
            state.tcp_pos,
            state.goal_pos,
            state.goal_pos - state.tcp_pos,
        ],
        axis=1,
    ).astype(np.float32)


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    """Dense: minus the TCP-goal distance; sparse: -1 until within the threshold, then 0."""
    d = goal_distance(state.tcp_pos, state.goal_pos)
    if dense:
        return -d
    return -(d > cfg.success_threshold).astype(np.float64)


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """True where the TCP is within the threshold of the goal."""
    return goal_distance(state.tcp_pos, state.goal_pos) < cfg.success_threshold
