"""Reach: move the TCP to a goal position. Pure kinematics; joint-space actions.

Observation (23): joint_pos (7), joint_vel (7), tcp_pos (3), goal_pos (3),
goal_rel_tcp = goal - tcp (3). Action (7): joint position deltas in [-1, 1], scaled
by ``joint_action_scale * velocity_limit * control_dt`` and clipped to the datasheet
position limits. Reward terms (:data:`REWARD_TERMS`): ``tcp_goal`` (the TCP-goal distance),
``unsolved`` (1 while the distance exceeds the threshold); dense = -tcp_goal, sparse =
-unsolved. Success: distance < ``success_threshold``.

The numba kernels' terms (:data:`KERNEL`) are below the numpy ones, with the same
arithmetic.
"""

from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from sims.kernels import layout as L
from sims.kernels.kinematics import arm_physics
from sims.kernels.observe import distance3, observe_arm, write_difference
from sims.kernels.rng import uniform
from sims.robots import panda
from sims.tasks import fields
from sims.tasks.base import (
    ObservationLayout,
    RewardTerm,
    SimState,
    TaskConfig,
    goal_distance,
    weighted_reward,
)
from sims.tasks.registry import TaskKernel

REWARD_TERMS = ("tcp_goal", "unsolved")
"""The reward's terms, in the order the kernels and ``reward_terms`` give them."""

CONFIG = TaskConfig(
    name="reach",
    action_mode="joint",
    episode_steps=50,
    rewards=(RewardTerm("tcp_goal", -1.0),),
    sparse_rewards=(RewardTerm("unsolved", -1.0),),
)

LAYOUT = ObservationLayout(
    [*fields.ARM, fields.GOAL_POS, ("goal_rel_tcp", 3, "goal minus TCP (m)")]
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
            *fields.arm(state),
            state.goal_pos,
            state.goal_pos - state.tcp_pos,
        ],
        axis=1,
    ).astype(np.float32)


def reward_terms(state: SimState, cfg: TaskConfig = CONFIG) -> dict[str, np.ndarray]:
    """The reward's terms (:data:`REWARD_TERMS`), unweighted."""
    d = goal_distance(state.tcp_pos, state.goal_pos)
    return {"tcp_goal": d, "unsolved": (d > cfg.success_threshold).astype(np.float64)}


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    """Dense: minus the TCP-goal distance; sparse: -1 until within the threshold, then 0
    (``cfg``'s weights of :func:`reward_terms`)."""
    return weighted_reward(reward_terms(state, cfg), cfg, dense)[0]


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """True where the TCP is within the threshold of the goal."""
    return goal_distance(state.tcp_pos, state.goal_pos) < cfg.success_threshold


# --- the numba kernels' terms ---------------------------------------------------------------
O_Q, O_QD, O_TCP, O_GOAL, O_GOAL_REL = LAYOUT.starts()


@register_jitable(_nrt=False)
def kernel_observe(k, st, out, noise_std, key, base):
    """:func:`observe` of env ``k`` (with observation noise)."""
    arm = observe_arm(k, st, out, O_Q, O_QD, O_TCP, O_GOAL, noise_std, key, base)
    tx, ty, tz, gx, gy, gz = arm
    write_difference(out, k, O_GOAL_REL, gx, gy, gz, tx, ty, tz)


@register_jitable(_nrt=False)
def kernel_evaluate(k, fp, st):
    """(:func:`reward_terms`, :func:`success`) of env ``k``."""
    d = distance3(st, k, L.S_TCP, L.S_GOAL)
    thr = fp[L.P_SUCCESS]
    return (d, 1.0 if d > thr else 0.0), d < thr


@register_jitable
def kernel_reset(k, fp, ip, key, st):
    """A goal uniform in the goal box (:func:`sample_goal`; draws 15-17)."""
    d = np.int64(0)  # draw numbers as int64 values, not literals (one specialization)
    st[k, L.S_GOAL] = uniform(key, d + 15, fp[L.P_GOAL_X_LO], fp[L.P_GOAL_X_HI])
    st[k, L.S_GOAL + 1] = uniform(key, d + 16, fp[L.P_GOAL_Y_LO], fp[L.P_GOAL_Y_HI])
    st[k, L.S_GOAL + 2] = uniform(key, d + 17, fp[L.P_GOAL_Z_LO], fp[L.P_GOAL_Z_HI])


def kernel_pack(cfg: TaskConfig, fp: np.ndarray, ip: np.ndarray) -> None:
    """The goal box into the parameter vectors."""
    if cfg.has_gripper:
        raise ValueError(f"{cfg.name} has no gripper in the numba backend")
    fp[[L.P_GOAL_X_LO, L.P_GOAL_Y_LO, L.P_GOAL_Z_LO]] = GOAL_LOW
    fp[[L.P_GOAL_X_HI, L.P_GOAL_Y_HI, L.P_GOAL_Z_HI]] = GOAL_HIGH


KERNEL = TaskKernel(
    observe=kernel_observe,
    evaluate=kernel_evaluate,
    reset=kernel_reset,
    physics=arm_physics,
    pack=kernel_pack,
    joint_fast_path=True,
)
"""Reach's scalar terms for the numba kernels (:mod:`sims.tasks.registry`)."""
