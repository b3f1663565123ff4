"""A ROS 2 graph in the test process: Miles nodes plus a probe node, built by the one
in-process graph builder (:class:`miles_ros.ros.graph.InProcessGraph`: their own context
and ROS domain, one single-threaded executor as `miles up` composes them, spun on a
thread). Topic names come from the nodes' parameter dataclasses, QoS from
:mod:`miles_ros.ros.qos`.

Waits are on conditions with timeouts (``Graph.wait``), never sleeps.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable

import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger

from miles_ros.interfaces import arm_scoped
from miles_ros.params.safety import SafetyNodeNames
from miles_ros.params.sim import SimNodeParams
from miles_ros.params.skill import SkillNodeParams
from miles_ros.ros.graph import InProcessGraph
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS, READER_QOS, SENSOR_QOS
from tests.ros_domains import domain_id

TIMEOUT = 30.0
RELIABLE = READER_QOS
LATCHED = LATCHED_QOS
SIM, SKILL, SAFETY = SimNodeParams(), SkillNodeParams(), SafetyNodeNames()
"""The default names of the graph (what the probe listens to)."""


def overrides(params: dict) -> list[Parameter]:
    return [Parameter(k, value=v) for k, v in params.items()]


def skill_graph(library, skill_params: dict | None = None, *, scene=None) -> Graph:
    """The graph sim_node (PyBullet) -> safety_node -> skill_node over skill ``library``,
    up: object poses and the safety state heard, the skill node holding a joint state.
    The sim runs in this process, with the same loosened robot-state timeouts as `miles
    up` (:data:`~miles_ros.ros.graph.IN_PROCESS_SIM_OVERRIDES`). ``skill_params``: more
    skill_node parameters; ``scene``: a scene file for the sim and the skill node (None:
    the default scene, neither node given one)."""
    from miles_ros.ros.graph import IN_PROCESS_SIM_OVERRIDES
    from miles_ros.ros.safety_node import SafetyNode
    from miles_ros.ros.sim_node import SimNode
    from miles_ros.ros.skill_node import SkillNode

    scene_param = {} if scene is None else {"scene_file": str(scene)}
    params = {
        "skill_library": str(library),
        **scene_param,
        **IN_PROCESS_SIM_OVERRIDES["skills"],
        **(skill_params or {}),
    }
    safety = IN_PROCESS_SIM_OVERRIDES["safety"]
    graph = Graph(
        [
            lambda ctx: SimNode(context=ctx, parameter_overrides=overrides(scene_param)),
            lambda ctx: SafetyNode(context=ctx, parameter_overrides=overrides(safety)),
            lambda ctx: SkillNode(context=ctx, parameter_overrides=overrides(params)),
        ]
    )
    try:
        graph.wait(lambda: len(graph.objects) > 0 and len(graph.safety) > 0, what="graph up")
        graph.wait(lambda: graph.nodes[2].skills.joints is not None, what="skill node state")
    except BaseException:
        graph.close()
        raise
    return graph


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Poll ``predicate()`` (a state another thread or process sets, with no message to
    wait on) until it holds, else fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(0.02)  # polling a state with a deadline


class Graph:
    """Nodes built by ``factories`` (callables taking ``context``) plus a probe that
    records joint states, commands, statuses, skill tags and safety state/events. ``nodes`` are the
    factories' nodes (not the probe)."""

    def __init__(self, factories: list[Callable]):
        self.graph = InProcessGraph(factories, domain_id())
        self.context = self.graph.context
        self.nodes = list(self.graph.nodes)
        self.cond = threading.Condition()
        try:
            self.probe = self.graph.add(self._make_probe())
            self.graph.spin_in_thread("test_graph_spin")
        except BaseException:
            self.close()
            raise

    def _make_probe(self):
        import rclpy

        probe = rclpy.create_node("probe", context=self.context)
        self.joint_states: list[JointState] = []
        self.skill_commands: list[JointState] = []
        self.statuses: list[dict] = []
        self.safety: list[dict] = []
        self.objects: list[dict] = []
        self.skill_tags: list[dict] = []
        sub = probe.create_subscription
        sub(JointState, SIM.joint_states_topic, self._keep(self.joint_states), SENSOR_QOS)
        sub(JointState, SKILL.skill_command_topic, self._keep(self.skill_commands), RELIABLE)
        sub(String, SKILL.status_topic, self._keep(self.statuses, json.loads), RELIABLE)
        sub(String, SAFETY.state_topic, self._keep(self.safety, json.loads), LATCHED)
        sub(String, SIM.objects_topic, self._keep(self.objects, json.loads), COMMAND_QOS)
        sub(String, SKILL.skill_tags_topic, self._keep(self.skill_tags, json.loads), LATCHED)
        self.pub_request = probe.create_publisher(String, SKILL.request_topic, RELIABLE)
        return probe

    @property
    def executor(self):
        return self.graph.executor

    def _keep(self, store: list, convert=None):
        def callback(msg):
            item = convert(msg.data) if convert else msg
            with self.cond:
                store.append(item)
                if len(store) > 5000:
                    del store[:1000]
                self.cond.notify_all()

        return callback

    def keep_arms(self, store: list, arms, topic: str) -> None:
        """Every JSON message on each of ``arms``' ``topic`` (under ``/ARM``, reliable) into
        ``store`` as ``(arm, message)``."""
        for arm in arms:
            self.probe.create_subscription(
                String,
                arm_scoped(arm, topic),
                self._keep(store, lambda data, arm=arm: (arm, json.loads(data))),
                COMMAND_QOS,
            )

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
        self.graph.close()


@contextlib.contextmanager
def held_trigger(service: str, domain: int):
    """A std_srvs/Trigger ``service`` on ``domain`` (a context and executor of its own)
    that holds its first answer until a second request arrives, as a lost answer leaves
    the client waiting (the first is answered once the request is resent, or after
    TIMEOUT s); yields the list of calls' numbers."""
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    node = rclpy.create_node("held_trigger", context=context)
    second, calls = threading.Event(), []

    def on_call(request, response):
        calls.append(len(calls) + 1)
        if calls[-1] == 1:
            second.wait(timeout=TIMEOUT)  # held: answered only once the request is resent
        else:
            second.set()
        response.success, response.message = True, f"answer to request {calls[-1]}"
        return response

    node.create_service(Trigger, service, on_call, callback_group=ReentrantCallbackGroup())
    executor = MultiThreadedExecutor(num_threads=2, context=context)
    executor.add_node(node)
    stop = executor.create_future()
    thread = threading.Thread(target=executor.spin_until_future_complete, args=(stop,))
    thread.start()
    try:
        yield calls
    finally:
        second.set()
        stop.set_result(True)
        thread.join(timeout=TIMEOUT)
        executor.shutdown(timeout_sec=5.0)
        node.destroy_node()
        rclpy.try_shutdown(context=context)
