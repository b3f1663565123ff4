"""A ROS 2 graph in the test process: Miles nodes plus a probe node, in their own context
and ROS domain, spun by one executor thread (single-threaded, as `miles up` composes them).

Waits are on conditions with timeouts (``Graph.wait``), never sleeps.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections.abc import Callable

import rclpy
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger

from miles_ros.nodes.ros_utils import graph_executor

TIMEOUT = 30.0
RELIABLE = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
LATCHED = QoSProfile(
    depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)
_ids = itertools.count()


def domain_id() -> int:
    """A ROS domain id per graph (101..200; the safety tests use 1..100)."""
    return 101 + (os.getpid() * 13 + next(_ids)) % 100


def overrides(params: dict) -> list[Parameter]:
    return [Parameter(k, value=v) for k, v in params.items()]


class Graph:
    """Nodes built by ``factories`` (callables taking ``context``) plus a probe that
    records joint states, commands, statuses and safety state/events."""

    def __init__(self, factories: list[Callable]):
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id())
        self.nodes = []
        self.cond = threading.Condition()
        self.executor = None
        try:
            for make in factories:
                self.nodes.append(make(self.context))
            self.probe = rclpy.create_node("probe", context=self.context)
            self.joint_states: list[JointState] = []
            self.skill_commands: list[JointState] = []
            self.statuses: list[dict] = []
            self.safety: list[dict] = []
            self.objects: list[dict] = []
            sub = self.probe.create_subscription
            sub(
                JointState, "/joint_states", self._keep(self.joint_states), qos_profile_sensor_data
            )
            sub(JointState, "/miles/skill_command", self._keep(self.skill_commands), RELIABLE)
            sub(String, "/miles/skill/status", self._keep(self.statuses, json.loads), RELIABLE)
            sub(String, "/miles/safety/state", self._keep(self.safety, json.loads), LATCHED)
            sub(String, "/miles/scene/objects", self._keep(self.objects, json.loads), 10)
            self.pub_request = self.probe.create_publisher(
                String, "/miles/skill/request", RELIABLE
            )
            self.executor = graph_executor(self.context)
            for node in [*self.nodes, self.probe]:
                self.executor.add_node(node)
            self.thread = threading.Thread(target=self.executor.spin, daemon=True)
            self.thread.start()
        except BaseException:
            self.close()
            raise

    def _keep(self, store: list, convert=None):
        def callback(msg):
            item = convert(msg.data) if convert else msg
            with self.cond:
                store.append(item)
                if len(store) > 5000:
                    del store[:1000]
                self.cond.notify_all()

        return callback

    def wait(
        self, predicate: Callable[[], bool], timeout: float = TIMEOUT, what: str = ""
    ) -> None:
        """Block until ``predicate()`` holds (checked on every message), else fail."""
        with self.cond:
            ok = self.cond.wait_for(predicate, timeout=timeout)
        assert ok, f"timed out after {timeout} s waiting for {what or predicate}"

    def request(self, rid: str, skill: str, **params) -> None:
        msg = {"id": rid, "skill": skill, "params": params}
        self.pub_request.publish(String(data=json.dumps(msg)))

    def cancel(self, rid: str) -> None:
        self.pub_request.publish(String(data=json.dumps({"id": rid, "cancel": True})))

    def final(self, rid: str, timeout: float = TIMEOUT) -> dict:
        """The final status of request ``rid``."""

        def done():
            return any(s["id"] == rid and s["state"] != "running" for s in self.statuses)

        self.wait(done, timeout, f"a final status of {rid!r}")
        return next(s for s in self.statuses if s["id"] == rid and s["state"] != "running")

    def call(self, service: str, timeout: float = TIMEOUT) -> Trigger.Response:
        client = self.probe.create_client(Trigger, service)
        try:
            assert client.wait_for_service(timeout_sec=timeout), f"no service {service}"
            future = client.call_async(Trigger.Request())
            done = threading.Event()
            future.add_done_callback(lambda _: done.set())
            assert done.wait(timeout), f"{service} did not answer"
            return future.result()
        finally:
            self.probe.destroy_client(client)

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(timeout_sec=5.0)
        for node in self.nodes:
            node.destroy_node()
        rclpy.try_shutdown(context=self.context)
