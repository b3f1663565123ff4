"""The structures held-out 28 showed, read generally (:mod:`miles_ros.agent.reheard`; a stated
layout before "take it off", :func:`~miles_ros.agent.clause_frames._lifted_off`; the work
dismissed or said done, :mod:`miles_ros.agent.no_motion`). Each in wordings no eval set and
no ``bench/planner_grammar.py`` transformation says, with cubes moved by hypothesis where the
scene decides, and look-alikes that must keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings

from miles_ros.agent.reheard import and_no, kept_still_instead, other_first
from tests.agent.reading_harness import SCENE, _read, _said, colours


def _plain(said: str, world=SCENE) -> str:
    text, reading, asked = _read(said, world)
    assert reading.refusal is None and asked is None, (said, reading.refusal, asked)
    return _said(text)


def _pair_and_one(top: str, bottom: str, single: str):
    """The scene with ``top`` on ``bottom`` and ``single`` on the table apart."""
    world = SCENE.copy()
    world.objects = {
        f"{bottom}_cube": (0.5, 0.1, 0.02),
        f"{top}_cube": (0.5, 0.1, 0.06),
        f"{single}_cube": (0.4, -0.15, 0.02),
    }
    return world


def test_a_cube_kept_still_then_instead_keeps_the_prohibition_and_the_step():
    for said, want, kept in (
        (
            "I'd prefer the red box stayed put. Drop the green box on the grey tile instead.",
            "drop the green box on the right pad",
            "red_cube",
        ),
        (
            "I do not want you moving the blue brick. Set the red brick on the yellow tile "
            "instead.",
            "set the red brick on the left pad",
            "blue_cube",
        ),
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None, said
        assert _said(text).startswith(want), (said, text)
        assert [p.cube for p in reading.prohibitions] == [kept], said


def test_and_no_then_a_prohibition_and_a_correction_putting_another_step_first():
    for said, want in (
        (
            "Shift the blue box to the yellow tile, and no, never lift it.",
            "shift the blue box to the left pad, but don't lift it",
        ),
        (
            "Shift the red box onto the grey tile and no, no picking it up.",
            "shift the red box onto the right pad, but don't pick it up",
        ),
        (
            "Set the green box on the grey tile. Oh wait, put the blue box onto the yellow tile "
            "first, then the green box.",
            "put the blue box onto the left pad, then set the green box on the right pad",
        ),
        ("The tile that is grey is where the green box ought to land.", "put the green box on"),
        (
            "No, not the green box - the red box should go onto the yellow tile.",
            "put the red box onto the left pad",
        ),
    ):
        assert _plain(said).startswith(want), said


@given(colours)
@settings(max_examples=3, deadline=None)
def test_whichever_is_neither_and_the_one_by_itself_follow_the_scene(order):
    a, b, c = order
    assert _plain(f"Drop the {a} box on whichever box is not {b} or {a}.") == (
        f"drop the {a} box on the {c} cube"
    )
    world = _pair_and_one(a, b, c)
    assert _plain(f"Put the {a} box on the box that's by itself.", world) == (
        f"put the {a} box on the {c} cube"
    )
    assert _plain(
        f"The {a} box is sitting on the {b} box. Take it off and drop it on the yellow tile.",
        world,
    ).startswith(f"take the {a} box off and drop it on the left pad")


def test_the_work_dismissed_or_said_done_is_no_motion():
    for said in (
        "Um, forget about that, never mind.",
        "Nothing else to do here, we are finished.",
    ):
        assert _read(said)[1].nothing, said


def test_look_alikes_keep_their_reading():
    for said in (
        "I don't want the red cube moved.",  # no step after it
        "Put the red cube on the grey pad and no other cube.",  # no "and no," before a verb
        "Put the red cube on the grey pad. No, put the blue one there first.",  # no "then"
    ):
        assert kept_still_instead(and_no(other_first(said))) == said
    _, reading, _ = _read("We're done with the red cube; put the blue cube on the grey pad.")
    assert not reading.nothing
    # a colour the scene's cubes lack is not resolved away: the goal is refused for it
    _, reading, _ = _read("Drop the red box on whichever box is not gold or red.")
    assert reading.refusal and "gold" in reading.refusal


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_three_high_tower_and_a_later_hover_over_a_cube(order):
    a, b, c = order
    world = _pair_and_one(a, b, c)
    assert _plain(f"Lay the {c} box on top so that the pile is 3 tiers high.", world).startswith(
        f"lay the {c} box on top of the {a} cube"
    )
    said = f"Drop the {c} brick on the {b} brick and afterwards hover above the {a} one."
    assert _plain(said) == f"drop the {c} brick on the {b} brick and afterwards reach the {a} cube"


def test_hover_look_alikes_keep_their_reading():
    assert _plain("Hover above the blue box, then put the red box on the grey tile.").startswith(
        "hover above the blue box"
    )
    assert _plain("Put the red box on the grey tile, then hover above the yellow tile.").endswith(
        "then hover above the left pad"
    )
    assert _plain("Put the red box on the grey tile, then hover above the blue box.").endswith(
        "then hover above the blue box"  # after a placing on a pad: as before
    )
    assert (
        _plain("Put the red box on top of the blue box.")
        == "put the red box on top of the blue box"
    )


@given(colours)
@settings(max_examples=3, deadline=None)
def test_the_cube_another_rests_on_is_the_covered_one_and_is_refused(order):
    a, b, c = order
    world = _pair_and_one(a, b, c)
    for said in (
        f"Bring the box that the {a} box is sitting on over to the grey tile.",
        f"The brick the {a} brick rests on: carry it to the yellow tile.",
        "Shift the block forming the bottom of the tower onto the grey tile.",
    ):
        _, reading, asked = _read(said, world)
        assert asked is None and reading.refusal, said
        assert f"cannot move {b}_cube" in reading.refusal, (said, reading.refusal)
