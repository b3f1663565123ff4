"""command_adapter_node: JointState by name -> Float64MultiArray in the controller's order;
incomplete or non-finite commands are dropped."""

from __future__ import annotations

import pytest

rclpy = pytest.importorskip("rclpy")

from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.ros.command_adapter_node import CommandAdapterNode  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS  # noqa: E402
from sims.robots import panda  # noqa: E402
from tests.nodes.graph_harness import Graph  # noqa: E402


def test_joint_commands_become_ordered_arrays_and_bad_ones_are_dropped():
    graph = Graph([lambda ctx: CommandAdapterNode(context=ctx)])
    try:
        out: list[Float64MultiArray] = []
        topic = interfaces.FORWARD_POSITION_COMMANDS
        graph.probe.create_subscription(Float64MultiArray, topic, graph._keep(out), COMMAND_QOS)
        pub = graph.probe.create_publisher(JointState, interfaces.JOINT_COMMAND, COMMAND_QOS)
        graph.wait(lambda: pub.get_subscription_count() > 0, what="the adapter")
        names = list(panda.JOINT_NAMES)[::-1] + ["panda_finger_joint1"]
        msg = JointState(name=names, position=[float(i) for i in range(8)])
        bad_missing = JointState(name=names[1:], position=[0.0] * 7)
        bad_nan = JointState(name=names, position=[float("nan")] + [0.0] * 7)
        for m in (bad_missing, bad_nan, msg):
            pub.publish(m)
        graph.wait(lambda: len(out) == 1, what="one array")
        assert list(out[0].data) == [6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
        assert graph.nodes[0].dropped == 2
    finally:
        graph.close()
