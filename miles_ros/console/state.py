"""What the console shows of a cell, kept from the graph's public messages (ROS-free).

:class:`CellState` takes the JSON of ``/miles/plan``, ``/miles/manager/status``, each
arm's ``/miles/skill/status`` and ``/miles/safety/state`` (the bridge,
:mod:`miles_ros.ros.console_node`, feeds them from its subscriptions) and keeps one
snapshot: the goal and its outcome, the plan's steps with their state and times (or the
refusal and its reason), and each arm's safety state. Every change bumps ``version`` and
wakes :meth:`CellState.wait_newer`, which the console's websocket pushes from.

Step times are this process's wall clock (s since the epoch) when a step was first seen
running and when it ended: the messages carry no common stamp for them.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Sequence

from miles_ros.interfaces import FINAL_SKILL_STATES, REFUSED, RUNNING

PENDING = "pending"
"""A planned step no request has been sent for yet."""


def _step(skill: str, params, arm: str = "") -> dict:
    return {
        "skill": str(skill),
        "params": params if isinstance(params, dict) else {},
        "arm": arm,
        "state": PENDING,
        "progress": 0.0,
        "reason": "",
        "started": None,
        "ended": None,
        "duration_s": None,
        "request_id": None,
    }


class CellState:
    """The console's view of a cell of ``arms`` (``("",)``: the single arm); thread-safe.

    Single arm: the steps are the latest ``/miles/plan``'s; the k-th new skill request id
    of the plan's trace is its k-th step (the manager runs steps in order). On a replan
    the steps that already ended stay in front of the new plan's. Cell: the steps are the
    cell manager's tasks (``tasks`` in its status: state and arm per task).
    """

    def __init__(self, arms: Sequence[str] = ("",), clock: Callable[[], float] = time.time):
        self.arms = tuple(arms)
        self.clock = clock
        self.cond = threading.Condition()
        self.version = 0
        self.goal: dict = {}
        self.plan: dict = {"trace_id": None, "refused": False, "reason": "", "replans": 0}
        self.steps: list[dict] = []
        self.safety: dict[str, dict] = {}
        self._next_step = 0  # the step the next new request id of the trace belongs to
        self.cell = False  # a cell manager's status (tasks) was seen

    # -- inputs (any thread) -------------------------------------------------------------
    def on_plan(self, msg: dict) -> None:
        """A ``/miles/plan`` message (single-arm manager)."""
        with self.cond:
            steps = [_step(s.get("skill", "?"), s.get("params")) for s in msg.get("steps", [])]
            same_trace = msg.get("trace_id") == self.plan["trace_id"]
            kept = [s for s in self.steps if s["ended"] is not None] if same_trace else []
            self.plan = {
                "trace_id": msg.get("trace_id"),
                "refused": bool(msg.get("refused", False)),
                "reason": str(msg.get("reason") or ""),
                "replans": int(msg.get("replans") or 0),
            }
            self.steps = kept + steps
            self._next_step = len(kept)
            self._changed()

    def on_manager_status(self, msg: dict) -> None:
        """A ``/miles/manager/status`` message (single-arm or cell manager)."""
        with self.cond:
            self.goal = {
                k: msg.get(k)
                for k in ("goal", "goal_seq", "outcome", "event", "trace_id", "replans")
            }
            self.goal["reason"] = str(msg.get("reason") or msg.get("failure") or "")
            tasks = msg.get("tasks")
            if isinstance(tasks, list):
                self._on_tasks(msg.get("trace_id"), tasks)
            elif msg.get("outcome") == REFUSED and msg.get("trace_id") not in (
                None,
                self.plan["trace_id"],
            ):
                # the planner refused (the cell manager sends no plan): the status says why
                reason = self.goal["reason"]
                self.plan = {"trace_id": msg["trace_id"], "refused": True, "reason": reason}
                self.plan["replans"], self.steps = 0, []
            self._changed()

    def on_skill_status(self, arm: str, msg: dict) -> None:
        """A ``/miles/skill/status`` message from ``arm``'s skill node."""
        rid, state = msg.get("id"), msg.get("state")
        if not isinstance(rid, str) or not isinstance(state, str):
            return
        with self.cond:
            step = self._step_of(rid, arm, msg.get("skill"))
            if step is None:
                return
            now = self.clock()
            if step["started"] is None:
                step["started"] = now
            step["state"], step["arm"] = state, arm or step["arm"]
            step["progress"] = float(msg.get("progress") or 0.0)
            step["reason"] = str(msg.get("reason") or "")
            if state in FINAL_SKILL_STATES and step["ended"] is None:
                step["ended"] = now
            elapsed = msg.get("elapsed_s")
            end = step["ended"] if step["ended"] is not None else now
            step["duration_s"] = (
                float(elapsed) if isinstance(elapsed, int | float) else end - step["started"]
            )
            self._changed()

    def on_safety(self, arm: str, msg: dict) -> None:
        """A ``/miles/safety/state`` message from ``arm``'s safety node."""
        with self.cond:
            self.safety[arm] = dict(msg)
            self._changed()

    # -- outputs -------------------------------------------------------------------------
    def snapshot(self) -> dict:
        """``{"version", "goal", "plan": {..., "steps"}, "safety": {arm: state},
        "estop": any arm latched, "arms"}`` (a copy)."""
        with self.cond:
            return {
                "version": self.version,
                "arms": list(self.arms),
                "goal": dict(self.goal),
                "plan": {**self.plan, "steps": copy.deepcopy(self.steps)},
                "safety": copy.deepcopy(self.safety),
                "estop": any(bool(s.get("estop")) for s in self.safety.values()),
            }

    def latched(self) -> bool:
        """True when every arm heard from reports its e-stop latched (and one has)."""
        with self.cond:
            return bool(self.safety) and all(s.get("estop") for s in self.safety.values())

    def wait_newer(self, version: int, timeout: float) -> dict | None:
        """The snapshot once ``version`` is passed, or None after ``timeout`` s."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.version > version, timeout=timeout):
                return None
        return self.snapshot()

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait (on every change) until ``predicate()`` holds; False after ``timeout`` s.
        ``predicate`` runs under the lock: it may call :meth:`latched`."""
        with self.cond:
            return self.cond.wait_for(predicate, timeout=timeout)

    # -- internals (under the lock) ------------------------------------------------------
    def _changed(self) -> None:
        self.version += 1
        self.cond.notify_all()

    def _step_of(self, rid: str, arm: str, skill) -> dict | None:
        for step in self.steps:
            if step["request_id"] == rid:
                return step
        trace = self.plan["trace_id"]
        if self.cell or trace is None or not rid.startswith(f"{trace}:"):
            return None  # a cell's steps follow its manager's tasks; another trace's
        if self._next_step >= len(self.steps) or self.steps[self._next_step]["skill"] != skill:
            return None  # a lead-in (home) or a request the plan does not know
        step = self.steps[self._next_step]
        step["request_id"] = rid
        self._next_step += 1
        return step

    def _on_tasks(self, trace_id, tasks: list) -> None:
        self.cell = True
        if trace_id != self.plan["trace_id"]:
            self.plan = {"trace_id": trace_id, "refused": False, "reason": "", "replans": 0}
            self.steps = []
        now = self.clock()
        for k, task in enumerate(t for t in tasks if isinstance(t, dict)):
            if k >= len(self.steps):
                self.steps.append(_step(task.get("skill", "?"), task.get("params")))
            step = self.steps[k]
            step["request_id"] = task.get("task_id")
            step["state"] = str(task.get("state") or PENDING)
            step["arm"] = str(task.get("arm") or "")
            if step["state"] == RUNNING and step["started"] is None:
                step["started"] = now
            if step["state"] in FINAL_SKILL_STATES and step["ended"] is None:
                step["ended"] = now
                step["started"] = step["started"] if step["started"] is not None else now
            if step["started"] is not None:
                end = step["ended"] if step["ended"] is not None else now
                step["duration_s"] = end - step["started"]
