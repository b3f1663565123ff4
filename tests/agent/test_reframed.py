"""The structures held-out 20 showed, read generally (:mod:`miles_ros.agent.reframed`): each
in wordings no eval set and no ``bench/planner_grammar.py`` transformation says (other nouns,
verbs, separators), with cubes moved by hypothesis, and look-alikes that must keep their
reading. The reading alone is asserted (no planner run)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from miles_ros.agent.reframed import brought_to_it, kept_there, tower_by, which_pad_there
from tests.agent.reading_harness import SCENE, _read, _tower, colours, moved


# -- motion nobody asked for ----------------------------------------------------------------
@pytest.mark.parametrize(
    "goal",
    [
        "Hold on - keep the whole lot exactly where it is.",
        "Wait a second; leave things just the way they are for now.",
        "Pause for a moment. Keep it all precisely as it is, please.",
    ],
)
def test_a_pause_with_everything_left_as_it_is_is_no_motion(goal):
    _, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None and reading.nothing


def test_everything_left_as_it_is_beside_a_step_is_not_no_motion():
    _, reading, _ = _read("Leave everything as it is and push the red cube to the left pad.")
    assert not reading.nothing


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_tower_of_two_said_by_its_placing_puts_the_first_cube_on_the_second(order):
    a, b, _ = order
    goal = f"Put up a short stack of two by lifting the {a} box onto the {b} box."
    text, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None
    assert text.lower().rstrip(".") == f"put the {a} cube on the {b} cube"


def test_a_tower_said_without_its_placing_keeps_its_words():
    goal = "Make a tower with the red cube at the bottom and the blue one on top."
    assert tower_by(goal) == goal


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_cube_kept_where_it_was_put_adds_no_step(order):
    a, b, _ = order
    goal = f"Drop the {a} box onto the {b} box and leave it resting there for good."
    text, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None and not reading.nothing
    assert "there" not in text.lower() and f"the {b} " in text.lower()


def test_kept_there_with_no_place_before_it_keeps_its_words():
    goal = "Pick up the red cube and keep it there."
    assert kept_there(goal) == goal


@pytest.mark.parametrize(("pad", "side"), [("grey", "right"), ("yellow", "left")])
def test_brought_to_it_after_a_reach_of_a_pad_is_that_pad(pad, side):
    goal = f"Position your hand over the {pad} mat; then carry the green box across to it."
    text, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None
    assert f"to the {side} pad" in text


def test_brought_to_it_after_a_reach_of_a_cube_keeps_its_words():
    goal = "Hover over the red cube, then bring the blue cube to it."
    assert brought_to_it(goal) == goal


# -- refusals missed --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("goal", "verb"),
    [
        ("Fasten the blue box to the green box using superglue.", "glue"),
        ("Secure the red brick onto the yellow mat with a bit of duct tape.", "tape"),
        ("Could you stick a sticker onto the green block?", "label"),
    ],
)
def test_a_cube_fixed_with_a_material_is_refused_as_that_verb(goal, verb):
    _, reading, asked = _read(goal)
    assert asked is None and reading.refusal and f"no skill can {verb}" in reading.refusal


def test_a_cube_stuck_on_a_pad_with_nothing_is_a_placing():
    _, reading, asked = _read("Stick the red cube on the left pad.")
    assert asked is None and reading.refusal is None


@given(colours)
@settings(max_examples=6, deadline=None)
def test_the_bottom_of_a_tower_moved_is_refused_as_covered(order):
    world = _tower(order)
    _, reading, asked = _read("Shift the bottommost box of the pile onto the right mat.", world)
    assert asked is None and reading.refusal and f"cannot move {order[0]}_cube" in reading.refusal


# -- refused or asked back where the goal said it ---------------------------------------------
@given(colours)
@settings(max_examples=6, deadline=None)
def test_the_top_of_a_tower_unstacked_is_taken_off(order):
    world = _tower(order)
    top = order[-1]
    text, reading, asked = _read(f"Unstack the {top} box and drop it on the yellow mat.", world)
    assert asked is None and reading.refusal is None
    assert f"the {top} " in text.lower() and "left pad" in text


def test_a_covered_cube_unstacked_is_refused():
    world = _tower(["red", "green", "blue"])
    _, reading, _ = _read("Unstack the red box and drop it on the yellow mat.", world)
    assert reading.refusal and "cannot move red_cube" in reading.refusal


def test_a_place_said_good_enough_after_anywhere_but():
    goal = "Drop the red box anywhere apart from the yellow mat - the grey one is good."
    text, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None and "right pad" in text


@pytest.mark.parametrize(("pad", "side"), [("grey", "right"), ("yellow", "left")])
def test_a_question_naming_a_pad_then_there_is_that_pad(pad, side):
    text, reading, asked = _read(f"Which mat's the {pad} one? Lower the blue box there.")
    assert asked is None and reading.refusal is None and f"{side} pad" in text


def test_a_question_about_a_pad_with_no_step_keeps_its_words():
    goal = "Which pad is the yellow one?"
    assert which_pad_there(goal) == goal


_SPOTS = [(0.33, 0.12), (0.5, -0.06), (0.63, 0.14)]


@given(colours)
@settings(max_examples=6, deadline=None)
def test_whichever_cube_is_nearest_you_is_the_one_nearest_the_robot(order):
    world = moved([_SPOTS[["red", "green", "blue"].index(c)] for c in order])
    nearest = min(world.objects, key=lambda n: math.hypot(*world.objects[n][:2]))
    goal = "Lift whichever one of the blocks sits closest to you onto the grey mat."
    text, reading, asked = _read(goal, world)
    assert asked is None and reading.refusal is None
    assert nearest.replace("_", " ") in text.lower()


def test_brought_to_a_pad_after_a_reach_is_lifted():
    _, reading, _ = _read("Hover over the grey mat, then bring the red box over to it.")
    assert ("grasps", "red_cube") in reading.require


def test_brought_with_a_push_manner_is_not_lifted():
    _, reading, _ = _read("Bring the blue cube to the left pad, but don't lift it.")
    assert ("grasps", "blue_cube") not in reading.require


def test_a_question_on_a_cube_then_weighing_it_is_refused():
    _, reading, asked = _read("What does the green block weigh? Weigh it, please.")
    assert asked is None and reading.refusal and "no skill can weigh" in reading.refusal


def test_a_question_on_a_cube_then_a_placing_is_the_placing():
    text, reading, asked = _read("How much does the red box weigh? Set it on the grey mat.")
    assert asked is None and reading.refusal is None
    assert "the red box" in text and "right pad" in text


@given(colours)
@settings(max_examples=6, deadline=None)
def test_the_lowest_cube_of_a_two_cube_stack_is_its_bottom_not_a_cube_alone(order):
    bottom, top, alone = order
    world = SCENE.copy()
    world.objects = {
        f"{bottom}_cube": (0.4, 0.0, 0.02),
        f"{top}_cube": (0.4, 0.0, 0.06),
        f"{alone}_cube": (0.6, 0.1, 0.02),
    }
    _, reading, asked = _read("Carry the lowest box of the tower to the yellow mat.", world)
    assert asked is None and reading.refusal and f"cannot move {bottom}_cube" in reading.refusal
    _, reading, asked = _read("Hover over the lowest cube.", world)  # the table's lowest: tied
    assert asked is not None


def test_the_lowest_cube_of_the_stack_with_no_stack_is_refused():
    _, reading, _ = _read("Move the lowest cube in the stack onto the right pad.")
    assert reading.refusal and "no stack" in reading.refusal


def test_the_top_of_a_tower_unstacked_then_set_down_is_one_lift():
    world = _tower(["green", "red", "blue"])
    text, reading, asked = _read("Unstack the blue brick, then lower it onto the grey mat.", world)
    assert asked is None and reading.refusal is None
    assert "the blue brick and lower it onto the right pad" in text and "then" not in text
