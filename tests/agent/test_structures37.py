"""The structures held-out 37 showed, read generally in the modules that own them: an action
no skill does said as the means, "by V-ing it" (:mod:`~miles_ros.agent.repertoire`), nothing
left to do said as praise or a change of mind (:mod:`~miles_ros.agent.no_motion`), "right
above / over X", a way of moving taken back for the other and a pad said again by its own
side (:mod:`~miles_ros.agent.wording`).
Each in wordings no eval set and no ``bench/planner_grammar.py`` transformation says (boxes,
bricks, tiles), with colours and cubes moved by hypothesis where the scene decides, and
look-alikes that must keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.repertoire import by_doing
from tests.agent.reading_harness import _read, colours, moved, table


@given(colours, st.sampled_from(["weighing", "measuring", "scanning", "flipping", "painting"]))
@settings(max_examples=8, deadline=None)
def test_an_action_said_as_the_means_is_refused_naming_the_closest_skill(order, doing):
    a = order[0]
    for said in (
        f"Learn how heavy the {a} box is by {doing} it.",
        f"Tell me about the {a} brick by {doing} it.",
    ):
        reading = _read(said)[1]
        assert reading.refusal and "no skill can" in reading.refusal, said
        assert "the closest is" in reading.refusal, said
    # look-alikes: a means some skill does, or no gerund after "by"
    for said in (
        f"Get the {a} box to the grey tile by pushing it.",
        f"Get the {a} brick to the left tile by lifting it.",
        f"Turn the {a} box by 30 degrees.",
    ):
        assert _read(said)[1].refusal is None, said
    assert by_doing(f"check the {a} box by weighing it") == "weigh"
    assert by_doing(f"move the {a} box by 3 cm") is None


@given(colours)
@settings(max_examples=4, deadline=None)
def test_praise_or_a_change_of_mind_alone_plans_nothing(order):
    a = order[0]
    for said in (
        "What a lovely neat table! That's it.",
        "The workspace looks really tidy. That's all from me.",
        "Drop that request - we've changed our minds.",
        "Change of plans, forget that instruction.",
    ):
        assert _read(said)[1].nothing, said
    # look-alikes: a request beside the praise or the change of mind keeps its reading
    for said in (
        f"Lovely table. Now put the {a} box on the grey tile.",
        f"I've changed my mind: put the {a} brick on the left tile.",
        f"Put the {a} box on the yellow tile. That's all.",
    ):
        reading = _read(said)[1]
        assert not reading.nothing and reading.refusal is None, said


@given(colours, st.lists(table, min_size=3, max_size=3))
@settings(max_examples=8, deadline=None)
def test_right_above_a_cube_is_directly_above_it(order, spots):
    a = order[0]
    world = moved(spots)
    for said in (
        f"Put the claw right above the {a} box.",
        f"Hover your hand right over the {a} brick.",
    ):
        text, reading, asked = _read(said, world)
        assert "directly" in text.lower() and "right" not in text.lower(), said
        assert reading.refusal is None, said
    # look-alike: the right pad said by its side keeps it
    text = _read(f"Put the {a} box on the right pad.", world)[0].lower()
    assert "right pad" in text


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_way_taken_back_for_the_other_is_one_manner(order):
    a = order[0]
    cube = f"{a}_cube"
    for said in (
        f"Set the {a} box on the grey tile, and never mind sliding, lift it.",
        f"Put the {a} brick on the left tile; forget about pushing it, pick it up.",
    ):
        text, reading, _ = _read(said)
        assert ("grasps", cube) in reading.require and reading.refusal is None, said
        assert "without" in text.lower(), said
    said = f"Move the {a} box to the yellow tile, never mind lifting, push it."
    reading = _read(said)[1]
    assert ("grasps", cube) in reading.forbid and reading.refusal is None
    # look-alike: two words of one way are no manner swapped, left as said
    text = _read(f"Put the {a} box on the grey tile, never mind sliding, push it.")[0]
    assert "without" not in text.lower()


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_pad_said_again_by_its_own_side_is_that_pad(order):
    a = order[0]
    for said, side in (
        (f"Put the {a} box on the grey tile, the one on the right.", "right"),
        (f"Slide the {a} brick onto the yellow mat - the one on your left side.", "left"),
    ):
        text = _read(said)[0].lower()
        assert f"{side} pad" in text and text.count("pad") == 1, (said, text)
    # look-alike: another side after the pad is a correction, left as said
    text = _read(f"Put the {a} box on the grey tile, the one on the left.")[0].lower()
    assert text.count("pad") == 2, text
