"""Stacking in the skill card and the goal resolver: pick_place takes a cube as its target
(the place pose on top of it), never the cube itself or a cube not resting on the table,
and the card's envelope still decides what the skill was trained for."""

import numpy as np
import pytest

from miles_ros.runtime.goals import GoalError, resolve_goal, stack_state
from miles_ros.runtime.observation import JointReading, ObjectPose, sim_state
from policies.card_content import build_card, parameter_schema
from policies.cards import load_card
from sims.robots import panda
from sims.scene import load_scene
from sims.tasks import pick_place

SCENE = load_scene()
LIVE = {
    n: ObjectPose(np.array(o.position) + [0.01, -0.005, 0.0], 0.0)
    for n, o in SCENE.objects.items()
}


def test_a_cube_target_resolves_to_the_place_pose_on_top_of_its_live_pose():
    goal = resolve_goal("pick_place", {"object": "green_cube", "target": "blue_cube"}, SCENE, LIVE)
    expected = LIVE["blue_cube"].position + [0.0, 0.0, pick_place.CUBE_SIZE]
    np.testing.assert_allclose(goal.goal_pos, expected)
    assert goal.object_name == "green_cube" and goal.stack_on == "blue_cube"
    pad = resolve_goal("pick_place", {"object": "green_cube", "target": "left_pad"}, SCENE, LIVE)
    assert pad.stack_on is None


def test_stacking_on_itself_or_on_a_cube_not_resting_on_the_table_is_an_error():
    with pytest.raises(GoalError, match="on itself"):
        resolve_goal("pick_place", {"object": "red_cube", "target": "red_cube"}, SCENE, LIVE)
    held = dict(LIVE, blue_cube=ObjectPose(np.array([0.45, 0.1, 0.18]), 0.0))
    with pytest.raises(GoalError, match="not resting on the table.*held"):
        resolve_goal("pick_place", {"object": "red_cube", "target": "blue_cube"}, SCENE, held)
    # at the second level's height with nothing under it: held there
    floating = dict(LIVE, blue_cube=ObjectPose(np.array([0.45, 0.1, 0.06]), 0.0))
    with pytest.raises(GoalError, match="not resting on the table or on a stack"):
        resolve_goal("pick_place", {"object": "red_cube", "target": "blue_cube"}, SCENE, floating)
    # a cube with another on it: the goal is on the top of that stack (a tower)
    top = LIVE["blue_cube"].position + [0.005, 0.0, pick_place.CUBE_SIZE]
    occupied = dict(LIVE, green_cube=ObjectPose(top, 0.0))
    goal = resolve_goal(
        "pick_place", {"object": "red_cube", "target": "blue_cube"}, SCENE, occupied
    )
    np.testing.assert_allclose(goal.goal_pos, pick_place.stack_goal(top))
    assert goal.stack_on == "green_cube"
    # the cube being moved may itself be the one on top (put back in place)
    goal = resolve_goal(
        "pick_place", {"object": "green_cube", "target": "blue_cube"}, SCENE, occupied
    )
    assert goal.stack_on == "blue_cube"
    with pytest.raises(GoalError, match="no pose received"):
        resolve_goal("pick_place", {"object": "red_cube", "target": "blue_cube"}, SCENE, {})
    with pytest.raises(GoalError, match="no pad"):  # push still takes pads and points only
        resolve_goal("push", {"object": "red_cube", "target": "blue_cube"}, SCENE, LIVE)


def test_the_executor_state_of_a_stacking_call_uses_the_stack_success_rule():
    goal = resolve_goal("pick_place", {"object": "green_cube", "target": "blue_cube"}, SCENE, LIVE)
    q = panda.home_joint_positions.copy()
    on_top = ObjectPose(goal.goal_pos.copy(), 0.0)
    for width, expected in ((0.055, False), (panda.gripper_width_max, True)):
        reading = JointReading(q, np.zeros(7), width, 0.0)
        state = stack_state(sim_state(reading, goal.goal_pos, on_top), LIVE["blue_cube"])
        assert state.stack.tolist() == [True]
        # gripped on top of the target: not done; released there: done
        assert pick_place.success(state).tolist() == [expected]
    # the goal follows the target cube when it moves
    moved = ObjectPose(LIVE["blue_cube"].position + [0.03, 0.0, 0.0], 0.0)
    state = stack_state(sim_state(reading, goal.goal_pos, on_top), moved)
    np.testing.assert_allclose(state.goal_pos[0], pick_place.stack_goal(moved.position))
    assert pick_place.success(state).tolist() == [False]


def test_the_card_schema_takes_pads_cubes_and_points_and_lists_its_variants():
    card = load_card("pick_place")
    assert card.variants == ("pads", "stack", "tower")
    assert card.parameters == parameter_schema("pick_place")
    assert card.param_errors({"object": "red_cube", "target": "blue_cube"}) == []
    assert card.param_errors({"object": "red_cube", "target": "left_pad"}) == []
    assert card.param_errors({"object": "red_cube", "target": [0.5, 0.0, 0.2]}) == []
    assert card.param_errors({"object": "red_cube", "target": "yellow_cube"})
    names, point = card.param_choices("target", [*SCENE.objects, *SCENE.places])
    assert set(names) == {*SCENE.objects, *SCENE.places} and point
    # export writes the same schema and the variants of the task
    built = build_card("pick_place", "pick_place", {}, {}, {})
    assert built.variants == pick_place.VARIANTS
    assert built.parameters == card.parameters
    push_card = load_card("push")
    assert push_card.variants == ()
    assert push_card.param_errors({"object": "red_cube", "target": "blue_cube"})


def test_a_stack_target_outside_the_envelope_is_a_violation():
    card = load_card("pick_place")
    objects = {n: o.position for n, o in LIVE.items()}

    def violations(obj, target):
        goal = resolve_goal("pick_place", {"object": obj, "target": target}, SCENE, LIVE)
        return card.envelope_violations(objects[obj], goal.goal_pos)

    assert violations("green_cube", "blue_cube") == []  # 0.14 m apart
    assert violations("red_cube", "blue_cube") == []  # 0.255 m: inside 0.10-0.45 m
    # red moved to the far corner of the cube area: beyond the trained distance from blue
    region, distance = card.envelope.object_region, card.envelope.object_target_distance_xy
    corner = np.array([region.high[0], region.low[1] + 0.02, pick_place.CUBE_REST_Z])
    objects["red_cube"] = corner
    goal = resolve_goal("pick_place", {"object": "red_cube", "target": "blue_cube"}, SCENE, LIVE)
    assert np.linalg.norm(corner[:2] - goal.goal_pos[:2]) > distance.max
    far = card.envelope_violations(corner, goal.goal_pos)
    assert far and "object_target_distance_xy" in far[0]


def test_a_cube_on_a_stack_is_picked_off_it_never_pushed():
    stacked = dict(LIVE)
    red = LIVE["red_cube"].position
    stacked["blue_cube"] = ObjectPose(red + [0.0, 0.0, pick_place.CUBE_SIZE], 0.0)
    with pytest.raises(GoalError, match="cannot push blue_cube: it is not resting on the table"):
        resolve_goal("push", {"object": "blue_cube", "target": "left_pad"}, SCENE, stacked)
    lifted = resolve_goal(
        "pick_place", {"object": "blue_cube", "target": "left_pad"}, SCENE, stacked
    )
    assert lifted.object_name == "blue_cube"
    pushed = resolve_goal("push", {"object": "green_cube", "target": "left_pad"}, SCENE, stacked)
    assert pushed.object_name == "green_cube"
