"""MCAP recording: the graph's messages land in the file with ros2msg schemas and decode
back to the same messages."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("rclpy")
pytest.importorskip("mcap")

from mcap.reader import make_reader  # noqa: E402
from rclpy.serialization import deserialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.ros.recording import TOPICS, Recorder, message_definition  # noqa: E402
from miles_ros.ros.sim_node import SimNode  # noqa: E402
from tests.nodes.graph_harness import Graph  # noqa: E402


def test_schema_text_carries_the_dependencies_once():
    text = message_definition("sensor_msgs/msg/JointState")
    assert text.count("MSG: std_msgs/Header") == 1
    assert text.count("MSG: builtin_interfaces/Time") == 1
    assert text.index("MSG: std_msgs/Header") < text.index("MSG: builtin_interfaces/Time")


def test_recorder_writes_decodable_joint_states(tmp_path):
    path = tmp_path / "run.mcap"
    recorders = []

    def recorder(ctx):
        recorders.append(Recorder(path, context=ctx))
        return recorders[-1]

    graph = Graph([lambda ctx: SimNode(context=ctx), recorder])
    try:
        graph.wait(lambda: recorders[0].count >= 50, what="50 recorded messages")
    finally:
        graph.close()  # destroying the recorder finishes the file
    topics = {}
    with open(path, "rb") as f:
        for schema, channel, message in make_reader(f).iter_messages():
            topics.setdefault(channel.topic, (schema.name, message.data))
    assert {interfaces.JOINT_STATES, interfaces.SCENE_OBJECTS} <= set(topics)
    name, data = topics[interfaces.JOINT_STATES]
    assert name == "sensor_msgs/msg/JointState"
    msg = deserialize_message(data, JointState)
    assert list(msg.name)[:2] == ["panda_joint1", "panda_joint2"] and len(msg.position) == 9


def test_recorded_topics_are_the_nodes_default_names():
    import dataclasses

    from miles_ros.params.manager import ManagerNodeParams
    from miles_ros.params.safety import SafetyNodeNames
    from miles_ros.params.sim import SimNodeParams
    from miles_ros.params.skill import SkillNodeParams

    names = {
        getattr(params, f.name)
        for params in (SimNodeParams(), SkillNodeParams(), SafetyNodeNames(), ManagerNodeParams())
        for f in dataclasses.fields(params)
        if f.name.endswith("_topic")
    }
    assert set(TOPICS) <= names
    assert {
        interfaces.JOINT_STATES,
        interfaces.JOINT_COMMAND,
        interfaces.SKILL_COMMAND,
        interfaces.ESTOP,
    } <= set(TOPICS)
    assert len(TOPICS) == 14


def test_a_recording_begun_later_opens_with_the_latched_state(tmp_path):
    """The safety state, plan and manager status are latched: a recorder created after
    they were published still records their current message (a volatile reader would
    record nothing until they changed)."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from std_msgs.msg import String

    from miles_ros.ros.qos import LATCHED_QOS
    from tests.ros_domains import domain_id

    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain_id())
    executor = SingleThreadedExecutor(context=context)
    publisher = rclpy.create_node("latched_source", context=context)
    state = publisher.create_publisher(String, interfaces.SAFETY_STATE, LATCHED_QOS)
    state.publish(String(data='{"estop": true, "mode": "estop"}'))
    recorder = Recorder(tmp_path / "late.mcap", context=context)
    executor.add_node(recorder)
    try:
        deadline = time.monotonic() + 20.0
        while recorder.counts[interfaces.SAFETY_STATE] < 1:
            assert time.monotonic() < deadline, "the latched state never reached the recorder"
            executor.spin_once(timeout_sec=0.1)
    finally:
        recorder.close()
        executor.shutdown()
        recorder.destroy_node()
        publisher.destroy_node()
        rclpy.try_shutdown(context=context)
    with open(tmp_path / "late.mcap", "rb") as f:
        topics = [channel.topic for _, channel, _ in make_reader(f).iter_messages()]
    assert topics.count(interfaces.SAFETY_STATE) == 1
