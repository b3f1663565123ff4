"""sim_node's RGB-D camera over real rclpy on loopback: colour (rgb8), aligned depth
(16UC1, mm) and camera_info on the RealSense topics, with one stamp per frame, the scene
file's intrinsics, and a depth that agrees with a noise-free render of the same scene from
the camera's true pose (and puts a table pixel on the table); the truth-only switch moves
the object poses to /miles/scene/objects_truth."""

from __future__ import annotations

import os

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

import json  # noqa: E402

from sensor_msgs.msg import CameraInfo, Image  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.perception.images import decode_color, decode_depth  # noqa: E402
from miles_ros.ros.camera_process import FASTDDS_PROFILE, camera_environment  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS, IMAGE_QOS, SENSOR_QOS  # noqa: E402
from miles_ros.ros.sim_node import SimNode  # noqa: E402
from miles_ros.runtime.scene_world import SceneWorld  # noqa: E402
from sims.camera import back_project, project, to_scene  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import Graph, overrides  # noqa: E402


def stamp_of(msg) -> int:
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


@pytest.fixture(scope="module")
def camera_graph():
    g = Graph(
        [lambda ctx: SimNode(context=ctx, parameter_overrides=overrides({"publish_camera": True}))]
    )
    g.color, g.depth, g.info, g.arrivals = [], [], [], []
    clock = g.probe.get_clock()
    g.probe.create_subscription(
        Image,
        interfaces.CAMERA_COLOR,
        lambda m: g.arrivals.append((stamp_of(m), clock.now().nanoseconds)),
        IMAGE_QOS,
    )
    for kind, topic, store in (
        (Image, interfaces.CAMERA_COLOR, g.color),
        (Image, interfaces.CAMERA_DEPTH, g.depth),
        (CameraInfo, interfaces.CAMERA_INFO, g.info),
    ):
        g.probe.create_subscription(kind, topic, g._keep(store), IMAGE_QOS)
    yield g
    g.close()


def test_frames_come_as_a_realsense_sends_them_with_one_stamp(camera_graph):
    g = camera_graph
    cam = load_scene().camera

    def three_paired():
        common = {stamp_of(m) for m in g.color} & {stamp_of(m) for m in g.depth}
        return len(common & {stamp_of(m) for m in g.info}) >= 3

    g.wait(three_paired, timeout=90.0, what="three frames of colour, depth and camera_info")
    color, depth, info = g.color[-1], g.depth[-1], g.info[-1]
    stamps = sorted({stamp_of(m) for m in g.color})
    assert all(b > a for a, b in zip(stamps, stamps[1:], strict=False))
    for image, encoding, step in ((color, "rgb8", 640 * 3), (depth, "16UC1", 640 * 2)):
        assert (image.width, image.height, image.encoding, image.step) == (
            640,
            480,
            encoding,
            step,
        )
        assert image.header.frame_id == cam.frame_id
    assert (info.width, info.height, info.distortion_model) == (640, 480, "plumb_bob")
    assert info.header.frame_id == cam.frame_id
    np.testing.assert_allclose(np.reshape(info.k, (3, 3)), cam.intrinsics.K)
    np.testing.assert_allclose(
        info.p, [*cam.intrinsics.K[0], 0, *cam.intrinsics.K[1], 0, 0, 0, 1, 0]
    )
    assert list(info.d) == [0.0] * 5
    rgb = decode_color(color.encoding, color.height, color.width, color.step, color.data)
    assert rgb.std() > 10  # a scene, not a blank frame
    # Stamped at exposure, published the noise model's latency later, never earlier.
    latency_ns = cam.noise.latency_s * 1e9
    assert g.arrivals and all(at - stamp >= latency_ns for stamp, at in g.arrivals)


def test_the_camera_process_publishes_the_frames_in_exposure_order(camera_graph):
    """Two renderers work at once, yet frames arrive in the order they were exposed; the
    images come from the camera's own process (node sim_camera), never from sim_node."""
    g = camera_graph
    g.wait(lambda: len(g.arrivals) >= 6, timeout=90.0, what="six colour frames")
    stamps = [stamp for stamp, _ in list(g.arrivals)]
    assert all(b > a for a, b in zip(stamps, stamps[1:], strict=False)), stamps

    def publishers() -> dict[str, list[str]]:
        return {
            topic: [p.node_name for p in g.probe.get_publishers_info_by_topic(topic)]
            for topic in (interfaces.CAMERA_COLOR, interfaces.CAMERA_DEPTH, interfaces.CAMERA_INFO)
        }

    # Colour frames here say only that colour's writer was discovered: depth's and
    # camera_info's are discovered on their own, and a writer's node name comes with the
    # other process's ros_discovery_info (until then "_NODE_NAME_UNKNOWN_").
    g.wait(
        lambda: all(names == ["sim_camera"] for names in publishers().values()),
        timeout=90.0,
        what="sim_camera alone publishing colour, depth and camera_info",
    )
    assert "sim_camera" not in [n.get_name() for n in g.nodes]
    assert g.nodes[0].rgbd.failed == 0


def test_a_best_effort_reader_in_another_process_gets_the_frames(camera_graph):
    """perception_node reads the images best effort from another process than the camera's:
    with Fast DDS's default 512 kB shared-memory segment two frames in three were lost on a
    loaded machine; with the camera's profile (camera_fastdds.xml) they arrive."""
    g = camera_graph  # the same camera process: the reader is what this test adds
    color: list[Image] = []
    reader = g.probe.create_subscription(
        Image, interfaces.CAMERA_COLOR, g._keep(color), SENSOR_QOS
    )
    try:
        camera = g.nodes[0].rgbd
        g.wait(lambda: len(color) >= 1, timeout=90.0, what="a first frame")
        first, sent = len(color), camera.published
        g.wait(lambda: camera.published >= sent + 12, timeout=90.0, what="twelve more frames")
        g.wait(lambda: len(color) - first >= 0.75 * (camera.published - sent), what="them here")
    finally:
        g.probe.destroy_subscription(reader)


def test_the_camera_process_gets_the_fast_dds_profile_unless_one_is_set():
    env = camera_environment({"PYTHONPATH": "/elsewhere"})
    assert env["FASTDDS_DEFAULT_PROFILES_FILE"] == str(FASTDDS_PROFILE)
    assert FASTDDS_PROFILE.is_file() and "<segment_size>" in FASTDDS_PROFILE.read_text()
    assert env["PYTHONPATH"].endswith(os.pathsep + "/elsewhere")
    mine = {"FASTRTPS_DEFAULT_PROFILES_FILE": "/my/profile.xml"}
    assert "FASTDDS_DEFAULT_PROFILES_FILE" not in camera_environment(mine)
    cyclone = {"RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}
    assert "FASTDDS_DEFAULT_PROFILES_FILE" not in camera_environment(cyclone)


def test_depth_agrees_with_the_render_and_a_table_pixel_lies_on_the_table(camera_graph):
    g = camera_graph
    g.wait(lambda: len(g.depth) >= 1, timeout=90.0, what="a depth frame")
    msg = g.depth[-1]
    depth = decode_depth(msg.encoding, msg.height, msg.width, msg.step, msg.data)
    scene = load_scene()
    cam = scene.camera
    true_pose = g.nodes[0].rgbd.true_pose
    assert not np.allclose(true_pose.t, cam.pose.t)  # this run's calibration error
    # the pose `miles calibrate camera --camera-seed` measures for this camera_seed
    camera_seed = g.nodes[0].params.camera_seed
    assert true_pose == cam.mounted_pose(np.random.default_rng(camera_seed))
    world = SceneWorld(scene)
    try:
        _, rendered = world.render_rgbd(cam.intrinsics, true_pose)
    finally:
        world.close()
    valid = depth > 0
    assert valid.mean() > 0.9  # the edges and speckle drop only a few pixels
    diff = np.abs(depth[valid] - rendered[valid])
    # 2.5 mm * z^2 at z ~ 1 m, quantised to mm
    assert np.median(diff) < 0.004 and np.mean(diff < 0.02) > 0.99
    # A bare table pixel (between the pads, away from the cubes), back-projected through
    # the calibrated (believed) pose: on the table top within the noise and the
    # calibration error.
    ((u, v),), _ = project(np.array([[0.7, 0.0, 0.0]]), cam.intrinsics, cam.pose)
    u, v = int(round(u)), int(round(v))
    patch = depth[v - 2 : v + 3, u - 2 : u + 3]
    us, vs = np.meshgrid(np.arange(u - 2, u + 3), np.arange(v - 2, v + 3))
    ok = patch > 0
    points = to_scene(back_project(us[ok], vs[ok], patch[ok], cam.intrinsics), cam.pose)
    assert ok.sum() >= 20
    assert abs(float(np.median(points[:, 2]))) < 0.02
    np.testing.assert_allclose(np.median(points[:, :2], axis=0), [0.7, 0.0], atol=0.03)


def test_truth_only_moves_the_object_poses_to_the_truth_topic():
    g = Graph(
        [
            lambda ctx: SimNode(
                context=ctx, parameter_overrides=overrides({"publish_truth_only": True})
            )
        ]
    )
    try:
        truth: list[dict] = []
        g.probe.create_subscription(
            String, interfaces.SCENE_OBJECTS_TRUTH, g._keep(truth, json.loads), COMMAND_QOS
        )
        g.wait(lambda: len(truth) >= 3, what="true object poses")
        assert set(truth[-1]["objects"]) == set(load_scene().objects)
        assert g.probe.count_publishers(interfaces.SCENE_OBJECTS) == 0
        assert g.objects == []  # the probe listens on /miles/scene/objects
    finally:
        g.close()


def scene_with_camera_noise(tmp_path, scene_file: str, **noise) -> str:
    """``scene_file`` with its camera's noise model set to ``noise``."""
    import yaml

    data = yaml.safe_load(open(scene_file, encoding="utf-8"))
    data["camera"]["noise"] = noise
    path = tmp_path / "scene.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def test_a_dropped_frame_never_arrives(tmp_path):
    scene = scene_with_camera_noise(tmp_path, "config/scene.yaml", drop_probability=1.0)
    params = {"publish_camera": True, "scene_file": scene}
    g = Graph([lambda ctx: SimNode(context=ctx, parameter_overrides=overrides(params))])
    try:
        color: list[Image] = []
        g.probe.create_subscription(Image, interfaces.CAMERA_COLOR, g._keep(color), IMAGE_QOS)
        camera = g.nodes[0].rgbd
        g.wait(lambda: camera.dropped >= 3, timeout=90.0, what="three frames dropped")
        assert camera.published == 0 and color == []
    finally:
        g.close()


def test_the_cell_camera_sees_both_arms_from_its_own_pose():
    params = {"publish_camera": True, "scene_file": "config/scene_dual.yaml"}
    g = Graph([lambda ctx: SimNode(context=ctx, parameter_overrides=overrides(params))])
    try:
        infos: list[CameraInfo] = []
        depth: list[Image] = []
        g.probe.create_subscription(CameraInfo, interfaces.CAMERA_INFO, g._keep(infos), IMAGE_QOS)
        g.probe.create_subscription(Image, interfaces.CAMERA_DEPTH, g._keep(depth), IMAGE_QOS)
        g.wait(lambda: infos and depth, timeout=90.0, what="a frame of the cell's camera")
        cam = load_scene("config/scene_dual.yaml").camera
        np.testing.assert_allclose(np.reshape(infos[-1].k, (3, 3)), cam.intrinsics.K)
        msg = depth[-1]
        metres = decode_depth(msg.encoding, msg.height, msg.width, msg.step, msg.data)
        assert (metres > 0).mean() > 0.5
    finally:
        g.close()
