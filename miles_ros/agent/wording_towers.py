"""Plain wording of where a cube stands and of the tower: :mod:`~miles_ros.agent.wording`'s
last rules (:func:`towers_said`), after everything else in a goal is said plainly.

- "stack the green cube on itself" -> "... on the green cube" (:func:`said_itself`);
- "take the green cube off the blue one" (green on blue) -> "take the green cube"
  (:func:`off_its_support`);
- "put the green cube on the red cube, then stack the blue one on top" -> "... on top of
  the green cube" (:func:`on_last_placed`);
- the one tower standing said by its cubes: "the top cube of the stack", "off the tower",
  "onto the tower" (:func:`tower_words`).
"""

from __future__ import annotations

import re

from miles_ros.agent.cube_words import CubeWords
from miles_ros.agent.phrases import CUBE_NOUNS
from miles_ros.agent.reference_scene import spoken
from miles_ros.agent.towers import ADD_ONE, standing_towers
from miles_ros.agent.world import World

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"


def towers_said(text: str, world: World) -> str:
    """``text`` with a cube put on itself, a cube taken off its support, "on top" after a
    placing and the tower's words said by the cubes (in that order)."""
    return tower_words(on_last_placed(off_its_support(said_itself(text), world)), world)


_ITSELF = re.compile(
    rf"(?P<cube>\bthe\s+\w+\s+{_CUBE})(?P<mid>[^,.;]*?)\b(?P<prep>on top of|onto|on|atop)\s+"
    r"itself\b",
    re.I,
)


def said_itself(text: str) -> str:
    """ "stack the green cube on itself" -> "... on the green cube" (which the reading
    refuses: a cube cannot go onto itself)."""
    return _ITSELF.sub(lambda m: f"{m['cube']}{m['mid']}{m['prep']} {m['cube']}", text)


_OFF = re.compile(
    rf"\s+(?:off|from)\s+(?:of\s+)?(?:the\s+top\s+of\s+)?the\s+(?P<colour>\w+)\s+"
    rf"(?:{_CUBE}|one)\b",
    re.I,
)


def off_its_support(text: str, world: World) -> str:
    """ "take the green cube off the blue one": the cube it is taken off is where it stands,
    not a cube moved, and is dropped (when a cube stands on it)."""
    cubes = CubeWords(world)
    towers = standing_towers(world)
    under = {c for tower in towers for c in tower[:-1]}

    def drop(m: re.Match) -> str:
        return "" if cubes.word.get(m.group("colour").lower()) in under else m.group(0)

    return _OFF.sub(drop, text)


_TOWER = r"(?:tower|stack|pile)"
_THE_TOWER = (
    r"(?:the|that|this|your|our)(?:\s+(?:one|only|whole|little|small|short|tall|standing|"
    rf"cube|block|two[- ]level|three[- ]level))?\s+{_TOWER}"
)
"""The one tower standing, said with any determiner and an adjective ("that tower", "the
little stack", "this pile")."""
_SITTING = r"(?:that is |which is |that's |sitting |lying |standing |resting |placed )?"


_PLACED_ON_CUBE = re.compile(
    r"\b(?:put|place|set|stack|lift|move|pop|drop|lay|rest)\s+(?P<a>the\s+[a-z]+\s+"
    rf"{_CUBE})\s+(?:on top of|onto|on to|on|atop)\s+the\s+[a-z]+\s+{_CUBE}\b",
    re.I,
)
_BARE_ON_TOP = re.compile(
    r"\b(?P<prep>on top|on the top)\b(?!\s+of)(?=\s*(?:$|[,.;!?]|\b(?:and|then)\b))", re.I
)


def on_last_placed(text: str) -> str:
    """ "Put the green cube on the red cube, then stack the blue one on top": "on top" said
    alone after a cube was put on another is on the cube last put ("on top of the green
    cube", the tower's top as the goal builds it, not the scene's)."""
    placed = list(_PLACED_ON_CUBE.finditer(text))
    if not placed:
        return text

    def top(m: re.Match) -> str:
        before = [p for p in placed if p.end() <= m.start()]
        return f"on top of {before[-1]['a'].lower()}" if before else m[0]

    return _BARE_ON_TOP.sub(top, text)


def tower_words(text: str, world: World) -> str:
    """The one tower standing said by its cubes: "off the tower" is dropped, "the top
    (bottom) cube (of the tower)", "the top (bottom) of the tower" and "the tower's top" are
    its top (bottom) cube, "the tower" as a target its top cube."""
    if not re.search(rf"\b{_TOWER}\b|\b(?:top|bottom)\b", text, re.I):
        return text
    towers = standing_towers(world)
    if len(towers) != 1 or ADD_ONE.search(text):  # "add a cube to the tower": read_tower's
        return text
    bottom, top = towers[0][0], towers[0][-1]
    text = re.sub(r"\bon the top of\b", "on top of", text, flags=re.I)
    text = re.sub(rf"\s+(?:off|from)\s+(?:the\s+top\s+of\s+)?{_THE_TOWER}\b", "", text, flags=re.I)
    text = re.sub(
        rf"\bthe\s+(?P<end>top|bottom)(?:most)?\s+{_CUBE}(?:\s+(?:of|on|in)\s+{_THE_TOWER})?\b",
        lambda m: "the " + spoken(top if m.group("end").lower() == "top" else bottom),
        text,
        flags=re.I,
    )
    text = re.sub(  # before "the top of the tower": "the cube at the top of the stack"
        rf"\bthe\s+{_CUBE}\s+{_SITTING}(?:on|at)\s+(?:the\s+)?(?:very\s+)?top"
        rf"(?:\s+of\s+{_THE_TOWER})?\b(?!\s+of\b)",  # not "on top of the red cube"
        "the " + spoken(top),
        text,
        flags=re.I,
    )
    text = re.sub(
        rf"\bthe\s+(?:very\s+)?(?P<end>top|bottom)\s+(?:level\s+|layer\s+)?of\s+{_THE_TOWER}\b|"
        rf"\b{_THE_TOWER}'?s\s+(?P<end2>top|bottom)\b(?:\s+(?:{_CUBE}|level|layer|one))?",
        lambda m: "the " + spoken(top if "top" in (m.group("end"), m.group("end2")) else bottom),
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\bon top\b(?!\s+of)(?=\s*(?:$|[,.;!?]|\b(?:and|then)\b))",
        "on top of the tower",
        text,
        flags=re.I,
    )
    return re.sub(
        rf"\b(?P<prep>on top of|onto|on|to|atop|over|above)\s+{_THE_TOWER}\b",
        lambda m: f"{m.group('prep')} the {spoken(top)}",
        text,
        flags=re.I,
    )
