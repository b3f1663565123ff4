"""The structures held-out 36 showed, read generally in the modules that own them: a tower said
as pairs, or with no verb, or "from the bottom up" (:mod:`~miles_ros.agent.towers`,
:mod:`~miles_ros.agent.clause_frames`), a side straight after a turn's amount
(:mod:`~miles_ros.agent.turns`), one negation over a lift "or" a push
(:mod:`~miles_ros.agent.goal_manners`), "now put X on it" with nothing for "it" to name
(:mod:`~miles_ros.agent.retold`), no motion in other words (:mod:`~miles_ros.agent.no_motion`),
", leaving X alone" after a request (:mod:`~miles_ros.agent.still`) and the arm's end swung
somewhere (:mod:`~miles_ros.agent.wording`). Each in wordings no eval set and no
``bench/planner_grammar.py`` transformation says (boxes, bricks, tiles), with colours, amounts
and cubes moved by hypothesis where the scene decides, and look-alikes that must keep their
reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.towers import read_tower
from miles_ros.agent.turns import turn_sequence, turn_text
from tests.agent.reading_harness import SCENE, SHIPPED, _read, colours, moved, read_like, table


def _planned(said: str, world=SCENE) -> str:
    text, reading, asked = _read(said, world)
    assert reading.refusal is None and asked is None, (said, text, reading.refusal, asked)
    return text.lower()


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_tower_said_as_pairs_or_bottom_up_is_built_bottom_first(order):
    t, m, b = order
    want = (f"{b}_cube", f"{m}_cube", f"{t}_cube")
    for said in (
        f"Make a tower - {m} box on the {b} box, {t} box on top.",
        f"Build a pile: the {m} brick on top of the {b} brick, the {t} brick on top.",
        f"A three-level pile: {b}, {m}, {t}.",
    ):
        assert read_tower(said, SCENE).order == want, said
    steps = f"put the {m} cube on the {b} cube, then put the {t} cube on the {m} cube"
    for said in (
        f"Three-storey pile: {b}, {m}, {t} from the bottom up.",
        f"Tower of bricks - {b}, {m} and {t}, bottom to top.",
    ):
        assert steps in _planned(said), said
    # look-alikes: levels said by name, a tower said top down, each pair named with its verb
    assert read_tower(f"Build a tower: {b}, then {m}, then {t} on top.", SCENE).order == want
    assert read_tower(f"Build one tower, {t} on top of {m} on top of {b}.", SCENE).order == want
    said = f"Put the {m} box on the {b} box, then the {t} box on the {m} box."
    assert read_tower(said, SCENE).order == ()


@given(colours, st.sampled_from([15, 20, 35, 40]), st.sampled_from(["left", "right"]))
@settings(max_examples=8, deadline=None)
def test_a_side_straight_after_the_amount_signs_the_turn(order, n, side):
    a = order[0]
    world = moved([(0.45, -0.1), (0.5, 0.05), (0.4, 0.15)])
    sign = 1.0 if side == "left" else -1.0
    for said in (
        f"Rotate the {a} brick {n} degrees {side}.",
        f"Twist the {a} box by {n} deg {side}, please.",
    ):
        text = turn_text(said, SHIPPED)
        assert turn_sequence(text, world) == [(f"{a}_cube", sign * n)], (said, text)
    # look-alikes: "right now" is no side; a side of a thing is no side of the turn
    text = turn_text(f"Turn the {a} box {n} degrees right now.", SHIPPED)
    assert turn_sequence(text, world) == [(f"{a}_cube", float(n))]


@given(colours)
@settings(max_examples=6, deadline=None)
def test_one_negation_over_a_lift_or_a_push_is_refused(order):
    a = order[0]
    for said in (
        f"Carry the {a} brick to the grey tile without sliding or lifting it.",
        f"Get the {a} box onto the yellow tile, but don't pick it up or shove it.",
        f"Set the {a} brick on the grey tile with neither pushing nor raising it.",
    ):
        _, reading, asked = _read(said)
        assert asked is None and "lifting it and pushing it" in (reading.refusal or ""), said
    # look-alikes: two words of one way; a hover; a prohibition said first
    _, reading, _ = _read(f"Put the {a} box on the grey tile without lifting or picking it up.")
    assert reading.refusal is None and ("grasps", f"{a}_cube") in reading.forbid
    for said in (
        f"Put the {a} brick on the grey tile without pushing or shoving it.",
        f"Hover over the {a} box without pushing or lifting it.",
        f"Don't push or lift the {a} brick; hover over it.",
    ):
        assert _read(said)[1].refusal is None, said


@given(colours)
@settings(max_examples=6, deadline=None)
def test_it_with_nothing_to_name_is_asked(order):
    a, b, c = order
    for said in (f"Now stack the {a} brick on top of it.", f"Then, set the {a} box onto it."):
        _, reading, asked = _read(said)
        assert reading.refusal is None and asked is not None, said
        assert sorted(asked.options) == sorted([f"{b}_cube", f"{c}_cube"]), said
    # look-alike: "it" names the cube said before
    text = _planned(f"Put the {b} box on the grey tile. Now put the {a} box on it.")
    assert f"the {a} box on it" in text or f"on the {b}" in text


@given(colours)
@settings(max_examples=4, deadline=None)
def test_no_motion_in_other_words_plans_nothing(order):
    a, b, _ = order
    for said in (
        "Hold still a second, robot.",
        "Forget that - no movement at all.",
        "Leave everything on the table just as it is, please.",
        f"Please do not shift the {a} brick at all.",
    ):
        assert _read(said)[1].nothing, said
    # look-alikes: a prohibition beside a request; a part naming a thing
    for said in (
        f"Don't touch the {a} brick; push the {b} brick onto the grey tile.",
        f"No moves on the {a} box.",
    ):
        assert not _read(said)[1].nothing, said


@given(colours, table, table)
@settings(max_examples=6, deadline=None)
def test_leaving_the_others_alone_keeps_the_request(order, p, q):
    a, b, c = order
    world = SCENE.copy()
    world.objects = {f"{a}_cube": (0.45, 0.0, 0.02), f"{b}_cube": (*p, 0.02)}
    world.objects[f"{c}_cube"] = (*q, 0.02)
    plain = f"Carry the {a} brick to the grey tile, and leave the other two alone."
    for said in (
        f"Carry the {a} brick to the grey tile, leaving the other two alone.",
        f"Carry the {a} brick to the grey tile while leaving the others where they are.",
    ):
        _, reading, _ = read_like(plain, [said], world)[0]
        assert reading.refusal is None or "leaving" not in reading.refusal, said


@given(colours)
@settings(max_examples=4, deadline=None)
def test_the_arm_swung_over_a_cube_is_a_reach(order):
    a = order[0]
    read_like(
        f"Move your gripper round till it's right above the {a} brick.",
        [f"Swing your gripper round till it's right above the {a} brick."],
    )
    # look-alike: a cube swung is no skill
    assert _read(f"Swing the {a} box onto the grey tile.")[1].refusal


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_pads_colour_said_again_and_a_placings_manner_keep_the_placing(order):
    a, b, _ = order
    read_like(
        f"Set the {a} brick on the grey tile.",
        [
            f"Set the {a} brick on the grey tile - the grey, not the yellow.",
            f"Set the {a} brick on the grey tile, I mean the grey one, not the yellow one.",
        ],
    )
    read_like(
        f"Pile the {a} brick on the {b} brick.",
        [f"Pile the {a} brick on the {b} brick, nice and tidy."],
    )
    # look-alikes: another colour after the place is no restatement; a turn keeps "square"
    _, reading, _ = _read(f"Set the {a} brick on the grey tile - the yellow, not the grey.")
    assert reading.refusal is not None
    text = _read(f"Turn the {a} box, nice and square.")[0].lower()
    assert "square" in text


@given(colours)
@settings(max_examples=6, deadline=None)
def test_a_cube_and_a_pad_named_alone_then_v_it_there(order):
    a, b, _ = order
    for said, verb, pad in (
        (f"{a} brick, yellow tile. carry it there", "carry", "left"),
        (f"the {a} box, grey tile - set it there.", "set", "right"),
    ):
        text = _planned(said)
        assert f"{verb} the {a}" in text and f"the {pad} pad" in text, (said, text)
    # look-alike: two cubes named alone, then "it there": where is not said, asked
    _, reading, asked = _read(f"{a} brick, {b} brick. stack it there")
    assert asked is not None or reading.refusal is not None
