"""The structures held-out 27 showed, read generally: a shade of a scene colour and "the C
one" for a pad (:mod:`miles_ros.agent.scene_colours`), a cube set aside, a pad that gets a
cube, a placing ruled out then "put it on Q", "not P: Q. V X there", the stack's loose and
top cubes, "a two-cube tower with X on Y", three on a pad in an order, "start by ... finish
by ...", the gripper aimed and held, "the one farthest away", "unstack them: ..."
(:mod:`miles_ros.agent.reread`), leave to stay still (:mod:`miles_ros.agent.no_motion`) and
a cube straight in front of or behind another
(:func:`~miles_ros.agent.reference_picks._before_or_behind`). Each in wordings no eval set
and no ``bench/planner_grammar.py`` transformation says, with cubes moved by hypothesis where
the scene decides, and look-alikes that must keep their reading. Reading only: no planner
run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.reread import reread
from tests.agent.reading_harness import COLOURS, SCENE, _read, _said, _tower, colours


def _plain(said: str, world=SCENE) -> str:
    text, reading, asked = _read(said, world)
    assert reading.refusal is None and asked is None, (said, reading.refusal, asked)
    return _said(text)


# -- colours said another way -----------------------------------------------------------------
def test_a_shade_of_a_scene_colour_is_that_colour():
    for said, want in (
        ("Drop the cobalt-blue box on the steel-grey tile.", "drop the blue box on the right pad"),
        ("Shove the mint green brick to the canary yellow tile.", "shove the green brick to the"),
        ("Stack the ruby-red box on the deep green one.", "stack the red box on the green cube"),
        ("The dove grey tile is getting the bluish blue box", "put the blue box on the right pad"),
    ):
        assert _plain(said).startswith(want), said


def test_colours_the_scene_lacks_and_non_colours_keep_their_reading():
    for said in ("Put the gold cube on the grey pad.", "Put the silver cube on the grey pad."):
        _, reading, _ = _read(said)
        assert reading.refusal and "no" in reading.refusal, said
    assert _plain("Hover over the non-yellow tile.") == "hover over the right pad"


def test_the_colour_one_is_the_pad_only_a_pad_has_that_colour():
    assert _plain("Not the yellow tile, the grey one: set the blue box there.") == (
        "set the blue box on the right pad"
    )
    assert _plain("Stack the red box on the blue one.") == "stack the red box on the blue cube"


# -- structures said plainly ------------------------------------------------------------------
def test_a_pad_that_gets_a_cube_and_a_placing_ruled_out_then_it():
    for said, want in (
        ("Give the yellow tile the red box.", "put the red box on the left pad"),
        ("The grey tile needs the green brick.", "put the green brick on the right pad"),
        (
            "The blue box mustn't land on the yellow tile; drop it on the grey one.",
            "drop the blue box on the right pad",
        ),
        ("Skip the green box; blue to the grey tile.", "put the blue cube on the right pad"),
    ):
        assert _plain(said) == want, said


@given(colours)
@settings(max_examples=3, deadline=None)
def test_it_put_on_a_cube_after_a_placing_is_the_cube_placed(order):
    a, b, _ = order
    assert _plain(f"Lay the {a} box on the grey tile; next, drop it atop the {b} box.") == (
        f"lay the {a} box on the right pad; next, drop the {a} box atop the {b} box"
    )


def test_structure_look_alikes_keep_their_reading():
    for said in (
        "Give the red cube a push onto the grey pad.",  # a push given, no pad as recipient
        "The blue cube should go on the grey pad; put it on the yellow one.",  # no negation
        "Build a two-cube tower.",  # no "with X on Y"
        "Stack the three cubes on the grey pad.",  # no order said
        "Put the red cube on the left pad, then push it to the right pad.",  # "it" to a pad
    ):
        assert reread(said, COLOURS) == said, said
    for said in ("Never mind.", "Forget it."):
        _, reading, _ = _read(said)
        assert reading.nothing, said


def test_leave_to_stay_still_is_no_motion():
    for said in ("You're welcome to stay put for the moment.", "You could simply stay still."):
        _, reading, _ = _read(said)
        assert reading.nothing and reading.refusal is None, said


@given(colours)
@settings(max_examples=4, deadline=None)
def test_towers_said_with_their_parts_and_order(order):
    a, b, c = order
    assert _plain(f"Form a 2-high stack with {a} atop {b}.") == f"put the {a} cube on the {b} cube"
    assert _plain(
        f"Put all three blocks onto the grey tile: {a} first, then {b} on that, {c} at the top."
    ) == (
        f"put the {a} cube on the right pad, then put the {b} cube on the {a} cube, then put "
        f"the {c} cube on the {b} cube"
    )


def test_first_and_last_steps_said_as_start_and_finish_and_an_aimed_gripper():
    assert (
        _plain(
            "Start out by pushing the red box onto the grey tile, then wrap up by hovering over "
            "the blue box."
        )
        == "push the red box onto the right pad, then hover over the blue box"
    )
    assert _plain("Aim your hand toward the grey tile and remain over it.") == (
        "hover over the right pad"
    )


# -- the stack layout ---------------------------------------------------------------------------
@given(colours, st.floats(-0.12, 0.0))
@settings(max_examples=6, deadline=None)
def test_the_loose_cube_and_the_one_up_off_the_table(order, y):
    bottom, top, loose = order
    world = SCENE.copy()
    world.objects = {
        f"{bottom}_cube": (0.56, y, 0.02),
        f"{top}_cube": (0.56, y, 0.06),
        f"{loose}_cube": (0.42, 0.14, 0.02),
    }
    for said in (
        "Shift the solitary brick over to the grey tile.",
        "Carry the box that is not in a pile, the one apart from the pile, to the grey tile.",
    ):
        assert _plain(said, world).startswith(f"shift the {loose} cube") or _plain(
            said, world
        ).startswith(f"carry the {loose} cube"), said
    assert _plain("Carry the block lifted up off the table to the yellow tile.", world) == (
        f"carry the {top} cube to the left pad"
    )


def test_unstack_them_in_a_tower_of_three_names_no_cube_to_ask_about():
    world = _tower(("blue", "green", "red"), x=0.45, y=0.0)
    text, reading, asked = _read(
        "Dismantle it one by one: red to the yellow tile, green to the grey tile, blue last "
        "onto the green box.",
        world,
    )
    assert asked is None and reading.refusal is None
    assert _said(text) == (
        "put the red cube on the left pad, then put the green cube on the right pad, then put "
        "the blue cube on the green box"
    )


# -- a cube in line -----------------------------------------------------------------------------
@given(colours, st.floats(-0.05, 0.05), st.floats(0.09, 0.14), st.booleans())
@settings(max_examples=8, deadline=None)
def test_a_cube_straight_in_front_or_behind_is_the_one_in_line(order, y, gap, behind):
    """The third cube stands nearer in x but well off to the side: not "just in front"."""
    ref, inline, side = order
    sign = 1.0 if behind else -1.0
    world = SCENE.copy()
    world.objects = {
        f"{ref}_cube": (0.48, y, 0.02),
        f"{inline}_cube": (0.48 + sign * gap, y + 0.01, 0.02),
        f"{side}_cube": (0.48 + sign * (gap - 0.03), y + 0.2, 0.02),
    }
    where = "straight behind" if behind else "immediately in front of"
    said = f"Lift the box {where} the {ref} box onto the yellow tile."
    assert _plain(said, world) == f"lift the {inline} cube onto the left pad"


def test_the_farthest_away_one_is_the_farthest_from_the_robot():
    world = SCENE.copy()
    world.objects = {
        "red_cube": (0.35, -0.1, 0.02),
        "green_cube": (0.45, 0.1, 0.02),
        "blue_cube": (0.62, -0.05, 0.02),
    }
    assert _plain("Set the red box on the furthest away block.", world) == (
        "set the red box on the blue cube"
    )
