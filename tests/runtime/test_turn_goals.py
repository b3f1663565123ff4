"""The turn skill's goal: the cube in place, its target yaw from the request's angle."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from miles_ros.runtime.execution import goal_distance
from miles_ros.runtime.goals import (
    FACE_ROBOT,
    NOTHING_TO_TURN_DEG,
    GoalError,
    crowded_error,
    goal_from_positions,
    resolve_goal,
    turn_made_deg,
)
from miles_ros.runtime.observation import JointReading, ObjectPose, sim_state
from sims.robots import panda
from sims.scene import load_scene
from sims.tasks import push
from sims.tasks.turn import TURN_CLEARANCE, quarter_wrap

SCENE = load_scene()
PADS = {n: p.position for n, p in SCENE.places.items()}

xs = st.floats(0.25, 0.7)
ys = st.floats(-0.35, 0.35)
yaws = st.floats(-math.pi, math.pi)
angles = st.floats(-360.0, 360.0, allow_nan=False)


def _live(x: float, y: float, yaw: float) -> dict[str, ObjectPose]:
    live = {n: ObjectPose(np.array(o.position), 0.0) for n, o in SCENE.objects.items()}
    live["red_cube"] = ObjectPose(np.array([x, y, push.CUBE_REST_Z]), yaw)
    return live


def _clear(live: dict[str, ObjectPose]) -> bool:
    """No other cube within turn's clearance of the red cube (the card's precondition)."""
    return crowded_error("red_cube", {n: p.position for n, p in live.items()}) is None


@settings(max_examples=200, deadline=None)
@given(xs, ys, yaws, angles)
def test_a_turn_keeps_the_cube_in_place_and_adds_the_angle_to_its_live_yaw(x, y, yaw, angle):
    assume(abs(turn_made_deg(angle)) >= NOTHING_TO_TURN_DEG)  # a multiple of 90: no goal
    assume(_clear(_live(x, y, yaw)))  # a crowded cube is refused (below)
    goal = resolve_goal("turn", {"object": "red_cube", "angle": angle}, SCENE, _live(x, y, yaw))
    assert goal.object_name == "red_cube"
    np.testing.assert_allclose(goal.goal_pos, [x, y, push.CUBE_REST_Z])
    assert goal.goal_yaw == pytest.approx(yaw + math.radians(angle), abs=1e-12)
    # counter-clockwise seen from above: a positive angle turns the cube's +x towards +y
    turned = np.array([math.cos(goal.goal_yaw), math.sin(goal.goal_yaw)])
    start = np.array([math.cos(yaw), math.sin(yaw)])
    cross = start[0] * turned[1] - start[1] * turned[0]
    assert cross == pytest.approx(math.sin(math.radians(angle)), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(xs, ys, yaws)
def test_face_robot_turns_a_face_normal_to_point_at_the_base(x, y, yaw):
    assume(_clear(_live(x, y, yaw)))
    goal = resolve_goal(
        "turn", {"object": "red_cube", "angle": FACE_ROBOT}, SCENE, _live(x, y, yaw)
    )
    np.testing.assert_allclose(goal.goal_pos, [x, y, push.CUBE_REST_Z])
    to_base = -np.array([x, y]) / math.hypot(x, y)
    normals = [goal.goal_yaw + k * math.pi / 2 for k in range(4)]  # the four side faces
    best = max(np.dot([math.cos(a), math.sin(a)], to_base) for a in normals)
    assert best == pytest.approx(1.0, abs=1e-12)  # one face looks straight at the base
    assert goal.goal_yaw == pytest.approx(math.atan2(y, x))  # independent of the start yaw


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 2 * TURN_CLEARANCE), st.floats(-math.pi, math.pi), yaws)
def test_the_skill_node_turns_no_cube_with_another_within_the_clearance(gap, bearing, yaw):
    green = SCENE.objects["green_cube"].position
    x, y = green[0] + gap * math.cos(bearing), green[1] + gap * math.sin(bearing)
    live = _live(x, y, yaw)
    nearest = min(math.dist((x, y), p.position[:2]) for n, p in live.items() if n != "red_cube")
    assume(abs(nearest - TURN_CLEARANCE) > 1e-9)  # not on the boundary itself
    request = {"object": "red_cube", "angle": 30}
    if nearest < TURN_CLEARANCE:
        with pytest.raises(GoalError, match="closer than the 7 cm the fingers need"):
            resolve_goal("turn", request, SCENE, live)
    else:
        assert resolve_goal("turn", request, SCENE, live).object_name == "red_cube"


def test_the_planner_without_yaws_gets_the_same_place_and_no_relative_yaw():
    cubes = {n: o.position for n, o in SCENE.objects.items()}
    relative = goal_from_positions("turn", {"object": "blue_cube", "angle": 30}, cubes, PADS)
    np.testing.assert_allclose(
        relative.goal_pos, [*SCENE.objects["blue_cube"].position[:2], push.CUBE_REST_Z]
    )
    assert relative.goal_yaw is None
    facing = goal_from_positions("turn", {"object": "blue_cube", "angle": FACE_ROBOT}, cubes, PADS)
    x, y = SCENE.objects["blue_cube"].position[:2]
    assert facing.goal_yaw == pytest.approx(math.atan2(y, x))


def test_a_covered_stacked_or_unknown_cube_is_not_turned_and_a_bad_angle_says_why():
    cubes = {n: o.position for n, o in SCENE.objects.items()}
    x, y, _ = SCENE.objects["red_cube"].position
    cubes["blue_cube"] = (x, y, push.CUBE_REST_Z + push.CUBE_SIZE)  # on the red cube
    with pytest.raises(GoalError, match="blue_cube lies on top of it"):
        goal_from_positions("turn", {"object": "red_cube", "angle": 45}, cubes, PADS)
    with pytest.raises(GoalError, match="no cube named 'purple_cube'"):
        goal_from_positions("turn", {"object": "purple_cube", "angle": 45}, cubes, PADS)
    with pytest.raises(GoalError, match="blue_cube in place: it is not resting on the table"):
        goal_from_positions("turn", {"object": "blue_cube", "angle": 45}, cubes, PADS)
    with pytest.raises(GoalError, match="number of degrees or 'face_robot'"):
        goal_from_positions("turn", {"object": "green_cube", "angle": "sideways"}, cubes, PADS)


@given(yaws, st.floats(-10.0, 10.0), st.integers(-4, 4))
def test_the_yaw_error_wraps_at_a_quarter_turn(goal_yaw, error_deg, quarters):
    error = math.radians(error_deg)
    yaw = goal_yaw + error + quarters * math.pi / 2
    assert -float(quarter_wrap(goal_yaw - yaw)) == pytest.approx(error, abs=1e-9)
    assert abs(float(quarter_wrap(goal_yaw - yaw - math.pi / 4 * 0.999))) <= math.pi / 4


def test_turn_progress_counts_the_yaw_still_to_go_and_the_state_carries_the_goal_yaw():
    q = panda.home_joint_positions
    reading = JointReading(q, np.zeros(7), 0.04, 0.0)
    goal_pos = np.array([0.5, 0.0, push.CUBE_REST_Z])
    far = sim_state(reading, goal_pos, ObjectPose(goal_pos.copy(), 0.0), goal_yaw=0.5)
    near = sim_state(reading, goal_pos, ObjectPose(goal_pos.copy(), 0.4), goal_yaw=0.5)
    assert far.goal_yaw.tolist() == [0.5]
    assert goal_distance("turn", near) < goal_distance("turn", far)
    assert goal_distance("turn", far) == pytest.approx(push.CUBE_SIZE / 2 * 0.5)
    assert sim_state(reading, goal_pos).goal_yaw is None  # other tasks: no yaw goal


@pytest.mark.parametrize(
    ("angle", "made"),
    [(30, 30), (-30, -30), (60, -30), (-60, 30), (100, 10), (45, -45), (50, -40), (135, -45)],
)
def test_the_turn_made_is_the_angle_wrapped_at_a_quarter_turn(angle, made):
    cubes = {n: o.position for n, o in SCENE.objects.items()}
    goal = goal_from_positions("turn", {"object": "red_cube", "angle": angle}, cubes, PADS)
    assert turn_made_deg(angle) == pytest.approx(made)
    assert goal.turn_deg == pytest.approx(made)
    # the same final look: the requested and the made turn differ by whole quarter turns
    assert (angle - made) % 90 == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(angles)
def test_the_turn_made_lies_within_45_degrees_and_looks_the_same(angle):
    made = turn_made_deg(angle)
    assert -45.0 - 1e-9 <= made < 45.0 + 1e-9
    rest = math.remainder(angle - made, 90.0)
    assert abs(rest) < 1e-6


@pytest.mark.parametrize("angle", [0, 90, -90, 180, 270, -360])
def test_a_turn_by_a_multiple_of_90_degrees_is_not_a_goal(angle):
    cubes = {n: o.position for n, o in SCENE.objects.items()}
    with pytest.raises(GoalError, match="looking as it is .* nothing to do"):
        goal_from_positions("turn", {"object": "red_cube", "angle": angle}, cubes, PADS)


def test_face_robot_has_no_turn_to_check():
    cubes = {n: o.position for n, o in SCENE.objects.items()}
    goal = goal_from_positions("turn", {"object": "red_cube", "angle": FACE_ROBOT}, cubes, PADS)
    assert goal.turn_deg is None
