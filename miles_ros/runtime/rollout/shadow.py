"""Shadow mode: a candidate version of a skill runs beside the active one on every control
period of its requests, on the same observation, and its actions are never sent.

Per episode (:class:`ShadowEpisode`) it records how far the candidate's actions and joint
targets lie from the active's (L2, mean and max over the periods), the interventions the
safety supervisor would have made on the candidate's commands, and the critic's value of
both versions at the start. The supervisor's part is the supervisor itself run offline
(:class:`OfflineSupervisor`): its own :class:`~miles_ros.safety.supervisor.SafetySupervisor`,
restarted each period at the robot's command, given the candidate's targets as skill_node
would send them (through the candidate's own command-path model when the executor shapes
commands) and stepped at its rate through the outputs where it would write an
intervention (:data:`OUTPUTS_CHECKED`). The executor's command comes from
the active policy alone: the shadow reads the period's observation and targets, and
nothing it computes flows back.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np

from miles_ros.runtime.actions import TARGET_LEAD_MAX, JointTargets, action_to_targets, target_lead
from miles_ros.runtime.command_path import CommandPath
from miles_ros.runtime.library import RunnableSkill
from miles_ros.runtime.observation import JointReading
from miles_ros.safety.audit import NOT_INTERVENTIONS, AuditLog, Intervention
from miles_ros.safety.config import SafetyConfig
from miles_ros.safety.supervisor import JointRequest, SafetySupervisor
from sims.robots.actuator import ActuatorModel

OUTPUTS_CHECKED = 1
"""Supervisor outputs run per control period by default. The supervisor writes an
intervention for a request at its first output (the joints shaped or blended to a limit
and off the request's schedule, a target clipped at submission); later outputs of the
same request write only a joint found infeasible, a state its own outputs never reach.
The first output therefore finds what the supervisor would write, for one output's work
instead of the period's ten (each as costly as one of the safety node's own periods). The
restart starts the output state at the command's position and velocity with no
acceleration: the one thing of the live supervisor's state it does not copy."""


class OfflineSupervisor:
    """The safety supervisor's maths on commands that are never sent, one control period
    at a time from the robot's state (the module docstring). Its limits are ``config``'s
    (default: config/safety.yaml's, the safety node's defaults); ``outputs``: supervisor
    outputs run per period (:data:`OUTPUTS_CHECKED`; None: the whole period)."""

    def __init__(
        self,
        control_dt: float,
        skill: str,
        tags: list[str],
        config: SafetyConfig | None = None,
        outputs: int | None = OUTPUTS_CHECKED,
    ) -> None:
        cfg = dataclasses.replace(config or SafetyConfig(), audit_path="")
        self.kinds: Counter[str] = Counter()
        """Interventions by kind, over every period checked."""
        audit = AuditLog(None)
        audit.listeners.append(self._count)
        self.supervisor = SafetySupervisor(cfg, audit)
        period_outputs = max(1, round(control_dt * cfg.rate_hz))
        self.substeps = period_outputs if outputs is None else min(outputs, period_outputs)
        self.h = 1.0 / cfg.rate_hz
        self.names = tuple(cfg.joint_names)
        self.finger_names = tuple(cfg.finger_joint_names)
        self.skill, self.tags = skill, list(tags)
        self._skill_set = False

    def _count(self, event: Intervention, _line: str) -> None:
        if event.kind not in NOT_INTERVENTIONS:
            self.kinds[event.kind] += 1

    def check(
        self,
        joints: JointReading,
        command: tuple[np.ndarray, np.ndarray],
        targets: JointTargets,
        lead_s: float,
        now: float,
    ) -> int:
        """The interventions the supervisor would make on ``targets`` (stamped ``lead_s``
        after ``now``) in one control period, from the measured ``joints`` and the robot's
        ``command`` (q, velocity)."""
        sup = self.supervisor
        half = joints.finger_width / 2.0
        sup.update_robot_state(
            self.names + self.finger_names,
            [*joints.arm_pos, half, half],
            [*joints.arm_vel, 0.0, 0.0],
            now,
        )
        if not self._skill_set:
            sup.set_skill(self.skill, self.tags, now)
            self._skill_set = True
        sup.restart_at(command[0], command[1], now)
        before = sup.audit.count
        names, positions, velocity = targets.message(self.names, self.finger_names)
        sup.submit(JointRequest(names, positions, now + lead_s, velocity), now)
        for k in range(1, self.substeps + 1):
            sup.step(now + k * self.h)
        return sup.audit.count - before


class ShadowEpisode:
    """One request's shadow: the candidate beside the active version (module docstring)."""

    def __init__(
        self,
        candidate: RunnableSkill,
        shape_commands: bool,
        velocity_scale: float,
        safety: SafetyConfig | None = None,
        actuator: ActuatorModel | None = None,
    ) -> None:
        """``actuator``: the command-path model the executor shapes with (default:
        config/safety.yaml's, read from the file: pass it to keep file reads out of the
        control period)."""
        self.candidate = candidate
        self.actuator = actuator
        self.shape_commands = bool(shape_commands)
        self.velocity_scale = float(velocity_scale)
        self.safety = safety
        self.periods = 0
        self.action_l2: list[float] = []
        self.target_l2: list[float] = []
        self.interventions = 0
        self.value_candidate: float | None = None
        self.value_active: float | None = None
        self.error = ""
        """Why the shadow stopped (the candidate raised); "" while it runs."""
        self._offline: OfflineSupervisor | None = None
        self._path: CommandPath | None = None

    def period(
        self,
        active: RunnableSkill,
        obs: np.ndarray,
        action: np.ndarray,
        targets: JointTargets,
        joints: JointReading,
        command: tuple[np.ndarray, np.ndarray],
        now: float,
    ) -> None:
        """One control period: the active version's observation, action and (unshaped)
        targets from the measured ``joints``; the robot's ``command`` (q, velocity)."""
        if self.error:
            return
        try:
            self._period(active, obs, action, targets, joints, command, now)
        except Exception as exc:  # noqa: BLE001 - a candidate's failure never reaches the command
            self.error = f"{type(exc).__name__}: {exc}"

    def _period(self, active, obs, action, targets, joints, command, now) -> None:
        cand = self.candidate
        if self.value_candidate is None:
            self.value_candidate = float(cand.policy.value(obs))
            self.value_active = float(active.policy.value(obs))
        cand_action = cand.policy.act(obs)
        cand_targets = action_to_targets(cand.cfg, joints.arm_pos, cand_action)
        self.action_l2.append(float(np.linalg.norm(cand_action - action)))
        self.target_l2.append(float(np.linalg.norm(cand_targets.arm - targets.arm)))
        if self.shape_commands:  # as the executor would send them
            if self._path is None:
                dt, scale = cand.cfg.control_dt, self.velocity_scale
                self._path = CommandPath(dt, self.actuator, velocity_scale=scale)
            self._path.follow(*command)
            arm, velocity = self._path.step(cand_targets.arm)
            cand_targets = JointTargets(arm, cand_targets.finger, velocity)
        if self._offline is None:
            self._offline = OfflineSupervisor(
                cand.cfg.control_dt, active.name, active.permissions, self.safety
            )
        lead = min(target_lead(cand.cfg), TARGET_LEAD_MAX)
        self.interventions += self._offline.check(joints, command, cand_targets, lead, now)
        self.periods += 1

    def record(self) -> dict:
        """The episode's record (the final status's ``shadow``)."""
        out: dict = {
            "candidate": str(self.candidate.card.directory),
            "periods": self.periods,
            "action_l2_mean": _mean(self.action_l2),
            "action_l2_max": _max(self.action_l2),
            "target_l2_mean": _mean(self.target_l2),
            "target_l2_max": _max(self.target_l2),
            "interventions": self.interventions,
            "interventions_by_kind": dict(self._offline.kinds) if self._offline else {},
            "value_candidate": _rounded(self.value_candidate),
            "value_active": _rounded(self.value_active),
        }
        if self.error:
            out["error"] = self.error
        return out


def _rounded(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 6)


def _mean(values: list[float]) -> float | None:
    return _rounded(float(np.mean(values))) if values else None


def _max(values: list[float]) -> float | None:
    return _rounded(max(values)) if values else None
