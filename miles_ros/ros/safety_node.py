"""``safety_node``: the only path from commands to the robot (thin adapter over
:class:`miles_ros.safety.SafetySupervisor`).

In: ``/miles/skill_command`` (JointState, reliable), ``/joint_states`` (sensor QoS),
``/miles/estop`` (Bool: true latches, false only permits a reset), optional
``/miles/safety/skill_tags`` (JSON {"skill", "tags"}, reliable + transient-local: the
running skill's, however late this node joins). Out: ``/miles/joint_command``
once per control period, ``/miles/safety/state`` (JSON, reliable + transient-local),
``/miles/safety/events`` (one JSON object per intervention). Services:
``/miles/safety/trigger_estop`` and ``/miles/safety/reset_estop`` (std_srvs/Trigger).
Every name, limit and rate is a parameter (defaults in ``config/safety.yaml``); only
``reduced_speed`` may change at run time. A measured arm that leaves the commanded
trajectory by more than ``tracking_tolerance`` (a sim reset, a hand-guided arm) is held
where it is measured (event ``tracking_reset``), never pulled back.

Several arms (a scene with ``arms:``, ``scene_file`` and ``arm`` set): every name above
moves under ``/ARM`` (:func:`~miles_ros.interfaces.arm_scoped`, as skill_node's), and
the scene's other arms are this arm's peers. Every ``occupancy_decimation``-th output
period the node publishes its arm's occupancy on the shared ``/miles/safety/occupancy``
(std_msgs/String, the JSON of :class:`~miles_ros.safety.Occupancy`: its link spheres in
the world frame, placed by the arm's base pose from the scene, with their braking
radii, stamped in seconds of the ROS clock) and feeds its peers' occupancy to the
supervisor, which keeps this arm's braking envelope out of theirs by
``separation_margin`` plus the growth over the measured age; a peer silent for longer
than ``peer_max_age`` stops the arm (controlled stop, not a latch) until it is fresh.
Malformed occupancy and occupancy from an arm that is not a peer are refused and logged,
never used. A single-arm scene neither publishes nor subscribes occupancy.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import threading

from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, String
from std_srvs.srv import Trigger

from miles_ros.interfaces import arm_scoped
from miles_ros.params.safety import SafetyNodeNames
from miles_ros.ros.node_main import NodeLogHandler, run_node
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import (
    COMMAND_QOS,
    LATCHED_QOS,
    OCCUPANCY_QOS,
    SENSOR_QOS,
    occupancy_reader_qos,
)
from miles_ros.safety import (
    JointRequest,
    Occupancy,
    SafetyConfig,
    SafetySupervisor,
    SeparationConfig,
)
from miles_ros.safety.config import check_field
from miles_ros.safety.supervisor import warm_up
from sims.scene import load_scene

STATE_MIN_INTERVAL = 0.2
"""Seconds between state messages when only the intervention count changed."""

PEER_AGES_KEPT = 10_000
"""The supervisor's PeerMonitor appends the measured peer age every period (for reports);
the node keeps the newest this many (40 s at 250 Hz), so a long run does not grow."""

_RUNNING = threading.local()
"""The safety node whose callback runs on this thread: several arms' safety nodes in one
process (``miles up --scene``) share the ``miles_ros.safety`` Python logger, and each
forwards only its own supervisor's records to its ROS logger."""


def _own_records(method):
    """Run a callback as this node's (see :data:`_RUNNING`)."""

    @functools.wraps(method)
    def wrapper(self, *args):
        previous = getattr(_RUNNING, "node", None)
        _RUNNING.node = self
        try:
            return method(self, *args)
        finally:
            _RUNNING.node = previous

    return wrapper


class SafetyNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("safety_node", **kwargs)
        self.config = declare_params(
            self, SafetyConfig, dynamic={"reduced_speed"}, check=check_field
        )
        names = declare_params(self, SafetyNodeNames)
        self.arm = arm = self.config.arm
        self.separation = separation_config(self.config)
        """Where this arm stands and its peers (None: a single-arm scene)."""
        self.names = names = dataclasses.replace(
            names,
            **{
                f.name: arm_scoped(arm, getattr(names, f.name))
                for f in dataclasses.fields(names)
                if f.name != "occupancy_topic"
            },
        )
        warm_up(self.config)  # numba kernels loaded before the first period and timeout
        self.t0_ns = self.get_clock().now().nanoseconds
        self.log_handler = NodeLogHandler(self.get_logger())
        self.log_handler.addFilter(lambda _: getattr(_RUNNING, "node", None) in (None, self))
        logging.getLogger("miles_ros.safety").addHandler(self.log_handler)
        self.supervisor = SafetySupervisor(
            self.config, time_offset=self.t0_ns * 1e-9, separation=self.separation
        )
        self.supervisor.audit.listeners.append(self.on_event)
        self.add_post_set_parameters_callback(self.on_parameters_set)
        self.pub_occupancy = None
        self.occupancy_published = 0
        """Occupancy messages this node published."""
        self.ticks = 0
        self.own_prefix = json.dumps({"arm": arm})[:-1] + ","
        if self.separation is not None:
            self.pub_occupancy = self.create_publisher(
                String, names.occupancy_topic, OCCUPANCY_QOS
            )
            if self.separation.peers:
                reader = occupancy_reader_qos(len(self.separation.peers) + 1)
                self.create_subscription(String, names.occupancy_topic, self.on_occupancy, reader)
        topic = names.joint_command_topic
        self.pub_command = self.create_publisher(JointState, topic, COMMAND_QOS)
        self.pub_state = self.create_publisher(String, names.state_topic, LATCHED_QOS)
        self.pub_events = self.create_publisher(String, names.events_topic, COMMAND_QOS)
        self.create_subscription(
            JointState, names.skill_command_topic, self.on_request, COMMAND_QOS
        )
        self.create_subscription(JointState, names.joint_states_topic, self.on_robot, SENSOR_QOS)
        self.create_subscription(Bool, names.estop_topic, self.on_estop_input, COMMAND_QOS)
        # Latched as skill_node publishes them: a skill started before this reader was
        # matched (DDS discovers each topic on its own; a safety node restarted under a
        # running skill) is heard now, not at its end, so its zones are kept out.
        self.create_subscription(String, names.skill_tags_topic, self.on_skill_tags, LATCHED_QOS)
        self.create_service(Trigger, names.trigger_service, self.on_trigger)
        self.create_service(Trigger, names.reset_service, self.on_reset)
        self.last_state: dict | None = None
        self.last_state_time = 0.0
        self.create_timer(1.0 / self.config.rate_hz, self.tick)
        self.publish_state(force=True)
        self.get_logger().info(
            f"safety supervisor: {self.config.rate_hz:g} Hz, margin "
            f"{self.config.position_margin} rad, watchdog {self.config.watchdog_period} s, "
            f"TCP cap {self.config.tcp_speed_cap} m/s, mode {self.config.limit_mode}"
            + (f", arm {arm!r}" if arm else "")
            + (f", peers {', '.join(self.separation.peers)}" if self.separation else "")
        )

    # Times: seconds since start on the node's clock (full precision for differences).
    def now(self) -> tuple[int, float]:
        ns = self.get_clock().now().nanoseconds
        return ns, (ns - self.t0_ns) * 1e-9

    def stamp_seconds(self, stamp) -> float | None:
        ns = stamp.sec * 1_000_000_000 + stamp.nanosec
        return None if ns == 0 else (ns - self.t0_ns) * 1e-9

    @_own_records
    def on_request(self, msg: JointState) -> None:
        stamp = self.stamp_seconds(msg.header.stamp)
        request = JointRequest(msg.name, msg.position, stamp, msg.velocity)
        self.supervisor.submit(request, self.now()[1])

    @_own_records
    def on_robot(self, msg: JointState) -> None:
        self.supervisor.update_robot_state(msg.name, msg.position, msg.velocity, self.now()[1])

    @_own_records
    def on_occupancy(self, msg: String) -> None:
        """A peer's occupancy: stamp from ROS-clock seconds to the supervisor's time."""
        if msg.data.startswith(self.own_prefix):
            return  # our own, back from the shared topic (Occupancy.to_json: arm first)
        _, now = self.now()
        try:
            occ = Occupancy.from_json(msg.data)
        except ValueError:
            # refused, logged and counted by the supervisor's PeerMonitor, never used
            self.supervisor.update_peer_occupancy(msg.data, now)
            return
        if occ.arm == self.arm:
            return  # our own, back from the shared topic
        occ = dataclasses.replace(occ, stamp=occ.stamp - self.t0_ns * 1e-9)
        self.supervisor.update_peer_occupancy(occ, now)

    def publish_occupancy(self, ns: int, t: float) -> None:
        occ = self.supervisor.occupancy(t)
        if occ is None:
            return
        occ = dataclasses.replace(occ, stamp=ns * 1e-9)
        self.pub_occupancy.publish(String(data=occ.to_json()))
        self.occupancy_published += 1

    @_own_records
    def on_estop_input(self, msg: Bool) -> None:
        latched = self.supervisor.latched
        self.supervisor.set_estop_input(bool(msg.data), self.now()[1])
        if self.supervisor.latched and not latched:
            self.tick()  # the first stop command now, not at the next period
        self.publish_state(force=True)

    @_own_records
    def on_skill_tags(self, msg: String) -> None:
        try:
            data = json.loads(msg.data)
            skill, tags = str(data.get("skill", "")), [str(t) for t in data.get("tags", [])]
        except (ValueError, AttributeError, TypeError):
            self.get_logger().warning(f"skill_tags: not JSON {{skill, tags}}: {msg.data!r}")
            return
        self.supervisor.set_skill(skill, tags, self.now()[1])

    @_own_records
    def on_trigger(self, request: Trigger.Request, response: Trigger.Response):
        fresh = self.supervisor.trigger_estop("trigger_estop service", self.now()[1])
        if fresh:
            self.tick()
        self.publish_state(force=True)
        response.success = True
        response.message = "e-stop latched" if fresh else "e-stop was already latched"
        return response

    @_own_records
    def on_reset(self, request: Trigger.Request, response: Trigger.Response):
        response.success, response.message = self.supervisor.reset_estop(self.now()[1])
        self.publish_state(force=True)
        return response

    @_own_records
    def tick(self) -> None:
        ns, t = self.now()
        command = self.supervisor.step(t)
        if command is not None:
            msg = JointState()
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
            msg.name = list(command.names)
            msg.position = command.positions.tolist()
            self.pub_command.publish(msg)
        if self.pub_occupancy is not None:
            if self.ticks % self.config.occupancy_decimation == 0:
                self.publish_occupancy(ns, t)
            self.ticks += 1
            peers = self.supervisor.peers
            if peers is not None and len(peers.ages) > 2 * PEER_AGES_KEPT:
                del peers.ages[:-PEER_AGES_KEPT]
        self.publish_state()

    def publish_state(self, force: bool = False) -> None:
        state = self.supervisor.state()
        t = self.now()[1]
        last = self.last_state
        changed = last is None or any(state[k] != last[k] for k in ("estop", "mode", "reason"))
        counted = last is not None and state["interventions"] != last["interventions"]
        if force or changed or (counted and t - self.last_state_time >= STATE_MIN_INTERVAL):
            self.pub_state.publish(String(data=json.dumps(state)))
            self.last_state, self.last_state_time = state, t

    def on_event(self, event, line: str) -> None:
        self.pub_events.publish(String(data=line))

    @_own_records
    def on_parameters_set(self, params) -> None:
        for param in params:
            if param.name == "reduced_speed":
                self.supervisor.set_reduced_speed(bool(param.value))
                self.get_logger().warning(f"reduced-speed mode: {bool(param.value)}")

    def destroy_node(self) -> None:
        logging.getLogger("miles_ros.safety").removeHandler(self.log_handler)
        self.supervisor.audit.close()
        super().destroy_node()


def separation_config(config: SafetyConfig) -> SeparationConfig | None:
    """This arm's place in the cell and its peers, from ``config.scene_file`` (None for a
    scene without ``arms:`` and when neither it nor ``arm`` is set); ValueError names a
    missing or unknown ``arm``."""
    if not config.scene_file and not config.arm:
        return None  # one arm, as before: no scene needed
    scene = load_scene(config.scene_file or None)
    if not scene.multi_arm:
        if config.arm:
            raise ValueError(f"arm parameter {config.arm!r}: the scene lists no arms")
        return None
    if not config.arm:
        arms = ", ".join(m.name for m in scene.arms)
        raise ValueError(f"the scene lists the arms {arms}: set the arm parameter to one")
    try:
        mount = scene.arm(config.arm)
    except KeyError as exc:
        raise ValueError(f"arm parameter: {exc.args[0]}") from None
    separation = SeparationConfig(
        arm=mount.name,
        peers=tuple(m.name for m in scene.arms if m.name != mount.name),
        base_xyz=tuple(float(v) for v in mount.base_position),
        base_yaw=float(mount.base_yaw),
        margin=config.separation_margin,
        max_age=config.peer_max_age,
    )
    separation.validate()
    return separation


def main(args=None) -> None:
    run_node(SafetyNode, args)


if __name__ == "__main__":
    main()
