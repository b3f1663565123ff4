"""Negation and scope ("don't touch X", "leave X where it is", "every cube except X",
"only X", "not X"), and the verb repertoire check.

The model here is a fake whose scores the test sets: it wants the forbidden step first,
so a plan without it shows the goal's prohibition masked it, not the model's luck. Worlds
with other cubes and positions check that the words, not a fixed list, pick the cube.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from miles_ros.agent.evaluation import load_eval_goals, load_eval_refusals
from miles_ros.agent.grounding import Step
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.prohibitions import AVOID, MOVE, TOUCH
from miles_ros.agent.reading import read_goal
from miles_ros.agent.references import resolve_references
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.repertoire import ACTIONS, repertoire
from miles_ros.agent.scope import read_scope
from miles_ros.agent.world import World
from tests.agent.conftest import FIXTURES, keyword_scorer


def wanting(first: str, then: list[str]):
    """A model that wants ``first`` at every step (it is forbidden: masked), then the
    lines of ``then`` in order, then ``done``."""

    first, then = _line(first), [_line(t) for t in then]

    def score(prompt: str, line: str) -> float:
        line = line.strip()
        plan = prompt.rsplit("Plan:\n", 1)[1]
        done = plan.count("\n")
        if line == first:
            return 0.0
        if done < len(then) and line == then[done]:
            return -1.0
        return -1.5 if line == "done" and done >= len(then) else -9.0

    return score


def _line(key: str) -> str:
    """``pick_place red_cube left_pad`` as the model's plan line: ``pick red left``."""
    return key.replace("pick_place", "pick").replace("_cube", "").replace("_pad", "")


def planner_for(registry, world, scorer) -> Planner:
    return Planner(registry, world, FakeLanguageModel(scorer), PlannerConfig())


def shuffled(world: World, seed: int, cubes: list[str] | None = None) -> World:
    """``world`` with its cubes (or only ``cubes``) at each other's places, shuffled."""
    rng = random.Random(seed)
    names = cubes or list(world.objects)
    spots = [world.objects[n] for n in world.objects]
    rng.shuffle(spots)
    return World(dict(zip(names, spots, strict=False)), dict(world.places))


SCOPES = [
    # (goal, positive part, {cube: what is forbidden})
    (
        "don't touch the red cube, just push the green cube to the left pad",
        "push the green cube to the left pad",
        {"red_cube": TOUCH},
    ),
    (
        "push the green cube to the left pad but leave the red cube where it is",
        "push the green cube to the left pad",
        {"red_cube": MOVE},
    ),
    (
        "move every cube except the blue one to the right pad",
        "move the red cube to the right pad, then the green one",
        {"blue_cube": MOVE},
    ),
    (
        "Move all the cubes to the right pad except the green block.",
        "Move the red cube to the right pad, then the blue one.",
        {"green_cube": MOVE},
    ),
    (
        "without touching the green cube, put the red cube on the left pad",
        "put the red cube on the left pad",
        {"green_cube": TOUCH},
    ),
    (
        "put the red cube on the left pad and do not move the blue cube",
        "put the red cube on the left pad",
        {"blue_cube": MOVE},
    ),
    (
        "Keep the blue block in place and slide the red block to the right mat",
        "slide the red block to the right mat",
        {"blue_cube": MOVE},
    ),
    (
        "push the red cube, not the blue one, to the left pad",
        "push the red cube to the left pad",
        {"blue_cube": MOVE},
    ),
    (
        "push only the green cube to the left pad",
        "push the green cube to the left pad",
        {"red_cube": MOVE, "blue_cube": MOVE},
    ),
    (
        "Never touch the red or the blue cube. Put the green cube on the right pad.",
        "Put the green cube on the right pad.",
        {"red_cube": TOUCH, "blue_cube": TOUCH},
    ),
    (
        "stay away from the green cube and hover over the left pad",
        "hover over the left pad",
        {"green_cube": AVOID},
    ),
    (
        "leave the blue cube alone and go home",
        "go home",
        {"blue_cube": TOUCH},
    ),
    (
        "Please don't move the green cube while you put the blue cube on the right pad",
        "put the blue cube on the right pad",
        {"green_cube": MOVE},
    ),
    (
        "Put the blue cube on the left pad without bumping into the red cube",
        "Put the blue cube on the left pad",
        {"red_cube": TOUCH},
    ),
    (
        "Make sure the red cube stays where it is, and put the blue cube on the left pad",
        "put the blue cube on the left pad",
        {"red_cube": MOVE},
    ),
    (
        "Move the green cube to the right pad; the red cube must not move",
        "Move the green cube to the right pad",
        {"red_cube": MOVE},
    ),
    (
        "The blue cube mustn't be touched; put the red cube on the left pad",
        "put the red cube on the left pad",
        {"blue_cube": TOUCH},
    ),
    (
        "Except for the red cube, put every cube on the right pad",
        "put the green cube on the right pad, then the blue one",
        {"red_cube": MOVE},
    ),
    (
        "Push the red cube to the left pad but don't push the blue one",
        "Push the red cube to the left pad",
        {"blue_cube": MOVE},
    ),
    (
        "Pick up every cube except the green one and place them on the right pad",
        "place the red cube on the right pad, then the blue one",
        {"green_cube": MOVE},
    ),
    (
        "Don't go near the red cube and reach the left pad",
        "reach the left pad",
        {"red_cube": AVOID},
    ),
    (
        "Move the red cube to the left pad but keep your hands off the blue cube",
        "Move the red cube to the left pad",
        {"blue_cube": TOUCH},
    ),
]


@pytest.mark.parametrize("goal,positive,forbidden", SCOPES)
def test_each_negation_form_forbids_its_cube_and_leaves_the_positive_part(
    goal, positive, forbidden, world
):
    scope = read_scope(goal, world)
    assert scope.refusal is None and scope.text == positive
    assert {p.cube: p.what for p in scope.prohibitions} == forbidden
    assert all(p.scope == "goal" for p in scope.prohibitions)


def _scope_untouched(goals, world):
    """Each goal's scope is the goal itself, with no prohibition."""
    for goal in goals:
        scope = read_scope(goal, world)
        assert scope.text == goal and not scope.prohibitions, goal


def test_manners_on_a_pronoun_are_left_to_the_reading(world):
    _scope_untouched(
        (
            "Move the red cube to the left pad, but do not lift it - just push.",
            "Move over to the blue cube without touching it.",
            "Carry the green cube to the right pad but leave it where it is",
            "Don't lift the red cube, push it to the left pad",
            "Don't pick up the blue cube; slide the blue cube to the right pad",
        ),
        world,
    )


@pytest.mark.parametrize("seed", range(4))
def test_every_cube_except_expands_to_the_scenes_other_cubes(seed, world):
    """The cubes come from the World: another set of cubes, elsewhere, gives another
    expansion; the excepted cube is forbidden to move."""
    rng = random.Random(seed)
    cubes = rng.sample(["red_cube", "green_cube", "blue_cube", "yellow_cube"], rng.randint(2, 4))
    scene = shuffled(world, seed, cubes)
    excepted = rng.choice(cubes)
    colour = excepted.split("_")[0]
    scope = read_scope(f"move every cube except the {colour} one to the left pad", scene)
    kept = [c for c in cubes if c != excepted]
    assert scope.text == _each("move", kept, " to the left pad")
    assert [(p.cube, p.what) for p in scope.prohibitions] == [(excepted, MOVE)]
    everything = read_scope("put all cubes on the right pad, then go home", scene)
    assert everything.text == _each("put", cubes, " on the right pad") + ", then go home"
    assert not everything.prohibitions


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "closing",
    [
        "Alright, that's everything for today - park the arm back at home.",
        "OK that is everything, so go home now",
        "It's everything I needed; hover over the left pad and stop",
    ],
)
def test_everything_said_of_the_goal_is_not_every_cube(closing, seed, world):
    """ "that's everything" closes the request: no cube is moved for it (held-out 13 had it
    planned as every cube in turn), while "everything" as an object still is every cube."""
    scene = shuffled(world, seed, ["red_cube", "green_cube", "blue_cube"])
    scope = read_scope(closing, scene)
    assert scope.text == closing and not scope.prohibitions and not scope.refusal
    cubes = sorted(scene.objects, key=lambda n: list(scene.objects).index(n))
    moved = read_scope("put everything on the left pad", scene)
    assert moved.text == _each("put", cubes, " on the left pad")


def _each(verb: str, names: list[str], rest: str) -> str:
    """ "put the red cube on the pad, then the green one, then the blue one"."""
    first = f"{verb} the {names[0].replace('_', ' ')}{rest}"
    return first + "".join(f", then the {n.split('_')[0]} one" for n in names[1:])


def test_every_cube_except_all_of_them_is_refused(world):
    scope = read_scope(
        "move every cube except the red, green and blue ones to the left pad", world
    )
    assert scope.refusal and "no cube" in scope.refusal


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "goal,forbidden_line,wanted",
    [
        (
            "don't touch the red cube, just push the green cube to the left pad",
            "push red_cube left_pad",
            ["push green_cube left_pad"],
        ),
        (
            "push the green cube to the left pad but leave the red cube where it is",
            "push red_cube left_pad",
            ["push green_cube left_pad"],
        ),
        (
            "move every cube except the blue one to the right pad",
            "pick_place blue_cube right_pad",
            ["pick_place red_cube right_pad", "pick_place green_cube right_pad"],
        ),
        (
            "without touching the green cube, put the red cube on the left pad",
            "pick_place green_cube left_pad",
            ["pick_place red_cube left_pad"],
        ),
        (
            "hover over the right pad and leave the blue cube alone",
            "pick_place red_cube blue_cube",
            ["reach right_pad"],
        ),
    ],
)
def test_the_planner_never_plans_a_forbidden_step(
    goal, forbidden_line, wanted, seed, registry, world
):
    """The model wants the forbidden step first, at every step, in worlds whose cubes
    are elsewhere: the plan is the rest, never it."""
    scene = shuffled(world, seed)
    plan = planner_for(registry, scene, wanting(forbidden_line, wanted)).plan(goal)
    assert plan.valid, plan.to_json()
    assert [s.key() for s in plan.steps] == wanted


def test_a_prohibition_scoped_to_its_clause_lets_another_clause_act(registry, world):
    goal = (
        "push the red cube to the right pad without touching the blue cube, "
        "then put the blue cube on the left pad"
    )  # red to the left pad would pass green (the push card's path rule)
    scope = read_scope(goal, world)
    assert [(p.cube, p.scope) for p in scope.prohibitions] == [("blue_cube", "clause")]
    wanted = ["push red_cube right_pad", "pick_place blue_cube left_pad"]
    plan = planner_for(registry, world, keyword_scorer([_line(k) for k in wanted])).plan(goal)
    assert [s.key() for s in plan.steps] == wanted
    # the same words as a clause of their own hold for the whole goal
    goal = "don't touch the blue cube, push the red cube to the right pad, then go home"
    (rule,) = read_scope(goal, world).prohibitions
    assert (rule.cube, rule.scope) == ("blue_cube", "goal")
    wanted = ["push red_cube right_pad", "home"]
    plan = planner_for(registry, world, wanting("push blue_cube left_pad", wanted)).plan(goal)
    assert [s.key() for s in plan.steps] == wanted


@pytest.mark.parametrize(
    "goal,words",
    [
        ("Don't touch the blue cube, but stack the red cube on the blue cube.", ["blue_cube"]),
        ("without touching the blue cube, put the red cube on the blue cube", ["blue_cube"]),
        ("Put the red cube on the right pad without moving the red cube", ["red_cube"]),
        ("Leave the green cube where it is and push it to the left pad", ["green_cube"]),
        ("Don't move the blue cube. Put it on the left pad.", ["blue_cube"]),
    ],
)
def test_a_goal_whose_only_plan_is_forbidden_is_refused_with_the_reason(
    goal, words, registry, world
):
    plan = planner_for(registry, world, wanting("done", [])).plan(goal)
    assert plan.refused and plan.steps == [], plan.to_json()
    assert "forbid" in plan.reason
    for word in words:
        assert word in plan.reason


def test_the_models_forbidden_first_choice_on_a_named_cube_is_a_refusal(registry, world):
    """The positive part names the cube and the model ranks the forbidden step first: the
    goal asks for what it forbids, so no other cube is moved instead."""
    goal = "don't move the blue cube; bring the red cube to the blue cube"
    plan = planner_for(registry, world, wanting("pick_place blue_cube red_cube", [])).plan(goal)
    assert plan.refused and "pick_place blue_cube red_cube" in plan.reason, plan.to_json()
    assert "blue_cube" in plan.reason and "forbid" in plan.reason


def test_a_prohibition_next_to_a_point(registry, world):
    # both cubes' paths to the point are clear ((0.5, 0.1) lies past green from red)
    goal = "don't touch the blue cube and push the red cube to 0.35, -0.2, 0.02"
    wanted = ["push red_cube [0.35, -0.2, 0.02]"]
    plan = planner_for(registry, world, wanting("push blue_cube [0.35, -0.2, 0.02]", wanted))
    assert [s.key() for s in plan.plan(goal).steps] == wanted


def test_only_forbidding_is_no_motion(registry, world):
    plan = planner_for(registry, world, wanting("push red_cube left_pad", [])).plan(
        "leave the red cube where it is"
    )
    assert plan.valid and plan.nothing and plan.goal == "leave the red cube where it is"


REPERTOIRE = [
    # (goal, verb, closest skill)
    ("hand the blue cube to me", "hand", "pick_place"),
    ("paint the green cube red", "paint", "push"),
    ("weld the blue cube to the table", "weld", "push"),
    ("rotate the red cube by 90 degrees", "rotate", "pick_place"),
    ("throw the red cube", "throw", "pick_place"),
    ("shake the green cube", "shake", "pick_place"),
    ("Pick up the red block and toss it onto the left pad.", "toss", "pick_place"),
    ("Could you please scan the blue cube?", "scan", "reach"),
    ("Take a photo of the red cube and send it to me.", "photograph", "reach"),
    ("could you take a quick picture of the blue block?", "photograph", "reach"),
    ("Shoot a short video of the green cube", "film", "reach"),
]
TO_A_PERSON = [
    "give the red cube to me",
    "Pass me the green block, please.",
    "bring the blue cube to the operator",
]


@pytest.mark.parametrize("goal,verb,closest", REPERTOIRE)
def test_a_verb_no_skill_does_is_refused_naming_the_closest_skill(
    goal, verb, closest, registry, world
):
    plan = planner_for(registry, world, wanting("pick_place red_cube left_pad", [])).plan(goal)
    assert plan.refused and plan.steps == [], plan.to_json()
    assert f"no skill can {verb}" in plan.reason
    for skill in registry.names:
        assert skill in plan.reason
    assert plan.reason.endswith(f"the closest is {closest}")


def test_take_is_a_pick_unless_it_takes_a_photo(registry, world):
    """ "take a photo of X" is refused above; "take X to P" stays a pick and place."""
    plan = planner_for(registry, world, keyword_scorer(["pick red left"]))
    assert plan.plan("Take the red cube to the left pad.").valid


@pytest.mark.parametrize("goal", TO_A_PERSON)
def test_a_cube_handed_to_a_person_is_refused(goal, registry, world):
    plan = planner_for(registry, world, wanting("pick_place red_cube left_pad", [])).plan(goal)
    assert plan.refused and "no skill hands a cube to a person" in plan.reason
    assert plan.reason.endswith("the closest is pick_place")
    # a person who is only the beneficiary is no receiver
    plan = planner_for(registry, world, keyword_scorer(["pick green right"]))
    assert plan.plan("Could you set the green block down on the right pad for me?").valid


def test_the_repertoire_comes_from_the_cards_and_the_generator(registry, world, tmp_path):
    """A card that says it rotates makes "rotate" a verb the robot does; the generator's
    verbs ("slide", "hover", "stack") are never in the refusal vocabulary's way."""
    verbs = repertoire(registry)
    assert {"slide", "shove", "nudge"} <= verbs["push"]
    assert {"hover", "approach", "tap"} <= verbs["reach"]
    assert {"stack", "lift", "pick"} <= verbs["pick_place"]
    assert not set(ACTIONS) & set().union(*verbs.values())
    card = yaml.safe_load((FIXTURES / "skills" / "pick_place" / "skill.yaml").read_text())
    card["description"] += " Use it to rotate a cube in the gripper."
    for name in ("reach", "push"):
        (tmp_path / name).mkdir()
        text = (FIXTURES / "skills" / name / "skill.yaml").read_text()
        (tmp_path / name / "skill.yaml").write_text(text)
    (tmp_path / "pick_place").mkdir()
    (tmp_path / "pick_place" / "skill.yaml").write_text(yaml.safe_dump(card))
    rotating = SkillRegistry.load([tmp_path], interface_cards=False)
    assert "rotate" in repertoire(rotating)["pick_place"]
    assert read_goal("rotate the red cube", rotating, world).refusal is None
    assert "rotate" in read_goal("rotate the red cube", registry, world).refusal


def test_the_hand_written_eval_goals_read_without_refusal_and_keep_their_plans(registry, world):
    """No false refusal from the new checks: every expressible eval goal reads without
    refusal, and its expected plan breaks none of its prohibitions; every negation and
    repertoire goal of the refusal set is refused by the reading."""
    from miles_ros.agent.validation import validate_plan

    goals = load_eval_goals()
    assert {"everyday", "negation"} <= {g["category"] for g in goals}
    for item in goals:
        where = world.copy()
        where.objects.update(item["objects"])  # a tower already standing, for some
        if validate_plan(item["plan"], registry, where):
            continue
        _, reading, asks = read_in_scope(item["goal"], registry, where)
        assert asks is None and reading.refusal is None, (item["goal"], reading.refusal)
        assert not [s for s in item["plan"] if reading.violation(s, registry)], item["goal"]
    refusals = [r for r in load_eval_refusals() if r["category"] in ("negation", "repertoire")]
    assert len(refusals) >= 12
    planner = planner_for(registry, world, wanting("pick_place red_cube left_pad", []))
    for item in refusals:
        assert planner.plan(item["goal"]).refused, item["goal"]


def test_readme_and_docs_examples_still_plan(registry, world):
    goals = (
        "put the red cube on the right pad, then go home",
        "slide the blue cube to the left pad",
        "put the green cube on the blue cube",
        "reach (0.5, 0.1, 0.3)",
        "move to the red cube",
        "put the red cube on the right pad",
    )
    _scope_untouched(goals, world)
    for goal in goals:
        assert read_goal(goal, registry, world).refusal is None, goal


def test_step_checks_of_each_prohibition(registry, world):
    """A reach never touches; a stack touches its target but does not move it; a push
    against a cube moves it; "don't go near" rules out every step naming the cube."""
    touch = read_scope("don't touch the blue cube", world).prohibitions[0]
    move = read_scope("don't move the blue cube", world).prohibitions[0]
    avoid = read_scope("don't go near the blue cube", world).prohibitions[0]
    reach = Step("reach", {"target": "blue_cube"})
    stack = Step("pick_place", {"object": "red_cube", "target": "blue_cube"})
    against = Step("push", {"object": "red_cube", "target": "blue_cube"})
    lift = Step("pick_place", {"object": "blue_cube", "target": "left_pad"})
    assert [bool(touch.forbids(s, registry)) for s in (reach, stack, against, lift)] == [
        False,
        True,
        True,
        True,
    ]
    assert [bool(move.forbids(s, registry)) for s in (reach, stack, against, lift)] == [
        False,
        False,
        True,
        True,
    ]
    assert all(avoid.forbids(s, registry) for s in (reach, stack, against, lift))
    assert not avoid.forbids(Step("reach", {"target": "left_pad"}), registry)


def test_eval_files_name_their_categories():
    raw = yaml.safe_load(
        (Path(__file__).resolve().parents[2] / "miles_ros/agent/eval_refusals.yaml").read_text()
    )
    assert {r.get("category") for r in raw} >= {None, "negation", "repertoire"}


def _placed(world: World, order_left_to_right: list[str]) -> World:
    """``world`` with its cubes in a row across the table, leftmost (largest y) first."""
    ys = [0.15, 0.02, -0.11]
    return World(
        {name: (0.45, y, 0.02) for name, y in zip(order_left_to_right, ys, strict=True)},
        dict(world.places),
    )


@pytest.mark.parametrize(
    "order, forbidden",
    [
        (["blue_cube", "green_cube", "red_cube"], "blue_cube"),
        (["green_cube", "red_cube", "blue_cube"], "green_cube"),
    ],
)
def test_a_positional_phrase_inside_a_prohibition_names_the_cube_it_picks(
    order, forbidden, registry, world
):
    """ "Don't touch the leftmost cube" forbids whichever cube is leftmost now: the model
    wants a step on that cube first, and the plan leaves it out."""
    scene = _placed(world, order)
    goal = "don't touch the leftmost cube; put the red cube on the left pad"
    (rule,) = read_scope(resolve_references(goal, scene, bare=False).text, scene).prohibitions
    assert rule.cube == forbidden
    wanted = ["pick_place red_cube left_pad"]
    plan = planner_for(registry, scene, wanting(f"push {forbidden} right_pad", wanted)).plan(goal)
    assert plan.valid and [s.key() for s in plan.steps] == wanted, plan.to_json()


def test_a_positional_prohibition_on_the_cube_the_goal_acts_on_is_refused(registry, world):
    """The same words with the red cube leftmost: the goal forbids what it asks for."""
    scene = _placed(world, ["red_cube", "green_cube", "blue_cube"])
    goal = "don't touch the leftmost cube; put the red cube on the left pad"
    plan = planner_for(registry, scene, wanting("pick_place red_cube left_pad", [])).plan(goal)
    assert plan.refused and plan.steps == [] and "red_cube" in plan.reason, plan.to_json()


def test_every_cube_except_a_positional_one(registry, world):
    scene = _placed(world, ["green_cube", "blue_cube", "red_cube"])
    goal = "put every cube except the rightmost cube on the left pad"
    wanted = ["pick_place green_cube left_pad", "pick_place blue_cube left_pad"]
    plan = planner_for(registry, scene, wanting("pick_place red_cube left_pad", wanted)).plan(goal)
    assert [s.key() for s in plan.steps] == wanted, plan.to_json()
