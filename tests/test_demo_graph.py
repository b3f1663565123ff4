"""`miles demo` with skills: the ROS 2 graph demo (skills -> safety -> PyBullet), with
an e-stop mid-motion, the hold, the reset, a report and pictures. Runs the shipped
skills when they exist, else the scripted linear reach skill."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("rclpy")

from miles_ros import cli  # noqa: E402
from tests.runtime.skill_fixtures import linear_reach_skill, shipped_reach  # noqa: E402


def test_miles_demo_runs_the_graph_with_an_estop_and_writes_pictures(tmp_path, capsys):
    args = ["demo", "--out", str(tmp_path / "demo")]
    if shipped_reach() is None:
        linear_reach_skill(tmp_path / "skills")
        args += ["--skills", str(tmp_path / "skills")]
    code = cli.main(args)
    text = capsys.readouterr().out
    report = json.loads((tmp_path / "demo" / "report.json").read_text())
    assert code == 0, text
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
