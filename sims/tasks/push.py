"""Push: slide a cube on the table to a goal on the table. Cartesian actions, fingers closed.

Observation (31): joint_pos (7), joint_vel (7), tcp_pos (3), object_pos (3),
object_yaw_sincos (2: sin and cos of 4 * yaw, since a cube looks the same every 90 deg),
object_rel_tcp = object - tcp (3), goal_pos (3), goal_rel_object = goal - object (3).

Action (3): TCP displacement in [-1, 1] scaled by ``cartesian_step_max`` (m), turned into
joint targets by one damped-least-squares IK step, clipped to the datasheet limits. The
fingers stay closed (finger width 0).

Reset: home pose plus joint noise (:func:`reset_distribution`), cube resting on the table
in ``CONFIG.object_xy_range`` (:func:`sample_object_pose`), goal on the table
``CONFIG.goal_distance_range`` (default 0.10-0.25 m) from the cube, inside
``CONFIG.goal_xy_range`` (:func:`sample_goal`); :func:`sample_reset` draws all three in
that order. A training config may widen the distances and both areas (``env.goal_distance``,
``env.object_region``, ``env.goal_region``).

Reward terms (:data:`REWARD_TERMS`): ``object_goal`` (the cube-goal xy distance),
``tcp_object`` (the TCP-cube distance), ``unsolved`` (1 until success); dense =
-object_goal - ``REACH_WEIGHT`` * tcp_object (the second term guides the fingers to the
cube); sparse = -unsolved. Success: xy distance between the cube and the goal <
``success_threshold``.

The numba kernels' terms (:data:`KERNEL`, shared with pick_place) are below the numpy ones,
with the same arithmetic; the contact model's numbers are :data:`CONTACT_MODEL`.
"""

from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

from sims.kernels import layout as L
from sims.kernels.contact import ContactModel, cube_physics, pack_contact
from sims.kernels.kinematics import clip
from sims.kernels.observe import distance2, distance3, observe_arm, observe_cube
from sims.kernels.rng import uniform, uniform01
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

GOAL_DISTANCE_RANGE = (0.10, 0.25)
"""Default distance (m) from the cube's start to the goal, uniform (``CONFIG``'s
``goal_distance_range``; a training config may widen it: ``env.goal_distance``)."""

OBJECT_XY_LOW = np.array([0.35, -0.20])
"""Default area (m, base frame) where the cube starts (``CONFIG``'s ``object_xy_range``; a
training config may widen it: ``env.object_region``)."""
OBJECT_XY_HIGH = np.array([0.60, 0.20])
GOAL_XY_LOW = np.array([0.30, -0.25])
"""Default area (m) where goals may lie: the cube area extended by 0.05 m on every side
(``CONFIG``'s ``goal_xy_range``; a training config may widen it: ``env.goal_region``)."""
GOAL_XY_HIGH = np.array([0.65, 0.25])


XYRegion = tuple[tuple[float, float], tuple[float, float]]
"""An xy area ``((xlo, ylo), (xhi, yhi))`` (m, base frame)."""


def _region(low, high) -> XYRegion:
    return (float(low[0]), float(low[1])), (float(high[0]), float(high[1]))


OBJECT_XY_RANGE = _region(OBJECT_XY_LOW, OBJECT_XY_HIGH)
"""The default cube area as ``((xlo, ylo), (xhi, yhi))`` (m)."""
GOAL_XY_RANGE = _region(GOAL_XY_LOW, GOAL_XY_HIGH)
"""The default goal area as ``((xlo, ylo), (xhi, yhi))`` (m)."""
REACH_WEIGHT = 0.5
"""Weight of the TCP-object distance in the dense reward."""
REWARD_TERMS = ("object_goal", "tcp_object", "unsolved")
"""The reward's terms, in the order the kernels and ``reward_terms`` give them."""

CONFIG = TaskConfig(
    name="push",
    action_mode="cartesian",
    episode_steps=100,  # 4 s: reach the cube from home, get behind it, push up to 0.25 m
    has_object=True,
    has_gripper=False,
    tracking_gain=0.85,  # PyBullet covers ~83% of a DLS Cartesian step (measured)
    goal_distance_range=GOAL_DISTANCE_RANGE,
    object_xy_range=OBJECT_XY_RANGE,
    goal_xy_range=GOAL_XY_RANGE,
    rewards=(RewardTerm("object_goal", -1.0), RewardTerm("tcp_object", -REACH_WEIGHT)),
    sparse_rewards=(RewardTerm("unsolved", -1.0),),
)

LAYOUT = ObservationLayout([*fields.ARM, *fields.CUBE, *fields.CUBE_GOAL])

CUBE_SIZE = 0.04
"""Cube edge (m); must equal ``cube_size`` in config/scene.yaml (a test checks)."""
CUBE_REST_Z = CUBE_SIZE / 2
"""Height (m) of the centre of a cube resting on the table (table top at z = 0)."""
INITIAL_FINGER_WIDTH = 0.0
"""Opening (m) between the fingers at reset: closed for pushing."""
PATH_CLEARANCE = CUBE_SIZE * math.sqrt(2.0)
"""No other cube's centre may lie within this (m, xy) of the pushed cube's path, from the
fingers' side of it (:data:`PATH_BEHIND` behind its centre) to the goal: two cubes' half
diagonals, so the pushed cube, at any yaw, passes one at any yaw without touching it (the
card's precondition "nothing else lies on the path"; the goal resolver refuses a push
that breaks it)."""
PATH_BEHIND = CUBE_SIZE
"""How far (m) behind the pushed cube's centre, away from the goal, its path starts: the
closed fingers stand against its back face."""

GOAL_SAMPLE_TRIES = 64
"""Rejection-sampling rounds for a goal inside the goal area; then it is clipped into it."""
CONTACT_MODEL = ContactModel(pad_grid=True, mu_finger=(0.25, 0.8), limit_surface=(0.3, 0.7))
"""The numba contact model's numbers: fitting it to random PyBullet push segments found no
single friction or limit surface that fits every push, so the policy learns under a range
of them."""


def reset_distribution(rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """Initial joint positions [n, 7]: home pose plus uniform noise, inside the limits."""
    noise = cfg.randomization.initial_joint_noise
    q = panda.home_joint_positions + rng.uniform(-noise, noise, size=(n, 7))
    return np.clip(q, panda.joint_position_min, panda.joint_position_max)


def check_xy_region(region, what: str = "xy region") -> XYRegion:
    """``((xlo, ylo), (xhi, yhi))`` as floats when ``region`` is ``[[xlo, ylo], [xhi, yhi]]``
    (m, finite) with ``xlo < xhi`` and ``ylo < yhi``, else ValueError naming ``what``."""
    try:
        arr = np.asarray(region, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (2, 2) or not np.all(np.isfinite(arr)):
        raise ValueError(
            f"{what} must be [[xlo, ylo], [xhi, yhi]] in m (finite numbers), got {region!r}"
        )
    if not np.all(arr[0] < arr[1]):
        raise ValueError(f"{what} needs xlo < xhi and ylo < yhi (m), got {region!r}")
    return _region(arr[0], arr[1])


def check_regions(cfg: TaskConfig) -> TaskConfig:
    """``cfg`` when its cube and goal areas (``object_xy_range``, ``goal_xy_range``) are
    None or well formed (:func:`check_xy_region`), else ValueError naming the field."""
    for what in ("object_xy_range", "goal_xy_range"):
        if getattr(cfg, what) is not None:
            check_xy_region(getattr(cfg, what), what)
    return cfg


def _bounds(region, default: XYRegion) -> tuple[np.ndarray, np.ndarray]:
    low, high = default if region is None else region
    return np.array(low, dtype=np.float64), np.array(high, dtype=np.float64)


def object_area(cfg: TaskConfig = CONFIG) -> tuple[np.ndarray, np.ndarray]:
    """Low and high xy corners [2] (m) of the area where ``cfg``'s cubes start
    (``cfg.object_xy_range``; None: the default ``OBJECT_XY_LOW/HIGH``)."""
    return _bounds(cfg.object_xy_range, OBJECT_XY_RANGE)


def goal_area(cfg: TaskConfig = CONFIG) -> tuple[np.ndarray, np.ndarray]:
    """Low and high xy corners [2] (m) of the area where ``cfg``'s goals lie
    (``cfg.goal_xy_range``; None: the default ``GOAL_XY_LOW/HIGH``)."""
    return _bounds(cfg.goal_xy_range, GOAL_XY_RANGE)


def sample_object_pose(
    rng: np.random.Generator, n: int, region: XYRegion | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Cube centres [n, 3] resting on the table, xy uniform in ``region`` (None: the
    default object area), and yaws [n] (rad) uniform in [-pi/4, pi/4) (every yaw up to the
    cube's 90 deg symmetry)."""
    low, high = _bounds(region, OBJECT_XY_RANGE)
    pos = np.empty((n, 3))
    pos[:, :2] = rng.uniform(low, high, size=(n, 2))
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
    region: XYRegion | None = None,
) -> np.ndarray:
    """Goal xy [n, 2]: ``distance_range`` (m) from ``object_xy`` [n, 2] in a uniform
    direction, inside the goal area ``region`` (None: the default; rejection sampling)."""
    low, high = _bounds(region, GOAL_XY_RANGE)
    n = object_xy.shape[0]
    goal = np.empty((n, 2))
    todo = np.arange(n)
    for _ in range(GOAL_SAMPLE_TRIES):
        if todo.size == 0:
            break
        dist = rng.uniform(*distance_range, size=todo.size)
        angle = rng.uniform(-np.pi, np.pi, size=todo.size)
        cand = object_xy[todo] + dist[:, None] * np.stack([np.cos(angle), np.sin(angle)], 1)
        inside = np.all((cand >= low) & (cand <= high), axis=1)
        goal[todo[inside]] = cand[inside]
        todo = todo[~inside]
        goal[todo] = np.clip(cand[~inside], low, high)
    return goal


def sample_goal(
    rng: np.random.Generator,
    n: int,
    object_pos: np.ndarray | None = None,
    distance_range: tuple[float, float] = GOAL_DISTANCE_RANGE,
    region: XYRegion | None = None,
) -> np.ndarray:
    """Goals [n, 3] on the table (z = cube rest height) ``distance_range`` (m) from
    ``object_pos`` [n, 3]; without ``object_pos``, uniform over the goal area ``region``
    (None: the default)."""
    goal = np.empty((n, 3))
    if object_pos is None:
        goal[:, :2] = rng.uniform(*_bounds(region, GOAL_XY_RANGE), size=(n, 2))
    else:
        object_xy = np.asarray(object_pos)[:, :2]
        goal[:, :2] = sample_goal_xy(rng, object_xy, distance_range, region)
    goal[:, 2] = CUBE_REST_Z
    return goal


def sample_reset(
    rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Everything an episode starts from: joint positions [n, 7], cube position [n, 3]
    (in ``cfg.object_xy_range``), cube yaw [n], goal [n, 3] (``cfg.goal_distance_range``
    from the cube, in ``cfg.goal_xy_range``)."""
    q = reset_distribution(rng, n, cfg)
    pos, yaw = sample_object_pose(rng, n, cfg.object_xy_range)
    return q, pos, yaw, sample_goal(rng, n, pos, cfg.goal_distance_range, cfg.goal_xy_range)


def observe(state: SimState) -> np.ndarray:
    """Observation [N, 31] float32 from the batched state."""
    return np.concatenate(
        [
            *fields.arm(state),
            *fields.cube(state),
            *fields.cube_goal(state),
        ],
        axis=1,
    ).astype(np.float32)


def object_goal_distance(state: SimState) -> np.ndarray:
    """[N] xy distance (m) between the cube and the goal."""
    return goal_distance(state.object_pos[:, :2], state.goal_pos[:, :2])


def reward_terms(state: SimState, cfg: TaskConfig = CONFIG) -> dict[str, np.ndarray]:
    """The reward's terms (:data:`REWARD_TERMS`), unweighted."""
    d = object_goal_distance(state)
    return {
        "object_goal": d,
        "tcp_object": goal_distance(state.tcp_pos, state.object_pos),
        "unsolved": (d >= cfg.success_threshold).astype(np.float64),
    }


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    """Dense: -(cube-goal xy distance) - REACH_WEIGHT * |tcp - cube|; sparse: -1 until
    success, then 0 (``cfg``'s weights of :func:`reward_terms`)."""
    return weighted_reward(reward_terms(state, cfg), cfg, dense)[0]


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """True where the cube's xy distance to the goal is below the threshold."""
    return object_goal_distance(state) < cfg.success_threshold


# --- the numba kernels' terms (pick_place shares the reset and the packing) -----------------
O_Q, O_QD, O_TCP, O_OBJ, O_YAW, O_OBJ_REL, O_GOAL, O_GOAL_REL = LAYOUT.starts()


@register_jitable(_nrt=False)
def kernel_observe(k, st, out, noise_std, key, base):
    """:func:`observe` of env ``k`` (with observation noise)."""
    arm = observe_arm(k, st, out, O_Q, O_QD, O_TCP, O_GOAL, noise_std, key, base)
    observe_cube(k, st, out, O_OBJ, O_YAW, O_OBJ_REL, O_GOAL_REL, arm, noise_std, key, base)


@register_jitable(_nrt=False)
def kernel_evaluate(k, fp, st):
    """(:func:`reward_terms`, :func:`success`) of env ``k``."""
    d = distance2(st, k, L.S_OBJ, L.S_GOAL)
    reach = distance3(st, k, L.S_TCP, L.S_OBJ)
    thr = fp[L.P_SUCCESS]
    return (d, reach, 1.0 if d >= thr else 0.0), d < thr


@register_jitable
def kernel_reset(k, fp, ip, key, st):
    """The cube (its edge, the finger pads, its pose) and the goal of a new episode, as
    :func:`sample_reset` (xy ``distance_range`` from the cube in a uniform direction inside
    the goal area, rejection sampled, then clipped) and, pick_place, an air goal with
    probability ``P_AIR_PROB``. The half edge and pads are drawn past every other reset
    draw (goal tries use 20 + 2t)."""
    d = np.int64(0)  # draw numbers as int64 values, not literals (one specialization)
    half = uniform(key, d + 200, fp[L.P_CUBE_HALF], fp[L.P_CUBE_HALF_HI])
    st[k, L.S_CUBE_HALF] = half
    st[k, L.S_PAD] = uniform(key, d + 201, fp[L.P_PAD_LO], fp[L.P_PAD_HI])
    ox = uniform(key, d + 7, fp[L.P_OBJ_X_LO], fp[L.P_OBJ_X_HI])
    oy = uniform(key, d + 8, fp[L.P_OBJ_Y_LO], fp[L.P_OBJ_Y_HI])
    st[k, L.S_OBJ] = ox
    st[k, L.S_OBJ + 1] = oy
    st[k, L.S_OBJ + 2] = half
    st[k, L.S_YAW] = uniform(key, d + 9, -0.25 * math.pi, 0.25 * math.pi)
    gx = ox
    gy = oy
    x_lo, x_hi = fp[L.P_GOAL_X_LO], fp[L.P_GOAL_X_HI]
    y_lo, y_hi = fp[L.P_GOAL_Y_LO], fp[L.P_GOAL_Y_HI]
    for t in range(ip[L.I_GOAL_TRIES]):
        dist = uniform(key, 20 + 2 * t, fp[L.P_GOAL_D_LO], fp[L.P_GOAL_D_HI])
        ang = uniform(key, 21 + 2 * t, -math.pi, math.pi)
        gx = ox + dist * math.cos(ang)
        gy = oy + dist * math.sin(ang)
        if x_lo <= gx <= x_hi and y_lo <= gy <= y_hi:
            break
    st[k, L.S_GOAL] = clip(gx, x_lo, x_hi)
    st[k, L.S_GOAL + 1] = clip(gy, y_lo, y_hi)
    if uniform01(key, d + 13) < fp[L.P_AIR_PROB]:
        st[k, L.S_GOAL + 2] = uniform(key, d + 14, fp[L.P_GOAL_Z_LO], fp[L.P_GOAL_Z_HI])
    else:
        st[k, L.S_GOAL + 2] = half


def pack_cube_task(
    cfg: TaskConfig,
    fp: np.ndarray,
    ip: np.ndarray,
    contact: ContactModel = CONTACT_MODEL,
    initial_width: float = INITIAL_FINGER_WIDTH,
    goal_z_range: tuple[float, float] = (CUBE_REST_Z, CUBE_REST_Z),
    air_goal_probability: float = 0.0,
) -> None:
    """A cube task's numbers into the parameter vectors (defaults: push's; pick_place passes
    its own): the contact model, the cube, the finger opening at reset, the cube and goal
    areas and the goal heights (air goals with ``air_goal_probability``)."""
    if cfg.has_gripper != (initial_width > 0.0):
        gripper = initial_width > 0.0
        raise ValueError(f"{cfg.name} needs has_gripper={gripper} in the numba backend")
    rnd = cfg.randomization
    pack_contact(contact, rnd.finger_friction_scale, fp, ip)
    lo, hi = rnd.cube_size if rnd.cube_size is not None else (CUBE_SIZE,) * 2
    fp[L.P_CUBE_HALF], fp[L.P_CUBE_HALF_HI] = lo / 2, hi / 2
    lo, hi = rnd.finger_reading  # both fingers together; each pad takes half
    fp[L.P_PAD_LO], fp[L.P_PAD_HI] = 0.5 * lo, 0.5 * hi
    fp[L.P_INIT_WIDTH] = initial_width
    check_regions(cfg)
    obj_lo, obj_hi = object_area(cfg)
    goal_lo, goal_hi = goal_area(cfg)
    fp[[L.P_OBJ_X_LO, L.P_OBJ_Y_LO]] = obj_lo
    fp[[L.P_OBJ_X_HI, L.P_OBJ_Y_HI]] = obj_hi
    fp[[L.P_GOAL_X_LO, L.P_GOAL_Y_LO]] = goal_lo
    fp[[L.P_GOAL_X_HI, L.P_GOAL_Y_HI]] = goal_hi
    fp[L.P_GOAL_D_LO], fp[L.P_GOAL_D_HI] = cfg.goal_distance_range
    fp[L.P_GOAL_Z_LO], fp[L.P_GOAL_Z_HI] = goal_z_range
    fp[L.P_AIR_PROB] = air_goal_probability
    ip[L.I_GOAL_TRIES] = GOAL_SAMPLE_TRIES


KERNEL = TaskKernel(
    observe=kernel_observe,
    evaluate=kernel_evaluate,
    reset=kernel_reset,
    physics=cube_physics,
    pack=pack_cube_task,
)
"""Push's scalar terms for the numba kernels (:mod:`sims.tasks.registry`)."""
