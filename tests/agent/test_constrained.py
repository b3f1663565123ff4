"""Constrained decoding: every sampled plan is schema-valid JSON."""

import json

import jsonschema
import numpy as np

from miles_ros.agent.constrained import PlanGrammar, TokenIndex, constrained_decode
from miles_ros.agent.grounding import Step
from miles_ros.agent.lm import random_constrained_plan
from miles_ros.agent.prompts import PlanText
from miles_ros.agent.validation import parse_plan_json, validate_plan


def test_grammar_accepts_canonical_plans_and_refuses_others(registry, world):
    grammar = PlanGrammar(registry, world.names)
    text = PlanText(registry, world.names)
    plan = text.json_plan(
        [
            Step("pick_place", {"object": "red_cube", "target": "left_pad"}),
            Step("reach", {"target": [0.5, -0.1, 0.25]}),
            Step("home"),
        ]
    )
    state = grammar.feed(grammar.initial, plan)
    assert state is not None and grammar.is_complete(state)
    for bad in (
        '{"steps": [{"skill": "fly"',
        '{"steps": [{"skill": "push", "params": {"object": "red_cube", "target": "red',
        '{"steps": [{"skill": "reach", "params": {"target": [1.5',
        '{"steps": [{"skill": "push", "params": {"target"',
        '{"steps": [{"skill": "home", "params": {"x"',
        '{"steps": [{"skill": "reach", "params": {"target": "purple_cube"',
    ):
        assert grammar.feed(grammar.initial, bad) is None, bad
    assert grammar.forced(grammar.initial) == '{"steps": [{"skill": "'


def test_twenty_seeds_of_random_choices_are_all_schema_valid(registry, world):
    grammar = PlanGrammar(registry, world.names, max_steps=4)
    schema = registry.plan_schema(max_steps=4)
    seen = set()
    for seed in range(20):
        text = random_constrained_plan(grammar, seed)
        data = json.loads(text)
        jsonschema.validate(data, schema)
        seen.add(text)
    assert len(seen) > 10  # the seeds really explore the grammar


def test_real_tokenizer_twenty_sampled_plans_are_valid(registry, world, real_tokenizer):
    """The vocabulary trie + grammar, sampling from random logits over 20 seeds."""
    grammar = PlanGrammar(registry, world.names, prefix=" ")
    index = TokenIndex(real_tokenizer)
    schema = registry.plan_schema()
    encode = lambda s: real_tokenizer(s, add_special_tokens=False)["input_ids"]  # noqa: E731
    for seed in range(20):
        rng = np.random.default_rng(seed)

        def logits(new, ids, rng=rng):
            return rng.normal(size=len(ids)) * 3

        text = constrained_decode(grammar, index, encode, logits, seed=seed, temperature=1.0)
        data = json.loads(text)
        jsonschema.validate(data, schema)
        steps = parse_plan_json(text)
        errors = validate_plan(steps, registry, world, max_steps=6)
        # no cube onto itself, every point inside the workspace
        assert _beyond_the_path_rule(errors) == []


def test_sampled_plans_never_stack_on_a_cube_an_earlier_step_moved_or_covered(registry, world):
    """validate_plan's stacking rule follows the plan's effects (a cube moved to a point in
    the air, or onto another cube, or with a cube put on it, is no place to stack); the
    grammar keeps such cubes out of later targets. Before it did, 8 of 2,000 sampled plans
    broke the rule. A push whose path passes another cube is geometry no grammar over
    names and numbers holds: validation alone refuses it, and it is left out here."""
    grammar = PlanGrammar(registry, world.names, max_steps=6)
    for seed in range(400):
        text = random_constrained_plan(grammar, seed)
        errors = validate_plan(parse_plan_json(text), registry, world, max_steps=6)
        assert _beyond_the_path_rule(errors) == [], text


def _beyond_the_path_rule(errors: list[str]) -> list[str]:
    """Validation errors other than a push through a cube (the push card's path rule)."""
    return [e for e in errors if "from its path, closer than" not in e]
