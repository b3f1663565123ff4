"""The structures held-out 34 showed, read generally (:mod:`miles_ros.agent.revisited`'s
:func:`~miles_ros.agent.revisited.named_after` and :func:`~miles_ros.agent.revisited.face_aimed`,
and the rules they extend: a kind of place ruled out and a cube said up in
:mod:`~miles_ros.agent.revisited`, thanks after a lead in :mod:`~miles_ros.agent.reviewed`,
cubes kept as they lie, stopping and the keep-only safety net in
:mod:`~miles_ros.agent.no_motion`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says, with cubes moved by hypothesis where the
scene decides, and look-alikes that must keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings

from miles_ros.agent.no_motion import asks_no_motion, kept_only
from miles_ros.agent.reviewed import thanked
from miles_ros.agent.revisited import face_aimed, named_after
from tests.agent.reading_harness import _read, colours, moved, read_like, table


def _nothing(said: str, world=None) -> None:
    text, reading, asked = _read(said) if world is None else _read(said, world)
    assert asked is None and reading.refusal is None and reading.nothing, (said, text)


@given(colours, table)
@settings(max_examples=4, deadline=None)
def test_things_kept_however_they_lie_are_no_motion_in_any_scene(order, spot):
    world = moved([spot, (0.55, 0.2), (0.45, -0.2)])
    for said in (
        "Leave the bricks precisely how they sit right now.",
        "Keep all of the boxes the way they lie.",
        "Let both bricks remain just where they rest.",
        "Leave all three blocks exactly as they stood.",
    ):
        _nothing(said, world)
    # look-alike: one cube kept as it lies, another moved: still a motion plan
    a, b, _ = order
    said = f"Leave the {a} box how it lies and put the {b} box on the grey tile."
    assert not asks_no_motion(said)
    assert _read(said, world)[1].nothing is False


def test_stopping_and_no_more_moves_are_no_motion():
    for said in ("Pause. No further motion.", "Halt there - no more moves, thanks.", "Freeze!"):
        _nothing(said)
    # look-alikes: a stop before a request, a stop of one motion said with its cube
    assert not asks_no_motion("Stop, then slide the red box to the grey tile.")
    assert not kept_only("Stop pushing the green brick.")
    assert not _read("Halt, and after that put the blue box on the yellow tile.")[1].nothing


def test_thanks_after_a_lead_is_nothing_but_a_lead_alone_is_not():
    for said in (
        "Alright - that was everything I wanted for the day.",
        "So, that's all we needed at the moment, cheers.",
    ):
        assert thanked(said) == "nothing for now.", said
        _nothing(said)
    assert thanked("Okay.") == "Okay."
    assert not _read("Right, that's all - now lift the red brick onto the grey tile.")[1].nothing


def test_the_keep_only_safety_net_never_plans_motion():
    for said in (
        "Leave the bricks alone.",
        "Keep everything the same, please.",
        "Stay like that.",
    ):
        assert kept_only(said), said
        _nothing(said)
    # look-alikes: a place, a turn, a verb of motion, a count: left to the reading
    for said in (
        "Keep the red box on the grey tile.",
        "Leave the green brick turned 30 degrees.",
        "Keep the blue box up in the air.",
        "Let the red brick go.",
        "Keep the blue box still while you move the green one.",
    ):
        assert not kept_only(said), said


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_kind_of_place_denied_then_the_cube_wanted_without_instead(order):
    a, b, _ = order
    read_like(
        f"stack the {a} box on the {b} box",
        [
            f"Never lay the {a} box on a tile; stack it on the {b} box.",
            f"Not onto any mat - stack the {a} box on the {b} box.",
        ],
    )
    # look-alike: another cube said in the second clause: not rewritten
    said = f"Don't put the {a} box on a tile, put the {b} box on the {a} box."
    assert _read(said)[0].lower().startswith("don't"), _read(said)[0]


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_cube_said_up_before_the_next_step(order):
    a, b, _ = order
    read_like(
        f"pick up the {a} brick, then put it on the {b} brick",
        [f"Raise the {a} brick and, once it has been picked up, put it on the {b} brick."],
    )


@given(colours, table)
@settings(max_examples=4, deadline=None)
def test_a_cube_named_after_its_clause_stands_for_it(order, spot):
    a, b, _ = order
    world = moved([spot, (0.55, 0.2), (0.45, -0.2)])
    read_like(
        f"slide the {a} brick to the yellow tile",
        [
            f"Slide it to the yellow tile - I'm talking about the {a} brick.",
            f"Slide it to the yellow tile, the {a} brick, I mean.",
        ],
        world,
    )
    # look-alike: a cube after the clause without "I mean / that is": left as said
    said = f"Slide it to the yellow tile, the {a} brick."
    assert named_after(said) == said
    # look-alike: "I mean" correcting the cube said last, not naming "it"
    said = f"Move it next to the {a} - I mean the {b} brick."
    assert named_after(said) == said


@given(colours)
@settings(max_examples=3, deadline=None)
def test_turned_until_a_face_is_aimed_at_the_robot(order):
    a = order[0]
    read_like(
        f"turn the {a} brick so a face points at the robot",
        [
            f"Spin the {a} brick till one of its sides is pointed straight at the robot.",
            f"Rotate the {a} brick so that a face is turned towards the robot.",
        ],
    )
    # look-alike: a face aimed elsewhere: not rewritten
    said = f"Rotate the {a} box until a face is aimed at the grey tile."
    assert face_aimed(said) == said
