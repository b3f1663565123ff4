"""safety_node over real rclpy on loopback: pass-through, shaping reported on events,
malformed requests refused, e-stop by topic and by service latching, reset only when
still and released, watchdog hold, transient-local state, the `miles estop` command.

Each test gets its own context and ROS domain id; the node and a test client are spun
by one executor thread; waits are on conditions with timeouts.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Bool, String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.commands import estop as estop_cli  # noqa: E402
from miles_ros.ros.clients import call_trigger  # noqa: E402
from miles_ros.ros.graph import InProcessGraph  # noqa: E402
from miles_ros.ros.qos import LATCHED_QOS  # noqa: E402
from miles_ros.ros.safety_node import SafetyNode  # noqa: E402
from miles_ros.safety import SafetyConfig  # noqa: E402
from sims.robots import panda  # noqa: E402
from tests.nodes.graph_harness import held_trigger  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

HOME = panda.home_joint_positions
NAMES = list(panda.JOINT_NAMES)
TIMEOUT = 20.0


class Graph:
    """The safety node plus a client that plays robot (echoes commands on /joint_states
    from a reliable publisher), skill (requests) and operator (e-stop, services)."""

    def __init__(self, overrides: dict | None = None) -> None:
        # A long state timeout: a loaded test machine must not latch "robot state lost"
        # (that fault is tested deterministically in tests/safety).
        params = {
            "audit_throttle": 0.0,
            "fault_violations": 0,
            "state_timeout": 5.0,
            **(overrides or {}),
        }
        overrides = [Parameter(k, value=v) for k, v in params.items()]
        self.graph = InProcessGraph(
            [lambda ctx: SafetyNode(context=ctx, parameter_overrides=overrides)], domain_id()
        )
        self.domain_id, self.context = self.graph.domain_id, self.graph.context
        (self.node,) = self.graph.nodes
        self.client = self.graph.add(rclpy.create_node("test_client", context=self.context))
        self.cond = threading.Condition()
        self.commands: list[JointState] = []
        self.states: list[dict] = []
        self.events: list[dict] = []
        self.stream: Callable[[float], np.ndarray] | None = None
        self.measured_speed: float | None = None  # what the fake robot reports
        self.teleport: np.ndarray | None = None  # the fake robot reports this pose instead
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self.pub_request = self.client.create_publisher(JointState, interfaces.SKILL_COMMAND, 10)
        self.pub_robot = self.client.create_publisher(
            JointState, interfaces.JOINT_STATES, reliable
        )
        self.pub_estop = self.client.create_publisher(Bool, interfaces.ESTOP, 10)
        self.client.create_subscription(JointState, interfaces.JOINT_COMMAND, self._on_cmd, 100)
        self.client.create_subscription(
            String, interfaces.SAFETY_STATE, self._on_state, LATCHED_QOS
        )
        self.client.create_subscription(String, interfaces.SAFETY_EVENTS, self._on_event, 100)
        self.trigger = self.client.create_client(Trigger, interfaces.TRIGGER_ESTOP)
        self.reset = self.client.create_client(Trigger, interfaces.RESET_ESTOP)
        self.client.create_timer(0.01, self._robot_tick)
        self.client.create_timer(0.004, self._stream_tick)
        self.graph.spin_in_thread("test_safety_spin")

    def close(self) -> None:
        self.graph.close()

    # --- callbacks (executor thread) ------------------------------------------------
    def _notify(self, store: list, item) -> None:
        with self.cond:
            store.append(item)
            self.cond.notify_all()

    def _on_cmd(self, msg: JointState) -> None:
        self._notify(self.commands, msg)

    def _on_state(self, msg: String) -> None:
        self._notify(self.states, json.loads(msg.data))

    def _on_event(self, msg: String) -> None:
        self._notify(self.events, json.loads(msg.data))

    def _robot_tick(self) -> None:
        msg = JointState(name=NAMES)
        msg.header.stamp = self.client.get_clock().now().to_msg()
        last = self.commands[-1] if self.commands else None
        msg.position = list(last.position[:7]) if last is not None else HOME.tolist()
        if self.teleport is not None:
            msg.position = self.teleport.tolist()
        if self.measured_speed is not None:
            msg.velocity = [self.measured_speed] * 7
        self.pub_robot.publish(msg)

    def _stream_tick(self) -> None:
        if self.stream is not None:
            now = self.client.get_clock().now()
            self.request(self.stream(now.nanoseconds * 1e-9))

    # --- test side ------------------------------------------------------------------
    def request(self, positions, names=NAMES, stamp=True) -> None:
        msg = JointState(name=list(names), position=[float(x) for x in positions])
        if stamp:
            msg.header.stamp = self.client.get_clock().now().to_msg()
        self.pub_request.publish(msg)

    def wait_for(self, predicate: Callable[[], bool], what: str) -> None:
        with self.cond:
            assert self.cond.wait_for(predicate, timeout=TIMEOUT), f"timed out waiting: {what}"

    def state(self) -> dict:
        with self.cond:
            return self.states[-1] if self.states else {}

    def call(self, client, what: str) -> Trigger.Response:
        assert client.wait_for_service(timeout_sec=TIMEOUT), what
        done = threading.Event()
        future = client.call_async(Trigger.Request())
        future.add_done_callback(lambda _: done.set())
        assert done.wait(TIMEOUT), f"no answer: {what}"
        return future.result()

    def commands_after(self, index: int) -> list[np.ndarray]:
        with self.cond:
            return [np.array(c.position[:7]) for c in self.commands[index:]]


@pytest.fixture
def graph():
    g = Graph()
    g.wait_for(lambda: g.states and g.states[-1]["mode"] == "hold", "node holding")
    yield g
    g.close()


def test_request_inside_limits_passes_unchanged(graph):
    target = HOME + 1e-4
    graph.request(target)
    graph.wait_for(
        lambda: any(np.array_equal(c.position[:7], target) for c in graph.commands),
        "the request passed unchanged",
    )
    graph.wait_for(lambda: graph.state().get("mode") == "active", "mode active")


def test_violating_request_is_shaped_and_reported(graph):
    n = len(graph.commands)
    target = HOME + 0.5
    graph.request(target)
    graph.wait_for(
        lambda: any(e["kind"] in ("acceleration_limit", "scaled") for e in graph.events),
        "a shaping event",
    )
    event = next(e for e in graph.events if e["kind"] in ("acceleration_limit", "scaled"))
    assert {"time", "kind", "joint", "requested", "allowed"} <= set(event)
    assert event["joint"] in NAMES
    assert not any(np.allclose(c, target) for c in graph.commands_after(n))


def test_malformed_request_is_refused_and_reported(graph):
    n = len(graph.commands)
    graph.request([math.nan] + list(HOME[1:]))
    graph.request(HOME[:6], names=NAMES[:6])
    graph.request(HOME + 1e-4, stamp=False)
    for kind in ("non_finite", "missing_joint", "missing_stamp"):
        graph.wait_for(lambda k=kind: any(e["kind"] == k for e in graph.events), kind)
    graph.wait_for(lambda: len(graph.commands) > n + 5, "more commands")
    assert all(np.array_equal(c, HOME) for c in graph.commands_after(n))


def test_estop_by_topic_latches_and_release_only_permits_reset(graph):
    graph.pub_estop.publish(Bool(data=True))
    graph.wait_for(lambda: graph.state().get("estop") is True, "latched by topic")
    graph.request(HOME + 1e-4)
    graph.wait_for(lambda: any(e["kind"] == "estop_latched" for e in graph.events), "refusal")
    response = graph.call(graph.reset, "reset while pressed")
    assert not response.success and "pressed" in response.message
    graph.pub_estop.publish(Bool(data=False))
    released = {"kind": "estop_input", "detail": "released"}
    graph.wait_for(
        lambda: any(released.items() <= e.items() for e in graph.events), "release seen"
    )
    assert graph.state()["estop"] is True  # release alone does not reset
    response = graph.call(graph.reset, "reset after release")
    assert response.success, response.message
    graph.wait_for(lambda: graph.state().get("estop") is False, "reset")


def test_estop_by_service_stops_the_arm_and_reset_waits_until_still(graph):
    start = graph.node.get_clock().now().nanoseconds * 1e-9

    def moving(t):
        target = HOME.copy()
        target[0] += 0.6 * (t - start)
        return target

    graph.stream = moving
    graph.wait_for(lambda: graph.state().get("mode") == "active", "moving")
    graph.wait_for(lambda: len(graph.commands) > 60, "some motion")
    graph.measured_speed = 0.6  # the robot reports that it still moves
    response = graph.call(graph.trigger, "trigger")
    assert response.success
    graph.wait_for(lambda: graph.state().get("mode") == "estop", "stopped")
    n = len(graph.commands)
    graph.wait_for(lambda: len(graph.commands) > n + 25, "held commands")
    held = graph.commands_after(n)
    assert all(np.array_equal(c, held[0]) for c in held)  # requests keep coming: refused
    refused = graph.call(graph.reset, "reset while the robot moves")
    assert not refused.success and "moving" in refused.message
    graph.stream = None
    graph.measured_speed = 0.0
    for _ in range(50):  # the next robot message reports the arm still
        if graph.call(graph.reset, "reset").success:
            break
        n = len(graph.commands)
        graph.wait_for(lambda m=n: len(graph.commands) > m + 10, "more periods")
    graph.wait_for(lambda: graph.state().get("estop") is False, "reset state")


def test_watchdog_holds_after_silence(graph):
    start = graph.node.get_clock().now().nanoseconds * 1e-9
    graph.stream = lambda t: HOME + np.r_[0.5 * (t - start), np.zeros(6)]
    graph.wait_for(lambda: graph.state().get("mode") == "active", "active")
    graph.stream = None
    graph.wait_for(lambda: graph.state().get("mode") == "hold", "watchdog hold")
    graph.wait_for(lambda: any(e["kind"] == "watchdog" for e in graph.events), "watchdog event")
    n = len(graph.commands)
    graph.wait_for(lambda: len(graph.commands) > n + 80, "commands while holding")
    tail = graph.commands_after(n + 60)
    assert all(np.array_equal(c, tail[0]) for c in tail)


def test_a_teleported_robot_is_followed_not_chased(graph):
    """The robot reports a pose far from the command (reset, hand-guided): one
    tracking_reset event, and the commands hold the measured pose."""
    moved = HOME + np.array([0.0, 0.4, 0.0, -0.4, 0.0, 0.3, 0.0])
    graph.teleport = moved
    graph.wait_for(lambda: any(e["kind"] == "tracking_reset" for e in graph.events), "event")
    graph.wait_for(lambda: "tracking" in graph.state().get("reason", ""), "state reason")
    n = len(graph.commands)
    graph.wait_for(lambda: len(graph.commands) > n + 10, "commands after the reset")
    assert all(np.array_equal(c, moved) for c in graph.commands_after(n))
    assert sum(e["kind"] == "tracking_reset" for e in graph.events) == 1


def test_state_is_transient_local_and_parameters_are_guarded(graph):
    late = []
    got = threading.Event()

    def on_state(msg):
        late.append(json.loads(msg.data))
        got.set()

    graph.client.create_subscription(String, interfaces.SAFETY_STATE, on_state, LATCHED_QOS)
    assert got.wait(TIMEOUT)
    assert set(late[0]) == {"estop", "mode", "interventions", "reason"}
    result = graph.node.set_parameters([Parameter("position_margin", value=0.0)])[0]
    assert not result.successful  # read once at start
    result = graph.node.set_parameters([Parameter("reduced_speed", value=True)])[0]
    assert result.successful
    assert graph.node.supervisor._speed_cap == pytest.approx(0.25)


def test_the_running_skills_tags_reach_a_safety_node_that_joins_late():
    """skill_node latches its running skill's tags: a safety node whose reader is matched
    after they were sent (DDS matches each topic on its own; a restarted node) still
    takes them, not only the next skill's."""
    tags = {"skill": "push", "tags": ["contact"]}

    def skill_stand_in(ctx):
        node = rclpy.create_node("skill_stand_in", context=ctx)
        pub = node.create_publisher(String, interfaces.SAFETY_SKILL_TAGS, LATCHED_QOS)
        pub.publish(String(data=json.dumps(tags)))  # before any safety node exists
        return node

    events, cond = [], threading.Condition()

    def keep(msg):
        with cond:
            events.append(json.loads(msg.data))
            cond.notify_all()

    with InProcessGraph(
        [skill_stand_in, lambda ctx: SafetyNode(context=ctx)], domain_id()
    ) as graph:
        probe = graph.add(rclpy.create_node("probe", context=graph.context))
        probe.create_subscription(String, interfaces.SAFETY_EVENTS, keep, 100)
        graph.spin_in_thread("test_tags_spin")
        with cond:
            assert cond.wait_for(
                lambda: any(e["kind"] == "skill" for e in events), timeout=TIMEOUT
            ), events
    (event,) = [e for e in events if e["kind"] == "skill"]
    assert event["requested"] == ["contact"] and "'push'" in event["detail"], event


def test_invalid_parameter_override_is_refused():
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain_id())
    try:
        with pytest.raises(Exception, match="rate_hz"):
            SafetyNode(context=context, parameter_overrides=[Parameter("rate_hz", value=-5.0)])
    finally:
        rclpy.shutdown(context=context)


def test_miles_estop_command(graph, monkeypatch, capsys):
    monkeypatch.setenv("ROS_DOMAIN_ID", str(graph.domain_id))
    assert estop_cli.main(["--timeout", str(TIMEOUT)]) == 0
    # "e-stop latched", or "e-stop was already latched" when a lost answer was asked again.
    assert "latched" in capsys.readouterr().out
    graph.wait_for(lambda: graph.state().get("mode") == "estop", "latched and still")
    assert estop_cli.main(["--reset", "--timeout", str(TIMEOUT)]) == 0
    assert "reset" in capsys.readouterr().out
    graph.wait_for(lambda: graph.state().get("estop") is False, "reset by the command")


def test_a_trigger_call_is_sent_again_until_it_is_answered():
    """`miles estop`'s call is resent until an answer comes (its services are idempotent):
    a server that holds its first answer until a second request arrives still answers the
    command, well inside its timeout."""
    domain = domain_id()
    with held_trigger("/held/trigger", domain) as calls:
        result = call_trigger("/held/trigger", domain, timeout=TIMEOUT, resend=0.2)
    assert result.answered and result.success, result
    assert len(calls) >= 2 and result.message.startswith("answer to request")


def test_config_file_loads_as_ros_parameters():
    path = Path(__file__).resolve().parents[2] / "config" / "safety.yaml"
    context = rclpy.Context()
    args = ["--ros-args", "--params-file", str(path), "-p", "reduced_speed:=true"]
    rclpy.init(context=context, domain_id=domain_id(), args=args)
    try:
        node = SafetyNode(context=context)
        try:
            assert node.config == SafetyConfig(reduced_speed=True)
            assert node.supervisor._speed_cap == pytest.approx(0.25)
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
