"""The net under the reading (:mod:`miles_ros.agent.net`): a way of moving ruled out in a
frame the reading did not parse masks the skills the cards word with it, and a verb no skill
does said in a frame the clause parse does not open with is refused. Fresh wordings (boxes,
bricks), colours and scenes drawn by hypothesis, and look-alikes that must not trip it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.grounding import Step
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.net import aside, cast, unread_manner, unread_verb
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.prohibitions import SKILL, Prohibition
from tests.agent.conftest import keyword_scorer
from tests.agent.reading_harness import SHIPPED, _read, colours, moved, table

PADS = st.sampled_from(["left pad", "right pad", "grey pad", "yellow pad"])


def _net(goal: str, world=None):
    text, reading, _ = _read(goal) if world is None else _read(goal, world)
    return cast(goal, text, reading, SHIPPED)


@given(colours, PADS, st.sampled_from(["shoving", "sliding", "nudging", "dragging"]))
@settings(max_examples=10, deadline=None)
def test_a_way_of_pushing_ruled_out_in_a_new_frame_forbids_the_push_skill(order, pad, way):
    a = order[0]
    for said in (
        f"Hold off on any {way}. Get the {a} box over to the {pad}.",
        f"Quit {way} things, and get the {a} brick across to the {pad}.",
        f"{way.capitalize()} is off the table today; get the {a} box to the {pad}.",
    ):
        text, reading = _net(said)
        push = Step("push", {"object": f"{a}_cube"})
        assert reading.violation(push, SHIPPED), (said, reading)  # the reading's, or the net's
        assert reading.violation(Step("pick_place", {"object": f"{a}_cube"}), SHIPPED) is None
        forbidden = [p for p in reading.prohibitions if p.what == "skill"]
        if forbidden:  # the net's: it names the words, and the model plans the positive part
            assert [p.cube for p in forbidden] == ["push"], (said, reading.prohibitions)
            assert way in reading.plan_violation([push], SHIPPED)
            assert way not in text.lower(), text


@given(colours, PADS, st.sampled_from(["lifting", "picking things up", "grabbing"]))
@settings(max_examples=10, deadline=None)
def test_a_way_of_lifting_ruled_out_first_forbids_grasping_and_drops_the_default(order, pad, way):
    a = order[0]
    said = f"No more {way}, please. The {a} box needs to end up on the {pad}."
    _, reading = _net(said)
    assert [p.cube for p in reading.prohibitions if p.what == "skill"] == ["pick_place"], said
    assert not any(p == "grasps" for p, _ in reading.require), reading.require
    assert reading.violation(Step("push", {"object": f"{a}_cube"}), SHIPPED) is None


@given(colours, st.lists(table, min_size=3, max_size=3))
@settings(max_examples=8, deadline=None)
def test_look_alikes_keep_their_reading(order, spots):
    a, b, _ = order
    world = moved(spots)
    for said in (
        f"Don't push the {a} box, push the {b} box onto the left pad.",  # a cube ruled out
        f"Not the {a} one, lift the {b} brick onto the right pad.",  # the negation: a cube
        f"Push the {a} box onto the left pad without knocking the {b} box.",  # no skill's verb
        f"Push the {a} brick onto the left pad, don't lift it.",  # read by the reading
        f"Give the {a} box a push onto the left pad.",
        f"Give the {a} brick a tap.",  # a skill's verb, not "tape"
        f"Don't push the {a} box onto the left pad; push it onto the right pad instead.",
    ):
        _, reading, _ = _read(said, world)
        assert unread_manner(said, reading, SHIPPED) == (), said
        assert unread_verb(said, SHIPPED) is None, said


@given(colours, st.sampled_from(["weighed", "measured", "scanned", "painted", "photographed"]))
@settings(max_examples=10, deadline=None)
def test_a_verb_no_skill_does_said_as_a_participle_or_a_noun_is_refused(order, done):
    a = order[0]
    verb = {"weighed": "weigh", "measured": "measure", "scanned": "scan", "painted": "paint"}
    verb = verb.get(done, "photograph")
    for said in (f"I'd like the {a} brick {done}, please.", f"I want the {a} box {done} first."):
        _, reading = _net(said)
        assert reading.refusal and f"no skill can {verb}" in reading.refusal, said
        assert "the closest is" in reading.refusal
    for said in (f"Give the {a} box a quick clean.", f"The {a} brick needs polishing."):
        _, reading = _net(said)
        assert reading.refusal and "no skill can" in reading.refusal, said
    # look-alike: a participle of a verb a skill does is no refusal
    assert unread_verb(f"I'd like the {a} box placed on the left pad.", SHIPPED) is None


@given(colours, PADS)
@settings(max_examples=6, deadline=None)
def test_aside_takes_out_a_clause_that_only_forbids_and_keeps_one_naming_a_cube(order, pad):
    a = order[0]
    rule = (Prohibition("push", SKILL, "hold off on any shoving"),)
    said = f"Hold off on any shoving. Put the {a} box on the {pad}."
    assert aside(said, rule) == f"Put the {a} box on the {pad}."
    said = f"Hold off on any shoving the {a} box, put it on the {pad}."
    assert aside(said, rule) == said


def test_the_planner_masks_what_the_net_forbids(world):
    goal = "Hold off on any shoving. Get the red box over to the left pad."
    planner = Planner(
        SHIPPED, world, FakeLanguageModel(keyword_scorer(["push red left"])), PlannerConfig()
    )
    plan = planner.plan(goal)
    assert not any(s.skill == "push" for s in plan.steps), plan.steps
