"""Placements beside a thing ("put the red cube next to the blue cube"): said as a move to
one table point at a side of the reference, at the clearance the card's placement
tolerance asks, free of the other cubes and inside the skill's envelope; refused when no
side will do. The same words give another point when the cubes move."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.beside import SIDES, place_beside
from miles_ros.agent.grounding import Step, goal_points, outside_envelope
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import load_world
from tests.agent.conftest import keyword_scorer
from tests.agent.reading_harness import moved

SHIPPED = Path(__file__).resolve().parents[2] / "policies" / "skills"


@pytest.fixture(scope="module")
def cards() -> SkillRegistry:
    """The shipped trained cards (their envelopes and placement tolerances)."""
    return SkillRegistry.load([SHIPPED], interface_cards=False)


def point_of(text: str) -> tuple[float, float, float]:
    (point,) = goal_points(text)
    return point


def clearance(cards, skill: str, half_reference: float, world) -> float:
    return half_reference + world.cube_size / 2 + cards[skill].card.success_threshold_m


def test_next_to_a_cube_is_the_free_side_nearest_the_cube_moved(cards):
    world = load_world()  # red (0.45, -0.10), green (0.50, 0.05), blue (0.40, 0.15)
    placed = place_beside("put the red cube next to the blue cube", cards, world)
    d = clearance(cards, "pick_place", world.cube_size / 2, world)
    # the blue cube's right side (towards the red cube): blue's y minus the clearance
    assert placed.refusal is None
    assert placed.text.startswith("put the red cube at (")
    assert point_of(placed.text) == pytest.approx((0.40, 0.15 - d, 0.02), abs=1e-3)
    # the same words with the cubes moved: the red cube behind the blue one now
    far = moved([(0.60, 0.0), (0.30, -0.20), (0.40, 0.0)], world)
    again = place_beside("put the red cube next to the blue cube", cards, far)
    assert point_of(again.text) == pytest.approx((0.40 + d, 0.0, 0.02), abs=1e-3)


def test_a_side_said_is_kept_and_a_push_verb_pushes(cards):
    world = load_world()
    right = place_beside("set the blue cube down to the right of the red cube", cards, world)
    d = clearance(cards, "pick_place", world.cube_size / 2, world)
    assert point_of(right.text) == pytest.approx((0.45, -0.10 - d, 0.02), abs=1e-3)
    # its left side is taken by the green cube: refused, not put on another side
    left = place_beside("set the blue cube down to the left of the red cube", cards, world)
    assert left.refusal == (
        "the blue cube cannot be put to the left of the red cube: the green cube is there"
    )
    front = place_beside("put the red cube in front of the green cube", cards, world)
    assert point_of(front.text) == pytest.approx((0.50 - d, 0.05, 0.02), abs=1e-3)
    push = place_beside("slide the red cube next to the right pad", cards, world)
    pad = world.place_sizes["right_pad"][1] / 2
    assert push.text.startswith("slide the red cube to (")
    assert point_of(push.text) == pytest.approx(
        (0.55, -0.25 + clearance(cards, "push", pad, world), 0.02), abs=1e-3
    )


def test_a_placement_no_side_allows_is_refused_with_each_sides_reason(cards):
    world = moved([(0.40, 0.20), (0.55, -0.13), (0.43, -0.25)], load_world())
    placed = place_beside("put the red cube next to the right pad", cards, world)
    assert placed.refusal is not None
    for said in ("the green cube is there", "the blue cube is there", "envelope"):
        assert said in placed.refusal
    beside_robot = place_beside("put the blue cube next to the robot", cards, load_world())
    assert beside_robot.refusal and "robot" in beside_robot.refusal
    itself = place_beside("put the red cube next to the red cube", cards, load_world())
    assert itself.refusal == "the red cube cannot be put next to itself"


def test_an_it_takes_the_cube_picked_up(cards):
    world = load_world()
    said = place_beside(
        "pick up the red cube and put it next to the green cube", cards, world
    ).text
    assert said.startswith("put the red cube at (") and "pick up" not in said


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.32, 0.63), st.floats(-0.28, 0.28)),
        min_size=3,
        max_size=3,
    )
)
def test_the_point_is_clear_inside_the_envelope_or_refused(cards, positions):
    world = moved(positions, load_world())
    placed = place_beside("put the red cube beside the blue cube", cards, world)
    if placed.refusal is not None:
        assert "blue cube" in placed.refusal
        return
    point = point_of(placed.text)
    bx, by = world.objects["blue_cube"][:2]
    d = clearance(cards, "pick_place", world.cube_size / 2, world)
    offsets = [(round(bx + ux * d, 3), round(by + uy * d, 3)) for ux, uy in SIDES.values()]
    assert any(point[:2] == pytest.approx(o, abs=1e-6) for o in offsets)
    gx, gy = world.objects["green_cube"][:2]
    assert math.hypot(point[0] - gx, point[1] - gy) >= d
    step = Step("pick_place", {"object": "red_cube", "target": list(point)})
    assert outside_envelope(step, cards, world) is None


def test_the_reading_plans_it_and_asks_or_refuses_as_before(cards):
    world = load_world()
    text, reading, asks = read_in_scope("Put the red cube next to the blue cube.", cards, world)
    assert asks is None and reading.refusal is None and re.search(r"at \(0\.4, 0\.06", text)
    _, _, asks = read_in_scope("Put the red cube next to the pad.", cards, world)
    assert asks is not None and set(asks.options) == {"left_pad", "right_pad"}
    _, _, asks = read_in_scope("Move it next to the blue cube.", cards, world)
    assert asks is not None
    _, reading, _ = read_in_scope("Put the blue cube under the red cube.", cards, world)
    assert reading.refusal and "under" in reading.refusal
    _, reading, _ = read_in_scope("Pick up the left pad and put it on the red cube.", cards, world)
    assert reading.refusal and "left pad" in reading.refusal


def test_the_planner_plans_the_point(cards):
    world = load_world()
    target = "pick red [0.4, 0.06, 0.02]"  # the plan line as the model reads it
    planner = Planner(cards, world, FakeLanguageModel(keyword_scorer([target])), PlannerConfig())
    plan = planner.plan("put the red cube next to the blue cube")
    assert plan.valid and not plan.refused
    assert plan.steps[0].skill == "pick_place"
    assert plan.steps[0].params["target"] == pytest.approx([0.4, 0.06, 0.02])


@pytest.mark.parametrize(
    "goal",
    [
        "Place the red cube right next to the blue cube.",
        "Put down the red cube on the right side of the blue cube.",
        "Put the red cube to the right-hand side of the blue one",
    ],
)
def test_other_ways_to_say_the_side(goal, cards):
    text, reading, asks = read_in_scope(goal, cards, load_world())
    assert asks is None and reading.refusal is None
    assert point_of(text) == pytest.approx((0.40, 0.06, 0.02), abs=1e-3)


def test_a_bare_cube_put_beside_a_thing_is_asked_about_not_picked(cards):
    world = load_world()
    _, _, asks = read_in_scope("Put the cube next to the blue cube.", cards, world)
    assert asks is not None  # which cube is to be put there
    text, _, asks = read_in_scope(
        "Put the cube next to the blue cube on the left pad.", cards, world
    )
    assert asks is None and text == "Put the green cube on the left pad."  # which cube it is
