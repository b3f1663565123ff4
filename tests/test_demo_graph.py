"""`miles demo` with skills: the ROS 2 graph demo (skills -> safety -> PyBullet), with
an e-stop mid-motion, the hold, the reset, a report and pictures. By default from a goal
in words through manager_node (the real planner with the shipped adapter); with
``--no-manager`` a fixed skill sequence (the shipped skills when they exist, else the
scripted linear reach skill)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("rclpy")

from miles_ros import cli  # noqa: E402
from miles_ros.demo_goal import estop_step, remainder_goal  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402
from tests.runtime.skill_fixtures import linear_reach_skill, shipped_reach  # noqa: E402
from tests.view.rrd_reader import assert_tcp_at_fk, read_recording  # noqa: E402

PLAN = [
    {"skill": "reach", "params": {"target": "red_cube"}},
    {"skill": "home", "params": {}},
    {"skill": "reach", "params": {"target": "blue_cube"}},
    {"skill": "home", "params": {}},
]


def test_the_estop_interrupts_the_last_moving_step_and_the_rest_is_asked_for_in_words():
    assert estop_step(PLAN) == 2
    assert estop_step(PLAN[:2]) == 0
    assert estop_step([{"skill": "home", "params": {}}]) is None
    assert remainder_goal(PLAN, 2) == "go home, then move to the blue cube, then go home"
    assert remainder_goal(PLAN, 1) == (
        "go home, then move to the blue cube, then go home"
    )  # a leading home is not repeated
    assert remainder_goal(PLAN, 0).startswith("go home, then move to the red cube, then go")
    cell = [
        {"skill": "pick_place", "params": {"object": "red_cube", "target": "left_pad"}},
        {"skill": "push", "params": {"object": "blue_cube", "target": "right_pad"}},
    ]  # the README's cell goal: after an e-stop in the push, the pick is not asked again
    assert remainder_goal(cell, 1) == "go home, then slide the blue cube to the right pad"
    assert remainder_goal(cell, 0).startswith("go home, then put the red cube on the left pad")
    unknown = [{"skill": "wave", "params": {}}]
    assert remainder_goal(unknown, 0) is None  # the demo then sends the whole goal again


@pytest.mark.slow  # ~20 s: the graph runs the skills in real time
def test_miles_demo_no_manager_runs_the_graph_with_an_estop_and_writes_pictures(tmp_path, capsys):
    """Also with its 3D view recorded (``--record FILE.rrd``): the arm at the FK of its
    logged joints, the camera frames and the skills' lines are in it."""
    rrd = tmp_path / "demo.rrd"
    args = ["demo", "--no-manager", "--out", str(tmp_path / "demo"), "--record", str(rrd)]
    args += ["--domain-id", str(domain_id())]  # the default, 201-230, is in a worker's band
    if shipped_reach() is None:
        linear_reach_skill(tmp_path / "skills")
        args += ["--skills", str(tmp_path / "skills")]
    code = cli.main(args)
    captured = capsys.readouterr()
    text = captured.out
    assert code == 0, text + captured.err[-4000:]
    report = json.loads((tmp_path / "demo" / "report.json").read_text())
    assert report["success"] is True
    assert report["graph"] == ["sim_node", "safety_node", "skill_node"]
    states = [r["state"] for r in report["runs"]]
    assert states.count("estopped") == 1 and "failed" not in states[-2:]
    estop = report["estop"]
    assert estop["held"] and estop["reset"] and estop["hold_drift_rad"] < 1e-3
    assert estop["arm_speed_at_press_rad_s"] > 0.05  # pressed mid-motion
    assert report["safety"]["events_by_kind"]["estop"] == 1
    assert "E-stop:" in text and "estopped" in text
    pictures = [np.asarray(Image.open(tmp_path / "demo" / p)) for p in report["pictures"]]
    assert all(p.shape == (480, 640, 3) and p.std() > 10 for p in pictures)
    assert not np.array_equal(pictures[0], pictures[1])  # the arm is elsewhere at the e-stop
    view = read_recording(rrd)
    assert_tcp_at_fk(view)
    assert len(view["/camera/image"].rows) == len(report["pictures"])
    skill_lines = [row["TextLog:text"][0] for _, row in view["/timeline/skills"].rows]
    assert sum("estopped" in line for line in skill_lines) == 1


@pytest.mark.slow  # ~1 min on 2 busy cores, mostly loading the real planner; kept to one
def test_miles_demo_from_a_goal_plans_runs_estops_resumes_and_succeeds(tmp_path, capsys):
    if shipped_reach() is None:
        pytest.skip("needs the shipped reach skill (the planner plans with its card)")
    out = tmp_path / "demo"
    code = cli.main(["demo", "--out", str(out), "--domain-id", str(domain_id())])
    captured = capsys.readouterr()
    text = captured.out
    assert code == 0, text + captured.err[-4000:]
    report = json.loads((out / "report.json").read_text())
    assert report["success"] is True
    assert report["graph"][-1] == "manager_node"
    assert report["plan"] == PLAN  # the shipped adapter plans the default goal exactly
    first, rest = report["goals"]
    assert first["outcome"] == "estopped" and first["estop_step"] == 2
    assert [e["state"] for e in first["executed"]] == ["succeeded", "succeeded", "estopped"]
    assert rest["goal"] == "go home, then move to the blue cube, then go home"
    assert rest["outcome"] == "succeeded" and rest["plan"] == [PLAN[1], *PLAN[2:]]
    assert all(e["state"] == "succeeded" for e in rest["executed"])
    assert report["outcomes"] == {"succeeded": 5, "estopped": 1}
    estop = report["estop"]
    assert estop["held"] and estop["reset"] and estop["arm_speed_at_press_rad_s"] > 0.05
    assert report["safety"]["events_by_kind"]["estop"] == 1
    assert report["model_load_s"] > 0 and report["replans"] == 0
    # manager_node built the real planner from its parameters (test_manager_node's graph
    # test plans with a fake one and leaves this load to here)
    assert report["model"] == "embedded:gemma3-270m+adapter"
    for line in ("plan (4 steps", "E-STOP pressed", "resuming: goal", "goal ok", "Result:"):
        assert line in text
    pictures = [np.asarray(Image.open(out / p)) for p in report["pictures"]]
    assert all(p.shape == (480, 640, 3) and p.std() > 10 for p in pictures)
    assert not np.array_equal(pictures[0], pictures[1])
