"""The sim node's RGB-D camera: the scene's camera (``camera:`` of the scene file) on the
topics and in the encodings a RealSense driver uses, with a depth camera's faults.

Each frame: dropped with the noise model's ``drop_probability``, or the state of the world
is read at the frame's exposure (its stamp), rendered and noised in the sim node's camera
subprocess (:class:`miles_ros.runtime.scene_world.CameraProcess`, ``BulletWorld.
render_rgbd`` and :func:`sims.camera.add_noise`: depth noise growing with distance, invalid
pixels at edges and at random, colour noise), and published ``latency_s`` after its
exposure, never earlier: ``rgb8`` colour, ``16UC1`` depth in mm and a ``CameraInfo`` with
the same stamp. Frames are made on one thread and published on another, so the wait for
the latency never holds up the next frame: the physics and the executor never wait for a
frame; a frame that takes longer than the period delays the next (the rate drops, the
stamps stay true).

The extrinsic error: the scene file holds the camera's nominal pose, and a real camera is
never exactly there. The sim renders from that pose perturbed once per run
(:meth:`sims.camera.CameraConfig.mounted_pose`, drawn first from
``default_rng(camera_seed)``), so perception, which believes the file, sees a calibration
error of a few mm and tenths of a degree until ``miles calibrate camera --camera-seed``
measures this run's pose into the file's ``camera.calibration``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

import numpy as np
from sensor_msgs.msg import CameraInfo, Image

from miles_ros.perception.images import encode_depth_mm
from sims.camera import CameraConfig, CameraIntrinsics

Snapshot = Callable[[], tuple[object, dict, float]]
"""Reads the world for one frame: (joints as CameraProcess.render_rgbd takes them, object
poses, the state's time in s on the node's clock)."""


def image_message(pixels: np.ndarray, encoding: str, stamp: float, frame_id: str) -> Image:
    """A ``sensor_msgs/Image`` of ``pixels`` (rows contiguous, little-endian)."""
    pixels = np.ascontiguousarray(pixels)
    msg = Image()
    msg.header.stamp = _time(stamp)
    msg.header.frame_id = frame_id
    msg.height, msg.width = int(pixels.shape[0]), int(pixels.shape[1])
    msg.encoding, msg.is_bigendian = encoding, 0
    msg.step = int(pixels.strides[0])
    msg.data = pixels.tobytes()
    return msg


def camera_info_message(intrinsics: CameraIntrinsics, stamp: float, frame_id: str) -> CameraInfo:
    """A ``sensor_msgs/CameraInfo`` of ``intrinsics`` (plumb_bob, its distortion)."""
    k = intrinsics
    msg = CameraInfo()
    msg.header.stamp = _time(stamp)
    msg.header.frame_id = frame_id
    msg.width, msg.height = k.width, k.height
    msg.distortion_model = "plumb_bob"
    msg.d = [float(v) for v in k.distortion]
    msg.k = [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


def _time(seconds: float):
    from builtin_interfaces.msg import Time

    ns = int(round(seconds * 1e9))
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


class SimCamera:
    """One RGB-D camera stream of the sim node, on its own thread (see the module
    docstring). ``render(joints, poses, intrinsics, pose, noise)`` makes the frame with
    ``noise`` added;
    ``snapshot()`` reads the world; ``now()`` is the node's clock (s)."""

    def __init__(
        self,
        node,
        config: CameraConfig,
        seed: int,
        topics: tuple[str, str, str],
        qos,
        snapshot: Snapshot,
        render: Callable,
        now: Callable[[], float],
    ) -> None:
        self.node = node
        self.config = config
        self.rng = np.random.default_rng(seed)
        self.true_pose = config.mounted_pose(self.rng)
        """Where the simulated camera really is: the scene file's nominal pose with this
        run's calibration error (``miles calibrate camera --camera-seed`` measures it)."""
        color, depth, info = topics
        self.pub_color = node.create_publisher(Image, color, qos)
        self.pub_depth = node.create_publisher(Image, depth, qos)
        self.pub_info = node.create_publisher(CameraInfo, info, qos)
        self.snapshot, self.render, self.now = snapshot, render, now
        self.published = 0
        """Frames published."""
        self.dropped = 0
        """Frames the noise model dropped (never published)."""
        self.failed = 0
        """Frames the camera process failed to render."""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="sim_rgbd")
        self.outbox: deque[tuple[float, tuple]] = deque()
        """Frames made, waiting for their publication time (in stamp order)."""
        self.outbox_ready = threading.Condition()
        self.sender = threading.Thread(target=self._send, daemon=True, name="sim_rgbd_out")

    def start(self) -> None:
        self.thread.start()
        self.sender.start()

    def close(self) -> None:
        self.stop.set()
        with self.outbox_ready:
            self.outbox_ready.notify()
        for thread in (self.thread, self.sender):
            if thread.is_alive():
                thread.join(timeout=35.0)  # a frame being rendered finishes first

    def _wait_until(self, t: float) -> bool:
        """Wait until the node's clock reads ``t`` (in short steps: sim time may run
        faster than the wall); False when stopping."""
        while not self.stop.is_set():
            left = t - self.now()
            if left <= 0:
                return True
            self.stop.wait(min(left, 0.01))
        return False

    def _run(self) -> None:
        period = 1.0 / self.config.rate_hz
        due = self.now()
        while self._wait_until(due):
            due = max(due + period, self.now())  # a slow frame delays the next
            try:
                self.frame()
            except Exception as exc:  # the camera process failed: no frame, say why
                self.failed += 1
                self.node.get_logger().error(
                    f"camera frame failed: {exc}", throttle_duration_sec=5.0
                )

    def frame(self) -> bool:
        """Expose, render and noise one frame and queue it for publication ``latency_s``
        after its exposure; False when it was dropped."""
        cfg, noise = self.config, self.config.noise
        if self.rng.random() < noise.drop_probability:
            self.dropped += 1
            return False
        joints, poses, stamp = self.snapshot()
        rgb, depth = self.render(joints, poses, cfg.intrinsics, self.true_pose, noise)
        color_msg = image_message(rgb, "rgb8", stamp, cfg.frame_id)
        depth_msg = image_message(encode_depth_mm(depth), "16UC1", stamp, cfg.frame_id)
        info_msg = camera_info_message(cfg.intrinsics, stamp, cfg.frame_id)
        with self.outbox_ready:
            self.outbox.append((stamp + noise.latency_s, (info_msg, depth_msg, color_msg)))
            self.outbox_ready.notify()
        return True

    def _send(self) -> None:
        """Publish each queued frame when its time comes (the sender thread)."""
        while not self.stop.is_set():
            with self.outbox_ready:
                self.outbox_ready.wait_for(lambda: self.outbox or self.stop.is_set())
                if self.stop.is_set():
                    return
                due, messages = self.outbox[0]
            if not self._wait_until(due):
                return
            with self.outbox_ready:
                self.outbox.popleft()
            try:
                for pub, msg in zip(
                    (self.pub_info, self.pub_depth, self.pub_color), messages, strict=True
                ):
                    pub.publish(msg)
            except Exception:  # the node is being destroyed
                return
            self.published += 1
