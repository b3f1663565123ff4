"""The structures held-out 25 showed, read generally: held-out 25's clause frames
(:mod:`miles_ros.agent.regarded`: an aside about where a thing is, "that pad" back, each pad
with one first, a cube made to face the robot, cubes sorted by weight), the front / back two
said as an adjective (:func:`~miles_ros.agent.recast.of_two_at`), a verbless "gripper over X"
(:func:`~miles_ros.agent.recast.arm_over`), a two-cube tower "with X on Y"
(:func:`~miles_ros.agent.reframed.tower_by`), "relax" and "no task" as no motion
(:mod:`miles_ros.agent.no_motion`) and "X is too far left, bring it ..."
(:func:`~miles_ros.agent.retold.said_then_it`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says (other nouns, verbs, separators), with cubes
moved by hypothesis, and look-alikes that must keep their reading. Reading only: no planner
run."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.no_motion import asks_no_motion
from miles_ros.agent.regarded import by_weight, each_pad_first, that_pad
from tests.agent.test_reading_rules import SCENE
from tests.agent.test_recast import _read, colours

PLACES = (("left", "yellow"), ("right", "grey"))


# -- the wrong motion, or a plan where a refusal is due ---------------------------------------
@given(colours, st.sampled_from(["left", "right"]), st.floats(0.05, 0.12), st.booleans())
@settings(max_examples=6, deadline=None)
def test_one_of_the_front_or_back_pair_by_its_side(order, side, half, back):
    """Two cubes side by side at one end of the table, the third at the other end: "the left
    one of the two front / nearer / rear cubes" is the pair's cube on that side."""
    a, b, c = order
    y = half if side == "left" else -half
    x_pair, x_rest = (0.6, 0.4) if back else (0.4, 0.6)
    world = SCENE.copy()
    world.objects = {
        f"{a}_cube": (x_pair, y, 0.02),
        f"{b}_cube": (x_pair, -y, 0.02),
        f"{c}_cube": (x_rest, 0.0, 0.02),
    }
    end = "rear" if back else "nearer"
    for said in (
        f"Out of the two {end} bricks, drop the {side}-hand one onto the grey tile.",
        f"The two {end} boxes - lift the one on the {side} to the yellow mat.",
    ):
        text, reading, asked = _read(said, world)
        assert asked is None and reading.refusal is None, said
        assert f"the {a} cube" in text.lower() and f"the {b} cube" not in text.lower()


def test_a_tower_of_two_with_x_on_y_puts_x_on_y():
    for said, top, bottom in (
        ("Build me a small stack with the green box on the red box.", "green", "red"),
        ("Form a two-brick pile with the red one on top of the blue one.", "red", "blue"),
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None
        assert f"the {top} cube on the {bottom} cube" in text.lower()


@pytest.mark.parametrize(
    "said",
    [
        "Nothing for you to do yet - take a breather.",
        "There is no job for you just now, so rest.",
        "Chill out; no work for you at the moment.",
        "At ease, there's nothing for you.",
    ],
)
def test_no_task_and_relaxing_is_no_motion(said):
    assert asks_no_motion(said)


@pytest.mark.parametrize(
    "said",
    [
        "Relax, then stack the red box on the blue box.",
        "No task for the green cube; put the red one on the grey mat.",
        "Rest the red brick on the yellow tile.",
        "Take a break after you hover over the grey mat.",
    ],
)
def test_a_request_beside_relaxing_is_not_no_motion(said):
    assert not asks_no_motion(said)


def test_a_thing_not_a_cube_by_colour_said_too_far_keeps_its_words():
    said = "That cube is too far left, carry it to the grey mat."
    assert _read(said)[0].lower().startswith("that cube is too far left")


@given(colours, st.floats(0.05, 0.2))
@settings(max_examples=4, deadline=None)
def test_a_cube_said_too_far_to_one_side_then_it_is_that_cube(order, off):
    a, b, c = order
    world = SCENE.copy()
    world.objects = {
        f"{a}_cube": (0.45, off, 0.02),
        f"{b}_cube": (0.45, -off, 0.02),
        f"{c}_cube": (0.6, 0.0, 0.02),
    }
    for said in (
        f"The {a} box sits much too far left, so carry it onto the grey tile.",
        f"{a.capitalize()} brick is too far out to the left; bring it to the yellow mat.",
    ):
        text, reading, asked = _read(said, world)
        assert asked is None and reading.refusal is None, said
        assert text.lower().startswith(("carry the", "bring the")) and f"the {a} " in text.lower()


# -- refused where the goal is feasible ---------------------------------------------------
@pytest.mark.parametrize(
    "said, target",
    [
        ("your gripper straight above the blue brick, thanks", "the blue brick"),
        ("Claw over the grey tile please.", "the right pad"),
    ],
)
def test_a_verbless_fragment_with_the_tool_over_a_thing_is_a_hover(said, target):
    text, reading, asked = _read(said)
    assert asked is None and reading.refusal is None
    assert text.lower().startswith(f"hover over {target}")


def test_the_tool_over_a_thing_inside_a_sentence_keeps_its_words():
    text, _, _ = _read("The gripper over the red box is open; put the blue box on the grey mat.")
    assert text.lower().startswith("the gripper over")
    assert "no skill" in _read("hand over the red box")[1].refusal  # a handing, not a hover


@pytest.mark.parametrize(
    "said",
    [
        "Nudge the green box to the grey tile, it is really close by.",
        "Lift the red brick onto the yellow mat - that's not far away.",
        "Slide the blue box onto the grey mat; it's only a short way off.",
    ],
)
def test_an_aside_about_where_a_thing_is_asks_no_step(said):
    text, reading, asked = _read(said)
    assert asked is None and reading.refusal is None
    assert not any(w in text.lower() for w in ("close", "far", "short way", "it's", "it is"))


@given(colours, st.sampled_from(PLACES))
@settings(max_examples=4, deadline=None)
def test_that_pad_is_the_one_pad_named_before(order, place):
    side, colour = place
    a = order[0]
    said = f"Take the {a} brick nearest to the {colour} tile and drop it onto that tile."
    assert that_pad(said, PLACES).endswith(f"onto the {colour} tile.")
    text, reading, asked = _read(said)
    assert asked is None and reading.refusal is None
    assert f"the {side} " in text.lower().split("onto")[-1]


@pytest.mark.parametrize(
    "said",
    [
        "Do you see the grey tile? Drop the red brick over onto that tile.",
        "Carry the red box over to where the grey mat is, right on to that mat.",
    ],
)
def test_a_pad_pointed_out_then_that_pad_is_said_once(said):
    text, reading, asked = _read(said)
    assert asked is None and reading.refusal is None
    assert text.lower().count("right") == 1 and "see" not in text.lower()


def test_that_pad_after_two_pads_or_none_keeps_its_words():
    both = "Move the red box from the yellow mat to the grey mat, then back to that mat."
    assert that_pad(both, PLACES) == both
    none = "Slide the red box onto that mat."
    assert that_pad(none, PLACES) == none


@pytest.mark.parametrize(
    "first, other", [("yellow", "right"), ("left", "right"), ("grey", "left")]
)
def test_each_pad_with_one_said_first_is_two_reaches_in_that_order(first, other):
    said = f"Travel over all the tiles, beginning with the {first} one."
    plain = each_pad_first(said, PLACES)
    assert plain.endswith(f"then hover over the {other} pad")
    assert each_pad_first("Hover over both pads.", PLACES) == "Hover over both pads."


@given(st.sampled_from(["red", "green", "blue"]))
@settings(max_examples=3, deadline=None)
def test_a_cube_made_to_face_the_robot_is_the_turn(colour):
    for said in (
        f"Get the {colour} brick to look at you head on.",
        f"Have the {colour} box point at the robot directly.",
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None
        assert text.lower().startswith(f"turn the {colour} ")
        assert "face points at the robot" in text.lower()


# -- asked where the goal is refused ---------------------------------------------------------
@pytest.mark.parametrize(
    "said",
    [
        "Rank the boxes from the heaviest to the lightest.",
        "Could you order the bricks according to their weight?",
    ],
)
def test_cubes_sorted_by_weight_are_refused_naming_the_verb(said):
    assert by_weight(said) == "Weigh the cubes."
    _, reading, asked = _read(said)
    assert asked is None and reading.refusal.startswith("no skill can weigh")


def test_sorting_by_position_or_a_light_pad_is_not_weighing():
    for said in (
        "Sort the blocks from left to right.",
        "Set the red box by the grey mat.",
        "Put the red brick by the light, on the yellow mat.",
    ):
        assert by_weight(said) == said
