"""Descriptions that identify a cube, not command a move (:func:`miles_ros.agent.wording.
plain_wording` runs :func:`identified` after :func:`~miles_ros.agent.said_once.said_once`).
Grammar, not goals; each rule is a frame and what it means:

- "the C cube on (top of) / atop / sitting on the D one" heading a goal before a break
  (":", ";", ",", a dash) and a command on "it": the description names C ("the C cube that
  is on top of the D cube"; checked against the scene as before, refused where C is not on
  D), never a placing of C onto D ("there" or "off" after it, "... - put it there / lift it
  off", is left to the rules that read those);
- "the lower / lowest / bottom(most) / upper / uppermost / top(most) cube of the / that
  stack / pile / tower" is "the bottom / top cube of the stack"; "the upper cube" alone is
  "the top cube" (only one cube stands highest; "the lower / lowest cube" alone is left as
  said: two cubes may stand on the table, asked which);
- "the cube (that) it was (sitting / resting) on / it sat on / it came off" after a clause
  that moved the top cube of the scene's one standing tower of two: the cube under it;
- "make / build a tower / stack on D: C goes on it first, E (goes) on (the very) top" is "put
  C on D, then put E on C" (the tower's base is D, the order as said);
- "put / place ... C on / onto the ... pad, (and) then / after that V E on / onto it": "it"
  is the cube just placed (a cube is stacked on a cube; the pad now holds C): "on top of it".
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.scene_colours import cube_colours
from miles_ros.agent.towers import standing_towers
from miles_ros.agent.world import World

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"
_PAD = rf"(?:{'|'.join(PAD_NOUNS)})"
_BREAK = r"\s*(?:[:;,]|\s[-\u2013\u2014]+)\s*"
_OF_STACK = re.compile(
    rf"\b(?P<w>lower|lowest|bottom(?:most)?|upper|uppermost|top(?:most)?)\s+(?P<n>{_CUBE}|one)\s+"
    r"(?:of|in|from)\s+(?:the|that|this)\s+(?:stack|pile|tower)\b|"
    rf"(?<=\bthe\s)(?P<w2>upper|uppermost)\s+(?P<n2>{_CUBE}|one)\b",
    re.I,
)
_WAS_ON = re.compile(
    rf"\bthe\s+(?:{_CUBE}|one)\s+(?:that\s+|which\s+)?it\s+(?:was\s+(?:sitting\s+|resting\s+|"
    r"standing\s+|lying\s+)?on|had\s+been\s+(?:sitting\s+|resting\s+)?on|sat\s+on|rested\s+on|"
    r"stood\s+on|came\s+off(?:\s+of)?|was\s+on\s+top\s+of)\b",
    re.I,
)


def identified(text: str, world: World) -> str:
    """``text`` with a description that identifies a cube said as one (see the module)."""
    cubes = cube_colours(world)
    if not cubes:
        return text
    c = "|".join(sorted(cubes, key=len, reverse=True))
    text = _OF_STACK.sub(_stack_end, text)
    text = _was_on(text, world)
    text = re.sub(
        rf"^\s*(?:please\s+)?(?:make|build|stack|start)\s+(?:a|the)\s+(?:tower|stack|pile)\s+on\s+"
        rf"(?:the\s+)?(?P<d>{c})(?:\s+(?:{_CUBE}|one))?{_BREAK}(?:the\s+)?(?P<a>{c})(?:\s+(?:"
        rf"{_CUBE}|one))?\s+(?:goes\s+|is\s+)?on\s+(?:top\s+of\s+)?it(?:\s+first)?\s*,\s*(?:and\s+)?"
        rf"(?:then\s+)?(?:the\s+)?(?P<e>{c})(?:\s+(?:{_CUBE}|one))?\s+(?:goes\s+)?(?:(?:right\s+)?"
        r"(?:on|at)\s+(?:the\s+)?(?:very\s+)?top|on\s+top\s+of\s+(?:it|that))(?:\s+of\s+(?:it|that))?",
        lambda m: (
            f"put the {m['a']} cube on the {m['d']} cube, then put the {m['e']} cube on "
            f"the {m['a']} cube"
        ),
        text,
        flags=re.I,
    )
    return re.sub(
        rf"(?P<head>\b(?:put|place|set|stack|lift|move|get|bring|carry)\s+(?:the\s+)?(?:{c})"
        rf"(?:\s+(?:{_CUBE}|one))?\s+(?:down\s+)?(?:on|onto|to|over\s+to|across\s+to)\s+(?:the\s+)?"
        rf"[a-z]+\s+{_PAD}\b\s*[,;]?\s*(?:and\s+)?(?:then|after\s+that|next|afterwards)\s*,?\s+"
        rf"(?:put|place|set|stack|pile|lift|move)\s+(?:the\s+)?(?:{c})(?:\s+(?:{_CUBE}|one))?\s+)"
        r"(?:on|onto)\s+it\b",
        lambda m: f"{m['head']}on top of it",
        text,
        flags=re.I,
    )


def seat_named(text: str, world: World) -> str:
    """ "The C cube on (top of) the D one - V it ...": "the C cube that is on top of the D
    one - V it ..." (see the module; :func:`miles_ros.agent.negation.read_in_scope` runs it
    before the seat is checked against the scene)."""
    cubes = cube_colours(world)
    if not cubes:
        return text
    c = "|".join(sorted(cubes, key=len, reverse=True))
    text = re.sub(
        rf"^(?P<np>\s*the\s+(?:{c})\s+(?:{_CUBE}|one))\s+(?:(?:sitting|resting|standing)\s+)?"
        rf"(?:on\s+top\s+of|on|atop)\s+(?:the\s+)?(?P<d>{c})(?:\s+(?:{_CUBE}|one))?(?P<b>{_BREAK})"
        r"(?=[a-z]+\s+it\b)(?![^.!?]*\b(?:there|off)\b)",
        lambda m: f"{m['np']} that is on top of the {m['d']} one{m['b']}",
        text,
        flags=re.I,
    )
    return text


def _stack_end(m: re.Match) -> str:
    """ "the lower cube (of the stack)": "the bottom cube (of the stack)"; "upper": "top"."""
    w = m["w"] or m["w2"]
    end = "bottom" if w.lower().startswith(("low", "bot")) else "top"
    return f"{end} {m['n']} of the stack" if m["w"] else f"{end} {m['n2']}"


def _was_on(text: str, world: World) -> str:
    """ "the cube it was on" where the scene has one tower of two: its bottom cube."""
    if not _WAS_ON.search(text):
        return text
    towers = standing_towers(world)
    if len(towers) != 1 or len(towers[0]) != 2:
        return text
    return _WAS_ON.sub(f"the {towers[0][0].split('_')[0]} cube", text)
