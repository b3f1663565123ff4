"""perception_node over real rclpy on loopback, fed recorded real-format messages built
here (a rendered frame of the default scene as rgb8 + 16UC1 in mm, a camera_info with
plumb_bob distortion coefficients, joint states): it publishes the objects with source
"camera"; bad input is refused with a reason and never becomes a pose (an unknown
encoding, no camera_info: no objects at all); a camera that stops leaves poses whose age
grows; a pair that comes while a frame is in work is dropped and counted.

Each test runs against a stand-in core that records what the node hands it (the
wiring: decoding, pairing by stamp, the intrinsics with their distortion, the gripper's
width), and against the real core (:class:`miles_ros.perception.Perception`) once it
is in this checkout.
"""

from __future__ import annotations

import importlib.util
import threading
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from sensor_msgs.msg import CameraInfo, Image, JointState  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.perception.images import FrameRefused  # noqa: E402
from miles_ros.ros.perception_node import PerceptionNode  # noqa: E402
from miles_ros.ros.qos import IMAGE_QOS, SENSOR_QOS  # noqa: E402
from miles_ros.runtime.scene_world import SceneWorld  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import Graph  # noqa: E402

DISTORTION = [0.0012, -0.0021, 0.0002, -0.0001, 0.0004]
"""plumb_bob k1, k2, p1, p2, k3: small, non-zero, as a RealSense colour camera reports."""
HAS_CORE = importlib.util.find_spec("miles_ros.perception.pipeline") is not None


class StandInCore:
    """The perception core's API, recording its calls: one pose per cube at the last
    frame's stamp, aging; refuses a frame without intrinsics or of another size."""

    def __init__(self, scene, camera_pose):
        self.scene, self.camera_pose = scene, camera_pose
        self.intrinsics = None
        self.arms: list[tuple] = []
        self.frames: list[tuple] = []
        self.gate: threading.Event | None = None
        """When set by a test, on_frame waits for it (a slow frame)."""

    def set_intrinsics(self, intrinsics) -> None:
        self.intrinsics = intrinsics

    def on_arm(self, arm, joint_positions, finger_width, stamp, finger_centre=0.0) -> None:
        self.arms.append((arm, list(joint_positions), finger_width, stamp))

    def on_frame(self, rgb, depth_m, stamp):
        if self.intrinsics is None:
            raise FrameRefused("no camera_info yet")
        if rgb.shape[:2] != (self.intrinsics.height, self.intrinsics.width):
            raise FrameRefused("frame size differs from camera_info")
        if self.gate is not None:
            self.gate.wait(30.0)
        self.frames.append((rgb.copy(), depth_m.copy(), stamp))

    def payload(self, now, frame_id):
        objects = {}
        if self.frames:
            seen = self.frames[-1][2]
            for name, obj in self.scene.objects.items():
                objects[name] = {
                    "position": list(obj.position),
                    "orientation": [0.0, 0.0, 0.0, 1.0],
                    "yaw": 0.0,
                    "stamp": seen,
                    "age": now - seen,
                    "source": "camera",
                    "confidence": 1.0,
                    "std": 0.002,
                    "state": "visible",
                }
        missing = {n: "not seen yet" for n in self.scene.objects if n not in objects}
        return {
            "stamp": now,
            "frame_id": frame_id,
            "source": "camera",
            "objects": objects,
            "places": {},
            "missing": missing,
        }


CORES = [
    pytest.param("stand-in", id="stand-in"),
    pytest.param(
        "real",
        id="real",
        marks=pytest.mark.skipif(
            not HAS_CORE,
            reason="the perception core (miles_ros/perception/pipeline.py) "
            "is not in this checkout yet",
        ),
    ),
]


@pytest.fixture(scope="module")
def frame():
    """A noise-free frame of the default scene from its camera: (rgb uint8, depth mm)."""
    scene = load_scene()
    world = SceneWorld(scene)
    try:
        rgb, depth = world.render_rgbd(scene.camera.intrinsics, scene.camera.pose)
    finally:
        world.close()
    return rgb, np.clip(np.rint(depth * 1000.0), 0, 65535).astype(np.uint16)


class Camera:
    """A probe that publishes like a RealSense driver, and the node under test (with
    ``parameters``, name -> value, over its config)."""

    def __init__(self, core: str, parameters: dict | None = None):
        self.core = None

        def build(context):
            if core == "real":
                from tests.nodes.graph_harness import overrides

                return PerceptionNode(
                    context=context, parameter_overrides=overrides(parameters or {})
                )

            def factory(scene, pose):
                self.core = StandInCore(scene, pose)
                return self.core

            return PerceptionNode(perception_factory=factory, context=context)

        self.g = Graph([build])
        self.node: PerceptionNode = self.g.nodes[0]
        probe = self.g.probe
        self.pub_color = probe.create_publisher(Image, interfaces.CAMERA_COLOR, IMAGE_QOS)
        self.pub_depth = probe.create_publisher(Image, interfaces.CAMERA_DEPTH, IMAGE_QOS)
        self.pub_info = probe.create_publisher(CameraInfo, interfaces.CAMERA_INFO, IMAGE_QOS)
        self.pub_joints = probe.create_publisher(JointState, interfaces.JOINT_STATES, SENSOR_QOS)
        self.t = 0.0
        for pub in (self.pub_color, self.pub_depth, self.pub_info, self.pub_joints):
            self.g.wait(lambda pub=pub: pub.get_subscription_count() > 0, what="the node")

    def stamp(self):
        """Now on the node's clock (a live camera's frames are fresh), after the last."""
        self.t = max(self.t + 1e-3, self.g.probe.get_clock().now().nanoseconds * 1e-9)
        ns = int(round(self.t * 1e9))
        msg = Image().header.stamp
        msg.sec, msg.nanosec = ns // 1_000_000_000, ns % 1_000_000_000
        return msg

    def info(self, stamp) -> CameraInfo:
        k = load_scene().camera.intrinsics
        msg = CameraInfo()
        msg.header.stamp, msg.header.frame_id = stamp, "camera_color_optical_frame"
        msg.width, msg.height, msg.distortion_model = k.width, k.height, "plumb_bob"
        msg.d = list(DISTORTION)
        msg.k = [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0]
        msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
        msg.p = [k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
        return msg

    @staticmethod
    def image(stamp, pixels: np.ndarray, encoding: str, channels: int) -> Image:
        msg = Image()
        msg.header.stamp, msg.header.frame_id = stamp, "camera_color_optical_frame"
        msg.height, msg.width = pixels.shape[:2]
        msg.encoding, msg.is_bigendian = encoding, 0
        msg.step = pixels.shape[1] * channels * pixels.itemsize
        msg.data = np.ascontiguousarray(pixels).tobytes()
        return msg

    def send(self, frame, info=True, color_encoding="rgb8") -> None:
        rgb, depth_mm = frame
        stamp = self.stamp()
        if info:
            self.pub_info.publish(self.info(stamp))
        self.pub_depth.publish(self.image(stamp, depth_mm, "16UC1", 1))
        self.pub_color.publish(self.image(stamp, rgb, color_encoding, 3))

    def handled(self) -> int:
        n = self.node
        return n.frames + n.refused + n.dropped + n.early

    def send_until(self, frame, predicate, timeout=30.0, **kwargs) -> None:
        """Send frames (best effort: one may be lost) until ``predicate()`` holds."""
        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, f"timed out waiting for {predicate}"
            before = self.handled()
            self.send(frame, **kwargs)
            with self.g.cond:  # notified by every objects message (30 Hz)
                self.g.cond.wait_for(lambda b=before: self.handled() > b, timeout=1.0)

    def close(self) -> None:
        self.g.close()


@pytest.fixture(params=CORES)
def camera(request):
    cam = Camera(request.param)
    yield cam
    cam.close()


def test_recorded_frames_become_camera_poses(camera, frame):
    joints = JointState()
    joints.name = list(panda.JOINT_NAMES) + list(panda.FINGER_JOINT_NAMES)
    joints.position = [*panda.home_joint_positions.tolist(), 0.03, 0.035]
    camera.pub_joints.publish(joints)
    camera.send_until(frame, lambda: camera.node.frames >= 2)
    camera.g.wait(
        lambda: any(p["objects"] for p in camera.g.objects), what="objects from the camera"
    )
    payload = next(p for p in reversed(camera.g.objects) if p["objects"])
    assert payload["source"] == "camera" and payload["frame_id"] == "panda_link0"
    for name, obj in payload["objects"].items():
        assert obj["source"] == "camera"
        truth = load_scene().objects[name].position
        np.testing.assert_allclose(obj["position"][:2], truth[:2], atol=0.01)
    assert camera.node.refused == 0
    # each frame taken is timed from its pair to its published pose
    camera.g.wait(lambda: len(camera.node.frame_to_pose) >= 2, what="two frames timed")
    assert all(0.0 < t < 5.0 for t in camera.node.frame_to_pose)
    node = camera.node
    slowest = max(node.frame_to_pose) * 1e3
    assert node.summary().startswith(f"{node.frames} frames, {node.dropped} dropped, 0 refused")
    assert f"p99 {slowest:.1f} ms" in node.summary() or len(node.frame_to_pose) > 100
    core = camera.core
    if core is None:  # the real core: its own tests hold what it does with the frame
        return
    rgb, depth_m, _ = core.frames[-1]
    np.testing.assert_array_equal(rgb, frame[0])
    np.testing.assert_allclose(depth_m, frame[1] * 1e-3, atol=1e-6)
    assert core.intrinsics.distortion == pytest.approx(tuple(DISTORTION))
    assert core.intrinsics.fx == pytest.approx(load_scene().camera.intrinsics.fx)
    camera.g.wait(lambda: core.arms, what="the arm's state handed to the core")
    arm, q, width, _ = core.arms[-1]
    assert arm == "" and width == pytest.approx(0.065)
    np.testing.assert_allclose(q, panda.home_joint_positions)


def test_an_unknown_encoding_is_refused_with_the_reason(camera, frame):
    yuv = (frame[0], frame[1])
    camera.send_until(yuv, lambda: camera.node.refused >= 2, color_encoding="yuv422")
    assert "yuv422" in camera.node.last_refusal
    assert camera.node.frames == 0 and not camera.node.frame_to_pose
    assert "frame to pose" not in camera.node.summary()  # no frame timed, no times made up
    assert all(not p["objects"] for p in camera.g.objects)
    if camera.core is not None:
        assert camera.core.frames == []


def test_without_camera_info_no_object_is_published(camera, frame):
    camera.send_until(frame, lambda: camera.node.early >= 3, info=False)
    assert camera.node.frames == 0 and camera.node.refused == 0  # waiting is no refusal
    assert camera.node.summary().endswith(f"{camera.node.early} before camera_info")
    if camera.core is not None:
        assert camera.core.frames == []  # the core never saw a frame it could not place
    n = len(camera.g.objects)
    camera.g.wait(lambda: len(camera.g.objects) >= n + 3, what="more payloads")
    assert camera.g.objects and all(not p["objects"] for p in camera.g.objects)


def test_a_camera_that_stops_leaves_poses_that_age(camera, frame):
    camera.send_until(frame, lambda: camera.node.frames >= 1)
    camera.g.wait(lambda: any(p["objects"] for p in camera.g.objects), what="objects")
    first = next(p for p in camera.g.objects if p["objects"])
    name = next(iter(first["objects"]))
    seen = first["objects"][name]["stamp"]
    # No more frames: the payloads keep coming at the node's rate, each older.
    camera.g.wait(
        lambda: camera.g.objects[-1]["stamp"] - first["stamp"] > 0.3, what="0.3 s of payloads"
    )
    later = camera.g.objects[-1]["objects"].get(name)
    if later is not None:  # kept with its age (or listed missing: never fresh)
        assert later["stamp"] == seen
        assert later["age"] > first["objects"][name]["age"] + 0.25
    else:
        assert name in camera.g.objects[-1]["missing"]


def test_a_pair_that_comes_during_a_frame_is_dropped_and_counted(frame):
    cam = Camera("stand-in")
    try:
        cam.core.gate = threading.Event()
        cam.send_until(frame, lambda: cam.node.busy, timeout=30.0)
        cam.send_until(frame, lambda: cam.node.dropped >= 2)
        assert cam.node.frames == 0  # the first is still in work
        cam.core.gate.set()
        cam.g.wait(lambda: cam.node.frames == 1, what="the slow frame done")
        assert len(cam.core.frames) == 1
    finally:
        if cam.core is not None and cam.core.gate is not None:
            cam.core.gate.set()
        cam.close()


def test_a_calibrated_scene_gives_the_core_its_calibrated_pose(tmp_path):
    import yaml

    from miles_ros.perception.calibration import calibration_section
    from sims.scene import default_scene_path
    from tests.nodes.graph_harness import overrides

    scene = load_scene()
    measured = scene.camera.mounted_pose(np.random.default_rng(4))
    data = yaml.safe_load(default_scene_path().read_text())
    data["camera"]["calibration"] = calibration_section(measured, 1.0, 12, "", "test")
    path = tmp_path / "scene.yaml"
    path.write_text(yaml.safe_dump(data))
    given = []

    def build(context):
        return PerceptionNode(
            perception_factory=lambda s, pose: given.append(pose) or StandInCore(s, pose),
            context=context,
            parameter_overrides=overrides({"scene_file": str(path)}),
        )

    g = Graph([build])
    try:
        (pose,) = given
        assert pose == load_scene(path).camera.calibration.pose != scene.camera.pose
        np.testing.assert_allclose(pose.t, measured.t, atol=1e-6)
    finally:
        g.close()
