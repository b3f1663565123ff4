"""Schema and scene validation reject bad plans before anything runs."""

import pytest

from miles_ros.agent.grounding import Step
from miles_ros.agent.validation import PlanError, parse_plan_json, validate_plan


def test_a_good_plan_passes(registry, world):
    plan = [
        Step("pick_place", {"object": "red_cube", "target": "left_pad"}),
        Step("home"),
        Step("reach", {"target": [0.5, 0.1, 0.3]}),
    ]
    assert validate_plan(plan, registry, world) == []


@pytest.mark.parametrize(
    "steps, fragment",
    [
        ([Step("fly", {"to": "moon"})], "unknown skill 'fly'"),
        ([Step("push", {"object": "red_cube"})], "'target' is a required property"),
        (
            [Step("push", {"object": "red_cube", "target": "left_pad", "speed": 2})],
            "Additional properties",
        ),
        (
            [Step("pick_place", {"object": "red_cube", "target": "red_cube"})],
            "object and target are both",
        ),
        ([Step("reach", {"target": [3.0, 0.0, 0.3]})], "outside the planning workspace"),
        ([Step("reach", {"target": "yellow_pad"})], ""),
        ([], "no steps"),
    ],
)
def test_bad_plans_are_rejected(registry, world, steps, fragment):
    errors = validate_plan(steps, registry, world)
    assert errors
    assert any(fragment in e for e in errors), errors


def test_names_outside_the_scene_are_rejected(registry, world):
    small = world.copy()
    del small.objects["blue_cube"]
    small.object_at.pop("blue_cube")
    errors = validate_plan([Step("reach", {"target": "blue_cube"})], registry, small)
    assert any("not in the scene" in e for e in errors)


def test_parse_plan_json():
    steps = parse_plan_json('{"steps": [{"skill": "home", "params": {}}]}')
    assert steps == [Step("home", {})]
    with pytest.raises(PlanError, match="not JSON"):
        parse_plan_json('{"steps": [')
    with pytest.raises(PlanError):
        parse_plan_json('{"plan": []}')
