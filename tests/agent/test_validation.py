"""Schema and scene validation reject bad plans before anything runs."""

import pytest
import yaml

from miles_ros.agent.grounding import Step
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.validation import PlanError, parse_plan_json, validate_plan
from miles_ros.runtime.goals import GoalError, goal_from_positions
from tests.agent.conftest import FIXTURES


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


@pytest.fixture(scope="module")
def trained() -> SkillRegistry:
    """The library's trained cards (turn included), as ``miles plan`` loads them."""
    return SkillRegistry.load()


@pytest.mark.parametrize("angle", [90, 180, 360, -90])
def test_a_turn_the_goal_resolver_refuses_is_rejected_with_its_reason(trained, world, angle):
    """A cube looks the same every 90 deg: the skill node's resolver refuses such a turn,
    and so does the plan's validation, in the resolver's words."""
    step = Step("turn", {"object": "red_cube", "angle": angle})
    with pytest.raises(GoalError) as refused:
        goal_from_positions(trained["turn"].card.task, step.params, world.objects, world.places)
    errors = validate_plan([step], trained, world)
    assert errors == [f"steps[0] turn: {refused.value}"]
    assert "nothing to do" in errors[0]


def test_a_turn_by_30_degrees_is_accepted(trained, world):
    assert validate_plan([Step("turn", {"object": "red_cube", "angle": 30})], trained, world) == []


def test_a_push_to_a_cube_is_rejected_with_the_resolvers_reason(world, tmp_path):
    """A card whose schema lets push name a cube (as the interface card's does) still
    meets the push task's resolver, which takes pads and table points only."""
    card = yaml.safe_load((FIXTURES / "skills" / "push" / "skill.yaml").read_text())
    card["parameters"]["properties"]["target"]["oneOf"][0]["enum"] = [*world.names]
    (tmp_path / "push").mkdir()
    (tmp_path / "push" / "skill.yaml").write_text(yaml.safe_dump(card))
    registry = SkillRegistry.load([tmp_path], interface_cards=False)
    steps = [Step("push", {"object": "blue_cube", "target": "red_cube"})]
    (error,) = validate_plan(steps, registry, world)
    assert error.startswith("steps[0] push: no pad named 'red_cube'")
    ok = [Step("push", {"object": "blue_cube", "target": "left_pad"})]
    assert validate_plan(ok, registry, world) == []


def test_a_push_to_a_table_point_of_two_numbers_validates_and_moves_the_cube(world):
    """Push's card takes a target of x, y on the table: the plan's world puts the cube
    there, resting on the table (validation raised an IndexError on the missing z)."""
    from miles_ros.agent.world import CUBE_REST_Z

    registry = SkillRegistry.load()
    step = Step("push", {"object": "green_cube", "target": [0.6, 0.0]})  # (0.5, -0.15): past red
    assert validate_plan([step], registry, world) == []
    moved = world.copy()
    moved.apply(registry["push"].effects_machine, step.params)
    assert moved.objects["green_cube"] == pytest.approx((0.6, 0.0, CUBE_REST_Z))
