"""The structures held-out 26 showed, read generally: order words across clauses
(:mod:`miles_ros.agent.order_across`), the cube at the table's centre, the middle of a row
along its own axis, "X is on Y; V it", the scene's one stack made three high or taken apart
(:mod:`miles_ros.agent.scene_said`) and a tower's cube named again as the next one's
support (:func:`~miles_ros.agent.towers.said_order`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says (other nouns, verbs, separators), with cubes
moved by hypothesis, and look-alikes that must keep their reading. Reading only: no planner
run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.order_across import ordered
from miles_ros.agent.scene_said import made_three, pair_apart
from tests.agent.reading_harness import SCENE, _read, _said, _tower, colours


# -- the wrong order --------------------------------------------------------------------------
def test_order_words_across_clauses_give_each_clause_its_place():
    for said, want in (
        (
            "Set the red brick on the left tile, then head back home, but before any of this "
            "hover above the blue box.",
            "hover above the blue box, then set the red brick on the left tile, then head back "
            "home",
        ),
        (
            "Home at the very end, thanks: to start with, slide the green box to the right tile.",
            "slide the green box to the right tile, then go home",
        ),
        (
            "At the end return home. Prior to that, stack the red box on the blue box; first "
            "of all, hover over the green box.",
            "hover over the green box, then stack the red box on the blue box, then return home",
        ),
    ):
        assert _said(ordered(said)) == want, said


def test_order_words_look_alikes_keep_their_reading():
    for said in (
        "Put the red cube on the left pad, then go home.",  # in order already
        "Put the red cube on the left pad, next go home.",  # "next" is "then"
        "Put the red cube on the left pad. Before that, put the blue cube on it.",  # "it"
        "Put the red cube in the middle, then go home.",  # a place, not an order word
        "Put the red cube first and the blue cube first.",  # two firsts
    ):
        assert ordered(said) == said


# -- refused where the goal is feasible --------------------------------------------------------
@given(colours, st.floats(-0.03, 0.03), st.floats(-0.03, 0.03))
@settings(max_examples=6, deadline=None)
def test_the_cube_at_the_tables_centre_is_a_referent(order, dx, dy):
    a, b, c = order
    world = SCENE.copy()
    x0, x1, y0, y1 = world.table_xy
    cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
    world.objects = {
        f"{a}_cube": (cx, cy, 0.02),
        f"{b}_cube": (0.38, 0.2, 0.02),
        f"{c}_cube": (0.6, -0.18, 0.02),
    }
    for said in (
        "Lift the brick lying at the very middle of the table onto the grey tile.",
        "Drop the box which is sitting in the tabletop's centre on the yellow mat.",
    ):
        text, reading, asked = _read(said, world)
        assert asked is None and reading.refusal is None, said
        assert f"the {a} cube" in text.lower() and "table" not in text.lower(), said


def test_a_spot_of_the_table_as_a_target_stays_refused():
    world = SCENE.copy()
    x0, x1, y0, y1 = world.table_xy
    world.objects = {**world.objects, "red_cube": ((x0 + x1) / 2, (y0 + y1) / 2, 0.02)}
    _, reading, _ = _read("Put the green cube in the centre of the table.", world)
    assert reading.refusal and "spot of the table" in reading.refusal


@given(colours)
@settings(max_examples=4, deadline=None)
def test_x_on_y_then_it_is_x(order):
    a, b, _ = order
    world = SCENE.copy()
    x, y, _z = world.objects[f"{b}_cube"]
    world.objects = {**world.objects, f"{a}_cube": (x, y, 0.06)}
    text, reading, asked = _read(
        f"The {a} box is perched on the {b} box: carry it over to the yellow tile.", world
    )
    assert asked is None and reading.refusal is None
    assert _said(text) == f"carry the {a} box over to the left pad"


@given(colours)
@settings(max_examples=4, deadline=None)
def test_a_pile_on_a_cube_counts_a_cube_said_again_once(order):
    x, a, b = order
    text, reading, asked = _read(
        f"Erect a stack on the {x} brick: first the {a} brick, then the {b} brick over the {a}."
    )
    assert reading.refusal is None and asked is None
    assert _said(text) == (
        f"put the {a} cube on the {x} cube, then put the {b} cube on the {a} cube"
    )


# -- asked where the plan is clear --------------------------------------------------------------
@given(colours, st.floats(-0.15, 0.15), st.booleans())
@settings(max_examples=6, deadline=None)
def test_the_middle_of_a_row_is_along_the_row(order, at, deep):
    """The three in a line front to back (or left to right): the middle one along it."""
    a, mid, b = order
    world = SCENE.copy()
    if deep:
        spots = [(0.36, at), (0.48, at), (0.6, at)]
    else:
        spots = [(0.48, at - 0.12), (0.48, at), (0.48, at + 0.12)]
    world.objects = {f"{c}_cube": (*p, 0.02) for c, p in zip((a, mid, b), spots, strict=True)}
    text, reading, asked = _read(
        "Shove the box at the centre of the line to the yellow tile.", world
    )
    assert asked is None and f"the {mid} cube" in text.lower()


def test_three_not_in_a_row_keep_their_question():
    world = SCENE.copy()
    world.objects = {
        "red_cube": (0.36, 0.15, 0.02),
        "green_cube": (0.5, -0.1, 0.02),
        "blue_cube": (0.6, 0.18, 0.02),
    }
    text, _, _ = _read("Shove the box at the centre of the line to the yellow tile.", world)
    assert "line" in text.lower()


@given(colours)
@settings(max_examples=4, deadline=None)
def test_the_one_stack_of_two_made_three_or_taken_apart(order):
    bottom, top, third = order
    world = SCENE.copy()
    world.objects = {
        f"{bottom}_cube": (0.56, -0.12, 0.02),
        f"{top}_cube": (0.56, -0.12, 0.06),
        f"{third}_cube": (0.42, 0.12, 0.02),
    }
    text, reading, asked = _read(
        f"Turn this into a 3-block pile, setting the {third} brick up top.", world
    )
    assert asked is None and reading.refusal is None
    assert _said(text) == f"put the {third} brick on the {top} cube"
    text, _, asked = _read(
        f"Separate the 2 stacked boxes; {top} to the yellow tile, then {bottom} onto the "
        f"{third} box.",
        world,
    )
    assert asked is None and _said(text).startswith(top)


def test_the_one_stack_read_only_where_the_scene_has_one_stack_of_two():
    """No stack (the default scene) or a stack of three: "it" / "the two cubes" stay as said."""
    for world in (SCENE, _tower(["red", "green", "blue"])):
        for said in (
            "Make it a three-cube tower by putting the blue cube on top.",
            "Unstack the two cubes: green to the yellow pad, then red onto the blue cube.",
        ):
            assert pair_apart(made_three(said, world), world) == said
