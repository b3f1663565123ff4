"""The monitor node: the graph's own messages into Prometheus metrics.

Subscribes to ``/miles/manager/status`` and ``/miles/plan`` (the cell's) and, per arm,
``/joint_states``, ``/miles/skill/status``, ``/miles/safety/state`` and
``/miles/safety/events`` (under ``/ARM`` for a cell's arms, ``arms`` parameter), and hands
each message to :class:`miles_ros.monitor.metrics.CellMetrics` (``node.metrics``; its
``registry`` is what a server exposes). The callbacks do no more than that: the
joint-state one reads the header stamp, the others hand over the JSON text.

:func:`serve_metrics` adds the node to an in-process graph and serves its registry on
the loopback interface (``miles up --metrics-port``).
"""

from __future__ import annotations

from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from miles_ros.interfaces import arm_scoped
from miles_ros.monitor.metrics import (
    MANAGER_STATUS,
    PLAN,
    SAFETY_EVENTS,
    SAFETY_STATE,
    SKILL_STATUS,
    CellMetrics,
    MetricsServer,
    serve,
)
from miles_ros.params.monitor import MonitorNodeParams
from miles_ros.ros.joint_states import stamp_seconds
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import LATCHED_READER_QOS, READER_QOS, SENSOR_QOS


class MonitorNode(Node):
    """Feeds :attr:`metrics` from the graph's topics (parameters:
    :class:`~miles_ros.params.monitor.MonitorNodeParams`)."""

    def __init__(self, **kwargs) -> None:
        super().__init__("monitor_node", **kwargs)
        self.params = prm = declare_params(self, MonitorNodeParams)
        if not prm.joint_state_rate_hz > 0:
            raise ValueError("joint_state_rate_hz must be > 0")
        arms = list(prm.arms) or [""]
        self.metrics = CellMetrics(arms, 1.0 / prm.joint_state_rate_hz)
        sub = self.create_subscription
        # Latched state is read with a deep queue: a final status followed at once by
        # another (a refusal, then the running goal's status) must not be lost.
        sub(String, prm.manager_status_topic, self._json(MANAGER_STATUS), LATCHED_READER_QOS)
        sub(String, prm.plan_topic, self._json(PLAN), LATCHED_READER_QOS)
        for arm in arms:
            sub(
                String,
                arm_scoped(arm, prm.skill_status_topic),
                self._json(SKILL_STATUS, arm),
                READER_QOS,
            )
            sub(
                String,
                arm_scoped(arm, prm.safety_state_topic),
                self._json(SAFETY_STATE, arm),
                LATCHED_READER_QOS,
            )
            sub(
                String,
                arm_scoped(arm, prm.safety_events_topic),
                self._json(SAFETY_EVENTS, arm),
                READER_QOS,
            )
            sub(JointState, arm_scoped(arm, prm.joint_states_topic), self._stamps(arm), SENSOR_QOS)

    def _json(self, stream: str, arm: str = ""):
        handle = self.metrics.handle

        def callback(msg: String) -> None:
            handle(stream, msg.data, arm)

        return callback

    def _stamps(self, arm: str):
        on_joint_state = self.metrics.on_joint_state

        def callback(msg: JointState) -> None:
            on_joint_state(stamp_seconds(msg.header.stamp), arm)

        return callback


def add_monitor(graph, scene_file: str | None = None) -> MonitorNode:
    """Add a :class:`MonitorNode` to ``graph`` (an :class:`~miles_ros.ros.graph.
    InProcessGraph`): the arms of ``scene_file``'s cell, the nominal joint-state period of
    the graph's sim_node. The graph destroys the node."""
    from rclpy.parameter import Parameter

    from sims.scene import load_scene

    scene = load_scene(scene_file or None)
    overrides = [Parameter("arms", value=[m.name for m in scene.arms])] if scene.multi_arm else []
    sims = [n for n in graph.nodes if n.get_name() == "sim_node"]
    if sims:  # the nominal period is the sim's
        rate = sims[0].get_parameter("publish_rate_hz").value
        overrides.append(Parameter("joint_state_rate_hz", value=float(rate)))
    return graph.add(MonitorNode(context=graph.context, parameter_overrides=overrides))


def serve_metrics(graph, port: int, scene_file: str | None = None) -> MetricsServer:
    """:func:`add_monitor`, its metrics served on 127.0.0.1:``port`` (0: a free port). The
    caller closes the server."""
    return serve(add_monitor(graph, scene_file).metrics.registry, port)
