"""What ``manager_node`` runs, without ROS: a worker thread that owns the planner, the
memory and the :class:`~miles_ros.manager.core.Manager`. Its parameters are in
:mod:`miles_ros.params.manager`, what it is built from in
:mod:`miles_ros.manager.build`. Over 400 lines: :class:`ManagerDriver` is one
class whose methods share the worker thread's goal state; splitting it would spread that
state over modules.

The node's callbacks only hand messages to :class:`ManagerDriver` (``on_goal``,
``on_skill_status``, ``on_safety_state``, ``on_safety_event``, ``on_scene``, ``tick``);
planning (a language model on the CPU: seconds) happens on the worker thread, so the
executor keeps delivering statuses and the e-stop while a plan is made. The model loads
in :meth:`ManagerDriver.start`, before the node spins (see there why); the SQLite memory
opens on the worker thread (a sqlite3 connection belongs to the thread that opened it).

``/miles/manager/status`` (JSON): ``goal``, ``goal_seq`` (one per received goal, so a
client can tell its goal from an earlier one with the same words), ``goals_received``,
``trace_id``, ``outcome`` (``idle``, ``planning``, ``running``, ``succeeded``,
``failed``, ``estopped``, ``refused``: by the manager (busy, e-stop latched, planner not
loaded; no trace id) or by the planner (the goal cannot be done, with its reason and a
trace id; nothing moves)), ``event`` (what just happened), ``reason``,
``step``, ``step_index``, ``steps``, ``replans``, ``plan`` (its steps; ``plan_info``:
mode, model, latency), ``executed`` (steps run so far and how they ended), ``request``
(the running skill request: id, skill, state, progress), ``estop``, ``planner``
(``loading``, ``ready``, ``error``), ``metrics``, ``reflection`` and ``stamp``.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from miles_ros.interfaces import (
    ESTOPPED,
    FAILED,
    FINAL_SKILL_STATES,
    IDLE,
    PLANNING,
    REFUSED,
    RUNNING,
    SUCCEEDED,
)
from miles_ros.manager.build import (
    build_embedder,
    build_memory,
    build_planner,
    world_from_objects,
)
from miles_ros.manager.core import Action, Manager, StepResult
from miles_ros.params.manager import ManagerNodeParams

logger = logging.getLogger(__name__)

PROGRESS_PERIOD_S = 0.2
"""Shortest interval between two progress-only status messages."""


@dataclass
class _Request:
    """The skill request in flight."""

    id: str
    skill: str
    dispatched: float
    state: str = "sent"
    progress: float = 0.0
    distance_m: float | None = None
    heard: bool = False
    ended: bool = False


class ManagerDriver:
    """Goals in, skill requests out; one goal at a time, on a worker thread.

    ``publish_plan``, ``publish_status`` and ``publish_request`` take a JSON-ready dict.
    ``planner_factory(params)`` builds the planner, without memory, in :meth:`start`
    (default: :func:`build_planner`); the memory is opened on the worker thread.
    """

    def __init__(
        self,
        params: ManagerNodeParams,
        publish_plan: Callable[[dict], None],
        publish_status: Callable[[dict], None],
        publish_request: Callable[[dict], None],
        planner_factory: Callable[[ManagerNodeParams], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.params = params
        self._publish_plan, self._publish_status = publish_plan, publish_status
        self._publish_request = publish_request
        self.planner_factory = planner_factory or build_planner
        self.clock = clock
        self.events: queue.Queue = queue.Queue()
        self.lock = threading.RLock()
        self.manager: Manager | None = None
        self.scene: dict | None = None
        """The latest object poses message (parsed into a World when a goal comes)."""
        self.estop, self.estop_reason = False, ""
        self.request: _Request | None = None
        self.goal_seq = 0
        self.status: dict = {
            "goal": None,
            "goal_seq": 0,
            "trace_id": None,
            "outcome": IDLE,
            "event": "started",
            "reason": "",
            "replans": 0,
            "planner": "loading",
            "estop": False,
            "goals_received": 0,
        }
        self.last_status_time = -1e9
        self.goal_seq_running = 0
        self.planner = None
        self.embedder = None
        self.load_error = ""
        self.first_request_latency_s: list[float] = []
        """Seconds from a goal's arrival to its first skill request (one per goal)."""
        self.thread = threading.Thread(target=self._run, name="manager_worker", daemon=True)

    # -- node side (executor threads) -----------------------------------------------------
    def start(self) -> None:
        """Build the planner and the embedder here, then start the worker, which opens
        the memory and takes goals.

        Loading a language model is Python-heavy (imports, weights): done on a worker
        thread it holds the GIL for seconds and starves the other nodes of a one-process
        graph (`miles up`); the safety node then latches the e-stop for lost robot state.
        So it happens here, before the executor spins."""
        self.update_status({})
        t0 = time.perf_counter()
        try:
            self.planner = self.planner_factory(self.params)
            self.embedder = build_embedder(self.params)
            logger.info(
                "planner loaded in %.1f s: %s (%s mode)",
                time.perf_counter() - t0,
                self.planner.lm.name,
                self.planner.config.mode,
            )
        except Exception as exc:  # report it on the status topic, keep the node up
            logger.exception("planner failed to load")
            self.load_error = f"planner failed to load: {exc}"
        self.thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the worker (a plan being made finishes first, up to ``timeout``)."""
        self.events.put(("stop",))
        if self.thread.is_alive():
            self.thread.join(timeout)
        close = getattr(getattr(self.planner, "lm", None), "close", None)
        if close is not None:  # a language model in a child process
            close()

    def on_goal(self, text: str) -> int:
        """Queue a goal; returns its ``goal_seq``."""
        with self.lock:
            self.goal_seq += 1
            seq = self.goal_seq
            self.update_status({"goals_received": seq})
        self.events.put(("goal", seq, " ".join(text.split()), self.clock()))
        return seq

    def on_scene(self, message: dict) -> None:
        """Latest object poses (up to 50 Hz): the world the next plan starts from."""
        if not isinstance(message.get("objects"), dict):
            raise ValueError("no 'objects' mapping")
        with self.lock:
            self.scene = message

    def on_safety_state(self, state: dict) -> None:
        """The supervisor's state; a latched e-stop ends the running goal."""
        estop = bool(state.get("estop", False))
        with self.lock:
            changed = estop != self.estop
            self.estop, self.estop_reason = estop, str(state.get("reason", "") or "")
        if changed and estop:
            self.events.put(("estop",))  # the worker ends the goal and reports it
        elif changed:
            self.update_status({"event": "estop_reset"})

    def on_safety_event(self, event: dict) -> None:
        """One safety intervention (counted in the goal's metrics)."""
        self.events.put(("safety_event", event))

    def on_skill_status(self, status: dict) -> None:
        """``/miles/skill/status``: progress of the request in flight, or its end."""
        with self.lock:
            req = self.request
            if req is None or status.get("id") != req.id or req.ended:
                return
            req.heard, req.state = True, str(status.get("state", ""))
            req.progress = float(status.get("progress", req.progress) or 0.0)
            if status.get("distance") is not None:
                req.distance_m = float(status["distance"])
            if req.state not in FINAL_SKILL_STATES:
                if self.clock() - self.last_status_time >= PROGRESS_PERIOD_S:
                    self.update_status({"event": "progress"})
                return
            req.ended = True
            duration = status.get("elapsed_s")
            result = StepResult(
                req.id,
                req.state,
                str(status.get("reason", "") or ""),
                req.distance_m,
                float(duration) if duration is not None else self.clock() - req.dispatched,
            )
        self.events.put(("result", result))

    def tick(self) -> None:
        """Timer: skill request timeouts, and the status heartbeat."""
        now = self.clock()
        p = self.params
        with self.lock:
            req = self.request
            late = None
            if req is not None and not req.ended:
                if not req.heard and now - req.dispatched > p.ack_timeout_s:
                    late = f"no status from a skill node within {p.ack_timeout_s:g} s"
                elif now - req.dispatched > p.step_timeout_s:
                    late = f"no final status within {p.step_timeout_s:g} s"
            if late is not None:
                req.ended = True
                self._publish_request({"id": req.id, "cancel": True})
                self.events.put(
                    (
                        "result",
                        StepResult(req.id, FAILED, late, req.distance_m, now - req.dispatched),
                    )
                )
            if p.status_period_s > 0 and now - self.last_status_time >= p.status_period_s:
                self.update_status({"event": "heartbeat"})

    def update_status(self, changes: dict) -> None:
        """Merge ``changes`` into the status and publish it (under the lock, so the last
        message published is always the latest state)."""
        with self.lock:
            self.status.update(changes)
            req = self.request
            self.status["request"] = (
                None
                if req is None
                else {
                    "id": req.id,
                    "skill": req.skill,
                    "state": req.state,
                    "progress": round(req.progress, 4),
                }
            )
            self.status["estop"] = self.estop
            self.status["stamp"] = time.time()
            self.last_status_time = self.clock()
            self._publish_status(dict(self.status))

    # -- worker thread ------------------------------------------------------------------
    def _run(self) -> None:
        memory = None
        if self.planner is not None:
            try:
                memory = build_memory(self.params, self.embedder)
            except Exception:  # planning works without memory; say so
                logger.exception(
                    "memory %r not opened; goals will not be remembered", self.params.memory_db
                )
            self.planner.memory = memory
            self.manager = Manager(
                self.planner, memory=memory, max_replans=self.params.max_replans
            )
            self.update_status({"planner": "ready", "event": "ready"})
        else:
            self.update_status({"planner": "error", "event": "error", "reason": self.load_error})
        while True:
            event = self.events.get()
            kind = event[0]
            try:
                if kind == "stop":
                    break
                if kind == "goal":
                    self._goal(*event[1:])
                elif kind == "result":
                    self._result(event[1])
                elif kind == "estop":
                    self._estop()
                elif kind == "safety_event" and self._active():
                    self.manager.on_safety_event(event[1])  # type: ignore[union-attr]
            except Exception as exc:  # never let one bad event kill the manager
                logger.exception("manager: %s event failed", kind)
                if self._active():
                    self.manager._finish(FAILED, f"internal error: {exc}")  # type: ignore[union-attr]
                    self._finish(Action(FAILED, reason=f"internal error: {exc}"))
        if memory is not None:
            memory.close()

    def _goal_status(self, **changes) -> dict:
        """The running (or just finished) goal's status fields, with ``changes``."""
        w = self.manager.work  # type: ignore[union-attr]
        executed = [
            {k: e.get(k) for k in ("id", "skill", "params", "state", "reason", "duration_s")}
            for e in w.executed
        ]
        info = {k: v for k, v in w.plan.to_json().items() if k not in ("goal", "steps")}
        return {
            **self.manager.status(),
            "goal_seq": self.goal_seq_running,  # type: ignore[union-attr]
            "executed": executed,
            "plan_info": info,
            **changes,
        }

    def _active(self) -> bool:
        m = self.manager
        return m is not None and m.work is not None and m.work.outcome == RUNNING

    def _goal(self, seq: int, text: str, received: float) -> None:
        base = {
            "goal": text,
            "goal_seq": seq,
            "trace_id": None,
            "step": None,
            "step_index": 0,
            "steps": 0,
            "replans": 0,
            "plan": [],
            "metrics": {},
            "failure": None,
            "executed": [],
            "reflection": "",
        }
        refusal = ""
        if self.manager is None:
            refusal = self.load_error or "planner not loaded"
        elif self._active():
            w = self.manager.work
            refusal = f"busy with goal {w.goal!r} (trace {w.trace_id})"  # type: ignore[union-attr]
        elif not text:
            refusal = "empty goal"
        elif self.estop:
            refusal = "e-stop latched (reset it first: miles estop --reset)"
        if refusal:
            logger.warning("goal %r refused: %s", text, refusal)
            # a refusal of a second goal must not replace the running goal's state for long
            self.update_status({**base, "outcome": REFUSED, "event": "refused", "reason": refusal})
            if self._active():
                self.update_status(self._goal_status(event="resumed", reason=""))
            return
        self.update_status({**base, "outcome": PLANNING, "event": "planning", "reason": ""})
        with self.lock:
            scene = self.scene
        world = None  # None: the planner's scene file
        if scene is not None:
            try:
                world = world_from_objects(scene)
            except (KeyError, TypeError, ValueError) as exc:
                logger.warning("object poses unusable (%s); planning in the scene file", exc)
        self.goal_seq_running = seq
        try:
            plan, action = self.manager.start(text, world)
        except Exception as exc:  # the model or the endpoint broke: this goal fails
            logger.exception("planning %r failed", text)
            self.update_status(
                {
                    **base,
                    "outcome": FAILED,
                    "event": "finished",
                    "reason": f"planning failed: {exc}",
                }
            )
            return
        logger.info(
            "goal %r: %s plan in %.2f s (trace %s): %s",
            text,
            plan.mode,
            plan.latency_s,
            plan.trace_id,
            [s.to_dict() for s in plan.steps],
        )
        self._publish_plan({**plan.to_message(), "goal_seq": seq, "replan": False, "replans": 0})
        self._act(action, received)

    def _result(self, result: StepResult) -> None:
        with self.lock:
            req = self.request
            if req is None or req.id != result.id:
                return
        if not self._active():
            return
        if result.state not in (SUCCEEDED, ESTOPPED):
            self.update_status(
                {
                    "event": "step_failed",
                    "reason": result.reason,
                    "failed_step": {
                        "id": result.id,
                        "state": result.state,
                        "reason": result.reason,
                    },
                }
            )
        action = self.manager.on_step_result(result)  # type: ignore[union-attr]
        if action.replanned:
            plan = self.manager.work.plan  # type: ignore[union-attr]
            self._publish_plan(
                {
                    **plan.to_message(),
                    "goal_seq": self.goal_seq_running,
                    "replan": True,
                    "replans": self.manager.work.metrics.replans,
                }
            )  # type: ignore[union-attr]
        self._act(action)

    def _estop(self) -> None:
        with self.lock:
            req, reason = self.request, self.estop_reason
        reason = "e-stop latched" + (f": {reason}" if reason else "")
        if req is None or not self._active():
            self.update_status({"event": "estop"})
            return
        with self.lock:
            req.ended = True
        self._publish_request({"id": req.id, "cancel": True, "reason": "estop"})
        self._act(
            self.manager.on_step_result(  # type: ignore[union-attr]
                StepResult(req.id, ESTOPPED, reason, req.distance_m, self.clock() - req.dispatched)
            )
        )

    def _act(self, action: Action, received: float | None = None) -> None:
        if action.kind == "dispatch":
            with self.lock:
                estop = self.estop
            if estop:  # latched while planning: never send the request
                w = self.manager.work  # type: ignore[union-attr]
                action = self.manager.on_step_result(
                    StepResult(  # type: ignore[union-attr]
                        w.current["id"], ESTOPPED, "e-stop latched while planning"
                    )
                )
                return self._finish(action)
            request = action.request or {}
            now = self.clock()
            with self.lock:
                self.request = _Request(request["id"], request["skill"], now)
            self._publish_request(request)
            if received is not None:
                self.first_request_latency_s.append(now - received)
                logger.info("first skill request %.2f s after the goal arrived", now - received)
            self.update_status(
                self._goal_status(event="replanned" if action.replanned else "dispatch", reason="")
            )
            return None
        return self._finish(action)

    def _finish(self, action: Action) -> None:
        manager = self.manager
        with self.lock:
            self.request = None
        reflection = ""
        try:
            reflection = manager.reflect()  # type: ignore[union-attr]
        except Exception:  # memory trouble must not hide the outcome
            logger.exception("reflection failed")
        status = self._goal_status(
            outcome=action.kind, event="finished", reason=action.reason, reflection=reflection
        )
        log = logger.info if action.kind == SUCCEEDED else logger.warning
        log(
            "goal %r %s%s",
            status["goal"],
            action.kind,
            f": {action.reason}" if action.reason else "",
        )
        self.update_status(status)
