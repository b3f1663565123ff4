"""Held-out 38's structures read in round 44, in the modules that own them: a lift and a
placing of one cube said in order by "X after picking it up" (:func:`~miles_ros.agent.
wording.lift_then_place`, after :func:`~miles_ros.agent.discourse.said_in_order`), and a
lift whose next step follows the cube's arrival on a place ("lift X, and once it's on P,
Y": :mod:`~miles_ros.agent.wording`). Fresh wordings (boxes, bricks, blocks), colours and
scenes drawn by hypothesis, and look-alikes that keep their reading. Reading only."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.agent.reading_harness import _read, colours, moved, table

PADS = st.sampled_from([("left pad", "left pad"), ("grey pad", "right pad")])


@given(colours, PADS, st.lists(table, min_size=3, max_size=3))
@settings(max_examples=10, deadline=None)
def test_a_placing_after_picking_the_cube_up_is_one_placing(order, pad, spots):
    a, b, _ = order
    said_pad, pad_name = pad
    world = moved(spots)
    for said in (
        f"Lower the {a} brick onto the {said_pad} after lifting it.",
        f"Set the {a} box down on the {said_pad} once you've picked it up.",
    ):
        text, reading, asked = _read(said, world)
        assert text.lower().startswith(f"pick up the {a} "), (said, text)
        assert f"the {pad_name}" in text and "then" not in text, text
        assert reading.refusal is None and asked is None, said
    # look-alike: two cubes, a lift of one and a placing of the other, stay two steps
    text = _read(f"Pick up the {a} box, then put the {b} box on the {said_pad}.", world)[0]
    assert "then" in text and f"the {b} " in text, text


@given(colours, PADS, st.sampled_from(["go home", "hover over the {b} box"]))
@settings(max_examples=10, deadline=None)
def test_a_lift_then_a_step_once_the_cube_is_on_a_place_is_a_placing_there(order, pad, then):
    a, b, _ = order
    said_pad, pad_name = pad
    then = then.format(b=b)
    for said in (
        f"Lift the {a} brick, and once it's on the {said_pad}, {then}.",
        f"Grab the {a} block and when it is on the {said_pad}, {then}.",
    ):
        text, reading, _ = _read(said)
        assert text.lower().startswith(f"pick up the {a} "), (said, text)
        assert f"put it on the {pad_name}, then " in text, text
        assert reading.refusal is None, said
    # look-alike: "once it's there" keeps its reading (a lift, then the next step)
    text = _read(f"Lift the {a} box, and once it's there, go home.")[0]
    assert "put it" not in text, text
