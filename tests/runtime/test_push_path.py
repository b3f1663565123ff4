"""The push card's path precondition ("nothing else lies on the path between the cube and
the target"): the goal resolver refuses a push whose path, from the fingers behind the cube
to the goal, passes another cube's centre closer than ``PATH_CLEARANCE`` (property tests
over random cubes, goals and blockers)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from miles_ros.runtime.goals import GoalError, goal_from_positions, push_path_error
from sims.scene import load_scene
from sims.tasks import push

xs, ys = st.floats(0.35, 0.60), st.floats(-0.20, 0.20)
headings = st.floats(-math.pi, math.pi)
lengths = st.floats(0.05, 0.30)
fractions = st.floats(0.0, 1.0)


def _push(x, y, heading, length):
    """The cube's centre, the goal and the unit direction of a push."""
    start = np.array([x, y])
    unit = np.array([math.cos(heading), math.sin(heading)])
    return start, start + length * unit, unit


def _beside(start, unit, length, t, offset):
    """A point ``offset`` to the left of the path's point ``t`` of the way from the
    fingers (PATH_BEHIND behind the cube) to the goal."""
    normal = np.array([-unit[1], unit[0]])
    back = start - unit * push.PATH_BEHIND
    return back + t * (length + push.PATH_BEHIND) * unit + offset * normal


def test_the_clearance_is_two_cubes_half_diagonals_and_the_fingers_stand_behind():
    assert push.PATH_CLEARANCE == pytest.approx(2 * push.CUBE_SIZE / math.sqrt(2))
    assert push.PATH_BEHIND == push.CUBE_SIZE


@settings(max_examples=200, deadline=None)
@given(xs, ys, headings, lengths, fractions, st.floats(-0.999, 0.999))
def test_a_cube_on_the_path_is_refused_and_named(x, y, heading, length, t, side):
    start, goal, unit = _push(x, y, heading, length)
    other = _beside(start, unit, length, t, side * push.PATH_CLEARANCE)
    why = push_path_error("red_cube", goal, {"red_cube": start, "green_cube": other})
    assert why is not None and "green_cube" in why and "lift it over instead" in why


@settings(max_examples=200, deadline=None)
@given(xs, ys, headings, lengths, fractions, st.floats(1.001, 3.0), st.booleans())
def test_a_cube_moved_beyond_the_clearance_is_not(x, y, heading, length, t, far, left):
    start, goal, unit = _push(x, y, heading, length)
    offset = (1 if left else -1) * far * push.PATH_CLEARANCE
    beside = _beside(start, unit, length, t, offset)  # beside the path: clear
    assert push_path_error("red_cube", goal, {"red_cube": start, "green_cube": beside}) is None
    ahead = goal + unit * far * push.PATH_CLEARANCE  # beyond the goal: clear
    behind = start - unit * (push.PATH_BEHIND + far * push.PATH_CLEARANCE)  # behind the fingers
    positions = {"red_cube": start, "green_cube": ahead, "blue_cube": behind}
    assert push_path_error("red_cube", goal, positions) is None
    # the same cube brought within the clearance of the path's middle is refused
    near = _beside(start, unit, length, 0.5, offset / far * 0.99)
    assert push_path_error("red_cube", goal, {"red_cube": start, "green_cube": near})


@settings(max_examples=100, deadline=None)
@given(
    xs,
    ys,
    headings,
    lengths,
    st.lists(st.tuples(fractions, st.floats(-2.0, 2.0)), min_size=2, max_size=4),
)
def test_the_order_of_the_other_cubes_does_not_change_the_answer(x, y, heading, length, others):
    assume(all(abs(abs(side) - 1.0) > 1e-6 for _, side in others))
    start, goal, unit = _push(x, y, heading, length)
    cubes = {
        f"cube_{i}": _beside(start, unit, length, t, side * push.PATH_CLEARANCE)
        for i, (t, side) in enumerate(others)
    }
    answers = {
        push_path_error("red_cube", goal, dict([("red_cube", start), *order]))
        for order in itertools.permutations(cubes.items())
    }
    assert len(answers) == 1  # the same verdict and the same cube named, in every order
    (why,) = answers
    blocked = any(abs(side) < 1.0 for _, side in others)
    assert (why is not None) == blocked


@settings(max_examples=200, deadline=None)
@given(xs, ys, headings, st.floats(0.0, 3.0))
def test_a_zero_length_push_checks_the_cube_itself(x, y, heading, distance):
    """No direction, no fingers' side: the path is the cube's centre (the limit of ever
    shorter pushes, which all start at it), refused when another cube is within the
    clearance of it."""
    assume(abs(distance - 1.0) > 1e-3)
    start = np.array([x, y])
    other = start + distance * push.PATH_CLEARANCE * np.array([np.cos(heading), np.sin(heading)])
    why = push_path_error("red_cube", start, {"red_cube": start, "green_cube": other})
    assert (why is not None) == (distance < 1.0)
    assert push_path_error("red_cube", start, {"red_cube": start}) is None


SCENE = load_scene()
OBJECTS = {name: o.position for name, o in SCENE.objects.items()}
PLACES = {name: p.position for name, p in SCENE.places.items()}


def test_the_default_scene_refuses_red_through_green_but_lifts_it_over():
    with pytest.raises(GoalError, match=r"green_cube stands 0\.7 cm from its path"):
        goal_from_positions("push", {"object": "red_cube", "target": "left_pad"}, OBJECTS, PLACES)
    lifted = goal_from_positions(
        "pick_place", {"object": "red_cube", "target": "left_pad"}, OBJECTS, PLACES
    )
    assert lifted.object_name == "red_cube"  # the path rule is the push's only
    clear = goal_from_positions(
        "push", {"object": "red_cube", "target": "right_pad"}, OBJECTS, PLACES
    )
    np.testing.assert_allclose(clear.goal_pos[:2], PLACES["right_pad"][:2])


def test_a_point_target_is_checked_like_a_pad():
    red, green = np.array(OBJECTS["red_cube"]), np.array(OBJECTS["green_cube"])
    through = list(red[:2] + 2 * (green[:2] - red[:2]))  # green halfway along
    with pytest.raises(GoalError, match="green_cube"):
        goal_from_positions("push", {"object": "red_cube", "target": through}, OBJECTS, PLACES)
