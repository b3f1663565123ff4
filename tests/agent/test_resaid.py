"""The structures held-out 21 showed, read generally (:mod:`miles_ros.agent.resaid`): each in
wordings no eval set and no ``bench/planner_grammar.py`` transformation says (other nouns,
verbs, separators), with cubes moved by hypothesis, and look-alikes that must keep their
reading. The reading alone is asserted (no planner run)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.resaid import (
    container_said,
    no_home_after,
    pad_corrected,
    some_cube,
    stacked_in_order,
    topic_located,
    tower_listed,
    two_set_aside,
)
from tests.agent.reading_harness import COLOURS, _read, _tower, colours, moved


# -- motion nobody asked for ----------------------------------------------------------------
@pytest.mark.parametrize(
    "goal",
    [
        "On second thought, forget it: let things stay exactly as they are.",
        "No - scratch that; keep everything how it is.",
    ],
)
def test_a_request_withdrawn_with_things_left_as_they_are_is_no_motion(goal):
    _, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None and reading.nothing


@pytest.mark.parametrize(
    "goal",
    [
        "Position the arm above the grey mat and wait there - do not return home after that.",
        "Reach over the yellow pad, remain there, no heading back home afterwards!",
    ],
)
def test_a_hover_with_no_home_after_is_the_reach_alone(goal):
    text, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None
    assert "home" not in text.lower()


def test_no_home_alone_keeps_its_words():
    assert no_home_after("Don't go home afterwards.") == "Don't go home afterwards."


@pytest.mark.parametrize(("said", "side"), [("grey", "right"), ("left", "left")])
def test_a_pad_corrected_before_goes_on_is_the_new_pad(said, side):
    other = "yellow" if side == "right" else "right"
    goal = f"Not onto the {other} mat, no - the blue block goes on the {said} mat."
    text, reading, asked = _read(goal)
    assert asked is None and reading.refusal is None
    assert other not in text.lower() and "put the blue" in text.lower()


def test_a_correction_without_goes_on_keeps_its_words():
    goal = "No, not the left pad; push the red cube to the right pad."
    assert pad_corrected(goal) == goal


def test_the_tower_left_standing_is_a_prohibition_on_its_cubes():
    world = moved([(0.45, -0.10), (0.45, -0.10), (0.40, 0.15)])
    world.objects["red_cube"] = (0.45, -0.10, 0.06)  # red on green, blue free
    text, reading, asked = _read(
        "Keep the pile up, and slide the blue brick to the grey mat.", world
    )
    assert asked is None and reading.refusal is None
    assert "home" not in text.lower() and "blue" in text.lower()


@pytest.mark.parametrize("noun", ["bucket", "basket", "bin"])
def test_a_container_with_a_demonstrative_is_refused(noun):
    _, reading, asked = _read(f"Please toss the green brick into this plastic {noun}.")
    assert asked is None and reading.refusal and noun in reading.refusal


def test_into_that_cube_is_not_a_container():
    assert container_said("Drop it into that cube.") == "Drop it into that cube."


# -- the order of a stack -------------------------------------------------------------------
@given(colours)
@settings(max_examples=6, deadline=None)
def test_three_stacked_in_an_order_said_after_a_colon(order):
    x, a, b = order
    said = f"Stack the three bricks onto the {x} one - {a} first and then {b} last."
    assert stacked_in_order(said, COLOURS) == (
        f"put the {a} cube on the {x} cube, then put the {b} cube on the {a} cube"
    )


@given(colours)
@settings(max_examples=6, deadline=None)
def test_on_top_of_that_is_the_cube_placed_last(order):
    x, a, b = order
    said = f"Set the {a} box onto the {x} box, then the {b} box on top of that one."
    assert stacked_in_order(said, COLOURS) == (
        f"put the {a} cube on the {x} cube, then put the {b} cube on the {a} cube"
    )


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_tower_listed_names_a_cube_again_as_the_same_cube(order):
    x, a, b = order
    said = f"Make me a stack: the {a} brick onto the {x} brick, next the {b} brick on the {a} one."
    text, reading, asked = _read(said)
    assert asked is None and reading.refusal is None
    assert tower_listed(said, COLOURS) == (
        f"put the {a} cube on the {x} cube, then put the {b} cube on the {a} cube"
    )


def test_a_tower_listed_onto_another_cube_keeps_its_words():
    said = "Build a tower: the red cube on the green cube, then the blue cube on the green cube."
    assert tower_listed(said, COLOURS) == said


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_tower_completed_with_a_cube_as_its_top(order):
    low, top, free = order
    world = moved([(0.45, -0.10), (0.50, 0.05), (0.40, 0.15)])
    world.objects = {
        f"{low}_cube": (0.5, 0.0, 0.02),
        f"{top}_cube": (0.5, 0.0, 0.06),
        f"{free}_cube": (0.40, 0.15, 0.02),
    }
    text, reading, asked = _read(f"Top off the pile so the {free} brick is the top one.", world)
    assert asked is None and reading.refusal is None
    assert f"put the {free} cube on top of the {top} cube" in text.lower()


# -- asked back where several fit ------------------------------------------------------------
@pytest.mark.parametrize(
    "goal",
    [
        "Shove some brick or other over to the yellow mat.",
        "Set one of these blocks on the grey mat.",
    ],
)
def test_some_cube_among_several_is_asked(goal):
    _, reading, asked = _read(goal)
    assert asked is not None and reading.refusal is None


def test_the_cube_right_next_to_one_follows_the_cubes():
    # the blue cube 6 cm from the green one, the red 20 cm away: blue; moved, red
    near = moved([(0.60, 0.10), (0.40, -0.14), (0.40, -0.20)])
    far = moved([(0.40, -0.08), (0.40, -0.14), (0.60, 0.15)])
    for world, cube in ((near, "blue"), (far, "red")):
        text, reading, asked = _read(
            "Lift the block sitting directly beside the green one onto the yellow mat.", world
        )
        assert asked is None and reading.refusal is None
        assert f"the {cube} cube" in text.lower()


# -- wrongly refused --------------------------------------------------------------------------
@given(st.sampled_from(["red", "green", "blue"]))
@settings(max_examples=3, deadline=None)
def test_two_set_aside_then_a_cube_by_colour_is_that_step(colour):
    goal = f"Do not move the back two blocks, and only slide the {colour} block to the grey mat."
    assert two_set_aside(goal, COLOURS) == f"slide the {colour} block to the grey mat."


def test_two_set_aside_then_a_cube_by_position_keeps_its_words():
    goal = "Don't touch the two cubes at the front; just put the leftmost cube on the left pad."
    assert two_set_aside(goal, COLOURS) == goal


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_cube_said_first_with_its_place_in_the_tower_is_the_subject(order):
    top = order[2]
    text, reading, asked = _read(
        f"The {top} brick at the top of the pile: lift it onto the grey mat.", _tower(order)
    )
    assert asked is None and reading.refusal is None
    assert f"the {top} " in text.lower() and "right pad" in text.lower()


def test_a_cube_not_in_the_scene_said_first_keeps_its_words():
    goal = "The purple cube on top of the stack, put it on the right pad."
    assert topic_located(goal, COLOURS) == goal


# -- the cube near the edge: measured from the table's sides (reference_edge.py) -----------
@given(
    st.sampled_from(["red", "green", "blue"]),
    st.floats(0.26, 0.30),
    st.sampled_from([1.0, -1.0]),
)
@settings(max_examples=8, deadline=None)
def test_the_cube_clearly_nearest_the_edge_is_meant(colour, off, side):
    rest = [c for c in ("red", "green", "blue") if c != colour]
    world = moved([(0.45, 0.0)] * 3)
    world.objects = {
        f"{colour}_cube": (0.42, side * off, 0.02),
        f"{rest[0]}_cube": (0.45, 0.0, 0.02),
        f"{rest[1]}_cube": (0.55, -side * 0.08, 0.02),
    }
    text, reading, asked = _read(
        "Nudge the brick close to the table's edge onto the grey mat.", world
    )
    assert asked is None and reading.refusal is None
    assert f"the {colour} cube" in text.lower()


@given(st.floats(0.0, 0.02))
@settings(max_examples=5, deadline=None)
def test_cubes_about_equally_near_the_edge_are_asked(gap):
    world = moved([(0.40, 0.27 - gap), (0.40, -0.27), (0.45, 0.0)])
    _, reading, asked = _read("Lift the block by the edge onto the yellow mat.", world)
    assert asked is not None and reading.refusal is None
    assert "red" in asked.question and "green" in asked.question and "blue" not in asked.question


def test_an_edge_with_no_table_is_refused():
    world = moved([(0.40, 0.27), (0.40, -0.10), (0.45, 0.0)])
    world.table_xy = None
    _, reading, _ = _read("Lift the block by the edge onto the yellow mat.", world)
    assert reading.refusal and "edge" in reading.refusal


def test_whichever_one_of_the_cubes_is_not_some_cube():
    goal = "Push whichever one of the cubes lies nearest you to the grey mat."
    assert some_cube(goal) == goal
