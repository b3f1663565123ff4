"""`miles demo --dual`: the two-arm cell from a goal in words. The report's arithmetic
(task intervals, makespan, time both arms worked at once) on hand-worked timelines, and
one run of the demo's core over real rclpy on loopback in its own ROS domain with the
embedded planner, whose report must hold what the graph did: the plan, both arms' bids
for every announced round, the awards, each arm's tasks, the makespan and the safety
interventions per arm. Whether the two arms succeed at once depends on the safety nodes'
separation; the report says what happened, and so does this test."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from miles_ros.demo_dual import DUAL_GOAL, arm_intervals, both_at_once_s, cell_report

T0 = 100.0


def _req(t, rid, skill="pick_place", trace="tr"):
    return (T0 + t, {"id": rid, "skill": skill, "params": {}, "trace_id": trace})


def _st(t, rid, state, reason=""):
    return (T0 + t, {"id": rid, "state": state, "reason": reason})


def test_task_intervals_come_from_the_requests_and_the_arms_statuses():
    requests = [_req(1.0, "tr:1"), _req(9.0, "tr:3"), _req(9.5, "old:1", trace="old")]
    statuses = [
        _st(1.2, "tr:1", "running"),
        _st(5.0, "tr:1", "running"),
        _st(8.0, "tr:1", "failed", "timeout"),
        _st(9.1, "tr:3", "running"),
    ]
    first, second = arm_intervals(requests, statuses, "tr", T0)
    assert first["requested_s"] == 1.0 and first["started_s"] == 1.2
    assert first["ended_s"] == 8.0 and first["duration_s"] == 7.0
    assert first["state"] == "failed" and first["reason"] == "timeout"
    assert second["ended_s"] is None and second["state"] == "no final status"


def test_both_arms_at_once_is_the_intersection_of_their_busy_time():
    def span(a, b):
        return {"requested_s": a, "ended_s": b}

    left = [span(0.0, 4.0), span(4.0, 6.0), span(10.0, 12.0)]  # busy 0-6, 10-12
    right = [span(5.0, 11.0)]
    assert both_at_once_s({"l": left, "r": right}) == pytest.approx(2.0)  # 5-6, 10-11
    assert both_at_once_s({"l": left, "r": [span(6.0, 10.0)]}) == 0.0  # one after the other
    assert both_at_once_s({"l": left}) == 0.0


def test_the_report_is_built_from_what_was_heard():
    heard = {
        "requests": {"left_arm": [_req(1.0, "tr:1")], "right_arm": [_req(1.5, "tr:2")]},
        "statuses": {
            "left_arm": [_st(1.1, "tr:1", "running"), _st(7.0, "tr:1", "succeeded")],
            "right_arm": [_st(1.6, "tr:2", "running"), _st(9.0, "tr:2", "succeeded")],
        },
        "net": {
            "announce": [(T0 + 0.5, {"task_id": "tr/t1", "round": 1, "trace_id": "tr"})],
            "bid": [
                (T0 + 0.6, {"task_id": "tr/t1", "arm": "left_arm", "cost": 7.4, "trace_id": "tr"}),
                (T0 + 0.6, {"task_id": "x/t1", "arm": "left_arm", "cost": 1.0, "trace_id": "x"}),
            ],
            "award": [(T0 + 0.9, {"task_id": "tr/t1", "arm": "left_arm", "trace_id": "tr"})],
        },
        "safety": {"left_arm": {"interventions": 3, "mode": "normal"}, "right_arm": {}},
        "events": {"left_arm": [{"kind": "cartesian"}, {"kind": "cartesian"}], "right_arm": []},
    }
    final = {"outcome": "succeeded", "trace_id": "tr", "plan": [{"skill": "pick_place"}]}
    report = cell_report("g", final, heard, T0)
    assert report["success"] and report["outcome"] == "succeeded"
    assert [b["cost"] for b in report["bids"]] == [7.4]  # another goal's bid is not ours
    assert report["first_announce_s"] == 0.5 and report["awards"][0]["t_s"] == 0.9
    assert report["makespan_s"] == 8.0  # first request 1.0 to last end 9.0
    assert report["busy_s"] == 13.5 and report["both_arms_at_once_s"] == 5.5
    assert report["overlapped"] and report["succeeded_at_once_s"] == 5.5
    assert report["safety"]["left_arm"]["events_by_kind"] == {"cartesian": 2}
    assert report["safety"]["right_arm"]["interventions"] == 0
    assert report["arms_used"] == ["left_arm", "right_arm"]


def test_miles_demo_dual_refuses_what_it_cannot_run(capsys):
    from miles_ros import cli

    for extra in (["--scripted"], ["--no-manager"]):
        with pytest.raises(SystemExit) as exc:
            cli.main(["demo", "--dual", *extra])
        assert exc.value.code == 2
    assert "--dual needs the manager" in capsys.readouterr().err


@pytest.mark.slow  # 2-4 min on 2 busy cores: the cell's nodes, the planner, 1-3 rounds
def test_the_dual_demo_reports_bids_awards_intervals_makespan_and_safety(tmp_path):
    pytest.importorskip("rclpy")
    from miles_ros.demo_dual import run_dual_demo
    from miles_ros.demo_graph import DemoOptions
    from miles_ros.runtime.library import SkillLibrary
    from tests.ros_domains import domain_id

    if "pick_place" not in SkillLibrary.load().skills:
        pytest.skip("needs the shipped pick_place skill")
    lines: list[str] = []
    report = run_dual_demo(
        tmp_path, DUAL_GOAL, DemoOptions(domain_id=domain_id(), log=lines.append)
    )
    assert json.loads((tmp_path / "report.json").read_text()) == report
    arms = {"left_arm", "right_arm"}
    # the embedded planner plans both tasks in the cell (it planned `home` alone while the
    # cell manager's affordance kept the cards' arm-frame envelopes)
    assert [(s["skill"], s["params"]) for s in report["plan"]] == [
        ("pick_place", {"object": "red_cube", "target": "left_pad"}),
        ("pick_place", {"object": "blue_cube", "target": "right_pad"}),
    ]
    trace = report["trace_id"]
    assert trace and report["outcome"] in ("succeeded", "failed", "timed_out")
    rounds = {(a["task_id"], a["round"]) for a in report["announcements"]}
    assert {"/t1", "/t2"} <= {t[len(trace) :] for t, _ in rounds}
    for task_id, rnd in rounds:  # every arm answered every round, with the goal's trace
        bidders = {
            b["arm"] for b in report["bids"] if (b["task_id"], b["round"]) == (task_id, rnd)
        }
        assert bidders == arms, (task_id, rnd, report["bids"])
    assert all(m["trace_id"] == trace for m in report["bids"] + report["awards"])
    first_two = [a for a in report["awards"] if a["round"] == 1]
    assert {a["arm"] for a in first_two} == arms  # one task per arm in round 1
    # one interval per request an arm was sent: one per award (but for an award the goal
    # ended before its arm was free for it), plus the `home` moves the dispatcher sends an
    # arm that stands where a conflicting task goes
    spans = [i for items in report["intervals"].values() for i in items]
    tasks = [i for i in spans if i["skill"] != "home"]
    assert 2 <= len(tasks) <= len(report["awards"]) and set(report["intervals"]) == arms
    for i in spans:
        assert i["requested_s"] >= report["first_announce_s"]
        if i["ended_s"] is not None:
            assert i["started_s"] is not None and i["ended_s"] >= i["started_s"]
    ends = [i["ended_s"] for i in spans if i["ended_s"] is not None]
    assert report["makespan_s"] == pytest.approx(
        max(ends) - min(i["requested_s"] for i in spans), abs=1e-3
    )
    assert 0.0 <= report["both_arms_at_once_s"] <= report["makespan_s"]
    assert report["overlapped"] is (report["both_arms_at_once_s"] > 0)
    assert report["succeeded_at_once_s"] <= report["both_arms_at_once_s"]
    assert set(report["safety"]) == arms
    assert all(s["interventions"] >= 0 and s["estop"] is False for s in report["safety"].values())
    if report["success"]:
        assert all(t["state"] == "succeeded" for t in report["tasks"])
    else:
        assert report["failure"]
    pictures = {p: np.asarray(Image.open(tmp_path / p)) for p in report["pictures"]}
    assert {"before.png", "after.png"} <= set(pictures)
    assert all(p.shape == (480, 640, 3) and p.std() > 10 for p in pictures.values())
    assert not np.array_equal(pictures["before.png"], pictures["after.png"])  # arms moved
    assert any(line.startswith("  plan: pick_place") for line in lines)
