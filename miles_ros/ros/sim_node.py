"""``sim_node``: PyBullet as a robot (the default scene, headless) on standard topics.

Publishes ``/joint_states`` (7 arm joints + 2 fingers, sensor QoS) at ``publish_rate_hz``
and the cubes' poses as JSON on ``/miles/scene/objects``; takes motor position targets
from ``/miles/joint_command`` (only the safety node publishes there); services reset the
scene and capture a camera frame (``sensor_msgs/Image`` on ``/miles/camera/image_raw``).
The physics lives in :class:`miles_ros.runtime.scene_world.SceneWorld`.

Reset and the safety node: the reset moves the arm to its initial pose at once, the way a
real arm moves under hand-guiding or a controller restart. Until a command agrees with
the pose it was reset to (within :data:`RESET_AGREEMENT`), arm commands are set aside:
the ones still in flight were computed for the old pose. The safety node sees the
measured jump as a tracking reset and holds the new pose, which opens the gate; without
a safety node the sim follows commands again after :data:`RESET_GATE_S`.

Several arms: a scene that lists ``arms:`` (config/scene_dual.yaml) puts one Panda per
arm in the one world; each arm's joint states and joint commands live under its
namespace (``/left_arm/joint_states``, ``/left_arm/miles/joint_command``:
:func:`miles_ros.interfaces.arm_scoped`), each with its own reset gate. The object
poses stay in the world frame (``frame_id`` ``world``) on the one objects topic; reset
and capture serve the whole cell. A scene without ``arms:`` keeps the names above.

The RGB-D camera (``publish_camera``): the scene's camera as a RealSense driver publishes
it (``camera/color/image_raw`` rgb8, ``camera/aligned_depth_to_color/image_raw`` 16UC1 in
mm, ``camera/color/camera_info``), with a depth camera's noise, drops, latency and a
calibration error (:mod:`miles_ros.ros.sim_camera`), rendered, noised and published by
the camera's own process (:mod:`miles_ros.ros.camera_process`). With
``publish_truth_only`` the object poses go to ``/miles/scene/objects_truth`` instead, for
evaluation, and a perception node publishes ``/miles/scene/objects`` from the camera.
"""

from __future__ import annotations

import dataclasses
import json
import math
import threading
import time

import numpy as np
import rclpy
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Image, JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger

from miles_ros.interfaces import arm_scoped
from miles_ros.params.sim import CELL_CHANGE_PARAMS, SimNodeParams
from miles_ros.ros.joint_states import stamp_seconds
from miles_ros.ros.node_main import run_node
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import COMMAND_QOS, IMAGE_QOS, SENSOR_QOS
from miles_ros.ros.sim_camera import SimCamera
from miles_ros.runtime.scene_world import (
    JOINT_NAMES,
    CameraProcess,
    CellChange,
    SceneWorld,
    reported_finger_positions,
)
from miles_ros.safety.config import SafetyConfig
from sims.scene import WORLD_FRAME, Scene, load_scene

MAX_CATCH_UP = 4
"""Real time: at most this many publish periods of physics per tick; beyond it (after a
capture or a stall) the sim drops the lost wall time instead of racing to catch up."""
RESET_AGREEMENT = SafetyConfig.tracking_tolerance
"""After a reset, an arm command this close (rad, every joint) to the measured pose opens
the gate (the safety node's default tracking tolerance)."""
RESET_GATE_S = 1.0
"""After a reset with no agreeing command for this long (wall s), commands are followed
again (no safety node in the graph)."""


def cell_change(prm: SimNodeParams, scene: Scene | None = None) -> CellChange:
    """The cell's change that ``prm`` describes; a ``finger_reading`` left at 0 is the
    scene's (``gripper.finger_reading``)."""
    values = {name: getattr(prm, name) for name in CELL_CHANGE_PARAMS}
    if not values["finger_reading"] and scene is not None:
        values["finger_reading"] = scene.gripper.finger_reading
    return CellChange(**values)


def check_cell_change(name: str, value) -> str | None:
    """Why a change parameter may not take ``value`` (None: it may)."""
    if name not in CELL_CHANGE_PARAMS:
        return None
    try:
        CellChange(**{name: float(value)})
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None


class SimNode(Node):
    def __init__(self, **kwargs):
        super().__init__("sim_node", **kwargs)
        self.params = prm = declare_params(
            self, SimNodeParams, dynamic=CELL_CHANGE_PARAMS, check=check_cell_change
        )
        if not (prm.publish_rate_hz > 0 and prm.objects_rate_hz > 0):
            raise ValueError("publish_rate_hz and objects_rate_hz must be positive")
        scene = load_scene(prm.scene_file or None)
        q0 = np.asarray(prm.initial_joint_positions) if prm.initial_joint_positions else None
        self.world = SceneWorld(scene, prm.physics_dt, q0)
        self.scene = scene
        self.world.set_change(cell_change(prm, scene))
        self.add_post_set_parameters_callback(self.on_parameters_set)
        self.steps_per_tick = max(1, round(1.0 / (prm.publish_rate_hz * prm.physics_dt)))
        self.index = {name: i for i, name in enumerate(JOINT_NAMES)}
        self.places = {
            n: {"position": list(p.position), "size": list(p.size)}
            for n, p in scene.places.items()
        }
        self.arms = self.world.arm_names
        """The arms by name ("" = the single arm of a scene without ``arms:``)."""
        self.frame_id = WORLD_FRAME if scene.multi_arm else prm.frame_id
        """Frame of the object poses: the world frame of a multi-arm scene."""
        self.pub_joints = {
            arm: self.create_publisher(
                JointState, arm_scoped(arm, prm.joint_states_topic), SENSOR_QOS
            )
            for arm in self.arms
        }
        objects_topic = prm.truth_topic if prm.publish_truth_only else prm.objects_topic
        self.pub_objects = self.create_publisher(String, objects_topic, COMMAND_QOS)
        self.pub_image = self.create_publisher(Image, prm.camera_topic, IMAGE_QOS)
        self.pub_clock = (
            None if prm.real_time else self.create_publisher(Clock, prm.clock_topic, COMMAND_QOS)
        )
        for arm in self.arms:
            self.create_subscription(
                JointState,
                arm_scoped(arm, prm.joint_command_topic),
                lambda msg, arm=arm: self.on_command(msg, arm),
                COMMAND_QOS,
            )
        self.create_service(Trigger, prm.reset_service, self.on_reset)
        # Pictures render in a subprocess, waited for on a thread (see on_capture): the
        # physics and the joint states keep going while a frame is made.
        self.camera: CameraProcess | None = None  # started at the first capture
        self.camera_lock = threading.Lock()
        self.create_service(Trigger, prm.camera_service, self.on_capture)
        self.rgbd: SimCamera | None = None
        if prm.publish_camera:
            if scene.camera is None:
                raise ValueError(
                    f"publish_camera: the scene {prm.scene_file or 'config/scene.yaml'} has "
                    "no camera: section"
                )
            self.rgbd = SimCamera(
                self,
                scene.camera,
                prm.camera_seed,
                (prm.camera_color_topic, prm.camera_depth_topic, prm.camera_info_topic),
                self.camera_snapshot,
                self.now,
                prm.scene_file or None,
            )
        self.objects_every = max(1, round(prm.publish_rate_hz / prm.objects_rate_hz))
        self.ticks = 0
        self.rejected = 0
        self.set_aside = 0
        """Arm commands set aside after a reset (computed for the pose before it)."""
        self.reset_gate: dict[str, float | None] = dict.fromkeys(self.arms)
        """Per arm: monotonic time of the last reset, until a command agreed with it."""
        self.lock = threading.Lock()
        self.wall_origin = time.monotonic()
        self.running = True
        if prm.real_time:
            self.create_timer(1.0 / prm.publish_rate_hz, self.on_tick)
        else:
            self.thread = threading.Thread(target=self._run_fast, daemon=True, name="sim_fast")
            self.thread.start()
        self.publish_state()
        if self.rgbd is not None:
            self.rgbd.start()
        arms = f"arms {', '.join(self.arms)}, " if scene.multi_arm else ""
        self.get_logger().info(
            f"PyBullet sim: {arms}{len(scene.objects)} cubes, {len(scene.places)} pads, "
            f"joint states at {prm.publish_rate_hz:g} Hz ({self.steps_per_tick} physics "
            f"steps of {prm.physics_dt * 1e3:g} ms), {'real time' if prm.real_time else 'fast'}"
        )

    def on_tick(self) -> None:
        due = (time.monotonic() - self.wall_origin) / self.params.physics_dt - self.world.steps
        n = int(min(max(due, 0), MAX_CATCH_UP * self.steps_per_tick))
        if due > MAX_CATCH_UP * self.steps_per_tick:  # drop lost wall time
            self.wall_origin += (due - n) * self.params.physics_dt
        if n:
            with self.lock:
                self.world.step(n)
            self.publish_state()

    def _run_fast(self) -> None:
        while self.running and rclpy.ok(context=self.context):
            with self.lock:
                self.world.step(self.steps_per_tick)
            self.publish_state()

    def now(self) -> float:
        """The time of the published state (s): sim time with real_time false."""
        if self.pub_clock is None:
            return self.get_clock().now().nanoseconds * 1e-9
        return self.world.time

    def camera_snapshot(self):
        """The arms' joints, the cubes' poses and their time, read together (a camera
        frame's exposure)."""
        with self.lock:
            if len(self.arms) == 1:
                joints = self.world.joint_state()[0]
            else:
                joints = {arm: self.world.joint_state(arm)[0] for arm in self.arms}
            return joints, self.world.object_poses(), self.now()

    def stamp(self):
        if self.pub_clock is None:
            return self.get_clock().now().to_msg()
        t = self.world.time
        msg = Clock()
        msg.clock.sec, msg.clock.nanosec = int(t), int(round((t % 1.0) * 1e9)) % 1_000_000_000
        self.pub_clock.publish(msg)
        return msg.clock

    def publish_state(self) -> None:
        with self.lock:
            states = {arm: self.world.joint_state(arm or None) for arm in self.arms}
            poses = self.world.object_poses() if self.ticks % self.objects_every == 0 else None
        self.ticks += 1
        stamp = self.stamp()
        reading = self.world.change.finger_reading
        for arm, (pos, vel, effort) in states.items():
            if reading:
                pos[7:] = reported_finger_positions(pos[7:], reading)
            msg = JointState()
            msg.header.stamp = stamp
            msg.name, msg.position, msg.velocity, msg.effort = list(JOINT_NAMES), pos, vel, effort
            self.pub_joints[arm].publish(msg)
        if poses is not None:
            objects = {
                n: {"position": list(b.position), "orientation": list(b.orientation), "yaw": b.yaw}
                for n, b in poses.items()
            }
            payload = {
                "stamp": stamp_seconds(stamp),
                "frame_id": self.frame_id,
                "objects": objects,
                "places": self.places,
            }
            self.pub_objects.publish(String(data=json.dumps(payload)))

    def on_command(self, msg: JointState, arm: str = "") -> None:
        """Motor targets for ``arm`` (by name; "" = the single arm)."""
        names, positions = list(msg.name), list(msg.position)
        bad = ""
        if len(names) != len(positions) or not names:
            bad = f"{len(names)} names but {len(positions)} positions"
        elif any(n not in self.index for n in names):
            bad = f"unknown joints {[n for n in names if n not in self.index]}"
        elif not all(math.isfinite(v) for v in positions):
            bad = "non-finite positions"
        if bad:
            self.rejected += 1
            where = f" for {arm}" if arm else ""
            self.get_logger().warning(
                f"joint command{where} rejected: {bad}", throttle_duration_sec=1.0
            )
            return
        robot = {"robot": arm} if arm else {}
        with self.lock:
            if self.reset_gate[arm] is not None and not self._gate_opens(names, positions, arm):
                self.set_aside += 1
                return
            targets = self.world.arms[arm].arm.copy()
            fingers = []
            for name, value in zip(names, positions, strict=True):
                i = self.index[name]
                if i < 7:
                    targets[i] = value
                else:
                    fingers.append(value)
            self.world.set_targets(targets, float(np.mean(fingers)) if fingers else None, **robot)

    def _gate_opens(self, names, positions, arm: str = "") -> bool:
        """Whether a command for ``arm`` after a reset may be followed (see the module
        docstring)."""
        if time.monotonic() - self.reset_gate[arm] > RESET_GATE_S:
            self.reset_gate[arm] = None
            return True
        measured = self.world.joint_state(arm or None)[0]
        joints = [(self.index[n], v) for n, v in zip(names, positions, strict=True)]
        joints = [(i, v) for i, v in joints if i < 7]
        if not joints or any(abs(v - measured[i]) > RESET_AGREEMENT for i, v in joints):
            return False
        self.reset_gate[arm] = None
        return True

    def on_parameters_set(self, params) -> None:
        """The cell changes live: a set of the change parameters applies at once."""
        values = {p.name: p.value for p in params if p.name in CELL_CHANGE_PARAMS}
        if not values:
            return
        self.params = dataclasses.replace(self.params, **values)
        change = cell_change(self.params, self.scene)
        with self.lock:
            self.world.set_change(change)
        self.get_logger().warning(f"the cell changed: {change}")

    def on_reset(self, request, response):
        with self.lock:
            self.world.reset()
            self.reset_gate = dict.fromkeys(self.arms, time.monotonic())
        self.wall_origin = time.monotonic()
        arms = "arms" if len(self.arms) > 1 else "arm"
        response.success, response.message = True, f"{arms} at the initial pose, cubes replaced"
        return response

    def on_capture(self, request, response):
        """Start a frame and answer at once: the frame follows on the camera topic. It
        renders in a subprocess, waited for on a thread, so no executor (the graph runs
        on a single-threaded one) ever waits for a picture."""
        prm = self.params
        joints, poses, _ = self.camera_snapshot()
        stamp = self.get_clock().now().to_msg()
        threading.Thread(
            target=self._render, args=(joints, poses, stamp), daemon=True, name="sim_capture"
        ).start()
        response.success = True
        response.message = (
            f"rendering a {prm.camera_width}x{prm.camera_height} rgb8 frame of this moment; "
            f"it follows on {prm.camera_topic}"
        )
        return response

    def _render(self, joints, poses, stamp) -> None:
        prm = self.params
        try:
            with self.camera_lock:  # one frame at a time
                if self.camera is None:
                    self.camera = CameraProcess(prm.scene_file or None)
                rgb = self.camera.render(joints, poses, prm.camera_width, prm.camera_height)
        except Exception as exc:  # the camera process failed: no frame, say why
            self.get_logger().error(f"camera frame failed: {exc}")
            return
        msg = Image()
        msg.header.stamp = stamp
        msg.header.frame_id = self.frame_id
        msg.height, msg.width = rgb.shape[0], rgb.shape[1]
        msg.encoding, msg.is_bigendian, msg.step = "rgb8", 0, rgb.shape[1] * 3
        msg.data = rgb.tobytes()
        try:
            self.pub_image.publish(msg)
        except Exception:  # the node was destroyed while the frame rendered
            pass

    def destroy_node(self):
        self.running = False
        if getattr(self, "thread", None) is not None:
            self.thread.join(timeout=2.0)
        if self.rgbd is not None:
            self.rgbd.close()
        with self.camera_lock:  # a frame being rendered finishes first
            if self.camera is not None:
                self.camera.close()
        self.world.close()
        return super().destroy_node()


def main(args=None) -> None:
    run_node(SimNode, args)


if __name__ == "__main__":
    main()
