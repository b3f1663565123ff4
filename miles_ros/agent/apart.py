"""Cubes moved as a group, said as the placings one by one, in an order the cubes allow
(:func:`miles_ros.agent.wording.plain_wording` runs these first):

==================================================================  ============================
the goal says                                                       said as
==================================================================  ============================
"take the tower apart (from the top down): top one on P, the        "put the <top> on P, then put
middle one on Q" / "dismantle the stack - red on P, green on Q"     the <next> on Q" (top first,
                                                                    whatever order said)
"grab them both / the pair of them, the A and the B, and put them   "put the A cube on P, then put
on P"                                                               the B cube on P"
==================================================================  ============================

A tower's cubes are read off the scene: the cubes standing on one another (the same x, y
within 2 cm), ordered by height, so "top", "middle", "bottom", "the next one (down)" and
"the one under it" name one. Anything the scene does not decide (no tower, a word naming no
cube of it, a cube twice) is left as said.
"""

from __future__ import annotations

import math
import re

from miles_ros.agent.phrases import CUBE_NOUNS
from miles_ros.agent.scene_colours import CUBE_COLOUR
from miles_ros.agent.world import World

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)}|one)"
_PLACE = r"the\s+\w+\s+(?:pad|mat)"
_APART = re.compile(
    r"^(?:(?:take|pull|break)\s+(?:the\s+(?:tower|stack|pile)|it)\s+apart|"
    r"(?:dismantle|unstack|disassemble)\s+(?:the\s+(?:tower|stack|pile)|it)|"
    r"take\s+(?:the\s+(?:tower|stack|pile)|it)\s+down)"
    r"(?:\s*,?\s*(?:(?:from\s+)?(?:the\s+)?top(?:\s+(?:down|to\s+(?:the\s+)?bottom|first))?|"
    r"one\s+(?:by|at\s+a)\s+(?:one|time|cube)))?\s*(?:[:;,]|\s[-\u2013\u2014]+)\s*(?P<rest>.+?)"
    r"\s*(?P<end>[.!?]?)$",
    re.I,
)
_PART_SPLIT = re.compile(r"\s*(?:[,;]\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+)")
_PART = re.compile(
    r"^(?:first\s+|next\s+|after\s+that\s+)?(?:(?:put|move|place|lift|take|set)\s+)?"
    rf"(?P<what>(?:the\s+)?(?:top|middle|bottom|next|{CUBE_COLOUR})(?:\s+{_CUBE})?"
    r"(?:\s+(?:down|under(?:neath)?\s+it|beneath\s+it|below\s+it))?|the\s+one\s+(?:under(?:neath)?"
    r"|beneath|below)\s+it)\s+(?:goes\s+|go\s+)?(?:on\s+top\s+of|onto|on|over\s+to|to)\s+"
    rf"(?P<place>{_PLACE})(?:\s+first)?$",
    re.I,
)


def _tower(world: World) -> list[str]:
    """The scene's cubes standing on one another, top first ([] without a tower of two or
    more, or with cubes beside it on the same spot twice)."""
    cubes = world.objects
    for base, p in cubes.items():
        stack = sorted(
            (n for n, q in cubes.items() if math.dist(p[:2], q[:2]) < 0.02),
            key=lambda n: -cubes[n][2],
        )
        if len(stack) >= 2 and stack[-1] == base:
            return stack
    return []


def _named(what: str, tower: list[str], last: str | None) -> str | None:
    words = what.lower().split()
    for colour in ("red", "green", "blue"):
        if colour in words:
            name = f"{colour}_cube"
            return name if name in tower else None
    if "top" in words:
        return tower[0]
    if "bottom" in words:
        return tower[-1]
    if "middle" in words:
        return tower[1] if len(tower) == 3 else None
    if ("next" in words or "it" in words) and last in tower:
        i = tower.index(last) + 1
        return tower[i] if i < len(tower) else None
    return None


def taken_apart(text: str, world: World) -> str:
    """A tower taken apart, its cubes said with their places: the placings, top first (see
    the module); anything else unchanged."""
    m = _APART.match(text.strip())
    tower = _tower(world) if m else []
    if not tower:
        return text
    steps: list[tuple[str, str]] = []
    last = None
    for part in _PART_SPLIT.split(m["rest"]):
        said = _PART.match(part.strip())
        name = said and _named(said["what"], tower, last)
        if not name or name in (n for n, _ in steps):
            return text
        steps.append((name, said["place"]))
        last = name
    steps.sort(key=lambda s: tower.index(s[0]))
    said_steps = [f"put the {n.replace('_', ' ')} on {p}" for n, p in steps]
    return ", then ".join(said_steps) + (m["end"] or ".")


_BOTH = re.compile(
    r"^(?:grab|take|pick\s+up|lift|get)\s+(?:them\s+both|both(?:\s+of\s+them)?|the\s+(?:pair|two)"
    r"\s+of\s+them)\s*(?:,|\s[-\u2013\u2014]+)\s*the\s+(?P<a>\w+)(?:\s+" + _CUBE + r")?\s+and\s+"
    r"the\s+(?P<b>\w+)(?:\s+" + _CUBE + r")?\s*(?:,|\s[-\u2013\u2014]+)?\s*(?:and\s+)?"
    r"(?:(?:put|move|place|set|take|bring|carry)\s+(?:them\s+|both\s+)?)?(?:over\s+|across\s+)?"
    rf"(?:on\s+top\s+of|onto|on|to)\s+(?P<p>{_PLACE})\s*(?P<end>[.!?]?)$",
    re.I,
)


def both_taken(text: str, world: World) -> str:
    """ "Grab them both, the A and the B, and put them on P": the placings in the order
    said ("put the A cube on P, then put the B cube on P"); anything else unchanged."""
    m = _BOTH.match(text.strip())
    if m is None:
        return text
    a, b = m["a"].lower(), m["b"].lower()
    if a == b or not {f"{a}_cube", f"{b}_cube"} <= set(world.objects):
        return text
    p = m["p"]
    return f"put the {a} cube on {p}, then put the {b} cube on {p}{m['end'] or '.'}"
