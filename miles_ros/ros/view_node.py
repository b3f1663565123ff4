"""``view_node``: the live 3D view of the cell (Rerun), fed from the graph's topics.

Reads per arm (:func:`~miles_ros.interfaces.arm_scoped`, ``""`` for the single arm) the
joint states, the safety node's joint command, safety state and events and the skill
status, and once the scene objects, the plan, the manager status and the camera frames.
A timer at the view's rate (30 Hz) hands what arrived as one batch to the view (anything
with ``apply(batch)`` and ``close()``: a :class:`~miles_ros.view.process.ViewProcess`,
whose child process draws, or a :class:`~miles_ros.view.process.LocalView`).

The fast topics (the 250 Hz joint states and commands, the objects at 50 Hz) are
sampled, not called back: their readers belong to a second node that no executor spins,
and each batch takes what waits there (every joint state's arrival time gives the
periods between them; only the newest message is decoded), so the view adds no callback
per message to the graph's executor (500 callbacks a second cost about as much CPU as
drawing the arm). They are read best effort: only the newest matters, and a reliable
reader would add acknowledgements to the writers. The other topics (a few messages a
second) are called back as usual, decoded and queued in order; of the camera frames only
the newest is kept.

``miles up --view`` / ``--view-web`` / ``--record FILE.rrd`` and ``miles demo``:
:func:`start_view`. In ``miles up`` the node and its drawing run in a process of their own
(``miles view``, :class:`ViewNodeProcess`): every fast publication then crosses processes
(12-27 us more each at the median), but the node no longer shares the loop's interpreter,
which kept the loop's p99 jitter at a median 1.33 ms against 2.11 ms under SCHED_FIFO, and
lower without it too (docs/console.md, "The 3D view in a process of its own"). In
``miles demo`` and with ``miles up --operator-in-process`` the node stays in the graph's
process (its readers there cost the 250 Hz publications nothing more) and only the drawing
runs in a child.
"""

from __future__ import annotations

import json

from rclpy.node import Node
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import Image, JointState
from std_msgs.msg import String

from miles_ros import interfaces
from miles_ros.interfaces import arm_scoped
from miles_ros.ros.processes import UP_TIMEOUT_S, CommandProcess
from miles_ros.ros.qos import COMMAND_QOS, IMAGE_QOS, LATCHED_QOS, keep_last
from miles_ros.view.options import DEFAULT_RATE_HZ, DEFAULT_WEB_PORT, is_rerun_recording
from miles_ros.view.process import Call, ViewProcess, ViewSpec
from sims.scene import load_scene

WEB_LINE_PREFIX = "view: http"
"""How the view's line with the web viewer's page starts (:func:`start_view`)."""
SAMPLED_QOS = keep_last(64, reliable=False)
"""The sampled readers: best effort, deep enough to hold every message between two
batches at 250 Hz (8 at 30 Hz) with room for late batches."""


class ViewNode(Node):
    """Feeds ``view`` (``apply(list of (method, args))``, ``close()``) with the graph of
    ``arms`` (names; ``("",)`` for the single arm) at ``rate_hz``; closes it when
    destroyed."""

    def __init__(
        self,
        view,
        arms: tuple[str, ...] = ("",),
        rate_hz: float = DEFAULT_RATE_HZ,
        **kwargs,
    ) -> None:
        super().__init__("view_node", **kwargs)
        self.view = view
        self.arms = tuple(arms)
        self._sampler = Node("view_node_sampler", context=kwargs.get("context"))
        """Holds the readers of the fast topics; never spun (see the module)."""
        self._sampled: dict[tuple[str, str], tuple[object, type]] = {}
        """(method, arm) -> the reader of a fast topic and its type, read at each batch."""
        self._latest: dict[tuple[str, str], Call] = {}
        """(method, arm) -> the newest call of a kind where only the newest matters."""
        self._events: list[Call] = []
        self._periods: dict[str, list[float]] = {arm: [] for arm in self.arms}
        self._arrival: dict[str, float] = {}
        self.batches = 0
        """Batches handed to the view."""
        self.url: str | None = getattr(view, "url", None)
        """The view's web viewer page (None without)."""
        sub = self.create_subscription
        for arm in self.arms:
            scoped = lambda name, arm=arm: arm_scoped(arm, name)  # noqa: E731
            for method, topic in (
                ("joint_state", interfaces.JOINT_STATES),
                ("joint_command", interfaces.JOINT_COMMAND),
            ):
                self._sample(method, arm, JointState, scoped(topic))
            sub(
                String,
                scoped(interfaces.SAFETY_STATE),
                self._json("safety_state", arm),
                LATCHED_QOS,
            )
            sub(
                String,
                scoped(interfaces.SAFETY_EVENTS),
                self._json("safety_event", arm),
                COMMAND_QOS,
            )
            sub(
                String,
                scoped(interfaces.SKILL_STATUS),
                self._json("skill_status", arm),
                COMMAND_QOS,
            )
        self._sample("objects", "", String, interfaces.SCENE_OBJECTS)
        sub(String, interfaces.PLAN, self._json("plan"), LATCHED_QOS)
        sub(String, interfaces.MANAGER_STATUS, self._json("manager_status"), LATCHED_QOS)
        sub(Image, interfaces.CAMERA_IMAGE, self._on_image, IMAGE_QOS)
        self.create_timer(1.0 / rate_hz, self.flush)

    def _now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _sample(self, method: str, arm: str, msg_type: type, topic: str) -> None:
        sub = self._sampler.create_subscription(msg_type, topic, _unused, SAMPLED_QOS, raw=True)
        self._sampled[(method, arm)] = (sub, msg_type)

    def _take_newest(self, method: str, arm: str) -> tuple[bytes, float] | None:
        """The newest serialized message waiting on a sampled reader and its arrival time
        (s); every joint state taken adds its arrival period."""
        (sub, msg_type), newest = self._sampled[(method, arm)], None
        with sub.handle:
            while (taken := sub.handle.take_message(msg_type, True)) is not None:
                data, info = taken
                t = info["received_timestamp"] * 1e-9
                if method == "joint_state":
                    last = self._arrival.get(arm)
                    if last is not None:
                        self._periods[arm].append(t - last)
                    self._arrival[arm] = t
                newest = (data, t)
        return newest

    def _json(self, method: str, arm: str | None = None):
        """A callback that decodes a JSON message for ``method`` (with ``arm`` first when
        given) and queues it."""

        def callback(msg: String) -> None:
            data = _json_object(msg.data)
            if data is not None:
                args = (data, self._now()) if arm is None else (arm, data, self._now())
                self._events.append((method, args))

        return callback

    def _on_image(self, msg: Image) -> None:
        args = (msg.width, msg.height, msg.encoding, bytes(msg.data), self._now())
        self._latest[("image", "")] = ("image", args)

    def flush(self) -> None:
        """Hand what arrived since the last batch to the view (nothing when nothing did)."""
        batch = list(self._events)
        self._events.clear()
        for (method, arm), (_, msg_type) in self._sampled.items():
            newest = self._take_newest(method, arm)
            if newest is None:
                continue
            msg, t = deserialize_message(newest[0], msg_type), newest[1]
            if msg_type is String:
                data = _json_object(msg.data)
                if data is not None:
                    batch.append((method, (data, t)))
                continue
            args = (arm, list(msg.name), list(msg.position), t)
            if method == "joint_state":
                args, self._periods[arm] = (*args, self._periods[arm]), []
            batch.append((method, args))
        batch += self._latest.values()
        self._latest.clear()
        if batch:
            self.view.apply(batch)
            self.batches += 1

    def destroy_node(self):
        """Hand over what is pending, then close the view."""
        self.flush()
        self.view.close()
        self._sampler.destroy_node()
        return super().destroy_node()


def _json_object(text: str) -> dict | None:
    """A JSON object, or None for anything else."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _unused(_msg) -> None:
    """The sampled readers' callback: never called (their node is never spun)."""


def view_spec(
    scene_file: str | None = None,
    params_file: str | None = None,
    record: str | None = None,
    native: bool = False,
    web: bool = False,
    web_port: int | None = None,
) -> ViewSpec | None:
    """What ``miles up --view/--view-web/--record FILE.rrd`` (and ``miles view``) ask
    for; None when nothing (a ``record`` that is no .rrd is the MCAP recorder's)."""
    record = record if is_rerun_recording(record) else None
    if not (record or native or web):
        return None
    return ViewSpec(
        scene_file=scene_file,
        params_file=params_file,
        record=record,
        native=native,
        web=web,
        web_port=DEFAULT_WEB_PORT if web_port is None else web_port,
    )


def start_view(graph, spec: ViewSpec | None, own_process: bool = False):
    """The view of ``graph`` (an :class:`~miles_ros.ros.graph.InProcessGraph`) for
    ``miles up`` and ``miles demo``: a :class:`ViewNode` in the graph drawing through a
    :class:`~miles_ros.view.process.ViewProcess` what ``spec`` (:func:`view_spec`) asks
    for: a Rerun recording, the native viewer (without a display the web viewer, and it
    says so) and/or the web viewer on 127.0.0.1; None when ``spec`` is None. Prints one
    line per output, each starting ``view: ``; the web viewer's is
    ``view: http://127.0.0.1:PORT/?url=rerun%2Bhttp://127.0.0.1:GRPC_PORT/proxy``.
    Closing the graph closes the view (the recording is finished).

    ``own_process``: the node and its drawing in a process of their own on the graph's
    domain instead (``miles view``, :class:`ViewNodeProcess`; the caller stops it). Either
    has ``url`` (the web viewer's page, None without)."""
    if spec is None:
        return None
    if own_process:
        return ViewNodeProcess(graph.domain_id, spec)
    view = ViewProcess(spec)
    for line in view.lines:
        print(line, flush=True)
    arms = tuple(mount.name for mount in load_scene(spec.scene_file).arms)
    try:
        return graph.add(ViewNode(view, arms, spec.rate_hz, context=graph.context))
    except BaseException:
        view.close()
        raise


VIEW_UP_PREFIX = "miles view: "
"""The line ``miles view`` prints once its node is in the graph (after its ``view:``
lines)."""


class ViewNodeProcess(CommandProcess):
    """``miles view`` (the view node drawing in its own process, :mod:`miles_ros.commands.
    view`) for the graph on ``domain_id``, drawing what ``spec`` says. Returns once the
    child's node is up (RuntimeError with its exit status if it exits first, or after
    ``timeout`` s); ``lines`` are its ``view:`` lines (copied to stdout), ``url`` the web
    viewer's page (None without)."""

    def __init__(self, domain_id: int, spec: ViewSpec, timeout: float = UP_TIMEOUT_S) -> None:
        args = []
        for flag, value in (
            ("--scene", spec.scene_file),
            ("--params-file", spec.params_file),
            ("--record", spec.record),
        ):
            if value:
                args += [flag, value]
        args += ["--native"] if spec.native else []
        args += ["--web", "--port", str(spec.web_port)] if spec.web else []
        args += ["--rate", str(spec.rate_hz)]
        super().__init__(
            "view", "miles_ros.commands.view", args, domain_id, VIEW_UP_PREFIX, timeout=timeout
        )
        urls = [line.split(" ", 1)[1] for line in self.lines if line.startswith(WEB_LINE_PREFIX)]
        self.url = urls[-1] if urls else None
