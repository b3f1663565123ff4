"""The operator console's bridge to the graph: :class:`ConsoleBridge` is the
:class:`miles_ros.console.port.CellPort` the web app (:mod:`miles_ros.console.app`)
talks to.

It publishes goals on ``/miles/goal``, calls every arm's safety node's
``trigger_estop`` / ``reset_estop`` (std_srvs/Trigger; the services ``miles estop``
calls, :func:`miles_ros.ros.clients.estop_services`) and keeps the cell's state
(:class:`miles_ros.console.state.CellState`) from ``/miles/plan``,
``/miles/manager/status`` and each arm's ``/miles/skill/status`` and
``/miles/safety/state``. The web server calls it from its own threads: the e-stop is
sent at once with ``call_async`` (never waiting, never on the executor), a reset waits
for the supervisors' answers on an event set by the executor, with a deadline. A call
not answered within :data:`RESEND_S` is sent again until it is (both services are
idempotent, as ``miles estop`` relies on): a found service can lose its answer while
discovery lags (Fast DDS's "failed to send response (timeout)", after the service has
acted), which a console started in a process of its own meets at its first e-stop.

:func:`attach_console` adds the bridge to an in-process graph and serves the console
(``miles up --console``, ``miles console``).
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future, InvalidStateError

from rclpy.node import Node
from std_msgs.msg import String
from std_srvs.srv import Trigger

from miles_ros.console.port import card_summaries
from miles_ros.console.server import DEFAULT_HOST, ConsoleServer
from miles_ros.console.state import CellState
from miles_ros.interfaces import NAMESPACE, arm_scoped, under_namespace
from miles_ros.params.manager import ManagerNodeParams
from miles_ros.params.safety import SafetyNodeNames
from miles_ros.params.skill import SkillNodeParams
from miles_ros.ros.clients import estop_services
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_READER_QOS, READER_QOS

RESEND_S = 0.25
"""A Trigger call not answered this long after it was sent is sent again (s): several
times within the app's e-stop wait (``miles_ros.console.app.Limits.estop_timeout_s``)."""
ESTOP_RESEND_FOR_S = 10.0
"""How long :meth:`ConsoleBridge.estop` goes on resending at most (s), unless its future
is done or cancelled first (the app cancels it when its own wait ends)."""


def scene_arms(scene_file: str | None) -> tuple[str, ...]:
    """The arms of a scene (``("",)``: the single arm of a scene without ``arms:``)."""
    if not scene_file:
        return ("",)
    from sims.scene import load_scene

    scene = load_scene(scene_file)
    return tuple(m.name for m in scene.arms) if scene.multi_arm else ("",)


class ConsoleBridge(Node):
    """The console's port to the graph of ``arms`` under ``namespace``."""

    def __init__(
        self,
        arms: tuple[str, ...] = ("",),
        namespace: str = NAMESPACE,
        skill_library: str | None = None,
        **kwargs,
    ) -> None:
        super().__init__("console_bridge", **kwargs)
        self.arms = tuple(arms)
        self.state = CellState(self.arms)
        self.skill_library = skill_library
        manager, skill, safety = ManagerNodeParams(), SkillNodeParams(), SafetyNodeNames()

        def name(topic: str) -> str:
            return under_namespace(namespace, topic)

        self.goal_topic = name(manager.goal_topic)
        self.pub_goal = self.create_publisher(String, self.goal_topic, COMMAND_QOS)
        sub = self.create_subscription
        sub(String, name(manager.plan_topic), self._json(self.state.on_plan), LATCHED_READER_QOS)
        sub(
            String,
            name(manager.status_topic),
            self._json(self.state.on_manager_status),
            LATCHED_READER_QOS,
        )
        for arm in self.arms:
            status = arm_scoped(arm, name(skill.status_topic))
            sub(String, status, self._json(self.state.on_skill_status, arm), READER_QOS)
            state = arm_scoped(arm, name(safety.state_topic))
            sub(String, state, self._json(self.state.on_safety, arm), LATCHED_READER_QOS)
        self.triggers = self._trigger_clients(estop_services(False, namespace, self.arms))
        self.resets = self._trigger_clients(estop_services(True, namespace, self.arms))

    def _trigger_clients(self, services: list[str]) -> dict[str, object]:
        return {
            arm: self.create_client(Trigger, service)
            for arm, service in zip(self.arms, services, strict=True)
        }

    def _json(self, handler, *args):
        def callback(msg: String) -> None:
            try:
                data = json.loads(msg.data)
            except ValueError:
                self.get_logger().warning(f"console: not JSON: {msg.data[:80]!r}")
                return
            if isinstance(data, dict):
                handler(*args, data)

        return callback

    # -- the port (any thread) -----------------------------------------------------------
    def send_goal(self, text: str) -> dict:
        if self.pub_goal.get_subscription_count() == 0:
            return {"sent": False, "message": f"no manager listens on {self.goal_topic}"}
        self.pub_goal.publish(String(data=text))
        return {"sent": True, "message": f"goal sent on {self.goal_topic}"}

    def estop(self) -> Future:
        return self._call_all(self.triggers, "latched", ESTOP_RESEND_FOR_S)

    def reset(self, timeout: float) -> dict:
        future = self._call_all(self.resets, "success", timeout)
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        if not done.wait(timeout):
            return {
                "success": False,
                "answered": False,
                "message": f"no answer from every supervisor within {timeout} s",
            }
        return {**future.result(), "answered": True}

    def snapshot(self) -> dict:
        return self.state.snapshot()

    def wait_newer(self, version: int, timeout: float) -> dict | None:
        return self.state.wait_newer(version, timeout)

    def cards(self) -> list[dict]:
        return card_summaries(self.skill_library)

    def wait_for_services(self, timeout: float) -> None:
        """Wait until every arm's e-stop and reset services are discovered (TimeoutError
        after ``timeout`` s, naming those still missing). Any thread: discovery runs in
        the middleware, not on the executor."""
        deadline = time.monotonic() + timeout
        clients = [*self.triggers.values(), *self.resets.values()]
        for client in clients:
            if not client.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic())):
                missing = [c.srv_name for c in clients if not c.service_is_ready()]
                raise TimeoutError(f"no service {', '.join(missing)} within {timeout:g} s")

    # -- internals -----------------------------------------------------------------------
    def _call_all(self, clients: dict, key: str, resend_for: float) -> Future:
        """Call every arm's Trigger ``clients`` at once; a future of ``{key: every arm
        answered success, "message", "arms": {arm: message}}``. An arm whose service is
        not there answers "no service" at once (its request would be lost). An arm not
        answered within :data:`RESEND_S` is called again, for ``resend_for`` s at most or
        until the future is done (or cancelled by the caller); its first answer counts."""
        result: Future = Future()
        answers: dict[str, tuple[bool, str]] = {}
        lock = threading.Lock()
        give_up = time.monotonic() + resend_for

        def answer(arm: str, success: bool, message: str) -> None:
            with lock:
                if arm in answers:
                    return  # a resent call's answer after the first
                answers[arm] = (success, message)
                if len(answers) < len(clients):
                    return
            label = {arm: (f"{arm}: " if arm else "") for arm in clients}
            try:
                result.set_result(
                    {
                        key: all(ok for ok, _ in answers.values()),
                        "message": "; ".join(label[a] + answers[a][1] for a in clients),
                        "arms": {a or "arm": answers[a][1] for a in clients},
                    }
                )
            except InvalidStateError:
                pass  # the caller stopped waiting and cancelled it

        def call(arm: str, client, first: bool = False) -> None:
            with lock:
                if arm in answers or result.done() or time.monotonic() > give_up:
                    return
            try:
                pending = client.call_async(Trigger.Request())
            except Exception:
                if first:
                    raise
                return  # the bridge is being destroyed

            def done(pending) -> None:
                response = pending.result()
                if response is None:
                    answer(arm, False, "the call failed")
                else:
                    answer(arm, bool(response.success), response.message)

            pending.add_done_callback(done)
            again = threading.Timer(RESEND_S, call, (arm, client))
            again.daemon = True
            again.start()

        for arm, client in clients.items():
            if not client.service_is_ready():
                answer(arm, False, f"no service {client.srv_name}")
            else:
                call(arm, client, first=True)
        return result


def attach_console(
    graph,
    scene_file: str | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    metrics_registry=None,
    view_url: str | None = None,
    token: str | None = None,
    wait_services: float = 0.0,
) -> ConsoleServer:
    """Add a :class:`ConsoleBridge` for the cell of ``scene_file`` to ``graph`` (an
    :class:`~miles_ros.ros.graph.InProcessGraph`) and serve the console on
    ``host:port`` (0: a free one) with ``token`` (None: a fresh one); prints its URL.
    ``wait_services`` > 0: first wait that long at most for every arm's e-stop service
    (TimeoutError naming the missing ones), so a console in a process of its own never
    serves an e-stop that would answer "no service". Stop it with ``.stop()`` before the
    graph closes."""
    bridge = graph.add(ConsoleBridge(scene_arms(scene_file), context=graph.context))
    if wait_services > 0:
        bridge.wait_for_services(wait_services)
    server = ConsoleServer(
        bridge, host, port, token=token, metrics_registry=metrics_registry, view_url=view_url
    )
    return server.start()
