"""The goal said as the plan does it (:mod:`miles_ros.agent.discourse`): steps in the
order they are done, cubes said together one per step, and words that point back at a
cube named; then the planner's plans for such goals with a model whose wishes the test
sets (the reading is checked, not a model's luck)."""

from __future__ import annotations

import pytest

from miles_ros.agent.cube_words import imperative
from miles_ros.agent.discourse import said_in_order
from miles_ros.agent.evaluation import parse_step
from miles_ros.agent.grounding import step_text
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.prompts import PlanText
from miles_ros.agent.registry import SkillRegistry
from tests.agent.conftest import keyword_scorer


@pytest.mark.parametrize(
    ("word", "verb"),
    [
        ("pushed", "push"),
        ("placing", "place"),
        ("slid", "slide"),
        ("putting", "put"),
        ("dropped", "drop"),
        ("going", "go"),
        ("hovered", "hover"),
        ("yellow", "yellow"),
    ],
)
def test_past_and_progressive_forms_become_the_imperative(word, verb):
    assert imperative(word) == verb


@pytest.mark.parametrize(
    ("goal", "said"),
    [
        (
            "Go home, but first put the red cube on the left pad.",
            "Put the red cube on the left pad, then go home.",
        ),
        (
            "Hover over the green cube after you put the blue cube on the left pad.",
            "Put the blue cube on the left pad, then hover over the green cube.",
        ),
        (
            "put the blue cube on the left pad once you have pushed the red cube to the right pad",
            "Push the red cube to the right pad, then put the blue cube on the left pad",
        ),
        (
            "After placing the red cube on the right pad, go home",
            "Place the red cube on the right pad, then go home",
        ),
        (
            "Push the green cube to the left pad last, after placing the red cube on the "
            "right pad.",
            "Place the red cube on the right pad, then push the green cube to the left pad.",
        ),
        (
            "Before going home, hover above the blue cube.",
            "Hover above the blue cube, then go home.",
        ),
        (
            "Put the blue cube on the left pad and the red cube on the right pad, but do the "
            "blue cube last.",
            "Put the red cube on the right pad, then put the blue cube on the left pad.",
        ),
        (
            "Pick up the red and the blue cube and put them on the right pad.",
            "Put the red cube on the right pad, then the blue one.",
        ),
        (
            "Rotate the red and the green cube by 20 degrees each.",
            "Rotate the red cube by 20 degrees, then the green one.",
        ),
        (
            "Slide the green cube to the right pad and then hover over it.",
            "Slide the green cube to the right pad and then hover over the green cube.",
        ),
        (
            "Put the green cube on the blue cube, then hover over the one you just moved.",
            "Put the green cube on the blue cube, then hover over the green cube.",
        ),
        (
            "Go home, but put the red cube on the left pad first.",
            "Put the red cube on the left pad, then go home.",
        ),
        (
            "Go home. Before that, put the red cube on the left pad.",
            "Put the red cube on the left pad, then go home.",
        ),
        (
            "Put the red cube and the blue cube on the left pad",
            "Put the red cube on the left pad, then the blue one",
        ),
        (
            "Put the green cube on the left pad, then hover over the one you just picked up",
            "Put the green cube on the left pad, then hover over the green cube",
        ),
        # said in order already, nothing to point back at, or no step per cube: as it is
        ("Stack the red and blue cubes.", None),
        ("Put the red cube on the right pad. After that, go home.", None),
        # "it" moved after a hover: the cube hovered over
        (
            "First hover over the blue cube, then slide it to the left pad.",
            "First hover over the blue cube, then slide the blue cube to the left pad.",
        ),
        ("Hover over it.", None),
        ("Put the red cube on the right pad and afterwards return home.", None),
    ],
)
def test_goals_are_said_in_the_order_they_are_done(world, goal, said):
    assert said_in_order(goal, world) == (said or goal)


def test_back_is_where_the_cube_stood_when_the_goal_was_given(world):
    goal = "Put the red cube on the right pad, then move it back."
    assert said_in_order(goal, world).endswith("put the red cube at (0.45, -0.1, 0.02).")
    moved = world.copy()
    moved.objects["red_cube"] = (0.52, 0.08, 0.02)
    assert said_in_order(goal, moved).endswith("put the red cube at (0.52, 0.08, 0.02).")
    pushed = said_in_order("Push the blue cube to the left pad, then push it back", world)
    assert pushed.endswith("push the blue cube to (0.4, 0.15, 0.02)")


def test_a_prohibition_keeps_its_list_of_cubes(world):
    """ "don't touch the red and the blue cube" is read as a prohibition first: the list is
    not said one cube per step."""
    registry = SkillRegistry.load()
    text, reading, asks = read_in_scope(
        "Don't touch the red and the blue cube; push the green cube to the left pad",
        registry,
        world,
    )
    assert asks is None and reading.refusal is None
    assert {p.cube for p in reading.prohibitions} == {"red_cube", "blue_cube"}
    assert "red" not in text and "blue" not in text


@pytest.mark.parametrize(
    ("goal", "plan"),
    [
        (
            "Go home after pushing the green cube to the left pad.",
            ["push green_cube left_pad", "home"],
        ),
        (  # slid, blue would meet green on the pad: refused (test_push_path_plans.py)
            "Take the green and blue blocks and put them on the left pad.",
            ["pick_place green_cube left_pad", "pick_place blue_cube left_pad"],
        ),
        (
            "Push the red cube to the right pad and reach over the cube you just pushed.",
            ["push red_cube right_pad", "reach red_cube"],
        ),
        (
            "Put the red cube on the right pad, then move it back.",
            ["pick_place red_cube right_pad", "pick_place red_cube [0.45, -0.1, 0.02]"],
        ),
    ],
)
def test_the_planner_plans_them_in_the_order_they_are_done(registry, world, goal, plan):
    """The fake model wants the plan; grounding must offer each step (the point "back"
    names among them) and the reading must let it through."""
    text = PlanText(registry, world.names)
    lines = [text.line(parse_step(s)).strip() for s in plan]
    planner = Planner(registry, world, FakeLanguageModel(keyword_scorer(lines)), PlannerConfig())
    result = planner.plan(goal, use_cache=False)
    assert not result.refused and result.clarification is None, result.reason
    assert [step_text(s) for s in result.steps] == plan
