"""Round 49's general reading of verbs no skill does (held-out 42's repertoire misses, issue
31): a part of a cube as the object ("sand down the edges of the X cube"), "in / into" before
a bare noun that says no place ("wrap the X cube in tape"), and a verb made of a prefix and
an action no skill does ("superglue"). Reading only (verb_refusal), in fresh wordings, with
look-alikes that must stay plans."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.goal_clauses import split_clauses
from miles_ros.agent.reading import _plain
from miles_ros.agent.reframed import unstacked
from miles_ros.agent.repertoire import verb_refusal
from miles_ros.agent.wording import plain_wording
from tests.agent.reading_harness import SCENE, SHIPPED, colours

NOUNS = st.sampled_from(["cube", "block", "box", "brick"])


def _refused(goal: str) -> str | None:
    return verb_refusal(split_clauses(_plain(goal)), SHIPPED)


@given(colours, NOUNS, st.sampled_from(["edges", "corners", "top", "faces"]))
@settings(max_examples=20, deadline=None)
def test_a_part_of_a_cube_done_by_a_verb_no_skill_does(order, noun, part):
    a = order[0]
    for verb in ("Chamfer", "Grind down", "Round off"):
        why = _refused(f"{verb} the {part} of the {a} {noun}.")
        assert why and why.startswith("no skill can "), (verb, why)


@given(colours, NOUNS, st.sampled_from(["cling film", "foil", "half", "thirds"]))
@settings(max_examples=20, deadline=None)
def test_in_a_bare_noun_is_no_place(order, noun, what):
    a = order[0]
    for verb in ("Swaddle", "Encase", "Cleave"):
        why = _refused(f"{verb} the {a} {noun} in {what}.")
        assert why and why.startswith("no skill can "), (verb, why)


@given(colours)
@settings(max_examples=10, deadline=None)
def test_a_prefixed_action_is_that_action(order):
    a, b = order[0], order[1]
    for verb in ("Superglue", "Repaint", "Hotglue"):
        why = _refused(f"{verb} the {a} cube onto the {b} cube.")
        assert why and why.startswith("no skill can "), (verb, why)


@given(colours, NOUNS, st.sampled_from(["yellow pad", "grey mat", "left pad"]))
@settings(max_examples=20, deadline=None)
def test_look_alikes_stay_plans(order, noun, pad):
    a, b = order[0], order[1]
    kept = [
        f"Put the {a} {noun} in front of the {b} {noun}.",
        f"Pop the {a} {noun} onto the {pad}.",
        f"Set the {a} {noun} down in line with the {b} one.",
        f"Nudge the {a} {noun} into the middle of the {pad}.",
        f"Hover over the top of the {a} {noun}.",
        f"Lift the {a} {noun} off the top of the {b} {noun} and put it on the {pad}.",
        f"Turn the {a} {noun} so one of its faces points at you.",
        f"Remove the {a} {noun} from the {b} {noun} and set it on the {pad}.",
    ]
    for goal in kept:
        assert _refused(goal) is None, goal


@given(colours, NOUNS, st.sampled_from(["yellow pad", "grey mat", "right pad"]))
@settings(max_examples=15, deadline=None)
def test_a_cube_taken_off_another_said_by_colours(order, noun, pad):
    a, b = order[0], order[1]
    for verb in ("Lift", "Take", "Get", "Pick"):
        for off in ("off", "off the top of"):
            for x, y in ((a, b), (f"the {a} {noun}", f"the {b} one")):
                said = unstacked(
                    plain_wording(
                        f"{verb} {x} {off} {y}, then set it on the {pad}.", SCENE
                    ).lower()
                )
                assert said.startswith(f"take the {a} "), said
                assert f"off the {b} cube" in said, said


def test_taken_off_look_alikes_are_kept():
    for said in (
        "take the red cube off the left pad",
        "lift the red cube off the table",
        "get red off the top of the tower",
        "take the lid off the box",
    ):
        assert "cube off the" not in unstacked(said).replace(said, ""), said
        assert unstacked(said).startswith(said.split(" off ")[0]), said


@given(colours, NOUNS, st.sampled_from(["over", "above"]))
@settings(max_examples=15, deadline=None)
def test_hang_over_is_a_hover(order, noun, prep):
    a = order[0]
    for lead in ("", "Just ", "Please "):
        said = plain_wording(f"{lead}hang {prep} the {a} {noun}.", SCENE).lower()
        assert f"hover over the {a}" in said or f"hover {prep} the {a}" in said, said
    for kept in ("Hang on, put the red cube on the left pad.", "Hang the picture up."):
        assert "hover" not in plain_wording(kept, SCENE).lower(), kept
