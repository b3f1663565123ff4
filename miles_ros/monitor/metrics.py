"""The cell's numbers for Prometheus, from the graph's own messages (ROS-free).

:class:`CellMetrics` owns a :class:`prometheus_client.CollectorRegistry` (never the
process-wide one, so two graphs in one process, or a test, never share counters) and is
fed the decoded JSON of the graph's topics by :meth:`CellMetrics.handle` (the monitor
node, :mod:`miles_ros.ros.monitor_node`, calls it from its subscriptions) and the
header stamps of ``/joint_states`` by :meth:`CellMetrics.on_joint_state`. Each update is a
few dictionary lookups and a counter increment, cheap enough for 250 Hz joint states on the
graph's one executor thread. What moves each metric (docs/ros.md#metrics):

- ``miles_goals_total{outcome}``: a goal's final outcome on ``/miles/manager/status``,
  once per ``goal_seq`` (the status is republished: heartbeats, late joiners);
  ``miles_task_completion_ratio``: succeeded / finished goals.
- ``miles_skill_runs_total{arm,skill,state}``: a skill request's final status, once per
  request id (a refusal is not a run: it counts as an anomaly);
  ``miles_skill_success_ratio{arm,skill}``: succeeded / runs;
  ``miles_skill_mean_return{arm,skill}``: the mean of the final statuses' ``return``.
- ``miles_planner_decision_seconds``: ``latency_s`` of each ``/miles/plan`` message (the
  first plan of a goal and each replan).
- ``miles_safety_interventions_total{arm,kind}``: each ``/miles/safety/events`` event
  plus the ones the throttle left out (``suppressed``), context kinds not counted, as the
  supervisor counts them; ``miles_safety_violations_total{arm,kind}``: those of them that
  refused a request (:data:`~miles_ros.safety.requests.REJECTION_KINDS`).
- ``miles_estops_total{arm}``: ``/miles/safety/state`` going from not latched (or not yet
  heard) to latched.
- ``miles_anomalies_total{arm,kind}``: ``stall`` (a skill failed ``stalled:``),
  ``stale_state`` (a skill failed, or the supervisor latched, on lost robot state),
  ``refused_goal`` (the manager refused a goal: busy, e-stop latched, no planner; not the
  planner's own refusal of a goal that cannot be done), ``refused_skill`` (a skill request
  refused before any motion), ``malformed`` (a message this class could not read).
- ``miles_canary_decisions_total{arm,skill,decision}``: the canary's decision on a
  candidate request (``promote``, ``rollback``, ``continue``), from its final status;
  ``miles_canary_fallbacks_total{arm,skill}``: candidate requests that fell back to the
  active version (:mod:`miles_ros.runtime.rollout`).
- ``miles_loop_jitter_seconds{arm}``: ``|period - nominal|`` between consecutive
  ``/joint_states`` header stamps of an arm (the publishing loop's jitter, free of the
  monitor's own scheduling).

:func:`serve` exposes a registry over HTTP on the loopback interface (``miles up
--metrics-port``).
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from miles_ros.interfaces import (
    CANARY_DECISIONS,
    FINAL_GOAL_OUTCOMES,
    FINAL_SKILL_STATES,
    GOAL_OUTCOMES,
    REFUSED,
    REFUSED_PREFIX,
    SKILL_CANARY,
    SKILL_RETURN,
    SKILL_STATES,
    STALLED_PREFIX,
    STATE_LOST,
    SUCCEEDED,
)
from miles_ros.safety.audit import NOT_INTERVENTIONS
from miles_ros.safety.requests import REJECTION_KINDS

logger = logging.getLogger(__name__)

MANAGER_STATUS, PLAN, SKILL_STATUS, SAFETY_STATE, SAFETY_EVENTS = (
    "manager_status",
    "plan",
    "skill_status",
    "safety_state",
    "safety_events",
)
"""The JSON streams :meth:`CellMetrics.handle` reads, by kind."""

ANOMALIES = ("stall", "stale_state", "refused_goal", "refused_skill", "malformed")
"""The kinds of ``miles_anomalies_total`` (see the module docstring)."""

DECISION_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
"""Seconds: a cached plan takes milliseconds, the language model on 2 CPU cores seconds."""
JITTER_BUCKETS = (0.0001, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.5)
"""Seconds: a 250 Hz loop has a 4 ms period; a whole missed period lands at 0.004."""
REMEMBERED = 4096
"""Request ids and plans remembered to count each once (a bounded memory of recent ones)."""
LOG_EVERY_S = 10.0
"""At most one warning about malformed messages of a stream per this many seconds."""


class _Recent:
    """A bounded set of the most recently added keys."""

    def __init__(self, size: int = REMEMBERED) -> None:
        self.size, self.keys = size, OrderedDict()

    def add(self, key) -> bool:
        """Add ``key``; False when it was already there."""
        if key in self.keys:
            return False
        self.keys[key] = None
        if len(self.keys) > self.size:
            self.keys.popitem(last=False)
        return True

    def clear(self) -> None:
        self.keys.clear()


@dataclass
class _SkillTally:
    """One skill's final statuses on one arm, for the ratio and the mean return."""

    runs: int = 0
    succeeded: int = 0
    return_sum: float = 0.0
    returns: int = 0


class CellMetrics:
    """Prometheus metrics of one cell, fed with its messages (see the module docstring).

    ``arms``: the arms whose per-arm series start at zero ("" is the single arm);
    ``joint_state_period``: the nominal period of ``/joint_states`` (s). Thread-safe: the
    executor feeds it while an HTTP thread renders it.
    """

    def __init__(self, arms: Sequence[str] = ("",), joint_state_period: float = 0.004):
        if not joint_state_period > 0:
            raise ValueError("joint_state_period must be > 0")
        self.registry = CollectorRegistry()
        self.nominal_period = float(joint_state_period)
        self.lock = threading.Lock()
        r = self.registry
        self.goals = Counter("miles_goals", "Goals by final outcome.", ["outcome"], registry=r)
        self.skill_runs = Counter(
            "miles_skill_runs",
            "Skill requests that ran, by final state.",
            ["arm", "skill", "state"],
            registry=r,
        )
        self.decision = Histogram(
            "miles_planner_decision_seconds",
            "How long the planner took to decide a plan (first plans and replans).",
            buckets=DECISION_BUCKETS,
            registry=r,
        )
        self.interventions = Counter(
            "miles_safety_interventions",
            "Safety supervisor interventions by kind (throttled ones included).",
            ["arm", "kind"],
            registry=r,
        )
        self.violations = Counter(
            "miles_safety_violations",
            "Requests the safety supervisor refused, by the rule they broke.",
            ["arm", "kind"],
            registry=r,
        )
        self.estops = Counter("miles_estops", "E-stop latches.", ["arm"], registry=r)
        self.canary_decisions = Counter(
            "miles_canary_decisions",
            "Canary rollout decisions (promote, rollback, continue) on candidate outcomes.",
            ["arm", "skill", "decision"],
            registry=r,
        )
        self.canary_fallbacks = Counter(
            "miles_canary_fallbacks",
            "Candidate requests that fell back to the active version mid-request.",
            ["arm", "skill"],
            registry=r,
        )
        self.anomalies = Counter(
            "miles_anomalies",
            "Stalls, stale robot state, refused requests, malformed messages.",
            ["arm", "kind"],
            registry=r,
        )
        self.jitter = Histogram(
            "miles_loop_jitter_seconds",
            "Distance of each /joint_states period from the nominal one.",
            ["arm"],
            buckets=JITTER_BUCKETS,
            registry=r,
        )
        for outcome in FINAL_GOAL_OUTCOMES:
            self.goals.labels(outcome)
        for arm in arms:
            self.estops.labels(arm)
            for kind in ANOMALIES:
                self.anomalies.labels(arm, kind)
        self._jitter = {arm: self.jitter.labels(arm) for arm in arms}
        self._last_stamp: dict[str, float] = {}
        self._goals_finished = _Recent()
        self._goals_received = 0
        self._finished = {outcome: 0 for outcome in FINAL_GOAL_OUTCOMES}
        self._skill_ends = _Recent()
        self._skills: dict[tuple[str, str], _SkillTally] = {}
        self._plans = _Recent()
        self._estop: dict[str, bool] = {}
        self._warned: dict[str, float] = {}
        r.register(_Ratios(self))
        self._handlers: dict[str, Callable[[Mapping, str], None]] = {
            MANAGER_STATUS: self.on_manager_status,
            PLAN: self.on_plan,
            SKILL_STATUS: self.on_skill_status,
            SAFETY_STATE: self.on_safety_state,
            SAFETY_EVENTS: self.on_safety_event,
        }

    # -- input ----------------------------------------------------------------------------
    def handle(self, stream: str, payload: str | bytes | Mapping, arm: str = "") -> bool:
        """Read one message of ``stream`` (a kind above; ``payload`` its JSON text or the
        decoded object). False, with ``miles_anomalies_total{kind="malformed"}`` counted
        and a warning logged (rate-limited), when it cannot be read; KeyError for an
        unknown ``stream``."""
        handler = self._handlers[stream]
        try:
            data = json.loads(payload) if isinstance(payload, str | bytes) else payload
            if not isinstance(data, Mapping):
                raise ValueError("not a JSON object")
            handler(data, arm)
            return True
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            self.anomalies.labels(arm, "malformed").inc()
            now = time.monotonic()
            if now - self._warned.get(stream, -math.inf) >= LOG_EVERY_S:
                self._warned[stream] = now
                logger.warning("metrics: a %s message ignored: %s", stream, exc)
            return False

    def on_manager_status(self, status: Mapping, arm: str = "") -> None:
        """A ``/miles/manager/status``: a final outcome counts once per ``goal_seq``. A
        ``goals_received`` lower than before is a restarted manager (its goal_seq starts
        over)."""
        outcome, seq = status["outcome"], status["goal_seq"]
        if outcome not in GOAL_OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise TypeError(f"goal_seq {seq!r} is not an integer")
        received = status.get("goals_received")
        with self.lock:
            if isinstance(received, int):
                if received < self._goals_received:
                    self._goals_finished.clear()
                self._goals_received = received
            if outcome not in FINAL_GOAL_OUTCOMES or not self._goals_finished.add(seq):
                return
            self._finished[outcome] += 1
        self.goals.labels(outcome).inc()
        if outcome == REFUSED and not status.get("trace_id"):  # the manager's, not the plan's
            self.anomalies.labels(arm, "refused_goal").inc()

    def on_plan(self, plan: Mapping, arm: str = "") -> None:
        """A ``/miles/plan``: its ``latency_s``, once per (trace id, replans)."""
        latency = _number(plan["latency_s"], "latency_s")
        if latency < 0:
            raise ValueError(f"latency_s {latency} < 0")
        key = (plan.get("trace_id"), plan.get("replans"), plan.get("goal_seq"))
        with self.lock:
            if plan.get("trace_id") and not self._plans.add(key):
                return
        self.decision.observe(latency)

    def on_skill_status(self, status: Mapping, arm: str = "") -> None:
        """A ``/miles/skill/status``: a final one counts once per (arm, request id)."""
        state, rid, skill = status["state"], status["id"], status["skill"]
        if state not in SKILL_STATES:
            raise ValueError(f"unknown skill state {state!r}")
        if not isinstance(rid, str) or not isinstance(skill, str):
            raise TypeError("id and skill must be strings")
        if state not in FINAL_SKILL_STATES:
            return
        reason = status.get("reason") or ""
        if not isinstance(reason, str):
            raise TypeError("reason must be a string")
        ret = status.get(SKILL_RETURN)
        if ret is not None:
            ret = _number(ret, SKILL_RETURN)
        with self.lock:
            if rid and not self._skill_ends.add((arm, rid)):
                return
            refused = reason.startswith(REFUSED_PREFIX)
            if not refused:
                tally = self._skills.setdefault((arm, skill), _SkillTally())
                tally.runs += 1
                tally.succeeded += state == SUCCEEDED
                if ret is not None:
                    tally.return_sum += ret
                    tally.returns += 1
        if refused:
            self.anomalies.labels(arm, "refused_skill").inc()
            return
        self.skill_runs.labels(arm, skill, state).inc()
        self._count_canary(status.get(SKILL_CANARY), arm, skill)
        if reason.startswith(STALLED_PREFIX):
            self.anomalies.labels(arm, "stall").inc()
        elif reason.startswith(STATE_LOST):
            self.anomalies.labels(arm, "stale_state").inc()

    def _count_canary(self, canary, arm: str, skill: str) -> None:
        """A final status's canary key (:data:`SKILL_CANARY`): its decision and fallback."""
        if not isinstance(canary, Mapping):
            return
        record = canary.get("decision")
        if isinstance(record, Mapping) and record.get("decision") in CANARY_DECISIONS:
            self.canary_decisions.labels(arm, skill, record["decision"]).inc()
        if canary.get("fallback"):
            self.canary_fallbacks.labels(arm, skill).inc()

    def on_safety_event(self, event: Mapping, arm: str = "") -> None:
        """A ``/miles/safety/events`` event: itself plus the ``suppressed`` ones of its
        kind; context kinds (``reset``, ``resume``, ...) are not interventions."""
        kind = event["kind"]
        if not isinstance(kind, str) or not kind:
            raise TypeError(f"kind {kind!r} is not a name")
        suppressed = event.get("suppressed") or 0
        if not isinstance(suppressed, int) or isinstance(suppressed, bool) or suppressed < 0:
            raise ValueError(f"suppressed {suppressed!r} is not a count")
        if kind in NOT_INTERVENTIONS:
            return
        self.interventions.labels(arm, kind).inc(1 + suppressed)
        if kind in REJECTION_KINDS:
            self.violations.labels(arm, kind).inc(1 + suppressed)

    def on_safety_state(self, state: Mapping, arm: str = "") -> None:
        """A ``/miles/safety/state``: an e-stop latch when ``estop`` turns true (the first
        state heard counts when latched: it latched before the monitor listened)."""
        estop = state["estop"]
        if not isinstance(estop, bool):
            raise TypeError(f"estop {estop!r} is not a boolean")
        reason = state.get("reason") or ""
        with self.lock:
            latched = estop and not self._estop.get(arm, False)
            self._estop[arm] = estop
        if latched:
            self.estops.labels(arm).inc()
            if str(reason).startswith(STATE_LOST):
                self.anomalies.labels(arm, "stale_state").inc()

    def on_joint_state(self, stamp: float, arm: str = "") -> None:
        """The header stamp (s) of a ``/joint_states`` message of ``arm``: the distance of
        its period from the nominal one (a stamp not after the previous one starts over)."""
        last = self._last_stamp.get(arm)
        self._last_stamp[arm] = stamp
        if last is None or not stamp > last:
            return
        child = self._jitter.get(arm)
        if child is None:
            child = self._jitter[arm] = self.jitter.labels(arm)
        child.observe(abs(stamp - last - self.nominal_period))

    # -- derived values (read at scrape time) -----------------------------------------------
    def completion_ratio(self) -> float | None:
        """Succeeded / finished goals (None before the first finished goal)."""
        with self.lock:
            finished = sum(self._finished.values())
            return self._finished[SUCCEEDED] / finished if finished else None

    def skill_tallies(self) -> dict[tuple[str, str], _SkillTally]:
        """A copy of each (arm, skill)'s tally."""
        with self.lock:
            return {k: _SkillTally(**vars(v)) for k, v in self._skills.items()}


class _Ratios(Collector):
    """The gauges computed from the tallies when scraped: the completion ratio, each
    skill's success ratio and mean return (absent until there is something to divide)."""

    def __init__(self, metrics: CellMetrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[GaugeMetricFamily]:
        ratio = GaugeMetricFamily(
            "miles_task_completion_ratio", "Succeeded goals / finished goals."
        )
        value = self.metrics.completion_ratio()
        if value is not None:
            ratio.add_metric([], value)
        yield ratio
        success = GaugeMetricFamily(
            "miles_skill_success_ratio",
            "Succeeded runs / runs of a skill.",
            labels=["arm", "skill"],
        )
        mean = GaugeMetricFamily(
            "miles_skill_mean_return",
            "Mean episode return (the task's dense reward) of a skill's runs.",
            labels=["arm", "skill"],
        )
        for (arm, skill), tally in sorted(self.metrics.skill_tallies().items()):
            success.add_metric([arm, skill], tally.succeeded / tally.runs)
            if tally.returns:
                mean.add_metric([arm, skill], tally.return_sum / tally.returns)
        yield success
        yield mean


def _number(value, name: str) -> float:
    """``value`` as a finite float; TypeError / ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} {value!r} is not a number")
    if not math.isfinite(value):
        raise ValueError(f"{name} {value!r} is not finite")
    return float(value)


class MetricsServer:
    """A registry served over HTTP (``/metrics``) on a daemon thread until :meth:`close`."""

    def __init__(self, registry: CollectorRegistry, port: int = 0, addr: str = "127.0.0.1"):
        """``port`` 0: a free one (:attr:`port` says which)."""
        self.server, self.thread = start_http_server(port, addr=addr, registry=registry)
        self.host = addr
        self.port = int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/metrics"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5.0)


def serve(registry: CollectorRegistry, port: int = 0, addr: str = "127.0.0.1") -> MetricsServer:
    """Serve ``registry`` on ``addr:port`` (loopback by default; 0: a free port)."""
    return MetricsServer(registry, port, addr)
