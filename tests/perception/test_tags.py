"""The AprilTag mode: tagged cubes rendered by PyBullet (config/scene_tags.yaml) found by
:class:`~miles_ros.perception.tags.TagDetector` at known poses, through a distorting lens
too; ids no cube carries ignored, an id seen twice refused for its cube with the reason,
a cube whose tag is not in view listed with the reason."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from miles_ros.interfaces import PERCEPTION_APRILTAG
from miles_ros.perception import Perception, PerceptionConfig, yaw_difference
from miles_ros.perception.calibration import PARKED_JOINTS
from miles_ros.perception.tags import TagConfig, TagDetector, make_detector
from miles_ros.runtime.scene_world import BodyPose, SceneWorld
from sims.camera import CameraIntrinsics, add_noise
from sims.robots import panda
from sims.scene import CubeTag, load_scene

TAGGED = load_scene(Path(__file__).resolve().parents[2] / "config" / "scene_tags.yaml")
CAM = TAGGED.camera
PARKED = [*PARKED_JOINTS, panda.finger_position_max, panda.finger_position_max]
XY_TOLERANCE_M = 0.003
"""A tagged cube's centre within this of the truth (m): a pixel is ~1.5 mm at the table,
and the rendered frames carry the camera's noise model."""
YAW_TOLERANCE_DEG = 3.0
"""Its yaw within this (deg, modulo 90): the four corners of a tag ~20 px across."""


def pose(x: float, y: float, yaw_deg: float, z: float = 0.02) -> BodyPose:
    half = math.radians(yaw_deg) / 2
    return BodyPose((x, y, z), (0.0, 0.0, math.sin(half), math.cos(half)))


def retagged(scene, **tags: int):
    """``scene`` with these cubes' tag ids changed (no validation: to render what a scene
    file may not say)."""
    objects = {
        name: dataclasses.replace(o, tag=CubeTag(tags[name], o.tag.size)) if name in tags else o
        for name, o in scene.objects.items()
    }
    return dataclasses.replace(scene, objects=objects)


@pytest.fixture(scope="module")
def render():
    """render(poses, scene=TAGGED, seed=0, intrinsics=its camera's) -> (rgb, depth m): a
    frame of the scene's camera with its noise model, the arm turned away."""
    worlds: dict[int, SceneWorld] = {}

    def frame(poses, scene=TAGGED, seed=0, intrinsics=CAM.intrinsics):
        world = worlds.get(id(scene))
        if world is None:
            world = worlds[id(scene)] = SceneWorld(scene)
        world.mirror(PARKED, poses)
        rgb, depth = world.world.render_rgbd(intrinsics, CAM.pose)
        return add_noise(rgb, depth, CAM.noise, np.random.default_rng(seed))

    yield frame
    for world in worlds.values():
        world.close()


SPREAD = {
    "red_cube": pose(0.3, -0.2, 25.0),
    "green_cube": pose(0.6, 0.2, -15.0),
    "blue_cube": pose(0.4, 0.25, 35.0),
}
"""The three cubes apart, each turned so that its tag is decoded (a tag square to the
image far from the camera, its rows under 2 px a cell, may not be: docs/perception.md)."""


@pytest.mark.parametrize(
    "x, y, yaw_deg",
    [
        (0.45, -0.05, 0.0),
        (0.5, -0.15, 17.0),
        (0.36, 0.0, 33.0),
        (0.55, 0.1, -40.0),
        (0.42, 0.12, 71.0),
    ],
)
def test_a_rendered_tagged_cube_is_found_at_its_pose(render, x, y, yaw_deg):
    poses = {**SPREAD, "red_cube": pose(x, y, yaw_deg)}
    rgb, depth = render(poses, seed=int(x * 100))
    found, reasons = TagDetector(TAGGED, CAM.pose).detect(rgb, depth, CAM.intrinsics)
    assert set(found) == set(TAGGED.objects), reasons
    d = found["red_cube"]
    assert np.linalg.norm(d.position[:2] - (x, y)) < XY_TOLERANCE_M
    assert d.position[2] == pytest.approx(0.02, abs=0.002)
    assert math.degrees(yaw_difference(d.yaw, math.radians(yaw_deg))) < YAW_TOLERANCE_DEG
    assert d.coverage == 1.0 and d.top_points >= TagConfig().min_depth_points


def test_the_depth_at_the_tag_refines_the_corners_pose(render):
    """The corners alone (IPPE on a tag ~20 px across) put the cube centimetres off; the
    depth brings it within the tolerance: why the detector uses it."""
    poses = {**SPREAD, "red_cube": pose(0.5, 0.0, 20.0)}
    rgb, depth = render(poses, seed=3)
    refined, _ = TagDetector(TAGGED, CAM.pose).detect(rgb, depth, CAM.intrinsics)
    corners, _ = TagDetector(TAGGED, CAM.pose, TagConfig(use_depth=False)).detect(
        rgb, depth, CAM.intrinsics
    )
    worst = [
        max(np.linalg.norm(found[n].position - truth.position) for n, truth in poses.items())
        for found in (refined, corners)
    ]
    assert worst[0] < XY_TOLERANCE_M < worst[1]
    # without depth at the tag, the corners alone still give a pose
    blind = depth.copy()
    blind[:] = 0.0
    found, _ = TagDetector(TAGGED, CAM.pose).detect(rgb, blind, CAM.intrinsics)
    assert set(found) == set(TAGGED.objects) and found["red_cube"].top_points == 0


def distorted(render, poses, lens: CameraIntrinsics, scale: int = 4):
    """A frame of ``poses`` as a camera with ``lens``'s distortion takes it: each distorted
    pixel shows what the pinhole camera sees along its undistorted ray, looked up in a
    pinhole frame rendered ``scale`` times finer (resampling the camera's own frame would
    blur tags of 2 px a cell away); the depth along the view is the same point's."""
    fine = CameraIntrinsics(
        lens.width * scale,
        lens.height * scale,
        lens.fx * scale,
        lens.fy * scale,
        (lens.cx + 0.5) * scale - 0.5,
        (lens.cy + 0.5) * scale - 0.5,
    )
    rgb, depth = render(poses, intrinsics=fine)
    v, u = np.mgrid[0 : lens.height, 0 : lens.width].astype(np.float32)
    pixels = np.column_stack([u.ravel(), v.ravel()]).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(pixels, lens.K, np.asarray(lens.distortion), P=lens.K)
    ideal = (ideal[:, 0] + 0.5) * scale - 0.5  # in the fine frame's pixels
    map_u, map_v = (ideal[:, i].reshape(u.shape).astype(np.float32) for i in (0, 1))
    return (
        cv2.remap(rgb, map_u, map_v, cv2.INTER_LINEAR),
        cv2.remap(depth, map_u, map_v, cv2.INTER_NEAREST),
    )


def test_a_lens_with_distortion_is_undone(render):
    k = CAM.intrinsics
    lens = dataclasses.replace(k, distortion=(-0.25, 0.08, 0.001, -0.001, 0.0))
    poses = {
        "red_cube": pose(0.6, -0.28, 25.0),  # towards the picture's corners
        "green_cube": pose(0.36, 0.26, -30.0),
        "blue_cube": pose(0.45, 0.0, 35.0),
    }
    rgb, depth = distorted(render, poses, lens)
    found, reasons = TagDetector(TAGGED, CAM.pose).detect(rgb, depth, lens)
    assert set(found) == set(poses), reasons
    for name, truth in poses.items():
        assert np.linalg.norm(found[name].position[:2] - truth.position[:2]) < XY_TOLERANCE_M
    # read as if undistorted, the corner cube lands well outside the tolerance: the test
    # has teeth
    wrong, _ = TagDetector(TAGGED, CAM.pose).detect(rgb, depth, k)
    assert np.linalg.norm(wrong["red_cube"].position[:2] - (0.6, -0.28)) > 2 * XY_TOLERANCE_M


def test_an_id_no_cube_carries_is_ignored(render):
    rgb, depth = render(SPREAD, scene=retagged(TAGGED, red_cube=300))
    found, reasons = TagDetector(TAGGED, CAM.pose).detect(rgb, depth, CAM.intrinsics)
    assert set(found) == {"green_cube", "blue_cube"}
    assert reasons == {"red_cube": "red_cube not seen: its tag 0 (tag36h11) not found"}


def test_a_tag_seen_twice_is_refused_for_its_cube_with_the_reason(render):
    rgb, depth = render(SPREAD, scene=retagged(TAGGED, green_cube=0))  # two tags 0
    found, reasons = TagDetector(TAGGED, CAM.pose).detect(rgb, depth, CAM.intrinsics)
    assert set(found) == {"blue_cube"}
    assert reasons["red_cube"].startswith("red_cube ambiguous: its tag 0 seen 2 times, at pixels")
    assert "green_cube not seen: its tag 1" in reasons["green_cube"]


def test_a_cube_out_of_view_or_without_a_tag_says_why(render):
    far = {**SPREAD, "blue_cube": pose(3.0, 2.0, 0.0)}
    rgb, depth = render(far)
    untagged = dataclasses.replace(
        TAGGED,
        objects={
            **TAGGED.objects,
            "green_cube": dataclasses.replace(TAGGED.objects["green_cube"], tag=None),
        },
    )
    found, reasons = TagDetector(untagged, CAM.pose).detect(rgb, depth, CAM.intrinsics)
    assert set(found) == {"red_cube"}
    assert reasons["blue_cube"] == "blue_cube not seen: its tag 2 (tag36h11) not found"
    assert "green_cube has no tag in the scene file" in reasons["green_cube"]


def test_the_pipeline_in_apriltag_mode_publishes_the_tagged_poses(render):
    poses = {**SPREAD, "green_cube": pose(0.5, 0.05, 25.0)}
    rgb, depth = render(poses, seed=5)
    perception = Perception(TAGGED, CAM.pose, PerceptionConfig(mode=PERCEPTION_APRILTAG))
    assert isinstance(perception.detector, TagDetector)
    perception.set_intrinsics(CAM.intrinsics)
    perception.on_frame(rgb, depth, stamp=1.0)
    objects = perception.payload(1.0, "panda_link0")["objects"]
    for name, truth in poses.items():
        got = objects[name]
        assert got["state"] == "seen" and got["source"] == "camera"
        assert (
            np.linalg.norm(np.subtract(got["position"][:2], truth.position[:2])) < XY_TOLERANCE_M
        )
    assert math.degrees(yaw_difference(objects["green_cube"]["yaw"], math.radians(25.0))) < 3.0


def test_an_unknown_mode_is_refused_naming_the_modes():
    with pytest.raises(
        ValueError, match="unknown perception mode 'sonar'; known: colour, apriltag"
    ):
        make_detector("sonar", TAGGED, CAM.pose)
