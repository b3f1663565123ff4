"""AprilTags in the scene file (``tag: {id, size}``): validated with clear errors, kept out
of the default scene, and drawn by the simulator on the cube's top face only (the tag
made from OpenCV's tag36h11 dictionary at run time, the cube's colour elsewhere)."""

from __future__ import annotations

import dataclasses
import math
import os
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from sims.camera import project
from sims.scene import CubeTag, default_scene_path, load_scene, parse_scene
from sims.tags import (
    TAG_CELLS,
    TAG_COUNT,
    TEXTURE_PIXELS_PER_CELL,
    tag_dictionary,
    tag_image,
    texture_file,
)

TAGS_SCENE = Path(__file__).resolve().parents[2] / "config" / "scene_tags.yaml"


def default_data() -> dict:
    return yaml.safe_load(default_scene_path().read_text())


def test_the_default_scene_is_untagged_and_scene_tags_is_it_with_tags():
    plain, tagged = load_scene(), load_scene(TAGS_SCENE)
    assert all(o.tag is None for o in plain.objects.values()) and plain.tags == {}
    assert tagged.tags == {0: "red_cube", 1: "green_cube", 2: "blue_cube"}
    assert all(o.tag.size == 0.03 for o in tagged.objects.values())
    untagged = {n: dataclasses.replace(o, tag=None) for n, o in tagged.objects.items()}
    # each file's gripper.calibration is its own `miles calibrate gripper` run: the same
    # measurement, its own date and command
    measured = (tagged.gripper.calibration, plain.gripper.calibration)
    assert measured[0].finger_offset_m == measured[1].finger_offset_m
    same_run = dataclasses.replace(
        tagged.gripper,
        calibration=dataclasses.replace(
            measured[0], date=measured[1].date, command=measured[1].command
        ),
    )
    assert dataclasses.replace(tagged, objects=untagged, gripper=same_run) == plain


def test_a_tag_is_read_from_the_scene_file():
    data = default_data()
    data["objects"]["red_cube"]["tag"] = {"id": 586, "size": 0.04}
    scene = parse_scene(data)
    assert scene.objects["red_cube"].tag == CubeTag(id=586, size=0.04)
    assert scene.objects["green_cube"].tag is None and scene.tags == {586: "red_cube"}


@pytest.mark.parametrize(
    "tags, message",
    [
        (
            {"red_cube": {"id": 3, "size": 0.03}, "blue_cube": {"id": 3, "size": 0.03}},
            "objects.blue_cube.tag.id: tag 3 is already on red_cube",
        ),
        (
            {"red_cube": {"id": 3, "size": 0.05}},
            "objects.red_cube.tag.size: 0.05 m is larger than the cube's top face (0.04 m)",
        ),
        ({"red_cube": {"id": TAG_COUNT, "size": 0.03}}, "tag.id: expected a tag36h11 id"),
        ({"red_cube": {"id": -1, "size": 0.03}}, "whole number 0-586"),
        ({"red_cube": {"id": True, "size": 0.03}}, "tag.id: expected a tag36h11 id"),
        ({"red_cube": {"id": 1.5, "size": 0.03}}, "tag.id: expected a tag36h11 id"),
        ({"red_cube": {"id": 1, "size": 0}}, "tag.size: must be > 0"),
        ({"red_cube": {"id": 1, "size": "big"}}, "tag.size"),
        ({"red_cube": {"id": 1}}, "red_cube.tag: expected a mapping of id, size"),
        ({"red_cube": {"id": 1, "size": 0.03, "family": "16h5"}}, "a mapping of id, size"),
        ({"red_cube": 7}, "red_cube.tag: expected a mapping"),
    ],
)
def test_bad_tags_are_refused_naming_the_problem(tmp_path, tags, message):
    data = default_data()
    for name, tag in tags.items():
        data["objects"][name]["tag"] = tag
    path = tmp_path / "tags.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ValueError, match=re.escape(message)):
        load_scene(path)


def test_tag_images_come_from_the_tag36h11_dictionary():
    image = tag_image(17, pixels_per_cell=4)
    assert image.shape == (TAG_CELLS * 4, TAG_CELLS * 4)
    assert set(np.unique(image)) == {0, 255}
    assert (image[:4] == 0).all() and (image[:, -4:] == 0).all()  # the black border
    corners, ids, _ = cv2.aruco.ArucoDetector(tag_dictionary()).detectMarkers(
        np.pad(image, 16, constant_values=255)
    )
    assert ids.ravel().tolist() == [17]
    with pytest.raises(ValueError, match="0-586"):
        tag_image(TAG_COUNT)


def test_a_texture_is_made_once_in_the_temp_directory():
    color = (0.85, 0.15, 0.15, 1.0)
    path = texture_file(5, 0.03, 0.04, color)
    assert os.path.isfile(path) and "tag36h11_5_" in os.path.basename(path)
    made = os.path.getmtime(path)
    assert texture_file(5, 0.03, 0.04, color) == path and os.path.getmtime(path) == made
    assert texture_file(5, 0.03, 0.04, (0.1, 0.2, 0.8, 1.0)) != path
    face = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)
    margin = (face.shape[0] - TAG_CELLS * TEXTURE_PIXELS_PER_CELL) // 2
    assert tuple(face[1, 1]) == (217, 38, 38)  # the cube's colour around the tag
    assert (face[margin + 2, margin + 2 : -margin - 2] == 0).all()  # the tag's border


def test_the_simulator_draws_the_tag_on_the_top_face_and_the_colour_elsewhere():
    from miles_ros.perception.calibration import HIDDEN_Z, PARKED_JOINTS
    from miles_ros.runtime.scene_world import BodyPose, SceneWorld
    from sims.robots import panda

    tagged, plain = load_scene(TAGS_SCENE), load_scene()
    cam = plain.camera
    yaw = math.radians(30.0)
    cube = BodyPose((0.45, 0.0, 0.02), (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)))
    frames = []
    for scene in (tagged, plain):
        world = SceneWorld(scene)
        try:
            hidden = BodyPose((0.0, 0.0, HIDDEN_Z), (0.0, 0.0, 0.0, 1.0))  # under the table
            poses = {"red_cube": cube, "green_cube": hidden, "blue_cube": hidden}
            world.mirror([*PARKED_JOINTS, *[panda.finger_position_max] * 2], poses)
            frames.append(world.world.render_rgbd(cam.intrinsics, cam.pose)[0].astype(int))
        finally:
            world.close()
    # the tag's square on the top face, as the camera sees it (a pixel wider all round)
    h = 0.015 + 0.0015
    c, s = math.cos(yaw), math.sin(yaw)
    square = [
        (0.45 + c * x - s * y, s * x + c * y, 0.04)
        for x, y in [(-h, -h), (h, -h), (h, h), (-h, h)]
    ]
    uv, _ = project(np.array(square), cam.intrinsics, cam.pose)
    inside = np.zeros(frames[0].shape[:2], dtype=np.uint8)
    cv2.fillConvexPoly(inside, np.rint(uv).astype(np.int32), 1)
    inside = inside.astype(bool)
    difference = np.abs(frames[0] - frames[1]).max(axis=-1)
    assert (difference[~inside] <= 2).all()  # the cube's colour elsewhere
    grey = frames[0][inside].mean(axis=-1)
    assert (grey < 40).mean() > 0.3 and (grey > 200).mean() > 0.1  # black and white
    assert (difference[inside] > 40).mean() > 0.5
