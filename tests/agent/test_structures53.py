"""Round 53's classes (held-out 45's and 40-44's unread misses, issue 31), read generally
(frames_said.py): the cube at an end front to back, a fragment list "OBJECT, PLACE, MANNER",
"X's the one I want on P - can you put it there?", "X's over there - V it", nothing to do,
"ignore X", ", lifting it off Y", "stack everything on BASE, A first, then B", counts past
the scene and a cube onto its own top. Reading only, in fresh wordings, hypothesis over
colours, nouns, pads and layouts, with look-alikes that must not change."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent import evaluation
from miles_ros.agent.frames_said import frames_said, nothing_said
from tests.agent.reading_harness import SCENE, _read, colours, read_like, two_high

NOUNS = st.sampled_from(["cube", "block", "box", "brick"])
PCS = st.sampled_from(["yellow", "grey"])


def _layout(order, xs, ys=(0.15, 0.0, -0.15)):
    world = SCENE.copy()
    world.objects = {f"{c}_cube": (x, y, 0.02) for c, x, y in zip(order, xs, ys, strict=True)}
    return world


FRONT = [
    "the cube that's frontmost",
    "the block which is foremost",
    "the cube toward the front",
    "the box towards the front",
    "the brick nearest the front",
    "the front-most cube",
]
BACK = [
    "the cube that's backmost",
    "the block toward the back",
    "the cube towards the rear",
    "the hindmost box",
    "the rearmost cube",
    "the cube at the very back",
]


@given(
    colours,
    st.floats(0.33, 0.40),
    st.floats(0.03, 0.1),
    st.floats(0.03, 0.1),
    st.sampled_from(FRONT + BACK),
    st.sampled_from(
        ["Hover over {np}.", "Put {np} on the yellow pad.", "{Np}: push it to the grey pad."]
    ),
)
@settings(max_examples=60, deadline=None)
def test_the_cube_at_an_end_front_to_back_is_the_extreme_in_x(order, x0, d1, d2, np, frame):
    world = _layout(order, (x0, x0 + d1, x0 + d1 + d2))
    want = order[0] if np in FRONT else order[2]
    goal = frame.format(np=np, Np=np[:1].upper() + np[1:])
    text, reading, asks = _read(goal, world)
    assert asks is None and reading.refusal is None, goal
    assert want in text.lower() and not any(c in text.lower() for c in order if c != want), goal


@given(colours, st.sampled_from([0.0, 0.004, 0.008]), st.sampled_from(FRONT + BACK))
@settings(max_examples=30, deadline=None)
def test_two_cubes_level_at_that_end_are_asked(order, gap, np):
    # the two at the named end lie 1 cm or less apart in x: asked which cube
    xs = (0.35, 0.35 + gap, 0.5) if np in FRONT else (0.35, 0.5, 0.5 + gap)
    _, reading, asks = _read(f"Hover over {np}.", _layout(order, xs))
    assert asks is not None and reading.refusal is None, np


def test_front_and_back_of_a_thing_are_left_as_said():
    for goal in (
        "Put the red cube in front of the blue cube.",
        "Push the cube in front of the blue one to the grey pad.",
        "Set the green cube at the back of the yellow pad.",
        "Move the cube at the front of the pile.",
        "Put the red cube at the back.",
    ):
        assert frames_said(goal, SCENE) == goal, goal


@given(
    colours,
    NOUNS,
    PCS,
    st.sampled_from(["push", "slide", "shove it", "nudge, please"]),
    st.sampled_from(["", "."]),
)
@settings(max_examples=25, deadline=None)
def test_object_place_manner_fragment_is_one_move(order, noun, pc, verb, end):
    a = order[0]
    goals = [f"{a} {noun}, {pc} pad, {verb}{end}", f"The {a} {noun}, the {pc} pad, {verb}{end}"]
    read_like(f"Push the {a} {noun} onto the {pc} pad.", goals)
    lifted = [f"{a.capitalize()} {noun}, {pc} pad, lift it.", f"{a} {noun}, the {pc} pad, carry"]
    read_like(f"Put the {a} {noun} onto the {pc} pad.", lifted)


@given(colours, st.sampled_from(["push", "lift"]))
@settings(max_examples=10, deadline=None)
def test_a_cube_as_the_place_of_a_fragment_is_left_as_said(order, verb):
    a, b = order[0], order[1]
    for goal in (f"{a} cube, {b} cube, {verb}", f"{a} cube, {b} cube, grey pad, {verb}"):
        assert frames_said(goal, SCENE) == goal, goal


@given(
    colours,
    st.sampled_from(["'s the one I want", " is the cube I'd like", "'s the block I want put"]),
    st.sampled_from(
        ["", " - can you put it there?", "; could you set it there?", ". Would you do that?"]
    ),
)
@settings(max_examples=30, deadline=None)
def test_x_is_the_one_i_want_on_p_is_the_placing(order, wanted, request):
    a, b = order[0], order[1]
    goal = f"{a.capitalize()}{wanted} on top of {b}{request or '.'}"
    ((text, reading, asks),) = read_like(f"Put {a} on top of {b}.", [goal])
    assert reading.refusal is None and asks is None, goal


def test_can_you_as_a_question_is_left_as_said():
    for goal in ("Can you see the red cube?", "Could you put the red cube on the grey pad?"):
        assert frames_said(goal, SCENE) == goal, goal


@given(colours, st.sampled_from(["'s over there", " is just there", "'s right there"]))
@settings(max_examples=15, deadline=None)
def test_x_over_there_only_points(order, there):
    a, b = order[0], order[1]
    goal = f"{a.capitalize()}{there} - stack it on top of {b}."
    ((_, reading, asks),) = read_like(f"stack {a} on top of {b}.", [goal])
    assert reading.refusal is None and asks is None, goal


NOTHING = [
    "Nothing else needed",
    "Nothing more is needed",
    "Nothing further required",
    "nothing's wanted",
    "Nothing to do",
    "Nothing else for you to do",
    "Hands off",
    "Hands off everything",
    "Keep your hands off the cubes",
    "Keep your hands off it all",
    "Hands off the blocks",
    "Take your hands off everything",
    "Leave it all be",
    "Leave everything alone",
    "Leave it all as it is",
    "Okay, nothing more needed",
    "Just hands off",
]
COURTESY = [
    "",
    " for now",
    " for the moment",
    ", thank you kindly",
    ", thanks",
    " right now, cheers",
]


@given(st.sampled_from(NOTHING), st.sampled_from(COURTESY), st.sampled_from(["", ".", "!"]))
@settings(max_examples=60, deadline=None)
def test_nothing_needed_and_hands_off_are_the_empty_plan(said, tail, end):
    goal = f"{said}{tail}{end}"
    _, reading, asks = _read(goal)
    assert reading.nothing and reading.refusal is None and asks is None, goal


@given(colours, PCS)
@settings(max_examples=10, deadline=None)
def test_hands_off_or_nothing_beside_a_step_keeps_the_step(order, pc):
    a, b = order[0], order[1]
    for goal in (
        f"Hands off {a}; push the {b} cube onto the {pc} pad.",
        f"Nothing on the {pc} pad should move; lift the {b} cube onto the other pad.",
        f"Nothing else needed except moving the {b} cube to the {pc} pad.",
    ):
        assert nothing_said(goal) == goal, goal
        _, reading, _ = _read(goal)
        assert not reading.nothing, goal
    _, reading, _ = _read(f"Hands off {a}; push the {b} cube onto the {pc} pad.")
    assert any(p.cube == f"{a}_cube" for p in reading.prohibitions)  # a plan that forbids a


def test_no_goal_of_the_sets_with_a_step_a_refusal_or_a_question_reads_as_nothing():
    """By script over every held-out set: the frames of nothing to do never take a goal whose
    label is a step, a refusal or a question."""
    for path in evaluation.HELD_OUT_SETS.values():
        for item in evaluation.load_eval_set(path):
            if nothing_said(item["goal"]) != item["goal"]:
                assert item["expect"] == "plan" and not item["plan"], item["goal"]


@given(
    colours,
    st.sampled_from(
        [
            "Ignore {c}.",
            "Ignore the {c} cube;",
            "ignore {c} -",
            "Never mind {c}.",
            "Forget about {c};",
            "Don't worry about the {c} block -",
        ]
    ),
)
@settings(max_examples=15, deadline=None)
def test_ignore_x_leaves_x_still_never_a_step(order, ignore):
    a, b, c = order
    goal = f"{ignore.format(c=c)} Stack {a} on {b}."
    text, reading, asks = _read(goal)
    assert reading.refusal is None and asks is None and c not in text.lower(), goal
    assert a in text.lower() and b in text.lower(), goal
    assert any(p.cube == f"{c}_cube" for p in reading.prohibitions), goal  # X forbidden


@given(colours, NOUNS, PCS, st.sampled_from(["lifting", "taking", "picking"]))
@settings(max_examples=20, deadline=None)
def test_lifting_it_off_y_says_where_the_cube_comes_from(order, noun, pc, verb):
    a, b, c = order
    world = two_high(a, b, c)
    goals = [
        f"Leave the {a} {noun} on the {pc} pad, {verb} it off the {b}.",
        f"Put the {a} {noun} on the {pc} pad, {verb} it off the {b} one.",
    ]
    read_like(f"Put the {a} {noun} on the {pc} pad.", goals, world)


@given(
    colours, st.sampled_from(["Stack everything on", "Pile them all onto", "Stack the rest on"])
)
@settings(max_examples=20, deadline=None)
def test_a_tower_on_a_base_a_first_then_b(order, said):
    a, b, c = order
    goal = f"{said} the {b} cube, {a} first, then {c}."
    read_like(f"put the {a} cube on the {b} cube, then put the {c} cube on the {a} cube", [goal])


def test_a_tower_said_cube_by_cube_is_left_as_said():
    for goal in (
        "Put red on blue first, then green on red.",
        "Stack them all: red at the bottom, blue on red, green on blue.",
    ):
        assert frames_said(goal, SCENE) == goal, goal


@given(st.sampled_from(["four", "five", "4"]), st.sampled_from(["left", "right"]))
@settings(max_examples=10, deadline=None)
def test_counting_past_the_scene_is_refused(n, side):
    goal = f"Count {n} cubes in from the {side} and put that one on the yellow pad."
    _, reading, _ = _read(goal)
    assert reading.refusal and "cube" in reading.refusal, goal


@given(colours, st.sampled_from(["left", "right"]))
@settings(max_examples=10, deadline=None)
def test_counting_to_the_last_cube_is_the_far_end(order, side):
    world = _layout(order, (0.4, 0.45, 0.5), ys=(0.15, 0.0, -0.15))
    want = order[2] if side == "left" else order[0]  # +y is the robot's left
    goal = f"Count three blocks in from the {side} and put that one on the grey pad."
    text, reading, asks = _read(goal, world)
    assert reading.refusal is None and asks is None and want in text.lower(), goal


@given(colours, NOUNS, st.sampled_from(["onto its own top", "on its own top", "on top of itself"]))
@settings(max_examples=15, deadline=None)
def test_a_cube_onto_its_own_top_is_refused(order, noun, where):
    goal = f"Place the {order[0]} {noun} {where}."
    _, reading, _ = _read(goal)
    assert reading.refusal and "itself" in reading.refusal, goal


def test_never_mind_x_then_a_pointer_back_is_left_as_said():
    # a correction ("it", "instead" after it): not a cube set aside
    for goal in (
        "Never mind red. Put it on the grey pad.",
        "Never mind red; blue instead, on the grey pad.",
        "Forget about green - push that one to the yellow pad.",
    ):
        assert frames_said(goal, SCENE) == goal, goal
