"""The skill executor's home moves (:mod:`miles_ros.runtime.skills`), period by period:
the scripted ``home`` skill, and a learned skill's lead-in.

A learned skill was trained from the home pose (every joint within its task's
``initial_joint_noise``, the fingers at its ``INITIAL_FINGER_WIDTH``); where the arm stands
further away (after an earlier task, :func:`away_from_start`), it is outside every state
the policy saw and the policy may hover until its timeout. With ``start_from_home`` (the
executor's default) the scripted home move runs first, setting the fingers to that width
(``running`` statuses with ``"phase": "home"``, within the home move's own time budget,
:meth:`HomeMove.timeout`), then the skill, with its whole budget from there.

A move follows :mod:`miles_ros.runtime.homing`'s path (a brake first when the robot's
command still moves), and is planned again from the command when the command has fallen
:data:`HOME_REPLAN_TOLERANCE` behind it (:meth:`HomeMove.parted`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from miles_ros.runtime.actions import JointTargets
from miles_ros.runtime.command_path import RobotCommand
from miles_ros.runtime.execution import Execution
from miles_ros.runtime.homing import home_path, home_point, path_duration, plan_home
from miles_ros.runtime.library import FINGER_START_TOLERANCE, RunnableSkill, start_width
from miles_ros.runtime.observation import JointReading
from sims.robots import panda

HOME_REPLAN_TOLERANCE = 0.05
"""rad: a home move whose command has fallen this far from it (the safety node stopped or
held the arm, or this node got no CPU for a while) is planned again from the command. Less
and a supervisor that merely slows the arm (near a zone) would restart it over and over."""


def away_from_start(skill: RunnableSkill, joints: JointReading | None) -> bool:
    """Whether the arm (``joints``) stands outside the start states ``skill`` was trained
    from: some joint further from home than the task's ``initial_joint_noise`` (rad), or
    the fingers further than :data:`FINGER_START_TOLERANCE` from the width its episodes
    start with (push: closed, pick_place: open)."""
    if joints is None or skill.cfg is None:
        return False
    noise = skill.cfg.randomization.initial_joint_noise
    if np.max(np.abs(joints.arm_pos - panda.home_joint_positions)) > noise:
        return True
    width = start_width(skill)
    return width is not None and abs(joints.finger_width - width) > FINGER_START_TOLERANCE


@dataclass(frozen=True)
class HomeMove:
    """How the executor moves home (its parameters of these names, ``home_`` before
    each)."""

    speed: float
    """The fastest joint's peak speed (rad/s)."""
    min_height: float
    """The TCP's lowest height along the path (m, :func:`~miles_ros.runtime.homing.
    home_path`)."""
    settle_speed: float
    """Home is reached with every joint slower than this (rad/s); a command faster than it
    is braked first."""
    tolerance: float
    """Home is reached with every joint this near (rad) the home pose: settled, so its
    last targets leave no stream to extrapolate."""

    def timeout(self, q: np.ndarray | None) -> float:
        """The budget (s) of a move home from ``q`` (None: from home)."""
        q = panda.home_joint_positions if q is None else q
        path = home_path(q, min_height=self.min_height)
        return 1.5 * path_duration(path, self.speed) + 3.0

    def parted(self, run: Execution, command: RobotCommand) -> bool:
        """Whether the robot's latest command is further than :data:`HOME_REPLAN_TOLERANCE`
        from ``run``'s home move at that command's time: the move is then planned again
        from the command."""
        if command.q is None or command.time < run.path_started:
            return False
        elapsed = command.time - run.path_started
        planned, _ = home_point(run.brake, run.path, self.speed, elapsed)
        return float(np.max(np.abs(planned - command.q))) > HOME_REPLAN_TOLERANCE

    def period(
        self, run: Execution, joints: JointReading, command: RobotCommand, now: float
    ) -> tuple[JointTargets, float, float] | None:
        """(targets, distance to home (rad, the largest joint's), lead s) of ``run``'s home
        move at ``now``; None when the arm is home, settled, with a lead-in's fingers at the
        skill's start width."""
        q = joints.arm_pos
        distance = float(np.max(np.abs(panda.home_joint_positions - q)))
        speed = float(np.max(np.abs(joints.arm_vel)))
        finger, fingers_ready = None, True
        if run.homing:  # a learned skill's lead-in: its fingers go to their start width too
            width = start_width(run.skill)
            if width is not None:
                finger = width / 2.0
                fingers_ready = abs(joints.finger_width - width) <= FINGER_START_TOLERANCE
        if distance < self.tolerance and speed < self.settle_speed and fingers_ready:
            return None
        if run.path is None or self.parted(run, command):
            moving = command.moving(now, self.settle_speed)
            run.brake, run.path = plan_home(q, moving, self.min_height)
            run.path_started = now
        # Where the move is one period ahead of the clock (so the first target already
        # moves), stamped for that time.
        lead = 1.0 / run.skill.control_rate_hz
        target, velocity = home_point(
            run.brake, run.path, self.speed, now - run.path_started + lead
        )
        return JointTargets(target, finger, velocity), distance, lead
