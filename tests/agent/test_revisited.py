"""The structures held-out 33 showed, read generally (:mod:`miles_ros.agent.revisited`, and the
rules it extends: thanks in :mod:`~miles_ros.agent.reviewed`, cubes kept as they are in
:mod:`~miles_ros.agent.no_motion`, a side in a turn's clause in
:mod:`~miles_ros.agent.references`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says, with cubes moved by hypothesis where the
scene decides, and look-alikes that must keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings

from miles_ros.agent.revisited import after_all, once_done, set_down, which_you_move
from tests.agent.reading_harness import _read, colours, moved, read_like, table


@given(colours)
@settings(max_examples=3, deadline=None)
def test_all_but_one_kept_still_while_the_robot_moves_it(order):
    a, b, _ = order
    read_like(
        f"lift the {a} brick onto the grey tile",
        [f"No brick moves other than the {a} brick, which you must lift onto the grey tile."],
    )
    read_like(
        f"push the {a} box to the yellow tile",
        [
            f"Everything remains still but the {a} box, which I'd like you to push to the"
            " yellow tile."
        ],
    )
    # look-alike: a relative clause of staying says no move by the robot: not rewritten
    said = f"Nothing moves except the {a} box, which stays where it is."
    assert which_you_move(said) == said


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_kind_of_place_ruled_out_then_the_cube_wanted(order):
    a, b, _ = order
    read_like(
        f"set the {a} box on the {b} box",
        [f"Do not use any tile for the {a} box, but set it on the {b} box instead."],
    )
    read_like(
        f"place the {a} brick onto the {b} brick",
        [f"Skip the mats for the {a} brick - place it onto the {b} brick instead."],
    )
    # look-alike: one pad ruled out, no place said instead: not rewritten
    said = f"Don't use the grey tile for the {a} box."
    assert _read(said)[0].lower().startswith("don't"), _read(said)[0]


@given(colours, table)
@settings(max_examples=4, deadline=None)
def test_the_step_before_said_done_is_then(order, spot):
    a, b, _ = order
    world = moved([spot, (0.55, 0.2), (0.45, -0.2)])
    read_like(
        f"put the {a} box on the grey tile, then rotate the {b} box 30 degrees to the right",
        [
            f"Put the {a} box on the grey tile; once you're finished with that, rotate the "
            f"{b} box 30 degrees to the right."
        ],
        world,
    )
    read_like(
        f"lift the {a} brick, then set it on the {b} brick",
        [f"Lift the {a} brick and, when it's in your hand, set it on the {b} brick."],
        world,
    )
    # a side in a turn's clause is no place: not asked where
    assert (
        _read(f"Put the {a} box on the grey tile, then spin the {b} box 40 deg to the left.")[2]
        is None
    )
    # look-alike: a side where a cube is moved is still asked
    assert _read(f"Put the {a} box on the grey tile, then move the {b} box to the left.")[2]


def test_once_done_needs_a_step_before_and_after_all_only_ends_a_clause():
    assert once_done("When that's done, go home.") == "When that's done, go home."
    assert after_all("Put the red box on the tile after all the others.") == (
        "Put the red box on the tile after all the others."
    )
    assert after_all("Push it after all, please.") == "Push it, please."


@given(colours)
@settings(max_examples=3, deadline=None)
def test_set_down_with_a_manner_is_a_lift(order):
    a = order[0]
    read_like(
        f"pick up the {a} box and put it on the yellow tile",
        [f"Take the {a} box, then carefully lay it down on the yellow tile."],
    )
    read_like(
        f"pick up the {a} box and put it onto the yellow tile",
        [f"Grasp the {a} box and place it onto the yellow tile slowly."],
    )
    # look-alike: no manner said: left as said
    assert set_down(f"Grab the {a} box, then set it down on the yellow tile.").startswith("Grab")


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_cube_moved_and_kept_where_it_is_is_refused_and_broken_cubes_too(order):
    a, b, _ = order
    assert _read(f"Slide the {a} box to the grey tile but leave it precisely where it is.")[
        1
    ].refusal
    assert _read(f"Cut the {a} brick into little pieces.")[1].refusal
    # look-alikes: kept there (where it was put); another cube kept where it is
    assert _read(f"Put the {a} box on the grey tile and keep it there.")[1].refusal is None
    assert (
        _read(f"Put the {a} box on the grey tile and keep the {b} box where it is.")[1].refusal
        is None
    )


def test_nothing_to_do_said_as_kept_thanks_or_called_off_after_all():
    for said in (
        "Keep both the boxes exactly where they are.",
        "Let every brick stay right where it is.",
        "That was everything we needed, cheers.",
        "Forget it, no need to do anything after all.",
        "Oh, never mind - do not move a thing.",
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None and reading.nothing, (said, text)
    # look-alike: thanks, then a request
    assert not _read("That's all I wanted - now push the red box to the grey tile.")[1].nothing


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_cube_squared_up_so_a_face_points_at_the_robot_is_a_turn(order):
    a = order[0]
    read_like(
        f"square the {a} box so one side faces the robot, then return home",
        [f"Straighten the {a} box up so one side faces the robot, then return home."],
    )
