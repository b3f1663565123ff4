"""The structures held-out 32 showed, read generally (:mod:`miles_ros.agent.reviewed`). Each in
wordings no eval set and no ``bench/planner_grammar.py`` transformation says, with cubes moved
by hypothesis where the scene decides, and look-alikes that must keep their reading. Reading
only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.agent.reading_harness import _read, _tower, colours, moved, read_like
from tests.agent.reading_harness import plain as _plain


@given(colours)
@settings(max_examples=3, deadline=None)
def test_all_but_one_kept_still_while_it_goes_somewhere_moves_it(order):
    a, b, _ = order
    read_like(
        f"leave the other cubes where they are and put the {a} box on the grey tile",
        [
            f"No box moves except the {a} box, which should go onto the grey tile.",
            f"Every box remains in place but the {a} box, which needs to go to the grey tile.",
        ],
    )
    # look-alike: "which" of a cube kept still says where it is, not where it goes
    text, reading, _ = _read(f"Everything stays put except the {a} box; push it to the {b} box.")
    assert "put the" not in text.lower() or f"the {a}" in text.lower(), text


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_place_not_wanted_then_the_one_wanted_and_a_lift_carried_there(order):
    a = order[0]
    read_like(
        f"put the {a} box on the yellow tile",
        [f"I do not want the {a} box on the grey tile, I'd like it on the yellow tile."],
    )
    read_like(
        f"pick up the {a} box and put it on the yellow tile",
        [f"Raise the {a} box, carry it across to the yellow tile and release it there."],
    )


@given(colours)
@settings(max_examples=3, deadline=None)
def test_a_corrected_place_and_a_request_called_off_but_its_first_part(order):
    a, b, _ = order
    read_like(
        f"set the {a} box on top of the {b} box",
        [f"Set the {a} box alongside the {b} box - no, on top of it."],
    )
    read_like(
        f"push the {a} box to the grey tile",
        [f"Push the {a} box to the grey tile, then stack the {b} box... oh, only the first step."],
    )


@given(colours)
@settings(max_examples=3, deadline=None)
def test_the_former_and_the_latter_name_the_cubes_of_the_pair(order):
    a, b, c = order
    read_like(
        f"stack the {b} box on the {c} box",
        [f"The {a} box and the {b} box - stack the latter on the {c} box."],
    )
    read_like(
        f"stack the {a} box on the {c} box",
        [f"Of the {a} box and the {b} box, stack the former on the {c} box."],
    )


def test_a_cube_left_alone_and_moved_is_refused_and_so_are_cubes_moved_at_once():
    assert _read("Let the red box be, then set the red box on the grey tile.")[1].refusal
    refusal = _read("Slide all three boxes onto the grey tile in one go.")[1].refusal
    assert refusal and "one cube at a time" in refusal, refusal
    # look-alikes: another cube moved; all three moved one after another
    assert (
        _read("Leave the red box alone and set the blue box on the grey tile.")[1].refusal is None
    )
    assert _read("Put all three boxes on the grey tile.")[1].refusal is None


@given(st.permutations([0.36, 0.47, 0.58]))
@settings(max_examples=3, deadline=None)
def test_the_cube_between_the_others_is_read_in_the_scene_and_asked_where_two_stand_level(xs):
    world = moved([(xs[0], 0.0), (xs[1], 0.0), (xs[2], 0.0)])  # a line out from the robot
    middle = sorted(world.objects, key=lambda n: world.objects[n][0])[1]
    text = _plain("Slide the box between the other two onto the grey tile.", world)
    assert f"the {middle.split('_')[0]} cube" in text, text
    # none between the others, two level left to right: asked, as "the middle box"
    level = moved([(0.42, 0.05), (0.58, 0.055), (0.5, -0.2)])
    assert _read("Slide the box between the other two onto the grey tile.", level)[2]


def test_thanks_alone_is_nothing_to_do_and_a_stack_completed_from_the_top():
    for said in ("Great job, cheers.", "That will do, thank you very much."):
        text, reading, asked = _read(said)
        assert asked is None and reading.refusal is None and reading.nothing, (said, text)
    text, reading, _ = _read("Thanks - now push the red box to the grey tile.")
    assert not reading.nothing, text
    world = _tower(["green", "blue"], x=0.58, y=0.14)
    world.objects["red_cube"] = (0.39, -0.13, 0.02)
    assert _plain("Finish off the pile: the red box sits on top.", world) == (
        "put the red box on top of the blue cube"
    )
