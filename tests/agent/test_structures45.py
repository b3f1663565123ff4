"""Held-out 39's structures read in round 45, in the modules that own them: nothing to do said
by sitting tight, hanging on or thinking (:mod:`~miles_ros.agent.no_motion`); a bare colour
before an arrow (:func:`~miles_ros.agent.retaken.arrow`); a pad said first as the target, then
"it" (:func:`~miles_ros.agent.regarded.target_first`); a verb of carrying the training phrases
lack (:mod:`~miles_ros.agent.wording`); the cube farthest from "your base"
(:mod:`~miles_ros.agent.reference_scene`); "the cube between the other two" with none inside
their circle (:mod:`~miles_ros.agent.reference_picks`, docs/interfaces.md's "Default scene");
"X goes on P; lift it", a cube said with where it sits, "cube on pad"
(:mod:`~miles_ros.agent.rendered`); a tower of two by its colours alone
(:func:`~miles_ros.agent.recounted.two_high`). Fresh wordings (boxes, bricks, blocks, mats),
colours, pads and layouts drawn by hypothesis, and look-alikes that keep their reading.
Reading only."""

from __future__ import annotations

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from miles_ros.agent.no_motion import asks_no_motion
from miles_ros.agent.recounted import two_high
from miles_ros.agent.references import resolve_references
from miles_ros.agent.regarded import target_first
from miles_ros.agent.rendered import rendered
from miles_ros.agent.retaken import arrow
from miles_ros.agent.turns import goal_angles
from miles_ros.agent.wording import plain_wording
from tests.agent.reading_harness import COLOURS, SCENE, _read, colours, moved, table

PADS = st.sampled_from(["yellow pad", "grey mat", "left pad", "right mat"])
NOUNS = st.sampled_from(["block", "box", "brick"])


@given(colours, PADS)
@settings(max_examples=10, deadline=None)
def test_nothing_to_do_said_by_sitting_tight_or_thinking(order, pad):
    for said in (
        "Don't move your arm at all.",
        "Stay tight for a second, right where you are.",
        "Hang on, not just yet, we're thinking.",
        "Oh, scrap this entire plan.",
        "Hold on - let me decide.",
    ):
        assert asks_no_motion(said), said
    a = order[0]
    for said in (  # a request beside them keeps its reading
        f"Hang on, push the {a} block onto the {pad}.",
        f"Don't move the arm yet, lift the {a} box first.",
        f"Hold on to the {a} brick.",
        f"Scrap that whole idea and put the {a} block on the {pad}.",
    ):
        assert not asks_no_motion(said), said


@given(colours, PADS, st.sampled_from(["push", "slide", "nudge"]), st.sampled_from([",", ";"]))
@settings(max_examples=20, deadline=None)
def test_a_bare_colour_before_an_arrow_is_that_cube(order, pad, verb, mark):
    a = order[0]
    assert arrow(f"{a} -> {pad}{mark} {verb} it") == f"push the {a} cube onto the {pad}."
    assert arrow(f"{a} \u2192 the {pad}{mark} carry it over") == f"put the {a} cube on the {pad}."
    assert arrow(f"it -> {pad}, {verb} it") == f"it -> {pad}, {verb} it"  # no cube named


@given(colours, PADS, NOUNS)
@settings(max_examples=20, deadline=None)
def test_a_pad_said_first_as_the_target_is_it(order, pad, noun):
    a, b, _ = order
    for said in (
        f"The {pad} is the destination - nudge the {a} {noun} over to it.",
        f"{pad.capitalize()}'s your goal; carry the {a} {noun} across onto it.",
        f"The aim is the {pad}: shove the {a} {noun} to it.",
    ):
        out = target_first(said)
        assert out.endswith(f"the {pad}.") and f"the {a} {noun}" in out, (said, out)
        assert "goal" not in out and "target" not in out, out
    # a step that names its place otherwise, or "it" the cube, keeps its words
    other = f"The {pad} is the target: put the {a} {noun} on the {b} cube."
    assert target_first(other) == other
    moved_it = f"The {pad} is the target: pick up the {a} {noun} and turn it."
    assert target_first(moved_it) == moved_it


@given(colours, PADS, st.sampled_from(["Ferry", "Shuttle", "Haul", "Lug", "Tote"]))
@settings(max_examples=10, deadline=None)
def test_a_verb_of_carrying_is_carry(order, pad, verb):
    a = order[0]
    text = plain_wording(f"{verb} the {a} box across and lay it down on the {pad}.", SCENE)
    assert text.lower().startswith(f"carry the {a} box"), text
    kept = plain_wording(f"Put the {a} box beside the {pad}, by the haul.", SCENE)
    assert "carry" not in kept.lower(), kept


@given(st.lists(table, min_size=3, max_size=3), NOUNS, st.sampled_from(["lies", "sits", "is"]))
@settings(max_examples=40, deadline=None)
def test_the_cube_farthest_from_your_base(spots, noun, verb):
    world = moved(spots)
    far = sorted((math.hypot(x, y), n) for n, (x, y, _) in world.objects.items())
    assume(far[-1][0] - far[-2][0] >= 0.02)
    said = f"whichever {noun} {verb} farthest from your base"
    answer = resolve_references(f"hover over {said}", world)
    assert dict(answer.resolved) == {said: far[-1][1]}, (spots, answer)


@given(
    st.tuples(st.floats(0.42, 0.52), st.floats(-0.12, 0.12)),
    st.floats(0.08, 0.14),
    st.floats(0.0, 2 * math.pi),
    st.floats(0.7, 3.0),
    st.floats(0.7, 3.0),
    NOUNS,
)
@settings(max_examples=60, deadline=None)
def test_between_the_other_two_with_none_inside_is_the_middle_left_to_right(
    centre, radius, start, gap1, gap2, noun
):
    assume(0.7 <= 2 * math.pi - gap1 - gap2 <= 3.0)  # every arc under a half: an acute triangle
    angles = (start, start + gap1, start + gap1 + gap2)
    spots = [(centre[0] + radius * math.cos(t), centre[1] + radius * math.sin(t)) for t in angles]
    world = moved(spots)
    cubes = world.objects

    def obtuse(n):
        x, y = cubes[n][:2]
        (ax, ay), (bx, by) = (cubes[c][:2] for c in cubes if c != n)
        return (ax - x) * (bx - x) + (ay - y) * (by - y) < 0.0

    assume(not any(obtuse(n) for n in cubes))
    by_y = sorted((p[1], n) for n, p in cubes.items())
    assume(min(by_y[1][0] - by_y[0][0], by_y[2][0] - by_y[1][0]) > 0.011)
    for where in ("between", "in the middle of"):
        said = f"the {noun} {where} the other two"
        answer = resolve_references(f"tap {said}", world)
        assert dict(answer.resolved) == {said: by_y[1][1]}, (spots, answer)


@given(colours, PADS, NOUNS)
@settings(max_examples=10, deadline=None)
def test_goes_on_a_place_then_the_way_alone_is_one_step(order, pad, noun):
    a = order[0]
    for said, verb in (
        (f"The {a} {noun} goes to the {pad}; pick it up.", "lift"),
        (f"The {noun} between the other two goes on the {pad} - slide it.", "slide"),
    ):
        out = rendered(said, COLOURS)
        assert out.startswith(f"{verb} the ") and out.endswith(f"onto the {pad}."), out
    kept = f"The {a} {noun} goes on the {pad}; lift it and go home."  # a step after it
    assert rendered(kept, COLOURS) == kept


@given(colours, PADS, NOUNS)
@settings(max_examples=10, deadline=None)
def test_a_cube_said_with_where_it_sits_is_named_by_its_colour(order, pad, noun):
    a, b, _ = order
    out = rendered(f"The {a} {noun} resting on {b} - lift it onto the {pad}.", COLOURS)
    assert out.startswith(f"The {a} {noun} -") and b not in out, out
    kept = f"Put the {a} {noun} sitting on {b} beside the {pad}."  # no topic: as said
    assert rendered(kept, COLOURS) == kept
    off = f"The {a} {noun} sitting on {b}: lift it off and set it on the {pad}."  # off what
    assert f"sitting on {b}" in rendered(off, COLOURS)


@given(PADS, NOUNS)
@settings(max_examples=10, deadline=None)
def test_a_cube_onto_a_pad_with_no_colour_is_asked(pad, noun):
    place = pad.split()[1]
    text, reading, asked = _read(f"{noun} onto {place} plz", SCENE)
    assert asked is not None and "cube" in asked.question.lower(), (text, reading.refusal)
    # a colour said keeps its reading: that cube on that pad
    text, reading, asked = _read(f"red {noun} onto {pad} plz", SCENE)
    assert asked is None and text.lower().startswith("put the red cube"), text


@given(colours, NOUNS, st.sampled_from(["two-block stack of", "two-box tower from", "pile of"]))
@settings(max_examples=20, deadline=None)
def test_a_tower_of_two_by_colours_alone(order, noun, frame):
    a, b, c = order
    assert two_high(f"Make a {frame} {a} and {b}, {a} on top.", COLOURS) == (
        f"Put the {a} cube on the {b} cube."
    )
    assert two_high(f"Build a {frame} {b} and {a}, with {a} at the top.", COLOURS) == (
        f"Put the {a} cube on the {b} cube."
    )
    three = f"Make a {frame} {a} and {b} and {c}, {a} on top."  # three cubes: not this rule
    assert two_high(three, COLOURS) == three


@given(colours, NOUNS, st.integers(10, 80), st.sampled_from(["Turn", "Rotate", "Twist"]))
@settings(max_examples=20, deadline=None)
def test_a_side_said_after_the_cube_signs_the_turn(order, noun, n, verb):
    a, b, _ = order
    for side, sign in (("right", -1), ("left", 1)):
        text, reading, asked = _read(f"{verb} the {a} {noun} {side} by {n} degrees.", SCENE)
        assert goal_angles(text) == [sign * n], (side, text)
    # "right of" names a cube, not a side of the turn: no sign from it
    assert goal_angles(f"Turn the {noun} right of the {b} cube by {n} degrees.") == [n]


@given(colours, PADS, NOUNS)
@settings(max_examples=10, deadline=None)
def test_but_not_before_puts_the_other_step_first(order, pad, noun):
    a, b, _ = order
    for said in (
        f"Hover over the {b} cube, but not before you slide the {a} {noun} onto the {pad}.",
        f"Return home, but not until you've set the {a} {noun} on the {pad}.",
    ):
        text, reading, asked = _read(said, SCENE)
        first, _, then = text.partition(", then ")
        assert f"the {a} {noun}" in first and then, (said, text)
