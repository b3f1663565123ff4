"""The structures held-out 23 showed, read generally (:mod:`miles_ros.agent.rendered`; a colour
paraphrase with adjectives and a point said with its coordinates' names held there in
:mod:`miles_ros.agent.retold`; "a cube" asked without the cube the goal names in
:mod:`miles_ros.agent.reference_scene`): each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says (other nouns, verbs, separators), with cubes
moved by hypothesis, and look-alikes that must keep their reading. The reading alone is
asserted (no planner run)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.no_motion import no_motion
from miles_ros.agent.rendered import (
    bare_fragment,
    carried_on,
    every_cube_unskilled,
    goes_then_verb,
    group_left,
    held_then_turned,
    in_front,
    not_either,
    prep_typo,
    same_but_place,
)
from tests.agent.test_reading_rules import moved
from tests.agent.test_recast import _read, colours

THREE = frozenset({"red", "green", "blue"})


# -- the wrong motion, or a plan where a refusal is due ---------------------------------------
@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("Dangle the gripper aobve the red brick.", "above the red brick"),
        ("Stop ovr the right mat, please.", "over the right mat"),
    ],
)
def test_a_preposition_with_a_slip_is_that_preposition(said, plain):
    assert plain in prep_typo(said)


@pytest.mark.parametrize("said", ["Go over the left mat.", "Hover above every cube, ever the"])
def test_prepositions_spelt_right_keep_their_words(said):
    assert prep_typo(said) == said


@given(st.sampled_from(["red", "green", "blue"]), st.floats(0.0, 0.05))
@settings(max_examples=5, deadline=None)
def test_the_two_back_cubes_left_alone_add_no_step(front, dy):
    ys = {"red": -0.12, "green": 0.0, "blue": 0.12}
    pos = [(0.36, ys[c] + dy) if c == front else (0.60, ys[c]) for c in ("red", "green", "blue")]
    goal = f"Don't disturb both rear boxes - just hover above the {front} box."
    text, reading, asked = _read(goal, moved(pos))
    assert asked is None and reading.refusal is None and not reading.nothing
    assert text.lower().startswith(f"hover above the {front} box") and "home" not in text


def test_the_front_one_after_the_group_is_left_to_its_own_rule():
    said = "Keep the two back bricks alone and shove the front one to the left mat."
    assert group_left(said) == said


@given(colours)
@settings(max_examples=4, deadline=None)
def test_it_carried_on_is_the_cube_said_last(order):
    a, _, _ = order
    said = f"Drop the {a} brick onto the left mat, then take it across to the right mat."
    assert carried_on(said).endswith(f"take the {a} brick across to the right mat.")
    _, reading, asked = _read(said)
    assert asked is None and reading.refusal is None


@pytest.mark.parametrize(
    "said",
    [
        "Lift the red brick onto the left mat and carry it to me.",
        "Set the green box on the red box, then move it to the left mat.",
        "The blue box: move it over to the right mat.",
    ],
)
def test_it_not_carried_on_from_a_pad_keeps_its_words(said):
    assert carried_on(said) == said


def test_a_group_said_with_more_words_keeps_them():
    said = "Leave the two boxes in front alone and just push the green box onto the left mat."
    assert group_left(said) == said


def test_a_verb_no_skill_does_said_of_every_cube_is_refused():
    assert every_cube_unskilled("Measure each box, then stack them by size.") == (
        "Measure the cubes."
    )
    _, reading, _ = _read("Weigh all of the bricks and then pile them up, lightest on top.")
    assert reading.refusal and "weigh" in reading.refusal


@pytest.mark.parametrize("said", ["Push each cube onto the left pad.", "Turn every box 20 deg."])
def test_a_skills_verb_said_of_every_cube_keeps_its_words(said):
    assert every_cube_unskilled(said) == said


# -- feasible goals wrongly refused -------------------------------------------------------------
def test_a_fragment_of_bare_colours_is_a_placing():
    assert bare_fragment("blue onto left mat pls", THREE) == "Put the blue cube on the left mat."
    assert bare_fragment("Green on top of the right tile.", THREE).startswith("Put the green")
    assert bare_fragment("blue onto left mat", frozenset({"red", "green"})) == (
        "blue onto left mat"
    )
    _, reading, asked = _read("red to yellow tile!")
    assert asked is None and reading.refusal is None and ("grasps", "red_cube") in reading.require


@pytest.mark.parametrize(
    ("said", "colour"),
    [
        ("Slide the brick the colour of a ripe cherry to the left mat.", "red"),
        ("Lift the box coloured like a cloudless sky onto the grey mat.", "blue"),
        ("Push the brick that is the colour of freshly cut grass onto the right mat.", "green"),
    ],
)
def test_a_colour_said_by_a_thing_with_adjectives_is_that_colour(said, colour):
    text, reading, asked = _read(said)
    assert asked is None and reading.refusal is None and f"the {colour} " in text


@given(colours)
@settings(max_examples=4, deadline=None)
def test_where_a_cube_goes_then_push_it_there_is_one_push(order):
    a = order[0]
    said = f"The {a} brick needs to go on the yellow mat - nudge it over there, thanks."
    assert goes_then_verb(said).startswith(f"nudge the {a} brick onto the yellow mat")
    _, reading, asked = _read(said)
    assert asked is None and reading.refusal is None
    assert ("grasps", f"{a}_cube") not in reading.require


def test_a_statement_of_the_base_keeps_its_words():
    said = "The blue cube is the base; put the red cube on it."
    assert goes_then_verb(said) == said


@given(colours, st.integers(15, 45))
@settings(max_examples=4, deadline=None)
def test_a_cube_taken_hold_of_then_turned_is_one_turn(order, angle):
    a = order[0]
    said = f"Grab hold of the {a} box, then spin it {angle} degrees."
    assert held_then_turned(said).lower().startswith(f"spin the {a} box {angle}")
    _, reading, asked = _read(said)
    assert asked is None and reading.refusal is None and not reading.require


def test_a_cube_taken_then_put_keeps_its_words():
    said = "Take the red cube and put it on the left pad."
    assert held_then_turned(said) == said


@given(colours)
@settings(max_examples=4, deadline=None)
def test_the_same_for_another_cube_but_onto_another_place(order):
    a, b, _ = order
    said = (
        f"Set the {a} box on the left mat; after that the same for the {b} one, only onto the "
        "right mat."
    )
    plain = same_but_place(said)
    assert plain.endswith(f"then set the {b} one onto the right mat.") and "only" not in plain


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_tower_on_a_base_said_twice_is_three_high(order):
    a, b, c = order
    text, reading, asked = _read(f"Pile up three on the {a} box: the {b} on {a}, the {c} last.")
    assert asked is None and reading.refusal is None
    low = text.lower()
    assert f"put the {b} cube on the {a} cube" in low and f"put the {c} cube on the {b}" in low


def test_the_last_request_scrapped_is_no_motion():
    said = "Ignore my previous command, there is no need to do anything."
    assert no_motion(said) == "Don't do anything."
    _, reading, _ = _read(said)
    assert reading.nothing
    kept = "Forget the red cube; no need to move it."
    assert no_motion(kept) == kept


# -- asked where the plan is clear ------------------------------------------------------------
def test_a_point_said_with_its_names_held_there_is_the_reach():
    text, reading, asked = _read(
        "Take the gripper to x = 0.5, y = 0.05, z = 0.3, then hold it there for a second."
    )
    assert asked is None and reading.refusal is None and "hold" not in text


@given(colours)
@settings(max_examples=5, deadline=None)
def test_the_cube_not_of_two_colours_is_the_third(order):
    a, b, c = order
    assert not_either(f"Lift the box which is not {a} or {b} up.", THREE) == (
        f"Lift the {c} box up."
    )
    kept = f"Lift the box which is not {a} or purple up."
    assert not_either(kept, THREE) == kept


@given(st.sampled_from(["red", "green", "blue"]), st.floats(0.0, 0.05))
@settings(max_examples=5, deadline=None)
def test_the_cube_in_front_follows_the_cubes(front, dy):
    ys = {"red": -0.12, "green": 0.0, "blue": 0.12}
    pos = [(0.36, ys[c] + dy) if c == front else (0.60, ys[c]) for c in ("red", "green", "blue")]
    text, reading, asked = _read("Carry the brick that's in front to the right mat.", moved(pos))
    assert asked is None and reading.refusal is None and f"{front} cube" in text


def test_in_front_of_a_cube_keeps_its_words():
    said = "Hover over the cube in front of the red one."
    assert in_front(said) == said


def test_which_cube_for_on_it_leaves_out_the_cube_moved():
    _, _, asked = _read("Place the green brick on it.")
    assert asked is not None and "green_cube" not in asked.options
    _, _, asked = _read("Slide a brick onto the left mat.")
    assert asked is not None and len(asked.options) == 3
