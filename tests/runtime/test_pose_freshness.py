"""No motion from a stale or missing pose (ROS-free): when each object was seen comes
from the payload (the object's own stamp, a perception node's, else the message's), the
executor refuses a request naming an object listed missing or seen longer ago than
``max_pose_age_s``, with the reason; the pose parser and the goal resolver ignore the
keys a perception node adds."""

from __future__ import annotations

import json

import numpy as np

from miles_ros.runtime.goals import resolve_goal
from miles_ros.runtime.observation import parse_freshness, parse_objects, pose_refusal
from tests.runtime.skill_fixtures import OBJECTS, SCENE, make_executor

CAMERA_KEYS = {"source": "camera", "confidence": 0.9, "std": 0.002, "state": "visible"}


def camera_payload(stamp: float, seen: dict[str, float], missing=None) -> dict:
    """A perception node's /miles/scene/objects: the cubes of ``seen`` at their scene poses,
    each seen at its time, the others listed missing."""
    objects = {
        name: {
            "position": list(SCENE.objects[name].position),
            "orientation": [0.0, 0.0, 0.0, 1.0],
            "yaw": 0.0,
            "stamp": t,
            "age": stamp - t,
            **CAMERA_KEYS,
        }
        for name, t in seen.items()
    }
    return {
        "stamp": stamp,
        "frame_id": "panda_link0",
        "source": "camera",
        "objects": objects,
        "places": {},
        "missing": missing or {},
    }


def test_each_object_is_aged_by_its_own_stamp_else_the_messages():
    payload = camera_payload(10.0, {"red_cube": 9.2, "green_cube": 9.9}, {"blue_cube": "occluded"})
    payload["objects"]["green_cube"].pop("stamp")  # falls back to the message's stamp
    stamps, missing = parse_freshness(payload)
    assert stamps == {"red_cube": 9.2, "green_cube": 10.0}
    assert missing == {"blue_cube": "occluded"}
    assert parse_freshness({"objects": {"red_cube": {"position": [0, 0, 0]}}}) == ({}, {})


def test_the_refusal_names_the_object_and_why():
    stamps, missing = {"red_cube": 9.2, "green_cube": 9.9}, {"blue_cube": "occluded by the arm"}
    assert pose_refusal(["green_cube"], stamps, missing, 10.0, 0.5) == ""
    why = pose_refusal(["green_cube", "red_cube"], stamps, missing, 10.0, 0.5)
    assert why.startswith("the pose of red_cube is 0.80 s old")
    assert pose_refusal(["blue_cube"], stamps, missing, 10.0, 0.5) == (
        "no pose of blue_cube: occluded by the arm"
    )
    assert pose_refusal(["red_cube"], stamps, missing, 10.0, 0.0) == ""  # no bound
    assert pose_refusal(["blue_cube"], stamps, missing, 10.0, 0.0) != ""  # missing still


def test_the_parser_and_the_resolver_ignore_the_cameras_extra_keys():
    payload = json.loads(json.dumps(camera_payload(5.0, dict.fromkeys(SCENE.objects, 4.99))))
    poses = parse_objects(payload)
    assert set(poses) == set(SCENE.objects)
    # to the right pad: the left one lies past green (refused)
    goal = resolve_goal("push", {"object": "red_cube", "target": "right_pad"}, SCENE, poses)
    assert goal.object_name == "red_cube"
    np.testing.assert_allclose(poses["red_cube"].position, SCENE.objects["red_cube"].position)


REACH = {"id": "r", "skill": "reach", "params": {"target": "red_cube"}}


def test_the_executor_refuses_a_stale_or_missing_pose_before_any_motion(library_dir):
    ex = make_executor(library_dir, max_pose_age_s=0.5)
    request = REACH
    payload = camera_payload(10.0, {"red_cube": 9.0, "green_cube": 10.0, "blue_cube": 10.0})
    ex.on_objects(parse_objects(payload), *parse_freshness(payload))
    (refused,) = ex.on_request(request, 10.0)
    assert refused["state"] == "failed" and ex.active is None
    assert refused["reason"].startswith("refused: the pose of red_cube is 1.00 s old")
    payload = camera_payload(
        10.0, {"green_cube": 10.0}, {"red_cube": "not seen", "blue_cube": "x"}
    )
    ex.on_objects(parse_objects(payload), *parse_freshness(payload))
    (refused,) = ex.on_request(request, 10.1)
    assert refused["reason"] == "refused: no pose of red_cube: not seen" and ex.active is None
    payload = camera_payload(10.0, dict.fromkeys(SCENE.objects, 9.8))
    ex.on_objects(parse_objects(payload), *parse_freshness(payload))
    (running,) = ex.on_request(request, 10.1)
    assert running["state"] == "running", running["reason"]


def test_poses_without_stamps_are_not_aged(library_dir):
    """The executor fed poses alone (a caller with no stamps): no age bound applies."""
    ex = make_executor(library_dir, max_pose_age_s=0.5)
    ex.on_objects(OBJECTS)
    (running,) = ex.on_request(REACH, 1e6)
    assert running["state"] == "running", running["reason"]
