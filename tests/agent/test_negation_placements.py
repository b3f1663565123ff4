"""Held-out 35's negations read as grammar (round 39): a placement forbidden ("(whatever
happens,) don't (go) put X on P", "I don't want X on P; ... it ..."), "don't go V-ing X" as
"don't V X", the stack kept alone beside another clause's motion, "keep everything as it is
except X; that one goes ...", a list of "don't move X" clauses ("... either") and the goals
that take a request back or say no change is wanted. The planner's model here is a fake that
wants the forbidden step first: a plan without it shows the reading kept it out."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from miles_ros.agent.grounding import Step
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.no_motion import asks_no_motion
from miles_ros.agent.prohibitions import MOVE, PLACE, TOUCH, Prohibition
from miles_ros.agent.reading import GoalReading
from miles_ros.agent.scope import read_scope
from miles_ros.agent.world import World
from tests.agent.conftest import keyword_scorer
from tests.agent.test_negation import _line, planner_for, wanting

COLOURS = ["red", "green", "blue"]
PADS = ["left", "right"]
NOUNS = ["cube", "box", "block"]
PAD_NOUNS = ["pad", "tile", "mat"]


def _pair(draw_colour: str, others: list[str]) -> str:
    return next(c for c in others if c != draw_colour)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    colour=st.sampled_from(COLOURS),
    pad=st.sampled_from(PADS),
    noun=st.sampled_from(NOUNS),
    pad_noun=st.sampled_from(PAD_NOUNS),
    lead=st.sampled_from(["", "Whatever happens, ", "No matter what, ", "Please "]),
    verb=st.sampled_from(["put", "go putting", "place", "ever set", "go stacking"]),
    neg=st.sampled_from(["don't", "do not", "never"]),
)
def test_a_forbidden_placement_alone_plans_nothing(
    colour, pad, noun, pad_noun, lead, verb, neg, registry, world
):
    goal = f"{lead}{neg} {verb} the {colour} {noun} on the {pad} {pad_noun}."
    if lead:
        goal = goal[0].upper() + goal[1:]
    _, reading, asks = read_in_scope(goal, registry, world)
    assert asks is None and reading.refusal is None
    assert reading.nothing, goal


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    colour=st.sampled_from(COLOURS),
    pad=st.sampled_from(PADS),
    pad_noun=st.sampled_from(PAD_NOUNS),
    then=st.sampled_from(["I'd like it lifted onto", "put it on", "please move it to"]),
)
def test_a_placement_refused_then_another_keeps_the_cube_and_forbids_the_first_pad(
    colour, pad, pad_noun, then, registry, world
):
    other = _pair(pad, PADS)
    goal = f"I don't want the {colour} box on the {pad} {pad_noun}; {then} the {other} one."
    scope = read_scope(goal, world)
    assert scope.prohibitions == (
        Prohibition(f"{colour}_cube", PLACE, scope.prohibitions[0].phrase, target=f"{pad}_pad"),
    )
    assert f"the {colour} cube" in scope.text and " it " not in f" {scope.text} "
    forbidden = f"pick_place {colour}_cube {pad}_pad"
    wanted = [f"pick_place {colour}_cube {other}_pad"]
    plan = planner_for(registry, world, keyword_scorer([_line(wanted[0])])).plan(goal)
    assert [s.key() for s in plan.steps] == wanted, plan.to_json()
    # the safety net: a model that wants the forbidden placement first gets no plan with it
    plan = planner_for(registry, world, wanting(_line(forbidden), [_line(wanted[0])])).plan(goal)
    assert forbidden not in [s.key() for s in plan.steps]
    if plan.refused:
        assert "forbids" in plan.reason and f"{pad}_pad" in plan.reason


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    colour=st.sampled_from(COLOURS),
    target=st.sampled_from(["left_pad", "right_pad", "red_cube", "green_cube", "blue_cube"]),
    skill=st.sampled_from(["pick_place", "push"]),
    other_target=st.sampled_from(["left_pad", "right_pad", "red_cube", "green_cube"]),
)
def test_the_safety_net_refuses_a_plan_with_a_forbidden_placement(
    colour, target, skill, other_target, registry
):
    """Whatever the plan, a step putting or pushing the cube onto the forbidden target is a
    violation naming both; one onto another target, or of another cube, is not."""
    cube = f"{colour}_cube"
    rule = Prohibition(cube, PLACE, "don't put it there", target=target)
    reading = GoalReading(prohibitions=(rule,))
    step = Step(skill, {"object": cube, "target": target})
    why = reading.plan_violation([Step("home", {}), step], registry)
    assert why and cube in why and target in why and "forbids" in why
    assert reading.violation(step, registry)
    if other_target != target:
        assert (
            reading.prohibited(Step(skill, {"object": cube, "target": other_target}), registry)
            is None
        )
    other_cube = next(c for c in COLOURS if c != colour) + "_cube"
    assert (
        reading.prohibited(Step(skill, {"object": other_cube, "target": target}), registry) is None
    )


@pytest.mark.parametrize(
    "goal,forbidden,what",
    [
        ("don't go moving the blue block; put the red cube on the left tile", "blue_cube", MOVE),
        ("never go touching the green box, just hover over the red one", "green_cube", TOUCH),
    ],
)
def test_dont_go_v_ing_is_dont_v(goal, forbidden, what, world):
    scope = read_scope(goal, world)
    assert [(p.cube, p.what) for p in scope.prohibitions] == [(forbidden, what)]


def _stacked(world: World, top: str, bottom: str) -> World:
    objects = dict(world.objects)
    x, y, z = objects[bottom]
    objects[top] = (x, y, z + 0.04)
    return World(objects, dict(world.places))


@pytest.mark.parametrize("thing", ["stack", "tower", "pile"])
@pytest.mark.parametrize("top,bottom", [("red_cube", "blue_cube"), ("green_cube", "red_cube")])
def test_the_stack_left_alone_forbids_its_cubes_and_keeps_the_other_clause(
    thing, top, bottom, registry, world
):
    scene = _stacked(world, top, bottom)
    free = next(c for c in scene.objects if c not in (top, bottom))
    goal = f"Leave the {thing} alone and hover over the {free.split('_')[0]} box."
    scope = read_scope(goal, scene)
    assert {(p.cube, p.what) for p in scope.prohibitions} == {(top, TOUCH), (bottom, TOUCH)}
    assert scope.text.lower().startswith("hover over")
    plan = planner_for(
        registry, scene, wanting(f"pick_place {top} left_pad", [f"reach {free}"])
    ).plan(goal)
    assert [s.key() for s in plan.steps] == [f"reach {free}"], plan.to_json()


def test_the_stack_without_a_tower_in_the_scene_is_not_read(world):
    """Look-alike: no cube stands on another, so "the stack" names none."""
    scope = read_scope("Leave the stack alone and hover over the green cube.", world)
    assert scope.prohibitions == ()


@pytest.mark.parametrize("colour", COLOURS)
@pytest.mark.parametrize("pronoun", ["that one", "it"])
def test_everything_kept_except_one_that_goes_elsewhere(colour, pronoun, world):
    goal = (
        f"Keep everything where it is except the {colour} block; {pronoun} goes on the left tile."
    )
    scope = read_scope(goal, world)
    assert {p.cube for p in scope.prohibitions} == {f"{c}_cube" for c in COLOURS if c != colour}
    assert scope.text.lower().startswith(f"the {colour} cube goes on the left")


@given(
    first=st.sampled_from(COLOURS),
    second=st.sampled_from(COLOURS),
    tail=st.sampled_from([" either", " too", " as well", ""]),
)
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_list_of_dont_move_clauses_plans_nothing(first, second, tail, registry, world):
    goal = f"Don't move the {first} box, and don't move the {second} block{tail}."
    _, reading, asks = read_in_scope(goal, registry, world)
    assert asks is None and reading.refusal is None and reading.nothing


@pytest.mark.parametrize(
    "goal",
    [
        "Never mind, forget I asked.",
        "Forget I said anything.",
        "That's all good as it is - no changes.",
        "It's all fine as it is; no changes needed.",
        "Never mind that.",
    ],
)
def test_taken_back_or_no_change_is_no_motion(goal):
    assert asks_no_motion(goal)


@pytest.mark.parametrize(
    "goal",
    [
        "Never mind the blue cube; push the red cube to the left pad.",
        "No changes to the plan: put the red cube on the left pad.",
        "Forget I asked about the green one, put the red cube on the right pad.",
        "That's all good, now hover over the blue cube.",
    ],
)
def test_look_alikes_that_ask_for_motion_keep_it(goal):
    assert not asks_no_motion(goal)


@pytest.mark.parametrize(
    "goal,steps",
    [
        ("Put the red cube on the left pad.", ["pick_place red_cube left_pad"]),
        ("Don't move the red cube to the left pad.", []),
    ],
)
def test_look_alike_placements_keep_their_old_reading(goal, steps, world):
    """A plain placement forbids nothing; "don't move X to P" still forbids moving X at all
    (the stronger reading read before the placement rule)."""
    scope = read_scope(goal, world)
    if not steps:
        assert [(p.cube, p.what) for p in scope.prohibitions] == [("red_cube", MOVE)]
    else:
        assert scope.prohibitions == ()


@pytest.mark.parametrize(
    "goal,rest",
    [
        ("Don't knock the tower over, just hover above the green box.", "hover above"),
        ("Don't disturb the pile - just hover over the green block.", "hover over"),
        ("Never go knocking over the stack; hover over the green cube.", "hover over"),
    ],
)
def test_the_stack_not_to_be_disturbed_leaves_no_words_behind(goal, rest, world):
    scene = _stacked(world, "red_cube", "blue_cube")
    scope = read_scope(goal, scene)
    assert {p.cube for p in scope.prohibitions} == {"red_cube", "blue_cube"}
    assert scope.text.lower().startswith(rest), scope.text
