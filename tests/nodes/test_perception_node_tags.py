"""perception_node in ``mode: apriltag`` over real rclpy on loopback, fed recorded
real-format messages as the colour mode's test is (a rendered frame of
config/scene_tags.yaml as rgb8 + 16UC1 in mm, a camera_info with plumb_bob distortion
coefficients): it publishes each tagged cube where it stands; a mode it does not know,
or apriltag on a scene without tags, stops it at start with the reason."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from miles_ros.interfaces import PERCEPTION_APRILTAG  # noqa: E402
from miles_ros.perception import yaw_difference  # noqa: E402
from miles_ros.perception.calibration import PARKED_JOINTS  # noqa: E402
from miles_ros.perception.tags import TagDetector  # noqa: E402
from miles_ros.ros.perception_node import PerceptionNode  # noqa: E402
from miles_ros.runtime.scene_world import BodyPose, SceneWorld  # noqa: E402
from sims.camera import project  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import Graph, overrides  # noqa: E402
from tests.nodes.test_perception_node import Camera  # noqa: E402

TAGS_SCENE = str(Path(__file__).resolve().parents[2] / "config" / "scene_tags.yaml")
POSES = {
    "red_cube": (0.45, -0.12, 20.0),
    "green_cube": (0.52, 0.05, -30.0),
    "blue_cube": (0.38, 0.16, 40.0),
}
"""Where the cubes stand (x, y m, yaw deg): turned so every tag is decoded."""
XY_TOLERANCE_M = 0.003


@pytest.fixture(scope="module")
def frame():
    """A noise-free frame of the tagged scene from where the node believes its camera is
    (its calibration; the mounting error is calibration's to measure): (rgb uint8,
    depth mm)."""
    scene = load_scene(TAGS_SCENE)
    world = SceneWorld(scene)
    try:
        poses = {
            name: BodyPose(
                (x, y, 0.02),
                (0.0, 0.0, math.sin(math.radians(w) / 2), math.cos(math.radians(w) / 2)),
            )
            for name, (x, y, w) in POSES.items()
        }
        world.mirror([*PARKED_JOINTS, *[panda.finger_position_max] * 2], poses)
        rgb, depth = world.render_rgbd(scene.camera.intrinsics, scene.camera.believed_pose)
    finally:
        world.close()
    return rgb, np.clip(np.rint(depth * 1000.0), 0, 65535).astype(np.uint16)


def test_recorded_frames_become_the_tagged_cubes_poses(frame):
    camera = Camera("real", {"mode": PERCEPTION_APRILTAG, "scene_file": TAGS_SCENE})
    try:
        assert isinstance(camera.node.perception.detector, TagDetector)
        camera.send_until(frame, lambda: camera.node.frames >= 2)
        camera.g.wait(
            lambda: any(len(p["objects"]) == 3 for p in camera.g.objects),
            what="the three tagged cubes from the camera",
        )
        payload = next(p for p in reversed(camera.g.objects) if len(p["objects"]) == 3)
        assert payload["source"] == "camera" and payload["missing"] == {}
        for name, (x, y, yaw_deg) in POSES.items():
            got = payload["objects"][name]
            assert got["source"] == "camera" and got["state"] == "seen"
            assert np.linalg.norm(np.subtract(got["position"][:2], (x, y))) < XY_TOLERANCE_M
            assert math.degrees(yaw_difference(got["yaw"], math.radians(yaw_deg))) < 3.0
        assert camera.node.refused == 0
    finally:
        camera.close()


def test_a_tag_not_in_view_lists_its_cube_as_missing_with_the_reason(frame):
    rgb, depth = frame
    rgb = rgb.copy()
    scene = load_scene(TAGS_SCENE)
    x, y, _ = POSES["red_cube"]
    uv, _ = project(np.array([[x, y, 0.04]]), scene.camera.intrinsics, scene.camera.pose)
    u, v = np.rint(uv[0]).astype(int)
    rgb[v - 15 : v + 15, u - 15 : u + 15] = 200  # a grey hand over its tag
    camera = Camera("real", {"mode": PERCEPTION_APRILTAG, "scene_file": TAGS_SCENE})
    try:
        camera.send_until((rgb, depth), lambda: camera.node.frames >= 1)
        camera.g.wait(lambda: any(p["objects"] for p in camera.g.objects), what="objects")
        payload = next(p for p in reversed(camera.g.objects) if p["objects"])
        assert set(payload["objects"]) == {"green_cube", "blue_cube"}
        assert payload["missing"]["red_cube"].startswith("red_cube not seen: its tag 0")
    finally:
        camera.close()


@pytest.mark.parametrize(
    "parameters, message",
    [
        ({"mode": "lidar"}, "mode must be one of colour, apriltag, got 'lidar'"),
        ({"mode": PERCEPTION_APRILTAG}, "mode apriltag: no cube of the scene"),
    ],
)
def test_a_mode_the_scene_cannot_serve_stops_the_node_with_the_reason(parameters, message):
    with pytest.raises(ValueError, match=message):
        Graph(
            [
                lambda context: PerceptionNode(
                    context=context, parameter_overrides=overrides(parameters)
                )
            ]
        )
