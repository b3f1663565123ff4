"""`miles demo --scripted` end to end (the interim scripted Reach in PyBullet)."""

import json

import numpy as np
from PIL import Image

from miles_ros import cli


def test_miles_demo_runs_end_to_end_and_writes_pictures(tmp_path, capsys):
    out = tmp_path / "demo"
    assert cli.main(["demo", "--scripted", "--out", str(out), "--seed", "1"]) == 0
    text = capsys.readouterr().out
    for name in ("red_cube", "green_cube", "blue_cube"):
        assert name in text
    assert "3/3 targets reached" in text
    for missing in ("ONNX skills", "ROS 2 node graph", "safety supervisor", "language-model"):
        assert missing in text
    before = np.asarray(Image.open(out / "before.png"))
    after = np.asarray(Image.open(out / "after.png"))
    assert before.shape == after.shape == (480, 640, 3)
    assert before.std() > 10 and not np.array_equal(before, after)  # the arm moved
    report = json.loads((out / "report.json").read_text())
    assert report["success"] is True
    assert [t["object"] for t in report["targets"]] == ["red_cube", "green_cube", "blue_cube"]
    assert all(t["final_distance_m"] < 0.05 for t in report["targets"])


def test_miles_demo_rejects_bad_arguments(capsys):
    import pytest

    from miles_ros.commands import demo

    with pytest.raises(SystemExit):
        demo.main(["--max-steps", "0"])
    assert "--max-steps" in capsys.readouterr().err


def test_miles_demo_goal_needs_the_manager(capsys):
    import pytest

    from miles_ros.commands import demo

    for argv in (["--goal", "go home", "--no-manager"], ["--goal", "  "]):
        with pytest.raises(SystemExit):
            demo.main(argv)
        assert "--goal" in capsys.readouterr().err
