"""A skill behind the safety supervisor in PyBullet, without ROS: what the robot does when
skill_node's targets go through safety_node before the motors.

:class:`SupervisorFilter` is a PyBullet ``motor_filter`` (see
:mod:`sims.backends.pybullet.env`): at the start of each control period it submits
the period's targets as skill_node would (stamped as it stamps them, fingers included
where the skill commands them), and every 4 ms (250 Hz, safety_node's rate) it feeds the
measured state to a :class:`~miles_ros.safety.supervisor.SafetySupervisor` and sends its
command to the motors. ``miles eval SKILL --supervised`` uses it; the in-process ROS
graph gives the same picture, slower and with scheduling noise.

Training behind the supervisor: a training config names it (``env.motor_filter:
safety_supervisor``, :data:`MOTOR_FILTER`) and ``miles train`` (miles_ros) hands policies/
the factory (:data:`MOTOR_FILTERS`); policies/ never imports this module.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from miles_ros.runtime.actions import TARGET_LEAD_MAX, JointTargets, target_lead
from miles_ros.runtime.command_path import (
    SHAPE_COMMANDS,
    VELOCITY_SCALE,
    CommandPath,
    actuator_of,
)
from miles_ros.safety.config import SafetyConfig
from miles_ros.safety.supervisor import JointRequest, SafetySupervisor

SUPERVISOR_PERIOD_S = 0.004
"""safety_node's output period (250 Hz, config/safety.yaml)."""
TIME_SCALE = 4.0
"""Episode time behind the supervisor, in training episodes: skill_node's default time
budget (timeout_scale 2 x a card's timeout_s, itself 2x the episode)."""


class SupervisorFilter:
    """One env's safety supervisor between a skill's targets and PyBullet's motors."""

    def __init__(
        self,
        physics_dt: float,
        config: SafetyConfig | None = None,
        target_lead_s: float = 0.0,
        fingers: bool = True,
        command_path_dt: float = 0.0,
    ):
        """``target_lead_s``: how far ahead each period's targets are stamped (skill_node:
        :func:`~miles_ros.runtime.actions.target_lead`); ``fingers``: the targets include
        the fingers (push, pick_place); ``command_path_dt``: the skill's control period
        when its targets go through the command-path model first, as skill_node's
        ``shape_commands`` sends them (:mod:`miles_ros.runtime.command_path`: trajectory
        points with velocities); 0: the targets as they are."""
        self.config = config or SafetyConfig()
        self.fingers = fingers
        self.command_path_dt = float(command_path_dt)
        self.path: CommandPath | None = None
        self.period_substeps = max(1, round(SUPERVISOR_PERIOD_S / physics_dt))
        self.dt = self.period_substeps * physics_dt
        self.lead = float(target_lead_s)
        self.names = list(self.config.joint_names)
        self.finger_names = list(self.config.finger_joint_names)
        self.supervisor: SafetySupervisor | None = None
        self.now = 0.0
        self._totals: dict[str, int] = {}

    @property
    def stats(self) -> dict[str, int]:
        """Supervisor counts summed over episodes ('accepted', 'rejected', ...)."""
        totals = dict(self._totals)
        if self.supervisor is not None:
            for key, value in self.supervisor.stats.items():
                totals[key] = totals.get(key, 0) + int(value)
        return totals

    def reset(self, row: np.ndarray) -> None:
        """A new episode from the state row ``row`` (a fresh supervisor: nothing carries
        over between episodes)."""
        self._totals = self.stats
        self.supervisor = SafetySupervisor(self.config)
        if self.command_path_dt:
            self.path = CommandPath(
                self.command_path_dt,
                actuator_of(self.config),
                VELOCITY_SCALE,
            )
        self.now = 1.0
        self.supervisor.update_robot_state(self.names, row[0:7], row[7:14], self.now)

    def __call__(self, substep: int, row: np.ndarray, arm_target, finger_target):
        sup = self.supervisor
        if sup is None:
            raise RuntimeError("SupervisorFilter used before reset()")
        if substep == 0:  # a new control period: skill_node publishes its targets
            arm, velocity = np.asarray(arm_target, dtype=np.float64), None
            if self.path is not None:  # skill_node's shape_commands: a trajectory point
                self.path.follow(*sup.command_state())
                arm, velocity = self.path.step(arm)
            # push and pick_place command the fingers, reach does not
            finger = float(finger_target) if self.fingers else None
            names, positions, velocities = JointTargets(arm, finger, velocity).message(
                self.names, self.finger_names
            )
            request = JointRequest(names, positions, self.now + self.lead, velocities)
            sup.submit(request, self.now)
        sup.update_robot_state(self.names, row[0:7], row[7:14], self.now)
        command = sup.step(self.now)
        self.now += self.dt
        if command is None:  # no state yet: hold where the arm is
            return row[0:7], float(finger_target)
        q = np.asarray(command.positions, dtype=np.float64)
        finger = float(q[7]) if q.shape[0] > 7 else float(finger_target)
        return q[:7], finger


def pybullet_options(
    task: str,
    num_envs: int,
    task_config=None,
    safety: SafetyConfig | None = None,
    shape_commands: bool = False,
) -> dict:
    """``sims.make_env(task, "pybullet", ...)`` keyword arguments that put the safety
    supervisor between the skill's targets and the motors of each env (in this process).
    Also the factory of training runs behind the supervisor (:data:`MOTOR_FILTERS`: the
    targets as they are, as the shipped skills were trained). ``shape_commands``: the
    targets go through the command-path model first, as skill_node sends them."""
    from sims import get_task

    cfg = task_config if task_config is not None else get_task(task).CONFIG
    physics_dt = 0.002  # the PyBullet backend's default
    fingers = bool(cfg.has_gripper or cfg.has_object)
    lead = min(target_lead(cfg), TARGET_LEAD_MAX)
    path_dt = cfg.control_dt if shape_commands else 0.0
    filters = [
        SupervisorFilter(physics_dt, safety, lead, fingers, path_dt) for _ in range(num_envs)
    ]
    return {"config": cfg, "motor_filters": filters, "num_workers": 0, "physics_dt": physics_dt}


MOTOR_FILTER = "safety_supervisor"
"""The name a training config gives the supervisor (``env.motor_filter``)."""
MOTOR_FILTERS = {
    MOTOR_FILTER: pybullet_options,
    # What configs wrote before the name (earlier runs' config.yaml and checkpoints):
    # a key here, never imported by its text.
    "miles_ros.runtime.supervised:pybullet_options": pybullet_options,
}
"""The motor filters miles_ros composes into training (``policies.ppo.envs``' factories by
``env.motor_filter`` name): ``miles train`` passes these to policies/."""


def supervised_env_kwargs(
    task: str,
    num_envs: int,
    time_scale: float = TIME_SCALE,
    safety: SafetyConfig | None = None,
    shape_commands: bool = SHAPE_COMMANDS,
) -> dict:
    """:func:`pybullet_options` with ``time_scale`` x the task's episode length, the
    targets sent as skill_node sends them (``shape_commands``, its default)."""
    from sims import get_task

    if not time_scale > 0:
        raise ValueError(f"time_scale must be > 0, got {time_scale!r}")
    cfg = get_task(task).CONFIG
    cfg = replace(cfg, episode_steps=max(1, round(cfg.episode_steps * time_scale)))
    return pybullet_options(task, num_envs, cfg, safety, shape_commands)
