"""A turn request at the skill executor: refused before any motion while the library has
no trained turn skill; resolved to the cube in place and its goal yaw once it has one."""

import json
import math

import numpy as np
import pytest

import sims
from miles_ros.interfaces import FAILED, REFUSED_PREFIX, RUNNING, SKILL_INPUTS
from miles_ros.runtime.observation import ObjectPose
from tests.runtime.skill_fixtures import OBJECTS, make_executor, random_skill


def request(rid: str, **params) -> str:
    return json.dumps({"id": rid, "skill": "turn", "params": params})


def test_a_turn_request_without_a_trained_turn_skill_is_refused_before_any_motion(library_dir):
    ex = make_executor(library_dir)  # reach and push only, as the library before turn
    (out,) = ex.on_request(request("t1", object="red_cube", angle=45), 0.0)
    assert out["state"] == FAILED and out["reason"].startswith(REFUSED_PREFIX)
    assert "unknown skill 'turn'" in out["reason"] and "available:" in out["reason"]
    assert ex.active is None and ex.active_tags() == {"skill": "", "tags": []}
    assert ex.tick(0.04).targets is None  # nothing is commanded


def _has_turn_task() -> bool:
    try:
        sims.get_task("turn")
    except (KeyError, ValueError, ImportError):
        return False
    return True


@pytest.mark.skipif(
    not _has_turn_task(),
    reason="the turn task (sims/tasks/turn.py) is not in this checkout yet: it comes with "
    "the trained skill's branch",
)
def test_a_trained_turn_skill_runs_on_the_cube_in_place_with_its_goal_yaw(tmp_path):
    random_skill(tmp_path, "turn")
    ex = make_executor(tmp_path, start_from_home=False)
    cube = OBJECTS["red_cube"]
    ex.on_objects({**OBJECTS, "red_cube": ObjectPose(cube.position, 0.3)})
    (started,) = ex.on_request(request("t2", object="red_cube", angle=-30), 0.0)
    assert started["state"] == RUNNING, started
    goal = ex.active.goal
    np.testing.assert_allclose(goal.goal_pos[:2], cube.position[:2])
    assert goal.goal_yaw == pytest.approx(0.3 - math.radians(30))
    assert ex.active_tags()["tags"] == ["moves_arm", "contact"]
    running = [s for s in ex.tick(0.04).statuses if SKILL_INPUTS in s]
    assert running and running[0][SKILL_INPUTS]["goal_yaw"] == pytest.approx(goal.goal_yaw)
