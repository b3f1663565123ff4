"""Policy actions to joint position targets, exactly as every backend maps them: a thin
wrapper of :func:`sims.control.joint_targets` for one action, with input validation.

The task contract: actions are clipped to [-1, 1]; joint mode: ``target = q + a *
joint_action_scale * velocity_limit * control_dt``; Cartesian mode: ``target = q +
dls_ik_step(q, a[:3] * cartesian_step_max, ik_damping)`` with the z displacement cut so
the TCP is never commanded below ``cartesian_z_min``; both clipped to the datasheet
position limits. With a gripper, ``a[3] > 0`` opens each finger to
``finger_position_max`` and ``a[3] <= 0`` closes it (target 0). Push trains with the
fingers closed, so its finger target is 0; reach leaves the fingers alone (None).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.control import ControlParams, joint_targets
from sims.robots import panda
from sims.tasks.base import TaskConfig


@dataclass(frozen=True)
class JointTargets:
    """Joint position targets for one control period."""

    arm: np.ndarray
    """The 7 arm joints (rad), inside the datasheet limits."""
    finger: float | None
    """Each finger's position (m), or None to leave the fingers as they are."""
    velocity: np.ndarray | None = None
    """The arm joints' velocities at the targets' time (rad/s): the targets are a point of a
    trajectory, published with them (``/miles/skill_command``'s ``velocity``) for the
    supervisor to track in time; None: a target to approach."""

    def message(self, joint_names, finger_names) -> tuple[list[str], list[float], list | None]:
        """The command's ``name``, ``position`` and ``velocity`` lists (a JointState's, a
        ``JointRequest``'s): the arm joints, then each finger at ``finger`` when it is set;
        the velocities (None for a target) are zero for the fingers."""
        names, position = list(joint_names), [float(v) for v in self.arm]
        if self.finger is not None:
            names += list(finger_names)
            position += [float(self.finger)] * len(finger_names)
        velocity = None
        if self.velocity is not None:
            velocity = [float(v) for v in self.velocity]
            velocity += [0.0] * (len(names) - len(velocity))
        return names, position, velocity


TARGET_LEAD_MAX = 0.04
"""The furthest ahead (s) skill_node stamps a learned skill's targets (its
``target_lead_max``; keep it below safety_node's ``max_request_lead``)."""


def target_lead(cfg: TaskConfig) -> float:
    """How long after the tick a skill's targets are meant to be reached (s): what skill_node
    stamps them with (capped by its ``target_lead_max``), so the supervisor approaches
    each target instead of extrapolating the stream past it.

    One control period for every learned skill: the arm covers each step during the
    period, as in training, and the command-path model of the training backends
    (:mod:`sims.robots.actuator`) shapes each period's targets as reached at its end.
    What the lead did behind the supervisor: docs/training.md, "Other measured
    effects"."""
    return float(cfg.control_dt)


def action_to_targets(cfg: TaskConfig, q_measured: np.ndarray, action: np.ndarray) -> JointTargets:
    """Joint targets from the measured arm positions [7] and one action [A] of task ``cfg``.

    Raises ValueError for a wrong action size or non-finite values (they never become a
    command).
    """
    a = np.asarray(action, dtype=np.float64).reshape(-1)
    q = np.asarray(q_measured, dtype=np.float64).reshape(-1)
    if a.shape[0] != cfg.action_dim:
        raise ValueError(f"{cfg.name}: expected {cfg.action_dim} actions, got {a.shape[0]}")
    if q.shape[0] != panda.NUM_JOINTS:
        raise ValueError(f"expected {panda.NUM_JOINTS} joint positions, got {q.shape[0]}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(q))):
        raise ValueError(f"{cfg.name}: non-finite action or joint state")
    arm, finger = joint_targets(ControlParams.from_config(cfg), q[None], a[None])
    return JointTargets(arm=arm[0], finger=None if finger is None else float(finger[0]))
