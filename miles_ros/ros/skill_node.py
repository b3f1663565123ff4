"""``skill_node``: runs ONNX skills in closed loop, one at a time, behind the safety node.

Takes JSON requests on ``/miles/skill/request`` (``{"id", "skill", "params"}``, or
``{"id", "cancel": true}``), builds each control period's observation from
``/joint_states`` and ``/miles/scene/objects`` exactly as in training, runs the actor and
publishes joint position targets on ``/miles/skill_command`` (to the safety node, never
to the robot); reports ``/miles/skill/status``; watches ``/miles/safety/state`` and ends
a skill ``estopped`` when the e-stop latches. A goal outside the skill card's envelope
(checked against the live scene) is refused before any motion. The logic lives in
:class:`miles_ros.runtime.skills.SkillExecutor`.

A version whose card has the cell measure its finger offset
(``calibration.finger_width.measure: closed_gripper``) reads its finger width through the
offset in the scene file's ``gripper.calibration`` (``miles calibrate gripper`` writes it).
Without one (and ``measure_gripper``, the default) the node measures it at bring-up, before
it accepts a request: the empty gripper closed through ``/miles/skill_command`` (behind the
safety node, which is told the skill ``measure_gripper``), the settled reading turned into
the offset as that command does, the gripper opened again; ``/miles/skill/calibration``
says what it measured (:class:`miles_ros.runtime.gripper_calibration.BringUpMeasurement`).
A refused measurement (the e-stop latched, the reading did not settle, the gripper did not
close), or ``measure_gripper`` false, refuses such a card as one that fails to load, with
the reason.

In a cell of several arms the ``arm`` parameter names the scene's arm this node drives:
it sees the object poses (world frame) and the pads in that arm's base frame
(:mod:`miles_ros.runtime.frames`), where its skills were trained, and its topics (all
but the objects topic) live under ``/ARM``.
"""

from __future__ import annotations

import json
import time

import numpy as np
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.time import Time
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from miles_ros.interfaces import SKILL_COMMAND_STAMP, SKILL_INPUTS, arm_scoped
from miles_ros.params.skill import SkillNodeParams, skill_executor
from miles_ros.ros.joint_states import read_arm_joints, stamp_seconds
from miles_ros.ros.node_main import run_node
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS, SENSOR_QOS
from miles_ros.runtime.frames import poses_to_base, scene_in_base_frame
from miles_ros.runtime.gripper_calibration import scene_measurements, scene_report
from miles_ros.runtime.observation import parse_freshness, parse_objects
from miles_ros.runtime.skills import SkillLibrary
from sims.scene import load_scene


class SkillNode(Node):
    def __init__(self, **kwargs):
        super().__init__("skill_node", **kwargs)
        self.params = prm = declare_params(self, SkillNodeParams)
        scene = load_scene(prm.scene_file or None)
        if scene.multi_arm and not prm.arm:
            arms = ", ".join(m.name for m in scene.arms)
            raise ValueError(f"the scene lists the arms {arms}: set the arm parameter to one")
        try:
            self.mount = scene.arm(prm.arm)
            """Where this node's arm stands in the world (identity for the single arm)."""
        except KeyError as exc:
            raise ValueError(f"arm parameter: {exc.args[0]}") from None
        measured = scene_measurements(scene)  # the scene's gripper.calibration
        library = SkillLibrary.load(
            prm.skill_library or None,
            check_hashes=prm.check_hashes,
            # None: a measuring card loads and waits for the bring-up measurement
            measured=None if not measured and prm.measure_gripper else measured,
        )
        self.skills = skill_executor(library, scene_in_base_frame(scene, self.mount), prm)
        self.skills.warm_up()

        def arm(name: str) -> str:
            return arm_scoped(prm.arm, name)

        self.pub_command = self.create_publisher(
            JointState, arm(prm.skill_command_topic), COMMAND_QOS
        )
        self.pub_status = self.create_publisher(String, arm(prm.status_topic), COMMAND_QOS)
        self.pub_tags = self.create_publisher(String, arm(prm.skill_tags_topic), LATCHED_QOS)
        self.pub_calibration = self.create_publisher(
            String, arm(prm.calibration_topic), LATCHED_QOS
        )
        sub = self.create_subscription
        sub(JointState, arm(prm.joint_states_topic), self.on_joints, SENSOR_QOS)
        sub(String, prm.objects_topic, self.on_objects, COMMAND_QOS)  # the world's, shared
        sub(String, arm(prm.request_topic), self.on_request, COMMAND_QOS)
        sub(String, arm(prm.safety_state_topic), self.on_safety, LATCHED_QOS)
        if arm(prm.joint_command_topic) != arm(prm.skill_command_topic):  # not our own
            sub(JointState, arm(prm.joint_command_topic), self.on_command, SENSOR_QOS)
        self._command_names: tuple[str, ...] = ()
        self._command_order: list[int] | None = None
        self.timer = None
        self.last_stamp = Time(clock_type=self.get_clock().clock_type)
        """Stamp of the latest command on ``/miles/skill_command``."""
        self.state_stamp = 0.0
        self.ticks: list[tuple[float, float]] = []
        """(monotonic tick time, joint-state stamp to command publish in s) per control
        period while ``record_ticks`` is set (for bench/ros.py)."""
        self.record_ticks = False
        self.publish_tags()
        for name, reason in library.errors.items():
            self.get_logger().error(f"skill {name} not loaded: {reason}")
        self.get_logger().info(f"skills: {', '.join(library.names())}")
        measuring = [s.name for s in library.skills.values() if s.policy and s.policy.measures]
        if measured and measuring:
            self.pub_calibration.publish(
                String(data=json.dumps(scene_report(scene, sorted(measuring))))
            )
        self.publish([])  # a bring-up measurement starts its timer here

    def now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def on_joints(self, msg: JointState) -> None:
        reading = read_arm_joints(self, msg, self.now(), self.params, log_period_s=1.0)
        if reading is None:
            return
        self.skills.on_joint_state(reading, reading.stamp)
        self.state_stamp = stamp_seconds(msg.header.stamp)

    def on_command(self, msg: JointState) -> None:
        """The safety node's command to the robot: the arm joints, in this node's order."""
        if self._command_order is None or self._command_names != tuple(msg.name):
            names = tuple(msg.name)
            try:
                order = [names.index(n) for n in self.params.joint_names]
            except ValueError:
                return  # not this arm's command layout
            self._command_names, self._command_order = names, order
        positions = msg.position
        if len(positions) != len(self._command_names):
            return
        # On the command's own stamp (its output time, 4 ms apart), not the arrival time:
        # the velocity is the difference of two commands over their stamps.
        stamp = stamp_seconds(msg.header.stamp)
        arm = np.array([positions[i] for i in self._command_order])
        self.skills.on_command(arm, stamp if stamp > 0.0 else self.now())

    def on_objects(self, msg: String) -> None:
        try:
            payload = json.loads(msg.data)
            poses = parse_objects(payload)
            stamps, missing = parse_freshness(payload)
            self.skills.on_objects(poses_to_base(self.mount, poses), stamps, missing)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self.get_logger().warning(f"object poses ignored: {exc}", throttle_duration_sec=1.0)

    def on_safety(self, msg: String) -> None:
        try:
            state = json.loads(msg.data)
        except json.JSONDecodeError:
            self.get_logger().warning("unreadable safety state", throttle_duration_sec=1.0)
            return
        self.publish(self.skills.on_safety_state(state, self.now()))

    def on_request(self, msg: String) -> None:
        self.publish(self.skills.on_request(msg.data, self.now()))
        if self.skills.active is not None:
            self.tick()  # the first period at once, then at the skill's rate

    def tick(self) -> None:
        started = time.monotonic()
        result = self.skills.tick(self.now())
        if result.targets is not None:
            prm, t = self.params, result.targets
            msg = JointState()
            # The time the targets are for (see SkillNodeParams.target_lead_max), never
            # before the previous command's stamp (the supervisor refuses out-of-order).
            lead = Duration(seconds=max(0.0, min(result.lead_s, prm.target_lead_max)))
            stamp = max(self.get_clock().now() + lead, self.last_stamp + Duration(nanoseconds=1))
            self.last_stamp = stamp
            msg.header.stamp = stamp.to_msg()
            # push holds the fingers closed, pick_place moves them, reach leaves them; a
            # trajectory point carries the arm's velocities
            msg.name, msg.position, velocity = t.message(prm.joint_names, prm.finger_joint_names)
            if velocity is not None:
                msg.velocity = velocity
            self.pub_command.publish(msg)
            for status in result.statuses:  # the period's own: a recording pairs them
                if SKILL_INPUTS in status:
                    status[SKILL_COMMAND_STAMP] = stamp.nanoseconds * 1e-9
            if self.record_ticks:
                self.ticks.append((started, self.now() - self.state_stamp))
        self.publish(result.statuses)

    def publish(self, statuses: list[dict]) -> None:
        for status in statuses:
            self.pub_status.publish(String(data=json.dumps(status)))
        gripper = self.skills.gripper
        if gripper is not None and gripper.changed:
            gripper.changed = False
            report = gripper.report()
            self.pub_calibration.publish(String(data=json.dumps(report)))
            if report["reason"]:  # rclpy: one severity per call site
                self.get_logger().error(f"gripper calibration: {json.dumps(report)}")
            else:
                self.get_logger().info(f"gripper calibration: {json.dumps(report)}")
        if self.skills.tags_changed:
            self.publish_tags()
        period = self.skills.period
        if self.params.loop_rate_hz > 0 and period is not None:
            period = 1.0 / self.params.loop_rate_hz
        if self.timer is not None and (
            period is None or self.timer.timer_period_ns != round(period * 1e9)
        ):
            self.destroy_timer(self.timer)
            self.timer = None
        if self.timer is None and period is not None:
            self.timer = self.create_timer(period, self.tick)

    def publish_tags(self) -> None:
        self.skills.tags_changed = False
        self.pub_tags.publish(String(data=json.dumps(self.skills.active_tags())))


def main(args=None) -> None:
    run_node(SkillNode, args)


if __name__ == "__main__":
    main()
