"""The structures held-out 29 showed, read generally (:mod:`miles_ros.agent.retaken`; things
kept as they are, :mod:`miles_ros.agent.no_motion`; a turn to a side,
:mod:`miles_ros.agent.turns`; a height above the reach envelope,
:mod:`miles_ros.agent.goal_refusals`; "the cube to the left of X" with more than one,
:mod:`miles_ros.agent.reference_picks`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says, with cubes moved by hypothesis where the
scene decides, and look-alikes that must keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.turns import goal_angles
from tests.agent.reading_harness import SCENE, _read, _said, colours, moved


def _plain(said: str, world=SCENE) -> str:
    text, reading, asked = _read(said, world)
    assert reading.refusal is None and asked is None, (said, reading.refusal, asked)
    return _said(text)


def test_the_placing_wanted_the_last_choice_and_a_tower_said_by_its_order():
    for said, want in (
        (
            "I do not want the red box on the blue box, I'd like the green box on it.",
            "put the green box on the blue box",
        ),
        (
            "Anything apart from the blue box onto the grey tile... right, the red box then.",
            "put the red box onto the right pad",
        ),
        (
            "Drop the blue box on the grey tile and put up the tower there: red on blue, "
            "green on red.",
            "drop the blue box on the right pad, then put the red cube on the blue cube, then "
            "put the green cube on the red cube",
        ),
        (
            "Put up a pile on the yellow tile: the red box first, then the blue box on top of it.",
            "put the red box on the left pad, then put the blue box on the red cube",
        ),
        ("Return your gripper to the place where it began.", "go home"),
        ("Red box -> grey tile, slid, never lifted.", "push the red box onto the right pad"),
        ("Red box -> grey tile.", "put the red box on the right pad"),
    ):
        assert _plain(said) == want, said


@given(colours)
@settings(max_examples=3, deadline=None)
def test_every_cube_stacked_on_the_one_said_at_the_bottom(order):
    a, b, c = order
    text = _plain(f"Pile up every one of the boxes, the {a} box underneath.")
    assert text.split(",")[0].endswith(f"on the {a} cube"), text  # the tower's base
    assert f"the {a} cube on" not in text, text


def test_things_kept_as_they_are_ask_for_nothing_and_a_request_beside_them_keeps_its_step():
    for said in (
        "Leave all the boxes precisely as they are.",
        "There's no need to touch the green box, it's good where it is.",
        "Keep the pile the way it is and stay still.",
    ):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None and reading.nothing, (said, text)
    for said, want in (  # look-alikes: a step beside them
        (
            "No need to touch the green box, push the red box onto the grey tile.",
            "push the red box onto the right pad",
        ),
        (
            "Leave the green box where it is and put the red box on the grey tile.",
            "put the red box on the right pad",
        ),
    ):
        assert want in _plain(said), said


def test_both_pads_moved_are_refused_and_one_pad_named_keeps_its_reading():
    text, reading, _ = _read("Set both of the tiles on top of the blue box.")
    assert reading.refusal and "fixed to the table" in reading.refusal, text
    assert _plain("Lay the blue box onto both... no, onto the grey tile.")


@given(st.sampled_from(["left", "right"]), st.integers(5, 40))
@settings(max_examples=5, deadline=None)
def test_a_turn_to_a_side_is_counter_clockwise_to_the_left(side, n):
    sign = 1 if side == "left" else -1
    assert goal_angles(f"Twist the red box {n} degrees to the {side}.") == [sign * n]
    assert goal_angles(f"Twist the red box {n} degrees {side}wards.") == [sign * n]
    # look-alikes: a place on that side, or a direction word, decides as before
    assert goal_angles(f"Twist the red box {n} degrees, then push it to the {side} pad.") == [n]
    assert goal_angles(f"Twist the red box {n} degrees clockwise to the {side}.") == [-n]


def test_a_height_above_a_pad_outside_the_reach_envelope_is_refused_inside_it_reached():
    _, reading, _ = _read("Keep your gripper 55 cm up above the grey tile.")
    assert reading.refusal and "trained envelope" in reading.refusal
    _, reading, _ = _read("Keep your gripper 20 cm up above the grey tile.")
    assert reading.refusal is None


@given(st.permutations([0.2, 0.0, -0.2]))
@settings(max_examples=4, deadline=None)
def test_the_cube_to_a_side_of_another_asks_when_two_are_there_unless_in_a_row(ys):
    cubes = dict(zip(("red", "green", "blue"), ys, strict=True))
    rightmost = min(cubes, key=cubes.get)
    middle = sorted(cubes, key=cubes.get)[1]
    bent = moved([(0.40 if y else 0.55, y) for y in ys])  # the middle one off the line
    _, reading, asked = _read(
        f"Drop the box to the left of the {rightmost} box on the grey tile.", bent
    )
    assert asked is not None and len(asked.options) == 2, asked
    text = _plain(f"Drop the box to the right of the {middle} box on the grey tile.", bent)
    assert f"the {rightmost} cube" in text, text
    text = _plain(f"Drop the box just left of the {rightmost} box on the grey tile.", bent)
    assert f"the {middle} cube" in text, text
    row = moved([(0.45, y) for y in ys])  # in a row: the one beside it
    text = _plain(f"Drop the box to the left of the {rightmost} box on the grey tile.", row)
    assert f"the {middle} cube" in text, text
