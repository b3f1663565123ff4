"""``miles up --scene config/scene_dual.yaml`` as a user runs it (a subprocess): it brings
up sim_node and a safety and a skill node per arm, both arms' occupancy appears on
``/miles/safety/occupancy`` (heard by a probe in this process on the same ROS domain),
and Ctrl-C stops it with exit status 0 and no traceback. A scene file that does not
load is refused before any node is built. Runs on a ROS domain of its own
(tests/ros_domains.py)."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

pytest.importorskip("rclpy")

from std_msgs.msg import String  # noqa: E402

from miles_ros.params.safety import SafetyNodeNames  # noqa: E402
from miles_ros.ros.clients import short_lived_node  # noqa: E402
from miles_ros.ros.qos import OCCUPANCY_QOS  # noqa: E402
from miles_ros.safety import Occupancy  # noqa: E402
from tests.miles_up import lines_until, miles_up  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DUAL = ROOT / "config" / "scene_dual.yaml"
DOMAIN = domain_id()


def _heard_arms(timeout: float) -> set[str]:
    """The arms whose occupancy a probe on DOMAIN hears within ``timeout`` s."""
    arms: set[str] = set()
    done = threading.Event()

    def on_occupancy(msg: String) -> None:
        arms.add(Occupancy.from_json(msg.data).arm)
        if len(arms) >= 2:
            done.set()

    with short_lived_node("up_scene_probe", DOMAIN) as (node, executor):
        topic = SafetyNodeNames().occupancy_topic
        node.create_subscription(String, topic, on_occupancy, OCCUPANCY_QOS)
        deadline = node.get_clock().now().nanoseconds + int(timeout * 1e9)
        while not done.is_set() and node.get_clock().now().nanoseconds < deadline:
            executor.spin_once(timeout_sec=0.1)
    return arms


def test_miles_up_with_the_dual_scene_runs_both_arms_and_stops_on_ctrl_c():
    with miles_up("--scene", str(DUAL), "--no-manager", "--domain-id", str(DOMAIN)) as process:
        seen = lines_until(process, " up ")
        assert process.poll() is None, "".join(seen)
        assert "starting sim, safety/left_arm, safety/right_arm, skills/left_arm" in seen[0]
        assert "left_arm/safety_node" in seen[-1] and "right_arm/skill_node" in seen[-1]
        arms = _heard_arms(timeout=60.0)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert arms == {"left_arm", "right_arm"}
    assert process.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    assert "shutting down" in out


def test_miles_up_refuses_a_scene_that_does_not_load(tmp_path):
    bad = tmp_path / "scene.yaml"
    bad.write_text("arms: [{name: left_arm, base_position: [0, 0, 0]}, {name: left_arm}]\n")
    with miles_up("--scene", str(bad), "--sim", "none", "--domain-id", str(DOMAIN)) as process:
        out, err = process.communicate(timeout=60)
    assert process.returncode == 2, (out, err)
    assert "--scene" in err and "Traceback" not in err
    nope = str(tmp_path / "nope.yaml")
    with miles_up("--scene", nope, "--domain-id", str(DOMAIN)) as missing:
        out, err = missing.communicate(timeout=60)
    assert missing.returncode == 2 and "--scene" in err, (out, err)


def test_the_cell_launch_file_declares_its_arguments_and_runs_installed_executables():
    """launch/cell.launch.py (needs a ROS distro to run): read as text here."""
    import ast

    from tests.test_launch_files import console_scripts, declared_arguments

    tree = ast.parse((ROOT / "launch" / "cell.launch.py").read_text())
    declared = declared_arguments(ROOT / "launch" / "cell.launch.py")
    assert declared == {"scene_file", "sim", "use_manager", "params_file"}
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    scripts = console_scripts()
    for executable in ("sim_node", "safety_node", "skill_node", "manager_node"):
        assert executable in strings and executable in scripts
