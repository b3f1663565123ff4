"""The monitor node over real rclpy on loopback: messages published on the graph's topics
(a cell's arm under its namespace) move its metrics; an e-stop latched through the real
safety node's trigger service raises miles_estops_total, and the sim's joint states fill
the jitter histogram, read over HTTP from the server ``miles up --metrics-port`` starts.

Each test gets its own ROS domain; waits are on conditions with deadlines."""

from __future__ import annotations

import json
import threading
import urllib.request

import pytest

rclpy = pytest.importorskip("rclpy")

from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from miles_ros import interfaces as names  # noqa: E402
from miles_ros.ros.graph import InProcessGraph  # noqa: E402
from miles_ros.ros.monitor_node import MonitorNode, serve_metrics  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS, SENSOR_QOS  # noqa: E402
from tests.monitor.test_metrics import samples, samples_of, value  # noqa: E402
from tests.nodes.graph_harness import wait_for  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

TIMEOUT = 30.0


def publisher(node, msg_type, topic: str, qos):
    """A publisher on ``topic``, returned once a subscription has matched it."""
    pub = node.create_publisher(msg_type, topic, qos)
    wait_for(lambda: pub.get_subscription_count() > 0, f"a subscriber on {topic}")
    return pub


def test_messages_on_the_topics_move_the_metrics():
    arm = "left_arm"
    overrides = [Parameter("arms", value=[arm])]
    with InProcessGraph(
        [lambda ctx: MonitorNode(context=ctx, parameter_overrides=overrides)], domain_id()
    ) as graph:
        (monitor,) = graph.nodes
        client = graph.add(rclpy.create_node("test_client", context=graph.context))
        graph.spin_in_thread()
        m = monitor.metrics

        def send(topic: str, data: dict, qos=COMMAND_QOS) -> None:
            publisher(client, String, topic, qos).publish(String(data=json.dumps(data)))

        status = {"goal": "g", "goal_seq": 1, "goals_received": 1, "trace_id": "t1"}
        send(names.MANAGER_STATUS, {**status, "outcome": names.SUCCEEDED}, LATCHED_QOS)
        plan = {"goal": "g", "steps": [], "trace_id": "t1", "latency_s": 0.2}
        send(names.PLAN, plan, LATCHED_QOS)
        scoped = names.arm_scoped
        final = {"id": "r1", "skill": "reach", "state": names.SUCCEEDED, "progress": 1.0}
        send(scoped(arm, names.SKILL_STATUS), {**final, "reason": "", "return": -1.0})
        send(scoped(arm, names.SAFETY_EVENTS), {"kind": "cartesian", "suppressed": 2})
        send(scoped(arm, names.SAFETY_STATE), {"estop": True, "reason": "x"}, LATCHED_QOS)
        joints = publisher(client, JointState, scoped(arm, names.JOINT_STATES), SENSOR_QOS)
        msg = JointState()
        for k in range(3):
            msg.header.stamp.sec, msg.header.stamp.nanosec = 100, k * 4_000_000
            joints.publish(msg)

        def moved() -> bool:
            s = samples(m)
            return (
                value(s, "miles_goals_total", outcome="succeeded") == 1
                and value(s, "miles_planner_decision_seconds_count") == 1
                and value(s, "miles_skill_mean_return", arm=arm, skill="reach") == -1.0
                and value(s, "miles_safety_interventions_total", arm=arm, kind="cartesian") == 3
                and value(s, "miles_estops_total", arm=arm) == 1
                and (value(s, "miles_loop_jitter_seconds_count", arm=arm) or 0) >= 1
            )

        wait_for(moved, "every metric to move")
        assert value(samples(m), "miles_anomalies_total", arm=arm, kind="malformed") == 0
        per_arm = (names.JOINT_STATES, names.SKILL_STATUS, names.SAFETY_STATE, names.SAFETY_EVENTS)
        assert {s.topic_name for s in monitor.subscriptions} == {
            names.MANAGER_STATUS,
            names.PLAN,
            *(scoped(arm, topic) for topic in per_arm),
        }


def test_an_estop_through_the_safety_node_raises_miles_estops_total():
    with InProcessGraph.of_parts(["sim", "safety"], domain_id=domain_id()) as graph:
        server = serve_metrics(graph, 0)
        try:
            client = graph.add(rclpy.create_node("test_client", context=graph.context))
            graph.spin_in_thread()

            def scrape():
                with urllib.request.urlopen(server.url, timeout=10) as response:
                    return samples_of(response.read().decode())

            jitter = "miles_loop_jitter_seconds_count"
            wait_for(lambda: (value(scrape(), jitter, arm="") or 0) >= 10, "joint states")
            assert value(scrape(), "miles_estops_total", arm="") == 0
            trigger = client.create_client(Trigger, names.TRIGGER_ESTOP)
            assert trigger.wait_for_service(timeout_sec=TIMEOUT)
            done = threading.Event()
            future = trigger.call_async(Trigger.Request())
            future.add_done_callback(lambda _: done.set())
            assert done.wait(TIMEOUT) and future.result().success
            wait_for(lambda: value(scrape(), "miles_estops_total", arm="") == 1, "the e-stop")
            interventions = "miles_safety_interventions_total"
            wait_for(lambda: value(scrape(), interventions, arm="", kind="estop") == 1, "event")
        finally:
            server.close()


def test_serve_metrics_reads_the_cells_arms_from_the_scene():
    from miles_ros.params import config_dir
    from sims.scene import load_scene

    scene = config_dir() / "scene_dual.yaml"
    arms = tuple(m.name for m in load_scene(scene).arms)
    with InProcessGraph([], domain_id()) as graph:
        server = serve_metrics(graph, 0, str(scene))
        try:
            (monitor,) = graph.nodes
            assert monitor.params.arms == arms and len(arms) == 2
            with urllib.request.urlopen(server.url, timeout=10) as response:
                s = samples_of(response.read().decode())
            assert all(value(s, "miles_estops_total", arm=arm) == 0 for arm in arms)
        finally:
            server.close()
