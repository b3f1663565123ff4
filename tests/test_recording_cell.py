"""MCAP recording of a cell (config/scene_dual.yaml): each arm's topics under its
namespace, the arms' /miles/safety/occupancy (best effort) and the contract net's
topics are recorded; a single-arm scene records what it always did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("rclpy")
pytest.importorskip("mcap")

from mcap.reader import make_reader  # noqa: E402
from rclpy.serialization import deserialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.interfaces import arm_scoped  # noqa: E402
from miles_ros.ros.graph import cell_factories  # noqa: E402
from miles_ros.ros.recording import TOPICS, Recorder, cell_recorded_topics  # noqa: E402
from tests.nodes.graph_harness import Graph  # noqa: E402

DUAL = str(Path(__file__).resolve().parents[1] / "config" / "scene_dual.yaml")
OCCUPANCY = interfaces.SAFETY_OCCUPANCY


def test_a_cell_records_each_arms_topics_occupancy_and_the_contract_net():
    topics = cell_recorded_topics(DUAL)
    for arm in ("left_arm", "right_arm"):
        for name in (interfaces.JOINT_STATES, interfaces.JOINT_COMMAND, interfaces.SKILL_STATUS):
            assert arm_scoped(arm, name) in topics
        assert topics[arm_scoped(arm, interfaces.SAFETY_EVENTS)] == "std_msgs/msg/String"
        assert topics[arm_scoped(arm, interfaces.ESTOP)] == "std_msgs/msg/Bool"
    shared = {interfaces.SCENE_OBJECTS, interfaces.GOAL, interfaces.MANAGER_STATUS, OCCUPANCY}
    assert shared | set(interfaces.CELL_TOPICS.values()) <= set(topics)
    assert interfaces.JOINT_STATES not in topics and interfaces.SKILL_STATUS not in topics
    assert cell_recorded_topics(None) == TOPICS == cell_recorded_topics("config/scene.yaml")


def test_recording_a_cell_writes_both_arms_occupancy_and_joint_states(tmp_path):
    path = tmp_path / "cell.mcap"
    recorders: list[Recorder] = []

    def recorder(ctx):
        recorders.append(Recorder(path, DUAL, context=ctx))
        return recorders[-1]

    factories = [make for _, make in cell_factories(DUAL, ["sim", "safety"])]
    graph = Graph([*factories, recorder])
    wanted = [
        OCCUPANCY,
        *(arm_scoped(a, interfaces.JOINT_STATES) for a in ("left_arm", "right_arm")),
    ]
    try:
        graph.wait(
            lambda: all(recorders[0].counts[t] >= 20 for t in wanted),
            timeout=60.0,
            what=f"20 recorded messages on each of {wanted}",
        )
    finally:
        graph.close()  # destroying the recorder finishes the file
    arms, joint_states = set(), {}
    with open(path, "rb") as f:
        for schema, channel, message in make_reader(f).iter_messages():
            if channel.topic == OCCUPANCY:
                assert schema.name == "std_msgs/msg/String"
                arms.add(json.loads(deserialize_message(message.data, String).data)["arm"])
            elif channel.topic.endswith(interfaces.JOINT_STATES):
                joint_states[channel.topic] = deserialize_message(message.data, JointState)
    assert arms == {"left_arm", "right_arm"}
    assert set(joint_states) == {"/left_arm/joint_states", "/right_arm/joint_states"}
    assert all(len(m.position) == 9 for m in joint_states.values())
