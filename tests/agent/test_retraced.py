"""The structures held-out 30 showed, read generally (:mod:`miles_ros.agent.retraced`; a cube
balanced on a corner, :mod:`miles_ros.agent.repertoire`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says, with cubes moved by hypothesis where the
scene decides, and look-alikes that must keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.agent.reading_harness import _read, _said, colours, moved
from tests.agent.reading_harness import plain as _plain


def test_the_gripper_over_a_cube_is_a_reach_of_it():
    for said, want in (
        ("Put your gripper directly above the blue box and stay there.", "reach the blue box"),
        ("Move so that you are over the red box.", "reach the red box"),
        (
            "Hover right over the green box, then set it on the grey tile.",
            "reach the green box, then set the green cube on the right pad",
        ),
        (
            "Push the red box onto the grey tile, afterwards go above the blue box.",
            "push the red box onto the right pad, afterwards reach the blue box",
        ),
    ):
        assert _plain(said) == want, said
    for said, want in (  # look-alikes: a hover alone, a cube moved over another
        ("Hover over the green box.", "hover over the green box"),
        ("Move the red box over to the grey tile, then go home.", "move the red box over to"),
    ):
        assert _plain(said).startswith(want), said


def test_nothing_to_do_after_all_is_an_empty_plan_and_a_request_keeps_its_step():
    for said in (
        "Oh well, never mind, do nothing after all.",
        "Forget what I said.",
        "It's all good, no need to do anything.",
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None and reading.nothing, (said, text)
    for said, want in (
        (
            "Never mind the red box, put the blue box on the grey tile.",
            "put the blue box on the right pad",
        ),
        ("All good - now push the red box onto the grey tile.", "push the red box onto"),
    ):
        text, reading, asked = _read(said)
        assert not reading.nothing and want in _said(text), (said, text)


def test_one_of_the_pads_is_asked_and_the_other_pad_is_the_one_not_named():
    for said in (
        "Set the red box on either of the two tiles.",
        "Drop the blue box on either tile.",
    ):
        assert _read(said)[2] is not None, said
    assert "on the left" in _plain("Put the green box on the other tile, not the grey one.")
    assert "on the right" in _plain("Put the green box on the other tile - not the yellow tile.")
    reading = _read("Have the green box balance on only one edge.")[1]
    assert reading.refusal and "edge" in reading.refusal


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_tower_said_by_its_order_or_by_its_bottom_places_each_in_that_order(order):
    a, b, c = order
    assert _plain(f"Stack all three boxes on the grey tile: {a} first, then {b}, then {c}.") == (
        f"put the {a} cube on the right pad, then put the {b} cube on the {a} cube, "
        f"then put the {c} cube on the {b} cube"
    )
    assert _plain(f"Put up a tower of the {b} and {a} boxes on the yellow tile, {a} lowest.") == (
        f"put the {a} cube on the left pad, then put the {b} cube on the {a} cube"
    )


@given(st.permutations([0.25, 0.05, -0.15]), st.sampled_from(["left", "right"]))
@settings(max_examples=6, deadline=None)
def test_an_ordinal_counted_from_a_side_picks_the_cube_so_many_in(ys, side):
    world = moved([(0.45, y) for y in ys])
    ranked = sorted(
        world.objects, key=lambda n: -world.objects[n][1] * (1 if side == "left" else -1)
    )
    text = _plain(
        f"Lift the box that is third counting from the {side} onto the yellow tile.", world
    )
    assert f"the {ranked[2].split('_')[0]} cube" in text, text
