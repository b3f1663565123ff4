"""A manner of moving a cube ruled out before the request, in any of its wordings ("don't
use pushing", "no sliding, please", "avoid / without (any) shoving it", "don't go for a
lift"; :func:`~miles_ros.agent.clause_corrections._ways_ruled_out`): the reading forbids
every step of that manner, so no plan the planner returns has one. Wordings no eval set and
no ``bench/planner_grammar.py`` transformation says, drawn by hypothesis, and look-alikes
that keep their reading. Reading only: no planner run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.evaluation import parse_step
from tests.agent.reading_harness import SHIPPED, _read, _said

_RULED_OUT = {
    "push": ("pushing", "sliding", "shoving", "nudging", "dragging"),
    "pick_place": ("lifting", "picking it up", "raising it", "carrying it"),
}
"""The skill a manner names, and gerunds that say the manner."""
_OPENERS = (
    "Don't use {g}; ",
    "No {g}, please: ",
    "Avoid {g} - ",
    "Without any {g}, ",
    "Steer clear of {g}; ",
    "Refrain from {g}: ",
)
_REQUESTS = (
    "bring the {c} cube over to the {p} pad.",
    "move the {c} box to the {p} tile.",
    "have the {c} cube end up on the {p} pad.",
    "take the {c} block onto the {p} mat.",
)


@given(
    st.sampled_from(sorted(_RULED_OUT)),
    st.data(),
    st.sampled_from(_OPENERS),
    st.sampled_from(_REQUESTS),
    st.sampled_from(["red", "green", "blue"]),
    st.sampled_from([("yellow", "left_pad"), ("grey", "right_pad")]),
)
@settings(max_examples=12, deadline=None)
def test_a_manner_ruled_out_first_is_never_a_step(skill, data, opener, request, colour, pad):
    gerund = data.draw(st.sampled_from(_RULED_OUT[skill]))
    goal = (opener.format(g=gerund) + request.format(c=colour, p=pad[0])).capitalize()
    text, reading, asked = _read(goal)
    assert reading.refusal is None and asked is None, (goal, text, reading.refusal)
    step = parse_step(f"{skill} {colour}_cube {pad[1]}")
    assert reading.violation(step, SHIPPED), (goal, text)
    other = parse_step(
        f"{'push' if skill == 'pick_place' else 'pick_place'} {colour}_cube {pad[1]}"
    )
    assert reading.violation(other, SHIPPED) is None, (goal, text)


def test_look_alikes_keep_their_reading():
    for said, want in (
        ("Don't use the grey pad; put the red cube on the yellow pad.", "don't use the right pad"),
        ("Don't push it, lift it: the red cube onto the left pad.", "don't push it, lift it"),
        ("Avoid the grey pad: put the red cube on the yellow pad.", "avoid the right pad"),
    ):
        assert _said(_read(said)[0]).startswith(want), said


_TAILS = (", and don't {v} it.", ", no {g} allowed.", " - no {g}, please.", ", but never {v} it.")
_RULED_OUT_AFTER = {
    "push": (("push", "pushing"), ("slide", "sliding")),
    "pick_place": (("carry", "carrying"), ("lift", "lifting"), ("pick", "picking")),
}
"""The skill a manner names, and (verb, gerund) pairs that say it after the request."""


@given(
    st.sampled_from(sorted(_RULED_OUT_AFTER)),
    st.data(),
    st.sampled_from(_TAILS),
    st.sampled_from(["red", "green", "blue"]),
    st.sampled_from([("yellow", "left_pad"), ("grey", "right_pad")]),
)
@settings(max_examples=12, deadline=None)
def test_a_manner_ruled_out_after_the_request_is_never_a_step(skill, data, tail, colour, pad):
    """A manner said after the request: "Move X to P, and don't carry it", "..., no lifting
    allowed" (held-out 29's blind run planned a lift for both; in other words here)."""
    verb, gerund = data.draw(st.sampled_from(_RULED_OUT_AFTER[skill]))
    goal = f"Shift the {colour} cube over to the {pad[0]} pad" + tail.format(v=verb, g=gerund)
    text, reading, asked = _read(goal)
    assert reading.refusal is None and asked is None, (goal, text, reading.refusal)
    assert reading.violation(parse_step(f"{skill} {colour}_cube {pad[1]}"), SHIPPED), goal
    other = "push" if skill == "pick_place" else "pick_place"
    assert reading.violation(parse_step(f"{other} {colour}_cube {pad[1]}"), SHIPPED) is None


_BETWEEN = ("you ", "ever ", "you dare ", "you ever ", "once ", "at any point ")
_NEGATED = (", but don't {w}{v} it.", ", and do not {w}{v} it there.", " without {w}{g} it.")


@given(
    st.sampled_from(sorted(_RULED_OUT_AFTER)),
    st.data(),
    st.sampled_from(_BETWEEN),
    st.sampled_from(_NEGATED),
    st.sampled_from(["red", "green", "blue"]),
    st.sampled_from([("yellow", "left_pad"), ("grey", "right_pad")]),
)
@settings(max_examples=12, deadline=None)
def test_words_between_the_negation_and_the_verb_keep_the_prohibition(
    skill, data, between, negated, colour, pad
):
    """A pronoun or an adverb between the negation and the manner's verb ("don't you push
    it", "without ever lifting it": held-out 30's blind run planned the manner ruled out;
    in other words here)."""
    verb, gerund = data.draw(st.sampled_from(_RULED_OUT_AFTER[skill]))
    goal = f"Get the {colour} cube across to the {pad[0]} mat" + negated.format(
        w=between, v=verb, g=gerund
    )
    text, reading, asked = _read(goal)
    assert reading.refusal is None and asked is None, (goal, text, reading.refusal)
    assert reading.violation(parse_step(f"{skill} {colour}_cube {pad[1]}"), SHIPPED), goal
    other = "push" if skill == "pick_place" else "pick_place"
    assert reading.violation(parse_step(f"{other} {colour}_cube {pad[1]}"), SHIPPED) is None
