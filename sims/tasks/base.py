"""What every task shares: configs, the batched state, and the observation layout.

A task is a handful of small pure functions over batched numpy arrays (Isaac Lab's
"terms"): ``sample_goal``, ``reset_distribution``, ``observe``, ``reward``, ``success``.
Backends own the physics; they produce a :class:`SimState` and call the task's terms, so
an observation means the same thing on every backend. The numba backend fuses the same
formulas into kernels for speed and is tested against these functions.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from sims.robots import panda

FINGER_READING_RANGE = (-0.005, 0.02)
"""The offsets (m) from a held cube's edge that ``finger_reading`` may draw for the opening
the gripper reports, both fingers together: a held 4 cm cube reads 3.5-6 cm (compliant pads
squeezed read under the edge; PyBullet's Panda reads 4.0-5.8 cm)."""
HELD_READING_MAX = 0.058
"""The widest opening (m) the PyBullet reading map treats as a held cube's: readings up to
it move by the whole offset, wider ones by less, down to nothing at the open gripper (a 4 cm
cube in PyBullet's Panda reads at most 5.8 cm, 95th percentile)."""


@dataclass(frozen=True)
class CubePoseError:
    """An error model of the cube pose a camera and perception report, applied to the
    cube's observed centre (x, y) and yaw only (its z, the arm and the goal stay exact;
    reward and success stay on the true state): a bias drawn once per episode, noise drawn
    every control period, and dropouts, where the observation repeats the pose last
    published (the first period of an episode always publishes). Normal draws, per axis;
    the white ``observation_noise_std`` comes on top. All zeros: off."""

    bias_xy_m: float = 0.0
    """Std (m) of the per-episode offset of the cube's x and y (each)."""
    bias_yaw_deg: float = 0.0
    """Std (deg) of the per-episode offset of its yaw."""
    noise_xy_m: float = 0.0
    """Std (m) of the per-period noise on its x and y (each)."""
    noise_yaw_deg: float = 0.0
    """Std (deg) of the per-period noise on its yaw."""
    hold_prob: float = 0.0
    """Chance per control period that no new pose arrives and the last one is observed."""

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"pose_error.{f.name} must be a number, got {value!r}")
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"pose_error.{f.name} must be >= 0, got {value!r}")
        if self.hold_prob >= 1.0:
            raise ValueError(f"pose_error.hold_prob must be < 1, got {self.hold_prob!r}")

    @property
    def on(self) -> bool:
        """True when any term is non-zero."""
        return self != CubePoseError()


POSE_ERROR_PRESETS: dict[str, CubePoseError] = {
    "camera": CubePoseError(
        bias_xy_m=0.001,
        bias_yaw_deg=0.3,
        noise_xy_m=0.002,
        noise_yaw_deg=1.5,
        hold_prob=0.6,
    ),
}
"""Named error models. ``camera``: at least as wide as docs/perception.md's measurements
of the scene camera through its calibration: the bias (1 mm per axis: xy p50 / p95 1.2 /
2.4 mm) covers the calibrated xy error (0.7-0.9 / 1.5-1.8 mm) and 0.3 deg is the mounting
error's turn; the noise (2 mm per axis: 2.4 / 4.9 mm) covers the per-frame error with exact
extrinsics (1.6-2.7 / 2.3-4.1 mm) and 1.5 deg (yaw p50 / p95 1.0 / 2.9 deg) the yaw error
(0.3-0.6 / 1.1-2.8 deg); a new pose arrives in 10 / 25 of the control periods (10 Hz frames,
40 ms periods) less the 1% dropped frames, so 0.6 of the periods hold the last one. Not in
it: the frames' latency and an occluded cube's pose ageing over many periods."""


def cube_pose_error(value) -> CubePoseError:
    """The :class:`CubePoseError` of a config entry: a preset's name
    (:data:`POSE_ERROR_PRESETS`), a mapping of its fields, an instance, or empty / None
    (off); ValueError for an unknown preset or key, or a bad value."""
    if isinstance(value, CubePoseError):
        return value
    if value is None or (isinstance(value, (str, dict)) and not value):
        return CubePoseError()
    if isinstance(value, str):
        if value not in POSE_ERROR_PRESETS:
            raise ValueError(
                f"pose_error: unknown preset {value!r}; use one of {sorted(POSE_ERROR_PRESETS)}"
                " or a mapping of its fields"
            )
        return POSE_ERROR_PRESETS[value]
    if not isinstance(value, dict):
        raise ValueError(f"pose_error: a preset name or a mapping, got {value!r}")
    known = [f.name for f in dataclasses.fields(CubePoseError)]
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise ValueError(f"pose_error: unknown keys {unknown}; use {known}")
    return CubePoseError(**value)


@dataclass(frozen=True)
class DomainRandomization:
    """Randomization applied per episode by every backend that can."""

    object_mass_scale: tuple[float, float] = (0.8, 1.2)
    """Multiplier on the cube's nominal mass, sampled uniformly per episode."""
    friction_scale: tuple[float, float] = (0.7, 1.3)
    """Multiplier on cube-table sliding friction, sampled uniformly per episode."""
    initial_joint_noise: float = 0.05
    """Half-width (rad) of the uniform noise added to the home pose at reset."""
    observation_noise_std: float = 0.0
    """Std of Gaussian noise on positions in the observation (m or rad); 0 disables."""
    action_latency_steps: int = 0
    """Max action delay k (control steps); each episode draws a delay in [0, k]."""
    cube_size: tuple[float, float] | None = None
    """Edge (m) of the task's cube, drawn per episode (numba: uniform; PyBullet: one of
    :data:`CUBE_SIZE_LEVELS` cubes evenly spread over the range); None: the task's
    ``CUBE_SIZE``."""
    finger_friction_scale: tuple[float, float] = (1.0, 1.0)
    """Multiplier on the finger-cube friction coefficient, sampled uniformly per episode
    (numba: on the ends of its contact model's range; PyBullet: on the finger pads')."""
    contact_stiffness: tuple[float, float] | None = None
    """PyBullet: the cube's contact stiffness (N/m), drawn log-uniformly per episode and
    critically damped for the cube's mass (soft contacts: the fingers sink into the cube
    and the cube into the table); None: Bullet's rigid contacts. The numba kernels' contacts
    are kinematic and have no stiffness."""
    finger_reading: tuple[float, float] = (0.0, 0.0)
    """The opening (m) the gripper reports for a held cube, as an offset from the cube's
    edge (both fingers together), drawn uniformly per episode within
    :data:`FINGER_READING_RANGE`; the open gripper reads its full opening either way.
    Grippers and engines differ here: a held 4 cm cube reads 3.5-3.8 cm between compliant
    pads, 4 cm between numba's thin pads, 4.0-5.8 cm in PyBullet's Panda. numba: the
    fingers themselves (:func:`sims.kernels.contact.object_step`: offset > 0 pads whose
    faces lie half of it inside each end of the reported opening, offset < 0 compliant pads
    that the closing fingers squeeze by it); PyBullet: a map of its measured opening
    (:func:`reported_finger_width`, on top of the engine's own reading). (0, 0): unchanged."""
    plain_arm_prob: float = 0.0
    """numba, with a command-path model (``actuator``): the probability that an episode
    bypasses it and runs on the backend's plain tracking (the quick arm of the simulators
    and of a robot whose controller follows its targets at once), drawn per episode, so a
    skill trained on the rate-limited arm also meets the quick one; 0: every episode on
    the model. Without a model every episode is plain."""
    pose_error: CubePoseError = field(default_factory=CubePoseError)
    """The error model of the cube's observed pose (:class:`CubePoseError`; numba and
    PyBullet); the default: exact poses."""

    def __post_init__(self):
        for name, hi_max in (
            ("object_mass_scale", np.inf),
            ("friction_scale", np.inf),
            ("cube_size", 0.06),  # the gripper opens 0.08 m
            ("finger_friction_scale", np.inf),
            ("contact_stiffness", np.inf),
        ):
            value = getattr(self, name)
            if value is None:
                continue
            if len(value) != 2 or not 0.0 < float(value[0]) <= float(value[1]) <= hi_max:
                raise ValueError(f"{name} must be [lo, hi] with 0 < lo <= hi <= {hi_max}")
        lo, hi = FINGER_READING_RANGE
        reading = self.finger_reading
        if len(reading) != 2 or not lo <= float(reading[0]) <= float(reading[1]) <= hi:
            raise ValueError(f"finger_reading must be [lo, hi] with {lo} <= lo <= hi <= {hi}")
        if not isinstance(self.pose_error, CubePoseError):
            raise ValueError("pose_error must be a CubePoseError (see cube_pose_error)")
        prob = self.plain_arm_prob
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0.0 <= prob <= 1.0:
            raise ValueError(f"plain_arm_prob must be a number in [0, 1], got {prob!r}")


RANDOMIZATION_BACKENDS: dict[str, tuple[str, ...]] = {
    "object_mass_scale": ("numba", "pybullet", "isaac"),
    "friction_scale": ("numba", "pybullet", "isaac"),
    "cube_size": ("numba", "pybullet"),
    "finger_friction_scale": ("numba", "pybullet"),
    "contact_stiffness": ("pybullet",),
    "finger_reading": ("numba", "pybullet"),
    "plain_arm_prob": ("numba",),
    "pose_error": ("numba", "pybullet"),
}
"""The cube, contact and command-path randomization fields of :class:`DomainRandomization`
and the backends that apply them; the others refuse them (:func:`check_backend_randomization`).
numba draws the cube's mass but its model does not depend on it (quasi-static pushing, a
rigid grasp by an arm of unlimited strength)."""


def unsupported_randomization(fields, backend: str) -> list[str]:
    """Those of ``fields`` (:data:`RANDOMIZATION_BACKENDS` names) that ``backend`` cannot
    randomize."""
    return [f for f in fields if backend not in RANDOMIZATION_BACKENDS[f]]


REFUSAL_REASONS = {
    "plain_arm_prob": "its command-path model runs every episode (plain-arm episodes are a "
    "numba option)",
    "pose_error": "its observation has no cube-pose error model (numba and PyBullet have one)",
}
"""Why a backend refuses a field, where that is not the backend's contact reason."""


def check_backend_randomization(r: DomainRandomization, backend: str, why: str) -> None:
    """ValueError when ``r`` turns on a randomization that ``backend`` cannot apply, saying
    ``why`` (the backend's reason for its contacts) or the field's own reason
    (:data:`REFUSAL_REASONS`)."""
    defaults = DomainRandomization()
    fields = [f for f in RANDOMIZATION_BACKENDS if getattr(r, f) != getattr(defaults, f)]
    refused = unsupported_randomization(fields, backend)
    if refused:
        reasons: dict[str, list[str]] = {}
        for f in refused:
            reasons.setdefault(REFUSAL_REASONS.get(f, why), []).append(f"randomization.{f}")
        text = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in reasons.items())
        raise ValueError(f"the {backend} backend cannot randomize {text}")


CUBE_SIZE_LEVELS = 5
"""PyBullet cannot resize a body, so a world with ``cube_size`` randomized holds this many
cubes (edges evenly spread over the range, the unused ones parked below the table)."""


def cube_sizes(r: DomainRandomization, nominal: float) -> tuple[float, ...]:
    """The cube edges (m) a PyBullet world holds for ``r.cube_size`` (one: ``nominal``)."""
    if r.cube_size is None:
        return (float(nominal),)
    lo, hi = (float(v) for v in r.cube_size)
    if lo == hi:
        return (lo,)
    return tuple(float(v) for v in np.linspace(lo, hi, CUBE_SIZE_LEVELS))


def reported_finger_width(width: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """The opening a gripper reports, from the ``width`` (m) an engine measures, when a held
    cube is to read ``offset`` (m, :data:`FINGER_READING_RANGE`) wider: readings up to
    :data:`HELD_READING_MAX` (a held cube's, an empty closed gripper's) move by the whole
    offset, wider ones by linearly less, the open gripper's not at all; never below 0 (closed
    pads meet). Monotone in ``width`` over the whole range, so a wider grip still reads wider.
    It moves the reading only: the fingers, the cube and the contacts stay the engine's."""
    width = np.asarray(width, dtype=np.float64)
    open_width = panda.gripper_width_max
    fade = np.clip((open_width - width) / (open_width - HELD_READING_MAX), 0.0, 1.0)
    return np.maximum(width + np.asarray(offset, dtype=np.float64) * fade, 0.0)


def calibrated_finger_width(reading: np.ndarray, offset: float) -> np.ndarray:
    """The opening (m) a gripper whose reading is ``offset`` off (:data:`FINGER_READING_RANGE`)
    reports as ``reading``: :func:`reported_finger_width` undone (readings up to
    :data:`HELD_READING_MAX` + ``offset`` lose the whole offset, wider ones linearly less,
    the open gripper's nothing), never below 0. What a skill whose card carries a finger
    reading calibration (:mod:`policies.calibration`) reads."""
    reading = np.asarray(reading, dtype=np.float64)
    d, open_width = float(offset), panda.gripper_width_max
    span = open_width - HELD_READING_MAX
    faded = (reading - d * open_width / span) / (1.0 - d / span)
    width = np.where(
        reading <= HELD_READING_MAX + d,
        reading - d,
        np.where(reading < open_width, faded, reading),
    )
    return np.maximum(width, 0.0)


@dataclass(frozen=True)
class RewardTerm:
    """One named term of a task's reward and its weight (Isaac Lab's ``RewTerm``): a task
    lists its terms (``REWARD_TERMS``), a config weighs them (``TaskConfig.rewards``)."""

    name: str
    weight: float


@dataclass(frozen=True)
class TaskConfig:
    """Timing, action meaning and success threshold of one task."""

    name: str
    """Task name: ``reach``, ``push`` or ``pick_place``."""
    action_mode: str = "joint"
    """``joint``: 7 joint-position deltas; ``cartesian``: 3 TCP deltas through one
    damped-least-squares IK step. Tasks with a gripper append one gripper command."""
    control_dt: float = 0.04
    """Policy period (s): 25 Hz, as panda-gym (20 physics substeps of 2 ms)."""
    episode_steps: int = 50
    """Steps before truncation."""
    joint_action_scale: float = 1.0
    """Joint mode: an action of 1 asks for this fraction of the joint's velocity limit
    over one control period."""
    cartesian_step_max: float = 0.02
    """Cartesian mode: TCP displacement (m) asked for by an action of 1."""
    ik_damping: float = 0.05
    """Damping (m) of the IK step in Cartesian mode."""
    ik_tilt_gain: float = 0.0
    """Cartesian mode: gain of a null-space step added to the IK step that turns the tool
    axis back towards straight down (:func:`sims.kernels.kinematics.level_step`; 0: the
    hand's orientation is left to the position-only IK, as the skills shipped before it
    were trained)."""
    ik_tilt_allowance_deg: float = 0.0
    """Cartesian mode, with ``ik_tilt_gain``: the tool tilt (degrees from straight down)
    the levelling leaves alone; it turns the tool back only by the tilt beyond it."""
    lift_after_grip_threshold_m: float = 0.0
    """Tasks with a gripper: after a close command the command path holds the TCP's upward
    motion (the action's z clamped to <= 0; x, y and downward motion unchanged) until the
    measured finger opening changed by less than this (m) over one period, or for
    ``lift_after_grip_max_periods`` periods (:class:`sims.control.LiftGate`, a grasp
    primitive's "lift once the fingers stop"). 0: off (as every shipped skill was trained)."""
    lift_after_grip_max_periods: int = 4
    """With ``lift_after_grip_threshold_m``: the most periods the lift is held after a close
    (the close's own period included), so the gate never hangs."""
    cartesian_z_min: float = 0.012
    """Cartesian mode: the commanded TCP height never goes below this (m, table top at
    z = 0): a downward displacement is cut to ``cartesian_z_min - tcp_z`` (the fingertips,
    0.01 m below the TCP, stop ~2 mm above the table instead of pressing into it; a
    position-controlled arm pressing on the table loses its lateral tracking)."""
    tracking_gain: float = 0.8
    """Fraction of each commanded joint step the arm covers within one period (matched
    to PyBullet's position control); the numba backend applies it, PyBullet just is it."""
    success_threshold: float = 0.05
    """Distance (m) under which the goal counts as reached (panda-gym uses 0.05)."""
    has_object: bool = False
    has_gripper: bool = False
    stack_fraction: float = 0.0
    """pick_place only: fraction of episodes (drawn per episode) whose target is a second
    cube to stack the carried cube on (:mod:`sims.tasks.pick_place`, variant ``stack``); the
    rest are the default ``pads`` episodes. Stacking needs cube-on-cube contact: PyBullet
    only (other backends raise)."""
    stack_base_cubes: int = 1
    """pick_place stacking episodes: the cubes standing under the place pose, the target
    on top (1: variant ``stack``; 2: a tower, variant ``tower``, the carried cube at the
    third level)."""
    tower_fraction: float = 0.0
    """pick_place stacking episodes: the fraction of them (drawn per episode) on a tower,
    the target on top of ``TOWER_LEVELS - 1`` cubes (the carried cube at the third level,
    variant ``tower``); the rest on ``stack_base_cubes``. Lets one run train both levels.
    PyBullet only, as stacking."""
    goal_distance_range: tuple[float, float] = (0.0, 0.0)
    """push and pick_place: range (m) of the xy distance from the cube's start to the goal,
    uniform (their ``CONFIG`` sets the module's ``GOAL_DISTANCE_RANGE``; a training config
    widens it with ``env.goal_distance``); unused by reach."""
    object_xy_range: tuple[tuple[float, float], tuple[float, float]] | None = None
    """push and pick_place: the area (m, base frame) where the cube starts, uniform,
    ``((xlo, ylo), (xhi, yhi))`` (their ``CONFIG`` sets the module's ``OBJECT_XY_LOW/HIGH``;
    a training config widens it with ``env.object_region``); None: the task's default;
    unused by reach."""
    goal_xy_range: tuple[tuple[float, float], tuple[float, float]] | None = None
    """push and pick_place: the area (m) where goals may lie, ``((xlo, ylo), (xhi, yhi))``
    (their ``CONFIG`` sets the module's ``GOAL_XY_LOW/HIGH``; ``env.goal_region``); None:
    the task's default; unused by reach."""
    randomization: DomainRandomization = field(default_factory=DomainRandomization)
    rewards: tuple[RewardTerm, ...] = ()
    """The dense reward: weighted terms of the task's ``REWARD_TERMS`` (as Isaac Lab's
    ``RewardsCfg``); a term not named weighs 0. Each backend reports every term, weighted,
    in ``info["reward/<term>"]``."""
    sparse_rewards: tuple[RewardTerm, ...] = ()
    """The sparse reward (a backend's ``dense_reward=False``), in the same terms."""

    @property
    def action_dim(self) -> int:
        arm = 7 if self.action_mode == "joint" else 3
        return arm + (1 if self.has_gripper else 0)

    @property
    def ik_tilt_sin_allowance(self) -> float:
        """The sine of ``ik_tilt_allowance_deg``, as the IK's levelling step takes it."""
        return math.sin(math.radians(self.ik_tilt_allowance_deg))


class SimState(NamedTuple):
    """The batched state every backend produces; all arrays float64, leading dim N."""

    joint_pos: np.ndarray  # [N, 7] rad
    joint_vel: np.ndarray  # [N, 7] rad/s
    tcp_pos: np.ndarray  # [N, 3] m, base frame
    finger_width: np.ndarray  # [N] m, opening between the fingers
    object_pos: np.ndarray  # [N, 3] m, cube centre (zeros where the task has no object)
    object_yaw: np.ndarray  # [N] rad about z
    goal_pos: np.ndarray  # [N, 3] m
    stack: np.ndarray | None = None  # [N] bool: pick_place stacking episodes (None: none)
    goal_yaw: np.ndarray | None = None  # [N] rad: the cube's target yaw (turn; None: no yaw goal)
    finger_centre: np.ndarray | None = None
    """[N] m: the fingers' midpoint along the closing axis (the TCP frame's y) from the TCP,
    half the first finger's position less the second's; None: the fingers move together
    (the midpoint is the TCP)."""


class ObservationLayout:
    """An ordered list of named fields; gives slices and the total size."""

    def __init__(self, fields: list[tuple[str, int, str]]):
        self.fields = fields
        self.slices: dict[str, slice] = {}
        start = 0
        for name, size, _ in fields:
            self.slices[name] = slice(start, start + size)
            start += size
        self.dim = start

    def starts(self) -> tuple[int, ...]:
        """Each field's first index, in the layout's order (a kernel's offsets)."""
        return tuple(self.slices[name].start for name, _, _ in self.fields)

    def describe(self) -> list[dict]:
        """The layout as plain data (for skill cards and docs)."""
        return [
            {"name": n, "start": self.slices[n].start, "size": s, "meaning": m}
            for n, s, m in self.fields
        ]


def goal_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean distance over the last axis."""
    return np.linalg.norm(a - b, axis=-1)


def term_weights(names: tuple[str, ...], cfg: TaskConfig, dense: bool) -> np.ndarray:
    """The weight of each of a task's reward terms ``names`` under ``cfg`` (its ``rewards``
    or, sparse, its ``sparse_rewards``; 0 where not named); ValueError for a term the task
    does not have, or one named twice."""
    weights = np.zeros(len(names))
    seen: set[str] = set()
    for term in cfg.rewards if dense else cfg.sparse_rewards:
        if term.name not in names or term.name in seen:
            why = "is named twice" if term.name in seen else "is not one of its terms"
            raise ValueError(f"{cfg.name}: reward term {term.name!r} {why} ({', '.join(names)})")
        seen.add(term.name)
        weights[names.index(term.name)] = float(term.weight)
    return weights


def with_reward_weights(
    cfg: TaskConfig, names: tuple[str, ...], weights: dict, dense: bool
) -> TaskConfig:
    """``cfg`` with the weights of the named terms of its dense (``rewards``) or sparse
    (``sparse_rewards``) reward set to ``weights`` (term -> weight), the other terms kept;
    a term weighted 0 is dropped. ``names``: the task's ``REWARD_TERMS``. ValueError naming
    the task's terms for one it does not have, or for a weight that is not a finite number."""
    which = "rewards" if dense else "sparse_rewards"
    current = {term.name: term.weight for term in getattr(cfg, which)}
    for name, weight in weights.items():
        if name not in names:
            raise ValueError(
                f"env.{which}: {name!r} is not a reward term of {cfg.name} ({', '.join(names)})"
            )
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise ValueError(f"env.{which}.{name}: a number, not {weight!r}")
        if not math.isfinite(weight):
            raise ValueError(f"env.{which}.{name}: a finite number, not {weight!r}")
        current[name] = float(weight)
    terms = tuple(RewardTerm(n, current[n]) for n in names if current.get(n, 0.0) != 0.0)
    return dataclasses.replace(cfg, **{which: terms})


def weighted_reward(
    values: dict[str, np.ndarray], cfg: TaskConfig, dense: bool
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``(reward, {term: weight x value})`` from a task's term values (``values``, in the
    order of its ``REWARD_TERMS``): the reward sums the weighted terms in that order, from
    the first with a non-zero weight (the numba kernels sum from 0.0: a sparse success reads
    0.0 there, -0.0 here, as before the terms)."""
    names = tuple(values)
    weights = term_weights(names, cfg, dense)
    weighted = {name: w * values[name] for name, w in zip(names, weights, strict=True)}
    total = None
    for name, w in zip(names, weights, strict=True):
        if w != 0.0:
            total = weighted[name] if total is None else total + weighted[name]
    if total is None:
        total = np.zeros(np.shape(values[names[0]]))
    return total, weighted
