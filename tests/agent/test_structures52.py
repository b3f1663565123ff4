"""Round 52's classes (held-out 44's and 40-43's unread misses, issue 31), read generally: the
gripper as the thing moved, a manner restated in a clause of its own, a description sentence,
negations joined, an unstack's parenthesis and a three-cube tower with a middle (said_how.py);
the request called off, held off or "stay there" (no_motion.py); a height said by "until it is
N high" (towers.py). Reading only, in fresh wordings, hypothesis over colours, nouns, pads and
layouts, with look-alikes that must not change."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent import evaluation
from miles_ros.agent.no_motion import asks_no_motion
from miles_ros.agent.said_how import said_how
from tests.agent.reading_harness import SCENE, _read, colours, read_as_nothing, read_like, two_high

NOUNS = st.sampled_from(["cube", "block", "box", "brick"])
PADS = st.sampled_from(["yellow pad", "grey pad", "left mat", "right pad"])
TOOLS = st.sampled_from(["Gripper", "The gripper", "Your hand", "Fingers", "The tool", "The hand"])


@given(colours, NOUNS, TOOLS, st.sampled_from(["over", "above", "to", "right over"]))
@settings(max_examples=25, deadline=None)
def test_the_gripper_with_no_verb_is_a_reach_of_what_follows(order, noun, tool, prep):
    a = order[0]
    goals = [
        f"{tool} {prep} the {a} {noun}.",
        f"{tool} {prep} the {a} {noun}, please, just hovering.",
        f"Please, {tool.lower()} {prep} the {a} {noun}.",
    ]
    for text, reading, asks in read_like(f"Move the gripper {prep} the {a} {noun}.", goals):
        assert reading.refusal is None and asks is None, text


@given(
    st.sampled_from(["0.45", "0.5", "0.4"]),
    st.sampled_from(["-0.05", "0.1", "0"]),
    st.sampled_from(["0.25", "0.3"]),
    st.sampled_from(["hold it there", "keep it there", "then hold it right there"]),
)
@settings(max_examples=20, deadline=None)
def test_hold_it_there_after_the_gripper_adds_nothing(x, y, z, hold):
    for said in (
        f"Move the gripper to x={x} y={y} z={z}",
        f"Gripper at x={x} y={y} z={z}",
        f"Put the hand at x={x} y={y} z={z}",
    ):
        for goal in (f"{said} and {hold}.", f"{said}, {hold}.", f"{said}; {hold}."):
            ((text, reading, asks),) = read_like(f"{said}.", [goal])
            assert reading.refusal is None and asks is None and "hold" not in text, goal


@given(colours, NOUNS, PADS)
@settings(max_examples=10, deadline=None)
def test_a_grip_or_a_held_cube_is_not_the_gripper_moved(order, noun, pad):
    a = order[0]
    # a grasp verb or a cube held: no reach of the thing after the preposition
    for goal in (
        f"Grip the {a} {noun}.",
        f"Hold the {a} {noun} over the {pad}.",
        f"Pick up the {a} {noun} and hold it there.",
        f"Hand over the {a} {noun}.",  # a handing
        f"The gripper over the {a} {noun} is open; push it to the {pad}.",  # a description
    ):
        assert said_how(goal, SCENE) == goal, goal
    assert "hold it there" in said_how(f"Lift the {a} {noun} and hold it there.", SCENE)


@given(colours, NOUNS, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=25, deadline=None)
def test_a_manner_restated_on_the_same_cube_is_one_push(order, noun, pc):
    a = order[0]
    for goal, prep in (
        (f"The {a} {noun} has to get to the {pc} pad; slide it along the table.", "to"),
        (f"{a} {noun} over to the {pc} pad, shove it, no lifting", "over to"),
        (f"Take the {a} {noun} to the {pc} pad - push it, don't pick it up.", "to"),
        (
            f"{a.capitalize()} {noun}. Get it onto the {pc} pad. Push it, keep it on the table.",
            "onto",
        ),
    ):
        read_like(f"Push the {a} cube {prep} the {pc} pad", [goal])


@given(colours, NOUNS, PADS)
@settings(max_examples=25, deadline=None)
def test_a_manner_restated_on_the_same_cube_is_one_placing(order, noun, pad):
    a = order[0]
    for goal in (
        f"Grab the {a} {noun}, carry it, and leave it on the {pad}.",
        f"{a.capitalize()} {noun}. Set it on the {pad}. Lift it, don't slide it.",
        f"Take hold of the {a} {noun} and leave it on the {pad}.",
        f"Get the {a} {noun} on the {pad}; pick it up, no pushing.",
        f"Grip the {a} {noun}, then set it down on the {pad}.",
    ):
        read_like(f"Pick up the {a} cube and put it on the {pad}.", [goal])
    # a manner only denied is left to the reading of prohibitions
    goal = f"Put the {a} {noun} on the {pad}, no lifting."
    assert said_how(goal, SCENE) == goal


@given(colours, NOUNS, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=20, deadline=None)
def test_two_moves_two_cubes_or_home_said_are_left_as_said(order, noun, pc):
    a, b = order[0], order[1]
    q = "grey" if pc == "yellow" else "yellow"
    for goal in (
        f"Push the {a} {noun} to the {pc} pad, then lift it onto the {q} pad.",
        f"Put {a} on the {pc} pad, then push {b}.",
        f"Lift {a} onto the {pc} pad and leave it there, then home.",
        f"Leave the {a} {noun} on the {pc} pad.",
        f"Push the {a} {noun} onto the {pc} pad, lift it.",
        f"Lift the {a} {noun} onto the {pc} pad, push it.",
        f"Move the gripper to the {pc} pad; push {a} along the table.",
        f"Pick up the {a} {noun} and move it to the left.",
        f"Grab {a}, carry it to the side.",
    ):
        assert said_how(goal, SCENE) == goal, goal
    # a placing and a manner of another cube: both cubes stay in the reading
    text = _read(f"Put the {a} {noun} on the {pc} pad, then lift {b}.")[0].lower()
    assert a in text and b in text


CALLED_OFF = [
    "cancel that order",
    "scrap the job",
    "forget the task",
    "never mind that request",
    "drop it",
    "call off the job",
    "call that off",
    "scratch that",
    "I've changed my mind",
    "we've had second thoughts about it",
    "forget it, I changed my mind about it",
]
HELD_OFF = [
    "hold off",
    "not yet",
    "not just yet",
    "don't start",
    "do not begin",
    "wait",
    "hang on",
]
STAY = ["stay put right there", "stay there", "stay where you are", "stay right here"]
LEADS = ["", "please, ", "you can just ", "okay, ", "for now, "]
TAILS = ["", " for now", ", thanks", " yet", " please"]


@given(
    st.sampled_from(LEADS),
    st.sampled_from(CALLED_OFF + HELD_OFF + STAY),
    st.sampled_from(CALLED_OFF + HELD_OFF + STAY + [""]),
    st.sampled_from(TAILS),
)
@settings(max_examples=80, deadline=None)
def test_calling_off_holding_off_and_staying_is_the_empty_plan(lead, first, second, tail):
    read_as_nothing(f"{lead}{first}{', ' + second if second else ''}{tail}.")


@given(colours, NOUNS, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=15, deadline=None)
def test_a_step_beside_calling_off_or_waiting_keeps_the_step(order, noun, pc):
    a, b = order[0], order[1]
    for goal in (
        f"Cancel that, push the {a} {noun} to the {pc} pad instead.",
        f"Wait, then push the {a} {noun} to the {pc} pad.",
        f"Don't start with {b}; push the {a} {noun} to the {pc} pad.",
        f"Scrap the job - slide {a} onto the {pc} pad.",
        f"Stay there and push the {a} {noun} to the {pc} pad.",
    ):
        assert not asks_no_motion(goal), goal
        text, reading, asks = _read(goal)
        assert not reading.nothing and a in text.lower(), goal


def test_no_goal_of_the_sets_with_a_step_a_refusal_or_a_question_reads_as_nothing():
    """By script over every held-out set: the frames of calling off, holding off and staying
    never take a goal whose label is a step, a refusal or a question."""
    for path in evaluation.HELD_OUT_SETS.values():
        for item in evaluation.load_eval_set(path):
            if asks_no_motion(item["goal"]):
                assert item["expect"] == "plan" and not item["plan"], item["goal"]


@given(colours, NOUNS, st.sampled_from(["sits", "rests", "is sitting", "is resting"]))
@settings(max_examples=15, deadline=None)
def test_a_sentence_saying_where_a_cube_is_describes_it(order, noun, verb):
    a, b, c = order
    world = two_high(a, b, c)
    for goal, plain in (
        (
            f"The {a} {noun} {verb} on {b}. Lift it off and place it on {c}.",
            f"Lift the {a} {noun} off and place it on {c}.",
        ),
        (
            f"{a.capitalize()} {verb} on top of the {b} {noun}. Take it off and set it on {c}.",
            f"Take the {a} cube off and set it on {c}.",
        ),
    ):
        ((_, reading, asks),) = read_like(plain, [goal], world)
        assert reading.refusal is None and asks is None
    # the description is checked: false in a flat scene, refused
    _, reading, _ = _read(f"The {a} {noun} {verb} on {b}. Lift it off and place it on {c}.")
    assert reading.refusal and "does not sit" in reading.refusal


@given(colours, NOUNS, st.sampled_from(["and isn't", "and is not", "and not", "nor"]))
@settings(max_examples=15, deadline=None)
def test_negations_joined_by_and_all_hold(order, noun, joint):
    a, b, c = order
    lead = "that's neither" if joint == "nor" else "that isn't"
    goal = f"Hover over the {noun} {lead} {a} {joint} {b}."
    read_like(f"Hover over the {c} {noun}.", [goal])
    # one negation alone leaves two: asked
    _, _, asks = _read(f"Hover over the {noun} that isn't {a}.")
    assert asks is not None


@given(colours, st.sampled_from(["yellow", "grey"]))
@settings(max_examples=10, deadline=None)
def test_an_unstack_parenthesis_is_its_move_first(order, pc):
    a, b, c = order
    q = "grey" if pc == "yellow" else "yellow"
    world = two_high(a, b, c)
    goal = f"Unstack first ({a} to the {pc} pad), then lift {b} onto the {q} pad."
    text, reading, asks = read_like(
        f"Move {a} to the {pc} pad first, then lift {b} onto the {q} pad.", [goal], world
    )[0]
    assert reading.refusal is None and asks is None


@given(colours, st.sampled_from(["three-cube tower", "three-block stack", "3-cube tower"]))
@settings(max_examples=10, deadline=None)
def test_a_three_cube_tower_with_a_middle(order, tower):
    a, b, c = order
    goals = [
        f"Make a {tower} on {a}, {b} in the middle.",
        f"Build a {tower} on the {a} cube with {b} as the middle one.",
    ]
    read_like(f"Put the {b} cube on the {a} cube, then put the {c} cube on the {b} cube.", goals)


@given(st.sampled_from(["four", "five", "4"]), st.sampled_from(["cubes", "blocks", "levels"]))
@settings(max_examples=10, deadline=None)
def test_added_to_until_too_high_is_refused(n, noun):
    for goal in (
        f"Add to the stack until it is {n} {noun} high.",
        f"Keep stacking till the tower is {n} {noun} tall.",
    ):
        _, reading, _ = _read(goal)
        assert reading.refusal and "at most 3" in reading.refusal, goal
    # three high is a tower the scene can build: not refused for its height
    _, reading, _ = _read("Add to the stack until it is three cubes high.")
    assert not (reading.refusal and "at most 3" in reading.refusal)


@given(st.sampled_from(["farthest off", "furthest away", "farthest away"]))
@settings(max_examples=3, deadline=None)
def test_farthest_off_is_farthest_from_the_robot(far):
    want = _read("Hover above the cube farthest from you.")
    got = _read(f"Gripper above the cube that's {far}.")
    assert (got[1].refusal, got[2]) == (want[1].refusal, want[2])
