"""sim_node over real rclpy on loopback: joint states that move when commanded, object
poses of the scene, malformed commands ignored, reset, camera frames, sim time; and reset
under the safety node: the arm is never pulled back to the pose before the reset."""

from __future__ import annotations

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

import json  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import Image, JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS  # noqa: E402
from miles_ros.ros.safety_node import SafetyNode  # noqa: E402
from miles_ros.ros.sim_node import SimNode  # noqa: E402
from miles_ros.safety import SafetyConfig  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import Graph, overrides  # noqa: E402

NAMES = list(panda.JOINT_NAMES) + list(panda.FINGER_JOINT_NAMES)


@pytest.fixture
def graph():
    g = Graph([lambda ctx: SimNode(context=ctx)])
    yield g
    g.close()


@pytest.fixture(scope="module")
def unmoved():
    """One sim for the tests that only read it or send commands it must ignore: none of
    them moves the arm or changes the cell, so they share it."""
    g = Graph([lambda ctx: SimNode(context=ctx)])
    yield g
    g.close()


def joint(msg: JointState, name: str) -> float:
    return msg.position[list(msg.name).index(name)]


def command(graph: Graph, names, positions) -> None:
    pub = getattr(graph, "_cmd_pub", None) or graph.probe.create_publisher(
        JointState, interfaces.JOINT_COMMAND, 10
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
    graph.wait(lambda: graph.probe.count_subscribers(interfaces.JOINT_COMMAND) > 0, what="sub")
    command(graph, panda.JOINT_NAMES, target)
    graph.wait(lambda: joint(graph.joint_states[-1], "panda_joint1") > 0.29, what="joint1 moved")
    latest = graph.joint_states[-1]
    assert joint(latest, "panda_finger_joint1") == pytest.approx(
        panda.finger_position_max, abs=2e-3
    )
    # Fingers by name: close them.
    command(graph, panda.FINGER_JOINT_NAMES, [0.0, 0.0])
    graph.wait(lambda: joint(graph.joint_states[-1], "panda_finger_joint1") < 0.002, what="close")
    assert graph.call(interfaces.SIM_RESET).success
    graph.wait(lambda: abs(joint(graph.joint_states[-1], "panda_joint1")) < 1e-3, what="reset")


def test_malformed_commands_are_ignored(unmoved):
    graph = unmoved
    graph.wait(lambda: graph.probe.count_subscribers(interfaces.JOINT_COMMAND) > 0, what="sub")
    node = graph.nodes[0]
    command(graph, ["panda_joint1", "elbow"], [0.5, 0.5])
    command(graph, panda.JOINT_NAMES, [float("nan")] + [0.0] * 6)
    command(graph, panda.JOINT_NAMES, [0.1])  # wrong length
    graph.wait(lambda: node.rejected >= 3, what="three rejections")
    np.testing.assert_allclose(node.world.arm_target, panda.home_joint_positions)


def test_object_poses_of_the_scene_are_published(unmoved):
    graph = unmoved
    graph.wait(lambda: len(graph.objects) >= 1, what="object poses")
    payload = graph.objects[-1]
    scene = load_scene()
    assert payload["frame_id"] == "panda_link0"
    assert list(payload["objects"]) == list(scene.objects)
    assert list(payload["places"]) == list(scene.places)
    for name, obj in scene.objects.items():
        np.testing.assert_allclose(payload["objects"][name]["position"], obj.position, atol=2e-3)
        assert len(payload["objects"][name]["orientation"]) == 4


def test_camera_frames_on_request(unmoved):
    graph = unmoved
    images: list[Image] = []
    graph.probe.create_subscription(Image, interfaces.CAMERA_IMAGE, graph._keep(images), 1)
    graph.wait(lambda: graph.probe.count_publishers(interfaces.CAMERA_IMAGE) > 0, what="pub")
    response = graph.call(interfaces.SIM_CAPTURE)
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
        g.probe.create_subscription(Clock, interfaces.CLOCK, g._keep(clocks), 10)
        g.wait(lambda: len(clocks) >= 20, what="clock messages")
        times = [c.clock.sec + c.clock.nanosec * 1e-9 for c in clocks]
        steps = np.diff(times)
        assert np.all(steps > 0)
        np.testing.assert_allclose(steps[steps < 0.011], 0.01, atol=1e-6)  # 5 x 2 ms per tick
        g.wait(lambda: len(g.joint_states) >= 5, what="joint states in fast mode")
    finally:
        g.close()


def test_reset_under_the_safety_node_never_pulls_the_arm_back():
    """The arm held away from home, then /miles/sim/reset: the safety node sees the
    measured jump as a tracking reset and holds home; no arm target the sim applies
    implies more than the velocity limit from the measured arm, and the arm stays home
    (before, the held pose pulled it back at up to 54 rad/s)."""
    safety = {"state_timeout": 2.0, "fault_violations": 0}  # as `miles up` in one process
    g = Graph(
        [
            lambda ctx: SimNode(context=ctx),
            lambda ctx: SafetyNode(context=ctx, parameter_overrides=overrides(safety)),
        ]
    )
    sim = g.nodes[0]
    applied: list[tuple[float, np.ndarray, np.ndarray]] = []  # (time, target, measured)
    set_targets = sim.world.set_targets

    def recording_set_targets(arm=None, finger=None):  # called under the sim's lock
        measured = np.array(sim.world.joint_state()[0][:7])
        applied.append((time.monotonic(), np.array(arm), measured))
        set_targets(arm, finger)

    sim.world.set_targets = recording_set_targets
    world_reset, reset_done = sim.world.reset, []

    def recording_reset():  # under the sim's lock too: every later target meets the new pose
        world_reset()
        reset_done.append(time.monotonic())

    sim.world.reset = recording_reset
    events: list[dict] = []
    g.probe.create_subscription(String, interfaces.SAFETY_EVENTS, g._keep(events, json.loads), 100)
    pub = g.probe.create_publisher(JointState, interfaces.SKILL_COMMAND, COMMAND_QOS)
    home = panda.home_joint_positions
    away = home + np.array([0.6, 0.2, 0.0, -0.3, 0.0, 0.3, 0.5])
    streaming = threading.Event()
    streaming.set()

    def request():
        if streaming.is_set():
            msg = JointState(name=list(panda.JOINT_NAMES), position=away.tolist())
            msg.header.stamp = g.probe.get_clock().now().to_msg()
            pub.publish(msg)

    g.probe.create_timer(0.02, request)
    try:
        arm = lambda: np.array(g.joint_states[-1].position[:7])  # noqa: E731
        g.wait(lambda: g.joint_states and np.abs(arm() - away).max() < 0.01, what="arm away")
        streaming.clear()
        g.wait(lambda: g.safety and g.safety[-1]["mode"] == "hold", what="holding away")
        assert g.call(interfaces.SIM_RESET).success
        g.wait(lambda: any(e["kind"] == "tracking_reset" for e in events), what="tracking reset")
        n = len(g.joint_states)
        g.wait(lambda: len(g.joint_states) > n + 100, what="joint states after the reset")
        after = [m for m in list(g.joint_states)[n:]]
        q = np.array([m.position[:7] for m in after])
        v = np.array([m.velocity[:7] for m in after])
        vmax = SafetyConfig().limits.velocity
        assert np.abs(q - home).max() < 0.01, "the arm was pulled away from home"
        assert np.all(np.abs(v) <= vmax), np.abs(v).max(axis=0)
        period = 1.0 / 250.0
        (t_reset,) = reset_done  # targets applied before it met the arm still away
        late = [(tgt, meas) for t, tgt, meas in applied if t > t_reset]
        assert late, "no command applied after the reset"
        for target, measured in late:
            assert np.all(np.abs(target - measured) <= vmax * period), (target, measured)
    finally:
        g.close()


def test_the_cell_changes_live_and_the_fingers_report_the_new_reading(graph):
    from rclpy.parameter import Parameter

    from miles_ros.runtime.scene_world import reported_finger_positions

    node = graph.nodes[0]
    graph.wait(lambda: graph.probe.count_subscribers(interfaces.JOINT_COMMAND) > 0, what="sub")
    command(graph, panda.FINGER_JOINT_NAMES, [0.02, 0.02])  # a 4 cm opening, as on a cube
    graph.wait(lambda: abs(sum(node.world.joint_state()[0][7:]) - 0.04) < 1e-3, what="4 cm")
    reading = 0.009
    result = node.set_parameters(
        [Parameter("finger_reading", value=reading), Parameter("cube_mass_scale", value=3.0)]
    )
    assert all(r.successful for r in result)
    assert node.world.change.finger_reading == reading
    assert node.world.change.cube_mass_scale == 3.0

    def reported_matches() -> bool:
        msg = graph.joint_states[-1]
        engine = node.world.joint_state()[0][7:]
        wanted = sum(reported_finger_positions(engine, reading))
        return abs(joint(msg, NAMES[7]) + joint(msg, NAMES[8]) - wanted) < 1e-3

    graph.wait(reported_matches, what="the shifted finger reading")
    refused = node.set_parameters([Parameter("table_friction_scale", value=-1.0)])
    assert not refused[0].successful and "table_friction_scale" in refused[0].reason
    assert node.world.change.table_friction_scale == 1.0
