"""view_node over real rclpy on loopback, drawing into a view that records to an .rrd:
joint states published on /joint_states come back from the recording as TCP transforms
equal to the FK of the logged joint positions (1e-6 m), and those positions are the
published ones; a safety event reaches the text log. (``miles up``'s view process, the
same node on its own context: tests/test_up_view.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.ros.graph import InProcessGraph  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS, SENSOR_QOS  # noqa: E402
from miles_ros.ros.view_node import ViewNode  # noqa: E402
from miles_ros.view.process import LocalView, ViewSpec  # noqa: E402
from sims.robots import panda  # noqa: E402
from tests.nodes.graph_harness import wait_for  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402
from tests.view.rrd_reader import assert_tcp_at_fk, read_recording  # noqa: E402

CONFIGURATIONS = 6


def test_view_node_logs_the_fk_of_the_published_joint_states(tmp_path):
    path = tmp_path / "view.rrd"
    view = LocalView(ViewSpec(record=str(path)))
    graph = InProcessGraph([], domain_id())
    try:
        node = graph.add(ViewNode(view, context=graph.context))
        probe = graph.add(rclpy.create_node("view_probe", context=graph.context))
        joints = probe.create_publisher(JointState, interfaces.JOINT_STATES, SENSOR_QOS)
        events = probe.create_publisher(String, interfaces.SAFETY_EVENTS, COMMAND_QOS)
        graph.spin_in_thread("test_view_spin")
        wait_for(lambda: joints.get_subscription_count() > 0, "the view's subscription")
        rng = np.random.default_rng()
        published = rng.uniform(
            panda.joint_position_min, panda.joint_position_max, size=(CONFIGURATIONS, 7)
        )
        for q in published:
            msg = JointState()
            msg.name = list(panda.JOINT_NAMES)
            msg.position = q.tolist()
            batches = node.batches
            # Best effort: publish until two batches have gone out since (the second one
            # holds this state or a later publication of it).
            while node.batches < batches + 2:
                joints.publish(msg)
                wait_for(lambda b=node.batches: node.batches > b, "a batch")
        wait_for(lambda: events.get_subscription_count() > 0, "the events subscription")
        event = {"kind": "estop", "detail": "operator"}
        batches = node.batches
        events.publish(String(data=json.dumps(event)))
        wait_for(lambda: node.batches > batches, "the event's batch")
    finally:
        graph.close()  # destroys the view node, which finishes the recording
        view.close()

    recording = read_recording(path)
    logged = assert_tcp_at_fk(recording)
    assert len(logged) >= CONFIGURATIONS
    for _, q in logged:
        assert np.abs(published - np.array(q)).max(axis=1).min() == 0.0  # a published state
    distinct = {tuple(q) for _, q in logged}
    assert len(distinct) == CONFIGURATIONS
    lines = [row["TextLog:text"][0] for _, row in recording["/timeline/safety"].rows]
    assert any("estop" in line and "operator" in line for line in lines)
