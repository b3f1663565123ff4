"""Clients of a running graph, over its public topics and services: the e-stop services
(``miles estop``), a goal followed to its end (``miles goal``), and the probe the demo
drives the graph with (:class:`GraphClient`). Names come from the nodes' parameter
dataclasses, under a namespace when one is given; QoS from :mod:`miles_ros.ros.qos`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from sensor_msgs.msg import Image, JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger

from miles_ros.interfaces import NAMESPACE, arm_scoped, under_namespace
from miles_ros.params.manager import ManagerNodeParams
from miles_ros.params.safety import SafetyNodeNames
from miles_ros.params.sim import SimNodeParams
from miles_ros.params.skill import SkillNodeParams
from miles_ros.ros.qos import (
    COMMAND_QOS,
    IMAGE_QOS,
    LATCHED_QOS,
    LATCHED_READER_QOS,
    READER_QOS,
    SENSOR_QOS,
)


@contextmanager
def short_lived_node(name: str, domain_id: int | None = None) -> Iterator[tuple]:
    """``(node, executor)``: a node named ``name`` in its own context on ``domain_id``,
    added to a single-threaded executor that the caller spins; all shut down on exit."""
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain_id)
    node = rclpy.create_node(name, context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        yield node, executor
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown(context=context)


@dataclass
class TriggerResult:
    """A std_srvs/Trigger answer, or why there was none."""

    answered: bool
    success: bool = False
    message: str = ""


def call_trigger(
    service: str, domain_id: int | None = None, timeout: float = 5.0, resend: float = 1.0
) -> TriggerResult:
    """Call a std_srvs/Trigger service from a short-lived node (its own context), sending
    the request again every ``resend`` s until an answer comes or ``timeout`` s pass; the
    first answer is the result. Only for idempotent services (the e-stop's trigger and
    reset are: a second trigger answers "already latched", a second reset "not
    latched"): a found service can still lose its answer while discovery lags, Fast DDS's
    "failed to send response (timeout): client will not receive response", which the
    service logs after it has acted."""
    with short_lived_node("miles_trigger_cli", domain_id) as (node, executor):
        client = node.create_client(Trigger, service)
        deadline = time.monotonic() + timeout
        if not client.wait_for_service(timeout_sec=timeout):
            return TriggerResult(False, message=f"no service {service}")
        futures = []
        while (left := deadline - time.monotonic()) > 0:
            futures.append(client.call_async(Trigger.Request()))
            until = time.monotonic() + min(resend, left)
            while (wait := until - time.monotonic()) > 0:
                executor.spin_once(timeout_sec=wait)
                for future in futures:
                    if future.done() and (result := future.result()) is not None:
                        return TriggerResult(True, bool(result.success), result.message)
        return TriggerResult(False, message=f"no answer from {service} within {timeout} s")


def estop_services(reset: bool, namespace: str = NAMESPACE, arms=("",)) -> list[str]:
    """The e-stop trigger (or reset) service of each of ``arms``' safety nodes (arm "":
    the single arm's), under ``namespace``."""
    names = SafetyNodeNames()
    service = under_namespace(namespace, names.reset_service if reset else names.trigger_service)
    return [arm_scoped(arm, service) for arm in arms]


def estop(reset: bool, namespace: str = NAMESPACE, domain_id: int | None = None, timeout=5.0):
    """Trigger (or reset) the e-stop of a running graph; returns ``(service, result)``."""
    (service,) = estop_services(reset, namespace)
    return service, call_trigger(service, domain_id, timeout)


def follow_goal(
    goal: str,
    on_status: Callable[[dict], None],
    on_plan: Callable[[dict], None],
    sent: Callable[[], None],
    done: Callable[[], bool],
    namespace: str = NAMESPACE,
    domain_id: int | None = None,
    wait: float = 30.0,
    timeout: float = 300.0,
) -> str:
    """Publish ``goal`` once a manager is reachable and feed its statuses and plans to
    ``on_status`` / ``on_plan`` until ``done()``. ``sent()`` runs right before the goal
    is published. Returns ``"done"``, ``"no_manager"`` (nothing on the status topic or no
    goal subscriber within ``wait`` s) or ``"timed_out"`` (no end within ``timeout`` s)."""
    names = ManagerNodeParams()
    seen = []
    with short_lived_node("miles_goal_cli", domain_id) as (node, executor):
        node.create_subscription(
            String,
            under_namespace(namespace, names.status_topic),
            lambda msg: (seen.append(True), on_status(json.loads(msg.data))),
            LATCHED_READER_QOS,  # the latest status, then what follows
        )
        node.create_subscription(
            String,
            under_namespace(namespace, names.plan_topic),
            lambda msg: on_plan(json.loads(msg.data)),
            LATCHED_READER_QOS,
        )
        pub = node.create_publisher(
            String, under_namespace(namespace, names.goal_topic), COMMAND_QOS
        )
        deadline = time.monotonic() + wait
        while not (seen and pub.get_subscription_count() > 0):
            if time.monotonic() > deadline:
                return "no_manager"
            executor.spin_once(timeout_sec=0.1)
        sent()
        pub.publish(String(data=goal))
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                return "timed_out"
            executor.spin_once(timeout_sec=0.1)
        return "done"


class GraphClient:
    """A probe node on a graph's public names: records skill statuses, the safety state
    and events, joint states, camera frames, object poses, manager statuses and plans;
    sends skill requests and goals; calls the sim's camera and the e-stop services.
    Waits are on a condition notified by every message (:meth:`wait`), never sleeps."""

    def __init__(self, context, name: str = "miles_demo") -> None:
        sim, skill = SimNodeParams(), SkillNodeParams()
        self.safety_names, manager = SafetyNodeNames(), ManagerNodeParams()
        self.camera_service = sim.camera_service
        self.node = rclpy.create_node(name, context=context)
        self.cond = threading.Condition()
        self.statuses: list[dict] = []
        self.safety: dict = {}
        self.events: list[dict] = []
        self.joints: list[tuple[float, np.ndarray, np.ndarray]] = []
        self.images: list[np.ndarray] = []
        self.objects: dict = {}
        self.manager: list[dict] = []
        self.plans: list[dict] = []
        sub = self.node.create_subscription
        sub(String, skill.status_topic, self._json_into(self.statuses), READER_QOS)
        sub(String, self.safety_names.state_topic, self._on_safety, LATCHED_QOS)
        sub(String, self.safety_names.events_topic, self._json_into(self.events), READER_QOS)
        sub(JointState, sim.joint_states_topic, self._on_joints, SENSOR_QOS)
        sub(Image, sim.camera_topic, self._on_image, IMAGE_QOS)
        sub(String, sim.objects_topic, self._on_objects, COMMAND_QOS)
        sub(String, manager.status_topic, self._json_into(self.manager), LATCHED_QOS)
        sub(String, manager.plan_topic, self._json_into(self.plans), LATCHED_QOS)
        self.pub_request = self.node.create_publisher(String, skill.request_topic, READER_QOS)
        self.pub_goal = self.node.create_publisher(String, manager.goal_topic, READER_QOS)

    def _add(self, store: list, item) -> None:
        with self.cond:
            store.append(item)
            self.cond.notify_all()

    def _json_into(self, store: list):
        return lambda msg: self._add(store, json.loads(msg.data))

    def _on_safety(self, msg) -> None:
        with self.cond:
            self.safety = json.loads(msg.data)
            self.cond.notify_all()

    def _on_joints(self, msg) -> None:
        item = (time.monotonic(), np.asarray(msg.position[:7]), np.asarray(msg.velocity[:7]))
        with self.cond:
            self.joints.append(item)
            if len(self.joints) > 4000:
                del self.joints[:2000]
            self.cond.notify_all()

    def _on_image(self, msg) -> None:
        rgb = np.frombuffer(bytes(msg.data), np.uint8).reshape(msg.height, msg.width, 3)
        self._add(self.images, rgb.copy())

    def _on_objects(self, msg) -> None:
        self.objects = json.loads(msg.data).get("objects", {})

    def wait(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        with self.cond:
            if not self.cond.wait_for(predicate, timeout=timeout):
                raise TimeoutError(f"demo: timed out after {timeout:.0f} s waiting for {what}")

    def request(self, rid: str, skill: str, params: dict) -> None:
        msg = {"id": rid, "skill": skill, "params": params}
        self.pub_request.publish(String(data=json.dumps(msg)))

    def publish_goal(self, text: str) -> None:
        self.pub_goal.publish(String(data=text))

    def call(self, service: str, timeout: float = 10.0):
        """Call a std_srvs/Trigger service; the graph's executor delivers the answer."""
        client = self.node.create_client(Trigger, service)
        try:
            if not client.wait_for_service(timeout_sec=timeout):
                raise TimeoutError(f"demo: no service {service}")
            future = client.call_async(Trigger.Request())
            done = threading.Event()
            future.add_done_callback(lambda _: done.set())
            if not done.wait(timeout):
                raise TimeoutError(f"demo: {service} did not answer")
            return future.result()
        finally:
            self.node.destroy_client(client)

    def trigger_estop(self):
        return self.call(self.safety_names.trigger_service)

    def reset_estop(self):
        return self.call(self.safety_names.reset_service)

    def capture(self, path: Path) -> None:
        """A camera frame from the sim, saved as a PNG."""
        count = len(self.images)
        self.call(self.camera_service)
        self.wait(lambda: len(self.images) > count, 10.0, "a camera frame")
        from PIL import Image as PILImage

        PILImage.fromarray(self.images[-1]).save(path)
