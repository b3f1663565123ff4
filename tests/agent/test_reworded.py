"""The structures held-out 17 showed, read generally (:mod:`miles_ros.agent.reworded`, the
superlative along the table's depth in :mod:`~miles_ros.agent.references`, a pad moved, a
pick with no place, no motion said as staying): each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says (other nouns, verbs, separators), with cubes
moved by hypothesis, and look-alikes that must keep their reading."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.grounding import Step
from miles_ros.agent.restated import stacked_said
from miles_ros.agent.reworded import (
    asked_free,
    colour_order,
    described_first,
    hung_over,
    nothing_else,
    once_there,
    pad_which,
    put_last,
    reworded,
    unhedged,
    verb_shared,
    wish_forbids,
)
from tests.agent.reading_harness import SHIPPED, _read, colours, moved

table = st.lists(
    st.tuples(st.floats(0.35, 0.62), st.floats(-0.25, 0.25)), min_size=3, max_size=3
).filter(
    lambda ps: all(
        abs(a[1] - b[1]) > 0.08 and abs(a[0] - b[0]) > 0.03
        for i, a in enumerate(ps)
        for b in ps[i + 1 :]
    )
)


# -- motion nobody asked for ----------------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(
    table,
    colours,
    st.sampled_from(
        [
            "We don't want you nudging the {b} brick. Lower the {a} brick onto the grey mat.",
            "Drop the {a} block on the yellow mat; I do not want you to lift the {b} block.",
            "I don't want you coming anywhere near the {b} box - set the {a} box on the left mat.",
        ]
    ),
)
def test_a_wish_that_forbids_keeps_the_cube_out_of_the_plan(positions, order, form):
    a, b, _ = order
    goal = form.format(a=a, b=b)
    text, reading, asks = _read(goal, moved(positions))
    assert reading.refusal is None and asks is None
    assert reading.prohibited(Step("push", {"object": f"{b}_cube", "target": "left_pad"}), SHIPPED)
    assert not reading.prohibited(
        Step("push", {"object": f"{a}_cube", "target": "left_pad"}), SHIPPED
    )
    assert "want" not in text.lower()


def test_a_wish_that_forbids_nothing_stays():
    for goal in (
        "I don't want you to go home yet - hover over the red cube.",
        "I want you touching the red cube gently: push it onto the left pad.",
    ):
        assert wish_forbids(goal) == goal


@pytest.mark.parametrize(
    "goal",
    [
        "Transfer the grey square across the table.",
        "Raise the right mat up onto the blue brick.",
        "Move the yellow pad beside the red cube.",
    ],
)
def test_a_pad_moved_is_refused(goal):
    _, reading, asks = _read(goal)
    assert asks is None and reading.refusal and "fixed to the table" in reading.refusal


def test_a_cube_by_a_pad_next_to_it_is_no_pad_moved():
    _, reading, _ = _read("Put the red cube next to the left pad.")
    assert reading.refusal is None


@pytest.mark.parametrize(
    "goal",
    [
        "Okay, go ahead and grab the green brick quickly.",
        "Can you take hold of the red block right now?",
        "Hey robot, lift the blue box up, will you.",
    ],
)
def test_a_pick_with_no_place_asks_where(goal):
    _, reading, asks = _read(goal)
    assert reading.refusal is None and asks is not None
    assert asks.question.startswith("Where should")


@settings(max_examples=6, deadline=None)
@given(
    table,
    colours,
    st.sampled_from(["left", "right"]),
    st.sampled_from(
        [
            "Is the {p} mat unoccupied at the moment? Great, lower the {a} brick onto it.",
            "Is there space on the {p} pad? If so, drop the {a} block over there.",
        ]
    ),
)
def test_a_question_about_a_pad_then_a_step_onto_it(positions, order, pad, form):
    a = order[0]
    goal = form.format(p=pad, a=a)
    said = asked_free(goal)
    assert said != goal and f"the {pad} " in said and "?" not in said
    _, reading, asks = _read(goal, moved(positions))
    assert asks is None and reading.refusal is None
    assert reading.names[:2] == [f"{a}_cube", f"{pad}_pad"]


def test_a_question_about_a_pad_with_no_step_onto_it_stays():
    goal = "Is the grey pad free? Then hover over the blue cube."
    assert asked_free(goal) == goal


# -- the order said ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("goal", "first"),
    [
        (
            "Lower the red brick onto the grey mat. Oh, keep that for the end - first go home.",
            "go",
        ),
        (
            "Tap the blue box, but that one comes last; before that, hover over the left mat.",
            "hover",
        ),
        ("Go home at the end; begin by sliding the green brick to the left mat.", "slide"),
    ],
)
def test_a_step_put_off_to_the_end_goes_last(goal, first):
    said = put_last(goal)
    assert said != goal and said.lower().startswith(first)
    assert ", then " in said


def test_last_said_of_a_thing_is_no_step_put_off():
    goal = "Push the red cube to the left pad last time, then hover over the blue cube."
    assert put_last(goal) == goal


@settings(max_examples=6, deadline=None)
@given(
    colours,
    st.sampled_from(
        [
            "Lower the {b} brick onto the left mat and then the {a} brick onto the grey mat - "
            "oh, {a} first.",
            "Drop the {b} block on the yellow mat, next the {a} block on the right mat; "
            "take care of the {a} one before the {b} one.",
            "Lower the {b} box onto the left mat and the {a} box onto the right mat. The {a} one "
            "should go ahead of the {b} one.",
        ]
    ),
)
def test_the_cube_said_first_by_its_colour_goes_first(order, form):
    a, b, _ = order
    said = colour_order(form.format(a=a, b=b))
    first, _, second = said.partition(", then ")
    assert a in first.lower() and b not in first.lower() and b in second.lower()


def test_an_order_by_colour_naming_no_clause_stays():
    goal = "Put the red cube on the left pad and the blue cube on the right pad; green first."
    assert colour_order(goal) == goal


def test_a_subject_clause_lends_its_predicate():
    goal = (
        "The green brick has to go on the left mat and the blue one on the right mat - do the "
        "blue one before the green one."
    )
    said = colour_order(goal)
    assert said.lower().startswith("the blue one has to go on the right mat, then the green")


def test_a_second_clause_without_its_verb_takes_the_first():
    said = verb_shared("Lower the red brick onto the left mat and after that the blue one to Q")
    assert "after that lower the blue one to" in said
    goal = "Lower the red brick onto the left mat and then hover over the blue one."
    assert verb_shared(goal) == goal


# -- refused or asked where the goal said it ------------------------------------------------
@pytest.mark.parametrize(
    "goal",
    [
        "Could you position the arm so that it hangs directly above the grey mat?",
        "Get the end effector so it's hovering just over the blue brick, thanks.",
        "Please move right above the red box.",
    ],
)
def test_a_hover_said_as_hanging_is_a_hover(goal):
    assert hung_over(goal).startswith("hover over the ")


def test_moving_to_the_right_is_no_hover():
    for goal in ("Move the red cube right over to the left pad.", "Move right, please."):
        assert hung_over(goal) == goal


def test_a_hedged_request_is_the_request():
    goal = (
        "I was hoping, since the green brick is blocking me, that perhaps you could lift it and"
        " lower it onto the grey mat - would that be possible?"
    )
    said = unhedged(goal)
    assert said.lower().startswith("lift the green brick and lower it onto the grey mat")
    plain = "Put the red cube on the left pad - is that okay?"
    assert unhedged(plain) == plain  # no hedge before it: the tag stays for the reading


@settings(max_examples=6, deadline=None)
@given(table, colours)
def test_whichever_pad_is_the_colour(positions, order):
    goal = f"Lower the {order[0]} brick onto the mat - whichever one is yellow - please."
    assert "the yellow pad" in pad_which(goal)
    _, reading, asks = _read(goal, moved(positions))
    assert asks is None and "left_pad" in reading.names


@settings(max_examples=6, deadline=None)
@given(table, colours)
def test_nothing_else_moving_is_no_contradiction(positions, order):
    a, b, c = order
    goal = f"Lower the {a} brick onto the grey mat; nothing else may move."
    assert "don't touch the other cubes" in nothing_else(goal)
    _, reading, asks = _read(goal, moved(positions))
    assert reading.refusal is None and asks is None
    for other in (b, c):
        step = Step("pick_place", {"object": f"{other}_cube", "target": "left_pad"})
        assert reading.prohibited(step, SHIPPED)
    step = Step("pick_place", {"object": f"{a}_cube", "target": "right_pad"})
    assert not reading.prohibited(step, SHIPPED)


def test_anything_moved_with_nothing_said_stays_forbidden():
    _, reading, _ = _read("Don't move anything, then put the red cube on the right pad.")
    assert reading.refusal


@settings(max_examples=6, deadline=None)
@given(table, colours)
def test_it_before_the_cube_is_named_is_that_cube(positions, order):
    a = order[0]
    goal = f"Try not to grab it with your hand - only shove the {a} brick over to the left mat."
    text, reading, asks = _read(goal, moved(positions))
    assert asks is None and reading.refusal is None
    assert text.lower().startswith(f"shove the {a} brick over to the left mat")
    assert ("grasps", f"{a}_cube") in reading.forbid


def test_it_with_a_cube_named_before_stays():
    text, _, _ = _read("Don't push it, just push the green brick onto the grey mat.")
    assert text.lower().startswith("don't push")


@settings(max_examples=6, deadline=None)
@given(table, colours)
def test_a_cube_described_then_it_is_that_cube(positions, order):
    a, b, _ = order
    goal = f"That {a} brick is blocking the view over there; lower it onto the {b} brick."
    kept = f"That {a} brick is too close to the edge; lower it onto the {b} brick."
    assert described_first(kept) == kept
    said = described_first(goal)
    assert said.lower() == f"lower the {a} brick onto the {b} brick."
    _, reading, asks = _read(goal, moved(positions))
    assert asks is None and reading.refusal is None


def test_a_cube_said_where_it_goes_stays():
    goal = "The red cube is going on the left pad - put it there."
    assert described_first(goal) == goal


def test_once_there_is_then():
    said = once_there(
        "Go above the blue brick first, and as soon as you get there, shove it left."
    )
    assert said == "Go above the blue brick, then shove the blue brick left."
    said = once_there("Move over the left mat; when you get there, drop that block on it.")
    assert said == "Move over the left mat, then drop that block on it."  # a pad: no cube


# -- no motion --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "goal",
    [
        "Robot, remain still for a moment.",
        "Keep right there, would you.",
        "Hang on - just stay here and do not move.",
    ],
)
def test_staying_where_it_is_asks_for_no_motion(goal):
    _, reading, asks = _read(goal)
    assert reading.nothing and reading.refusal is None and asks is None


def test_staying_off_a_cube_is_a_prohibition_not_stillness():
    _, reading, _ = _read("Stay away from the red cube and hover over the blue cube.")
    assert not reading.nothing


# -- a superlative along the table's depth ----------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(
    table,
    st.sampled_from(
        [
            ("Lower the brick furthest back onto the left mat.", max),
            ("Drop the block at the very rear onto the grey mat.", max),
            ("Lower the backmost box onto the left mat.", max),
            ("Drop the brick nearest to the front onto the grey mat.", min),
            ("Lower the frontmost block onto the left mat.", min),
        ]
    ),
)
def test_a_cube_by_depth_is_the_one_furthest_along_x(positions, said):
    goal, pick = said
    world = moved(positions)
    want = pick(world.objects, key=lambda n: world.objects[n][0])
    _, reading, asks = _read(goal, world)
    assert asks is None and reading.refusal is None
    assert reading.names[0] == want


def test_two_cubes_level_in_depth_are_asked_about():
    world = moved([(0.5, 0.1), (0.505, -0.1), (0.4, 0.0)])
    _, reading, asks = _read("Stack the blue cube on the cube furthest back.", world)
    assert asks is not None and set(asks.options) == {"red_cube", "green_cube"}


def test_a_level_superlative_from_the_robot_is_asked_not_refused():
    world = moved([(0.5, 0.05), (0.5, -0.05), (0.36, -0.2)])
    _, reading, asks = _read("Stack the blue cube on the cube farthest from the robot.", world)
    assert reading.refusal is None and asks is not None


def test_in_front_of_a_cube_is_no_depth_superlative():
    world = moved([(0.5, 0.0), (0.4, 0.2), (0.6, -0.2)])
    text, _, _ = _read("Put the cube in front of the red cube on the left pad.", world)
    assert "green cube" in text.lower()


def test_reworded_leaves_a_plain_goal_as_it_is():
    for goal in ("Put the red cube on the left pad, then go home.", "hover over the blue cube"):
        assert reworded(goal) == goal


@given(colours)
@settings(max_examples=6, deadline=None)
def test_the_middle_one_after_the_top_of_a_tower_of_three(order):
    low, mid, top = order
    tower = {f"{low}_cube": (0.5, 0.0, 0.02), f"{mid}_cube": (0.5, 0.0, 0.06)}
    tower[f"{top}_cube"] = (0.5, 0.0, 0.10)
    said = stacked_said(
        "Lift the highest brick onto the left mat, then the middle one onto the grey mat.",
        [[f"{low}_cube", f"{mid}_cube", f"{top}_cube"]],
    )
    assert f"the {mid} cube onto the grey mat" in said
    flat = "Lift the red brick onto the left mat, then the middle one onto the grey mat."
    assert stacked_said(flat, []) == flat


def test_a_question_naming_a_cube_by_relation_then_that():
    world = moved([(0.45, -0.1), (0.55, 0.05), (0.4, 0.15)])  # green behind red
    for goal in (
        "Is there a brick behind the red one? Lower that onto the grey mat.",
        "Any block further back than the red block? Drop that one on the grey mat.",
    ):
        _, reading, asks = _read(goal, world)
        assert asks is None and reading.refusal is None
        assert reading.names[:2] == ["green_cube", "right_pad"]
