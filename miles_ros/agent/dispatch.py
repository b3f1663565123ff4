"""The cell's dispatcher (no ROS): a goal's planned steps run as contract-net tasks.

:class:`Dispatcher` drives one goal in a cell of several arms. The manager plans the goal
as for one arm (the planner's steps); each step becomes a task that is announced
(``/miles/tasks/announce``), and at the bid deadline (or once every arm answered) awarded
to the least cost (``/miles/tasks/award``, :class:`miles_ros.agent.contract_net.Auction`).
An awarded task is sent to its arm's skill node (``/<arm>/miles/skill/request``) as soon
as that arm is idle, so different arms run their tasks at once.

- **Order.** One bid round is open at a time, in plan order, so every bid already counts
  the tasks awarded before it. A task waits until no earlier unfinished task touches one
  of its cubes (the ``object``, or a cube as ``target``); ``home`` waits for every earlier
  task.
- **Claims.** Before an award goes out, the winner claims the task's cubes on the
  :class:`miles_ros.agent.blackboard.Blackboard` (atomic, with a time to live); the claims
  are released when the task ends. A claim held by another arm puts the task back to wait:
  two arms never get the same cube.
- **Shared space.** With ``where`` (the cell's cubes and places, world x/y) and a
  ``clearance``, two tasks *conflict* when a point of one (its cube, its target) lies
  closer than ``clearance`` to a point of the other: two arms cannot both work there
  (the supervisors would hold both, each keeping the other's envelope out, and neither
  finishes). A task does not start while another arm runs a conflicting task short of
  ``stagger`` of its progress (1: until it ends). An arm that stands where it ended a
  task conflicting with another arm's running or next task is sent ``home`` (a
  clearing move, not a plan step), and the conflicting task starts once that move is
  ``stagger_home`` of its way, so the two arms move at once, one leaving as the other
  comes. With ``bodies`` (each arm's base and home TCP, world x/y) an arm parked over
  the table is judged by its whole body, not only by its task's points: it is in the
  way when the line from its base to where its TCP rests comes closer than
  ``clearance`` to the path the other arm's TCP takes (home, the cube, the target). An
  arm parked after a reach at a cube near the middle otherwise holds the other arm on
  its way from home (bench/multi.py: the right arm at the blue cube stopped the left
  arm's pick of the red cube until its timeout). Safety never depends on this (the
  supervisors keep the arms apart); it keeps both arms from holding each other up.
- **Failures.** A failed task is announced again (next round) with the failure as
  feedback, up to ``max_rounds`` rounds; a task nobody bids on fails the goal with every
  arm's reason; an ``estopped`` task ends the goal ``estopped`` (running tasks cancelled).
- **Bad input.** Bids that are malformed, late, for an unknown task or with another trace
  id are refused and logged by the auction; statuses with an unknown id are ignored
  (logged): nothing is awarded or executed on them.

Every call returns the messages to send (:class:`Send`); the caller publishes them. The
module stays whole (~480 lines): the shared-space rule starts, holds and clears the same
task states the auction and the statuses move, so a split would scatter one state machine.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from miles_ros.agent.blackboard import Blackboard
from miles_ros.agent.contract_net import Auction, Bid, to_json
from miles_ros.agent.geometry import polyline_distance
from miles_ros.interfaces import ESTOPPED, FAILED, FINAL_SKILL_STATES, RUNNING, SUCCEEDED

LOG = logging.getLogger("miles_ros.agent.dispatch")

CELL_CLEARANCE = 0.35
"""Default ``clearance`` (m) of a cell's dispatcher: two Pandas whose tasks' points lie
closer than this cannot both work there. The hands' sphere model spans 0.28 m across the
fingers (:mod:`sims.robots.panda_spheres`) and the supervisors keep 0.05 m between arms.
In ``config/scene_dual.yaml`` the red and blue tasks' cubes and pads lie >= 0.37 m apart
and do not conflict; red and blue 0.32 m apart (its first layout) did."""


@dataclass(frozen=True)
class Send:
    """One message for the caller to publish."""

    kind: str
    """``announce`` / ``award`` (JSON on the cell's topics), ``request`` (JSON to
    ``/<arm>/miles/skill/request``)."""
    payload: str
    """The message's JSON."""
    arm: str = ""
    """The arm a ``request`` goes to."""


@dataclass
class Task:
    """One planned step as a contract-net task."""

    task_id: str
    """``<trace_id>/t<n>``."""
    skill: str
    """The skill."""
    params: dict[str, Any]
    """Its parameters."""
    resources: tuple[str, ...]
    """Cubes it touches (claimed while it runs); ``("*",)`` for a barrier (home)."""
    state: str = "waiting"
    """waiting, bidding, awarded, running, succeeded, failed."""
    arm: str = ""
    """The arm it was awarded to."""
    request_id: str = ""
    """The id of its current skill request."""
    rounds: int = 0
    """Bid rounds held."""
    history: list[dict] = field(default_factory=list)
    """Per round: bids, the award or the reasons, the outcome."""
    progress: float = 0.0
    """The running request's last reported progress in [0, 1]."""


class Dispatcher:
    """Announce, award, run in parallel and re-announce the tasks of one goal."""

    def __init__(
        self,
        arms: Sequence[str],
        trace_id: str,
        steps: Sequence[tuple[str, Mapping[str, Any]]],
        cubes: Sequence[str],
        blackboard: Blackboard | None = None,
        bid_window: float = 0.2,
        max_rounds: int = 3,
        claim_ttl: float = 120.0,
        award_gap: float = 0.0,
        where: Mapping[str, Sequence[float]] | None = None,
        clearance: float = 0.0,
        stagger: float = 1.0,
        stagger_home: float = 0.5,
        bodies: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    ) -> None:
        """``steps``: the planned ``(skill, params)``; ``cubes``: the scene's cube names
        (what can be claimed); ``award_gap``: seconds between an award and the next
        announcement, so that over a bus whose topics are not ordered with each other
        the winner has queued its award before it bids again; ``where``, ``clearance``
        (m), ``stagger``, ``stagger_home`` (progress in [0, 1]), ``bodies`` (arm ->
        (base x/y, home TCP x/y) in the world frame, m): see "Shared space" (clearance 0:
        off)."""
        if not trace_id:
            raise ValueError("need the goal's trace id")
        if max_rounds < 1:
            raise ValueError("max_rounds must be >= 1")
        if not (clearance >= 0.0 and 0.0 <= stagger <= 1.0 and 0.0 <= stagger_home <= 1.0):
            raise ValueError("clearance must be >= 0 m, stagger and stagger_home in [0, 1]")
        self.where = {k: (float(v[0]), float(v[1])) for k, v in (where or {}).items()}
        self.clearance, self.stagger = float(clearance), float(stagger)
        self.stagger_home = float(stagger_home)
        self.bodies = {
            a: ((float(b[0]), float(b[1])), (float(h[0]), float(h[1])))
            for a, (b, h) in (bodies or {}).items()
        }
        self._parked: dict[str, Task] = {}
        """Per arm, the task it ended where it still stands."""
        self._clearing: dict[str, str] = {}
        """Per arm, the request id of its clearing ``home``."""
        self._leaving: dict[str, Task] = {}
        """Per arm on its clearing ``home``, the task whose place it is leaving."""
        self._cleared: dict[str, float] = {}
        """Per arm on its clearing ``home``, that move's progress."""
        self.arms = tuple(arms)
        self.trace_id = trace_id
        self.auction = Auction(self.arms, bid_window)
        self.blackboard = blackboard if blackboard is not None else Blackboard()
        self.max_rounds = max_rounds
        self.claim_ttl = claim_ttl
        self.award_gap = award_gap
        self._awarded_at = -float("inf")
        self.tasks = [
            Task(f"{trace_id}/t{i + 1}", s, dict(p), _resources(s, p, cubes))
            for i, (s, p) in enumerate(steps)
        ]
        self.outcome = RUNNING if self.tasks else SUCCEEDED
        """running, succeeded, failed or estopped."""
        self.reason = ""
        """Why the goal failed."""
        self.round_ms: list[float] = []
        """Each closed bid round's duration, announcement to award (ms)."""
        self.awards: list[dict] = []
        """Every award: task, arm, round, cost."""
        self._open: Task | None = None
        self._opened = 0.0
        self._feedback: dict[str, str] = {}
        self._requests = 0

    # --- inputs ------------------------------------------------------------------------
    def start(self, now: float) -> list[Send]:
        """The first announcement."""
        return self._advance(now)

    def on_bid(self, message: str | Bid, now: float) -> list[Send]:
        """A bid (JSON from ``/miles/tasks/bid``); refused ones are logged and dropped."""
        if self.outcome != RUNNING:
            return []
        self.auction.offer(message, now)
        return self._advance(now)

    def tick(self, now: float) -> list[Send]:
        """Close a round whose deadline passed."""
        return self._advance(now) if self.outcome == RUNNING else []

    def on_status(self, arm: str, status: Mapping[str, Any], now: float) -> list[Send]:
        """A skill status from ``/<arm>/miles/skill/status``."""
        if self._clearing.get(arm) and self._clearing[arm] == status.get("id"):
            if status.get("state") not in FINAL_SKILL_STATES:
                progress = status.get("progress")
                if isinstance(progress, int | float) and not isinstance(progress, bool):
                    self._cleared[arm] = max(self._cleared.get(arm, 0.0), float(progress))
                return self._start_idle(now)
            del self._clearing[arm]
            self._leaving.pop(arm, None)
            if status.get("state") != SUCCEEDED:
                LOG.warning("dispatch: %s's clearing home %s", arm, status.get("state"))
            return self._start_idle(now) + self._advance(now)
        task = next(
            (t for t in self.tasks if t.request_id and t.request_id == status.get("id")), None
        )
        if task is None or task.arm != arm or task.state != RUNNING:
            LOG.info(
                "dispatch: status %r from %s is not for a running task", status.get("id"), arm
            )
            return []
        state = status.get("state")
        if state not in FINAL_SKILL_STATES:
            progress = status.get("progress")
            if isinstance(progress, int | float) and not isinstance(progress, bool):
                task.progress = max(task.progress, float(progress))
            return self._start_idle(now) if self.clearance > 0.0 else []
        self._release(task, now)
        self._parked[arm] = task
        reason = str(status.get("reason") or "")
        task.history[-1]["outcome"] = state if not reason else f"{state}: {reason}"
        if state == SUCCEEDED:
            task.state = SUCCEEDED
        elif state == ESTOPPED:
            task.state = FAILED
            return self._end(ESTOPPED, f"{task.skill} on {arm}: estopped {reason}".strip())
        else:
            text = f"{arm}: {task.skill} {_params_text(task.params)} {state}"
            text += f": {reason}" if reason else ""
            if task.rounds >= self.max_rounds:
                task.state = FAILED
                return self._end(FAILED, f"{text}; no rounds left")
            task.state, task.arm, task.request_id = "waiting", "", ""
            self._feedback[task.task_id] = text
        out = self._clear_if_in_way(arm) + self._start_idle(now)
        return out + self._advance(now)

    # --- queries -----------------------------------------------------------------------
    def status(self) -> dict:
        """The goal's tasks for ``/miles/manager/status``."""
        return {
            "trace_id": self.trace_id,
            "outcome": self.outcome,
            "failure": self.reason or None,
            "tasks": [
                {
                    "task_id": t.task_id,
                    "skill": t.skill,
                    "params": t.params,
                    "state": t.state,
                    "arm": t.arm,
                    "rounds": t.rounds,
                }
                for t in self.tasks
            ],
            "awards": list(self.awards),
        }

    # --- internals ---------------------------------------------------------------------
    def _advance(self, now: float) -> list[Send]:
        out: list[Send] = []
        while self.outcome == RUNNING:
            if self._open is not None:
                if not self.auction.ready(self._open.task_id, now):
                    return out
                out += self._close(self._open, now)
                continue
            task = self._announceable(now)
            if task is None:
                if all(t.state == SUCCEEDED for t in self.tasks):
                    self.outcome = SUCCEEDED
                return out
            if now < self._awarded_at + self.award_gap:
                return out
            out.append(self._announce(task, now))
        return out

    def _announceable(self, now: float) -> Task | None:
        """The first waiting task (plan order) whose cubes no earlier unfinished task and
        no live claim on the blackboard holds; ``home`` waits for every earlier task."""
        busy = {k.removeprefix("claim/") for k in self.blackboard.snapshot("claim/", now)}
        earlier = False
        for task in self.tasks:
            if task.state == SUCCEEDED:
                continue
            if task.state == "waiting":
                barrier = "*" in task.resources and earlier
                clash = barrier or "*" in busy or busy & set(task.resources)
                return None if clash else task
            busy |= set(task.resources)
            earlier = True
        return None

    def _announce(self, task: Task, now: float) -> Send:
        task.rounds += 1
        task.state = "bidding"
        if task.task_id not in self.auction.tasks:
            ann = self.auction.announce(task.task_id, self.trace_id, task.skill, task.params, now)
        else:
            ann = self.auction.reannounce(task.task_id, self._feedback.get(task.task_id, ""), now)
        task.history.append({"round": ann.round, "feedback": ann.feedback})
        self._open, self._opened = task, now
        return Send("announce", to_json(ann))

    def _close(self, task: Task, now: float) -> list[Send]:
        outcome = self.auction.close(task.task_id, now)
        self._open = None
        self.round_ms.append((now - self._opened) * 1e3)
        bids = self.auction.tasks[task.task_id].bids
        task.history[-1]["bids"] = {a: (b.cost, b.refusal) for a, b in bids.items()}
        award = outcome.award
        if award is None:
            task.state = FAILED
            task.history[-1]["reasons"] = outcome.reasons
            why = "; ".join(f"{a}: {r}" for a, r in sorted(outcome.reasons.items()))
            text = f"nobody can do {task.skill} {_params_text(task.params)} ({why})"
            return self._end(FAILED, text)
        refused = self._claim(task, award.arm, now)
        if refused:
            LOG.warning("dispatch: %s not awarded: %s", task.task_id, refused)
            task.state = "waiting"  # announced again once the cube is free
            task.rounds -= 1  # not a failure of the task
            self._feedback[task.task_id] = refused
            return []
        task.state, task.arm = "awarded", award.arm
        self._awarded_at = now
        task.history[-1]["award"] = award.arm
        self.awards.append(
            {"task_id": task.task_id, "arm": award.arm, "round": award.round, "cost": award.cost}
        )
        return [Send("award", to_json(award)), *self._next_request(award.arm, now)]

    def _claim(self, task: Task, arm: str, now: float) -> str:
        granted: list[str] = []
        for cube in task.resources:
            if cube == "*":
                continue
            result = self.blackboard.claim(cube, arm, self.claim_ttl, now)
            if not result.granted:
                for c in granted:
                    self.blackboard.release(c, arm, now)
                return result.reason
            granted.append(cube)
        return ""

    def _release(self, task: Task, now: float) -> None:
        for cube in task.resources:
            if cube != "*":
                self.blackboard.release(cube, task.arm, now)

    def _start_idle(self, now: float) -> list[Send]:
        """Every idle arm's next awarded task that may start now."""
        out: list[Send] = []
        for arm in self.arms:
            out += self._next_request(arm, now)
        return out

    def _next_request(self, arm: str, now: float) -> list[Send]:
        """Send the arm its next awarded task when it is idle and no other arm is in its
        way (see "Shared space"); an idle arm in the way is sent home first."""
        if arm in self._clearing or any(t.state == RUNNING and t.arm == arm for t in self.tasks):
            return []
        task = next((t for t in self.tasks if t.state == "awarded" and t.arm == arm), None)
        if task is None:
            return []
        out: list[Send] = []
        for other in self.arms:
            if other == arm:
                continue
            running = next((t for t in self.tasks if t.state == RUNNING and t.arm == other), None)
            if running is not None and running.progress < self.stagger:
                if self._conflict(task, running):
                    return out  # wait until it is past the shared space
            leaving = self._leaving.get(other)
            if leaving is not None and self._cleared.get(other, 0.0) < self.stagger_home:
                if self._conflict(task, leaving):
                    return out  # until it is on its way out
            parked = self._parked.get(other)
            if running is None and parked is not None and self._in_way(other, parked, task, arm):
                if other not in self._clearing:
                    out.append(self._clear(other))
                return out  # starts once that arm is on its way out
        self._parked.pop(arm, None)
        task.progress = 0.0
        return out + [self._request(task, arm, task.skill, task.params)]

    def _clear_if_in_way(self, arm: str) -> list[Send]:
        """Send ``arm`` home now when it has no task of its own queued and stands where
        another arm's running or awarded task goes."""
        parked = self._parked.get(arm)
        if parked is None or arm in self._clearing:
            return []
        if any(t.state == "awarded" and t.arm == arm for t in self.tasks):
            return []
        for t in self.tasks:
            if t.arm != arm and t.state in (RUNNING, "awarded"):
                if self._in_way(arm, parked, t, t.arm):
                    return [self._clear(arm)]
        return []

    def _in_way(self, parked_arm: str, parked: Task, task: Task, arm: str) -> bool:
        """Whether ``parked_arm``, standing where it ended ``parked``, is in the way of
        ``arm``'s ``task``: their points conflict, or (with both arms' ``bodies``) the
        parked arm's base-to-TCP line comes within the clearance of the task's TCP path
        from ``arm``'s home."""
        if self._conflict(task, parked):
            return True
        rest = self._points(parked)
        if not rest or parked_arm not in self.bodies or arm not in self.bodies:
            return False
        body = [self.bodies[parked_arm][0], rest[-1]]
        path = [self.bodies[arm][1], *self._points(task)]
        return polyline_distance(body, path) < self.clearance

    def _conflict(self, a: Task, b: Task) -> bool:
        """Whether two tasks' points (cube, target) come closer than the clearance."""
        if self.clearance <= 0.0:
            return False
        pa, pb = self._points(a), self._points(b)
        return any(math.dist(p, q) < self.clearance for p in pa for q in pb)

    def _points(self, task: Task) -> list[tuple[float, float]]:
        names = (task.params.get("object"), task.params.get("target"))
        return [self.where[n] for n in names if isinstance(n, str) and n in self.where]

    def _clear(self, arm: str) -> Send:
        """A clearing ``home`` for ``arm`` (it stands where another arm's task goes)."""
        self._leaving[arm] = self._parked.pop(arm)
        self._cleared[arm] = 0.0
        self._requests += 1
        rid = f"{self.trace_id}:{self._requests}"
        self._clearing[arm] = rid
        LOG.info("dispatch: %s goes home to clear the way", arm)
        request = {"id": rid, "skill": "home", "params": {}, "trace_id": self.trace_id}
        return Send("request", _json(request), arm)

    def _request(self, task: Task, arm: str, skill: str, params: dict) -> Send:
        self._requests += 1
        task.state, task.request_id = RUNNING, f"{self.trace_id}:{self._requests}"
        request = {
            "id": task.request_id,
            "skill": skill,
            "params": params,
            "trace_id": self.trace_id,
        }
        return Send("request", _json(request), arm)

    def _end(self, outcome: str, reason: str) -> list[Send]:
        self.outcome, self.reason = outcome, reason
        LOG.warning("dispatch: goal %s %s: %s", self.trace_id, outcome, reason)
        out = [
            Send("request", _json({"id": rid, "cancel": True}), arm)
            for arm, rid in self._clearing.items()
        ]
        for task in self.tasks:
            if task.state == RUNNING:
                out.append(
                    Send("request", _json({"id": task.request_id, "cancel": True}), task.arm)
                )
        return out


def _resources(skill: str, params: Mapping[str, Any], cubes: Sequence[str]) -> tuple[str, ...]:
    if skill == "home":
        return ("*",)
    names = [params.get("object"), params.get("target")]
    return tuple(n for n in names if isinstance(n, str) and n in cubes)


def _params_text(params: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def _json(data: dict) -> str:
    return json.dumps(data)
