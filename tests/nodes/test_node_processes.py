"""Parts in processes of their own (miles_ros/ros/processes.py, graph.PROCESS_PARTS): the
perception node runs as its own executable on the graph's domain, the graph waits for it
by discovery, its poses come from the sim's camera, and no child outlives its parent:
stopped with the graph, on Ctrl-C, and when the parent is killed outright."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import time
from pathlib import Path

import pytest

rclpy = pytest.importorskip("rclpy")

import json  # noqa: E402
import threading  # noqa: E402

from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.ros.graph import PROCESS_PARTS, InProcessGraph, with_perception  # noqa: E402
from miles_ros.ros.processes import orphaned, ros_args  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

HAS_CORE = importlib.util.find_spec("miles_ros.perception.pipeline") is not None
needs_core = pytest.mark.skipif(
    not HAS_CORE,
    reason="the perception core (miles_ros/perception/pipeline.py) is not in this checkout yet",
)
GONE_TIMEOUT_S = 30.0


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def descendants(root: int) -> set[int]:
    """Every live process below ``root`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _parent_of(int(entry))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry))
    out, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_gone(pids: set[int], timeout: float = GONE_TIMEOUT_S) -> set[int]:
    """The pids still alive after waiting up to ``timeout`` s for all to end."""
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)  # polling /proc for the exits, with a deadline
    return {p for p in pids if alive(p)}


def test_perception_is_a_process_part_and_its_arguments_are_ros_args(tmp_path):
    assert PROCESS_PARTS == {"perception"}
    config = tmp_path / "perception.yaml"
    config.write_text("perception_node: {ros__parameters: {}}\n")
    args = ros_args(config, "mine.yaml", {"scene_file": "s.yaml", "publish_rate_hz": 10.0})
    assert args == [
        "--ros-args",
        "--params-file",
        str(config),
        "--params-file",
        "mine.yaml",
        "-p",
        'scene_file:="s.yaml"',
        "-p",
        "publish_rate_hz:=10.0",
    ]
    assert ros_args(tmp_path / "none.yaml", namespace="left_arm")[-2:] == ["-r", "__ns:=/left_arm"]


def test_orphaned_follows_the_parent_named_in_the_environment(monkeypatch):
    monkeypatch.setenv("MILES_PARENT_PID", str(os.getppid()))
    assert orphaned()() is False
    assert "MILES_PARENT_PID" not in os.environ  # not inherited by this process's children
    monkeypatch.setenv("MILES_PARENT_PID", str(os.getpid()))  # not our parent
    assert orphaned()() is True
    assert orphaned()() is False  # no variable: started by hand or by ros2 launch


@needs_core
def test_the_perception_process_publishes_camera_poses_and_stops_with_the_graph():
    parts, values = with_perception(["sim"])
    seen: list[dict] = []
    cond = threading.Condition()

    def keep(msg: String) -> None:
        with cond:
            seen.append(json.loads(msg.data))
            cond.notify_all()

    with InProcessGraph.of_parts(parts, overrides=values, domain_id=domain_id()) as graph:
        assert [c.label for c in graph.processes] == ["perception"]
        child = graph.processes[0]
        assert child.running() and child.pid != os.getpid()
        assert "perception_node" not in [n.get_name() for n in graph.nodes]
        # up by discovery: the graph already sees the node and its publisher
        assert "/perception_node" in graph.nodes[0].get_fully_qualified_node_names()
        probe = graph.add(rclpy.create_node("probe", context=graph.context))
        probe.create_subscription(String, interfaces.SCENE_OBJECTS, keep, COMMAND_QOS)
        graph.spin_in_thread()
        cubes = set(load_scene().objects)

        def from_camera() -> bool:
            return any(
                set(p["objects"]) == cubes
                and p["source"] == "camera"
                and {o["source"] for o in p["objects"].values()} == {"camera"}
                for p in seen
            )

        with cond:
            assert cond.wait_for(from_camera, 90.0), seen[-1:] or "no poses"
    assert child.proc.returncode == 0  # stopped cleanly with the graph (SIGINT)
    assert not alive(child.pid)


@needs_core
@pytest.mark.parametrize("stop", ["SIGINT", "SIGKILL"])
def test_no_child_of_miles_up_outlives_it(stop):
    """``miles up --perception`` starts the perception node in a process of its own;
    Ctrl-C stops the children in order and exits 0 without a traceback; a parent killed
    outright leaves none behind: the perception process sees it is orphaned, the camera's
    processes see their pipes close. (test_perception_graph starts the cell's graph.)"""
    from tests.miles_up import lines_until, miles_up

    args = ["--perception", "--no-manager", "--domain-id", str(domain_id())]
    with miles_up(*args) as process:
        seen = lines_until(process, " up ")
        assert process.poll() is None, "".join(seen)
        assert seen[0].rstrip().endswith(", perception"), seen[0]
        match = re.search(r"perception_node \(process (\d+)\)", seen[-1])
        assert match, seen[-1]
        children = descendants(process.pid)
        assert int(match.group(1)) in children
        camera = [p for p in children if "miles_ros.ros.camera_process" in command_line(p)]
        assert len(camera) == 1  # the sim's camera process
        deadline = time.monotonic() + GONE_TIMEOUT_S
        while len(descendants(camera[0])) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # polling for its renderers to start, with a deadline
        children = descendants(process.pid)
        assert len(descendants(camera[0])) >= 2, "the camera's renderers did not start"
        process.send_signal(getattr(signal, stop))
        process.wait(timeout=60)
        left = wait_gone(children)
        _, err = process.communicate(timeout=30)  # the children held its pipes too
    assert not left, f"still running after {stop} of miles up: {sorted(left)}"
    if stop == "SIGINT":
        assert process.returncode == 0, err[-3000:]
        assert "Traceback" not in err, err[-3000:]
