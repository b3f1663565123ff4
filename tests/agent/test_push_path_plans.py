"""The push card's path rule in the planner and its training data: a push through another
cube is refused with the resolver's reason where the goal says push, gives way to a lift
where the goal allows one, fails validation, and is never a positive training example."""

from __future__ import annotations

import pytest

from miles_ros.agent.datagen import generate
from miles_ros.agent.grounding import Affordance, Step, goal_error
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.validation import validate_plan
from tests.agent.conftest import keyword_scorer

THROUGH = Step("push", {"object": "red_cube", "target": "left_pad"})  # green 0.7 cm off
CLEAR = Step("push", {"object": "red_cube", "target": "right_pad"})


def _scorer(scores: dict[str, float]):
    """The model's score of a plan line: ``scores`` for the first step, ``done`` after."""

    def score(prompt: str, line: str) -> float:
        first = prompt.rsplit("Plan:\n", 1)[1].count("\n") == 0
        return (
            scores.get(line.strip(), -5.0) if first else (0.0 if line.strip() == "done" else -5.0)
        )

    return score


def test_a_push_through_a_cube_is_masked_and_fails_validation(registry, world):
    affordance = Affordance(registry)
    assert affordance(THROUGH, world) == 0.0 and affordance(CLEAR, world) > 0.0
    assert "green_cube stands 0.7 cm from its path" in goal_error(THROUGH, registry, world)
    (error,) = validate_plan([THROUGH], registry, world)
    assert "lift it over instead" in error
    assert validate_plan([CLEAR], registry, world) == []


@pytest.mark.parametrize(
    "goal",
    [
        "push the red cube to the left pad",
        "slide the red cube onto the left pad without lifting it",
        "shove the red cube over to the left pad",  # the model reads a push: not another cube's
    ],
)
def test_a_blocked_push_the_model_chooses_is_refused_with_the_resolvers_reason(
    registry, world, goal
):
    lm = FakeLanguageModel(_scorer({"push red left": 0.0, "push green left": -0.5}))
    plan = Planner(registry, world, lm, PlannerConfig()).plan(goal)
    assert plan.refused and not plan.steps  # never the next best (green pushed instead)
    assert "cannot push red_cube there: green_cube" in plan.reason


@pytest.mark.parametrize(
    "goal",
    [
        "put the red cube on the left pad",
        "move the red cube to the left pad",
        "bring the red cube to the left pad",
    ],
)
def test_a_goal_that_says_put_or_move_lifts_the_cube_over(registry, world, goal):
    """The model likes the push best; the reading masks pushes for "put", "move" and
    "bring" (it requires lifting): pick_place is the plan."""
    lm = FakeLanguageModel(_scorer({"push red left": 0.0, "pick red left": -1.0}))
    plan = Planner(registry, world, lm, PlannerConfig()).plan(goal)
    assert plan.valid and [s.key() for s in plan.steps] == ["pick_place red_cube left_pad"]


def test_a_second_cube_slid_onto_an_occupied_pad_is_refused(registry, world):
    """The second push meets the first cube on the pad, and "slide" rules out lifting it
    over. (Said "slide them", the reading writes "..., then the blue one", whose clause
    carries no manner: lifting blue is then allowed.)"""
    lines = ["push green left", "push blue left"]
    plan = Planner(registry, world, FakeLanguageModel(keyword_scorer(lines)), PlannerConfig())
    result = plan.plan("Slide the green cube to the left pad, then slide the blue cube there.")
    assert result.refused and not result.steps
    assert "cannot push blue_cube there: green_cube stands 0.0 cm" in result.reason


def test_blue_passes_green_once_red_has_gone_to_the_left_pad(registry, world):
    """The README's goal: after red is lifted to the left pad, blue's push to the right
    pad passes green 5.85 cm off (the clearance is 5.66 cm); with red still there it is
    refused."""
    slide = Step("push", {"object": "blue_cube", "target": "right_pad"})
    lift = Step("pick_place", {"object": "red_cube", "target": "left_pad"})
    assert validate_plan([lift, slide], registry, world) == []
    (error,) = validate_plan([slide], registry, world)
    assert "red_cube stands" in error


def test_the_training_data_never_teaches_a_push_the_resolver_refuses(world):
    """Unfiltered, the generator draws pushes through cubes (so the filter matters); with
    the registry none is a positive example, each step checked in the world the steps
    before it leave."""
    registry = SkillRegistry.load()

    def refused_steps(examples) -> int:
        bad = 0
        for example in examples:
            work = world.copy()
            for step in example.steps:
                if step.skill in registry and goal_error(step, registry, work):
                    bad += 1
                    break
                if step.skill in registry:
                    work.apply(registry[step.skill].effects_machine, step.params)
        return bad

    assert refused_steps(generate(world, 800, seed=3)) > 20
    examples = generate(world, 800, seed=3, registry=registry)
    assert refused_steps(examples) == 0
    blocked = [e for e in examples if "from its path" in e.blocked]
    assert blocked and all(e.refused and not e.steps for e in blocked)
