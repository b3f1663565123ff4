"""A condition on the scene said with the goal: the branch the scene chooses, said alone.

"If the green cube is farther from you than the red one, put it on the right pad;
otherwise just go home" is one goal with two branches, and one of them is meant: the
reading's rules, given both, plan both as a list. :func:`branch_taken` decides the
condition against the cubes' positions (:func:`miles_ros.agent.reference_scene.holds`: two
cubes :func:`~miles_ros.agent.reference_scene.level` on it, 1 cm or less apart, decide
nothing) and says the branch taken, "it" in it the condition's cube:

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

import math
import re

from miles_ros.agent.phrases import CUBE_NOUNS
from miles_ros.agent.reference_scene import holds, level
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


_ASKED = re.compile(
    rf"^(?:tell me\s*[-,:]?\s*)?is the (?P<a>[a-z]+) {_CUBE}\s+(?P<rel>(?:to the |on the )?"
    rf"(?:left|right) of|{_RELATION}\s+than)\s+(?:the )?(?P<b>[a-z]+)(?: {_CUBE})?\s*\?\s*"
    r"(?:if so|if it is|if yes|if it'?s so|yes)\s*[,:]?\s*(?P<rest>.+)$",
    re.I,
)
_NO = re.compile(r"(?:\s*[.;]\s*|\s[-\u2013\u2014]+\s*)no\s*[:,]\s*", re.I)
_BARE_PLACE = re.compile(r"^(?:just\s+)?(?:over|above|onto|on to|on|to|into)\b", re.I)


def _asked(text: str) -> str:
    """A condition asked as a question ("Is the red cube to the left of the blue one? If
    so, A - otherwise B.", "... Yes: A. No: B.") said as "if ..., A; otherwise B"; a branch
    with its verb left out ("otherwise over blue") takes the first branch's."""
    m = _ASKED.match(text.strip())
    if m is None:
        return text
    rel = re.sub(r"^(?:to|on) the ", "", m["rel"], flags=re.I)
    if re.fullmatch(r"(?:left|right) of", rel, re.I):
        rel = f"further {rel.split()[0]} than"
    rest = _NO.sub("; otherwise ", m["rest"], count=1)
    split = re.search(rf"{_BREAK}(?:and\s+)?{_ELSE}\s*,?\s*", rest, re.I)
    if split is not None:
        then, other = rest[: split.start()], rest[split.end() :]
        verb = re.match(r"^(.+?)\s+(?=(?:over|above|onto|on to|on|to|into)\b)", then)
        if _BARE_PLACE.match(other) and then.split():
            other = f"{verb[1] if verb else then.split()[0]} {other}"
        rest = f"{then}; otherwise {other}"
    return f"if the {m['a']} cube is {rel} the {m['b']} cube, {rest}"


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
    stripped = _asked(text.strip())
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


_REACH_ASKED = re.compile(
    r"^(?:(?:is|are)\s+(?P<a>the\s+[a-z]+(?:\s+" + _CUBE + r")?)\s+(?:(?:with)?in\s+(?:your\s+)?"
    r"reach|reachable|close\s+enough(?:\s+(?:for\s+you\s+)?to\s+(?:reach|grab|get|pick\s+up|"
    r"move))?|near\s+enough)|can\s+you\s+(?:reach|get\s+to|grab)\s+(?P<b>the\s+[a-z]+(?:\s+"
    + _CUBE
    + r")?))\s*\?\s*(?:(?:and\s+)?if\s+(?:it\s+is|it's|so|yes|you\s+can|that's\s+the\s+case)|"
    r"if\s+yes|yes\?)\s*[,:;]?\s*(?:then\s+)?(?P<then>.+)$",
    re.I,
)
"""A cube asked to be within the arm's reach, then what to do if it is ("Is the red cube
within reach? If it is, slide it onto the grey pad.")."""


def reach_asked(text: str) -> str:
    """ "Is X within reach? If it is, V it ...": "V X ..." - whether the arm reaches X is
    what every step is checked against (each skill's card), and a step it cannot make is
    refused with the reason, so the question asks nothing the plan does not."""
    m = _REACH_ASKED.match(text.strip())
    if m is None:
        return text
    cube = m["a"] or m["b"]
    then = re.sub(r"\bit\b", cube, m["then"], count=1, flags=re.I)
    return then.strip()


# -- a choice between two cubes, an order of all of them ----------------------------------
_COMPARED = re.compile(
    rf"^(?:compare|look at|take|consider|of) the (?P<a>[a-z]+)(?: {_CUBE})? and the "
    rf"(?P<b>[a-z]+) {_CUBE}s?\s*(?:[:;,]|\s[-\u2013\u2014]+)\s*(?:the one|whichever(?: one)?|"
    rf"the {_CUBE})\s+(?:that'?s\s+|that is\s+|which is\s+|is\s+|'s\s+)?{_RELATION}"
    r"(?:\s+of the two)?\s*(?:[,:;]|[-\u2013\u2014]+)?\s*(?P<rest>.+)$",
    re.I,
)
_GOES = re.compile(r"^(?:goes|should go|belongs|is going|has to go|must go)\b\s*", re.I)


def compared(text: str, world: World) -> str:
    """Two cubes compared, the one the comparison picks acted on: "Compare the red and the
    blue cube: the one farther from you goes to the left pad." -> "put the blue cube on the
    left pad" (the cube the scene picks; left as said when the two tie)."""
    m = _COMPARED.match(text.strip())
    if m is None:
        return text
    a, b = _cube(m["a"], world), _cube(m["b"], world)
    decided = holds(world, a, _relation(m), b) if a and b else None
    if decided is None:
        return text
    cube = f"the {(a if decided else b).replace('_', ' ')}"
    rest = m["rest"].strip()
    if _GOES.match(rest):
        where = re.sub(r"^to\s", "on ", _GOES.sub("", rest))
        return f"put {cube} {where}"
    said = re.sub(r"\b(?:it|that one|this one|that cube|that block)\b", cube, rest, count=1)
    return said if said != rest else text


_VISIT = re.compile(
    rf"^(?:visit|sweep (?:across|over)|go over|hover over|hover above|tour|pass over)\s+"
    rf"(?:each|every|all(?: of)? the|the|all)\s+(?:(?:three|two|four)\s+)?{_CUBE}s?"
    r"(?:\s+(?:one by one|in turn|in order|one after another))?\s*,?\s*(?:from\s+)?(?:the\s+)?"
    r"(?P<a>nearest|closest|farthest|furthest|left|right)(?:most)?\s+to\s+(?:the\s+)?"
    r"(?P<b>nearest|closest|farthest|furthest|left|right)(?:most)?"
    r"(?:\s*,?\s*(?:hovering|stopping|pausing|waiting)\s+(?:over|above|at)\s+each(?: one)?)?"
    r"\s*[.!]?$",
    re.I,
)
_ORDER_KEY = {
    "nearest": lambda p: math.hypot(p[0], p[1]),
    "closest": lambda p: math.hypot(p[0], p[1]),
    "farthest": lambda p: -math.hypot(p[0], p[1]),
    "furthest": lambda p: -math.hypot(p[0], p[1]),
    "left": lambda p: -p[1],
    "right": lambda p: p[1],
}
_OPPOSITE = {"nearest": "far", "closest": "far", "farthest": "near", "furthest": "near"}


def _ranked(world: World, key) -> list[str] | None:
    """The scene's cubes in the order ``key`` of their positions gives, None when two are
    :func:`~miles_ros.agent.reference_scene.level` on it (the order is no fact of the
    scene)."""
    ranked = sorted(world.objects, key=lambda n: key(world.objects[n]))
    values = [key(world.objects[n]) for n in ranked]
    if any(level(u, v) for u, v in zip(values, values[1:], strict=False)):
        return None
    return ranked


def visited_in_order(text: str, world: World) -> str:
    """Every cube visited in an order said by a relation: "Visit the cubes from nearest to
    farthest, hovering over each one." / "Sweep across the blocks left to right." -> a
    hover over each cube in that order (left as said when two tie on it, or the order's
    ends are not opposite)."""
    m = _VISIT.match(text.strip())
    if m is None or not world.objects:
        return text
    a, b = m["a"].lower(), m["b"].lower()
    if {a, b} != {"left", "right"} and _OPPOSITE.get(a) != (
        "near" if b in {"nearest", "closest"} else "far" if b in {"farthest", "furthest"} else None
    ):
        return text
    ranked = _ranked(world, _ORDER_KEY[a])
    if ranked is None:
        return text
    return ", then ".join(f"hover over the {n.replace('_', ' ')}" for n in ranked) + "."


_ENDS = r"left|right|front|back|near|far|nearest|closest|farthest|furthest"
_TOWER_ORDER = re.compile(
    rf"^(?:(?:build|make|form|put together|pile up|stack up|stack)\s+(?:a|one)\s+(?:tower|stack|"
    rf"pile)(?:\s+of\s+(?:the|all(?: three)?(?: of the)?|the three)\s+{_CUBE}s)?|(?:stack|pile)"
    rf"(?:\s+up)?\s+(?:all\s+three(?:\s+{_CUBE}s)?|the\s+(?:three\s+)?{_CUBE}s|"
    rf"all(?: of)? the {_CUBE}s)"
    rf"(?:\s+(?:up|into a (?:tower|stack)))?)\s*,?\s*(?:going\s+)?(?:from\s+)?(?:the\s+)?"
    rf"(?P<a>{_ENDS})(?:most)?\s+to\s+(?:the\s+)?(?P<b>{_ENDS})(?:most)?\b(?P<tail>[^.!?]*)[.!?]?$",
    re.I,
)
_END_KEY = {
    **_ORDER_KEY,
    "front": lambda p: p[0],
    "back": lambda p: -p[0],
    "near": _ORDER_KEY["nearest"],
    "far": _ORDER_KEY["farthest"],
}
_SIDE = {"left": "lr", "right": "lr", "front": "fb", "back": "fb"}


def tower_in_order(text: str, world: World) -> str:
    """A tower of the three cubes built in an order said by a relation: "Build a tower from
    left to right, the leftmost at the bottom." -> "put the <second> cube on the <first>
    cube, then put the <third> cube on the <second> cube" (the first in the order at the
    bottom, unless the rest of the sentence puts it on top); left as said when two cubes tie
    on the relation, a cube stands on another, or the ends are not opposite."""
    m = _TOWER_ORDER.match(text.strip())
    if m is None or len(world.objects) != 3:
        return text
    a, b = m["a"].lower(), m["b"].lower()
    sides = _SIDE.get(a, "nf"), _SIDE.get(b, "nf")
    near = {"near", "nearest", "closest"}
    if a == b or sides[0] != sides[1] or (sides[0] == "nf" and (a in near) == (b in near)):
        return text
    if any(p[2] > 0.04 for p in world.objects.values()):
        return text
    ranked = _ranked(world, _END_KEY[a])
    if ranked is None:
        return text
    tail = m["tail"].lower()
    if re.search(r"\b(?:top|highest|last)\b", tail) and not re.search(
        r"\b(?:bottom|base|table|lowest)\b", tail
    ):
        ranked.reverse()  # "... the leftmost on top"
    low, mid, top = (n.replace("_", " ") for n in ranked)
    return f"put the {mid} on the {low}, then put the {top} on the {mid}."
