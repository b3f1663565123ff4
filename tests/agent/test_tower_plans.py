"""Towers in the planner: "stack all three cubes" (the planner's order, said in the text it
plans), "build a tower: blue, then green, then red on top" (the goal's order) and a pair
per clause become ordered pick_place steps whose effects let a later step stack on a
stacked cube; a fourth level is refused with the reason, in the reading, the validator and
the generate mode's grammar."""

import json

import pytest

from miles_ros.agent.grounding import Step
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.towers import chosen_order, read_tower
from miles_ros.agent.validation import validate_plan
from miles_ros.runtime.goals import tower_level
from sims.tasks import pick_place
from tests.agent.conftest import keyword_scorer

FOURTH = "a tower is at most 3 cubes high"


@pytest.fixture(scope="module")
def shipped() -> SkillRegistry:
    return SkillRegistry.load(interface_cards=False)


def planner(registry, world, scorer, generated: str | None = None) -> Planner:
    lm = FakeLanguageModel(scorer, (lambda prompt: generated) if generated else None)
    return Planner(registry, world, lm, PlannerConfig())


def stack(obj: str, on: str) -> Step:
    return Step("pick_place", {"object": f"{obj}_cube", "target": f"{on}_cube"})


def line(obj: str, on: str) -> str:
    return f"pick {obj} {on}"


def tower_world(world, order=("blue", "green", "red")):
    """``world`` with its cubes stacked in ``order`` (bottom first) where blue stands."""
    built = world.copy()
    x, y, _ = built.objects[f"{order[0]}_cube"]
    for level, colour in enumerate(order, start=1):
        built.objects[f"{colour}_cube"] = (x, y, pick_place.level_height(level))
    return built


@pytest.mark.parametrize(
    "goal",
    [
        "build a tower: blue, then green, then red on top",
        "Build a tower with the blue cube at the bottom, the green cube in the middle and "
        "the red cube on top.",
        "make a tower from the top: red, green, blue",
    ],
)
def test_a_tower_in_the_goals_order_becomes_its_stacking_steps_bottom_first(shipped, world, goal):
    text, reading, asks = read_in_scope(goal, shipped, world)
    assert reading.refusal is None and asks is None
    assert text == "put the green cube on the blue cube, then put the red cube on the green cube"
    p = planner(shipped, world, keyword_scorer([line("green", "blue"), line("red", "green")]))
    plan = p.plan(goal, use_cache=False)
    assert plan.valid and not plan.refused, plan.to_json()
    assert [s.key() for s in plan.steps] == [
        stack("green", "blue").key(),
        stack("red", "green").key(),
    ]


def test_stack_all_three_cubes_plans_the_planners_order_and_says_it(shipped, world):
    order = chosen_order(world)
    bottom, middle, top = (name.split("_")[0] for name in order)
    # the default scene: the green cube is closest to the other two, blue the nearest to it
    assert (bottom, middle, top) == ("green", "blue", "red")
    wanted = [line(middle, bottom), line(top, middle)]
    for goal in (
        "stack all three cubes",
        "Stack the cubes on top of each other.",
        "build a tower of all the blocks",
        "put the cubes in a tower",
    ):
        plan = planner(shipped, world, keyword_scorer(wanted)).plan(goal, use_cache=False)
        assert plan.valid and not plan.refused, plan.to_json()
        assert [s.key() for s in plan.steps] == [
            stack(middle, bottom).key(),
            stack(top, middle).key(),
        ]
        # the plan says the order it chose
        assert plan.goal.rstrip(".") == (
            f"put the {middle} cube on the {bottom} cube, then put the {top} cube on the "
            f"{middle} cube"
        ), plan.goal


def test_the_chosen_order_builds_on_a_tower_already_standing(world):
    two = world.copy()
    x, y, _ = two.objects["red_cube"]
    two.objects["blue_cube"] = (x, y, pick_place.level_height(2))  # blue on red
    assert chosen_order(two) == ("red_cube", "blue_cube", "green_cube")
    assert read_tower("stack all the cubes on the left pad", world).order == ()  # not a tower


def test_a_pair_per_clause_plans_as_said_and_the_effects_stack_on_the_stacked_cube(shipped, world):
    steps = [stack("green", "blue"), stack("red", "green")]
    assert validate_plan(steps, shipped, world) == []
    after = world.copy()
    for step in steps:  # the planner's world after each step: the tower's levels
        after.apply(shipped["pick_place"].effects_machine, step.params)
    assert [tower_level(f"{c}_cube", after.objects) for c in ("blue", "green", "red")] == [1, 2, 3]
    p = planner(shipped, world, keyword_scorer([line("green", "blue"), line("red", "green")]))
    plan = p.plan("put green on blue and red on green", use_cache=False)
    assert plan.valid and [s.key() for s in plan.steps] == [s.key() for s in steps]


def test_a_fourth_level_is_refused_with_the_reason(shipped, world):
    # red is the top of a three-cube tower (blue, green, red)
    built = tower_world(world)
    plan = planner(shipped, built, keyword_scorer([line("blue", "red")])).plan(
        "put the blue cube on top of the red cube", use_cache=False
    )
    assert plan.refused and plan.steps == [], plan.to_json()
    assert f"{FOURTH}: red_cube is already the third level" in plan.reason, plan.reason
    # a cube from the middle of the tower: the red cube lies on it
    plan = planner(shipped, built, keyword_scorer([line("green", "blue")])).plan(
        "stack the green cube on the blue cube", use_cache=False
    )
    assert plan.refused and "cannot move green_cube: red_cube lies on top" in plan.reason
    # a tower of two: its bottom cannot go on it
    two = tower_world(world, ("blue", "green"))
    plan = planner(shipped, two, keyword_scorer([line("blue", "green")])).plan(
        "put the blue cube on the green cube", use_cache=False
    )
    assert plan.refused and "green_cube stands on blue_cube" in plan.reason, plan.reason
    # a tower of four in words
    plan = planner(shipped, world, keyword_scorer([])).plan(
        "build a tower: blue, green, red, then blue again on top", use_cache=False
    )
    assert plan.refused and plan.reason.startswith(f"{FOURTH}: the goal asks for 4"), plan.reason


def test_a_fourth_level_on_a_full_tower_is_refused_by_the_validator_and_the_grammar(
    shipped, world
):
    two = world.copy()
    for step in (stack("green", "blue"), stack("red", "green")):
        two.apply(shipped["pick_place"].effects_machine, step.params)
    # the red cube is the third level: the blue cube (the bottom) cannot go on it, nor on
    # the tower by naming its bottom
    errors = validate_plan([stack("blue", "red")], shipped, two)
    assert errors and f"{FOURTH}: red_cube is already the third level" in errors[0], errors
    p = planner(shipped, world, keyword_scorer([]))
    grammar = p.grammar(world)

    def accepts(*steps):
        state = grammar.feed(
            grammar.initial, " " + json.dumps({"steps": [s.to_dict() for s in steps]})
        )
        return state is not None and grammar.is_complete(state)

    assert accepts(stack("green", "blue"), stack("red", "green"))
    assert not accepts(stack("green", "blue"), stack("red", "green"), stack("blue", "red"))
    assert not accepts(stack("green", "blue"), stack("red", "blue"))  # covered: name the top


def test_eval_items_stand_their_cubes_where_the_goal_finds_them(world):
    """``objects:`` in the eval sets replaces cube centres for that goal only."""
    from types import SimpleNamespace

    from miles_ros.agent.evaluation import goal_world, load_eval_goals, load_eval_refusals

    holder = SimpleNamespace(world=world)
    items = [i for i in [*load_eval_goals(), *load_eval_refusals()] if i["objects"]]
    assert {i["category"] for i in items} == {"tower"}
    for item in items:
        where = goal_world(holder, item)
        for name, position in item["objects"].items():
            assert where.objects[name] == position
        assert where is not world and world.objects == load_world_objects()
    plain = next(i for i in load_eval_goals() if not i["objects"])
    assert goal_world(holder, plain) is world


def load_world_objects():
    from miles_ros.agent.world import load_world

    return load_world().objects
