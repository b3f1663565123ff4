"""The words that point back at a cube, said plainly: "..., then hover over it", "the one
you just moved", "hover over X, then put that one on ...", "put the red cube next to it",
"move it back" (the rows of :mod:`miles_ros.agent.discourse`'s table on pointing back).
:func:`pointed` is the last pass of :func:`~miles_ros.agent.discourse.said_in_order`."""

from __future__ import annotations

import re
from collections.abc import Callable

from miles_ros.agent.cube_words import _NOUN, VERBS, CubePhrases, imperative
from miles_ros.agent.reference_scene import spoken


def acted_on(before: str, cubes: CubePhrases) -> str | None:
    """The cube the last step said before acts on: the first cube after the last verb
    that names one."""
    verbs = "|".join(sorted(VERBS, key=len, reverse=True))
    found = None
    for match in re.finditer(
        rf"\b(?:{verbs})\w*(?:\s+up)?\s+(?:over\s+|above\s+|for\s+|to\s+)?(?P<cube>{cubes.one})",
        before,
        re.I,
    ):
        found = cubes.name(match["cube"])
    return found


def _named_back(
    pattern: re.Pattern, text: str, cubes: CubePhrases, said: Callable[[re.Match, str], str]
) -> str:
    """``text`` with each match of ``pattern`` said by ``said(match, "the red cube")``, the
    cube the step before the match acted on (:func:`acted_on`); a match with none stays."""

    def name(match: re.Match) -> str:
        cube = acted_on(text[: match.start()], cubes)
        return match.group(0) if cube is None else said(match, f"the {spoken(cube)}")

    return pattern.sub(name, text)


def pointed(text: str, cubes: CubePhrases) -> str:
    text = _just_moved(text, cubes)
    text = _back(text, cubes)
    text = _after_a_visit(text, cubes)
    return _reached_it(_beside_it(text, cubes), cubes)


_VISITS = r"(?:hover|reach|point|tap|poke|touch|approach|visit|go|turn|rotate|spin|twist)"
"""Verbs of a step that leaves its cube where it stands (or turns it in place)."""
_CLAUSE_BREAK = re.compile(
    r"(?:[,;.]\s*(?:and\s+)?|\s+and\s+)(?:(?:then|now|next|after that|afterwards)\s*,?\s*)?|"
    r"\s+then\s+",
    re.I,
)


def _after_a_visit(text: str, cubes: CubePhrases) -> str:
    """ "hover over the blue cube, then push it to the right pad" / "... . Now move that to
    ..." / "..., then put that one on ...": "it", "that" or "that one" moved in the clause
    after a step that hovers over, taps or turns a cube is that cube (the model, left to
    read it, took another). A clause that picks a cube up without a place ("pick up the red
    cube and put it on ...") is one step with its "it", and is left to the model."""
    pattern = re.compile(
        rf"\b(?P<verb>{'|'.join(sorted(VERBS, key=len, reverse=True))})\s+"
        rf"(?P<it>(?:that|this|the\s+same)\s+{_NOUN}|it|that)\b"
        r"(?!\s+(?:is|was|one|cube|block)\b)",
        re.I,
    )

    def name(match: re.Match) -> str:
        if re.fullmatch(_VISITS, match["verb"], re.I):
            return match.group(0)
        before = text[: match.start()]
        breaks = list(_CLAUSE_BREAK.finditer(before))
        if not breaks or breaks[-1].end() != len(before):
            return match.group(0)  # "it" is not the object of the clause's first verb
        start = breaks[-2].end() if len(breaks) > 1 else 0
        previous = before[start : breaks[-1].start()]
        lead = re.match(rf"\s*(?:(?:please|first|now|just)\s+)*{_VISITS}\w*\b", previous, re.I)
        said = cubes.named(previous)
        if lead is None or len(said) != 1:
            return match.group(0)
        return f"{match['verb']} the {spoken(said[0])}"

    return pattern.sub(name, text)


def _just_moved(text: str, cubes: CubePhrases) -> str:
    """ "the one / cube you just moved" -> the cube the step before acted on."""
    pattern = re.compile(
        rf"\bthe\s+{_NOUN}\s+(?:that\s+)?you(?:'ve|\s+have)?\s+(?:just\s+|last\s+)?"
        r"[a-z]+(?:ed|put|set|slid|took|brought)\b(?:\s+up)?(?:\s+(?:it|there))?",
        re.I,
    )
    return _named_back(pattern, text, cubes, lambda match, the: the)


PUSH_VERBS = frozenset({"push", "slide", "shove", "nudge", "scoot", "drag"})
"""Verbs that move a cube without lifting it; the others put it down."""


def moved_to(verb: str, cube: str, point) -> str:
    """A move of ``cube`` to a table ``point`` said as the model reads one: "push the red
    cube to (x, y, z)" after a push verb (:data:`PUSH_VERBS`), else "put the red cube at
    (x, y, z)" (as "move X to Y": it is put down there)."""
    verb = imperative(verb).lower()
    if verb not in PUSH_VERBS:
        verb = "put"
    x, y, z = (round(float(v), 3) for v in point)
    at = "to" if verb in PUSH_VERBS else "at"
    return f"{verb} the {spoken(cube)} {at} ({x:g}, {y:g}, {z:g})"


def _back(text: str, cubes: CubePhrases) -> str:
    """ "move it back" / "push the red cube back (to where it was)" -> "put the red cube
    at (x, y, z)" / "push the red cube to (x, y, z)", where it stood when the goal was
    given."""
    pattern = re.compile(
        rf"\b(?P<verb>[a-z]+)\s+(?P<what>it|{cubes.one})\s+back\b"
        r"(?:\s+(?:to\s+)?(?:where\s+it\s+(?:was|stood|started)|its\s+(?:original|old|first|"
        r"starting)\s+(?:place|position|spot)))?",
        re.I,
    )

    def said(match: re.Match) -> str:
        what = match["what"]
        cube = acted_on(text[: match.start()], cubes) if what.lower() == "it" else None
        cube = cube or cubes.name(what)
        if cube is None:
            return match.group(0)
        return moved_to(match["verb"], cube, cubes.positions[cube])

    return pattern.sub(said, text)


_BESIDE_IT = re.compile(
    r"\b(?P<rel>next to|beside|near|close to|behind|in front of|to the (?:left|right) of)\s+it\b",
    re.I,
)


def _beside_it(text: str, cubes: CubePhrases) -> str:
    """ "..., then put the red cube next to it": the cube the step before acted on."""

    def name(match: re.Match) -> str:
        clauses = re.split(r"[,;]|\.\s|\bthen\b|\band\b", text[: match.start()])
        cube = acted_on(" ".join(clauses[:-1]), cubes)  # not the cube this clause moves
        return match.group(0) if cube is None else f"{match['rel']} the {spoken(cube)}"

    return _BESIDE_IT.sub(name, text)


def _reached_it(text: str, cubes: CubePhrases) -> str:
    """ "hover over it" / "reach for it" / "go to it" after a step on a cube: that cube."""
    pattern = re.compile(
        r"\b(?P<verb>(?:hover|reach|point|approach|tap|poke|go|move|position)\w*(?:\s+(?:the\s+)?"
        r"(?:gripper|arm|hand))?(?:\s+(?:over|above|to|at|for|towards?|near))?)\s+it\b",
        re.I,
    )

    def said(match: re.Match, the: str) -> str:
        verb = match["verb"]
        if re.match(r"(?:go|move|position)\w*$", verb, re.I):
            return match.group(0)  # "move it to ..." moves the cube: the model reads it
        return f"{verb} {the}"

    return _named_back(pattern, text, cubes, said)
