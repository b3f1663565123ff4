"""The reading rules of the round after the sixth held-out set was read, one test each,
on the symbolic reading (no model): a step said a number of times; a cube put in a
person's things; manners that rule out both ways of moving a cube; a verb no skill does on
"the other two"; "for me" after a place; a comparative of place ("further right than");
"any of the cubes" under a negation; "one of the others"; a face said with an adjective; a
direction set off by commas; a tower of all the cubes with one level unsaid; the
highest / lowest cube; an "it" that is the thing a cube was picked against; "finish at
home; first ..."; steps ranked at their ends ("... second and ... first"); "after both".
Positions change between cases (the same words must pick another cube)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.discourse import said_in_order
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.reference_scene import TIE_M
from miles_ros.agent.towers import read_tower
from miles_ros.agent.turns import goal_angles
from miles_ros.agent.wording import plain_wording
from miles_ros.runtime.goals import FACE_ROBOT
from tests.agent.reading_harness import CUBES, SCENE, SHIPPED, moved, table


def _only(text: str, cube: str) -> bool:
    """``text`` names ``cube`` and no other cube."""
    said = [c for c in CUBES if c.replace("_", " ") in text]
    return said == [cube]


@pytest.mark.parametrize(
    "goal, why",
    [
        # a step said a number of times
        ("Tap the red cube three times.", "number of times"),
        ("Push the green block to the left pad twice.", "number of times"),
        ("Hover over the blue cube over and over.", "number of times"),
        ("Put the red cube on the right pad 5 times, then go home.", "number of times"),
        # a cube put in a person's things
        ("Put the green cube in my pocket.", "no pocket"),
        ("Drop the blue block into her backpack.", "no backpack"),
        ("Set the red cube on his desk, please.", "no desk"),
        # manners that rule out both ways of moving the cube
        (
            "Get the red cube onto the right pad, but don't pick it up and don't push it.",
            "lifting it and pushing it",
        ),
        (
            "Move the blue block to the left pad; don't slide it and don't lift it.",
            "lifting it and pushing it",
        ),
        # a verb no skill does on cubes said together ("the other two", "the rest", "them")
        ("First put the red cube on the left pad, then juggle the other two.", "no skill can"),
        ("Put the blue cube on the right pad and then polish the rest.", "no skill can"),
        ("Hover over the green cube, then juggle them.", "no skill can"),
    ],
)
def test_refused_with_the_cause(goal, why):
    _, reading, _ = read_in_scope(goal, SHIPPED, SCENE)
    assert reading.refusal is not None and why in reading.refusal


def test_going_home_again_is_no_count():
    _, reading, _ = read_in_scope(
        "Go home, put the red cube on the left pad, then go home again.", SHIPPED, SCENE
    )
    assert reading.refusal is None


def test_one_manner_ruled_out_is_still_a_plan():
    _, reading, _ = read_in_scope(
        "Get the red cube onto the right pad, but don't pick it up.", SHIPPED, SCENE
    )
    assert reading.refusal is None and ("grasps", "red_cube") in reading.forbid


def test_for_me_after_a_place_is_no_handing():
    _, reading, asks = read_in_scope("Get the red cube onto a pad for me.", SHIPPED, SCENE)
    assert reading.refusal is None and asks is not None
    assert set(asks.options) == {"left_pad", "right_pad"}
    _, reading, _ = read_in_scope("Fetch the blue cube for me.", SHIPPED, SCENE)
    assert reading.refusal is not None and "person" in reading.refusal


@settings(max_examples=60, deadline=None)
@given(
    st.lists(table, min_size=3, max_size=3),
    st.sampled_from(["left", "right"]),
    st.sampled_from(CUBES),
    st.sampled_from(
        [
            "Point at the cube that's further {side} than the {ref}.",
            "Hover over the block farther to the {side} than the {ref}.",
        ]
    ),
)
def test_a_comparative_of_place_picks_the_nearest_on_that_side(positions, side, ref, said):
    w = moved(positions)
    sign = 1.0 if side == "left" else -1.0
    y0 = w.objects[ref][1]
    beyond = sorted(
        (sign * (p[1] - y0), n)
        for n, p in w.objects.items()
        if n != ref and sign * (p[1] - y0) > TIE_M
    )
    goal = said.format(side=side, ref=ref.replace("_", " "))
    text, reading, asks = read_in_scope(goal, SHIPPED, w)
    if not beyond:
        assert reading.refusal is not None and f"to the {side} of" in reading.refusal
        return
    if len(beyond) > 1 and beyond[1][0] - beyond[0][0] < TIE_M:
        return
    assert asks is None and reading.refusal is None and _only(text, beyond[0][1])


def test_any_cube_under_a_negation_is_every_cube():
    for goal, kept in (
        (
            "Hover over the right pad, but don't touch any of the cubes.",
            "hover over the right pad",
        ),
        ("Go home and don't bump into any cube.", "go home"),
        ("Point at the left pad; do not touch the blocks.", "point at the left pad"),
    ):
        text, reading, asks = read_in_scope(goal, SHIPPED, SCENE)
        assert asks is None and reading.refusal is None and text.lower().startswith(kept)
        assert {p.cube for p in reading.prohibitions} == set(CUBES)


@pytest.mark.parametrize(
    "goal, named",
    [
        ("Stack the blue cube on one of the others.", "blue_cube"),
        ("Put the red cube on the left pad, then push either of the other two there.", "red_cube"),
    ],
)
def test_one_of_the_others_is_a_question_among_them(goal, named):
    _, _, asks = read_in_scope(goal, SHIPPED, SCENE)
    assert asks is not None and set(asks.options) == set(CUBES) - {named}


def test_one_of_the_others_with_one_left_is_that_one():
    text, _, asks = read_in_scope(
        "Put the red and the green cube on the left pad, then hover over one of the others.",
        SHIPPED,
        SCENE,
    )
    assert asks is None and "hover over the blue cube" in text.lower()


@pytest.mark.parametrize(
    "goal",
    [
        "Rotate the blue cube so a flat side faces the robot.",
        "Turn the red cube so that one straight face points at you.",
    ],
)
def test_a_face_said_with_an_adjective_faces_the_robot(goal):
    assert goal_angles(goal) == [FACE_ROBOT]


@pytest.mark.parametrize(
    "said, angle", [("30 degrees, clockwise", -30.0), ("25°, counter-clockwise", 25.0)]
)
def test_a_direction_set_off_by_commas_belongs_to_its_angle(said, angle):
    text = plain_wording(f"Turn the green cube by {said}, then go home.", SCENE)
    assert goal_angles(text) == [angle] and ", then go home" in text


@pytest.mark.parametrize(
    "said, order",
    [
        ("green at the bottom and blue on top", ("green_cube", "red_cube", "blue_cube")),
        ("red on top and blue at the bottom", ("blue_cube", "green_cube", "red_cube")),
        ("blue in the middle, red at the bottom", ("red_cube", "blue_cube", "green_cube")),
    ],
)
def test_a_tower_of_all_the_cubes_fills_the_level_left_unsaid(said, order):
    tower = read_tower(f"Stack all three cubes with {said}.", SCENE)
    assert tower.refusal is None and tower.order == order


@settings(max_examples=40, deadline=None)
@given(st.lists(table, min_size=3, max_size=3), st.permutations(CUBES), st.integers(1, 2))
def test_the_highest_and_the_lowest_cube(positions, stacking, levels):
    w = moved(positions)
    bottom = stacking[0]
    x, y, _ = w.objects[bottom]
    for k in range(1, levels + 1):  # a tower of `levels + 1` cubes on `bottom`
        w.objects[stacking[k]] = (x, y, 0.02 + 0.04 * k)
    text, reading, asks = read_in_scope("Hover over the highest cube.", SHIPPED, w)
    assert asks is None and reading.refusal is None and _only(text, stacking[levels])
    _, _, asks = read_in_scope("Hover over the lowest cube.", SHIPPED, w)
    assert (asks is None) == (levels == 2)  # a tower of two leaves two cubes on the table


def test_the_highest_of_cubes_all_on_the_table_is_asked_about():
    _, _, asks = read_in_scope("Put your gripper above the highest cube.", SHIPPED, SCENE)
    assert asks is not None and set(asks.options) == set(CUBES)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(table, min_size=3, max_size=3),
    st.sampled_from(["left_pad", "right_pad"]),
    st.sampled_from(
        ["Push the cube closest to the {pad} onto it.", "Put the block nearest the {pad} on it."]
    ),
)
def test_it_where_the_cube_goes_is_the_thing_it_was_picked_against(positions, pad, said):
    w = moved(positions)
    px, py = w.places[pad][:2]
    near = sorted(((p[0] - px) ** 2 + (p[1] - py) ** 2) ** 0.5 for p in w.objects.values())
    if near[1] - near[0] < TIE_M:
        return
    text, reading, asks = read_in_scope(said.format(pad=pad.replace("_", " ")), SHIPPED, w)
    assert asks is None and reading.refusal is None
    assert text.rstrip(".").endswith("the " + pad.replace("_", " "))


@pytest.mark.parametrize(
    "goal, said",
    [
        (
            "Finish at home; first put the green cube on the right pad.",
            "Put the green cube on the right pad, then go home.",
        ),
        (
            "End by hovering over the left pad. First push the red cube onto the right pad.",
            "Push the red cube onto the right pad, then hover over the left pad.",
        ),
    ],
)
def test_the_step_a_goal_finishes_with_comes_last(goal, said):
    assert said_in_order(goal, SCENE) == said


@pytest.mark.parametrize(
    "goal, said",
    [
        (
            "Put the blue cube on the yellow pad second and the red cube on the grey pad first.",
            "Put the red cube on the grey pad, then put the blue cube on the yellow pad.",
        ),
        (
            "Hover over the green cube last, push the red cube to the left pad first and go "
            "home second.",
            "Push the red cube to the left pad, then go home, then hover over the green cube.",
        ),
    ],
)
def test_steps_ranked_at_their_ends_are_done_in_rank(goal, said):
    assert said_in_order(goal, SCENE) == said


def test_steps_already_in_rank_are_left_as_said():
    goal = "Put the red cube on the left pad first and the blue cube on the right pad second."
    assert said_in_order(goal, SCENE) == goal


@pytest.mark.parametrize("after", ["after both", "once all of that is done", "after those"])
def test_a_step_after_the_steps_before_as_a_whole_comes_next(after):
    goal = (
        "Take the red cube to the left pad, then the green cube to the right pad, and "
        f"{after} hover over the blue cube."
    )
    assert said_in_order(goal, SCENE).endswith(", then hover over the blue cube.")
