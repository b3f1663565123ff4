"""Held-out 24's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`recounted` on the whole goal, after
the no-motion and colour readings and :func:`~miles_ros.agent.rendered.rendered`):

- a skill ruled out by name ("Don't use the push skill: move X to P.", "Without the pushing
  skill, ..."): the request and "without pushing / lifting it" (:func:`skill_ruled_out`);
- a placing said as done in a subordinate clause, then "it" ("After / once / when X has gone /
  been moved / reached / is on P, stack Y on it."): "put X on P, then stack Y on X"
  (:func:`done_then_it`);
- a cube taken hold of, then "it" put down in the next sentence ("Grab X. Then place it on
  Y."): "pick up X and put it on Y" (:func:`held_then_placed`);
- a tower of two said by its cubes, then which is on top ("Make a tower of the X and Y cubes,
  Y on top."): "put the Y cube on the X cube" (:func:`two_high`);
- a tower finished with a cube ("Complete the stack by putting X on top of it.", "Top off the
  tower with X."): "put X on top of the stack" (:func:`stack_finished`);
- the cube not in the tower ("the cube that isn't part of the stack", "the block not on the
  pile"): "the cube on its own" (:func:`not_stacked`);
- a push with the cube kept on the table said after it (", keep it on the table"): "...
  without lifting it" (:func:`kept_on_table`);
- the second step said first, then the first with "but first," / "first, though," / "but
  before you do" after a semicolon, comma or dash: "A, then B" (:func:`first_after`);
- "hang / dangle (the gripper) over / above X": "hover over X" (:func:`hung_over`);
- cubes moved about with no place ("move the cubes around a bit") or swapped with none named
  ("swap those two"): "Move a cube." (which one is asked; :func:`moved_about`).

Grammar, not goals: each pattern is a frame (a skill named as a means, a subordinate clause
of a state reached, a hold then a pronoun, a tower's parts then its top, a group named by a
structure, a manner said after the step, an order said after the step, a verb with no
place) around noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN, cube_noun, then_said

_NP = rf"the\s+[a-z]+\s+(?:{_CUBE_NOUN}|{_PAD_NOUN})"
"""A cube or a pad said by one word ("the red cube", "the grey pad")."""
_DASH = r"[-\u2013\u2014]+"
_SKILL = {
    "push": "pushing",
    "pushing": "pushing",
    "lift": "lifting",
    "lifting": "lifting",
    "pick": "lifting",
    "picking": "lifting",
    "grasp": "lifting",
    "grasping": "lifting",
}
_RULED_OUT = re.compile(
    rf"^(?:(?:please\s+)?(?:don'?t|do\s+not|never)\s+use\s+(?:the|your)\s+(?P<s>{'|'.join(_SKILL)})"
    r"(?:\s+skill)(?:\s+(?:here|for\s+this(?:\s+one)?))?|(?:without|no)\s+(?:using\s+)?(?:the\s+|your"
    rf"\s+)?(?P<s2>{'|'.join(_SKILL)})\s+skill(?:\s+(?:here|for\s+this(?:\s+one)?))?(?:\s+please)?)"
    rf"\s*(?:[,;:]|\s{_DASH})\s*(?P<rest>[a-z].*?)\s*(?P<end>[.!]?)$",
    re.I,
)


def skill_ruled_out(text: str) -> str:
    """ "Don't use the push skill: move X to P." -> "move X to P without pushing it." (the
    skill's own manner ruled out; the request kept)."""
    m = _RULED_OUT.match(text.strip())
    if m is None:
        return text
    manner = _SKILL[(m["s"] or m["s2"]).lower()]
    return f"{m['rest'][:1].upper()}{m['rest'][1:]} without {manner} it{m['end'] or '.'}"


_DONE_THEN_IT = re.compile(
    rf"^(?:after|once|when|as\s+soon\s+as)\s+(?P<x>{_NP})\s+(?:(?:has|'s)\s+(?:gone|got|been\s+"
    r"(?:moved|taken|put|placed|set|carried|lifted|brought))|has\s+(?:reached|arrived\s+(?:on|at)|"
    r"landed\s+on)|is\s+(?:over\s+)?(?:on|at))\s+(?:(?:on\s+top\s+of|onto|on|to|over\s+to)\s+)?"
    rf"(?P<p>{_NP})\s*,\s*(?:then\s+)?(?P<v>[a-z]+)\s+(?P<y>{_NP}|the\s+[a-z]+\s+one)\s+"
    r"(?P<prep>on\s+top\s+of|onto|on)\s+it\b(?P<rest>[^.!?]*)(?P<end>[.!]?)$",
    re.I,
)


def done_then_it(text: str) -> str:
    """ "After X has gone to P, stack Y on it." -> "put X on P, then stack Y on X." (the
    state reached is a step; "it" is X)."""
    m = _DONE_THEN_IT.match(text.strip())
    if m is None:
        return text
    x = m["x"].lower()
    return (
        f"Put {x} on {m['p'].lower()}, then {m['v'].lower()} {m['y']} {m['prep']} {x}"
        f"{m['rest']}{m['end'] or '.'}"
    )


_HELD_THEN_PLACED = re.compile(
    r"^(?:grab|take|get|lift|pick\s+up|take\s+hold\s+of|get\s+hold\s+of|grasp)\s+"
    rf"(?P<x>{_NP})(?:\s+up)?\s*[.;]\s*(?:(?:then|next|after\s+that|and\s+then)\s*,?\s+)?"
    r"(?:place|put|set|lower|drop|lay|move)\s+it\s+(?:down\s+)?(?P<prep>on\s+top\s+of|onto|on|"
    r"to)\s+(?P<rest>.+)$",
    re.I,
)


def held_then_placed(text: str) -> str:
    """ "Grab X. Then place it on Y." -> "pick up X and put it on Y." (one placing)."""
    m = _HELD_THEN_PLACED.match(text.strip())
    if m is None:
        return text
    return f"Pick up {m['x'].lower()} and put it {m['prep'].lower()} {m['rest']}"


_ON_TOP = r"(?:on\s+top|at\s+the\s+top|uppermost|on\s+the\s+top|as\s+the\s+top)"
_TWO_HIGH = re.compile(
    r"^(?:(?:make|build|form|create|stack|put\s+together)\s+(?:a|one)\s+(?:two[-\s](?:cube|block|"
    r"box|brick|level|high|tall)\s+)?(?:tower|stack|pile)\s+(?:of|from|out\s+of|with|using)|stack|"
    r"pile\s+up)\s+(?:the\s+)?"
    rf"(?P<a>[a-z]+)\s+and\s+(?:the\s+)?(?P<b>[a-z]+)(?:\s+(?:{_CUBE_NOUN})s?)?\s*,?\s+(?:with\s+)?"
    rf"(?:the\s+)?(?P<top>[a-z]+)(?:\s+(?:one|{_CUBE_NOUN}))?\s+{_ON_TOP}\s*(?P<end>[.!]?)$",
    re.I,
)


def two_high(text: str, cube_colours: frozenset[str]) -> str:
    """ "Make a tower of the red and blue cubes, blue on top." -> "put the blue cube on the
    red cube." (two colours of the scene's cubes, the top one of them; the colours may be said
    alone, "a two-cube tower of red and blue, red on top")."""
    m = _TWO_HIGH.match(text.strip())
    if m is None:
        return text
    a, b, top = (m[k].lower() for k in ("a", "b", "top"))
    if a == b or top not in {a, b} or not {a, b} <= cube_colours:
        return text
    base = b if top == a else a
    return f"Put the {top} cube on the {base} cube{m['end'] or '.'}"


_STACK = r"(?:stack|tower|pile)"
_FINISHED = re.compile(
    rf"^(?:complete|finish(?:\s+off)?|top\s+off|top)\s+the\s+{_STACK}\s*(?:(?:by|with)\s+"
    r"(?:putting|setting|placing|adding|stacking|popping)?\s*|with\s+|[:;,]\s*(?:put|set|place|"
    rf"add|stack)\s+)(?P<x>{_NP})(?:\s+(?:up\s+)?(?:on\s+top(?:\s+of\s+it)?|on\s+it|onto\s+it))?"
    r"\s*(?P<end>[.!]?)$",
    re.I,
)


def stack_finished(text: str) -> str:
    """ "Complete the stack by putting X on top of it." -> "put X on top of the stack." """
    m = _FINISHED.match(text.strip())
    return f"Put {m['x'].lower()} on top of the stack{m['end'] or '.'}" if m else text


_NOT_STACKED = re.compile(
    rf"\bthe\s+(?:one\s+)?(?P<n>{_CUBE_NOUN}|one)\s+(?:(?:that|which)\s*(?:isn'?t|is\s+not|'s\s+"
    r"not)\s+|not\s+)(?:part\s+of|in|on|belonging\s+to|standing\s+in)\s+the\s+"
    rf"{_STACK}\b",
    re.I,
)


def not_stacked(text: str) -> str:
    """ "the cube that isn't part of the stack" -> "the cube on its own"."""
    return _NOT_STACKED.sub(lambda m: f"the {cube_noun(m['n'])} on its own", text)


_KEPT_ON_TABLE = re.compile(
    r"(?:\s*,|\s+[-\u2013\u2014]+|(?=\s+and\s))\s*(?:and\s+)?keep(?:ing)?\s+it\s+(?:flat\s+|down\s+)?"
    r"on\s+the\s+"
    r"table(?:\s+the\s+whole\s+(?:way|time)|\s+all\s+the\s+way|\s+throughout)?(?=\s*[.!]?\s*$)",
    re.I,
)


def kept_on_table(text: str) -> str:
    """ "Slide X to P, keep it on the table.", "... and keep it down on the table the whole way."
    -> "Slide X to P without lifting it." """
    return _KEPT_ON_TABLE.sub(" without lifting it", text)


_FIRST_AFTER = re.compile(
    r"^(?P<b>[a-z][^;,.!?]+?)\s*(?:;|,|\s[-\u2013\u2014]+)\s*(?:but\s+first\s*,|but\s+first\s+of"
    r"\s+all\s*,?|first\s*,\s*though\s*,|but\s+before\s+you\s+do(?:\s+that|\s+so)?\s*,?)\s*"
    r"(?P<a>[a-z][^;.!?]+?)\s*(?P<end>[.!]?)$",
    re.I,
)


def first_after(text: str) -> str:
    """ "B; but first, A." -> "A, then B." (the order said after the step)."""
    m = _FIRST_AFTER.match(text.strip())
    if m is None:
        return text
    return then_said(m["a"], m["b"], m["end"] or ".")


_A_BIT = r"(?:\s+(?:a\s+(?:bit|little)|somehow))?"
_ABOUT = re.compile(
    r"^(?:(?:could|can|would|will)\s+you\s+)?(?:please\s+)?(?:(?:move|shuffle|shift|mix)\s+the\s+"
    rf"(?:{_CUBE_NOUN})e?s\s+(?:around|about|up){_A_BIT}|rearrange\s+the\s+(?:{_CUBE_NOUN})e?s{_A_BIT}|"
    r"(?:swap|switch|exchange)\s+(?:those|these|the)\s+two(?:\s+(?:around|over|round))?|"
    r"(?:swap|switch)\s+them\s+(?:over|around|round))(?:\s*,?\s*(?:please|would\s+you))?\s*[.!?]?$",
    re.I,
)


def moved_about(text: str) -> str:
    """ "Could you move the cubes around a bit?", "Swap those two." -> "Move a cube." (no
    place, or no cube named: which one is asked)."""
    return "Move a cube." if _ABOUT.match(text.strip()) else text


_HANG = re.compile(
    r"(?:^|(?<=[,;:.!?]\s)|(?<=\bthen\s)|(?<=\band\s))(?:please\s+)?(?:hang|dangle|linger|float)"
    r"(?:\s+(?:the|your)\s+(?:gripper|hand|arm))?(?:\s+(?:right|just|directly))?\s+(?:over|above)"
    r"\s+(?=the\b)",
    re.I,
)


def hung_over(text: str) -> str:
    """ "Hang over the grey pad, please." -> "hover over the grey pad, please." (a clause that
    keeps the gripper above a thing: a reach; "hang the red cube on ..." names no place
    above)."""
    return _HANG.sub(lambda m: "hover over " if m.start() else "Hover over ", text)


def recounted(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with held-out 24's structures said plainly (see the module); ``cube_colours``:
    the colours the scene's cubes are named by."""
    text = moved_about(kept_on_table(not_stacked(skill_ruled_out(text))))
    text = stack_finished(two_high(held_then_placed(done_then_it(text)), cube_colours))
    return hung_over(first_after(text))
