"""Turn: rotate a cube in place on the table to a target yaw. Cartesian actions, fingers
closed (push's arm and contact model: an off-centre push turns the cube).

Observation (33): joint_pos (7), joint_vel (7), tcp_pos (3), object_pos (3),
object_yaw_sincos (2: sin and cos of 4 * yaw), object_rel_tcp = object - tcp (3),
goal_pos (3: the cube's start centre), goal_rel_object = goal - object (3),
yaw_error_sincos (2: sin and cos of 4 * (goal_yaw - yaw); a cube looks the same every
90 deg, so the error that matters is the one wrapped into +-45 deg).

Action (3): TCP displacement in [-1, 1] scaled by ``cartesian_step_max`` (m), as push. The
fingers stay closed.

Reset (:func:`sample_reset`): home pose plus joint noise, the cube resting on the table in
``CONFIG.object_xy_range`` with a uniform yaw (push's :func:`~sims.tasks.push.sample_object_pose`);
the goal is the cube's start centre (``goal_pos``, in place) and a target yaw
``goal_yaw`` = start yaw + a turn uniform in +-``TURN_MAX_DEG`` with at least
``TURN_MIN_DEG`` either way.

Reward terms (:data:`REWARD_TERMS`): ``yaw_error`` (the wrapped yaw error, rad),
``drift`` (the cube's xy distance from the goal), ``tcp_object`` (|tcp - cube|), ``unsolved``
(1 until success); dense = -yaw_error - drift - ``REACH_WEIGHT`` * tcp_object; sparse =
-unsolved. Success (:func:`success`): the wrapped yaw error within ``TURN_TOLERANCE_DEG``
and the cube within ``TURN_XY_TOLERANCE`` (xy) of the goal.

The numba kernels' terms (:data:`KERNEL`) follow the numpy ones, with the same arithmetic;
the cube's target yaw lives in the state row's ``S_GOAL_YAW`` column.
"""

from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

from sims.kernels import layout as L
from sims.kernels.contact import cube_physics, wrap_quarter
from sims.kernels.observe import distance2, distance3, obs_noise, observe_arm, observe_cube
from sims.kernels.rng import uniform, uniform01
from sims.tasks import fields, push
from sims.tasks.base import (
    ObservationLayout,
    RewardTerm,
    SimState,
    TaskConfig,
    goal_distance,
    weighted_reward,
)
from sims.tasks.registry import TaskKernel

GOAL_YAW = True
"""Episodes have a target yaw (``SimState.goal_yaw``; :func:`sims.tasks.registry.has_goal_yaw`)."""
GOAL_IN_PLACE = True
"""The goal is the cube's start centre: no goal area or cube-goal distance of its own
(:func:`sims.tasks.registry.places_goal`); its cube area is ``CONFIG.object_xy_range``."""
TURN_TOLERANCE_DEG = 5.0
"""Success: the cube's yaw within this (deg) of the target, modulo 90 deg."""
TURN_XY_TOLERANCE = 0.03
"""Success: the cube's centre within this (m, xy) of where it started (turned in place)."""
TURN_CLEARANCE = 0.07
"""No other cube's centre may lie within this (m, xy) of the cube turned: the closed fingers
go around it (the card's precondition; the goal resolver refuses a turn that breaks it)."""
TURN_MIN_DEG = 15.0
"""The smallest turn (deg) an episode asks for: three times the tolerance, so that every
episode needs a real turn."""
TURN_MAX_DEG = 45.0
"""The largest turn (deg) an episode asks for: a cube looks the same every 90 deg, so no
target is further than 45 deg either way."""
REACH_WEIGHT = push.REACH_WEIGHT
"""Weight of the TCP-object distance in the dense reward."""
REWARD_TERMS = ("yaw_error", "drift", "tcp_object", "unsolved")
"""The reward's terms, in the order the kernels and ``reward_terms`` give them."""

CONFIG = TaskConfig(
    name="turn",
    action_mode="cartesian",
    episode_steps=150,  # 6 s: reach the cube from home, strokes on two or three faces
    has_object=True,
    has_gripper=False,
    tracking_gain=push.CONFIG.tracking_gain,
    success_threshold=TURN_XY_TOLERANCE,
    object_xy_range=push.OBJECT_XY_RANGE,
    goal_xy_range=push.GOAL_XY_RANGE,
    rewards=(
        RewardTerm("yaw_error", -1.0),
        RewardTerm("drift", -1.0),
        RewardTerm("tcp_object", -REACH_WEIGHT),
    ),
    sparse_rewards=(RewardTerm("unsolved", -1.0),),
)

YAW_ERROR = ("yaw_error_sincos", 2, "sin, cos of 4 (goal_yaw - yaw): the yaw still to turn")
LAYOUT = ObservationLayout([*fields.ARM, *fields.CUBE, *fields.CUBE_GOAL, YAW_ERROR])

CUBE_SIZE = push.CUBE_SIZE
"""Cube edge (m), push's."""
CUBE_REST_Z = push.CUBE_REST_Z
INITIAL_FINGER_WIDTH = push.INITIAL_FINGER_WIDTH
"""Closed fingers, as push."""
CONTACT_MODEL = push.CONTACT_MODEL
"""Push's contact model (its numbers were fitted to PyBullet pushes)."""

reset_distribution = push.reset_distribution


def quarter_wrap(angle: np.ndarray) -> np.ndarray:
    """``angle`` (rad) wrapped into [-pi/4, pi/4): the cube's 90 deg symmetry (the numpy
    twin of :func:`sims.kernels.contact.wrap_quarter`)."""
    quarter = 0.5 * np.pi
    return angle - quarter * np.floor(angle / quarter + 0.5)


def sample_turn(rng: np.random.Generator, n: int) -> np.ndarray:
    """Turns [n] (rad): magnitude uniform in [``TURN_MIN_DEG``, ``TURN_MAX_DEG``], either
    sign with equal odds."""
    magnitude = np.radians(rng.uniform(TURN_MIN_DEG, TURN_MAX_DEG, size=n))
    return np.where(rng.uniform(size=n) < 0.5, -magnitude, magnitude)


def sample_reset(
    rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Everything an episode starts from: joint positions [n, 7], cube position [n, 3]
    (in ``cfg.object_xy_range``), cube yaw [n], goal [n, 3] (the cube's centre at rest) and
    the target yaw [n] (the cube's yaw plus :func:`sample_turn`)."""
    q = reset_distribution(rng, n, cfg)
    pos, yaw = push.sample_object_pose(rng, n, cfg.object_xy_range)
    goal = pos.copy()
    goal[:, 2] = CUBE_REST_Z
    return q, pos, yaw, goal, yaw + sample_turn(rng, n)


def target_yaw(state: SimState) -> np.ndarray:
    """[N] rad: ``state.goal_yaw``; a state without a yaw goal (None, as a caller that
    builds states for every task may give) has nothing to turn: the cube's own yaw."""
    return state.object_yaw if state.goal_yaw is None else state.goal_yaw


def yaw_error(state: SimState) -> np.ndarray:
    """[N] rad: the turn still to do, ``goal_yaw - yaw`` wrapped into +-45 deg."""
    return quarter_wrap(target_yaw(state) - state.object_yaw)


def observe(state: SimState) -> np.ndarray:
    """Observation [N, 33] float32 from the batched state."""
    return np.concatenate(
        [
            *fields.arm(state),
            *fields.cube(state),
            *fields.cube_goal(state),
            fields.yaw_sincos(target_yaw(state) - state.object_yaw),
        ],
        axis=1,
    ).astype(np.float32)


def drift(state: SimState) -> np.ndarray:
    """[N] xy distance (m) between the cube and the goal (its start centre): push's
    :func:`~sims.tasks.push.object_goal_distance`."""
    return push.object_goal_distance(state)


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """True where the cube is within ``TURN_TOLERANCE_DEG`` of its target yaw (modulo
    90 deg) and within ``cfg.success_threshold`` (``TURN_XY_TOLERANCE``) of the goal."""
    turned = np.abs(yaw_error(state)) <= math.radians(TURN_TOLERANCE_DEG)
    return turned & (drift(state) <= cfg.success_threshold)


def reward_terms(state: SimState, cfg: TaskConfig = CONFIG) -> dict[str, np.ndarray]:
    """The reward's terms (:data:`REWARD_TERMS`), unweighted."""
    return {
        "yaw_error": np.abs(yaw_error(state)),
        "drift": drift(state),
        "tcp_object": goal_distance(state.tcp_pos, state.object_pos),
        "unsolved": (~success(state, cfg)).astype(np.float64),
    }


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    """Dense: -|yaw error| - drift - REACH_WEIGHT * |tcp - cube|; sparse: -1 until success,
    then 0 (``cfg``'s weights of :func:`reward_terms`)."""
    return weighted_reward(reward_terms(state, cfg), cfg, dense)[0]


# --- the numba kernels' terms ---------------------------------------------------------------
O_Q, O_QD, O_TCP, O_OBJ, O_YAW, O_OBJ_REL, O_GOAL, O_GOAL_REL, O_YAW_ERR = LAYOUT.starts()
TOLERANCE_RAD = math.radians(TURN_TOLERANCE_DEG)
TURN_MIN_RAD = math.radians(TURN_MIN_DEG)
TURN_MAX_RAD = math.radians(TURN_MAX_DEG)
YAW_NOISE_DRAW = 13
"""The observation-noise draw of the cube's yaw (:func:`sims.kernels.observe.observe_cube`'s
``base + 13``): the yaw error is read from the same noisy observed yaw."""


@register_jitable(_nrt=False)
def kernel_observe(k, st, out, noise_std, key, base):
    """:func:`observe` of env ``k`` (with observation noise)."""
    arm = observe_arm(k, st, out, O_Q, O_QD, O_TCP, O_GOAL, noise_std, key, base)
    observe_cube(k, st, out, O_OBJ, O_YAW, O_OBJ_REL, O_GOAL_REL, arm, noise_std, key, base)
    yaw = st[k, L.S_SEEN + 2] + obs_noise(noise_std, key, base + YAW_NOISE_DRAW)
    err = st[k, L.S_GOAL_YAW] - yaw
    out[k, O_YAW_ERR] = math.sin(4.0 * err)
    out[k, O_YAW_ERR + 1] = math.cos(4.0 * err)


@register_jitable(_nrt=False)
def kernel_evaluate(k, fp, st):
    """(:func:`reward_terms`, :func:`success`) of env ``k``."""
    err = abs(wrap_quarter(st[k, L.S_GOAL_YAW] - st[k, L.S_YAW]))
    d = distance2(st, k, L.S_OBJ, L.S_GOAL)
    reach = distance3(st, k, L.S_TCP, L.S_OBJ)
    solved = err <= TOLERANCE_RAD and d <= fp[L.P_SUCCESS]
    return (err, d, reach, 0.0 if solved else 1.0), solved


@register_jitable
def kernel_reset(k, fp, ip, key, st):
    """The cube (its edge, the finger pads, its pose), the goal (its centre) and the target
    yaw of a new episode, as :func:`sample_reset` (push's draw numbers for the cube; the
    turn's past every other reset draw)."""
    d = np.int64(0)  # draw numbers as int64 values, not literals (one specialization)
    half = uniform(key, d + 200, fp[L.P_CUBE_HALF], fp[L.P_CUBE_HALF_HI])
    st[k, L.S_CUBE_HALF] = half
    st[k, L.S_PAD] = uniform(key, d + 201, fp[L.P_PAD_LO], fp[L.P_PAD_HI])
    ox = uniform(key, d + 7, fp[L.P_OBJ_X_LO], fp[L.P_OBJ_X_HI])
    oy = uniform(key, d + 8, fp[L.P_OBJ_Y_LO], fp[L.P_OBJ_Y_HI])
    yaw = uniform(key, d + 9, -0.25 * math.pi, 0.25 * math.pi)
    st[k, L.S_OBJ] = ox
    st[k, L.S_OBJ + 1] = oy
    st[k, L.S_OBJ + 2] = half
    st[k, L.S_YAW] = yaw
    st[k, L.S_GOAL] = ox
    st[k, L.S_GOAL + 1] = oy
    st[k, L.S_GOAL + 2] = half
    turn = uniform(key, d + 203, TURN_MIN_RAD, TURN_MAX_RAD)
    if uniform01(key, d + 204) < 0.5:
        turn = -turn
    st[k, L.S_GOAL_YAW] = yaw + turn


KERNEL = TaskKernel(
    observe=kernel_observe,
    evaluate=kernel_evaluate,
    reset=kernel_reset,
    physics=cube_physics,
    pack=push.pack_cube_task,  # push's contact model, cube, closed fingers, cube area
)
"""Turn's scalar terms for the numba kernels (:mod:`sims.tasks.registry`)."""
