"""What the skill executor (:mod:`miles_ros.runtime.skills`) keeps and returns per
request, without the state machine: a running request (:class:`Execution`, with the
statuses it reports and its stall watchdog), one control period's output
(:class:`TickResult`), the ``/miles/skill/status`` JSON (:func:`status`) and the distance a
skill's progress is measured by (:func:`goal_distance`). Its states are
:data:`miles_ros.interfaces.SKILL_STATES`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from miles_ros.interfaces import RUNNING, SKILL_RETURN, SKILL_VERSION
from miles_ros.runtime.actions import JointTargets
from miles_ros.runtime.command_path import CommandPath
from miles_ros.runtime.goals import Goal
from miles_ros.runtime.library import RunnableSkill
from sims.tasks import turn
from sims.tasks.push import CUBE_SIZE


@dataclass
class Execution:
    """One accepted request while it runs."""

    request_id: str
    """The request's id."""
    skill: RunnableSkill
    """What runs."""
    params: dict
    """The validated params."""
    goal: Goal | None
    """Resolved goal (None for ``home``)."""
    started: float
    """Start time (s, the executor's clock)."""
    timeout_s: float
    """Budget for this run (s)."""
    steps: int = 0
    """Control periods run."""
    initial_distance: float | None = None
    """Distance to the goal at the first period (for progress)."""
    progress: float = 0.0
    """Last reported progress in [0, 1]."""
    path: np.ndarray | None = None
    """The scripted home move's waypoints [M, 7] from where it starts
    (:func:`~miles_ros.runtime.homing.home_path`)."""
    path_started: float = 0.0
    """When the home move (brake and path) was planned (s, the executor's clock)."""
    brake: tuple[np.ndarray, np.ndarray, float] | None = None
    """The home move's opening brake (commanded q, commanded velocity, duration s) when the
    arm was still moving (:func:`~miles_ros.runtime.homing.brake_target`); None: at rest."""
    homing: bool = False
    """A learned skill's lead-in: the arm stood away from the skill's start states, so the
    scripted home move runs first (:attr:`SkillExecutor.start_from_home`)."""
    restarts: int = 0
    """Times a stalled policy was sent home and started again."""
    skill_periods: int = 0
    """Control periods of the skill's own phase over the whole request (home moves left
    out, stall restarts counted on): the drift monitor's ``steps``."""
    policy_periods: int = 0
    """Control periods whose targets the policy computed, over the whole request."""
    arm_step_sum: float = 0.0
    """Sum over those periods of the L2 norm of the arm's commanded joint step (targets
    minus measured positions, rad, before command shaping): over ``policy_periods``, the
    drift monitor's ``action``."""
    stall_ref: tuple[float, np.ndarray, float] | None = None
    """(time, TCP, goal distance) when the skill last made progress (the stall watchdog)."""
    command_path: CommandPath | None = None
    """The learned skill's command-path model (:mod:`miles_ros.runtime.command_path`), made
    at its first period when the executor shapes commands."""
    lift_gate: Any = None
    """The card's lift held until the fingers stop (:class:`sims.control.LiftGate`), made at
    the policy's first period where the card turns it on."""
    release_q: np.ndarray | None = None
    """Arm pose held while a gripper skill's fingers open after its goal is met (the skill
    ends released, so the next move does not carry the cube away); None otherwise."""
    episode_return: float | None = None
    """The task's dense reward summed over the control periods that followed an action of
    the policy (the reward each action earned); None until the policy first acts."""
    policy_acted: bool = False
    """Whether the last control period's targets came from the policy (so this period's
    reward is the policy's): false at the start and after a home move."""
    rollout: Any = None
    """The request's :class:`~miles_ros.runtime.rollout.RequestRollout` (the version that
    runs it, its shadow, a fallback), or None when no candidate rolls out for its skill."""

    def running_status(self, distance: float, now: float) -> dict:
        """This period's ``running`` status at ``distance`` from the goal (the progress
        is the share of the first period's distance covered); counts the period."""
        self.steps += 1
        if not self.homing:
            self.skill_periods += 1
        if self.initial_distance is None:
            self.initial_distance = max(distance, 1e-9)
        self.progress = float(np.clip(1.0 - distance / self.initial_distance, 0.0, 1.0))
        out = status(self.request_id, self.skill.name, RUNNING, self.progress, "")
        out.update(
            step=self.steps, elapsed_s=round(now - self.started, 4), distance=round(distance, 5)
        )
        return out

    def final_status(
        self, state: str, reason: str, now: float, progress: float | None = None
    ) -> dict:
        """The request's last status, ``state`` (the last progress unless ``progress``),
        with its return and, for a learned skill, the version that ran it."""
        out = status(
            self.request_id,
            self.skill.name,
            state,
            self.progress if progress is None else progress,
            reason,
        )
        out.update(step=self.steps, elapsed_s=round(now - self.started, 4))
        if self.episode_return is not None:
            out[SKILL_RETURN] = round(self.episode_return, 6)
        if self.skill.task is not None:
            out[SKILL_VERSION] = self.skill.card.version
        return out

    def stalled(self, tcp, distance: float, now: float, window_s: float, motion: float) -> bool:
        """The stall watchdog: whether the TCP has not moved and the goal has come no nearer
        by ``motion`` for ``window_s`` (> 0) s; progress resets its reference."""
        ref = self.stall_ref
        if (
            ref is None
            or float(np.linalg.norm(tcp - ref[1])) > motion
            or ref[2] - distance > motion
        ):
            self.stall_ref = (now, np.array(tcp, dtype=np.float64), distance)
            return False
        return now - ref[0] >= window_s

    def restart(self, skill: RunnableSkill, homing: bool, timeout_s: float, now: float) -> None:
        """Run on with ``skill`` from ``now`` (a candidate's fallback), with a fresh budget
        ``timeout_s``: no move, command path, release, stall reference or return carried
        over."""
        self.skill, self.homing, self.timeout_s = skill, homing, timeout_s
        self.started, self.restarts, self.progress, self.initial_distance = now, 0, 0.0, None
        self.path = self.command_path = self.release_q = self.stall_ref = None
        self.lift_gate = None
        self.episode_return, self.policy_acted = None, False

    def measures(self) -> dict[str, float | None]:
        """What the request measured of itself, for the drift monitor's signal
        (:data:`~miles_ros.runtime.rollout.drift.SIGNALS`)."""
        action = self.arm_step_sum / self.policy_periods if self.policy_periods else None
        return {"action": action, "steps": self.skill_periods, "return": self.episode_return}


@dataclass
class TickResult:
    """What one control period produced."""

    targets: JointTargets | None = None
    """Joint targets to publish on ``/miles/skill_command`` (None: publish nothing)."""
    statuses: list[dict] = field(default_factory=list)
    """Status JSON objects to publish, in order."""
    lead_s: float = 0.0
    """When the targets are meant to be reached, in seconds after the tick
    (:func:`~miles_ros.runtime.actions.target_lead`: a learned skill's control period;
    home's targets are its trajectory one control period after the tick, stamped so)."""


def goal_distance(task: str, state) -> float:
    """The distance a skill's progress is measured by (m): reach, TCP to target; push,
    the cube's xy to the goal's; pick_place, the cube to the goal; turn, the cube's xy to
    the goal's plus the arc its face centres still have to travel (half an edge times the
    wrapped yaw error, :func:`sims.tasks.turn.quarter_wrap`)."""
    if task == "reach":
        return float(np.linalg.norm(state.tcp_pos[0] - state.goal_pos[0]))
    if task in ("push", "turn"):
        xy = float(np.linalg.norm(state.object_pos[0, :2] - state.goal_pos[0, :2]))
        if task == "push" or state.goal_yaw is None:
            return xy
        error = float(turn.quarter_wrap(state.goal_yaw[0] - state.object_yaw[0]))
        return xy + CUBE_SIZE / 2 * abs(error)
    return float(np.linalg.norm(state.object_pos[0] - state.goal_pos[0]))


def status(rid: str, skill: str, state: str, progress: float, reason: str) -> dict:
    """A ``/miles/skill/status`` JSON object."""
    return {
        "id": rid,
        "skill": skill,
        "state": state,
        "progress": round(float(progress), 4),
        "reason": reason,
    }
