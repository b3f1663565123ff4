"""Held-out 40's and 39's other structures read in round 47, in the modules that own them: a
description of where a cube sits checked against the scene
(:func:`~miles_ros.agent.reference_stacked.seat_checked`: true, dropped; false, refused with
what the cube stands on; "the cube sitting on D", the cube on D); "unstack X from Y"
(:func:`~miles_ros.agent.reframed.unstacked`); "X on Y, please: lift it and set it there" and
"can X go on top of Y? lift it up there" (:mod:`~miles_ros.agent.wording`); a cube pointed out
("X's near you; ...", "X cube, right? ...") and "no lifting this one; just V X"
(:mod:`~miles_ros.agent.wording`); the gripper said first with no verb and "V X until it's
sitting on Y" (:mod:`~miles_ros.agent.rendered`); "do nothing with X or Y"
(:mod:`~miles_ros.agent.scope`); the net's "stop" negated and "no one" (no article). Fresh
wordings (boxes, bricks, blocks, mats), colours, pads and positions drawn by hypothesis (the
cubes moved per example), and look-alikes that keep their reading. Reading only."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from miles_ros.agent.goal_manners import _way_as_verb
from miles_ros.agent.net import unread_manner
from miles_ros.agent.reading import GoalReading
from miles_ros.agent.reference_stacked import seat_checked
from miles_ros.agent.rendered import rendered
from miles_ros.agent.wording import plain_wording
from miles_ros.agent.world import World
from tests.agent.reading_harness import (
    COLOURS,
    SCENE,
    SHIPPED,
    _read,
    colours,
    moved,
    plain,
    table,
)

PADS = st.sampled_from(["yellow pad", "grey mat", "left pad", "right mat"])
NOUNS = st.sampled_from(["block", "box", "brick"])
spots = st.lists(table, min_size=3, max_size=3)


def _stacked(order, places) -> World:
    """The cubes moved to ``places`` (red, green, blue), then ``order[0]`` stood on
    ``order[1]``."""
    world = moved(places)
    a, b = (f"{c}_cube" for c in order[:2])
    x, y, _ = world.objects[b]
    world.objects[a] = (x, y, 0.06)
    return world


def _far_apart(places) -> bool:
    return all(
        abs(p[0] - q[0]) + abs(p[1] - q[1]) > 0.08
        for i, p in enumerate(places)
        for q in places[i + 1 :]
    )


@given(colours, spots, PADS, NOUNS)
@settings(max_examples=30, deadline=None)
def test_a_true_description_of_where_a_cube_sits_is_dropped(order, places, pad, noun):
    assume(_far_apart(places))
    a, b, _ = order
    world = _stacked(order, places)
    for said in (
        f"The {a} {noun} resting on {b} - lift it onto the {pad}.",
        f"Put the {a} {noun} that is on the {b} {noun} onto the {pad}.",
    ):
        text, reading, asked = _read(said, world)
        assert reading.refusal is None and asked is None, (said, reading.refusal)
        assert f"the {a} {noun}" in text.lower() and f" {b}" not in text.lower(), text


@given(colours, spots, PADS, NOUNS)
@settings(max_examples=30, deadline=None)
def test_a_false_description_is_refused_naming_what_is_under(order, places, pad, noun):
    assume(_far_apart(places))
    a, b, c = order
    flat = moved(places)
    on_c = _stacked((a, c, b), places)
    for world, under in ((flat, "it stands on the table"), (on_c, f"it sits on the {c} cube")):
        for said in (
            f"The {a} {noun} sitting on the {b} {noun}: put it on the {pad}.",
            f"Put the {a} {noun} that's on top of the {b} one onto the {pad}.",
        ):
            reading = _read(said, world)[1]
            assert reading.refusal == f"the {a} cube does not sit on the {b} cube: {under}", (
                said,
                reading.refusal,
            )


@given(colours, spots, PADS, NOUNS)
@settings(max_examples=30, deadline=None)
def test_the_cube_sitting_on_a_colour_is_the_one_on_it(order, places, pad, noun):
    assume(_far_apart(places))
    a, b, _ = order
    said = f"The {noun} sitting on {b} - move it onto the {pad}."
    text, reading, asked = _read(said, _stacked(order, places))
    assert reading.refusal is None and asked is None, (said, reading.refusal)
    assert f"the {a} {noun}" in text.lower(), text
    reading = _read(said, moved(places))[1]
    assert reading.refusal == f"no cube sits on the {b} cube", reading.refusal


@given(colours, spots, PADS)
@settings(max_examples=10, deadline=None)
def test_look_alikes_of_a_description_keep_their_reading(order, places, pad):
    assume(_far_apart(places))
    a, b, _ = order
    world = moved(places)
    for said in (
        f"I want the {a} cube sitting on top of the {b} cube.",  # a request: no description
        f"The {a} cube sitting on the {pad}: push it to the other pad.",  # a pad, not a cube
        f"Stack the {a} cube on the {b} cube.",
    ):
        assert seat_checked(said, world) == (said, None), said
    # the step takes it "off": what it sits on is the step's own
    off = f"The {a} cube sitting on the {b} one - take it off and set it on the {pad}."
    assert seat_checked(off, _stacked(order, places)) == (off, None)


@given(colours, spots, PADS, NOUNS)
@settings(max_examples=20, deadline=None)
def test_unstack_one_colour_from_another_takes_the_top_one_off(order, places, pad, noun):
    assume(_far_apart(places))
    a, b, _ = order
    world = _stacked(order, places)
    for said in (
        f"Unstack {a} from {b} and bring it over to the {pad}.",
        f"Unstack the {a} {noun} from the {b} one, then put it on the {pad}.",
    ):
        text, reading, asked = _read(said, world)
        assert reading.refusal is None and asked is None, (said, reading.refusal)
        assert f"take the {a}" in text.lower() and "it" in text.split(), text


@given(colours, NOUNS)
@settings(max_examples=20, deadline=None)
def test_a_placing_said_first_then_it_there(order, noun):
    a, b, _ = order
    want = f"pick up the {a} cube and put it on the {b} cube"
    for said in (
        f"{a.capitalize()} on {b}, if you would: pick it up and put it down there.",
        f"{a.capitalize()} onto {b}, thanks - grab it and set it there.",
    ):
        assert plain(said).replace("onto", "on") == want, said
    asked = f"Could the {a} {noun} sit on top of the {b} one? Pick it up and place it there."
    assert plain(asked) == f"pick the {a} {noun} up and place it on top of the {b} cube"
    # a pad's colour said alone is no cube: the fragment is left as said
    assert "there" in plain_wording(
        f"{a.capitalize()} on yellow: lift it and set it there.", SCENE
    )


@given(colours, PADS, NOUNS, st.sampled_from(["near you", "by the grey pad", "next to you"]))
@settings(max_examples=20, deadline=None)
def test_a_cube_pointed_out_then_it(order, pad, noun, where):
    a = order[0]
    assert plain(f"{a.capitalize()}'s {where}; push it over to the {pad}.") == plain(
        f"push the {a} cube over to the {pad}"
    )
    assert plain(f"{a.capitalize()} {noun}, right? Hover over it.") == plain(
        f"hover over the {a} {noun}"
    )
    assert plain(f"See {a}? Push it over to the {pad}.") == plain(
        f"push the {a} cube over to the {pad}"
    )


@given(PADS)
@settings(max_examples=5, deadline=None)
def test_the_gripper_said_first_is_a_reach(pad):
    assert plain(f"Gripper to the {pad}, hover there a moment.") == plain(
        f"Move the gripper to the {pad}, hover there a moment."
    )
    kept = f"Hand the red cube over to the {pad}."  # "hand" a verb: as said
    assert rendered(kept, COLOURS) == kept


@given(colours, PADS, NOUNS)
@settings(max_examples=20, deadline=None)
def test_cubes_left_out_stay_out(order, pad, noun):
    a, b, c = order
    for said, kept in (
        (f"Do nothing with {b} or {c}; just lift {a} onto the {pad}.", {b, c}),
        (f"Forget the {b} {noun}, let it be; put the {a} {noun} on the {pad}.", {b}),
    ):
        _, reading, asked = _read(said)
        assert reading.refusal is None and asked is None, (said, reading.refusal, asked)
        assert {p.cube for p in reading.prohibitions} == {f"{k}_cube" for k in kept}, said
    assert _read("Do nothing.")[1].nothing


@given(colours, PADS, NOUNS)
@settings(max_examples=20, deadline=None)
def test_a_push_until_it_sits_on_a_cube_is_refused(order, pad, noun):
    a, b, _ = order
    reading = _read(f"Nudge the {a} {noun} along until it's resting on {b}.")[1]
    assert reading.refusal and "without lifting it" in reading.refusal, reading.refusal
    # onto a pad: left as said (read as before)
    kept = f"Push the {a} cube until it is on the {pad}."
    assert rendered(kept, COLOURS) == kept


@given(colours, PADS, NOUNS, st.sampled_from(["No lifting this one;", "Don't lift this one -"]))
@settings(max_examples=20, deadline=None)
def test_no_lifting_this_one_then_the_cube(order, pad, noun, lead):
    a = order[0]
    text, reading, asked = _read(f"{lead} just nudge the {a} {noun} over to the {pad}.")
    assert reading.refusal is None and asked is None, (text, reading.refusal)
    assert ("grasps", f"{a}_cube") in reading.forbid, reading.forbid


@given(colours, PADS)
@settings(max_examples=10, deadline=None)
def test_the_nets_cues_stop_and_one(order, pad):
    a = order[0]
    kept = f"Don't stop pushing the {a} cube until it reaches the {pad}."
    assert unread_manner(kept, GoalReading(), SHIPPED) == ()
    banned = f"Stop pushing things; lift the {a} cube onto the {pad}."
    found = unread_manner(banned, GoalReading(), SHIPPED)
    assert found and all(p.cube == "push" for p in found), found
    assert _way_as_verb("no one lift") == "no one lift"
    assert _way_as_verb("without one lift") == "without lift"
