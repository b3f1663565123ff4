"""The structures held-out 24 showed, read generally: a goal asking for no motion
(:mod:`miles_ros.agent.no_motion`), a thing's colour in any noun phrase and the colour words in
one place (:mod:`miles_ros.agent.scene_colours`), held-out 24's clause frames
(:mod:`miles_ros.agent.recounted`), a wait above a thing reached with the gripper
(:func:`~miles_ros.agent.still.wait_at`), steps to do in reverse with a skill's verb
(:func:`~miles_ros.agent.clause_frames._in_reverse`), a cube said where it is, then "it"
(:func:`~miles_ros.agent.retold.said_then_it`), "only then" as an order word
(:mod:`~miles_ros.agent.scope`) and a push or a turn of a cube on a tower refused
(:func:`~miles_ros.agent.outside._off_table`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says (other nouns, verbs, separators), with cubes
moved by hypothesis, and look-alikes that must keep their reading. Reading only: no planner
run."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.grounding import Step
from miles_ros.agent.no_motion import asks_no_motion
from miles_ros.agent.outside import _off_table
from miles_ros.agent.recounted import first_after, moved_about, not_stacked, two_high
from miles_ros.agent.scene_colours import COLOUR_WORDS, colour_said, cube_colours, pad_colours
from tests.agent.test_reading_rules import SCENE, moved
from tests.agent.test_recast import SHIPPED, _read, colours

THREE = frozenset({"red", "green", "blue"})
PLACES = (("left", "yellow"), ("right", "grey"))


def _two_tower(bottom: str, top: str, alone: str, x: float = 0.42, y: float = -0.1):
    """The scene with ``top`` on ``bottom`` at (x, y) and ``alone`` on the table apart."""
    world = SCENE.copy()
    world.objects = {
        f"{bottom}_cube": (x, y, 0.02),
        f"{top}_cube": (x, y, 0.06),
        f"{alone}_cube": (0.40, 0.16, 0.02),
    }
    return world


# -- the wrong motion, or a plan where a refusal is due ---------------------------------------
@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_push_or_turn_of_a_cube_on_a_tower_is_outside(order):
    bottom, top, alone = order
    world = _two_tower(bottom, top, alone)
    for skill in ("push", "turn"):
        params = {"object": f"{top}_cube"}
        params |= {"target": "right_pad"} if skill == "push" else {"angle": 30.0}
        assert "not resting on the table" in _off_table(Step(skill, params), SHIPPED, world)
        params["object"] = f"{alone}_cube"
        assert _off_table(Step(skill, params), SHIPPED, world) is None
    lifted = Step("pick_place", {"object": f"{top}_cube", "target": "left_pad"})
    assert _off_table(lifted, SHIPPED, world) is None  # a lift takes a cube off a tower


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_tower_finished_with_a_cube_goes_on_its_top(order):
    bottom, top, alone = order
    world = _two_tower(bottom, top, alone)
    for said in (
        f"Finish off the pile with the {alone} brick.",
        f"Complete the tower by popping the {alone} box on top of it.",
    ):
        text, reading, asked = _read(said, world)
        assert asked is None and reading.refusal is None
        assert f"on top of the {top} cube" in text.lower()


def test_a_wait_above_a_thing_reached_with_the_gripper_is_one_hover():
    for said in (
        "Take your hand across to the yellow tile and stay above it.",
        "Head over to the red brick with your gripper and keep above it.",
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None
        assert text.lower().startswith("hover over the") and " and " not in text
    kept = "Take the red brick to the left mat and keep it there."
    assert not _read(kept)[0].lower().startswith("hover")


def test_steps_to_do_in_reverse_with_a_skills_verb_are_reversed():
    said = "Reverse the order of these: approach the grey tile, then tap the blue brick."
    text = _read(said)[0].lower()
    assert text.index("the blue brick") < text.index(", then approach the right pad")


# -- refused where the goal is feasible --------------------------------------------------------
@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("Slide the green box onto the tile that has a grey colour.", "the grey tile"),
        ("Set the blue brick down on the platform of yellow colour.", "the yellow platform"),
        ("Pop the red box onto the mat in yellow.", "the yellow mat"),
        ("Nudge the green box to the right tile - the grey one.", "the grey tile"),
        ("Drop the blue brick on the tile on the left side, the yellow one.", "the yellow tile"),
        ("Move the box with the same colour as the sea to the left mat.", "the box coloured like"),
        (
            "Put the brick that matches the colour of leaves on the right mat.",
            "the brick coloured",
        ),
        ("blue box over to grey tile", "to the grey tile"),
    ],
)
def test_a_colour_in_another_noun_phrase_is_the_colour_before_the_noun(said, plain):
    assert plain in colour_said(said, PLACES)


@pytest.mark.parametrize(
    "said",
    [
        "Slide the green box to the right tile - the yellow one.",  # side and colour disagree
        "Put the red brick in yellow paint on the left mat.",  # a colour noun, not the mat's
        "Put the blue box on the tile with the stripes.",
    ],
)
def test_a_colour_not_the_things_keeps_its_words(said):
    assert colour_said(said, PLACES) == said


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_pad_by_colour_in_a_fragment_is_read(order):
    a, _, _ = order
    text, reading, asked = _read(f"{a} brick to grey tile thx")
    assert asked is None and reading.refusal is None
    assert f"{a} cube" in text.lower() and "right pad" in text.lower()


def test_the_colour_words_are_the_scenes_and_englishs():
    assert {"red", "grey", "gray", "yellow", "crimson", "purple"} <= set(COLOUR_WORDS)
    assert cube_colours(SCENE) == THREE
    assert pad_colours(SCENE) == PLACES  # config/scene.yaml's pads, named from their RGBA
    recoloured = SCENE.copy()
    recoloured.colors = {**SCENE.colors, "left_pad": (0.55, 0.25, 0.70, 1.0)}
    assert ("left", "purple") in pad_colours(recoloured)
    said = "Nudge the green box to the pad in purple."
    assert "the left pad" in _read(said, recoloured)[0]


@given(colours)
@settings(max_examples=4, deadline=None)
def test_the_cube_not_in_the_tower_is_the_one_apart(order):
    bottom, top, alone = order
    world = _two_tower(bottom, top, alone)
    text, reading, asked = _read("Shove the box which is not in the pile to the left mat.", world)
    assert asked is None and reading.refusal is None and f"{alone} cube" in text.lower()
    assert not_stacked("Put the brick on the stack on the left mat.").endswith(
        "stack on the left mat."
    )


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_state_reached_then_it_is_the_placing_then_onto_that_cube(order):
    a, b, _ = order
    said = f"As soon as the {a} box has been carried to the yellow tile, pile the {b} box on it."
    text, reading, asked = _read(said)
    assert asked is None and reading.refusal is None
    low = text.lower()
    assert low.index(f"{a} box on the left") < low.index(f"the {b} box on the {a} box")


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_cube_held_then_it_placed_is_one_placing(order):
    a, b, _ = order
    text, reading, asked = _read(f"Get hold of the {a} box; next, lay it on the {b} box.")
    assert asked is None and reading.refusal is None
    assert f"pick up the {a} box and put it on the {b} box" in text.lower()


@given(colours, st.sampled_from(["left", "right"]))
@settings(max_examples=4, deadline=None)
def test_a_cube_said_where_it_is_then_it(order, side):
    a, b, _ = order
    text, _, _ = _read(f"The {a} brick's off to your {side} - stack it on the {b} brick.")
    assert text.lower().startswith(f"stack the {a} brick on the {b} brick")


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_tower_of_two_said_by_its_cubes_puts_the_top_on_the_other(order):
    a, b, c = order
    said = f"Form a tower using the {a} and {b} bricks, the {b} one on top."
    assert two_high(said, THREE) == f"Put the {b} cube on the {a} cube."
    kept = f"Form a tower using the {a} and {b} bricks, the {c} one on top."
    assert two_high(kept, THREE) == kept  # the top is neither of the two


def test_a_skill_ruled_out_by_name_is_its_manner():
    text, reading, asked = _read("Never use the pushing skill for this: carry the red box to P.")
    assert text.endswith("without pushing it.")
    text, _, _ = _read("No lifting skill here - slide the green box to the grey tile.")
    assert text.endswith("without lifting it.")


def test_a_push_kept_on_the_table_after_it_is_its_manner():
    text, reading, asked = _read(
        "Scoot the blue brick over to the yellow tile, keeping it flat on the table."
    )
    assert asked is None and reading.refusal is None and text.endswith("without lifting it.")


def test_the_order_said_after_the_step_comes_first():
    said = "Tap the grey tile - but first of all, head home."
    assert _read(said)[0].lower().startswith("head home, then ")
    kept = "Put the red cube on the left pad, but first put the blue cube on the right pad."
    assert first_after(kept) == kept  # left to the order rules (clause_order.py)


def test_only_then_is_an_order_word_not_a_restriction():
    said = "Push the blue box to the grey tile first; only after that the red box to the left mat."
    _, reading, _ = _read(said)
    assert reading.refusal is None
    _, reading, _ = _read("Move only the red box - and put the green box on the left mat.")
    assert reading.refusal  # "only" before a cube still restricts


# -- no motion ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "said",
    [
        "Just making sure you can hear me - there's no need to act.",
        "Everything's okay; no movement required, thanks.",
        "Remain completely still until we say so.",
        "Disregard my last request, nothing is needed.",
        "Call that off - we don't want anything else.",
        "Just testing the lights, you don't need to move.",
    ],
)
def test_a_goal_asking_for_no_motion_is_an_empty_plan(said):
    _, reading, asked = _read(said)
    assert asked is None and reading.nothing and not reading.refusal


@pytest.mark.parametrize(
    "said",
    [
        "Disregard the red box; no need to move it.",
        "Everything's okay, now slide the red box to the left mat.",
        "Stay where you are, then hover over the blue brick.",
        "Keep the green box still while you put the red box on the left mat.",
        "Just checking.",
    ],
)
def test_a_goal_with_a_request_or_a_remark_alone_is_not_no_motion(said):
    assert not asks_no_motion(said)


# -- asked where the goal says no place or no cube ---------------------------------------------
@given(st.lists(st.tuples(st.floats(0.35, 0.6), st.floats(-0.2, 0.2)), min_size=3, max_size=3))
@settings(max_examples=4, deadline=None)
def test_cubes_moved_about_or_swapped_unnamed_are_asked(positions):
    for said in ("Mix the boxes up a little, please.", "Exchange the two round."):
        assert moved_about(said) == "Move a cube."
        _, reading, asked = _read(said, moved(positions))
        assert asked is not None and reading.refusal is None
    kept = "Swap the red box with the blue one."
    assert moved_about(kept) == kept


def test_hanging_over_a_thing_is_a_hover():
    for said in ("Dangle the gripper just above the yellow tile.", "Linger ovr the blue brick."):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None
        assert text.lower().startswith("hover over the")
    assert not _read("Hang the blue brick on the left mat.")[0].lower().startswith("hover")
