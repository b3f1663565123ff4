"""The skill executor (skill_node's core, no ROS) on a tower: a pick_place request naming
a cube with another on it runs on the top of that stack and follows the top cube's live
pose; a fourth level is refused at the door with the reason."""

import json

import numpy as np
import pytest

from miles_ros.runtime.observation import ObjectPose
from sims.tasks import pick_place
from tests.runtime.skill_fixtures import OBJECTS, make_executor, random_skill


@pytest.fixture(scope="module")
def pick_place_library(tmp_path_factory):
    root = tmp_path_factory.mktemp("skills")
    random_skill(root, "pick_place")
    return root


def on(below: ObjectPose, dx: float = 0.0) -> ObjectPose:
    """A cube resting on ``below``, shifted ``dx`` (m) in x."""
    return ObjectPose(below.position + [dx, 0.0, pick_place.CUBE_SIZE], 0.0)


def request(rid: str, obj: str, target: str) -> str:
    return json.dumps(
        {"id": rid, "skill": "pick_place", "params": {"object": obj, "target": target}}
    )


def test_a_request_naming_the_base_of_a_stack_runs_on_its_top(pick_place_library):
    ex = make_executor(pick_place_library, start_from_home=False)
    objects = dict(OBJECTS, red_cube=on(OBJECTS["blue_cube"], 0.004))
    ex.on_objects(objects)
    (running,) = ex.on_request(request("a", "green_cube", "blue_cube"), 0.0)
    assert running["state"] == "running", running["reason"]
    goal = ex.active.goal
    assert goal.stack_on == "red_cube"
    np.testing.assert_allclose(goal.goal_pos, pick_place.stack_goal(objects["red_cube"].position))
    np.testing.assert_allclose(goal.goal_pos[2], pick_place.level_height(3))


def test_a_fourth_level_is_refused_at_the_door(pick_place_library):
    ex = make_executor(pick_place_library, start_from_home=False)
    green = on(OBJECTS["blue_cube"])
    ex.on_objects(dict(OBJECTS, green_cube=green, red_cube=on(green)))
    (refusal,) = ex.on_request(request("b", "blue_cube", "red_cube"), 0.0)
    assert refusal["state"] == "failed" and refusal["reason"].startswith("refused: ")
    assert (
        "a tower is at most 3 cubes high: red_cube is already the third level"
        in (refusal["reason"])
    )
    assert ex.active is None
