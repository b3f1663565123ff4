"""Perception in the graph: ``with_perception`` adds the perception node once (for a
whole cell too) and switches the sim to its camera and its truth topic; in a graph the
sim's camera frames reach the perception node (the sim's reliable images, the node's
best-effort subscriptions: a RealSense driver may publish either way) paired by stamp,
while the sim's own poses go only to /miles/scene/objects_truth. The graph as `miles up`
lays it out (perception in a process of its own) publishing camera poses:
tests/nodes/test_node_processes.py."""

from __future__ import annotations

import importlib.util

import pytest

rclpy = pytest.importorskip("rclpy")


from miles_ros.ros.graph import (  # noqa: E402
    PERCEPTION_OVERRIDES,
    cell_factories,
    with_perception,
)
from miles_ros.ros.perception_node import PerceptionNode  # noqa: E402
from miles_ros.ros.sim_node import SimNode  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import Graph, overrides  # noqa: E402
from tests.nodes.test_perception_node import StandInCore  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

HAS_CORE = importlib.util.find_spec("miles_ros.perception.pipeline") is not None


def test_with_perception_adds_the_node_once_and_switches_the_sims_camera_on():
    parts, values = with_perception(["sim", "safety", "skills"], {"sim": {"camera_seed": 3}})
    assert parts == ["sim", "safety", "skills", "perception"]
    assert values["sim"] == {"publish_camera": True, "publish_truth_only": True, "camera_seed": 3}
    assert with_perception(parts, {"sim": {"publish_truth_only": False}})[1]["sim"] == {
        "publish_camera": True,
        "publish_truth_only": False,  # the caller's own value wins
    }
    assert with_perception(parts)[0] == parts  # once


def test_a_cell_gets_one_perception_node_for_all_its_arms():
    labels = [
        label
        for label, _ in cell_factories(
            "config/scene_dual.yaml", *with_perception(["sim", "safety", "skills"])
        )
    ]
    assert labels.count("perception") == 1
    assert {"safety/left_arm", "skills/right_arm", "sim"} <= set(labels)


def test_the_sims_camera_feeds_the_perception_node():
    cores: list[StandInCore] = []

    def core(scene, pose):
        cores.append(StandInCore(scene, pose))
        return cores[-1]

    g = Graph(
        [
            lambda ctx: SimNode(
                context=ctx, parameter_overrides=overrides(PERCEPTION_OVERRIDES["sim"])
            ),
            lambda ctx: PerceptionNode(perception_factory=core, context=ctx),
        ]
    )
    try:
        node = g.nodes[1]
        g.wait(lambda: node.frames >= 3, timeout=90.0, what="three frames perceived")
        rgb, depth, stamp = cores[0].frames[-1]
        assert rgb.shape == (480, 640, 3) and depth.shape == (480, 640)
        assert 0.5 < float(depth[240, 320]) < 2.0  # metres, the table ~1 m away
        assert cores[0].intrinsics.fx == pytest.approx(load_scene().camera.intrinsics.fx)
        assert node.refused == 0
        g.wait(lambda: any(p.get("source") == "camera" for p in g.objects), what="poses")
        assert all(p.get("source") == "camera" for p in g.objects)  # the sim's are elsewhere
    finally:
        g.close()


def test_miles_demo_perception_needs_the_graph(capsys):
    from miles_ros.commands.demo import main

    with pytest.raises(SystemExit) as exc:
        main(["--perception", "--scripted"])
    assert exc.value.code == 2
    assert "--perception needs the ROS graph" in capsys.readouterr().err


@pytest.mark.skipif(
    not HAS_CORE,
    reason="the perception core (miles_ros/perception/pipeline.py) is not in this checkout yet",
)
def test_miles_up_perception_starts_the_cells_perception_node_and_stops_on_ctrl_c():
    """The cell's graph; the single arm's, with the same checks, is
    test_node_processes::test_no_child_of_miles_up_outlives_it[SIGINT] (one `miles up
    --perception`, its camera and perception processes, fewer)."""
    import signal

    from tests.miles_up import lines_until, miles_up

    args = ["--perception", "--no-manager", "--domain-id", str(domain_id())]
    args += ["--scene", "config/scene_dual.yaml"]
    with miles_up(*args) as process:
        seen = lines_until(process, " up ")
        assert process.poll() is None, "".join(seen)
        assert seen[0].rstrip().endswith(", perception"), seen[0]
        assert "perception_node" in seen[-1]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
