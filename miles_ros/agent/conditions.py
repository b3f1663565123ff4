"""A condition on the scene said with the goal: the branch the scene chooses, said alone.

"If the green cube is farther from you than the red one, put it on the right pad;
otherwise just go home" is one goal with two branches, and one of them is meant: the
reading's rules, given both, plan both as a list. :func:`branch_taken` decides the
condition against the cubes' positions (:func:`miles_ros.agent.references.holds`: a tie
within :data:`~miles_ros.agent.references.TIE_M` decides nothing) and says the branch
taken, "it" in it the condition's cube:

==============================================================  ==========================
the goal says                                                   said as
==============================================================  ==========================
"if / should the A cube is / be <comparative> the B one, X;     X (the condition holds) or
otherwise / if not / else Y"                                    Y (it does not)
"X, but only if the A cube / it is <comparative> the B cube -   the same
if not, Y"
"if ..., X" with no other branch                                X, or nothing asked
==============================================================  ==========================

Comparatives: further / farther / more (to the) left or right, further back, further
forward / in front, closer / nearer (to you / the robot), further / farther (away) (from
you / the robot). A condition the scene does not decide (a tie, a cube it lacks) is left as
said.
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS
from miles_ros.agent.references import holds
from miles_ros.agent.world import World

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)}|one)"
_ROBOT = r"(?:you|the robot|the base|your base)"
_RELATION = (
    r"(?:(?:further|farther|more)(?: to the)? (?P<side>left|right)"
    r"|(?P<back>further back|farther back|further away from the front)"
    r"|(?P<front>further forward|farther forward|more in front|further in front)"
    rf"|(?P<near>closer|nearer)(?: to {_ROBOT})?"
    rf"|(?:further|farther)(?: away)?(?: from {_ROBOT})?)"
)
_IS = r"(?:'s|\s+(?:is|be|turns out to be|happens to be|is still))"
_ELSE = (
    r"(?:otherwise|if not|else|or else|if it isn'?t|if it'?s not|if it is not|if that'?s not "
    r"the case|if that isn'?t (?:the case|so)|failing that)"
)
_BREAK = r"(?:\s*[;,.]\s*|\s[-\u2013\u2014]+\s*)"
_FIRST = re.compile(
    rf"^(?:if|should|in case|when)\s+the (?P<a>[a-z]+) {_CUBE}{_IS}\s+{_RELATION}\s+than\s+"
    rf"(?:the )?(?P<b>[a-z]+)(?: {_CUBE})?\s*(?:,|:|\bthen\b|{_BREAK})\s*(?:then\s+)?"
    rf"(?P<then>.+?)(?:{_BREAK}(?:and\s+)?{_ELSE}\s*,?\s*(?P<other>.+?))?\s*[.!]?$",
    re.I,
)
_AFTER = re.compile(
    rf"^(?P<then>.+?)\s*,?\s*(?:but\s+)?(?:only\s+)?if\s+(?:the (?P<a>[a-z]+) {_CUBE}|it)"
    rf"{_IS}\s+{_RELATION}\s+than\s+(?:the )?(?P<b>[a-z]+)(?: {_CUBE})?"
    rf"(?:{_BREAK}(?:and\s+)?{_ELSE}\s*,?\s*(?P<other>.+?))?\s*[.!]?$",
    re.I,
)
_COLOUR_CUBE = re.compile(rf"\bthe ([a-z]+) {_CUBE}\b", re.I)


def _relation(m: re.Match) -> str:
    if m["side"]:
        return m["side"].lower()
    if m["back"]:
        return "back"
    if m["front"]:
        return "front"
    return "near" if m["near"] else "far"


def _cube(colour: str, world: World) -> str | None:
    return next((n for n in world.objects if n.split("_")[0] == colour.lower()), None)


def branch_taken(text: str, world: World) -> str:
    """``text`` with a condition on the scene replaced by the branch it chooses (see the
    module); any other text as it is."""
    stripped = text.strip()
    m = _FIRST.match(stripped) or _AFTER.match(stripped)
    if m is None:
        return text
    a = m["a"] or next(iter(_COLOUR_CUBE.findall(m["then"])), None)
    cube, ref = (a and _cube(a, world)), _cube(m["b"], world)
    decided = holds(world, cube, _relation(m), ref) if cube and ref else None
    if decided is None:
        return text
    if not decided:
        other = m["other"]
        if not other:
            return "nothing for now."
        other = re.sub(r"^(?:just|simply)\s+|\s*,?\s*instead$", "", other.strip(), flags=re.I)
        return other.rstrip(" .!") + "."
    then = re.sub(r"\bit\b", f"the {cube.replace('_', ' ')}", m["then"], count=1, flags=re.I)
    return then.strip().rstrip(" .!") + "."
