"""Pick and place: grasp a cube and bring it to a goal, on the table or in the air.

Observation (32): joint_pos (7), joint_vel (7), tcp_pos (3), finger_width (1),
object_pos (3), object_yaw_sincos (2: sin and cos of 4 * yaw), object_rel_tcp =
object - tcp (3), goal_pos (3), goal_rel_object = goal - object (3).

Action (4): TCP displacement (3) in [-1, 1] scaled by ``cartesian_step_max`` (m) through
one damped-least-squares IK step, plus a gripper command: > 0 opens the fingers (target
width ``panda.gripper_width_max``), <= 0 closes them (the cube stops them).

Reset: home pose plus joint noise, fingers open, cube resting on the table in the same
area as push (``CONFIG.object_xy_range``); goal xy as push (0.10-0.25 m from the cube,
inside ``CONFIG.goal_xy_range``); goal z uniform in ``AIR_GOAL_Z_RANGE`` (above every
placement, :data:`PLACE_Z_MAX`) with probability ``AIR_GOAL_PROBABILITY``, on the table
otherwise.

Reward terms (:data:`REWARD_TERMS`): ``object_goal`` (3-D cube-goal distance),
``tcp_object`` (|tcp - cube|), ``release`` (stack episodes: 1 while the cube is placed but
gripped), ``unsolved`` (1 until success); dense = -object_goal - ``REACH_WEIGHT`` *
tcp_object - ``RELEASE_WEIGHT`` * release; sparse = -unsolved. Success: 3-D cube-goal
distance < ``success_threshold``.

Variants (:data:`VARIANTS`, per episode; ``TaskConfig.stack_fraction`` of them stack):

- ``pads`` (the default, every episode when ``stack_fraction`` is 0): the above.
- ``stack``: the target is a second cube resting on the table where a pads goal would lie
  (xy as above); the goal is the place pose on top of it (:func:`stack_goal`: its centre
  one cube edge higher), following the target cube if it is pushed. Success
  (:func:`stacked`): the carried cube's centre within ``STACK_XY_TOLERANCE`` (xy) of the
  goal and within ``STACK_Z_TOLERANCE`` of its height (resting on the target cube), and
  released: the fingers opened wider than ``STACK_RELEASE_WIDTH`` (a cube held above the
  target, or dropped beside it, does not count). Dense reward: the pads reward, minus
  ``RELEASE_WEIGHT`` while the cube is placed but still gripped. State: ``SimState.stack``.
  Stacking needs real cube-on-cube contact: the PyBullet backend runs it; the numba
  kernels' contact model has one cube and a table, so other backends refuse
  ``stack_fraction > 0`` (:func:`check_backend`).
- ``tower``: ``stack`` on the top cube of two already stacked (``stack_base_cubes`` 2): the
  carried cube goes to the third level (:data:`TOWER_LEVELS`, the highest); success as
  ``stack``, the goal at the third level's height above the top cube (:func:`tower_goal`:
  a cube put on a knocked-over tower does not count). PyBullet only, as ``stack``.

The observation is the same in every variant: a goal's height tells a placement (at most
:data:`PLACE_Z_MAX`: the table, on one cube, on two) from an air goal (drawn in
``AIR_GOAL_Z_RANGE``, above every placement), so no air goal lies where a cube is placed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba.extending import register_jitable

from sims.kernels import layout as L
from sims.kernels.contact import LIMIT_SURFACE_RATIO, ContactModel, cube_physics
from sims.kernels.observe import distance3, observe_arm, observe_cube
from sims.robots import panda
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

REACH_WEIGHT = push.REACH_WEIGHT
"""Weight of the TCP-object distance in the dense reward."""
RELEASE_WEIGHT = 0.1
"""Stack episodes: dense-reward penalty per step while the cube is placed but gripped."""
REWARD_TERMS = ("object_goal", "tcp_object", "release", "unsolved")
"""The reward's terms, in the order the kernels and ``reward_terms`` give them."""

CONFIG = TaskConfig(
    name="pick_place",
    action_mode="cartesian",
    episode_steps=75,
    has_object=True,
    has_gripper=True,
    tracking_gain=0.85,  # PyBullet covers ~83% of a DLS Cartesian step (measured)
    goal_distance_range=push.GOAL_DISTANCE_RANGE,
    object_xy_range=push.OBJECT_XY_RANGE,
    goal_xy_range=push.GOAL_XY_RANGE,
    rewards=(
        RewardTerm("object_goal", -1.0),
        RewardTerm("tcp_object", -REACH_WEIGHT),
        RewardTerm("release", -RELEASE_WEIGHT),
    ),
    sparse_rewards=(RewardTerm("unsolved", -1.0),),
)

LAYOUT = ObservationLayout(
    [
        *fields.ARM,
        ("finger_width", 1, "opening between the fingers (m)"),
        *fields.CUBE,
        *fields.CUBE_GOAL,
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
OBJECT_XY_RANGE = push.OBJECT_XY_RANGE
GOAL_XY_RANGE = push.GOAL_XY_RANGE
GOAL_DISTANCE_RANGE = push.GOAL_DISTANCE_RANGE
GOAL_SAMPLE_TRIES = push.GOAL_SAMPLE_TRIES
GOAL_Z_RANGE = (CUBE_REST_Z, 0.25)
"""Heights (m) a goal's cube centre may have: from resting on the table to the highest air
goal (the skill's envelope)."""
AIR_GOAL_PROBABILITY = 0.5
"""Fraction of episodes whose goal is in the air; the rest lie on the table."""
TOWER_LEVELS = 3
"""The highest level a cube may be placed at: resting on the table is the first level, on
one cube the second, on two cubes the third (:func:`level_height`, :func:`cube_level`)."""


def level_height(level: int) -> float:
    """Height (m) of the centre of a cube resting at ``level`` (1: on the table)."""
    return CUBE_REST_Z + (level - 1) * CUBE_SIZE


PLACE_Z_MAX = level_height(TOWER_LEVELS) + 0.5 * CUBE_SIZE
"""Goals at most this high (m) are placements, the cube released resting there: every
level up to :data:`TOWER_LEVELS` (0.02, 0.06, 0.10), with half a cube edge to spare.
Higher goals are in the air, the cube held there."""
AIR_GOAL_Z_RANGE = (level_height(TOWER_LEVELS + 1), GOAL_Z_RANGE[1])
"""Height (m) of the cube centre at an air goal, uniform: from the level above the highest
one (a tower is never that high, so no air goal lies where a cube would be placed) to the
top of the envelope. The observation does not say whether a goal is a placement; keeping
air goals out of the placement band (:data:`PLACE_Z_MAX` with half an edge on each side)
means one observation never asks for two behaviours (release at a tower's top, hold in
the air)."""
CONTACT_MODEL = ContactModel(
    pad_grid=False,
    mu_finger=(0.5, 0.5),
    limit_surface=(LIMIT_SURFACE_RATIO, LIMIT_SURFACE_RATIO),
)
"""The numba contact model's numbers: the shipped skill was trained with one cylinder per
finger and the nominal values; the push settings were tried and left its training stuck at
~60%."""

VARIANTS = ("pads", "stack", "tower")
"""Episode variants: ``pads`` (a point on the table or in the air), ``stack`` (on a cube),
``tower`` (on the top cube of two already stacked: the third level)."""
STACK_XY_TOLERANCE = 0.02
"""Stack success: largest xy distance (m) of the carried cube's centre from the goal."""
STACK_Z_TOLERANCE = 0.01
"""Stack success: largest height difference (m) from resting on the target cube."""
STACK_RELEASE_WIDTH = 0.07
"""Stack success: the finger opening (m) above which the cube counts as released (PyBullet
reads a gripped 4 cm cube as 4.0-5.8 cm between the fingers; fully open is 8 cm)."""
PARKED_TARGET = np.array([0.0, 0.0, -1.0])
"""Where a backend keeps the target cube in ``pads`` episodes (below the table, static)."""

reset_distribution = push.reset_distribution
sample_object_pose = push.sample_object_pose
object_area = push.object_area
goal_area = push.goal_area


def sample_goal(
    rng: np.random.Generator,
    n: int,
    object_pos: np.ndarray | None = None,
    distance_range: tuple[float, float] = push.GOAL_DISTANCE_RANGE,
    region: push.XYRegion | None = None,
) -> np.ndarray:
    """Goals [n, 3]: xy as in push (``distance_range`` from ``object_pos`` [n, 3] when
    given, inside the goal area ``region``; None: the default), z in the air
    (``AIR_GOAL_Z_RANGE``) with probability ``AIR_GOAL_PROBABILITY``, else the cube's rest
    height."""
    goal = push.sample_goal(rng, n, object_pos, distance_range, region)
    air = rng.uniform(size=n) < AIR_GOAL_PROBABILITY
    z = rng.uniform(*AIR_GOAL_Z_RANGE, size=n)
    goal[:, 2] = np.where(air, z, CUBE_REST_Z)
    return goal


def sample_reset(
    rng: np.random.Generator, n: int, cfg: TaskConfig = CONFIG
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Joint positions [n, 7], cube position [n, 3] (in ``cfg.object_xy_range``), cube yaw
    [n], goal [n, 3] (xy in ``cfg.goal_xy_range``)."""
    q = reset_distribution(rng, n, cfg)
    pos, yaw = sample_object_pose(rng, n, cfg.object_xy_range)
    return q, pos, yaw, sample_goal(rng, n, pos, cfg.goal_distance_range, cfg.goal_xy_range)


def check_variant(variant: str) -> str:
    """``variant`` when it is one of :data:`VARIANTS`, else ValueError naming them."""
    if variant not in VARIANTS:
        raise ValueError(
            f"unknown pick_place variant {variant!r}; choose one of {', '.join(VARIANTS)}"
        )
    return variant


def variant_config(variant: str, cfg: TaskConfig = CONFIG) -> TaskConfig:
    """``cfg`` running only ``variant`` episodes: ``stack_fraction`` 0 (pads) or 1, on one
    cube (stack) or on the top of two (tower: ``stack_base_cubes`` 2); no mixed towers
    (``tower_fraction`` 0)."""
    check_variant(variant)
    fraction = 0.0 if variant == "pads" else 1.0
    base_cubes = TOWER_LEVELS - 1 if variant == "tower" else 1
    return dataclasses.replace(
        cfg, stack_fraction=fraction, stack_base_cubes=base_cubes, tower_fraction=0.0
    )


def most_base_cubes(cfg: TaskConfig) -> int:
    """The most cubes a stacking episode of ``cfg`` stands on the table under the place
    pose (``stack_base_cubes``, or ``TOWER_LEVELS - 1`` with ``tower_fraction``)."""
    return TOWER_LEVELS - 1 if cfg.tower_fraction > 0 else cfg.stack_base_cubes


def check_backend(task_name: str, cfg: TaskConfig, stacking_supported: bool, backend: str):
    """ValueError (before any work) when ``cfg`` asks for stacking episodes that this task
    or ``backend`` cannot run."""
    fraction = cfg.stack_fraction
    for name, value in (("stack_fraction", fraction), ("tower_fraction", cfg.tower_fraction)):
        if not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
            raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    base_cubes = cfg.stack_base_cubes
    if not (isinstance(base_cubes, int) and 1 <= base_cubes <= TOWER_LEVELS - 1):
        raise ValueError(
            f"stack_base_cubes must be an integer in [1, {TOWER_LEVELS - 1}] (a tower is at "
            f"most {TOWER_LEVELS} cubes high), got {base_cubes!r}"
        )
    if fraction == 0:
        return
    if task_name != CONFIG.name:
        raise ValueError(f"stack_fraction is a pick_place option; task {task_name!r} has none")
    if not stacking_supported:
        tower = most_base_cubes(cfg) > 1
        what = "tower episodes (variant tower)" if tower else "stacking episodes"
        raise ValueError(
            f"{what} (stack_fraction {fraction}) run on the pybullet backend only, "
            f"not {backend!r}: its contact model has one cube and a table"
        )


def cube_level(z: float) -> int | None:
    """The level (1: on the table, 2: on one cube, ...) whose resting height a cube centred
    at ``z`` (m) is within ``STACK_Z_TOLERANCE`` of, or None (in the air, or below the
    table). Height alone: a cube held at a level's height reads as that level (what stands
    under it decides whether it rests there)."""
    level = round((float(z) - CUBE_REST_Z) / CUBE_SIZE) + 1
    if level < 1 or abs(float(z) - level_height(level)) > STACK_Z_TOLERANCE:
        return None
    return level


def stack_goal(target_pos: np.ndarray) -> np.ndarray:
    """The place pose [..., 3] on top of target cubes [..., 3] (one cube edge higher)."""
    goal = np.array(target_pos, dtype=np.float64)
    goal[..., 2] += CUBE_SIZE
    return goal


def tower_goal(target_pos: np.ndarray, base_cubes: int | np.ndarray) -> np.ndarray:
    """The place pose [..., 3] of a tower episode (``base_cubes`` > 1, one number or one
    per target [...]) on target cubes [..., 3]: above the target in xy, at the height of
    the level the tower builds (``base_cubes + 1``) whatever the target's height, so a cube
    put on the top of a knocked-over tower is not on the goal. ``base_cubes`` 1:
    :func:`stack_goal`."""
    goal = stack_goal(target_pos)
    base = np.broadcast_to(np.asarray(base_cubes), goal.shape[:-1])
    goal[..., 2] = np.where(base > 1, level_height(base + 1), goal[..., 2])
    return goal


def sample_stack(
    rng: np.random.Generator, n: int, cfg: TaskConfig, goal: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stacking episodes [n] bool (``cfg.stack_fraction`` of them), target cube centres
    [n, 3] (at the goals' xy, the top of a stack of ``cfg.stack_base_cubes`` cubes, or of
    ``TOWER_LEVELS - 1`` in ``cfg.tower_fraction`` of them: resting on the table, or on the
    cubes a backend puts under it; ``PARKED_TARGET`` in pads episodes) and the goals [n, 3]
    (the place pose on the target cube where stacking). Draws nothing when
    ``stack_fraction`` is 0, nor towers when ``tower_fraction`` is 0, so the episode sets
    without them are unchanged."""
    stack = np.zeros(n, dtype=bool)
    if cfg.stack_fraction > 0:
        stack = rng.uniform(size=n) < cfg.stack_fraction
    base_cubes = np.full(n, cfg.stack_base_cubes)
    if cfg.stack_fraction > 0 and cfg.tower_fraction > 0:
        base_cubes[rng.uniform(size=n) < cfg.tower_fraction] = TOWER_LEVELS - 1
    target = np.broadcast_to(PARKED_TARGET, (n, 3)).copy()
    target[stack, :2] = goal[stack, :2]
    target[stack, 2] = level_height(base_cubes[stack])
    goal = np.array(goal, dtype=np.float64)
    goal[stack] = stack_goal(target[stack])
    return stack, target, goal


def observe(state: SimState) -> np.ndarray:
    """Observation [N, 32] float32 from the batched state."""
    return np.concatenate(
        [
            *fields.arm(state),
            state.finger_width[:, None],
            *fields.cube(state),
            *fields.cube_goal(state),
        ],
        axis=1,
    ).astype(np.float32)


def reward_terms(state: SimState, cfg: TaskConfig = CONFIG) -> dict[str, np.ndarray]:
    """The reward's terms (:data:`REWARD_TERMS`), unweighted."""
    gripped = placed(state) & (state.finger_width <= STACK_RELEASE_WIDTH)
    stack = state.stack if _has_stack(state) else np.zeros(len(gripped), dtype=bool)
    return {
        "object_goal": goal_distance(state.object_pos, state.goal_pos),
        "tcp_object": goal_distance(state.tcp_pos, state.object_pos),
        "release": (stack & gripped).astype(np.float64),
        "unsolved": (~success(state, cfg)).astype(np.float64),
    }


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    """Dense: -(3-D cube-goal distance) - REACH_WEIGHT * |tcp - cube| (stack episodes: minus
    RELEASE_WEIGHT while placed but gripped); sparse: -1 until success, then 0 (``cfg``'s
    weights of :func:`reward_terms`)."""
    return weighted_reward(reward_terms(state, cfg), cfg, dense)[0]


def placed(state: SimState) -> np.ndarray:
    """True where the cube's centre is at the stack goal: within ``STACK_XY_TOLERANCE``
    (xy) and ``STACK_Z_TOLERANCE`` (z) of it, gripped or not."""
    offset = state.object_pos - state.goal_pos
    xy = np.linalg.norm(offset[:, :2], axis=-1)
    return (xy < STACK_XY_TOLERANCE) & (np.abs(offset[:, 2]) < STACK_Z_TOLERANCE)


def stacked(state: SimState) -> np.ndarray:
    """The stack variant's success: :func:`placed` and released (fingers opened wider than
    ``STACK_RELEASE_WIDTH``)."""
    return placed(state) & (state.finger_width > STACK_RELEASE_WIDTH)


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    """Pads episodes: the cube within the threshold of the goal (3-D); stack episodes
    (``state.stack``): :func:`stacked`."""
    pads = goal_distance(state.object_pos, state.goal_pos) < cfg.success_threshold
    if not _has_stack(state):
        return pads
    return np.where(state.stack, stacked(state), pads)


def _has_stack(state: SimState) -> bool:
    return state.stack is not None and bool(np.any(state.stack))


# --- the numba kernels' terms (reset and packing: push's) -----------------------------------
O_Q, O_QD, O_TCP, O_WIDTH, O_OBJ, O_YAW, O_OBJ_REL, O_GOAL, O_GOAL_REL = LAYOUT.starts()


@register_jitable(_nrt=False)
def kernel_observe(k, st, out, noise_std, key, base):
    """:func:`observe` of env ``k`` (with observation noise)."""
    arm = observe_arm(k, st, out, O_Q, O_QD, O_TCP, O_GOAL, noise_std, key, base)
    out[k, O_WIDTH] = st[k, L.S_WIDTH]
    observe_cube(k, st, out, O_OBJ, O_YAW, O_OBJ_REL, O_GOAL_REL, arm, noise_std, key, base)


@register_jitable(_nrt=False)
def kernel_evaluate(k, fp, st):
    """(:func:`reward_terms`, :func:`success`) of env ``k``: pads episodes (the kernels'
    contact model has no second cube), so ``release`` is 0."""
    d = distance3(st, k, L.S_OBJ, L.S_GOAL)
    reach = distance3(st, k, L.S_TCP, L.S_OBJ)
    thr = fp[L.P_SUCCESS]
    return (d, reach, 0.0, 1.0 if d >= thr else 0.0), d < thr


def kernel_pack(cfg: TaskConfig, fp: np.ndarray, ip: np.ndarray) -> None:
    """Pick and place's numbers into the parameter vectors (push's packing, with its own
    contact model, open fingers and air goals)."""
    push.pack_cube_task(
        cfg, fp, ip, CONTACT_MODEL, INITIAL_FINGER_WIDTH, AIR_GOAL_Z_RANGE, AIR_GOAL_PROBABILITY
    )


KERNEL = TaskKernel(
    observe=kernel_observe,
    evaluate=kernel_evaluate,
    reset=push.kernel_reset,
    physics=cube_physics,
    pack=kernel_pack,
)
"""Pick and place's scalar terms for the numba kernels (:mod:`sims.tasks.registry`)."""
