"""Skill parameters -> goal positions (the skill cards' goal mapping)."""

import numpy as np
import pytest

from miles_ros.runtime.goals import HOVER_HEIGHT, GoalError, resolve_goal
from miles_ros.runtime.observation import ObjectPose
from sims.scene import load_scene
from sims.tasks import push

SCENE = load_scene()
LIVE = {
    n: ObjectPose(np.array(o.position) + [0.01, 0.0, 0.0], 0.0) for n, o in SCENE.objects.items()
}


def test_reach_targets_hover_above_live_cubes_and_pads_or_are_points():
    goal = resolve_goal("reach", {"target": "red_cube"}, SCENE, LIVE)
    expected = LIVE["red_cube"].position + [0.0, 0.0, HOVER_HEIGHT]
    np.testing.assert_allclose(goal.goal_pos, expected)  # the live pose, not the file's
    assert goal.object_name is None
    pad = resolve_goal("reach", {"target": "left_pad"}, SCENE, LIVE)
    np.testing.assert_allclose(pad.goal_pos, [0.55, 0.25, HOVER_HEIGHT])
    point = resolve_goal("reach", {"target": [0.4, 0.1, 0.3]}, SCENE, LIVE)
    np.testing.assert_allclose(point.goal_pos, [0.4, 0.1, 0.3])


@pytest.mark.parametrize("task", ["push", "pick_place"])
def test_object_tasks_put_pad_goals_at_the_cube_rest_height(task):
    # red's path to the right pad is clear (blue's passes red: the push card refuses it)
    goal = resolve_goal(task, {"object": "red_cube", "target": "right_pad"}, SCENE, LIVE)
    assert goal.object_name == "red_cube"
    np.testing.assert_allclose(goal.goal_pos, [0.55, -0.25, push.CUBE_REST_Z])


def test_push_ignores_z_and_pick_place_keeps_air_goals():
    # a point away from the other cubes ((0.5, 0.1) lies past green: refused, see
    # tests/runtime/test_push_path.py)
    goal = resolve_goal("push", {"object": "red_cube", "target": [0.4, -0.2, 0.3]}, SCENE, LIVE)
    np.testing.assert_allclose(goal.goal_pos, [0.4, -0.2, push.CUBE_REST_Z])
    goal = resolve_goal("push", {"object": "red_cube", "target": [0.4, -0.2]}, SCENE, LIVE)
    np.testing.assert_allclose(goal.goal_pos, [0.4, -0.2, push.CUBE_REST_Z])
    air = resolve_goal(
        "pick_place", {"object": "red_cube", "target": [0.5, 0.1, 0.2]}, SCENE, LIVE
    )
    np.testing.assert_allclose(air.goal_pos, [0.5, 0.1, 0.2])


def test_unknown_names_and_missing_poses_are_errors_that_say_why():
    with pytest.raises(GoalError, match="known: red_cube"):
        resolve_goal("reach", {"target": "purple_cube"}, SCENE, LIVE)
    with pytest.raises(GoalError, match="no pose received"):
        resolve_goal("push", {"object": "red_cube", "target": "left_pad"}, SCENE, {})
    with pytest.raises(GoalError, match="no pad"):
        resolve_goal("push", {"object": "red_cube", "target": "green_cube"}, SCENE, LIVE)
