"""The planner with a fake language model whose scores the test controls."""

import json

import pytest

from miles_ros.agent.grounding import Step
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.planner import Planner, PlannerConfig, normalize_goal, rule_based_plan
from tests.agent.conftest import keyword_scorer


def make(registry, world, score, **cfg):
    lm = FakeLanguageModel(score)
    return Planner(registry, world, lm, PlannerConfig(**cfg)), lm


def test_grounded_scoring_picks_the_steps_the_model_prefers(registry, world):
    planner, lm = make(registry, world, keyword_scorer(["push green right", "home"]))
    plan = planner.plan("slide the green cube to the right pad and go home")
    assert [s.key() for s in plan.steps] == ["push green_cube right_pad", "home"]
    assert plan.valid and plan.mode == "grounded" and not plan.fallback_used
    assert plan.scores[0]["chosen"] == {
        "skill": "push",
        "params": {"object": "green_cube", "target": "right_pad"},
    }
    # the second step was scored with the first one in the prompt
    assert lm.prompts[1].endswith("Plan:\npush green right\n")
    out = plan.to_json()
    assert set(out) == {"goal", "steps", "mode", "model", "latency_s", "fallback_used"}
    json.dumps(out)


def test_affordance_overrules_an_impossible_favourite(registry, world):
    def score(prompt, line):  # the model loves moving the red cube onto itself
        return (
            {"pick red red\n": 0.0, "pick red left\n": -2.0}.get(line, -9.0)
            if "Plan:\n" == prompt[-6:]
            else (0.0 if line == "done\n" else -9.0)
        )

    planner, _ = make(registry, world, score)
    # "on a pad" would be asked back (which pad?): the goal names the pad
    plan = planner.plan("put the red cube on the left pad")
    assert [s.key() for s in plan.steps] == ["pick_place red_cube left_pad"]


@pytest.mark.parametrize(
    ("scores", "goal", "step"),
    [
        # a model that always wants the same step: once its effects hold, the affordance
        # drops (redundant) and done wins (offline planning advances the world)
        (
            {"pick red left\n": 0.0, "done\n": -1.0},
            "red cube on the left pad",
            "pick_place red_cube left_pad",
        ),
        # a model that leans hard on repeating the step (as two remembered copies of "worked:
        # reach green_cube" in its prompt made it): the soft redundancy penalty alone loses
        ({"reach green\n": 0.0, "done\n": -4.0}, "hover above the green cube", "reach green_cube"),
    ],
    ids=["offline_planning_advances_the_world", "leaning_hard_on_repeating_it"],
)
def test_a_step_is_never_chosen_again_right_after_itself_once_it_holds(
    registry, world, scores, goal, step
):
    planner, _ = make(registry, world, lambda prompt, line: scores.get(line, -9.0))
    plan = planner.plan(goal)
    assert [s.key() for s in plan.steps] == [step]
    assert plan.valid


def test_plan_stops_at_max_steps(registry, world):
    def score(prompt, line):  # home and the blue cube in turn, forever
        last = prompt.rsplit("Plan:\n", 1)[1].strip().split("\n")[-1]
        return 0.0 if line.strip() in ("home", "reach blue") and line.strip() != last else -9.0

    planner, _ = make(registry, world, score, max_steps=3, affordance_weight=0.0)
    plan = planner.plan("home and the blue cube forever")
    assert len(plan.steps) == 3


def test_plan_cache_hit(registry, world):
    planner, lm = make(registry, world, keyword_scorer(["reach blue"]))
    first = planner.plan("Reach the blue cube!")
    calls = len(lm.prompts)
    second = planner.plan("  reach the BLUE cube ")
    assert second.cached and not first.cached
    assert len(lm.prompts) == calls  # the model was not asked again
    assert second.steps == first.steps and second.trace_id != first.trace_id
    assert planner.cache.hits == 1
    moved = world.copy()
    moved.apply(
        registry["pick_place"].effects_machine, {"object": "blue_cube", "target": "left_pad"}
    )
    assert not planner.plan("reach the blue cube", world=moved).cached  # new scene: miss
    assert planner.cache.invalidate("reach the blue cube") == 2


def test_normalize_goal_keeps_numbers():
    assert normalize_goal("Reach (0.5, -0.1, 0.3)!") == "reach 0.5 -0.1 0.3"


def test_generate_mode_retries_with_the_errors_in_the_prompt(registry, world):
    replies = iter(
        [
            '{"steps": [{"skill": "fly", "params": {}}]}',
            '{"steps": [{"skill": "home", "params": {}}]}',
        ]
    )
    lm = FakeLanguageModel(generate_fn=lambda prompt: next(replies))
    planner = Planner(registry, world, lm, PlannerConfig(mode="generate"))
    plan = planner.plan("go home")
    assert plan.valid and plan.steps == [Step("home", {})]
    assert "unknown skill 'fly'" in lm.prompts[1]


def test_invalid_output_is_reported_and_fallback_is_labelled(registry, world):
    lm = FakeLanguageModel(generate_fn=lambda prompt: "not json")
    planner = Planner(registry, world, lm, PlannerConfig(mode="generate", retries=1))
    plan = planner.plan("push the red cube to the right pad")  # to the left: through green
    assert not plan.valid and plan.errors and not plan.fallback_used
    planner = Planner(
        registry, world, lm, PlannerConfig(mode="generate", retries=0, fallback=True)
    )
    plan = planner.plan("push the red cube to the right pad")
    assert plan.valid and plan.fallback_used and plan.mode == "fallback"
    assert plan.to_json()["fallback_used"] is True
    assert [s.key() for s in plan.steps] == ["push red_cube right_pad"]


def test_rule_based_plan(registry, world):
    steps = rule_based_plan("put the blue cube on the right pad, then go home", registry, world)
    assert [s.key() for s in steps] == ["pick_place blue_cube right_pad", "home"]


def test_unknown_mode_is_an_error(registry, world):
    planner, _ = make(registry, world, lambda p, c: 0.0)
    with pytest.raises(ValueError, match="unknown mode"):
        planner.plan("x", mode="dream")


def test_memories_are_retrieved_into_the_prompt(registry, world):
    from miles_ros.agent.memory import HashEmbedder, Memory

    memory = Memory(":memory:", embedder=HashEmbedder())
    memory.add_fact("the red cube slides badly; pick it up instead of pushing it")
    memory.add_fact("the operator likes tea")
    lm = FakeLanguageModel(keyword_scorer(["pick red left"]))
    planner = Planner(registry, world, lm, PlannerConfig(memory_min_score=0.3), memory=memory)
    plan = planner.plan("push the red cube to the left pad")
    assert plan.notes == ["the red cube slides badly; pick it up instead of pushing it"]
    assert "Note: the red cube slides badly" in lm.prompts[0]
    assert "likes tea" not in lm.prompts[0]
