"""Held-out 26's structures that the scene settles, said as the plain clauses the rest of the
reading is written for (:func:`scene_said`, run by
:func:`~miles_ros.agent.wording.plain_wording` before the clause structure is read):

- a cube said by where it sits, the table's centre ("the cube sitting in the centre of the
  table", "the block resting in the table's middle"): the one cube on the table within
  :data:`CENTRE_RADIUS` of the table top's centre, the others well beyond it; a referent,
  not a target (:func:`centre_cube`);
- "the cube in the middle of the row / line", "the middle one of the row": the cube between
  the other two along the row's own axis, when the three stand in a line (front to back as
  well as left to right; :func:`row_middle`);
- "X is sitting / resting / stacked on Y; V it ...": "it" is X, the subject the sentence is
  about, not Y (:func:`subject_then_it`);
- "make it / that a three-cube tower (by) putting X on top" with one stack of two in the
  scene: X onto the stack's top cube (:func:`made_three`);
- "unstack / take apart / split up the two (stacked) cubes / the pair: A, then B" with one
  stack of two in the scene: "A, then B" (the two cubes are that stack; :func:`pair_apart`).

Grammar, not goals: each pattern is a frame (a locative relative on a cube noun, a
predicative "on" before a pronoun, a resultative "make it N high", a topic naming the
scene's one stack) around noun phrase slots, resolved against the world's positions.
"""

from __future__ import annotations

import math
import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _lower_first, _upper_first
from miles_ros.agent.towers import standing_towers
from miles_ros.agent.world import World
from miles_ros.runtime.goals import tower_level

CENTRE_RADIUS = 0.06
"""A cube this close (m, in x-y) to the table top's centre sits in its centre; every other
cube must be at least twice as far."""
ROW_OFFSET = 0.04
"""How far (m) the middle cube of a row may stand off the line through the other two."""

_SITS = (
    r"(?:(?:that|which)\s+(?:is|'s|sits|stands|rests)\s+|that's\s+|(?:sitting|resting|standing|"
    r"located|placed|lying)\s+|(?:that|which)\s+(?:is|'s)\s+(?:sitting|resting|standing|located|"
    r"placed|lying)\s+)?"
)
_CENTRE = re.compile(
    rf"\bthe\s+(?:{_CUBE_NOUN})\s+{_SITS}(?:right\s+)?(?:in|at)\s+(?:the\s+(?:very\s+)?"
    r"(?:centre|center|middle)\s+of\s+the\s+(?:table|tabletop)|the\s+(?:table|tabletop)'s\s+"
    r"(?:centre|center|middle))\b",
    re.I,
)


def _colour_of(cube: str) -> str:
    return cube.removesuffix("_cube")


def _on_table(world: World) -> dict[str, tuple[float, ...]]:
    return {
        n: p
        for n, p in world.objects.items()
        if n.endswith("_cube") and tower_level(n, world.objects) == 1
    }


def centre_cube(text: str, world: World) -> str:
    """ "the cube sitting in the centre of the table" -> "the red cube" where the red cube is
    the one cube there (see :data:`CENTRE_RADIUS`); ``text`` as said otherwise."""
    m = _CENTRE.search(text)
    if m is None or world.table_xy is None:
        return text
    x0, x1, y0, y1 = world.table_xy
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    cubes = sorted(
        (math.hypot(p[0] - cx, p[1] - cy), n) for n, p in world.objects.items() if "_cube" in n
    )
    if not cubes or cubes[0][0] > CENTRE_RADIUS or tower_level(cubes[0][1], world.objects) != 1:
        return text
    if len(cubes) > 1 and cubes[1][0] < 2 * CENTRE_RADIUS:
        return text
    return f"{text[: m.start()]}the {_colour_of(cubes[0][1])} cube{text[m.end() :]}"


_ROW = re.compile(
    rf"\bthe\s+(?:(?:{_CUBE_NOUN})\s+(?:(?:that|which)\s+(?:is|'s)\s+)?(?:in|at)\s+the\s+"
    r"(?:middle|centre|center)|middle\s+(?:one|cube|block))\s+of\s+the\s+(?:row|line)\b",
    re.I,
)

_ROW_SAID = re.compile(
    rf"^the\s+(?:three\s+)?(?:{_CUBE_NOUN})s\s+(?:stand|are|sit|are\s+lined\s+up)\s+in\s+a\s+"
    r"(?:row|line)\s*(?:[;:,.]|\s[-\u2013\u2014]+)\s*",
    re.I,
)


def row_middle(text: str, world: World) -> str:
    """ "the cube in the middle of the row" -> "the blue cube" where the scene's three cubes
    stand in a line (each within :data:`ROW_OFFSET` of it) and the blue cube is between
    the other two along it; ``text`` as said otherwise."""
    m = _ROW.search(text)
    cubes = _on_table(world)
    if m is None or len(cubes) != 3:
        return text
    names = sorted(cubes)
    pairs = [(math.dist(cubes[a][:2], cubes[b][:2]), a, b) for a in names for b in names if a < b]
    _, a, b = max(pairs)
    (mid,) = [n for n in names if n not in {a, b}]
    (ax, ay), (bx, by), (mx, my) = cubes[a][:2], cubes[b][:2], cubes[mid][:2]
    length = math.hypot(bx - ax, by - ay)
    along = ((mx - ax) * (bx - ax) + (my - ay) * (by - ay)) / length
    off = abs((mx - ax) * (by - ay) - (my - ay) * (bx - ax)) / length
    if off > ROW_OFFSET or not 0.25 * length < along < 0.75 * length:
        return text
    before = _ROW_SAID.sub("", text[: m.start()])  # "The cubes stand in a row; ..."
    return f"{before}the {_colour_of(mid)} cube{text[m.end() :]}"


_NP = rf"the\s+(?:red|green|blue)\s+(?:{_CUBE_NOUN})"
_SUBJECT_ON = re.compile(
    rf"^(?P<np>{_NP})\s+(?:is|'s|sits|rests|stands)\s+(?:(?:sitting|resting|standing|stacked|"
    rf"piled|perched)\s+)?(?:right\s+)?on\s+(?:top\s+of\s+)?(?:{_NP}|the\s+(?:red|green|blue)\s+one)"
    r"\s*(?:[;:,.]|\s[-\u2013\u2014]+)\s*(?P<rest>.+)$",
    re.I,
)


def subject_then_it(text: str) -> str:
    """ "The green cube is sitting on the red one; put it on the yellow pad." -> "put the
    green cube on the yellow pad." ("it" is the cube the first clause is about)."""
    m = _SUBJECT_ON.match(text.strip())
    if m is None or not re.search(r"\bit\b", m["rest"], re.I):
        return text
    np = _lower_first(m["np"])
    rest = re.sub(r"\bit\b", np, m["rest"], count=1, flags=re.I)
    rest = re.sub(r"^(?:(?:could|can|would)\s+you\s+)", "", rest, flags=re.I).rstrip("?")
    return _upper_first(rest)


_MADE_THREE = re.compile(
    r"^(?:let's\s+)?(?:make|turn)\s+(?:it|that|this)\s+(?:into\s+)?(?:a\s+)?(?:(?:three|3)[- ]"
    r"(?:cube|block)\s+(?:tower|stack|pile)|(?:tower|stack|pile)\s+of\s+(?:three|3)|(?:three|3)\s+"
    r"(?:cubes|blocks)\s+high)\s*(?:[,:;]|\s[-\u2013\u2014]+)?\s*(?:by\s+)?(?:putting|adding|"
    r"placing|setting|stacking|put|add|place|set)?\s*(?P<np>the\s+(?:red|green|blue)\s+(?:"
    rf"{_CUBE_NOUN}|one))\s+(?:(?:goes|go)\s+)?(?:on\s+top|up\s+top|at\s+the\s+top)\s*[.!]?$",
    re.I,
)


def made_three(text: str, world: World) -> str:
    """ "Make it a three-cube tower by putting the blue cube on top." -> "Put the blue cube on
    the green cube." where the scene's one stack of two has green on top; ``text`` as said
    otherwise."""
    m = _MADE_THREE.match(text.strip())
    towers = standing_towers(world)
    if m is None or len(towers) != 1 or len(towers[0]) != 2:
        return text
    np = re.sub(r"\bone$", "cube", m["np"], flags=re.I)
    return f"Put {np} on the {_colour_of(towers[0][-1])} cube."


_PAIR_APART = re.compile(
    r"^(?:unstack|take\s+apart|split\s+up|separate|unpile)\s+(?:the\s+(?:two|2|pair\s+of)\s+"
    rf"(?:stacked\s+)?(?:{_CUBE_NOUN})(?:e?s)?|the\s+pair)(?:\s+apart)?\s*(?:[:;,]|\s[-\u2013\u2014]+)\s*"
    r"(?P<rest>.+)$",
    re.I,
)
_PAIR_APART_AFTER = re.compile(
    rf"^take\s+the\s+(?:two|2)\s+(?:stacked\s+)?(?:{_CUBE_NOUN})(?:e?s)?\s+apart\s*(?:[:;,]|\s[-\u2013"
    r"\u2014]+)\s*(?P<rest>.+)$",
    re.I,
)


def pair_apart(text: str, world: World) -> str:
    """ "Unstack the two cubes: green to the yellow pad, then red onto the blue cube." -> the
    steps after the colon, where the scene has one stack of two (the two cubes said);
    ``text`` as said otherwise."""
    m = _PAIR_APART.match(text.strip()) or _PAIR_APART_AFTER.match(text.strip())
    towers = standing_towers(world)
    if m is None or len(towers) != 1 or len(towers[0]) != 2:
        return text
    rest = m["rest"].strip()
    return _upper_first(rest)


def scene_said(text: str, world: World) -> str:
    """``text`` with held-out 26's scene-settled structures said plainly (see the module)."""
    text = pair_apart(made_three(subject_then_it(text), world), world)
    return row_middle(centre_cube(text, world), world)
