"""Towers in the goal resolver (the one place of the level rule, for the skill node and
the planner's world alike): a named cube with cubes on it resolves to the top of its
stack, up to the third level; a fourth level, a cube that is not resting, and a cube put
on a stack it holds up are refused with the reason."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.runtime.goals import (
    GoalError,
    goal_from_positions,
    resolve_goal,
    stack_state,
    stack_target_error,
    stack_top,
    tower_level,
)
from miles_ros.runtime.observation import JointReading, ObjectPose, sim_state
from sims.robots import panda
from sims.scene import load_scene
from sims.tasks import pick_place

SCENE = load_scene()
CUBES = ("blue_cube", "green_cube", "red_cube")
FOURTH = "a tower is at most 3 cubes high"
PADS = {name: place.position for name, place in SCENE.places.items()}

# a tower's base on the table, each cube above it off-centre by less than the placement
# tolerance (what a released cube may be), and the free cube elsewhere on the table
bases = st.tuples(st.floats(0.35, 0.6), st.floats(-0.25, 0.25))
offsets = st.tuples(st.floats(-0.015, 0.015), st.floats(-0.015, 0.015))


def tower(base, shifts, height):
    """Cube centres: the first ``height`` of CUBES stacked from the table up at ``base``
    (each shifted by its ``shifts`` from the one below), the others on the table 0.15 m
    away in x, side by side."""
    positions, xy = {}, np.array(base, dtype=np.float64)
    for level, name in enumerate(CUBES[:height], start=1):
        if level > 1:
            xy = xy + shifts[level - 2]
        positions[name] = (xy[0], xy[1], pick_place.level_height(level))
    for k, name in enumerate(CUBES[height:]):
        positions[name] = (base[0] - 0.15, base[1] + 0.06 * k, pick_place.CUBE_REST_Z)
    return positions


@settings(max_examples=60, deadline=None)
@given(base=bases, shifts=st.tuples(offsets, offsets), height=st.integers(1, 3))
def test_levels_and_the_top_of_a_stack_over_cube_positions(base, shifts, height):
    positions = tower(base, shifts, height)
    for level, name in enumerate(CUBES[:height], start=1):
        assert tower_level(name, positions) == level
        assert stack_top(None, name, positions) == CUBES[height - 1]
    top = CUBES[height - 1]
    free = [n for n in CUBES if n not in CUBES[:height]]
    for named in CUBES[:height]:  # naming any cube of the tower
        for obj in free:
            why = stack_target_error(obj, named, positions)
            params = {"object": obj, "target": named}
            if height < pick_place.TOWER_LEVELS:  # on the top: one level higher
                assert why is None
                goal = goal_from_positions("pick_place", params, positions, PADS)
                np.testing.assert_allclose(goal.goal_pos, pick_place.stack_goal(positions[top]))
                assert goal.stack_on == top
            else:  # a fourth level: refused, naming the top and its level
                assert why.startswith(f"{FOURTH}: {top} is already the third level"), why
                with pytest.raises(GoalError, match=FOURTH):
                    goal_from_positions("pick_place", params, positions, PADS)


@settings(max_examples=30, deadline=None)
@given(base=bases, shifts=st.tuples(offsets, offsets))
def test_the_top_cube_may_go_back_on_its_own_tower_and_a_base_never_on_its_tower(base, shifts):
    positions = tower(base, shifts, 3)
    top, middle, bottom = CUBES[2], CUBES[1], CUBES[0]
    # the top cube moved: the tower under it is two high, so it may go back on it
    assert stack_target_error(top, bottom, positions) is None
    goal = goal_from_positions("pick_place", {"object": top, "target": bottom}, positions, PADS)
    assert goal.stack_on == middle
    # a cube cannot go onto the stack it holds up: above the third level, or on itself
    why = stack_target_error(bottom, middle, positions)
    assert why.startswith(f"{FOURTH}: {top} is already the third level"), why
    two = tower(base, shifts, 2)
    why = stack_target_error(bottom, middle, two)
    assert why == f"cannot stack {bottom} on {middle}: {middle} stands on {bottom}"


@pytest.mark.parametrize("z", [0.06, 0.10, 0.18])
def test_a_cube_at_a_levels_height_with_nothing_under_it_is_not_resting(z):
    positions = tower((0.5, 0.0), ((0.0, 0.0), (0.0, 0.0)), 1)
    positions["green_cube"] = (0.5, 0.2, z)  # held up by the gripper
    assert tower_level("green_cube", positions) is None
    why = stack_target_error("red_cube", "green_cube", positions)
    assert "not resting on the table or on a stack" in why and "held" in why


def test_the_skill_node_resolves_and_follows_the_top_of_the_stack():
    """resolve_goal (the skill node's entry, live poses) puts a cube named as the target
    under the top cube of its stack; the running call's state follows that top cube and
    judges success by the stack rule at its place pose."""
    blue = np.array([0.5, 0.1, pick_place.level_height(1)])
    live = {
        "blue_cube": ObjectPose(blue, 0.0),
        "green_cube": ObjectPose(blue + [0.004, -0.003, pick_place.CUBE_SIZE], 0.0),
        "red_cube": ObjectPose(np.array([0.4, -0.15, pick_place.CUBE_REST_Z]), 0.0),
    }
    goal = resolve_goal("pick_place", {"object": "red_cube", "target": "blue_cube"}, SCENE, live)
    top = live["green_cube"].position
    assert goal.stack_on == "green_cube"
    np.testing.assert_allclose(goal.goal_pos, top + [0.0, 0.0, pick_place.CUBE_SIZE])
    np.testing.assert_allclose(goal.goal_pos[2], pick_place.level_height(3))
    reading = JointReading(panda.home_joint_positions, np.zeros(7), panda.gripper_width_max, 0.0)
    placed = ObjectPose(goal.goal_pos.copy(), 0.0)
    state = stack_state(sim_state(reading, goal.goal_pos, placed), live[goal.stack_on])
    assert state.stack.tolist() == [True] and pick_place.success(state).tolist() == [True]
    # the full tower, the red cube on top: a fourth cube goes on it nowhere
    live["red_cube"] = ObjectPose(goal.goal_pos.copy(), 0.0)
    live["yellow_cube"] = ObjectPose(np.array([0.4, -0.15, pick_place.CUBE_REST_Z]), 0.0)
    for named in ("red_cube", "blue_cube"):
        params = {"object": "yellow_cube", "target": named}
        with pytest.raises(GoalError, match=f"{FOURTH}: red_cube is already the third level"):
            resolve_goal("pick_place", params, SCENE, live)


@pytest.mark.parametrize("task", ["pick_place", "push"])
def test_a_cube_with_another_on_it_is_not_moved(task):
    positions = tower((0.5, 0.0), ((0.003, 0.0), (0.0, -0.004)), 3)
    for covered, above in (("blue_cube", "green_cube"), ("green_cube", "red_cube")):
        params = {"object": covered, "target": "left_pad"}
        with pytest.raises(GoalError, match=f"cannot move {covered}: {above} lies on top"):
            goal_from_positions(task, params, positions, PADS)
    # the top cube is picked off the tower; a push moves cubes on the table only
    params = {"object": "red_cube", "target": "left_pad"}
    if task == "push":
        with pytest.raises(
            GoalError, match="cannot push red_cube: it is not resting on the table"
        ):
            goal_from_positions(task, params, positions, PADS)
    else:
        assert goal_from_positions(task, params, positions, PADS).object_name == "red_cube"
