"""The structures held-out 38 showed, read generally in the modules that own them: ways
ruled out in a sentence of their own before a placing said with no verb
(:mod:`~miles_ros.agent.clause_corrections`), a colour said alone as a moving verb's object
after "get" (:mod:`~miles_ros.agent.retold`), "How heavy is X?" with X a colour alone or
"what's X made of?", then a verb no skill does (:mod:`~miles_ros.agent.clause_references`),
"on top" said alone after a cube was put on another (:mod:`~miles_ros.agent.wording`), and a
request taken back as "never mind me", "scrap that last idea", "forget what I said just
then" (:mod:`~miles_ros.agent.no_motion`).
Each in wordings no eval set and no ``bench/planner_grammar.py`` transformation says (boxes,
bricks, tiles), with colours and cubes moved by hypothesis where the scene decides, and
look-alikes that must keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.agent.reading_harness import _read, colours, moved, table


@given(colours, st.sampled_from(["today", "at all", "this time", "please"]))
@settings(max_examples=8, deadline=None)
def test_a_way_ruled_out_first_then_a_verbless_placing_keeps_the_other_way(order, when):
    a = order[0]
    cube = f"{a}_cube"
    for said in (
        f"No sliding {when}. {a.capitalize()} box to the grey tile.",
        f"No shoving {when}. The {a} brick goes over to the left tile.",
    ):
        text, reading, asked = _read(said)
        assert ("grasps", cube) in reading.require, (said, text)
        assert reading.refusal is None and asked is None, said
    said = f"No lifting {when}. The {a} box across to the yellow tile."
    text, reading, asked = _read(said)
    assert ("grasps", cube) in reading.forbid and reading.refusal is None, (said, text)
    # look-alike: a placing onto a cube said with no verb is no placing on a pad: left as said
    b = order[1]
    text = _read(f"No pushing {when}. The {a} box to the {b} box.")[0]
    assert not text.lower().startswith("get"), text


@given(colours)
@settings(max_examples=6, deadline=None)
def test_get_a_colour_said_alone_over_to_a_pad_is_that_cube(order):
    a = order[0]
    cube = f"{a}_cube"
    text, reading, _ = _read(f"Get {a} across to the grey tile without ever lifting it.")
    assert f"the {a} cube" in text.lower() and ("grasps", cube) in reading.forbid, text
    # look-alike: a colour that is no cube's ("get yellow ...") is left as said
    text = _read("Get yellow over to the grey tile.")[0]
    assert "yellow cube" not in text.lower(), text


@given(colours, st.sampled_from(["Weigh it", "Measure it", "Scan it"]))
@settings(max_examples=8, deadline=None)
def test_how_heavy_is_a_colour_then_a_verb_no_skill_does_is_refused(order, verb):
    a = order[0]
    for said in (
        f"How heavy is {a}? {verb} with your claw.",
        f"What's the {a} box made of? {verb}.",
    ):
        reading = _read(said)[1]
        assert reading.refusal and "no skill can" in reading.refusal, said
    # look-alikes: a verb a skill does keeps its reading; no "how" leaves the colour alone
    text, reading, _ = _read(f"How big is {a}? Put it on the grey tile.")
    assert reading.refusal is None and f"the {a} cube" in text.lower(), text
    # "see red?" names the red cube (round 47, held-out 40's "See red? Push it over to ..."),
    # no verb refused
    text, reading, _ = _read(f"See {a}? Push it onto the grey tile.")
    assert reading.refusal is None and text.lower().startswith(f"push the {a} cube"), text


@given(colours, st.lists(table, min_size=3, max_size=3))
@settings(max_examples=8, deadline=None)
def test_on_top_said_alone_after_a_placing_is_on_the_cube_last_put(order, spots):
    low, mid, top = order
    world = moved(spots)
    for said in (
        f"Set the {mid} box onto the {low} box, then pile the {top} box on top.",
        f"Lay the {mid} brick on the {low} brick and then stack the {top} one on top.",
    ):
        text = _read(said, world)[0].lower()
        assert f"on top of the {mid} " in text, (said, text)
    # look-alikes: "on top" before any placing, or "on top of X", are left as said
    text = _read(f"Put the {top} box on top, then put the {mid} box on the {low} box.", world)[0]
    assert f"on top of the {mid}" not in text.lower(), text
    said = f"Put the {mid} box on the {low} box, then put the {top} box on top of the {low} box."
    assert f"on top of the {mid}" not in _read(said, world)[0].lower()


def test_a_request_taken_back_as_mind_me_or_an_idea_plans_nothing():
    for said in (
        "Oh, don't mind me.",
        "Never mind me!",
        "Scrap that last thought.",
        "Forget what I just asked a minute ago.",
        "Forget everything I said earlier, ignore it.",
    ):
        assert _read(said)[1].nothing, said
    # look-alikes: a request beside it keeps its reading
    for said in (
        "Don't mind me - push the red box onto the grey tile.",
        "Forget what I said, put the blue brick on the left tile.",
    ):
        reading = _read(said)[1]
        assert not reading.nothing and reading.refusal is None, said
