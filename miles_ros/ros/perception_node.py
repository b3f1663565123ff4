"""``perception_node``: the scene's cubes from an RGB-D camera, on ``/miles/scene/objects``.

Subscribes to a RealSense driver's topics (relative names: ``camera/color/image_raw``,
``camera/aligned_depth_to_color/image_raw``, ``camera/color/camera_info``; the sim node's
camera uses the same), pairs colour and depth by their header stamp, and hands each pair
to the ROS-free perception core (:class:`miles_ros.perception.Perception`) on one worker
thread of its own: the executor never waits for a frame. A pair that arrives while the
worker is still busy is dropped and counted. Each arm's joint states (under ``/ARM`` in
a cell) tell the core where the hand is and how wide the gripper stands, for a cube held
in it.

The poses go out after every frame and at ``publish_rate_hz`` between frames: the core
ages them, so a camera that stops shows in each object's ``age`` and ``std``, never as a
fresh pose. A frame or a camera_info that cannot be used (an unknown encoding, a size
that does not match) is refused with its reason (logged, throttled, and counted), and
the last poses keep aging. Pairs that come before the first camera_info are skipped (a
warning says no pose was made) and counted as ``early``, not refused: at start-up the
image topics may be matched before the camera_info topic is (DDS matches each topic on
its own).

Counters: :attr:`PerceptionNode.frames` (frames the core took), ``refused`` (frames and
camera_infos refused), ``dropped`` (pairs that came while a frame was in work),
``early`` (pairs that came before any camera_info).
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image, JointState
from std_msgs.msg import String

from miles_ros.interfaces import arm_scoped
from miles_ros.params.perception import PerceptionNodeParams
from miles_ros.perception.images import (
    FrameRefused,
    decode_color,
    decode_depth,
    intrinsics_from_camera_info,
)
from miles_ros.perception.tags import APRILTAG, COLOUR, MODES
from miles_ros.ros.joint_states import read_arm_joints, stamp_seconds
from miles_ros.ros.node_main import run_node
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import COMMAND_QOS, SENSOR_QOS
from sims.scene import WORLD_FRAME, load_scene

PAIRING_DEPTH = 4
"""Unpaired colour or depth images kept while waiting for their other half."""
LOG_PERIOD_S = 2.0
"""A refusal's reason is logged at most this often (s)."""
FRAME_TIMES = 1000
"""Frames whose pair-to-pose time :attr:`PerceptionNode.frame_to_pose` keeps."""


def default_perception(scene, camera_pose, mode: str = COLOUR):
    """The perception core of ``scene`` with the camera where the cell believes it is
    (:attr:`sims.camera.CameraConfig.believed_pose`), finding cubes by ``mode``
    (:data:`miles_ros.perception.tags.MODES`)."""
    from miles_ros.perception import Perception, PerceptionConfig

    return Perception(scene, camera_pose, PerceptionConfig(mode=mode))


class PerceptionNode(Node):
    """See the module docstring. ``perception_factory(scene, camera_pose)`` builds the
    core (default: :func:`default_perception`)."""

    def __init__(self, perception_factory: Callable | None = None, **kwargs):
        super().__init__("perception_node", **kwargs)
        self.params = prm = declare_params(self, PerceptionNodeParams)
        if not prm.publish_rate_hz > 0:
            raise ValueError("publish_rate_hz must be positive")
        scene = load_scene(prm.scene_file or None)
        if scene.camera is None:
            raise ValueError(
                f"the scene {prm.scene_file or 'config/scene.yaml'} has no camera: section "
                "(the camera's calibrated pose)"
            )
        if prm.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {prm.mode!r}")
        if prm.mode == APRILTAG and not scene.tags:
            raise ValueError(
                f"mode apriltag: no cube of the scene {prm.scene_file or 'config/scene.yaml'} "
                "has a tag: (e.g. config/scene_tags.yaml)"
            )
        if perception_factory is None:
            self.perception = default_perception(scene, scene.camera.believed_pose, prm.mode)
        else:
            self.perception = perception_factory(scene, scene.camera.believed_pose)
        self.frame_id = WORLD_FRAME if scene.multi_arm else prm.frame_id
        self.frames = 0
        """Frames the core took."""
        self.refused = 0
        """Frames and camera_infos refused (each with its reason logged)."""
        self.dropped = 0
        """Colour-depth pairs dropped because the previous frame was still in work."""
        self.early = 0
        """Colour-depth pairs skipped because no camera_info had come yet."""
        self.last_refusal = ""
        """The reason of the latest refusal."""

        self.core_lock = threading.Lock()
        """Held while the core works (a frame, a payload); the executor only tries it."""
        self.inputs_lock = threading.Lock()
        self.arm_states: dict[str, tuple] = {}
        """Per arm, the latest (joint positions, finger width, stamp, the fingers' centre)
        not yet given to the core (handed over by whoever holds :attr:`core_lock` next)."""
        self.intrinsics = None
        """The latest camera_info's intrinsics not yet given to the core."""
        self._info_key = None
        self.colors: OrderedDict[int, Image] = OrderedDict()
        self.depths: OrderedDict[int, Image] = OrderedDict()
        self.job: tuple[Image, Image, float] | None = None
        self.frame_to_pose: deque[float] = deque(maxlen=FRAME_TIMES)
        """Per frame the core took: seconds from its pair being complete (both halves
        received) to the published pose (decode, detect, track, publish)."""
        self.busy = False
        self.cond = threading.Condition()
        self.running = True

        self.pub_objects = self.create_publisher(String, prm.objects_topic, COMMAND_QOS)
        sub = self.create_subscription
        sub(
            Image,
            prm.color_topic,
            lambda m: self.on_image(m, self.colors, self.depths),
            SENSOR_QOS,
        )
        sub(
            Image,
            prm.depth_topic,
            lambda m: self.on_image(m, self.depths, self.colors),
            SENSOR_QOS,
        )
        sub(CameraInfo, prm.camera_info_topic, self.on_camera_info, SENSOR_QOS)
        self.arms = [mount.name for mount in scene.arms]
        for arm in self.arms:
            sub(
                JointState,
                arm_scoped(arm, prm.joint_states_topic),
                lambda msg, arm=arm: self.on_joints(msg, arm),
                SENSOR_QOS,
            )
        self.worker = threading.Thread(target=self._work, daemon=True, name="perception")
        self.worker.start()
        self.create_timer(1.0 / prm.publish_rate_hz, self.on_timer)
        cubes = ", ".join(scene.objects)
        self.get_logger().info(
            f"perception ({prm.mode}): {cubes} from {self.resolve_topic_name(prm.color_topic)} "
            f"(+ depth, camera_info) -> {prm.objects_topic} at {prm.publish_rate_hz:g} Hz"
        )

    def now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    # --- inputs (executor thread: quick, never waiting for the core) ------------------
    def on_joints(self, msg: JointState, arm: str) -> None:
        stamp = stamp_seconds(msg.header.stamp)
        reading = read_arm_joints(self, msg, stamp, self.params, LOG_PERIOD_S)
        if reading is None:
            return
        with self.inputs_lock:
            self.arm_states[arm] = (
                reading.arm_pos.tolist(),
                reading.finger_width,
                reading.stamp,
                reading.finger_centre,
            )

    def on_camera_info(self, msg: CameraInfo) -> None:
        key = (msg.width, msg.height, tuple(msg.k), tuple(msg.d), msg.distortion_model)
        if key == self._info_key:
            return
        try:
            intrinsics = intrinsics_from_camera_info(
                msg.width, msg.height, msg.k, msg.d, msg.distortion_model
            )
        except FrameRefused as exc:
            self._refuse(str(exc))
            return
        with self.inputs_lock:  # intrinsics first: a pair let in by _info_key finds them
            self.intrinsics = intrinsics
            self._info_key = key
        self.get_logger().info(
            f"camera_info: {msg.width}x{msg.height}, fx {intrinsics.fx:.1f}, "
            f"{msg.distortion_model or 'no distortion'}"
        )

    def on_image(self, msg: Image, mine: OrderedDict, others: OrderedDict) -> None:
        """Keep ``msg`` until its other half (same stamp) comes; a pair goes to the worker."""
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        skew = round(self.params.max_pair_skew_s * 1e9)
        match = next((s for s in others if abs(s - stamp) <= skew), None)
        if match is None:
            mine[stamp] = msg
            while len(mine) > PAIRING_DEPTH:
                mine.popitem(last=False)
            return
        other = others.pop(match)
        for old in [s for s in others if s < match]:  # older halves will never pair now
            del others[old]
        color, depth = (msg, other) if mine is self.colors else (other, msg)
        if self._info_key is None:
            self.early += 1
            self.get_logger().warning(
                "no camera_info yet: frame skipped, no pose made",
                throttle_duration_sec=LOG_PERIOD_S,
            )
            return
        with self.cond:
            if self.busy or self.job is not None:
                self.dropped += 1
                return
            self.job = (color, depth, time.monotonic())
            self.cond.notify()

    def on_timer(self) -> None:
        if self.core_lock.acquire(blocking=False):  # the worker publishes after its frame
            try:
                self._publish()
            finally:
                self.core_lock.release()

    # --- the core (worker thread, or the timer holding core_lock) ---------------------
    def _feed(self) -> None:
        """Hand the core what came since (camera_info, arm states); under core_lock."""
        with self.inputs_lock:
            intrinsics, self.intrinsics = self.intrinsics, None
            arms, self.arm_states = self.arm_states, {}
        if intrinsics is not None:
            self.perception.set_intrinsics(intrinsics)
        for arm, (joints, width, stamp, centre) in arms.items():
            self.perception.on_arm(arm, joints, width, stamp, finger_centre=centre)

    def _publish(self) -> None:
        self._feed()
        payload = self.perception.payload(self.now(), self.frame_id)
        try:
            self.pub_objects.publish(String(data=json.dumps(payload)))
        except Exception:  # the node is being destroyed
            pass

    def _work(self) -> None:
        while True:
            with self.cond:
                self.cond.wait_for(lambda: self.job is not None or not self.running)
                if not self.running:
                    return
                (color, depth, paired), self.job = self.job, None
                self.busy = True
            try:
                if self.process(color, depth):
                    self.frame_to_pose.append(time.monotonic() - paired)
            except Exception as exc:  # a bug in the core must not end the node's eyes
                self._refuse(f"frame failed: {type(exc).__name__}: {exc}")
            finally:
                with self.cond:
                    self.busy = False

    def process(self, color: Image, depth: Image) -> bool:
        """Decode one pair and give it to the core, then publish; a refusal says why (and
        returns False)."""
        stamp = stamp_seconds(color.header.stamp)
        with self.core_lock:
            try:
                rgb = decode_color(
                    color.encoding,
                    color.height,
                    color.width,
                    color.step,
                    color.data,
                    color.is_bigendian,
                )
                depth_m = decode_depth(
                    depth.encoding,
                    depth.height,
                    depth.width,
                    depth.step,
                    depth.data,
                    depth.is_bigendian,
                )
                if rgb.shape[:2] != depth_m.shape:
                    raise FrameRefused(
                        f"colour {rgb.shape[1]}x{rgb.shape[0]} and depth "
                        f"{depth_m.shape[1]}x{depth_m.shape[0]} differ (is the depth aligned?)"
                    )
                self._feed()
                self.perception.on_frame(rgb, depth_m, stamp)
            except FrameRefused as exc:
                self._refuse(str(exc))
                taken = False
            else:
                self.frames += 1
                taken = True
            self._publish()
        return taken

    def _refuse(self, reason: str) -> None:
        with self.inputs_lock:  # from the executor (camera_info) and the worker (frames)
            self.refused += 1
            self.last_refusal = reason
        self.get_logger().warning(f"refused: {reason}", throttle_duration_sec=LOG_PERIOD_S)

    def summary(self) -> str:
        """Frames taken, dropped and refused (and any before camera_info), and the
        frame-to-pose time p50 / p99 (ms)."""
        text = f"{self.frames} frames, {self.dropped} dropped, {self.refused} refused"
        if self.early:
            text += f", {self.early} before camera_info"
        times = sorted(self.frame_to_pose)
        if times:
            p50, p99 = (times[min(len(times) - 1, int(q * len(times)))] for q in (0.5, 0.99))
            text += f"; frame to pose p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms"
        return text

    def destroy_node(self):
        if hasattr(self, "worker"):  # a node refused at start never had one
            with self.cond:
                self.running = False
                self.cond.notify_all()
            self.worker.join(timeout=5.0)
            self.get_logger().info(f"perception: {self.summary()}")
        return super().destroy_node()


def main(args=None) -> None:
    run_node(PerceptionNode, args)


if __name__ == "__main__":
    main()
