"""The structures held-out 31 showed, read generally (:mod:`miles_ros.agent.reparsed`). Each in
wordings no eval set and no ``bench/planner_grammar.py`` transformation says, with cubes moved
by hypothesis where the scene decides, and look-alikes that must keep their reading. Reading
only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.agent.reading_harness import _read, _said, _tower, colours, moved
from tests.agent.reading_harness import plain as _plain


def test_nothing_to_do_yet_is_an_empty_plan_and_a_thing_named_keeps_its_request():
    for said in (
        "Just a moment - don't begin on anything yet.",
        "Nothing needs doing at present; stay ready.",
        "There's nothing that has to be done yet, just wait.",
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None and reading.nothing, (said, text)
    text, reading, _ = _read("Nothing needs doing to the red box; push the blue box to a tile.")
    assert not reading.nothing and "push the blue box" in _said(text), text


@given(colours, st.sampled_from(["drag", "nudge", "lift"]))
@settings(max_examples=4, deadline=None)
def test_a_manner_ruled_out_then_the_request_instead_keeps_the_request(order, verb):
    a = order[0]
    other = "push it" if verb == "lift" else "lift it up"
    text = _plain(f"Don't {verb} the {a} box; {other} and leave it on the grey tile instead.")
    gerund = {"drag": "dragging", "nudge": "nudging", "lift": "lifting"}[verb]
    assert f"the {a} box" in text and text.endswith(f"without {gerund} it"), text


@given(colours)
@settings(max_examples=3, deadline=None)
def test_all_but_the_cube_moved_stay_put_and_the_cubes_kept_clear_of(order):
    a = order[0]
    text = _plain(
        f"Every box except the {a} box stays where it is: shove the {a} box to the grey tile."
    )
    assert f"shove the {a} box to the right pad" in text, text
    text = _plain("Keep your hand well away from the boxes - hover above the yellow tile.")
    assert text == "hover above the left pad", text


def test_a_thing_said_by_nothing_and_the_outer_cube_are_asked_about():
    for said in ("Nudge that object to the grey tile.", "Lift the outermost box onto a tile."):
        assert _read(said)[2] is not None, said
    # look-alike: "that thing" after a cube named points back at it, nothing asked
    text, reading, asked = _read("Pick up the red box and put that thing on the grey tile.")
    assert asked is None and reading.refusal is None, text


@given(st.permutations([0.22, 0.02, -0.18]), st.sampled_from(["left", "right"]))
@settings(max_examples=6, deadline=None)
def test_the_hand_side_cube_is_the_outermost_and_asked_where_two_stand_level(ys, side):
    sign = 1 if side == "left" else -1
    world = moved([(0.42, ys[0]), (0.5, ys[1]), (0.58, ys[2])])
    first = max(world.objects, key=lambda n: sign * world.objects[n][1])
    text = _plain(f"Lift the {side}-hand box onto the grey tile.", world)
    assert f"the {first.split('_')[0]} cube" in text, text
    level = world.copy()
    x, y, z = level.objects[first]
    second = next(n for n in level.objects if n != first)  # moved level with it, 14 cm off
    level.objects = {**level.objects, second: (x + 0.14 if x < 0.5 else x - 0.14, y - 0.004, z)}
    assert _read(f"Lift the box on the {side}-hand side onto the grey tile.", level)[2] is not None


@given(colours)
@settings(max_examples=3, deadline=None)
def test_it_and_that_cube_point_back_at_the_cube_placed_before(order):
    a, b, _ = order
    text = _plain(f"Set the {a} box on the yellow tile, then lift it across to the {b} box.")
    assert text.count(f"the {a} box") == 2, text
    text = _plain(
        f"Put the {a} box on the grey tile and afterwards stack the {b} box on that box."
    )
    assert text.endswith(f"the {b} box on the {a} box"), text
    assert _plain(f"Pick up the {a} box. Next, lay it on the {b} box.") == (
        f"pick up the {a} box and put it on the {b} box"
    )
    # look-alikes: "that box" with one cube named keeps its words; "the right-hand one" of a
    # group named before is read by that group
    assert "that box" in _said(_read(f"Put the {a} box on top of that box.")[0])
    two = "The two front boxes: put the right-hand one on the grey mat."
    assert "rightmost" not in _plain(two), two


def test_a_manner_hint_is_how_and_stops_are_reaches_in_order():
    text = _plain(
        "Would you take the green box to the grey tile? You will need to lift it over the red one."
    )
    assert text == "take the green box to the right pad without pushing it?", text
    assert _plain("Two stops: the grey tile and then home.") == (
        "hover over the right pad, then go home"
    )


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_stack_finished_and_a_cube_on_top_of_both(order):
    a, b, c = order
    world = _tower([b, c], x=0.58, y=0.14)
    world.objects[f"{a}_cube"] = (0.39, -0.13, 0.02)
    assert _plain(f"The tower needs one more box - cap it with the {a} box.", world) == (
        f"put the {a} box on top of the {c} cube"
    )
    assert _plain(
        f"Stack the {a} box on the {b} box, and the {c} box on top of both of them."
    ) == (f"stack the {a} box on the {b} box, then put the {c} box on the {a} box")
