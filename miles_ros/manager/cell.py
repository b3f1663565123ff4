"""The manager of a cell of several arms (no ROS): a goal -> planned steps -> contract net.

:class:`CellDriver` is what ``manager_node`` drives when its scene lists several arms (a
single-arm scene keeps :class:`miles_ros.manager.glue.ManagerDriver`; it never
announces). A goal is planned as today (the planner's steps, on a worker thread so bids
and statuses keep flowing), then run by a :class:`miles_ros.agent.dispatch.Dispatcher`:
each step announced on ``/miles/tasks/announce``, awarded on ``/miles/tasks/award``,
requested on ``/<arm>/miles/skill/request``; a failed task is re-announced with the
failure as feedback; a task nobody can do fails the goal with the reasons. Claims on cubes
go through one :class:`miles_ros.agent.blackboard.Blackboard` shared by the goals.

The planner plans in the world frame of the cell, where the cards' envelopes (trained in
an arm's base frame) do not apply: :func:`cell_registry` drops them from the planner's
cards, and reachability is each arm's to judge in its bid (in its own base frame).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from miles_ros.agent.blackboard import Blackboard
from miles_ros.agent.dispatch import CELL_CLEARANCE, Dispatcher, Send
from miles_ros.interfaces import (
    FAILED,
    IDLE,
    NEEDS_CLARIFICATION,
    PLANNING,
    REFUSED,
    RUNNING,
)

LOG = logging.getLogger("miles_ros.manager.cell")


def cell_registry(registry):
    """The planner's registry with every card's envelope dropped (see the module text)."""
    from miles_ros.agent.registry import SkillRegistry

    skills = []
    for skill in registry:
        card = skill.card
        if getattr(card, "envelope", None) is not None:
            card = dataclasses.replace(card, envelope=None)
        skills.append(dataclasses.replace(skill, card=card))
    return SkillRegistry(skills)


class CellDriver:
    """One goal at a time over the arms of a cell; thread-safe."""

    def __init__(
        self,
        arms: Sequence[str],
        cubes: Sequence[str],
        planner,
        send: Callable[[Send], None],
        send_status: Callable[[dict], None],
        bid_window: float = 0.5,
        max_rounds: int = 3,
        clock: Callable[[], float] = time.monotonic,
        award_gap: float = 0.1,
        where: Mapping[str, Sequence[float]] | None = None,
        clearance: float = CELL_CLEARANCE,
        bodies: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    ) -> None:
        """``send`` publishes a dispatcher message (announce, award, or an arm's request);
        ``send_status`` the ``/miles/manager/status`` JSON; ``where`` (the cubes' and
        places' world x/y), ``clearance`` and ``bodies`` (arm -> base and home TCP x/y,
        :func:`miles_ros.runtime.frames.arm_bodies`): the dispatcher's shared-space rule."""
        self.where, self.clearance = dict(where or {}), clearance
        self.bodies = dict(bodies or {})
        self.arms, self.cubes = tuple(arms), tuple(cubes)
        self.planner = planner
        self.send, self.send_status = send, send_status
        self.bid_window, self.max_rounds, self.award_gap = bid_window, max_rounds, award_gap
        self.clock = clock
        self.blackboard = Blackboard(clock)
        self.dispatcher: Dispatcher | None = None
        self.goal = ""
        self.plan: list[dict] = []
        self.planning = False
        self._lock = threading.RLock()
        self._threads: list[threading.Thread] = []
        self._reported = False
        self.goals_received = 0
        """Goals received so far; each goal's ``goal_seq`` (as the single-arm manager)."""
        self.goal_seq = 0
        """The ``goal_seq`` of the goal being planned or run (0: none yet)."""

    def start(self) -> None:
        """Publish the idle status (the planner is built before the driver): on the
        reliable + transient-local status topic a ``miles goal`` started later sees the
        manager at once, as it sees the single-arm manager's."""
        self.send_status({**self._base(), "goal": None, "outcome": IDLE, "event": "started"})

    # --- inputs ------------------------------------------------------------------------
    def on_goal(self, text: str) -> bool:
        """Plan and run ``text``; False (and a status saying why) while a goal runs."""
        text = " ".join(text.split())
        with self._lock:
            self.goals_received += 1
            busy = self.planning or (
                self.dispatcher is not None and self.dispatcher.outcome == RUNNING
            )
            if busy:
                # as the single-arm manager: the refusal carries the refused goal's own
                # goal_seq (so `miles goal` matches it), then the running goal's status
                # is published again so it stays the latest
                reason = f"busy with goal {self.goal!r}"
                LOG.warning("goal %r refused: %s", text, reason)
                refusal = {"goal": text, "outcome": REFUSED, "event": "refused"}
                self.send_status(
                    {**self._base(), **refusal, "goal_seq": self.goals_received,
                     "failure": "busy", "reason": reason}
                )  # fmt: skip
                self._publish({})
                return False
            self.planning, self.goal, self.dispatcher, self.plan = True, text, None, []
            self.goal_seq = self.goals_received
            self._reported = False
        self._publish({"event": "planning", "outcome": PLANNING})
        thread = threading.Thread(target=self._plan, args=(text,), daemon=True)
        self._threads.append(thread)
        thread.start()
        return True

    def on_bid(self, text: str) -> None:
        with self._lock:
            if self.dispatcher is not None:
                self._emit(self.dispatcher.on_bid(text, self.clock()))

    def on_skill_status(self, arm: str, status: dict) -> None:
        with self._lock:
            if self.dispatcher is not None:
                self._emit(self.dispatcher.on_status(arm, status, self.clock()))

    def tick(self) -> None:
        with self._lock:
            if self.dispatcher is not None:
                self._emit(self.dispatcher.tick(self.clock()))

    def close(self, timeout: float = 5.0) -> None:
        for thread in self._threads:
            thread.join(timeout)

    # --- internals ---------------------------------------------------------------------
    def _plan(self, text: str) -> None:
        try:
            plan = self.planner.plan(text)
        except Exception as exc:  # a planner crash fails the goal, not the node
            LOG.exception("cell manager: planning failed")
            self._end_planning(FAILED, f"planning failed: {exc}")
            return
        steps = [(s.skill, dict(s.params)) for s in plan.steps]
        if plan.clarification is not None:
            question = plan.clarification.question
            self._end_planning(NEEDS_CLARIFICATION, question, plan.trace_id)
            return
        if plan.refused or not plan.valid:
            why = plan.reason if plan.refused else "; ".join(plan.errors)
            self._end_planning(REFUSED if plan.refused else FAILED, why, plan.trace_id)
            return
        try:
            self._dispatch(plan.trace_id, steps)
        except Exception as exc:  # a dispatch that cannot start fails the goal, not the node
            LOG.exception("cell manager: the plan could not be dispatched")
            with self._lock:
                self.dispatcher = None
            self._end_planning(FAILED, f"dispatch failed: {exc}", plan.trace_id)

    def _dispatch(self, trace_id: str, steps: list) -> None:
        with self._lock:
            self.planning = False
            self.plan = [{"skill": s, "params": p} for s, p in steps]
            self.dispatcher = Dispatcher(
                self.arms,
                trace_id,
                steps,
                self.cubes,
                self.blackboard,
                self.bid_window,
                self.max_rounds,
                award_gap=self.award_gap,
                where=self.where,
                clearance=self.clearance,
                bodies=self.bodies,
            )
            self._emit(self.dispatcher.start(self.clock()))

    def _end_planning(self, outcome: str, reason: str, trace_id: str | None = None) -> None:
        with self._lock:
            self.planning = False
        self._publish({"outcome": outcome, "failure": reason, "trace_id": trace_id})

    def _emit(self, sends: list[Send]) -> None:
        for send in sends:
            self.send(send)
        ended = self.dispatcher is not None and self.dispatcher.outcome != RUNNING
        if sends or (ended and not self._reported):
            self._reported = ended
            self._publish({})

    def _base(self) -> dict:
        """The fields every status carries (the planner is loaded before the driver)."""
        return {
            "mode": "cell",
            "arms": list(self.arms),
            "planner": "ready",
            "goals_received": self.goals_received,
            "goal_seq": self.goal_seq,
            "stamp": time.time(),
        }

    def _publish(self, changes: dict) -> None:
        d = self.dispatcher
        status = {**self._base(), "goal": self.goal, "plan": self.plan}
        status.update(d.status() if d is not None else {"outcome": RUNNING})
        status.update(changes)
        status["reason"] = status.get("failure") or ""
        self.send_status(status)
