"""``view_node``: the live 3D view of the cell (Rerun), fed from the graph's topics.

Subscribes per arm (:func:`~miles_ros.interfaces.arm_scoped`, ``""`` for the single arm)
to the joint states, the safety node's joint command, safety state and events and the
skill status, and once to the scene objects, the plan, the manager status and the camera
frames. Callbacks only decode and keep: the newest joint state and command per arm (and
the periods between joint-state arrivals), every event in order. A timer at the view's
rate hands one batch to the view (:class:`~miles_ros.view.process.ViewProcess`, a child
process, in ``miles up``; anything with ``apply(batch)`` and ``close()``), so the 250 Hz
loops of the graph never wait for the drawing. Joint states and commands are read best
effort (only the newest matters; a reliable reader would add acknowledgements to the
250 Hz writers).

``miles up --view`` / ``--view-web`` / ``--record FILE.rrd``: :func:`start_view`.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from rclpy.node import Node
from sensor_msgs.msg import Image, JointState
from std_msgs.msg import String

from miles_ros import interfaces
from miles_ros.interfaces import arm_scoped
from miles_ros.ros.qos import COMMAND_QOS, IMAGE_QOS, LATCHED_QOS, SENSOR_QOS
from miles_ros.view.options import DEFAULT_RATE_HZ, DEFAULT_WEB_PORT, is_rerun_recording
from miles_ros.view.process import Call


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
        self._latest: dict[tuple[str, str], Call] = {}
        """(method, arm) -> the newest call of a kind where only the newest matters."""
        self._events: list[Call] = []
        self._periods: dict[str, list[float]] = {arm: [] for arm in self.arms}
        self._arrival: dict[str, float] = {}
        self.batches = 0
        """Batches handed to the view."""
        sub = self.create_subscription
        for arm in self.arms:
            scoped = lambda name, arm=arm: arm_scoped(arm, name)  # noqa: E731
            sub(JointState, scoped(interfaces.JOINT_STATES), self._joint_state(arm), SENSOR_QOS)
            sub(JointState, scoped(interfaces.JOINT_COMMAND), self._command(arm), SENSOR_QOS)
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
        sub(String, interfaces.SCENE_OBJECTS, self._json("objects", newest=True), COMMAND_QOS)
        sub(String, interfaces.PLAN, self._json("plan"), LATCHED_QOS)
        sub(String, interfaces.MANAGER_STATUS, self._json("manager_status"), LATCHED_QOS)
        sub(Image, interfaces.CAMERA_IMAGE, self._on_image, IMAGE_QOS)
        self.create_timer(1.0 / rate_hz, self.flush)

    def _now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _joint_state(self, arm: str) -> Callable[[JointState], None]:
        def callback(msg: JointState) -> None:
            t = self._now()
            last = self._arrival.get(arm)
            if last is not None:
                self._periods[arm].append(t - last)
            self._arrival[arm] = t
            self._latest[("joint_state", arm)] = (
                "joint_state",
                (arm, list(msg.name), list(msg.position), t),
            )

        return callback

    def _command(self, arm: str) -> Callable[[JointState], None]:
        def callback(msg: JointState) -> None:
            call = (arm, list(msg.name), list(msg.position), self._now())
            self._latest[("joint_command", arm)] = ("joint_command", call)

        return callback

    def _json(self, method: str, arm: str | None = None, newest: bool = False):
        """A callback that decodes a JSON message for ``method`` (with ``arm`` first when
        given); ``newest``: only the newest is kept until the next batch."""

        def callback(msg: String) -> None:
            try:
                data = json.loads(msg.data)
            except ValueError:
                return
            if not isinstance(data, dict):
                return
            args = (data, self._now()) if arm is None else (arm, data, self._now())
            if newest:
                self._latest[(method, arm or "")] = (method, args)
            else:
                self._events.append((method, args))

        return callback

    def _on_image(self, msg: Image) -> None:
        args = (msg.width, msg.height, msg.encoding, bytes(msg.data), self._now())
        self._latest[("image", "")] = ("image", args)

    def flush(self) -> None:
        """Hand what arrived since the last batch to the view (nothing when nothing did)."""
        batch = list(self._events)
        self._events.clear()
        for key, (method, args) in self._latest.items():
            if method == "joint_state":
                arm = key[1]
                args = (*args, self._periods[arm])
                self._periods[arm] = []
            batch.append((method, args))
        self._latest.clear()
        if batch:
            self.view.apply(batch)
            self.batches += 1

    def destroy_node(self):
        self.flush()
        self.view.close()
        return super().destroy_node()


def start_view(
    graph,
    scene_file: str | None = None,
    params_file: str | None = None,
    record: str | None = None,
    native: bool = False,
    web: bool = False,
    web_port: int | None = None,
) -> ViewNode | None:
    """The view of ``graph`` (an :class:`~miles_ros.ros.graph.InProcessGraph`) for
    ``miles up``: a Rerun recording to ``record`` (when it ends in .rrd), the native
    viewer (``native``; without a display the web viewer, and it says so) and/or the web
    viewer on 127.0.0.1 (``web``, ``web_port``); None when none is asked for. Prints one
    line per output, each starting ``view: ``; the web viewer's is
    ``view: http://127.0.0.1:PORT/?url=rerun%2Bhttp://127.0.0.1:GRPC_PORT/proxy``.
    The view node is added to the graph (closed with it)."""
    record = record if is_rerun_recording(record) else None
    if not (record or native or web):
        return None
    from miles_ros.view.process import ViewProcess, ViewSpec
    from sims.scene import load_scene

    spec = ViewSpec(
        scene_file=scene_file,
        params_file=params_file,
        record=record,
        native=native,
        web=web,
        web_port=DEFAULT_WEB_PORT if web_port is None else web_port,
    )
    view = ViewProcess(spec)
    for line in view.lines:
        print(line, flush=True)
    arms = tuple(mount.name for mount in load_scene(scene_file).arms)
    return graph.add(ViewNode(view, arms, spec.rate_hz, context=graph.context))
