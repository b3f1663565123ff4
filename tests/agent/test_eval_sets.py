"""The categorised eval sets: the held-out sets stay out of the training data generator and
apart from the other sets, the later ones' expected plans are plans the cards can run in
their scenes, and the judge of an answer (exact plan, refusal, question, fallback) scores
what it should."""

from __future__ import annotations

import pytest

from miles_ros.agent.datagen import generate
from miles_ros.agent.evaluation import (
    HARDER,
    HELD_OUT_SETS,
    answer,
    dev_set,
    load_eval_set,
    parse_step,
    summarize,
)
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.plans import normalize_goal
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.validation import validate_plan
from tests.agent.conftest import keyword_scorer


@pytest.fixture(scope="module")
def held_out() -> dict[str, list[dict]]:
    return {name: load_eval_set(path) for name, path in HELD_OUT_SETS.items()}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("refusal_fraction", [0.15, 1.0])
def test_the_generator_never_writes_a_held_out_goal(held_out, world, seed, refusal_fraction):
    """Exact match after normalisation (case, punctuation, spaces), over the sizes and
    refusal shares `miles planner-train` draws, with the registry it trains against."""
    examples = generate(
        world, 4000, seed=seed, refusal_fraction=refusal_fraction, registry=SkillRegistry.load()
    )
    generated = {normalize_goal(e.goal) for e in examples}
    assert len(generated) > 1000  # the draw is varied enough to mean something
    leaked = {
        name: sorted({normalize_goal(i["goal"]) for i in items} & generated)
        for name, items in held_out.items()
    }
    assert leaked == {name: [] for name in held_out}


@pytest.mark.parametrize("name", sorted(HELD_OUT_SETS))
def test_the_held_out_set_covers_every_category_and_moves_the_cubes(held_out, name):
    heldout = held_out[name]
    categories = {i["category"] for i in heldout}
    assert set(HARDER) | {"everyday", "infeasible", "repertoire", "ambiguous"} <= categories
    assert {i["expect"] for i in heldout} == {"plan", "refuse", "clarify"}
    moved = [i for i in heldout if i["objects"]]
    # the same words, another scene, another cube
    by_goal: dict[str, set] = {}
    for item in heldout:
        if item["expect"] == "plan":
            by_goal.setdefault(item["goal"], set()).add(tuple(s.key() for s in item["plan"]))
    assert moved and any(len(plans) > 1 for plans in by_goal.values())


def test_the_dev_and_held_out_sets_share_no_goal(held_out, world):
    sets = {"dev": dev_set(SkillRegistry.load(), world), **held_out}
    goals = {name: {normalize_goal(i["goal"]) for i in items} for name, items in sets.items()}
    shared = {(a, b): sorted(goals[a] & goals[b]) for a in goals for b in goals if a < b}
    assert shared == {pair: [] for pair in shared}


@pytest.mark.parametrize("name", sorted(set(HELD_OUT_SETS) - {"heldout"}))
def test_the_later_held_out_sets_plans_pass_validation_in_their_scenes(held_out, world, name):
    """Every expected plan is one the shipped cards accept where the item stands its cubes
    (skills, parameters, envelopes, towers): a planner can get each one exactly right."""
    registry = SkillRegistry.load()
    plans = [i for i in held_out[name] if i["expect"] == "plan" and i["plan"]]
    problems = []
    for item in plans:
        scene = world.copy()
        scene.objects.update(item["objects"] or {})
        errors = validate_plan(item["plan"], registry, scene)
        if errors:
            problems.append((item["goal"], item["objects"], errors))
    assert len(plans) > 50 and problems == []


def _item(goal, expect="plan", plan=(), category="everyday", objects=None):
    return {
        "goal": goal,
        "category": category,
        "expect": expect,
        "plan": [parse_step(s) for s in plan],
        "objects": objects,
    }


def test_answers_are_judged_exact_refused_asked_or_fallback(registry, world):
    lm = FakeLanguageModel(keyword_scorer(["push red right"]))  # left: through green
    planner = Planner(registry, world, lm, PlannerConfig())
    rows = [
        answer(
            planner, _item("push the red cube to the right pad", plan=["push red_cube right_pad"])
        ),
        # the model pushes where a pick was expected: a valid plan, not the exact one
        answer(
            planner,
            _item("push the red cube to the right pad", plan=["pick_place red_cube right_pad"]),
        ),
        answer(planner, _item("put the purple cube on the left pad", "refuse", category="x")),
        answer(planner, _item("put the cube on the left pad", "clarify", category="y")),
        # a refusal where a plan was expected: a wrong refusal
        answer(planner, _item("put the purple cube on the left pad", plan=["home"])),
    ]
    assert [(r["got"], r["ok"]) for r in rows] == [
        ("plan", True),
        ("plan", False),
        ("refuse", True),
        ("clarify", True),
        ("refuse", False),
    ]
    summary = summarize(rows)
    assert summary["by_category"]["everyday"]["exact"] == pytest.approx(1 / 3, abs=1e-4)
    assert summary["by_category"]["everyday"]["valid"] == pytest.approx(2 / 3, abs=1e-4)
    assert summary["all"]["refusal_precision"] == 0.5 and summary["all"]["refusal_recall"] == 1.0
    assert summary["targets"]["feasible_wrongly_refused"] == pytest.approx(1 / 3, abs=1e-4)
    assert summary["targets"]["ambiguous_asked"] == 1.0
    assert len(summary["misses"]) == 2


def test_a_fallback_plan_is_a_failure_even_when_it_is_right(registry, world):
    lm = FakeLanguageModel(lambda prompt, line: 0.0 if line.strip() == "done" else -50.0)
    planner = Planner(registry, world, lm, PlannerConfig(fallback=True))
    row = answer(
        planner, _item("put the red cube on the left pad", plan=["pick_place red_cube left_pad"])
    )
    assert row["got"] in ("fallback", "refuse") and not row["ok"]


def test_an_items_cubes_are_moved_for_its_goal_only(registry, world):
    lm = FakeLanguageModel(keyword_scorer(["reach red"]))
    planner = Planner(registry, world, lm, PlannerConfig())
    before = dict(planner.world.objects)
    moved = {"red_cube": (0.40, 0.20, 0.02), "blue_cube": (0.45, -0.15, 0.02)}
    row = answer(
        planner, _item("hover over the leftmost cube", plan=["reach red_cube"], objects=moved)
    )
    assert row["ok"] and row["moved"]
    assert planner.world.objects == before


def test_dev_items_keep_the_cubes_where_their_goal_finds_them(world):
    """A goal's ``objects`` (a tower already standing) reach the dev set's items, and a
    goal's expected plan is judged in that scene."""
    registry = SkillRegistry.load()
    items = dev_set(registry, world)
    towers = [i for i in items if i["category"] == "tower" and i["objects"]]
    assert towers
    for item in towers:
        levels = sorted(p[2] for p in item["objects"].values())
        assert levels[-1] > levels[0] or len(levels) < len(world.objects)
    refused = [i for i in towers if i["expect"] == "refuse"]
    assert any("top of the red cube" in i["goal"] for i in refused)
