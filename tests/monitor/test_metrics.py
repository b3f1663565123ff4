"""CellMetrics (no ROS): fed the graph's JSON messages, rendered as the Prometheus text
format and read back with prometheus_client's own parser. Each counter moves with exactly
the messages that cause it and no other; republished final statuses count once; malformed
messages are counted as an anomaly, never raised."""

from __future__ import annotations

import json
import math
import urllib.request

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from miles_ros import interfaces as names
from miles_ros.monitor.metrics import (
    ANOMALIES,
    MANAGER_STATUS,
    PLAN,
    SAFETY_EVENTS,
    SAFETY_STATE,
    SKILL_STATUS,
    CellMetrics,
    serve,
)

Samples = dict[tuple[str, frozenset], float]


def samples_of(text: str) -> Samples:
    """Every sample of a Prometheus text, parsed: (name, labels) -> value."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def samples(metrics: CellMetrics) -> Samples:
    """Every sample of the rendered registry, parsed back (:func:`samples_of`)."""
    return samples_of(generate_latest(metrics.registry).decode())


def value(s: Samples, name: str, **labels) -> float | None:
    return s.get((name, frozenset(labels.items())))


def changed(before: Samples, after: Samples) -> set[tuple[str, frozenset]]:
    """The samples that moved (``*_created`` timestamps aside), new ones included."""
    return {
        key for key, v in after.items() if not key[0].endswith("_created") and before.get(key) != v
    }


def status(seq: int, outcome: str, trace_id: str | None = "t1", received: int | None = None):
    return {
        "goal": "move to the red cube",
        "goal_seq": seq,
        "goals_received": seq if received is None else received,
        "outcome": outcome,
        "trace_id": trace_id,
    }


def skill(rid: str, state: str, name: str = "reach", reason: str = "", **more):
    return {"id": rid, "skill": name, "state": state, "progress": 0.5, "reason": reason, **more}


def test_the_endpoint_text_parses_and_starts_at_zero():
    m = CellMetrics(arms=("left_arm", "right_arm"))
    s = samples(m)
    for outcome in names.FINAL_GOAL_OUTCOMES:
        assert value(s, "miles_goals_total", outcome=outcome) == 0
    for arm in ("left_arm", "right_arm"):
        assert value(s, "miles_estops_total", arm=arm) == 0
        for kind in ANOMALIES:
            assert value(s, "miles_anomalies_total", arm=arm, kind=kind) == 0
    assert value(s, "miles_planner_decision_seconds_count") == 0
    assert value(s, "miles_task_completion_ratio") is None  # nothing to divide yet


def test_goal_outcomes_count_once_per_goal_and_give_the_completion_ratio():
    m = CellMetrics()
    before = samples(m)
    for message in (status(0, names.IDLE, None), status(1, names.PLANNING), status(1, "running")):
        assert m.handle(MANAGER_STATUS, message)
    assert changed(before, samples(m)) == set()
    m.handle(MANAGER_STATUS, status(1, names.SUCCEEDED))
    m.handle(MANAGER_STATUS, json.dumps(status(1, names.SUCCEEDED)))  # a heartbeat
    s = samples(m)
    assert changed(before, s) == {
        ("miles_goals_total", frozenset({("outcome", "succeeded")})),
        ("miles_task_completion_ratio", frozenset()),
    }
    assert value(s, "miles_task_completion_ratio") == 1.0
    m.handle(MANAGER_STATUS, status(2, names.FAILED, "t2"))
    m.handle(MANAGER_STATUS, status(3, names.ESTOPPED, "t3"))
    m.handle(MANAGER_STATUS, status(4, names.REFUSED, "t4"))  # the planner's refusal
    s = samples(m)
    for outcome in (names.FAILED, names.ESTOPPED, names.REFUSED):
        assert value(s, "miles_goals_total", outcome=outcome) == 1
    assert value(s, "miles_task_completion_ratio") == pytest.approx(0.25)
    assert value(s, "miles_anomalies_total", arm="", kind="refused_goal") == 0


def test_a_goal_the_manager_refuses_is_an_anomaly_and_the_running_goal_still_counts():
    m = CellMetrics()
    m.handle(MANAGER_STATUS, status(1, "running"))
    m.handle(MANAGER_STATUS, status(2, names.REFUSED, None))  # busy: no trace id
    m.handle(MANAGER_STATUS, status(1, "running", received=2))  # "resumed"
    m.handle(MANAGER_STATUS, status(1, names.SUCCEEDED, received=2))
    s = samples(m)
    assert value(s, "miles_goals_total", outcome="refused") == 1
    assert value(s, "miles_goals_total", outcome="succeeded") == 1
    assert value(s, "miles_anomalies_total", arm="", kind="refused_goal") == 1


def test_a_restarted_manager_counts_its_goals_again():
    m = CellMetrics()
    m.handle(MANAGER_STATUS, status(1, names.SUCCEEDED, received=3))
    m.handle(MANAGER_STATUS, status(0, names.IDLE, None, received=0))  # restarted
    m.handle(MANAGER_STATUS, status(1, names.SUCCEEDED, received=1))
    assert value(samples(m), "miles_goals_total", outcome="succeeded") == 2


def test_skill_runs_ratio_and_mean_return_from_final_statuses_only():
    m = CellMetrics()
    before = samples(m)
    m.handle(SKILL_STATUS, skill("a", names.RUNNING))
    assert changed(before, samples(m)) == set()
    m.handle(SKILL_STATUS, skill("a", names.SUCCEEDED, **{names.SKILL_RETURN: -2.0}))
    m.handle(SKILL_STATUS, skill("a", names.SUCCEEDED, **{names.SKILL_RETURN: -2.0}))  # again
    m.handle(
        SKILL_STATUS, skill("b", names.FAILED, reason="timeout after 4.0 s", **{"return": -6})
    )
    m.handle(SKILL_STATUS, skill("h", names.SUCCEEDED, name="home"))  # scripted: no return
    s = samples(m)
    assert value(s, "miles_skill_runs_total", arm="", skill="reach", state="succeeded") == 1
    assert value(s, "miles_skill_runs_total", arm="", skill="reach", state="failed") == 1
    assert value(s, "miles_skill_success_ratio", arm="", skill="reach") == 0.5
    assert value(s, "miles_skill_mean_return", arm="", skill="reach") == -4.0
    assert value(s, "miles_skill_success_ratio", arm="", skill="home") == 1.0
    assert value(s, "miles_skill_mean_return", arm="", skill="home") is None
    for kind in ANOMALIES:  # a timeout is none of them
        assert value(s, "miles_anomalies_total", arm="", kind=kind) == 0


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        (names.STALLED_PREFIX + " the TCP moved < 1 cm", "stall"),
        (names.STATE_LOST, "stale_state"),
        (names.REFUSED_PREFIX + " unknown skill 'fly'", "refused_skill"),
    ],
)
def test_stalls_lost_state_and_refusals_are_anomalies(reason, kind):
    m = CellMetrics()
    before = samples(m)
    m.handle(SKILL_STATUS, skill("a", names.FAILED, reason=reason))
    m.handle(SKILL_STATUS, skill("a", names.FAILED, reason=reason))
    moved = changed(before, samples(m))
    assert ("miles_anomalies_total", frozenset({("arm", ""), ("kind", kind)})) in moved
    assert value(samples(m), "miles_anomalies_total", arm="", kind=kind) == 1
    runs = {key for key in moved if key[0] == "miles_skill_runs_total"}
    assert bool(runs) == (kind != "refused_skill")  # a refusal never ran


def test_planner_decisions_fill_the_histogram_once_per_plan():
    m = CellMetrics()
    plan = {"goal": "g", "steps": [], "trace_id": "t1", "latency_s": 0.3, "replans": 0}
    m.handle(PLAN, plan)
    m.handle(PLAN, plan)  # the same message again (a late joiner's latched copy)
    m.handle(PLAN, {**plan, "latency_s": 4.0, "replans": 1})  # a replan
    s = samples(m)
    assert value(s, "miles_planner_decision_seconds_count") == 2
    assert value(s, "miles_planner_decision_seconds_sum") == pytest.approx(4.3)
    assert value(s, "miles_planner_decision_seconds_bucket", le="0.5") == 1
    assert value(s, "miles_planner_decision_seconds_bucket", le="5.0") == 2


def test_interventions_and_violations_by_kind_with_the_throttled_ones():
    m = CellMetrics()
    before = samples(m)
    m.handle(SAFETY_EVENTS, {"time": 1.0, "kind": "velocity_limit", "suppressed": 4})
    m.handle(SAFETY_EVENTS, {"time": 1.1, "kind": "stale", "suppressed": 0})
    m.handle(SAFETY_EVENTS, {"time": 1.2, "kind": "resume", "suppressed": 0})  # context
    s = samples(m)
    assert value(s, "miles_safety_interventions_total", arm="", kind="velocity_limit") == 5
    assert value(s, "miles_safety_interventions_total", arm="", kind="stale") == 1
    assert value(s, "miles_safety_violations_total", arm="", kind="stale") == 1
    moved = {key[0] for key in changed(before, s)}
    assert moved == {"miles_safety_interventions_total", "miles_safety_violations_total"}
    assert value(s, "miles_safety_violations_total", arm="", kind="velocity_limit") is None
    assert value(s, "miles_safety_interventions_total", arm="", kind="resume") is None


def test_the_real_supervisors_refusals_are_violations():
    """The kinds a SafetySupervisor records when it refuses requests (no robot state yet,
    e-stop latched, a request of the wrong length) count as violations; its e-stop
    counts as an intervention, not a violation."""
    from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor

    supervisor = SafetySupervisor(SafetyConfig(audit_throttle=0.0, fault_violations=0))
    events: list[str] = []
    supervisor.audit.listeners.append(lambda event, line: events.append(line))
    arm = list(supervisor.config.joint_names)
    supervisor.submit(JointRequest(arm, [0.0] * 7, 1.0), 1.0)  # no robot state yet
    supervisor.submit(JointRequest(arm, [0.0] * 6, 1.1), 1.1)  # wrong length
    supervisor.trigger_estop("test", 1.2)
    supervisor.submit(JointRequest(arm, [0.0] * 7, 1.3), 1.3)  # latched
    m = CellMetrics()
    for line in events:
        assert m.handle(SAFETY_EVENTS, line)
    s = samples(m)
    for kind in ("no_robot_state", "wrong_length", "estop_latched"):
        assert value(s, "miles_safety_violations_total", arm="", kind=kind) == 1, kind
    assert value(s, "miles_safety_interventions_total", arm="", kind="estop") == 1
    assert value(s, "miles_safety_violations_total", arm="", kind="estop") is None


def test_estops_count_latches_not_states_and_lost_state_is_an_anomaly():
    m = CellMetrics(arms=("left_arm", "right_arm"))
    latched = {"estop": True, "mode": "stopping", "interventions": 1, "reason": "button"}
    free = {"estop": False, "mode": "hold", "interventions": 1, "reason": "reset"}
    for state in (free, latched, latched, {**latched, "mode": "estop"}, free, latched):
        m.handle(SAFETY_STATE, state, "left_arm")
    lost = {**latched, "reason": names.STATE_LOST + ": no joint_states for 0.600 s"}
    m.handle(SAFETY_STATE, lost, "right_arm")  # first heard latched: it latched
    s = samples(m)
    assert value(s, "miles_estops_total", arm="left_arm") == 2
    assert value(s, "miles_estops_total", arm="right_arm") == 1
    assert value(s, "miles_anomalies_total", arm="left_arm", kind="stale_state") == 0
    assert value(s, "miles_anomalies_total", arm="right_arm", kind="stale_state") == 1


def test_loop_jitter_is_the_distance_from_the_nominal_period():
    m = CellMetrics(joint_state_period=0.004)
    for stamp in (10.0, 10.004, 10.0085, 10.012, 10.012, 10.0):  # on time, +-0.5 ms
        m.on_joint_state(stamp)
    s = samples(m)
    assert value(s, "miles_loop_jitter_seconds_count", arm="") == 3
    assert value(s, "miles_loop_jitter_seconds_sum", arm="") == pytest.approx(0.001, abs=1e-9)
    assert value(s, "miles_loop_jitter_seconds_bucket", arm="", le="0.0001") == 1
    assert value(s, "miles_loop_jitter_seconds_bucket", arm="", le="0.001") == 3
    m.on_joint_state(10.004)  # after a stamp that went back: a period again
    assert value(samples(m), "miles_loop_jitter_seconds_count", arm="") == 4


@pytest.mark.parametrize(
    ("stream", "payload"),
    [
        (MANAGER_STATUS, "{not json"),
        (MANAGER_STATUS, "[1, 2]"),
        (MANAGER_STATUS, {"outcome": "exploded", "goal_seq": 1}),
        (MANAGER_STATUS, {"outcome": "succeeded", "goal_seq": "one"}),
        (PLAN, {"trace_id": "t"}),
        (PLAN, {"latency_s": "fast"}),
        (PLAN, {"latency_s": math.nan}),
        (SKILL_STATUS, {"id": "a", "skill": "reach"}),
        (SKILL_STATUS, skill("a", "dancing")),
        (SKILL_STATUS, skill("a", names.SUCCEEDED, **{"return": "lots"})),
        (SAFETY_EVENTS, {"kind": 3}),
        (SAFETY_EVENTS, {"kind": "stale", "suppressed": -1}),
        (SAFETY_STATE, {"estop": "yes"}),
        (SAFETY_STATE, {}),
        (SAFETY_STATE, b"\xff\xfe"),
    ],
)
def test_a_malformed_message_is_an_anomaly_and_moves_nothing_else(stream, payload):
    m = CellMetrics()
    before = samples(m)
    assert m.handle(stream, payload) is False
    assert changed(before, samples(m)) == {
        ("miles_anomalies_total", frozenset({("arm", ""), ("kind", "malformed")}))
    }


def test_an_unknown_stream_is_a_programming_error_not_an_anomaly():
    m = CellMetrics()
    with pytest.raises(KeyError):
        m.handle("goal", {"outcome": "succeeded"})
    assert value(samples(m), "miles_anomalies_total", arm="", kind="malformed") == 0


def test_two_cells_never_share_counters():
    a, b = CellMetrics(), CellMetrics()
    a.handle(SAFETY_STATE, {"estop": True, "reason": ""})
    assert value(samples(a), "miles_estops_total", arm="") == 1
    assert value(samples(b), "miles_estops_total", arm="") == 0


def test_the_server_serves_the_registry_on_loopback():
    m = CellMetrics()
    m.handle(SAFETY_STATE, {"estop": True, "reason": ""})
    server = serve(m.registry, 0)
    try:
        assert server.url == f"http://127.0.0.1:{server.port}/metrics" and server.port > 0
        with urllib.request.urlopen(server.url, timeout=10) as response:
            text = response.read().decode()
    finally:
        server.close()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    (sample,) = [s for s in families["miles_estops"].samples if s.name == "miles_estops_total"]
    assert sample.value == 1


def test_canary_decisions_and_fallbacks_count_from_final_statuses():
    m = CellMetrics()
    record = {"decision": names.CANARY_CONTINUE, "llr": 1.2}
    fell_back = {"version": "active", "fallback": "stalled: ...", "decision": record}
    m.on_skill_status(skill("c1", "running", canary=fell_back))  # not final: not counted
    m.on_skill_status(skill("c1", "succeeded", canary=fell_back))
    m.on_skill_status(skill("c1", "succeeded", canary=fell_back))  # the same request again
    rollback = {"version": "candidate", "decision": {"decision": names.CANARY_ROLLBACK}}
    m.on_skill_status(skill("c2", "failed", canary=rollback))
    m.on_skill_status(skill("c3", "succeeded", canary={"version": "active"}))
    s = samples(m)
    labels = {"arm": "", "skill": "reach"}
    assert value(s, "miles_canary_decisions_total", decision="continue", **labels) == 1
    assert value(s, "miles_canary_decisions_total", decision="rollback", **labels) == 1
    assert value(s, "miles_canary_fallbacks_total", **labels) == 1
