"""An arm's contract-net bidder (no ROS): announcement in, bid or refusal out.

Each arm of a cell runs one :class:`ArmAgent` (hosted by ``arm_agent_node``). For an
announced task (:class:`miles_ros.agent.contract_net.Announce`) it answers:

- a refusal with its reason when the skill is unknown to the arm, its parameters do not
  resolve, or the task lies outside the skill card's envelope **in this arm's base frame**
  (object and goal positions come in the world frame and are moved by
  :func:`miles_ros.runtime.frames.world_to_base`; the same check the skill node makes
  before any motion, :meth:`policies.cards.SkillCard.envelope_violations`);
- otherwise a cost: the estimated seconds until the arm would have finished the task,
  i.e. the time left on its queue plus a distance-based estimate of the task from where
  the arm will be when it starts (its TCP now, or the end of its last queued task):
  ``overhead(skill) + path_length / tcp_speed`` (:class:`CostModel`). The skill critics'
  values are not used: only the ONNX actors ship with every skill, and the critic's value
  estimates a return, not a time.

The agent keeps its own queue of awarded tasks (:meth:`ArmAgent.accept`,
:meth:`ArmAgent.done`) so later bids include the work it already holds.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from miles_ros.agent.contract_net import Announce, Award, Bid, Contractor
from miles_ros.runtime.frames import world_to_base
from miles_ros.runtime.goals import GoalError, goal_from_positions
from sims.robots import panda
from sims.scene import ArmMount

LOG = logging.getLogger("miles_ros.agent.arm_agent")

HOME_TCP = np.asarray(panda.fk_tcp(panda.home_joint_positions), dtype=np.float64)
"""The TCP at the home pose (m, the arm's base frame): where every skill starts."""


@dataclass(frozen=True)
class CostModel:
    """The distance-based time estimate of one task (s)."""

    tcp_speed: float = 0.15
    """Mean TCP speed (m/s) of the shipped skills along their path."""
    overhead_s: Mapping[str, float] = field(
        default_factory=lambda: {"reach": 1.0, "push": 2.0, "pick_place": 3.0, "home": 2.0}
    )
    """Fixed time per skill (s): settling, grasping and releasing."""
    default_overhead_s: float = 2.0
    """Overhead of a skill not in ``overhead_s``."""
    retry_penalty_s: float = 10.0
    """Added to a re-announced task's cost by the arm whose run of it failed (the
    feedback names that arm), so another arm that can do it gets it."""

    reach_comfort_m: float = 0.55
    """Horizontal distance from the arm's base beyond which a cube or goal counts as far
    (the shipped skills are slower and fail more there: 6/10 vs 10/10 in bench/multi.py
    for the far cube of config/scene_dual.yaml)."""
    home_tolerance_m: float = 0.05
    """A learned skill starts from home (the skill node moves the arm home first,
    ``start_from_home``) when the TCP would start further than this from its home
    position (m): the estimate then adds that home move."""
    reach_s_per_m: float = 2.0
    """Added seconds per metre a cube or goal lies beyond ``reach_comfort_m``: of two
    arms equally far along the path, the one with the task nearer its base wins."""

    def estimate(self, skill: str, start, obj, goal) -> float:
        """Seconds for ``skill`` from the TCP at ``start`` via the cube at ``obj`` (None for
        reach/home) to ``goal`` (all m, the arm's base frame)."""
        path = far = 0.0
        here = np.asarray(start, dtype=np.float64)
        for point in (obj, goal):
            if point is not None:
                point = np.asarray(point, dtype=np.float64)
                path += float(np.linalg.norm(point - here))
                far += max(0.0, float(np.linalg.norm(point[:2])) - self.reach_comfort_m)
                here = point
        overhead = self.overhead_s.get(skill, self.default_overhead_s)
        return overhead + path / self.tcp_speed + far * self.reach_s_per_m


@dataclass
class _Queued:
    task_id: str
    seconds: float
    end: np.ndarray
    started: float | None = None


class ArmAgent:
    """One arm's bidder and its queue of awarded tasks."""

    def __init__(
        self,
        arm: str,
        mount: ArmMount,
        cards: Mapping[str, object],
        places: Mapping[str, Sequence[float]],
        cost: CostModel | None = None,
    ) -> None:
        """``cards``: skill name -> its card (``task``, ``envelope_violations``) or None
        for a scripted skill without a goal (``home``); ``places``: pad centres in the
        world frame (m)."""
        self.arm = arm
        self.mount = mount
        self.cards = dict(cards)
        self.places = {k: world_to_base(mount, v) for k, v in places.items()}
        self.cost = cost or CostModel()
        self.contractor = Contractor(arm)
        self.objects: dict[str, np.ndarray] = {}
        """Cube centres in this arm's base frame (m), from the world-frame poses."""
        self.tcp = HOME_TCP.copy()
        """The TCP in the base frame (m): home until the first joint state."""
        self.queue: list[_Queued] = []

    # --- state --------------------------------------------------------------------------
    def on_objects(self, world_positions: Mapping[str, Sequence[float]]) -> None:
        """Cube centres in the world frame (``/miles/scene/objects``)."""
        self.objects = {k: world_to_base(self.mount, v) for k, v in world_positions.items()}

    def on_joints(self, arm_positions: Sequence[float]) -> None:
        """The arm's 7 joint positions (rad)."""
        self.tcp = np.asarray(panda.fk_tcp(np.asarray(arm_positions, dtype=np.float64)))

    def queue_seconds(self, now: float) -> float:
        """Estimated seconds of work left on the queue."""
        total = 0.0
        for item in self.queue:
            left = item.seconds
            if item.started is not None:
                left = max(0.5, item.seconds - (now - item.started))
            total += left
        return total

    # --- contract net -------------------------------------------------------------------
    def on_announce(self, message: str | Announce, now: float) -> Bid | None:
        """The bid (or refusal) for an announcement; None when the announcement is refused
        (malformed or past its deadline: logged by the contractor)."""
        ann = self.contractor.receive_announce(message, now)
        if ann is None:
            return None
        why, seconds = self.evaluate(ann.skill, ann.params)
        if why:
            return self.contractor.bid(ann.task_id, now, refusal=why)
        total = self.queue_seconds(now) + seconds
        if ann.feedback.startswith(f"{self.arm}:"):
            total += self.cost.retry_penalty_s
        return self.contractor.bid(ann.task_id, now, cost=total, finish_time=now + total)

    def evaluate(self, skill: str, params: Mapping) -> tuple[str, float]:
        """``(refusal reason, "")`` or ``("", estimated seconds)`` for one task, from where
        the arm will be once its queue is done."""
        if skill not in self.cards:
            return f"no skill {skill!r} (has {', '.join(sorted(self.cards))})", 0.0
        start = self.queue[-1].end if self.queue else self.tcp
        card = self.cards[skill]
        if card is None or getattr(card, "task", None) is None:
            return "", self.cost.estimate(skill, start, None, HOME_TCP)
        try:
            goal = goal_from_positions(str(card.task), params, self.objects, self.places)
        except GoalError as exc:
            return str(exc), 0.0
        obj = self.objects[goal.object_name] if goal.object_name else None
        violations = card.envelope_violations(obj, goal.goal_pos, goal.turn_deg)
        if violations:
            return "out of reach: " + "; ".join(violations), 0.0
        lead_in = 0.0  # the skill node homes first where the arm stands away from home
        if float(np.linalg.norm(np.asarray(start) - HOME_TCP)) > self.cost.home_tolerance_m:
            lead_in = self.cost.estimate("home", start, None, HOME_TCP)
            start = HOME_TCP
        return "", lead_in + self.cost.estimate(skill, start, obj, goal.goal_pos)

    def on_award(self, message: str | Award, now: float) -> Award | None:
        """An award for this arm (queued), else None (another arm's, or refused)."""
        award = self.contractor.receive_award(message, now)
        if award is None:
            return None
        ann = self.contractor.announced[award.task_id]
        _, seconds = self.evaluate(ann.skill, ann.params)
        end = self._end_point(ann)
        self.queue.append(_Queued(award.task_id, seconds, end))
        return award

    def started(self, task_id: str, now: float) -> None:
        """The queued task began running."""
        for item in self.queue:
            if item.task_id == task_id:
                item.started = now

    def done(self, task_id: str) -> None:
        """The task ended (either way): off the queue."""
        self.queue = [q for q in self.queue if q.task_id != task_id]

    def _end_point(self, ann: Announce) -> np.ndarray:
        card = self.cards.get(ann.skill)
        if card is None or getattr(card, "task", None) is None:
            return HOME_TCP.copy()
        try:
            goal = goal_from_positions(str(card.task), ann.params, self.objects, self.places)
        except GoalError:
            return self.tcp
        return np.asarray(goal.goal_pos, dtype=np.float64)


def cards_from_registry(registry) -> dict[str, object]:
    """skill name -> card for :class:`ArmAgent` (None for scripted skills without a task)."""
    out: dict[str, object] = {}
    for skill in registry:
        task = getattr(skill.card, "task", None)
        out[skill.name] = skill.card if task else None
    return out
