"""Round 51's classes (held-out 43's and 40-42's unread misses, issue 31), read generally: a
manner or a restatement said with the move, one move (said_once.py); nothing to do said by a
noun of work denied or a verb of waiting (no_motion.py); a pad said by "the C one", "that C
pad" or "C-pad-wards" (said_once.py); asking only when the goal leaves something open
(said_once.py); descriptions that identify a cube (identified.py). Reading only, in fresh
wordings, hypothesis over colours, nouns, pads and layouts, with look-alikes that must not
change."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.no_motion import asks_no_motion
from miles_ros.agent.said_once import said_once
from tests.agent.reading_harness import (
    SCENE,
    _read,
    colours,
    moved,
    read_as_nothing,
    read_like,
    two_high,
)

NOUNS = st.sampled_from(["cube", "block", "box", "brick"])
PADS = st.sampled_from(["yellow pad", "grey pad", "left mat", "right pad"])
SIDE = {"yellow": "left", "grey": "right"}


@given(colours, NOUNS, PADS)
@settings(max_examples=20, deadline=None)
def test_a_participle_of_manner_says_how_never_a_second_move(order, noun, pad):
    a, b = order[0], order[1]
    lifted = [
        f"Put the {a} {noun} on the {pad}, lifting it over the {b} {noun}.",
        f"Put the {a} {noun} on the {pad}, picking it up first.",
        f"Put the {a} {noun} on the {pad}, carrying it clear of the {b} one.",
        f"Put the {a} {noun} on the {pad}, by raising it.",
        f"Put the {a} {noun} on the {pad} by hoisting it over {b}.",
    ]
    for _, reading, asks in read_like(f"Put the {a} {noun} on the {pad} by lifting it.", lifted):
        assert reading.refusal is None and asks is None
    slid = [f"Put the {a} {noun} on the {pad}, sliding it along the table."]
    read_like(f"Put the {a} {noun} on the {pad} by pushing it.", slid)
    for goal in lifted:
        assert b not in _read(goal)[0].lower(), goal


@given(colours, NOUNS, PADS)
@settings(max_examples=15, deadline=None)
def test_two_moves_and_a_cube_lifted_over_onto_another_stay_two_or_onto_it(order, noun, pad):
    a, b = order[0], order[1]
    for goal in (
        f"Lift the {a} {noun} over onto the {b} {noun}.",
        f"Lift the {a} {noun} onto the {pad}, then put the {b} {noun} on the {a} {noun}.",
        f"Push the {a} {noun} to the {pad} and then lift it onto the {b} {noun}.",
    ):
        text, reading, _ = _read(goal)
        assert b in text.lower() and reading.refusal is None, goal
    # no place in the clause: the participle is left as said
    goal = f"Move the {a} {noun} around, lifting it over the {b} one."
    assert said_once(goal, SCENE) == goal


@given(colours, NOUNS, PADS, st.sampled_from(["lower", "set", "put", "drop"]))
@settings(max_examples=20, deadline=None)
def test_lift_and_lower_it_onto_a_place_is_one_placing(order, noun, pad, verb):
    a = order[0]
    goals = [
        f"Lift the {a} {noun} up and {verb} it onto the {pad}.",
        f"Raise the {a} {noun} and {verb} it down onto the {pad}.",
        f"Hoist the {a} {noun} off the table and {verb} it onto the {pad}.",
    ]
    read_like(f"Pick up the {a} {noun} and put it onto the {pad}.", goals)


@given(colours, PADS)
@settings(max_examples=10, deadline=None)
def test_the_top_cube_named_again_by_colour_is_that_cube(order, pad):
    top, bottom, other = order
    world = two_high(top, bottom, other)
    goals = [f"Lift the top cube, the {top} one, onto the {pad}."]
    read_like(f"Lift the {top} cube onto the {pad}.", goals, world)


@given(colours, NOUNS)
@settings(max_examples=15, deadline=None)
def test_a_restatement_of_the_placing_adds_nothing(order, noun):
    a, b, c = order
    read_like(
        f"{a.capitalize()} goes on {b}.",
        [
            f"{a.capitalize()} goes on {b} - stack them like that, {a} up top.",
            f"{a.capitalize()} goes on {b}; pile them that way, {a} on top.",
        ],
    )
    read_like(
        f"Put the {a} {noun} on the {b} {noun}.",
        [f"Put the {a} {noun} on the {b} {noun}; {a} goes at the top."],
    )
    text, _, _ = _read(f"Put {a} on {b}, {c} on top.")  # a third cube: a second move
    assert c in text.lower()


LEADS = ["", "Okay, ", "Just ", "Right now, ", "Robot, "]
IDLE = [
    "no task for you",
    "no job for you",
    "there's no work to do",
    "no errands",
    "no orders for you",
    "no more jobs",
    "nothing on the list for you",
    "nothing lined up for you",
    "standby",
    "stand by",
    "hang on",
    "hold on",
    "idle",
    "rest",
    "stay put",
    "sit tight",
]
TAILS = ["", " right at this moment", " at present", " today", " for now", ", thanks", " yet"]


@given(st.sampled_from(LEADS), st.sampled_from(IDLE), st.sampled_from(TAILS))
@settings(max_examples=80, deadline=None)
def test_every_clause_saying_no_work_or_waiting_is_the_empty_plan(lead, idle, tail):
    read_as_nothing(f"{lead}{idle}{tail}.")


@given(colours, NOUNS, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=10, deadline=None)
def test_no_task_beside_a_step_keeps_the_step(order, noun, pc):
    a = order[0]
    for goal in (
        f"No other task today - just push the {a} {noun} to the {pc} pad.",
        f"No job but this: slide the {a} {noun} onto the {pc} pad.",
    ):
        assert not asks_no_motion(goal), goal
        text, reading, _ = _read(goal)
        assert not reading.nothing and a in text.lower(), goal
    for goal in ("Do the thing.", "Go.", "Hold the purple cube."):
        assert not asks_no_motion(goal), goal
        assert _read(goal)[1].refusal is not None, goal


@given(colours, NOUNS, st.sampled_from(["yellow", "grey"]), st.sampled_from(["pad", "mat"]))
@settings(max_examples=20, deadline=None)
def test_a_pad_said_by_its_colour_with_one_that_or_wards(order, noun, pc, n):
    a = order[0]
    oc = "grey" if pc == "yellow" else "yellow"
    for goal in (
        f"Not the {oc} {n}, the {pc} one: push the {a} {noun} there.",
        f"Push the {a} {noun} over onto that {pc} {n}.",
        f"The {a} {noun}, slide it {pc}-{n}-wards.",
        f"Not the {oc} {n} but the {pc} one: lift the {a} {noun} onto it.",
        f"The {pc} one, not the {oc} {n} - push the {a} {noun} there.",
        f"Of the two {n}s, use the {pc} one: put the {a} {noun} there.",
    ):
        text, reading, asks = _read(goal)
        assert reading.refusal is None or "no grey" not in reading.refusal, goal
        assert asks is None and f"{SIDE[pc]} pad" in text.lower(), (goal, text)
    # a cube's colour with "one" stays a cube
    b = order[1]
    text, _, _ = _read(f"Not the {b} {noun}, the {a} one: push it to the {pc} pad.")
    assert a in text.lower()


@given(st.sampled_from(["yellow", "grey"]))
@settings(max_examples=4, deadline=None)
def test_the_cube_onto_that_colour_pad_still_asks_which_cube(pc):
    _, reading, asks = _read(f"Slide the cube over onto that {pc} pad.")
    assert reading.refusal is None and asks is not None and "cube" in asks.question


@given(
    st.lists(st.floats(-0.28, 0.28), min_size=3, max_size=3, unique=True).filter(
        lambda ys: min(abs(p - q) for i, p in enumerate(ys) for q in ys[i + 1 :]) > 0.04
    ),
    st.sampled_from(["left", "right"]),
    NOUNS,
    PADS,
)
@settings(max_examples=20, deadline=None)
def test_the_cube_on_the_far_side_is_the_end_one(ys, side, noun, pad):
    world = moved([(0.45, y) for y in ys])
    names = ["red", "green", "blue"]
    end = names[ys.index(max(ys) if side == "left" else min(ys))]  # +y is the robot's left
    for goal in (
        f"The {noun} out on the far {side}: lift it to the {pad}.",
        f"Lift the {noun} at the far {side} end over to the {pad}.",
    ):
        text, reading, asks = _read(goal, world)
        assert asks is None and reading.refusal is None and end in text.lower(), (goal, text)


@given(colours, NOUNS)
@settings(max_examples=15, deadline=None)
def test_a_negated_placing_on_a_pad_asks_no_pad(order, noun):
    a, b = order[0], order[1]
    for goal in (
        f"Don't put the {a} {noun} on a pad; set it on top of the {b} {noun}.",
        f"Never place {a} onto any mat - stack it on {b}.",
        f"Not onto a pad - set the {a} {noun} on the {b} one.",
    ):
        text, reading, asks = _read(goal)
        assert asks is None and reading.refusal is None, (goal, text)
        assert a in text.lower() and b in text.lower(), goal
    for goal in ("Push it there.", "Put the cube on the pad."):
        assert _read(goal)[2] is not None, goal  # nothing named: still asked


@given(colours, NOUNS, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=10, deadline=None)
def test_a_named_cube_over_there_is_that_cube(order, noun, pc):
    a = order[0]
    goal = f"{a.capitalize()} {noun} over there - push it so it ends up on the {pc} pad."
    text, reading, asks = _read(goal)
    assert asks is None and a in text.lower() and f"{SIDE[pc]} pad" in text.lower(), goal


@given(colours)
@settings(max_examples=6, deadline=None)
def test_stack_them_all_in_the_order_given(order):
    b, a, c = order
    read_like(
        f"{a} on {b}, {c} on {a}.",
        [
            f"Stack them all: {b} at the bottom, {a} on {b}, {c} on {a}.",
            f"Pile them all up - the {b} one at the bottom, {a} on {b}, {c} on {a}.",
        ],
    )


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_tower_on_a_base_in_the_order_said(order):
    b, a, c = order
    read_like(
        f"put the {a} cube on the {b} cube, then put the {c} cube on the {a} cube.",
        [
            f"Make a tower on {b}: {a} goes on it first, {c} on the very top.",
            f"Build a stack on the {b} cube - the {a} one on it first, then {c} right at the top.",
        ],
    )


@given(colours, NOUNS, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=10, deadline=None)
def test_it_after_a_cube_placed_on_a_pad_is_that_cube(order, noun, pc):
    a, b = order[0], order[1]
    read_like(
        f"Put the {a} {noun} on the {pc} pad, then stack the {b} {noun} on top of it.",
        [f"Put the {a} {noun} on the {pc} pad, then stack the {b} {noun} on it."],
    )


@given(colours, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=10, deadline=None)
def test_a_description_identifies_and_is_checked(order, pc):
    top, bottom, other = order
    world = two_high(top, bottom, other)
    goal = f"The {top} cube on top of the {bottom} one - put it on {other}."
    text, reading, asks = _read(goal, world)
    assert reading.refusal is None and asks is None and bottom not in text.lower(), text
    assert _read(goal)[1].refusal is not None  # flat: the description is false
    for said in (
        "Hover over the lower cube of that stack.",
        f"Take the top block off and set it on the {pc} pad. Then hover over the block it was on.",
    ):
        text, reading, asks = _read(said, world)
        assert reading.refusal is None and asks is None, (said, reading.refusal, asks)
        assert text.lower().rstrip(".").endswith(f"{bottom} cube"), (said, text)


@given(colours)
@settings(max_examples=6, deadline=None)
def test_the_upper_cube_is_the_top_one_but_the_lowest_of_two_on_the_table_is_asked(order):
    top, bottom, other = order
    world = two_high(top, bottom, other)
    text, reading, asks = _read("Lift the upper box onto the grey pad.", world)
    assert asks is None and reading.refusal is None and top in text.lower(), text
    _, reading, asks = _read("Put the lowest cube on the left pad.", world)
    assert asks is not None, reading.refusal
