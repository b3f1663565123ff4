"""Referring expressions resolved from the scene's positions and colours: the same words
pick another cube when the cubes move; a referent that does not exist, or is not unique,
is refused with the reason; the planner plans with the names they resolve to."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.reference_scene import TIE_M, place_colours
from miles_ros.agent.references import follow_up, resolve_references
from miles_ros.interfaces import NEEDS_CLARIFICATION
from miles_ros.manager.core import Manager
from tests.agent.conftest import keyword_scorer
from tests.agent.reading_harness import CUBES, moved


def spread(values, gap):
    """True when every two of ``values`` differ by more than ``gap``."""
    values = sorted(values)
    return all(b - a > gap for a, b in zip(values, values[1:], strict=False))


table = st.tuples(st.floats(0.3, 0.7), st.floats(-0.4, 0.4))


def resolved(goal, world):
    answer = resolve_references(goal, world)
    assert answer.refusal is None, answer.refusal
    return dict(answer.resolved)


@settings(max_examples=60, deadline=None)
@given(st.lists(table, min_size=3, max_size=3))
def test_positional_words_pick_the_cube_the_positions_say(positions):
    w = moved(positions)
    ys = [y for _, y in positions]
    dists = [math.hypot(x, y) for x, y in positions]
    by_y = [CUBES[i] for i in sorted(range(3), key=lambda i: -ys[i])]  # left to right
    if spread(ys, 2 * TIE_M):
        names = resolved(
            "put the leftmost cube on the right pad, then the rightmost block on the left "
            "pad and lift the middle cube, then the second cube from the right",
            w,
        )
        assert list(names.values()) == [by_y[0], by_y[2], by_y[1], by_y[1]]
    if spread(dists, 2 * TIE_M):
        near = resolved("hover over the cube nearest to the robot", w)
        far = resolved("hover over the cube farthest from the robot", w)
        assert list(near.values()) == [CUBES[dists.index(min(dists))]]
        assert list(far.values()) == [CUBES[dists.index(max(dists))]]
        pad = w.places["right_pad"]
        to_pad = [math.hypot(x - pad[0], y - pad[1]) for x, y in positions]
        if spread(to_pad, 2 * TIE_M):
            closest = resolved("push the cube closest to the right pad to the left pad", w)
            assert list(closest.values()) == [CUBES[to_pad.index(min(to_pad))]]


def test_the_rewritten_goal_names_the_cube_and_the_pad(world):
    answer = resolve_references("Put the leftmost cube on the yellow pad", world)
    assert answer.text == "Put the blue cube on the left pad"  # blue is at y = +0.15
    swapped = moved([(0.45, 0.20), (0.50, 0.05), (0.40, -0.15)], world)
    assert resolve_references("Put the leftmost cube on the yellow pad", swapped).text == (
        "Put the red cube on the left pad"
    )


def test_pad_colours_come_from_the_scene_file(world):
    assert place_colours(world) == {"left_pad": "yellow", "right_pad": "grey"}
    repainted = world.copy()
    repainted.colors = {"left_pad": (0.6, 0.6, 0.6, 1.0), "right_pad": (0.95, 0.85, 0.2, 1.0)}
    assert resolved("slide it to the yellow pad", repainted) == {"the yellow pad": "right_pad"}
    assert resolved("slide it to the gray mat", world) == {"the gray mat": "right_pad"}
    # a colour no place has is left for the goal's reading to refuse
    assert resolve_references("put it on the purple pad", world).text == (
        "put it on the purple pad"
    )


def test_a_referent_that_does_not_exist_is_refused(world):
    answer = resolve_references("grab the fourth cube", world)
    assert "there is no fourth cube" in answer.refusal and answer.clarify is None


def asked(goal, world):
    answer = resolve_references(goal, world)
    assert answer.refusal is None and answer.clarify is not None, answer
    return answer.clarify


def test_a_goal_that_does_not_say_which_thing_gets_a_question_with_the_candidates(world):
    level = moved([(0.45, 0.10), (0.50, 0.105), (0.40, -0.2)], world)
    tie = asked("lift the leftmost cube", level)
    assert tie.options == ("green_cube", "red_cube") and "red cube" in tie.question
    four = world.copy()
    four.objects = {**world.objects, "yellow_cube": (0.6, 0.3, 0.02)}
    assert len(asked("lift the middle cube", four).options) == 4
    # "the second cube" counts from the left, the right or the robot: asked where they
    # differ (the second from the robot is red here, from either side green) ...
    second = asked("lift the second cube", world)
    assert second.options == ("green_cube", "red_cube") and "from the robot" in second.question
    assert len(asked("lift the second cube", four).options) >= 2
    # ... and named where all three agree: the middle cube in y is also second in reach
    row = moved([(0.45, 0.0), (0.40, 0.15), (0.55, -0.15)], world)
    assert resolved("lift the second cube", row) == {"the second cube": "red_cube"}
    bare = asked("put the cube on the left pad", world)
    assert bare.phrase == "the cube" and set(bare.options) == set(CUBES)
    assert asked("put the red cube on the pad", world).options == ("left_pad", "right_pad")
    assert asked("push it there", world).phrase == "it"
    # the goal says which: no question
    for goal in (
        "pick up the red cube and put it on the left pad",
        "relocate the red block to the pad on the right",
        "grab the silver block and drop it on the left pad",  # the reading refuses silver
    ):
        answer = resolve_references(goal, world)
        assert answer.clarify is None and answer.refusal is None, goal


def test_the_answer_completes_the_asked_goal(world):
    question = asked("put the cube on the left pad", world)
    assert follow_up(question, "the red one", world) == "put the red cube on the left pad"
    assert follow_up(question, "blue", world) == "put the blue cube on the left pad"
    assert follow_up(question, "the big one", world) is None
    pad = asked("put the red cube on the pad", world)
    assert follow_up(pad, "the right one", world) == "put the red cube on the right pad"
    assert follow_up(asked("push it there", world), "green", world) == "push the green cube there"


def test_the_planner_plans_with_the_resolved_names(registry, world):
    lm = FakeLanguageModel(keyword_scorer(["push blue left"]))
    plan = Planner(registry, world, lm, PlannerConfig()).plan(
        "push the leftmost cube to the yellow pad"  # to the grey one: past red, refused
    )
    assert [s.key() for s in plan.steps] == ["push blue_cube left_pad"] and not plan.refused
    assert "the blue cube to the left pad" in lm.prompts[0]
    refused = Planner(registry, world, FakeLanguageModel(), PlannerConfig()).plan(
        "push the fourth cube to the left pad"
    )
    assert refused.refused and not refused.steps and "no fourth cube" in refused.reason


def test_the_planner_asks_back_instead_of_guessing(registry, world):
    lm = FakeLanguageModel()
    plan = Planner(registry, world, lm, PlannerConfig()).plan("put the cube on the left pad")
    assert plan.steps == [] and not plan.refused and not plan.valid and lm.prompts == []
    out = plan.to_json()
    assert out["clarify"].startswith("Which cube") and set(out["options"]) == set(CUBES)


def test_the_manager_takes_the_next_goal_as_the_answer(registry, world):
    lm = FakeLanguageModel(keyword_scorer(["pick red left"]))
    manager = Manager(Planner(registry, world, lm, PlannerConfig()))
    plan, action = manager.start("put the cube on the left pad")
    assert action.kind == NEEDS_CLARIFICATION and action.request is None
    assert action.reason == plan.clarification.question
    plan, action = manager.start("the red one")
    assert plan.goal == "put the red cube on the left pad"
    assert action.kind == "dispatch" and action.request["skill"] == "pick_place"
    assert action.request["params"] == {"object": "red_cube", "target": "left_pad"}
    # an answer that picks nothing is planned as a goal of its own
    manager = Manager(Planner(registry, world, FakeLanguageModel(), PlannerConfig()))
    manager.start("put the cube on the left pad")
    plan, _ = manager.start("fly to the moon")
    assert plan.goal == "fly to the moon" and plan.refused


def test_miles_plan_exits_4_when_it_asks_back(monkeypatch, registry, world, capsys):
    import json

    from miles_ros.commands import plan as plan_command

    planner = Planner(registry, world, FakeLanguageModel(), PlannerConfig())
    monkeypatch.setattr(Planner, "from_options", classmethod(lambda cls, **kw: planner))
    assert plan_command.main(["put the cube on the left pad", "--json"]) == 4
    out = json.loads(capsys.readouterr().out)
    assert out["steps"] == [] and out["clarify"].startswith("Which cube")
    assert plan_command.main(["put the red cube on the pad"]) == 4
    assert "asks: Which pad do you mean: the left pad or the right pad?" in (
        capsys.readouterr().out
    )


@settings(max_examples=80, deadline=None)
@given(st.lists(table, min_size=3, max_size=3))
def test_relations_between_cubes_pick_the_neighbour_the_positions_say(positions):
    w = moved(positions)
    ys = {name: y for name, (_, y) in zip(CUBES, positions, strict=True)}
    if not spread(ys.values(), 2 * TIE_M):
        return
    for side, sign in (("left", 1.0), ("right", -1.0)):
        beyond = {n: sign * (y - ys["blue_cube"]) for n, y in ys.items() if n != "blue_cube"}
        beyond = {n: d for n, d in beyond.items() if d > 0}
        answer = resolve_references(f"hover over the cube {side} of the blue one", w)
        if not beyond:
            assert answer.refusal == f"no cube is to the {side} of the blue cube"
        elif len(beyond) == 1:  # the one cube on that side
            assert dict(answer.resolved) == {f"the cube {side} of the blue one": [*beyond][0]}
        elif answer.clarify is None:  # two there, in a row: the one beside it
            nearest = min(beyond, key=beyond.get)
            assert dict(answer.resolved) == {f"the cube {side} of the blue one": nearest}
            (far,) = set(beyond) - {nearest}
            (bx, by), (nx, ny), (fx, fy) = (w.objects[n][:2] for n in ("blue_cube", nearest, far))
            off = abs((nx - bx) * (fy - by) - (ny - by) * (fx - bx)) / math.dist(
                (bx, by), (fx, fy)
            )
            assert off < 0.01
        else:  # two there, not in a row: asked which (asking back is for which thing)
            assert set(answer.clarify.options) == set(beyond)
        just = resolve_references(f"hover over the cube just {side} of the blue one", w)
        if beyond:  # "just left of": the nearest on that side
            assert list(dict(just.resolved).values()) == [min(beyond, key=beyond.get)]


def test_the_cube_between_two_others_is_the_one_on_the_segment_between_them(world):
    # default scene: green (0.50, 0.05) lies between red (0.45, -0.10) and blue (0.40, 0.15)
    assert resolved("put the cube between the red and the blue cube on the left pad", world) == {
        "the cube between the red and the blue cube": "green_cube"
    }
    w = moved([(0.50, 0.14), (0.42, -0.12), (0.47, 0.01)], world)  # blue between the others
    assert list(resolved("hover over the cube between the red and the green one", w).values()) == [
        "blue_cube"
    ]
    none = resolve_references("put the cube between the blue and the green cube on the pad", world)
    assert none.refusal == "no cube is between the blue cube and the green cube"


def test_a_pad_named_without_to_or_from_and_that_cube_without_a_referent(world):
    # "nearest the yellow pad": the left pad is yellow; the blue cube is nearest it
    names = resolved("move the cube nearest the yellow pad onto the grey pad", world)
    assert names == {
        "the yellow pad": "left_pad",
        "the grey pad": "right_pad",
        "the cube nearest the left pad": "blue_cube",
    }
    asked = resolve_references("put that cube on the left pad", world)
    assert asked.clarify is not None and set(asked.clarify.options) == set(CUBES)
    # after a named cube "that cube" points back at it: not asked
    kept = resolve_references(
        "hover over the red cube, then push that cube to the right pad", world
    )
    assert kept.clarify is None and kept.refusal is None
    level = moved([(0.45, 0.12), (0.40, -0.12), (0.52, -0.12)], world)  # green, blue level
    tie = resolve_references("move the cube right of the red one to the left pad", level)
    assert tie.clarify is not None and set(tie.clarify.options) == {"green_cube", "blue_cube"}


def test_in_front_of_and_behind_are_seen_from_the_robot(world):
    # default scene, x: blue 0.40, red 0.45, green 0.50 (the robot at x = 0)
    assert list(resolved("hover over the cube behind the blue one", world).values()) == [
        "red_cube"
    ]
    assert list(resolved("hover over the cube in front of the green cube", world).values()) == [
        "red_cube"
    ]
    none = resolve_references("hover over the cube in front of the blue cube", world)
    assert none.refusal == "no cube is in front of the blue cube (seen from the robot)"


@settings(max_examples=60, deadline=None)
@given(st.lists(table, min_size=3, max_size=3))
def test_distances_from_a_cube_and_ordinal_distances_pick_what_the_positions_say(positions):
    w = moved(positions)
    green = positions[1]
    others = {n: math.dist(p, green) for n, p in zip(CUBES, positions, strict=True)}
    del others["green_cube"]
    if spread(others.values(), 2 * TIE_M):
        for goal, pick in (
            ("hover over the cube nearest the green cube", min),
            ("hover over the cube furthest from the green one", max),
        ):
            assert list(resolved(goal, w).values()) == [pick(others, key=others.get)], goal
        # "next to": the nearest, unless a cube stands on each side of the green one (in y,
        # beyond TIE_M) and the farther is no more than twice as far: both are next to it
        sides = [green[1] - p[1] for n, p in zip(CUBES, positions, strict=True) if n in others]
        both = min(sides) < -TIE_M and max(sides) > TIE_M
        answer = resolve_references("put the cube next to the green cube on the left pad", w)
        if both and max(others.values()) <= 2 * min(others.values()):
            assert answer.clarify is not None and answer.refusal is None
        else:
            assert list(dict(answer.resolved).values()) == [min(others, key=others.get)]
    dists = [math.hypot(x, y) for x, y in positions]
    if spread(dists, 2 * TIE_M):
        second = CUBES[sorted(range(3), key=dists.__getitem__)[1]]
        for goal in (
            "hover over the second closest cube to the robot",
            "hover over the cube second nearest to the robot",
        ):
            assert list(resolved(goal, w).values()) == [second], goal


def test_a_thing_beside_and_ranks_that_do_not_exist(world):
    # default scene: the cube beside the left pad is the blue one (0.18 m; green 0.21 m)
    assert resolved("move the cube beside the left pad to the right pad", world) == {
        "the cube beside the left pad": "blue_cube"
    }
    assert resolved("push the cube near the grey pad to the yellow pad", world) == {
        "the grey pad": "right_pad",
        "the yellow pad": "left_pad",
        "the cube near the right pad": "red_cube",
    }
    assert (
        resolve_references(
            "put the cube furthest from the blue pad on the right pad", world
        ).refusal
        == "the scene has no blue pad"
    )
    fourth = resolve_references("hover over the fourth closest cube to the robot", world)
    assert fourth.refusal == (
        "the scene has 3 cubes to rank: there is no fourth cube closest to the robot"
    )
    level = moved([(0.45, 0.12), (0.40, -0.12), (0.52, -0.12)], world)  # green, blue 0.245/0.25
    tie = resolve_references("hover over the cube farthest from the red cube", level)
    assert tie.clarify is not None and set(tie.clarify.options) == {"green_cube", "blue_cube"}


def test_an_it_before_any_cube_is_asked_about_unless_a_leading_phrase_names_it(world):
    assert resolve_references("move it next to the blue cube", world).clarify is not None
    assert resolve_references("put it on the left pad", world).clarify is not None
    lead = resolve_references("without lifting it, turn the blue cube by 20 degrees", world)
    assert lead.clarify is None
    after = resolve_references("pick up the red cube and put it on the left pad", world)
    assert after.clarify is None
