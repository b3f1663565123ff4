"""The reading rules of the round after the second held-out set was read, one test each,
on the symbolic reading alone (no model): superlatives said with "away", the cube
"between the other two", a region named by its colour, a place or cube by the colour it
is not or by a colour shared with another thing, "the other one" / "the other pad", a
question asked only among the things a goal allows, "X last; first Y", a cube pointed
out and then "it", "itself", an action said as a noun, a distance in words, no motion
said several ways, a cube added to the tower standing, a cube taken off the one under
it, a manner said as what not to do, "go over X". Positions and colours change between
tests (the same words must pick another thing)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.grounding import Step
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.reference_scene import TIE_M
from miles_ros.agent.references import resolve_references
from miles_ros.agent.registry import SkillRegistry
from tests.agent.reading_harness import CUBES, SCENE, moved, table


@pytest.fixture(scope="module")
def shipped() -> SkillRegistry:
    return SkillRegistry.load()


def red_on_green(world=SCENE):
    """The scene with a two-level tower: the red cube on the green one, blue to the left."""
    out = world.copy()
    out.objects = {
        "green_cube": (0.45, -0.05, 0.02),
        "red_cube": (0.45, -0.05, 0.06),
        "blue_cube": (0.42, 0.14, 0.02),
    }
    return out


def swapped_pads(world=SCENE):
    """The scene with the two pads' colours swapped (the left pad grey, the right yellow)."""
    out = world.copy()
    out.colors = dict(world.colors)
    out.colors["left_pad"], out.colors["right_pad"] = (
        world.colors["right_pad"],
        world.colors["left_pad"],
    )
    return out


def read(goal, registry, world):
    text, reading, asks = read_in_scope(goal, registry, world)
    return text, reading, asks


@settings(max_examples=60, deadline=None)
@given(st.lists(table, min_size=3, max_size=3))
def test_farthest_away_from_the_robot_is_the_largest_distance(positions):
    w = moved(positions)
    far = sorted((math.hypot(x, y), n) for n, (x, y) in zip(CUBES, positions, strict=True))
    if far[-1][0] - far[-2][0] < 2 * TIE_M:
        return
    for said in (
        "the cube farthest away from you",
        "the cube that's furthest away from the robot",
    ):
        answer = resolve_references(f"hover over {said}", w)
        assert dict(answer.resolved) == {said: far[-1][1]}


@settings(max_examples=60, deadline=None)
@given(table, table, st.floats(0.25, 0.75), st.floats(-0.02, 0.02))
def test_the_cube_between_the_other_two_lies_on_their_segment(a, b, t, off):
    (ax, ay), (bx, by) = a, b
    length = math.hypot(bx - ax, by - ay)
    if length < 0.12:
        return
    nx, ny = -(by - ay) / length, (bx - ax) / length  # unit normal to the segment
    c = (ax + t * (bx - ax) + off * nx, ay + t * (by - ay) + off * ny)
    w = moved([a, b, c])  # blue between red and green
    answer = resolve_references("tap the block sitting between the other two", w)
    assert dict(answer.resolved) == {"the block sitting between the other two": "blue_cube"}


def test_between_the_other_two_needs_three_cubes_and_one_between():
    two = SCENE.copy()
    two.objects = {k: v for k, v in SCENE.objects.items() if k != "blue_cube"}
    assert resolve_references("tap the cube between the other two", two).clarify is not None
    # no obtuse angle: the middle one left to right, as "the middle cube" (docs/interfaces.md)
    acute = moved([(0.40, -0.1), (0.55, 0.0), (0.40, 0.1)])
    middle = resolve_references("tap the cube between the other two", acute)
    assert dict(middle.resolved) == {"the cube between the other two": "green_cube"}
    # none between, two level left to right: asked, as "the middle cube" (docs/interfaces.md)
    corner = moved([(0.40, 0.0), (0.55, 0.0), (0.40, 0.15)])
    assert resolve_references("tap the cube between the other two", corner).clarify is not None


def test_a_region_is_named_by_the_colour_the_scene_gives_its_pad():
    assert (
        "the left pad" in resolve_references("slide the red cube onto the yellow area", SCENE).text
    )
    assert (
        "the right pad"
        in resolve_references("slide the red cube onto the yellow region", swapped_pads()).text
    )


def test_a_place_or_cube_by_the_colour_it_is_not():
    for world, pad in ((SCENE, "right_pad"), (swapped_pads(), "left_pad")):
        for said in (
            "the pad that isn't yellow",
            "the non-yellow pad",
            "the pad which is not yellow",
        ):
            assert dict(resolve_references(f"put the red cube on {said}", world).resolved) == {
                said: pad
            }
    asked = resolve_references("put the cube that is not blue on the left pad", SCENE)
    assert set(asked.clarify.options) == {"red_cube", "green_cube"}
    two = SCENE.copy()
    two.objects = {k: v for k, v in SCENE.objects.items() if k != "green_cube"}
    one = resolve_references("put the cube that is not blue on the left pad", two)
    assert dict(one.resolved) == {"the cube that is not blue": "red_cube"}


def test_a_place_of_the_same_colour_as_a_cube(shipped):
    _, reading, _ = read("Nudge the blue cube onto the pad of the same colour.", shipped, SCENE)
    assert reading.refusal == "no pad in the scene is blue (the colour of the blue cube)"
    red_pad = SCENE.copy()
    red_pad.colors = {**SCENE.colors, "right_pad": SCENE.colors["red_cube"]}
    text, reading, asks = read(
        "Push the red cube onto the pad of the same colour.", shipped, red_pad
    )
    assert reading.refusal is None and asks is None and "the right pad" in text
    _, reading, _ = read("Put the yellow cube on the pad of the same colour.", shipped, SCENE)
    assert reading.refusal == "the scene has no yellow cube"


def test_the_other_one_after_a_pad_and_the_other_pad(shipped):
    text, _, asks = read(
        "Don't use the grey pad. Put the green cube on the other one.", shipped, SCENE
    )
    assert asks is None and text.endswith("on the left pad.")
    text, _, asks = read(
        "Put the red cube on the right pad, then the blue cube on the other pad.", shipped, SCENE
    )
    assert asks is None and text.endswith("the blue cube on the left pad.")
    _, _, asks = read("Slide the other cube onto the grey pad.", shipped, SCENE)
    assert asks is not None and set(asks.options) == set(CUBES)  # no cube named: which?


@pytest.mark.parametrize(
    "goal,cube",
    [
        ("Put a cube on the left pad, but not the red one or the blue one.", "green"),
        ("Place a block on the grey pad, not the blue one and not the green one.", "red"),
    ],
)
def test_a_question_is_asked_only_among_the_cubes_the_goal_allows(goal, cube, shipped):
    text, reading, asks = read(goal, shipped, SCENE)
    assert asks is None and reading.refusal is None and f"the {cube} cube" in text
    _, _, asks = read("Put a cube on the left pad, but not the red one.", shipped, SCENE)
    assert set(asks.options) == {"green_cube", "blue_cube"}


def test_a_step_said_last_then_one_said_first_are_done_the_other_way_round(shipped):
    text, _, _ = read("Go over the right pad last; first go over the left pad.", shipped, SCENE)
    assert text.lower() == "hover over the left pad, then hover over the right pad."
    text, _, _ = read(
        "Push the red cube to the right pad at the end, but first go home.", shipped, SCENE
    )
    assert text == "Go home, then push the red cube to the right pad."


def test_a_cube_pointed_out_then_it(shipped):
    for goal, said in (
        ("There's a blue cube near the left pad. Put it on the right pad.", "the blue cube"),
        (
            "You'll see a green block by the grey pad. Slide it onto the yellow pad.",
            "the green block",
        ),
    ):
        text, reading, asks = read(goal, shipped, SCENE)
        assert asks is None and reading.refusal is None
        assert said in text and "it" not in text.lower().split()


def test_a_cube_onto_itself_is_refused(shipped):
    for cube in ("green", "red"):
        _, reading, _ = read(f"Stack the {cube} cube on itself.", shipped, SCENE)
        assert reading.refusal == f"{cube}_cube cannot be put on itself"


def test_an_action_said_as_a_noun_is_read_as_its_verb(shipped):
    _, reading, _ = read("Give the green cube a good shake.", shipped, SCENE)
    assert reading.refusal and reading.refusal.startswith("no skill can shake")
    text, reading, _ = read("Give the red cube a gentle push to the right pad.", shipped, SCENE)
    assert reading.refusal is None and text.lower().startswith("push the red cube")
    _, reading, _ = read("Give the blue cube a quarter turn.", shipped, SCENE)  # a turn's own rule
    assert reading.refusal and "90 degrees" in reading.refusal


@pytest.mark.parametrize(
    "goal", ["Hold the blue cube half a metre above the table.", "Raise the red cube two inches."]
)
def test_a_distance_in_words_is_refused(goal, shipped):
    _, reading, _ = read(goal, shipped, SCENE)
    assert reading.refusal and reading.refusal.startswith("no skill moves a cube by a distance")


@pytest.mark.parametrize(
    "goal",
    [
        "Actually, never mind.",
        "Hold on, don't do anything yet.",
        "Forget it.",
        "Cancel that, please.",
        "Leave everything as it is.",
        "On second thought, leave all the cubes where they are.",
        "No need to do anything.",
        "That's all for now.",
        "I changed my mind.",
        "Leave the cubes alone.",
        "Don't touch anything.",
    ],
)
def test_no_motion_said_several_ways(goal, shipped):
    _, reading, asks = read(goal, shipped, SCENE)
    assert reading.nothing and reading.refusal is None and asks is None


def test_every_cube_left_as_it_is_and_a_step(shipped):
    text, reading, _ = read("Leave all the cubes where they are and go home.", shipped, SCENE)
    assert text.lower().startswith("go home") and not reading.nothing
    assert {p.cube for p in reading.prohibitions} == set(CUBES)


def test_a_cube_added_to_the_tower_standing(shipped):
    on_green = red_on_green()
    text, reading, _ = read("Add another cube to the stack.", shipped, on_green)
    assert reading.refusal is None and text.lower() == "put the blue cube on the red cube."
    full = SCENE.copy()
    full.objects = {c: (0.46, 0.0, 0.02 + 0.04 * i) for i, c in enumerate(CUBES)}
    _, reading, _ = read("Put one more block on top of the tower.", shipped, full)
    assert reading.refusal and "a cube more would be level 4" in reading.refusal


def test_a_cube_taken_off_the_one_it_stands_on(shipped):
    for under, top in (("blue_cube", "green_cube"), ("red_cube", "blue_cube")):
        world = SCENE.copy()
        world.objects = dict(SCENE.objects)
        x, y, _ = world.objects[under]
        world.objects[top] = (x, y, 0.06)
        goal = f"Take the {top[:-5]} cube off the {under[:-5]} one and put it on the grey pad."
        text, reading, _ = read(goal, shipped, world)
        assert reading.refusal is None and "off" not in text
    # on the table, "off the red cube" is left as said (the reading judges it)
    assert "off the red" in read("Take the blue cube off the red cube.", shipped, SCENE)[0]


def test_a_manner_said_as_what_not_to_do(shipped):
    for goal in (
        "Put the green cube on the left pad without pushing it.",
        "Get the red cube onto the grey pad, but do not push it.",
        "Place the blue cube on the left pad without sliding it.",
    ):
        _, reading, _ = read(goal, shipped, SCENE)
        cube = next(c for c in CUBES if c[:-5] in goal)
        pad = "left_pad" if "left" in goal else "right_pad"
        assert reading.violation(Step("push", {"object": cube, "target": pad}), shipped)
        assert not reading.violation(Step("pick_place", {"object": cube, "target": pad}), shipped)


def test_go_over_a_thing_is_a_hover(shipped):
    text, _, _ = read(
        "Stack the green cube onto the blue one, then go over the yellow pad.", shipped, SCENE
    )
    assert text.endswith("then hover over the left pad.")


@settings(max_examples=60, deadline=None)
@given(st.lists(table, min_size=3, max_size=3))
def test_superlatives_said_with_the_relative_clause_or_alone(positions):
    w = moved(positions)
    by_y = sorted((y, n) for n, (_, y) in zip(CUBES, positions, strict=True))
    near = sorted((math.hypot(x, y), n) for n, (x, y) in zip(CUBES, positions, strict=True))
    if min(b[0] - a[0] for a, b in zip(by_y, by_y[1:], strict=False)) > 2 * TIE_M:
        for said, cube in (
            ("the cube that lies farthest to the right", by_y[0][1]),
            ("the leftmost one", by_y[-1][1]),
            ("the rightmost of the three cubes", by_y[0][1]),
        ):
            assert dict(resolve_references(f"hover over {said}", w).resolved) == {said: cube}
    if near[1][0] - near[0][0] > 2 * TIE_M:
        for said in ("the block that is the closest to the robot", "the nearest cube"):
            assert dict(resolve_references(f"hover over {said}", w).resolved) == {said: near[0][1]}
        # after a placing verb with no other place, the pad is where it goes
        moved_there = resolve_references("move the closest block to the grey pad", w)
        assert moved_there.text == f"move the {near[0][1].replace('_', ' ')} to the right pad"


def test_the_closest_cube_to_a_pad_when_the_pad_is_not_the_destination():
    # default scene: red is nearest the right pad, blue the robot
    assert (
        "the red cube"
        in resolve_references("hover over the closest cube to the right pad", SCENE).text
    )
    pushed = resolve_references("push the closest cube to the right pad onto the left pad", SCENE)
    assert pushed.text == "push the red cube onto the left pad"


def test_a_place_by_its_colour_alone_or_its_side():
    for world, pad in ((SCENE, "left pad"), (swapped_pads(), "right pad")):
        for goal in ("move the blue cube to the yellow one", "push the red cube onto the yellow"):
            assert resolve_references(goal, world).text.endswith(f"the {pad}")
    assert resolve_references("hover above the pad on the left", SCENE).text == (
        "hover above the left pad"
    )
    # a colour a cube has stays the cube's
    assert resolve_references("put the green one on the red one", SCENE).resolved == ()


@pytest.mark.parametrize(
    "goal",
    ["Put the green cube in my hand.", "Fetch the blue block for me.", "Get me the red cube."],
)
def test_a_cube_given_to_a_person_said_more_ways(goal, shipped):
    _, reading, _ = read(goal, shipped, SCENE)
    assert reading.refusal and reading.refusal.startswith("no skill hands a cube to a person")


def test_only_after_and_and_before_that(shipped):
    text, _, _ = read(
        "Push the blue cube onto the left pad, but only after you hover over the red cube.",
        shipped,
        SCENE,
    )
    assert text == "Hover over the red cube, then push the blue cube onto the left pad."


def test_nothing_touched_and_a_hover(shipped):
    text, reading, _ = read(
        "Don't move anything, only hover above the green cube.", shipped, SCENE
    )
    assert not reading.nothing and "hover above the green cube" in text
    assert not reading.violation(Step("reach", {"target": "green_cube"}), shipped)
    assert reading.violation(Step("push", {"object": "green_cube", "target": "left_pad"}), shipped)


def test_a_pad_of_a_colour_only_a_cube_has_is_refused(shipped):
    _, reading, _ = read("Set the red block down on the blue pad.", shipped, SCENE)
    assert reading.refusal == "the scene has no blue pad"
    red_pad = SCENE.copy()
    red_pad.colors = {**SCENE.colors, "left_pad": SCENE.colors["red_cube"]}
    text, reading, _ = read("Put the green cube on the red pad.", shipped, red_pad)
    assert reading.refusal is None and "the left pad" in text


def test_the_same_again_for_another_cube(shipped):
    for goal, again in (
        (
            "Push the red cube to the left pad and do the same for the green one.",
            "push the green cube to the left pad",
        ),
        (
            "Put the blue cube on the right pad. Then do the same with the red cube.",
            "put the red cube on the right pad",
        ),
    ):
        text, _, _ = read(goal, shipped, SCENE)
        assert text.endswith(f", then {again}.")


def test_both_cubes_one_step_each_and_that_moved_is_asked(shipped):
    text, _, _ = read("Put both the red and the green cube on the left pad.", shipped, SCENE)
    assert text == "Put the red cube on the left pad, then the green one."
    _, _, asks = read("Move that to the right pad.", shipped, SCENE)
    assert asks is not None and set(asks.options) == set(CUBES)
    _, _, asks = read("Hover over the red cube, then move that to the right pad.", shipped, SCENE)
    assert asks is None


def test_on_the_top_of_the_stack(shipped):
    on_green = red_on_green()
    text, _, _ = read("Put the blue cube on the top of the stack.", shipped, on_green)
    assert text == "Put the blue cube on top of the red cube."


@pytest.mark.parametrize("cube", CUBES)
def test_it_or_that_moved_after_a_hover_is_the_cube_hovered_over(cube, shipped):
    said = cube.replace("_", " ")
    for goal in (
        f"Hover over the {said}, then push it to the right pad.",
        f"Tap the {said}. Now slide it onto the grey pad.",
        f"Hover over the {said}, then move that to the left pad.",
    ):
        text, _, asks = read(goal, shipped, SCENE)
        assert asks is None and text.count(said) == 2 and " it " not in text and "that" not in text
    # one pick and place with its "it" is left as the training phrases say it
    text, _, _ = read(f"Take the {said}, then place that cube on the left pad.", shipped, SCENE)
    assert text == f"pick up the {said} and put it on the left pad."


def test_a_tap_is_said_as_a_reach_and_a_move_after_a_hover_is_a_pick_and_place(shipped):
    text, reading, _ = read("Tap the red cube, then slide it onto the yellow pad.", shipped, SCENE)
    assert text == "Reach for the red cube, then slide the red cube onto the left pad."
    push = Step("push", {"object": "red_cube", "target": "left_pad"})
    assert not reading.violation(push, shipped)
    _, reading, _ = read("Hover over the red cube, then move it to the left pad.", shipped, SCENE)
    assert reading.violation(push, shipped)
    assert not reading.violation(
        Step("pick_place", {"object": "red_cube", "target": "left_pad"}), shipped
    )
