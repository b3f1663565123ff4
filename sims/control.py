"""Policy actions to joint position targets: the one mapping of every backend (numba,
PyBullet, Isaac Lab) and of the skill node (:mod:`miles_ros.runtime.actions`).

The task contract: actions are clipped to [-1, 1]. Joint mode: ``target = q + a *
(joint_action_scale * control_dt) * velocity_limit``. Cartesian mode: ``target = q +
dls_ik_step(q, a[:3] * cartesian_step_max, ik_damping)``, the z displacement cut so the
TCP is never commanded below ``cartesian_z_min``; with ``ik_tilt_gain`` > 0, plus a step in
that IK step's null space that turns the tool axis back towards straight down, on the tilt
beyond ``ik_tilt_allowance_deg`` (:func:`sims.kernels.kinematics.level_step`: position-only
IK lets the hand tilt 12-37 degrees on straight moves from home to the table, more along
longer paths). Both are clipped to the datasheet position limits of
:mod:`sims.robots.panda`. With a gripper, ``a[3] > 0`` opens each finger to
``finger_position_max`` and ``a[3] <= 0`` closes it (target 0); push trains with the
fingers closed (target 0); reach leaves the fingers alone (NaN here, None in
:func:`joint_targets`).

:func:`arm_targets_row` is the per-env maths, written once as a scalar, allocation-free
function that numba compiles for the CPU kernels, the CUDA kernel
(:mod:`sims.kernels`) and the batched :func:`action_targets` here. Where the arm then
moves is the backend's business (the numba kernels cover ``tracking_gain`` of the step).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numba.extending import register_jitable

from sims.kernels.jit import inlined
from sims.kernels.kinematics import (
    Q_MAX,
    Q_MIN,
    V_MAX,
    clip,
    dls_step,
    fk_row,
    level_step,
)
from sims.kernels.layout import ROW_DQ, ROW_TARGET, SCRATCH_SHAPE
from sims.robots import panda
from sims.tasks.base import TaskConfig

GRIPPER_NONE = 0
"""The task leaves the fingers alone (reach)."""
GRIPPER_CLOSED = 1
"""The fingers stay closed (push)."""
GRIPPER_ACTION = 2
"""The last action entry opens (> 0) or closes the fingers (pick_place)."""
FINGER_OPEN = panda.finger_position_max
FLOOR_SLACK = 1e-4
"""How far (m) a levelled Cartesian target may put the TCP below ``cartesian_z_min`` (or
below the plain step's height, when that is lower) before the step drops its levelling."""


@dataclass(frozen=True)
class ControlParams:
    """The numbers of a task's action mapping (see :meth:`from_config`)."""

    cartesian: bool
    """True: the first three actions are a TCP displacement; False: 7 joint deltas."""
    joint_scale_dt: float
    """Joint mode: ``joint_action_scale * control_dt`` (times each velocity limit)."""
    cartesian_step: float
    """Cartesian mode: TCP displacement (m) of an action of 1."""
    ik_damping: float
    """Damping (m) of the IK step."""
    z_min: float
    """Lowest commanded TCP height (m) in Cartesian mode."""
    tilt_gain: float
    """Cartesian mode: gain of the null-space step that levels the tool (0: none)."""
    tilt_sin_allowance: float
    """Cartesian mode: sine of the tilt the levelling leaves alone."""
    gripper: int
    """``GRIPPER_NONE``, ``GRIPPER_CLOSED`` or ``GRIPPER_ACTION``."""

    @classmethod
    def from_config(cls, cfg: TaskConfig) -> ControlParams:
        if cfg.action_mode not in ("joint", "cartesian"):
            raise ValueError(f"unknown action_mode {cfg.action_mode!r}")
        if cfg.has_gripper:
            gripper = GRIPPER_ACTION
        elif cfg.has_object:
            gripper = GRIPPER_CLOSED
        else:
            gripper = GRIPPER_NONE
        return cls(
            cartesian=cfg.action_mode == "cartesian",
            joint_scale_dt=cfg.joint_action_scale * cfg.control_dt,
            cartesian_step=cfg.cartesian_step_max,
            ik_damping=cfg.ik_damping,
            z_min=cfg.cartesian_z_min,
            tilt_gain=cfg.ik_tilt_gain,
            tilt_sin_allowance=cfg.ik_tilt_sin_allowance,
            gripper=gripper,
        )

    def arm_params(self) -> tuple[bool, float, float, float, float, float, float]:
        """:func:`arm_targets_row`'s parameters, in its order (after ``q, k, a``)."""
        return (
            self.cartesian,
            self.joint_scale_dt,
            self.cartesian_step,
            self.ik_damping,
            self.z_min,
            self.tilt_gain,
            self.tilt_sin_allowance,
        )


@inlined
def arm_targets_row(
    q,
    k,
    a,
    cartesian,
    joint_scale_dt,
    cartesian_step,
    damping,
    z_min,
    tilt_gain,
    sin_allowance,
    scratch,
):
    """Joint targets of ``q[k]`` (``q``: [N, >= 7], joint positions in columns 0-6) for the
    action ``a`` [A], written into ``scratch[ROW_TARGET, 0:7]`` (``scratch``:
    ``SCRATCH_SHAPE``; its kinematics rows are overwritten in Cartesian mode)."""
    if cartesian:
        tx, ty, tz, _, _, _ = fk_row(q, k, scratch)
        dx = clip(a[0], -1.0, 1.0) * cartesian_step
        dy = clip(a[1], -1.0, 1.0) * cartesian_step
        dz = max(clip(a[2], -1.0, 1.0) * cartesian_step, z_min - tz)
        dls_step(tx, ty, tz, dx, dy, dz, damping, scratch)
        if tilt_gain > 0.0:
            level_step(tilt_gain, sin_allowance, damping, scratch)
        for i in range(7):
            scratch[ROW_TARGET, i] = clip(q[k, i] + scratch[ROW_DQ, i], Q_MIN[i], Q_MAX[i])
        if tilt_gain > 0.0:
            # The levelling step moves the TCP only to second order, but a large one (a
            # tilted arm) can still carry it below the floor: then this step is the plain one.
            _, _, lz, _, _, _ = fk_row(scratch, ROW_TARGET, scratch)
            if lz < min(z_min, tz + dz) - FLOOR_SLACK:
                fk_row(q, k, scratch)
                dls_step(tx, ty, tz, dx, dy, dz, damping, scratch)
                for i in range(7):
                    scratch[ROW_TARGET, i] = clip(q[k, i] + scratch[ROW_DQ, i], Q_MIN[i], Q_MAX[i])
    else:
        for i in range(7):
            step = clip(a[i], -1.0, 1.0) * joint_scale_dt * V_MAX[i]
            scratch[ROW_TARGET, i] = clip(q[k, i] + step, Q_MIN[i], Q_MAX[i])


@register_jitable
def finger_target(a, gripper):
    """Each finger's target (m) for the action ``a``: NaN where the task leaves the
    fingers alone."""
    if gripper == GRIPPER_ACTION:
        return FINGER_OPEN if a[a.shape[0] - 1] > 0.0 else 0.0
    if gripper == GRIPPER_CLOSED:
        return 0.0
    return np.nan


@njit(cache=True)
def action_targets(q, actions, arm_params, gripper, arm, finger):
    """Batched :func:`arm_targets_row` and :func:`finger_target`: ``q`` [N, 7] and
    ``actions`` [N, A] (float64) to arm targets ``arm`` [N, 7] and finger targets
    ``finger`` [N]; ``arm_params``: :meth:`ControlParams.arm_params`."""
    cartesian, scale_dt, step, damping, z_min, tilt_gain, sin_allowance = arm_params
    scratch = np.empty(SCRATCH_SHAPE)
    for k in range(q.shape[0]):
        a = actions[k]
        arm_targets_row(
            q, k, a, cartesian, scale_dt, step, damping, z_min, tilt_gain, sin_allowance, scratch
        )
        for i in range(7):
            arm[k, i] = scratch[ROW_TARGET, i]
        finger[k] = finger_target(a, gripper)


def joint_targets(
    cfg: TaskConfig | ControlParams,
    q: np.ndarray,
    actions: np.ndarray,
    arm_out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Arm targets [N, 7] and finger targets [N] (None where the task leaves the fingers
    alone) from measured joint positions ``q`` [N, 7] and ``actions`` [N, A] (finite; the
    caller validates). ``arm_out`` [N, 7] float64 C-contiguous receives the arm targets."""
    p = cfg if isinstance(cfg, ControlParams) else ControlParams.from_config(cfg)
    q = np.ascontiguousarray(q, dtype=np.float64)
    actions = np.ascontiguousarray(actions, dtype=np.float64)
    n = q.shape[0]
    arm = np.empty((n, 7)) if arm_out is None else arm_out
    finger = np.empty(n)
    action_targets(q, actions, p.arm_params(), p.gripper, arm, finger)
    return arm, (None if p.gripper == GRIPPER_NONE else finger)


class LiftGate:
    """A grasp primitive's "lift once the fingers stop", on the command path of every env of
    a batch (``TaskConfig.lift_after_grip_threshold_m``, ``lift_after_grip_max_periods``).

    After a close command (the gripper action <= 0 after > 0, or an episode's first action
    a close) the upward z of each commanded motion is clamped to 0 (x, y and downward motion
    unchanged) until the finger opening measured at the start of a period differs from the
    one a period before by less than ``threshold_m`` (the fingers have stopped: checked from
    the first period after the close on), or for ``max_periods`` periods, the close's own
    included, so the earliest lift it lets through is ``max_periods`` periods after the
    close. Released, it stays released until the next close; an open command disarms it.
    ``threshold_m`` 0: off, actions pass unchanged (the same array)."""

    def __init__(self, num_envs: int, threshold_m: float, max_periods: int):
        threshold_m = float(threshold_m)
        if not (np.isfinite(threshold_m) and threshold_m >= 0.0):
            raise ValueError(f"lift_after_grip_threshold_m must be >= 0, got {threshold_m!r}")
        if threshold_m > 0.0 and not (float(max_periods).is_integer() and max_periods >= 1):
            raise ValueError(
                f"lift_after_grip_max_periods must be an integer >= 1, got {max_periods!r}"
            )
        self.threshold = threshold_m
        self.max_periods = int(max_periods)
        self.since = np.full(num_envs, -1, dtype=np.int64)
        """Periods since the close while the lift is held; -1: not held."""
        self.closed = np.zeros(num_envs, dtype=bool)
        """The last command closed the fingers."""
        self.last = np.full(num_envs, np.nan)
        """The opening (m) at the start of the last period."""

    @classmethod
    def from_config(cls, cfg: TaskConfig, num_envs: int) -> LiftGate | None:
        """The gate ``cfg`` asks for, or None where it is off."""
        if not cfg.lift_after_grip_threshold_m:
            return None
        if not cfg.has_gripper or cfg.action_mode != "cartesian":
            raise ValueError(
                f"lift_after_grip_threshold_m: task {cfg.name!r} has no Cartesian gripper action"
            )
        return cls(num_envs, cfg.lift_after_grip_threshold_m, cfg.lift_after_grip_max_periods)

    @property
    def on(self) -> bool:
        return self.threshold > 0.0

    def reset(self, ids=None) -> None:
        """New episodes for envs ``ids`` (None: all): nothing held, no close seen."""
        ids = slice(None) if ids is None else ids
        self.since[ids] = -1
        self.closed[ids] = False
        self.last[ids] = np.nan

    def __call__(self, actions: np.ndarray, opening: np.ndarray) -> np.ndarray:
        """This period's actions [N, A] (the gripper's last) with the lift held where the
        gate holds it (a copy where anything changes): ``opening`` [N], the fingers'
        measured opening (m) at the period's start. Advances the gate a period."""
        if not self.on:
            return actions
        opening = np.asarray(opening, dtype=np.float64)
        close = actions[:, -1] <= 0.0
        moved = ~(np.abs(opening - self.last) < self.threshold)  # NaN (no reading yet): moved
        self.last = opening.copy()
        since = np.where(close & ~self.closed, 0, np.where(self.since >= 0, self.since + 1, -1))
        since = np.where(close, since, -1)
        stopped = (since >= 1) & ~moved
        since = np.where(stopped | (since >= self.max_periods), -1, since)
        self.since, self.closed = since, close
        hold = (since >= 0) & (actions[:, 2] > 0.0)
        if not hold.any():
            return actions
        out = np.array(actions, dtype=np.float64, copy=True)
        out[hold, 2] = 0.0
        return out
