"""What the reference phrases of :mod:`~miles_ros.agent.references` are resolved over: the
result types (:class:`Resolution`, :class:`Clarification`), the tie distance :data:`TIE_M`
and the one rule that says two cubes are level on an order (:func:`level`,
:func:`beyond_level`), colour names of places, the regex fragments the rules are written
with, and the ranking helpers every resolver uses (:func:`_unique`, :func:`_nth`,
:func:`_beyond`, :func:`holds`).

Frame: the robot's base frame (x forward, y to the robot's left, m).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS, SKILL_PHRASES
from miles_ros.agent.world import World

TIE_M = 0.01
"""Two candidates this far apart (m) or less in the ordering quantity are level (a tie):
a reference that would have to choose between them is asked back (docs/interfaces.md,
"Default scene"). Compared through :func:`level` only."""

ROUNDING_M = 1e-9
"""What a distance may read over :data:`TIE_M` from floating point alone (0.36 - 0.35 is
0.010000000000000009 m): still level."""


def level(a: float, b: float) -> bool:
    """Whether two values of an ordering quantity (m: y left to right, x front to back, the
    distance from the base, from a place or from a cube) are level: 1 cm or less apart,
    1 cm itself included (within :data:`ROUNDING_M`)."""
    return abs(a - b) <= TIE_M + ROUNDING_M


def beyond_level(gap: float) -> bool:
    """Whether ``gap`` (m, positive in an order's direction) puts one thing beyond another
    on that order: more than :data:`TIE_M`, not :func:`level`."""
    return gap > 0.0 and not level(gap, 0.0)


PALETTE = {
    "red": (0.85, 0.15, 0.15),
    "green": (0.15, 0.70, 0.20),
    "blue": (0.15, 0.30, 0.85),
    "yellow": (0.95, 0.85, 0.20),
    "orange": (0.95, 0.55, 0.10),
    "purple": (0.55, 0.25, 0.70),
    "grey": (0.60, 0.60, 0.60),
    "white": (0.95, 0.95, 0.95),
    "black": (0.10, 0.10, 0.10),
}
"""The colour names a place's RGBA is named by (nearest in RGB)."""


SYNONYMS = {"gray": "grey"}


ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}


_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})s?"


_PAD = rf"(?:{'|'.join(PAD_NOUNS)})s?"


_A_PAD = rf"(?:{'|'.join(n for n in PAD_NOUNS if n not in ('spot', 'square'))})s?"
"""A pad's noun after "a" ("a pad", "either mat"): not "a spot" or "a square" (of the
table)."""


_PLACE = rf"(?:{_PAD}|areas?|regions?|patch(?:es)?)"
"""A place's noun, in the reference phrases: a pad's, or a region's ("the yellow area")."""


_ROBOT = r"(?:(?:your|its|the robot's) base|(?:the )?(?:robot|arm|base|you|yourself|me))"


_NEAR = r"(?:nearest|closest)"


_OF_THEM = rf" of (?:(?:the |all )?(?:\w+ )?(?:{_CUBE}s|them)|(?:them )?all)"
"""Of which things a superlative picks ("the leftmost of the three cubes")."""


_REL = (
    r"(?:that is |which is |that's |is |that lies |which lies |lies |lying |that sits |sits |"
    r"sitting |that stands |standing |located |that is located )?"
)
"""A relative clause's opening between a cube noun and what picks it ("the cube that lies
farthest to the right")."""


_FAR = r"(?:farthest|furthest|most\s+distant|most\s+remote|remotest)(?: away)?"
"""The superlative of distance ("farthest", "the most distant")."""


@dataclass(frozen=True)
class Clarification:
    """A question back: which of ``options`` (names) the ``phrase`` of ``goal`` means."""

    goal: str
    phrase: str
    question: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Resolution:
    """The goal with each referring phrase replaced by a name, or the refusal, or the
    question."""

    text: str
    refusal: str | None = None
    resolved: tuple[tuple[str, str], ...] = ()
    """(phrase, name) for each phrase replaced, in the order found."""
    clarify: Clarification | None = None


class _Ambiguous(Exception):
    """A phrase that does not say which of ``options`` it means."""

    def __init__(self, question: str, options: list[str]):
        super().__init__(question)
        self.question, self.options = question, tuple(options)


def _which(what: str, names: list[str]) -> _Ambiguous:
    listed = [f"the {spoken(n)}" for n in names]
    choices = ", ".join(listed[:-1]) + " or " + listed[-1]
    return _Ambiguous(f"Which {what} do you mean: {choices}?", names)


def colour_name(rgba) -> str:
    """The :data:`PALETTE` name nearest to an RGBA (or RGB) colour."""
    rgb = tuple(float(v) for v in list(rgba)[:3])
    return min(PALETTE, key=lambda name: math.dist(PALETTE[name], rgb))


def spoken(name: str) -> str:
    """``red_cube`` -> ``red cube``."""
    return name.replace("_", " ")


def _cube_words(world: World) -> set[str]:
    """The words that name a cube, of ``world`` or any ("red", "red_cube", "blocks", ...):
    an "it" after one of them refers to it (or the goal's reading refuses the cube)."""
    names = {w for name in world.objects for w in (name, *name.split("_"))}
    return names | set(CUBE_NOUNS) | {noun + "s" for noun in CUBE_NOUNS}


def _unique(ranked: list[tuple[float, str]], what: str) -> tuple[str | None, str | None]:
    """The first of ``ranked`` (ascending key, name); :class:`_Ambiguous` (the question)
    when others are :func:`level` with it."""
    if not ranked:
        return None, f"the scene has no {what}"
    ranked = sorted(ranked)
    tied = [n for key, n in ranked if level(key, ranked[0][0])]
    if len(tied) > 1:
        raise _which(f"cube ({what} is not one: they are level)", tied)
    return ranked[0][1], None


def place_named(phrase: str, world: World) -> str | None:
    """The place a phrase like "right pad", "left_pad" or "yellow pad" names."""
    words = phrase.replace("_", " ").split()
    head = words[0] if words else ""
    for name in world.places:
        if name.split("_")[0] == head or spoken(name) == " ".join(words):
            return name
    colour = SYNONYMS.get(head, head)
    matches = [n for n, c in place_colours(world).items() if c == colour]
    return matches[0] if len(matches) == 1 else None


def place_colours(world: World) -> dict[str, str]:
    """Each place's colour name (places the scene gives a colour)."""
    return {n: colour_name(rgba) for n, rgba in world.colors.items() if n in world.places}


def _nth(ranked: list[tuple[float, str]], nth: str | None, what: str):
    """The ``nth`` (an :data:`ORDINALS` word; None: the first) of ``ranked`` (ascending
    key, name): refused when there are fewer, asked when a neighbour in the order is
    :func:`level` with it."""
    if not nth:
        return _unique(ranked, "the " + what)
    k = ORDINALS[nth.lower()]
    if k > len(ranked):
        return None, f"the scene has {len(ranked)} cubes to rank: there is no {nth} {what}"
    ranked = sorted(ranked)
    key = ranked[k - 1][0]
    tied = [n for value, n in ranked if level(value, key)]
    if len(tied) > 1:
        raise _which(f"cube (the {nth} {what} is not one: they are level)", tied)
    return ranked[k - 1][1], None


def _how_said(how: str) -> str:
    """ "closest" -> "closest to", "furthest" -> "furthest from" (as said before "the")."""
    if re.fullmatch(_NEAR, how):
        return how + " to"
    return how + " from" if re.fullmatch(_FAR, how) else how


def _either(match: re.Match, name: str) -> str | None:
    """A group a rule says two ways ("the cube second nearest to the robot", "the second
    nearest cube to the robot"): ``name`` or ``name2``, whichever matched."""
    groups = match.groupdict()
    return groups.get(name) or groups.get(name + "2") or groups.get(name + "3")


_DESTINATION = r"\b(?:on|onto|to|into|at|over|above|in|toward|towards)\b"


_PREPOSITIONS = frozenset("on onto to into over above toward towards at of".split())


def _colour_cube(word: str, world: World) -> str | None:
    """The cube a colour word names ("red" -> ``red_cube``), or None."""
    word = SYNONYMS.get(word.lower(), word.lower())
    return next((n for n in world.objects if n.split("_")[0] == word), None)


def _cubes(match, world) -> dict:
    """The cubes a superlative or an ordinal ranks: every cube of ``world`` but the one a
    restriction said after the phrase leaves out ("the leftmost cube that isn't green",
    "the nearest cube other than the red one": group ``but``)."""
    said = (match.groupdict().get("but") or "").lower()
    left_out = _colour_cube(said, world) if said else None
    return {n: p for n, p in world.objects.items() if n != left_out}


def _beyond(
    world, ref: str, axis: int, sign: float, cone: float | None = None
) -> list[tuple[float, str]]:
    """The other cubes beyond cube ``ref`` along ``axis`` (0: x, 1: y of the base frame)
    in the direction of ``sign``, by more than :data:`TIE_M` (:func:`beyond_level`), each
    with that distance. With ``cone``: only those in line with it (off the axis by less
    than ``cone`` times that distance: 1.0 is 45 degrees), where any is."""
    start = world.objects[ref][axis]
    ranked = [(sign * (p[axis] - start), n) for n, p in world.objects.items() if n != ref]
    ranked = [(d, n) for d, n in ranked if beyond_level(d)]
    if cone is None:
        return ranked
    off = world.objects[ref][1 - axis]
    return [
        (d, n) for d, n in ranked if abs(world.objects[n][1 - axis] - off) < cone * d
    ] or ranked


_SIDES = {
    "left": (1, 1.0),
    "right": (1, -1.0),
    "back": (0, 1.0),
    "front": (0, -1.0),
}
"""A side of a cube and the base frame's axis and sign it lies along (as seen from the
robot: left +y, behind +x)."""


def _from_base(p) -> float:
    """A position's distance from the robot's base in the table's plane (m)."""
    return math.hypot(p[0], p[1])


def holds(world: World, cube: str, relation: str, ref: str) -> bool | None:
    """Whether cube ``cube`` is beyond cube ``ref`` on ``relation`` (``left``, ``right``,
    ``back``, ``front``, ``near``: closer to the robot, ``far``): True beyond it by more
    than :data:`TIE_M`, False short of it by more than that, None when the two are
    :func:`level` or a cube is not in the scene (the relations :func:`_beside`,
    :func:`_before_or_behind` and :func:`_than_cube` rank by)."""
    if cube not in world.objects or ref not in world.objects or cube == ref:
        return None
    if relation in _SIDES:
        axis, sign = _SIDES[relation]
        if cube in {n for _, n in _beyond(world, ref, axis, sign)}:
            return True
        return False if cube in {n for _, n in _beyond(world, ref, axis, -sign)} else None
    p, q = world.objects[cube], world.objects[ref]
    gap = (_from_base(q) - _from_base(p)) * (1.0 if relation == "near" else -1.0)
    return None if level(gap, 0.0) else gap > 0


def _named_cubes(text: str, world) -> set[str]:
    """The cubes ``text`` names: by their scene name or by their colour."""
    return {
        name
        for word in re.findall(r"[a-z_]+", text.lower())
        if (name := (word if word in world.objects else _colour_cube(word, world)))
    }


class _Groups:
    """A match whose group ``name`` falls back on another (a rule said two ways)."""

    def __init__(self, match: re.Match, **fallbacks: str):
        self.match, self.fallbacks, self.string = match, fallbacks, match.string

    def group(self, name: str | int = 0):
        got = self.match.group(name)
        if got is None and name in self.fallbacks:
            return self.match.group(self.fallbacks[name])
        return got

    def start(self) -> int:
        return self.match.start()


def _bare(kind: str):
    def pick(match, world):
        names = sorted(world.objects if kind == "cube" else world.places)
        if len(names) == 1:
            return names[0], None
        if not names:
            return None, None
        others = [n for n in names if n not in _named_cubes(match.string, world)]
        raise _which(kind, others if kind == "cube" and len(others) > 1 else names)

    return pick


_PLACING_VERBS = frozenset(
    phrase.split()[0] for skill in ("push", "pick_place") for phrase in SKILL_PHRASES[skill]
)
"""The first words of the phrases the training generator says a cube moved with."""


_COUNTS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


_COLOUR_WORDS = "|".join([*PALETTE, *SYNONYMS])
