"""The planner plans stacking goals with the shipped cards (their schema takes a cube as
pick_place's target), in both modes, and refuses stacking a cube on itself, on a cube
that is held, or beyond the skill's trained envelope."""

import json

import pytest

from miles_ros.agent.grounding import Affordance, Step, ground_candidates
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.validation import validate_plan
from tests.agent.conftest import keyword_scorer

STACK = Step("pick_place", {"object": "green_cube", "target": "blue_cube"})


@pytest.fixture(scope="module")
def shipped() -> SkillRegistry:
    """The shipped cards (reach, push, pick_place with critics and envelopes) + home."""
    return SkillRegistry.load(interface_cards=False)


def plan_json(*steps: Step) -> str:
    return json.dumps({"steps": [s.to_dict() for s in steps]})


def planner(registry, world, scorer, generated: str | None = None) -> Planner:
    lm = FakeLanguageModel(scorer, (lambda prompt: generated) if generated else None)
    return Planner(registry, world, lm, PlannerConfig())


def test_stacking_candidates_come_from_the_shipped_card(shipped, world):
    cands = [c.key() for c in ground_candidates(shipped, world)]
    assert "pick_place green_cube blue_cube" in cands
    affordance = Affordance(shipped)
    assert affordance(STACK, world) > 0
    onto_itself = Step("pick_place", {"object": "green_cube", "target": "green_cube"})
    assert affordance(onto_itself, world) == 0
    assert "push green_cube blue_cube" not in cands  # push takes pads and points only


def test_grounded_mode_plans_put_the_green_cube_on_the_blue_cube(shipped, world):
    plan = planner(shipped, world, keyword_scorer(["pick green blue"])).plan(
        "put the green cube on the blue cube", use_cache=False
    )
    assert plan.valid and not plan.refused, plan.to_json()
    assert [s.key() for s in plan.steps] == [STACK.key()]


def test_generate_mode_plans_it_and_its_grammar_allows_it(shipped, world):
    p = planner(shipped, world, keyword_scorer([]), generated=plan_json(STACK))
    plan = p.plan("stack the green cube on top of the blue cube", mode="generate")
    assert plan.valid and not plan.refused, plan.to_json()
    assert [s.key() for s in plan.steps] == [STACK.key()]
    grammar = p.grammar(world)
    assert grammar.is_complete(grammar.feed(grammar.initial, " " + plan_json(STACK)))
    onto_itself = Step("pick_place", {"object": "green_cube", "target": "green_cube"})
    assert grammar.feed(grammar.initial, " " + plan_json(onto_itself)) is None


def test_a_stack_beyond_the_trained_envelope_is_refused_with_the_range(shipped, world):
    import math

    envelope = shipped["pick_place"].card.envelope
    far = world.copy()  # red moved to a corner of the cube area, blue where the scene has it
    corner = (envelope.object_region.high[0], envelope.object_region.low[1] + 0.02, 0.02)
    far.objects["red_cube"] = corner
    gap = math.dist(corner[:2], far.objects["blue_cube"][:2])
    assert gap > envelope.object_target_distance_xy.max  # beyond what it was trained on
    plan = planner(shipped, far, keyword_scorer(["pick red blue"])).plan(
        "put the red cube on the blue cube", use_cache=False
    )
    assert plan.refused and plan.steps == []
    assert "object_target_distance_xy" in plan.reason, plan.reason
    errors = validate_plan(
        [Step("pick_place", {"object": "red_cube", "target": "blue_cube"})], shipped, far
    )
    assert any("object_target_distance_xy" in e for e in errors)
    # in the scene itself (0.255 m apart, inside the trained 0.10-0.45 m) it is planned
    plan = planner(shipped, world, keyword_scorer(["pick red blue"])).plan(
        "put the red cube on the blue cube", use_cache=False
    )
    assert not plan.refused and [s.key() for s in plan.steps] == ["pick_place red_cube blue_cube"]


def test_stacking_on_itself_or_on_a_held_cube_is_refused(shipped, world):
    p = planner(shipped, world, keyword_scorer(["pick green green"]))
    plan = p.plan("put the green cube on the green cube", use_cache=False)
    assert plan.refused and "itself" in plan.reason
    # the blue cube lifted into the air: held in the gripper
    held = world.copy()
    held.apply(
        shipped["pick_place"].effects_machine, {"object": "blue_cube", "target": [0.45, 0.1, 0.2]}
    )
    plan = planner(shipped, held, keyword_scorer(["pick green blue"])).plan(
        "put the green cube on the blue cube", use_cache=False
    )
    assert plan.refused and "blue_cube" in plan.reason and "held" in plan.reason, plan.reason
    # in a plan: the second step stacks on the cube the first step holds up
    lift = Step("pick_place", {"object": "blue_cube", "target": [0.45, 0.1, 0.2]})
    errors = validate_plan([lift, STACK], shipped, world)
    assert any(e.startswith("steps[1]") and "not resting" in e for e in errors), errors
    assert validate_plan([STACK], shipped, world) == []
    # a second cube onto the same target goes on the top of its stack: a tower of three
    red_on_blue = Step("pick_place", {"object": "red_cube", "target": "blue_cube"})
    assert validate_plan([STACK, red_on_blue], shipped, world) == []


@pytest.mark.parametrize(
    "goal,obj,target",
    [
        ("Nudge the blue block over to the green block.", "blue_cube", "green_cube"),
        ("Push the red cube so it touches the blue cube.", "red_cube", "blue_cube"),
        ("slide the green cube onto the red cube", "green_cube", "red_cube"),
    ],
)
def test_a_push_to_a_cube_is_refused_not_substituted(shipped, world, goal, obj, target):
    """Push takes pads and points only; pick_place takes the cube but lifts it, which the
    goal's push rules out: refused with the reason, never planned as a push to a pad (the
    model here wants exactly that) nor as a stack."""
    cube, on = obj.split("_")[0], target.split("_")[0]
    side = "right" if cube == "red" else "left"  # the pads each cube's path to is clear
    for wanted in (f"push {cube} {side}", f"pick {cube} {on}"):
        plan = planner(shipped, world, keyword_scorer([wanted])).plan(goal, use_cache=False)
        assert plan.refused and plan.steps == [], plan.to_json()
        assert f"no skill moves {obj} to {target} without lifting it" in plan.reason
        assert "push takes target one of left_pad, right_pad" in plan.reason
    # the same pair with lifting allowed is a stack, and a push to a pad is still a push
    stack = planner(shipped, world, keyword_scorer([f"pick {cube} {on}"])).plan(
        f"put the {cube} cube on the {on} cube", use_cache=False
    )
    assert not stack.refused and [s.key() for s in stack.steps] == [f"pick_place {obj} {target}"]
    push = planner(shipped, world, keyword_scorer([f"push {cube} {side}"])).plan(
        f"push the {cube} cube to the {side} pad", use_cache=False
    )
    assert [s.key() for s in push.steps] == [f"push {obj} {side}_pad"]
