"""The sim node's RGB-D camera: the scene's camera (``camera:`` of the scene file) on the
topics and in the encodings a RealSense driver uses, with a depth camera's faults.

Each frame: dropped with the noise model's ``drop_probability``, or the state of the world
is read at the frame's exposure (its stamp) and sent to the camera's own process
(:mod:`miles_ros.ros.camera_process`), which renders and noises it (``BulletWorld.
render_rgbd`` and :func:`sims.camera.add_noise`: depth noise growing with distance, invalid
pixels at edges and at random, colour noise) and publishes it ``latency_s`` after its
exposure, never earlier, in exposure order: ``rgb8`` colour, ``16UC1`` depth in mm and a
``CameraInfo`` with the same stamp. The sim node's process never holds an image: its
physics and executor never wait for a frame, and only a few hundred bytes a frame cross to
the camera's process. Frames render on two renderers at once; when both are busy the next
exposure waits for one (the rate drops, the stamps stay true).

The extrinsic error: the scene file holds the camera's nominal pose, and a real camera is
never exactly there. The sim renders from that pose perturbed once per run
(:meth:`sims.camera.CameraConfig.mounted_pose`, drawn first from
``default_rng(camera_seed)``), so perception, which believes the file, sees a calibration
error of a few mm and tenths of a degree until ``miles calibrate camera --camera-seed``
measures this run's pose into the file's ``camera.calibration``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
from sensor_msgs.msg import CameraInfo, Image

from miles_ros.ros.camera_process import RENDER_WORKERS, CameraPublisher
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
    """One RGB-D camera stream of the sim node (see the module docstring): on a thread of
    its own, at the camera's rate, the frame's drop is drawn and the world read at its
    exposure (``snapshot()``); the frame is rendered, noised, encoded and published by the
    camera's own process (:class:`~miles_ros.ros.camera_process.CameraPublisher`), at most
    :data:`~miles_ros.ros.camera_process.RENDER_WORKERS` frames in work at once.
    ``now()`` is the node's clock (s)."""

    def __init__(
        self,
        node,
        config: CameraConfig,
        seed: int,
        topics: tuple[str, str, str],
        snapshot: Snapshot,
        now: Callable[[], float],
        scene_file: str | None,
    ) -> None:
        self.node = node
        self.config = config
        self.rng = np.random.default_rng(seed)
        self.true_pose = config.mounted_pose(self.rng)
        """Where the simulated camera really is: the scene file's nominal pose with this
        run's calibration error (``miles calibrate camera --camera-seed`` measures it)."""
        namespace = node.get_namespace().strip("/")
        self.setup = {
            "scene_file": scene_file,
            "domain_id": node.context.get_domain_id(),
            "namespace": namespace,
            "topics": topics,
            "frame_id": config.frame_id,
            "intrinsics": config.intrinsics,
            "true_pose": self.true_pose,
            "noise": config.noise,
            "seed": (seed, 1),  # the noise's own streams, apart from the mount's and drops'
        }
        """What the camera process is told once (:class:`CameraPublisher`)."""
        self.snapshot, self.now = snapshot, now
        self.published = 0
        """Frames published."""
        self.dropped = 0
        """Frames the noise model dropped (never published)."""
        self.failed = 0
        """Frames the camera process failed to render."""
        self.in_work = 0
        """Frames sent to the camera process and not rendered yet."""
        self.sent = 0
        self.gone = False
        """The camera process has exited."""
        self.stop = threading.Event()
        self.cond = threading.Condition()
        self.process: CameraPublisher | None = None
        self.thread = threading.Thread(target=self._run, daemon=True, name="sim_rgbd")

    def start(self) -> None:
        self.process = CameraPublisher(self.setup, self._on_message)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        with self.cond:
            self.cond.notify_all()
        if self.thread.is_alive():
            self.thread.join(timeout=5.0)
        if self.process is not None:
            self.process.close()

    def _on_message(self, message: tuple) -> None:
        """An answer of the camera process (its reader thread)."""
        kind = message[0]
        with self.cond:
            if kind == "rendered":
                self.in_work -= 1
            elif kind == "published":
                self.published += 1
            elif kind == "failed":
                self.failed += 1
            elif kind == "exited":
                self.gone = True
            self.cond.notify_all()
        if kind == "failed":
            self.node.get_logger().error(
                f"camera frame failed: {message[2]}", throttle_duration_sec=5.0
            )
        elif kind == "exited" and not self.stop.is_set():
            self.node.get_logger().error(f"the camera process exited (status {message[1]})")

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
            self.frame()
            due = max(due + period, self.now())  # a frame that waited delays the next

    def frame(self) -> bool:
        """Draw the frame's drop, wait for a free renderer, read the world (the exposure)
        and send the frame to the camera process, to be published ``latency_s`` after its
        exposure; False when it was dropped (or the camera is stopping)."""
        if self.rng.random() < self.config.noise.drop_probability:
            self.dropped += 1
            return False
        with self.cond:
            self.cond.wait_for(
                lambda: self.in_work < RENDER_WORKERS or self.stop.is_set() or self.gone
            )
            if self.stop.is_set() or self.gone:
                return False
            self.in_work += 1
        joints, poses, stamp = self.snapshot()
        publish_at = time.monotonic() + max(0.0, stamp + self.config.noise.latency_s - self.now())
        self.process.send(("frame", self.sent, joints, poses, stamp, publish_at))
        self.sent += 1
        return True
