"""sim_node over real rclpy on loopback: joint states that move when commanded, object
poses of the scene, malformed commands ignored, reset, camera frames, sim time."""

from __future__ import annotations

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import Image, JointState  # noqa: E402

from miles_ros.ros.sim_node import SimNode  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import Graph, overrides  # noqa: E402

NAMES = list(panda.JOINT_NAMES) + list(panda.FINGER_JOINT_NAMES)


@pytest.fixture
def graph():
    g = Graph([lambda ctx: SimNode(context=ctx)])
    yield g
    g.close()


def joint(msg: JointState, name: str) -> float:
    return msg.position[list(msg.name).index(name)]


def command(graph: Graph, names, positions) -> None:
    pub = getattr(graph, "_cmd_pub", None) or graph.probe.create_publisher(
        JointState, "/miles/joint_command", 10
    )
    graph._cmd_pub = pub
    msg = JointState()
    msg.name, msg.position = list(names), [float(v) for v in positions]
    pub.publish(msg)


def test_joint_states_move_when_commanded_and_reset_restores(graph):
    graph.wait(lambda: len(graph.joint_states) >= 5, what="joint states")
    first = graph.joint_states[-1]
    assert list(first.name) == NAMES
    assert len(first.velocity) == len(first.effort) == 9
    np.testing.assert_allclose(first.position[:7], panda.home_joint_positions, atol=1e-3)
    assert first.header.stamp.sec > 0
    # The arm only: the fingers stay where they are (open).
    target = panda.home_joint_positions.copy()
    target[0] += 0.3
    graph.wait(lambda: graph.probe.count_subscribers("/miles/joint_command") > 0, what="sub")
    command(graph, panda.JOINT_NAMES, target)
    graph.wait(lambda: joint(graph.joint_states[-1], "panda_joint1") > 0.29, what="joint1 moved")
    latest = graph.joint_states[-1]
    assert joint(latest, "panda_finger_joint1") == pytest.approx(
        panda.finger_position_max, abs=2e-3
    )
    # Fingers by name: close them.
    command(graph, panda.FINGER_JOINT_NAMES, [0.0, 0.0])
    graph.wait(lambda: joint(graph.joint_states[-1], "panda_finger_joint1") < 0.002, what="close")
    assert graph.call("/miles/sim/reset").success
    graph.wait(lambda: abs(joint(graph.joint_states[-1], "panda_joint1")) < 1e-3, what="reset")


def test_malformed_commands_are_ignored(graph):
    graph.wait(lambda: graph.probe.count_subscribers("/miles/joint_command") > 0, what="sub")
    node = graph.nodes[0]
    command(graph, ["panda_joint1", "elbow"], [0.5, 0.5])
    command(graph, panda.JOINT_NAMES, [float("nan")] + [0.0] * 6)
    command(graph, panda.JOINT_NAMES, [0.1])  # wrong length
    graph.wait(lambda: node.rejected >= 3, what="three rejections")
    np.testing.assert_allclose(node.world.arm_target, panda.home_joint_positions)


def test_object_poses_of_the_scene_are_published(graph):
    graph.wait(lambda: len(graph.objects) >= 1, what="object poses")
    payload = graph.objects[-1]
    scene = load_scene()
    assert payload["frame_id"] == "panda_link0"
    assert list(payload["objects"]) == list(scene.objects)
    assert list(payload["places"]) == list(scene.places)
    for name, obj in scene.objects.items():
        np.testing.assert_allclose(payload["objects"][name]["position"], obj.position, atol=2e-3)
        assert len(payload["objects"][name]["orientation"]) == 4


def test_camera_frames_on_request(graph):
    images: list[Image] = []
    graph.probe.create_subscription(Image, "/miles/camera/image_raw", graph._keep(images), 1)
    graph.wait(lambda: graph.probe.count_publishers("/miles/camera/image_raw") > 0, what="pub")
    response = graph.call("/miles/sim/capture")
    assert response.success and "640x480" in response.message
    graph.wait(lambda: len(images) == 1, what="an image")
    image = images[0]
    assert (image.width, image.height, image.encoding, image.step) == (640, 480, "rgb8", 1920)
    pixels = np.frombuffer(bytes(image.data), np.uint8).reshape(480, 640, 3)
    assert pixels.std() > 10  # a scene, not a blank frame


def test_fast_mode_publishes_sim_time_on_clock():
    clocks: list[Clock] = []
    g = Graph(
        [
            lambda ctx: SimNode(
                context=ctx,
                parameter_overrides=overrides({"real_time": False, "publish_rate_hz": 100.0}),
            )
        ]
    )
    try:
        g.probe.create_subscription(Clock, "/clock", g._keep(clocks), 10)
        g.wait(lambda: len(clocks) >= 20, what="clock messages")
        times = [c.clock.sec + c.clock.nanosec * 1e-9 for c in clocks]
        steps = np.diff(times)
        assert np.all(steps > 0)
        np.testing.assert_allclose(steps[steps < 0.011], 0.01, atol=1e-6)  # 5 x 2 ms per tick
        g.wait(lambda: len(g.joint_states) >= 5, what="joint states in fast mode")
    finally:
        g.close()
