"""Helpers of the rollout tests: stand-in policies and a simulated arm that follows the
executor's commands exactly."""

from __future__ import annotations

import dataclasses

import numpy as np

from miles_ros.interfaces import FINAL_SKILL_STATES
from miles_ros.runtime.library import RunnableSkill
from miles_ros.runtime.observation import JointReading


class FixedPolicy:
    """Always the same action (and critic value)."""

    def __init__(self, action, value: float = 0.0):
        self.action = np.asarray(action, dtype=np.float32)
        self._value = float(value)

    def act(self, obs):
        return self.action.copy()

    def value(self, obs):
        return self._value


class MirroredPolicy:
    """Another policy's actions, negated: a broken candidate."""

    def __init__(self, inner):
        self.inner = inner

    def act(self, obs):
        return -self.inner.act(obs)

    def value(self, obs):
        return self.inner.value(obs)


def with_policy(skill: RunnableSkill, policy) -> RunnableSkill:
    """``skill`` (its card and task) acting with ``policy``."""
    return dataclasses.replace(skill, policy=policy)


def drive(ex, t: float, periods: int, dt: float = 0.04) -> tuple[list[dict], list, float]:
    """Tick ``ex`` every ``dt`` from ``t`` until a final status or ``periods`` periods; the
    arm is where each command puts it. Returns (statuses, targets, time after)."""
    statuses, targets = [], []
    for _ in range(periods):
        result = ex.tick(t)
        statuses += result.statuses
        targets.append(result.targets)
        joints = ex.joints
        t += dt
        if result.targets is not None:  # the command reached at the period's end
            q = np.array(result.targets.arm, dtype=np.float64)
            v = result.targets.velocity
            v = np.zeros(7) if v is None else np.array(v, dtype=np.float64)
            finger = joints.finger_width
            if result.targets.finger is not None:
                finger = 2.0 * result.targets.finger
            joints = JointReading(q, v, finger, t)
            ex.on_command(q, t)
        ex.on_joint_state(JointReading(joints.arm_pos, joints.arm_vel, joints.finger_width, t), t)
        if any(s["state"] in FINAL_SKILL_STATES for s in result.statuses):
            break
    return statuses, targets, t
