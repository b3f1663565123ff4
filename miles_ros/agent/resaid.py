"""Held-out 21's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`resaid` on the whole goal first,
before :func:`~miles_ros.agent.reframed.reframed`):

- the request withdrawn and things left as they are ("Never mind, just leave things the way
  they are.", "Scratch that, leave things how they are."), the whole goal: no motion
  (:func:`withdrawn`);
- "don't go home afterwards" / "no going home after" at the goal's end: nothing to do, said
  away whole (a home step is only planned when asked; :func:`no_home_after`);
- a correction of a pad said first, then "X goes on P": the new place alone ("No, not the
  left pad; the red cube goes on the right pad." -> "the red cube goes on the right pad.";
  "goes on" lifts, as "put") (:func:`pad_corrected`);
- "leave / keep the tower standing (and) V ...": "don't touch the tower; V ..." (the
  prohibition covers the tower's cubes) (:func:`tower_standing`);
- a container with a demonstrative or a material ("into that cardboard box"): "into the
  box" (the container the scene lacks, refused) (:func:`container_said`);
- "stack all three on X: A first, then B on top": A onto X, then B onto A; "stack A on X and
  B on top of that": the same ("that" is the cube placed last) (:func:`stacked_in_order`);
- "complete the tower with X as its top": "complete the tower with X" (:func:`top_as`);
- "some cube", "one of those / the cubes": "a cube" (which one is asked; :func:`some_cube`);
- "the cube right / just next to / beside X": "the cube next to X" (:func:`right_next_to`);
- "don't touch the two cubes at the front; just V the C cube ...": the step on the cube
  named by colour (:func:`two_set_aside`);
- "The X cube on top of the stack, V it ...": "V the X cube ..." (the noun phrase with its
  locative is the subject, not a place; :func:`topic_located`);
- "build a tower: A on B, then C on A": the placings as said, a cube named again being the
  same cube (three high, not four; :func:`tower_listed`).

Grammar, not goals: each pattern is a frame (a withdrawal, a correction said before its
clause, a prohibition on a group, an order said after a colon, a pronoun for the cube placed
last, a dislocated subject) around noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN
from miles_ros.agent.scene_colours import COLOUR, SIDE

_SEP = r"[\s,.;:!\-\u2013\u2014]"
_DASH = r"[,;:.!\-\u2013\u2014]"
_WITHDRAW = (
    r"(?:never\s+mind(?:\s+that)?|forget\s+(?:it|that)|scratch\s+that|actually|no|ok(?:ay)?|"
    r"just|please|on\s+second\s+thought)"
)
_WITHDRAWN = re.compile(
    rf"^(?:{_WITHDRAW}{_SEP}*)+(?:(?:just|please)\s+)?(?:leave|keep|let)\s+"
    r"(?:everything|it\s+all|all\s+of\s+it|things|the\s+whole\s+lot)\s+"
    r"(?:(?:stay|be|remain)\s+)?(?:(?:just|exactly|precisely)\s+)?"
    r"(?:as\s+(?:it\s+is|they\s+are)|(?:the\s+way|how)\s+(?:it\s+is|they\s+are))"
    r"(?:\s+for\s+(?:now|the\s+moment))?(?:\s*,?\s*please)?\s*[.!]?$",
    re.I,
)


def withdrawn(text: str) -> str:
    """ "Never mind, just leave things the way they are." -> "Don't do anything." (the whole
    goal: the request withdrawn, then things kept as they are)."""
    return "Don't do anything." if _WITHDRAWN.match(text.strip()) else text


_NO_HOME_AFTER = re.compile(
    rf"\s*{_DASH}?\s*(?:(?:and|but)\s+)?(?:(?:don't|do\s+not)\s+(?:go|return|head|come)(?:\s+back)?"
    r"|no\s+(?:going|returning|heading|coming)(?:\s+back)?)\s+home"
    r"(?:\s+(?:afterwards?|after(?:\s+that)?|later|at\s+the\s+end))?\s*(?P<end>[.!]?)\s*$",
    re.I,
)


def no_home_after(text: str) -> str:
    """ "Hover over P and stay there; don't go home afterwards." -> "Hover over P and stay
    there." (a tail asking no home step, at the goal's end, with something before it)."""
    m = _NO_HOME_AFTER.search(text)
    if not m or not text[: m.start()].strip():
        return text
    return text[: m.start()].rstrip(" ,;:-") + (m["end"] or ".")


_PAD_CORRECTED = re.compile(
    r"^(?:no[,.!]?\s+)?(?:(?:wrong\s+(?:pad|mat)|not\s+(?:on\s+|onto\s+)?the\s+"
    rf"(?:{SIDE}|{COLOUR})\s+(?:{_PAD_NOUN}|one))(?:,?\s+no)?)\s*{_DASH}+\s*"
    rf"(?=the\s+[a-z]+\s+(?:{_CUBE_NOUN}|one)\s+goes\s+(?:on|onto)\b)",
    re.I,
)


def pad_corrected(text: str) -> str:
    """ "No, not the left pad; the red cube goes on the right pad." -> "the red cube goes on
    the right pad." (the pad given up, said before the clause that names the new one)."""
    return _PAD_CORRECTED.sub("", text.strip())


_TOWER_STANDING = re.compile(
    r"^(?:please\s+)?(?:leave|keep|let)\s+the\s+(?P<t>tower|stack|pile)\s+"
    r"(?:standing|stand|up|stay\s+up|as\s+it\s+(?:stands|is))\s*"
    rf"(?:{_DASH}\s*(?:and\s+)?|and\s+)(?:just\s+|only\s+)?",
    re.I,
)


def tower_standing(text: str) -> str:
    """ "Leave the tower standing and move X to P." -> "Don't touch the tower; move X to
    P."."""
    return _TOWER_STANDING.sub(lambda m: f"Don't touch the {m['t'].lower()}; ", text.strip())


_CONTAINERS = (
    r"(?:box|bin|tray|crate|basket|bucket|container|bag|bowl|drawer|jar|pot|carton|chest|tub|"
    r"tin|case|sack|pail|trough)"
)
_CONTAINER = re.compile(
    r"\b(?P<p>in|into|inside)\s+(?:(?:that|this|yonder)\s+|(?:the|a|an)\s+(?=(?:cardboard|"
    r"plastic|wooden|metal|empty)\b))(?:(?:cardboard|plastic|wooden|metal|empty|small|little|"
    rf"big)\s+)?(?P<n>{_CONTAINERS})\b",
    re.I,
)


def container_said(text: str) -> str:
    """ "Drop X into that cardboard box." -> "Drop X into the box." (a container said with a
    demonstrative or its material: the scene's lack of it is what refuses)."""
    return _CONTAINER.sub(lambda m: f"{m['p']} the {m['n']}", text)


_C = rf"(?:the\s+)?(?P<{{g}}>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?"
_ALL_THREE = re.compile(
    r"^(?:(?:stack|pile|put|place|set)\s+(?:up\s+)?(?:all\s+)?(?:the\s+)?three"
    rf"(?:\s+(?:{_CUBE_NOUN}s))?(?:\s+up)?|(?:make|build)\s+a\s+(?:tower|stack|pile)\s+of\s+"
    rf"(?:all\s+)?(?:the\s+)?three(?:\s+(?:{_CUBE_NOUN}s))?)\s+(?:on|onto|on\s+top\s+of)\s+"
    + _C.format(g="x")
    + rf"\s*{_DASH}+\s*"
    + _C.format(g="a")
    + r"\s+first\s*,?\s*(?:and\s+)?(?:then\s+)?"
    + _C.format(g="b")
    + r"\s+(?:on\s+top(?:\s+of\s+it)?|last|next)\s*[.!]?$",
    re.I,
)
_ON_TOP_OF_THAT = re.compile(
    r"^(?P<v>stack|put|place|set)\s+"
    + _C.format(g="a")
    + r"\s+(?:on|onto|on\s+top\s+of)\s+"
    + _C.format(g="x")
    + r"\s*,?\s*(?:and|then|and\s+then)\s+(?:(?:put|place|set|stack)\s+)?(?:"
    + _C.format(g="b")
    + r"\s+on\s+top\s+of\s+(?:that|that\s+one|it)|on\s+top\s+of\s+(?:that|that\s+one|it)\s+"
    + _C.format(g="b2")
    + r")\s*[.!]?$",
    re.I,
)


def stacked_in_order(text: str, cube_colours: frozenset[str]) -> str:
    """ "Stack all three on the red cube: green first, then blue on top." and "Stack the
    green cube on the red cube and the blue cube on top of that." -> "put the green cube on
    the red cube, then put the blue cube on the green cube" (the colours the scene's cubes
    have, three of them)."""
    m = _ALL_THREE.match(text.strip()) or _ON_TOP_OF_THAT.match(text.strip())
    if not m:
        return text
    x, a = m["x"].lower(), m["a"].lower()
    b = (m["b"] if "b2" not in m.groupdict() or m["b"] else m["b2"]).lower()
    if {x, a, b} - cube_colours or len({x, a, b}) != 3:
        return text
    return f"put the {a} cube on the {x} cube, then put the {b} cube on the {a} cube"


_TOP_AS = re.compile(
    r"\b(?P<v>complete|finish(?:\s+off)?|round\s+off|top\s+off)\s+the\s+(?P<t>tower|stack|pile)"
    r"\s*,?\s*(?:with\s+the\s+(?P<c>[a-z]+)\s+(?:" + _CUBE_NOUN + r")\s+as\s+(?:its|the)\s+top"
    r"(?:\s+one)?|so\s+(?:that\s+)?the\s+(?P<c2>[a-z]+)\s+(?:" + _CUBE_NOUN + r")\s+is\s+"
    r"(?:its|the)\s+top(?:\s+one)?)",
    re.I,
)


def top_as(text: str) -> str:
    """ "Complete the tower with the green cube as its top." -> "complete the tower with the
    green cube"."""
    return _TOP_AS.sub(
        lambda m: f"complete the {m['t'].lower()} with the {(m['c'] or m['c2']).lower()} cube",
        text,
    )


_SOME_CUBE = re.compile(
    rf"\b(?:some\s+(?:{_CUBE_NOUN})(?:\s+or\s+other)?|one\s+of\s+(?:those|these|the)\s+"
    rf"(?:{_CUBE_NOUN})s)\b",
    re.I,
)


_NOT_SOME = re.compile(
    r"\b(?:whichever|which|each|every|the(?:\s+[a-z]+)?|an?(?:\s+[a-z]+)?)\s*$", re.I
)
"""Words before "one of the cubes" that make it a definite pick ("whichever one of", "the
right one of", "the second one of"), not any of several."""


def some_cube(text: str) -> str:
    """ "some cube (or other)", "one of those cubes" -> "a cube" (any of several: asked
    which; not "whichever / each / the right / the second one of the cubes ...")."""
    return _SOME_CUBE.sub(
        lambda m: m[0] if _NOT_SOME.search(text[: m.start()]) else "a cube",
        text,
    )


_RIGHT_NEXT = re.compile(
    rf"\b(?P<np>the\s+(?:{_CUBE_NOUN}|one))\s+(?:(?:that's|that\s+is|sitting|lying)\s+)?"
    r"(?:right|just|immediately|directly)\s+(?P<rel>next\s+to|beside|alongside)\b",
    re.I,
)


def right_next_to(text: str) -> str:
    """ "the cube right next to X", "the block just beside X" -> "the cube next to X"."""
    return _RIGHT_NEXT.sub(lambda m: f"{m['np']} {m['rel']}", text)


_TWO_SET_ASIDE = re.compile(
    r"^(?:(?:please\s+)?(?:don't|do\s+not)\s+(?:touch|disturb|move)|keep\s+(?:your\s+hands\s+)?"
    r"(?:off|away\s+from)|leave)\s+the\s+(?:two|2)\s+(?:(?:front|back|left|right)\s+(?:two\s+)?)?"
    rf"(?:{_CUBE_NOUN})s(?:\s+(?:at|in)\s+(?:the\s+)?(?:front|back|left|right))?"
    r"(?:\s+alone)?\s*(?:[,;:\-\u2013\u2014]\s*(?:and\s+)?|and\s+)(?:just\s+|only\s+)?"
    rf"(?=[a-z]+\s+the\s+(?P<c>[a-z]+)\s+(?:{_CUBE_NOUN})\b)",
    re.I,
)
_FRONT_TWO = re.compile(rf"\bthe\s+(front|back)\s+two\s+((?:{_CUBE_NOUN})s)\b", re.I)


def two_set_aside(text: str, cube_colours: frozenset[str]) -> str:
    """ "Don't touch the two cubes at the front; just put the red cube on P." -> "put the red
    cube on P." (the step names its cube by a colour of the scene's)."""
    text = _FRONT_TWO.sub(r"the two \2 at the \1", text.strip())
    m = _TWO_SET_ASIDE.match(text)
    if not m or m["c"].lower() not in cube_colours:
        return text
    return text[m.end() :]


_TOPIC_LOCATED = re.compile(
    rf"^the\s+(?P<c>[a-z]+)\s+(?P<n>{_CUBE_NOUN})\s+(?:on\s+top\s+of|at\s+the\s+top\s+of|"
    r"up\s+on|on)\s+the\s+(?:tower|stack|pile)\s*[,:;\-\u2013\u2014]+\s*(?:please\s+)?"
    r"(?P<v>put|place|set|lift|move|take|stack)\s+it\b",
    re.I,
)


def topic_located(text: str, cube_colours: frozenset[str]) -> str:
    """ "The green cube on top of the stack, put it on the right pad." -> "put the green cube
    on the right pad." (a cube of the scene's colours)."""
    m = _TOPIC_LOCATED.match(text.strip())
    if not m or m["c"].lower() not in cube_colours:
        return text
    said = f"{m['v'].lower()} the {m['c'].lower()} {m['n'].lower()}"
    return said + text.strip()[m.end() :]


_PLACED = rf"(?:(?:put|place|set|stack)\s+)?the\s+(?P<{{a}}>[a-z]+)(?:\s+{_CUBE_NOUN})?\s+"
_TOWER_LISTED = re.compile(
    r"^(?:(?:build|make)\s+(?:me\s+)?a\s+(?:tower|stack|pile)|tower\s+time)\s*"
    rf"[:\-\u2013\u2014,]+\s*(?:{_PLACED.format(a='a')}(?:on|onto)\s+the\s+(?P<x>[a-z]+)"
    rf"(?:\s+(?:{_CUBE_NOUN}|one))?|(?P<a2>[a-z]+)\s+(?:{_CUBE_NOUN})\s+(?:on|onto)\s+"
    rf"(?P<x2>[a-z]+)\s+(?:{_CUBE_NOUN}))\s*,?\s*(?:and\s+)?(?:then|after\s+that|next)\s+"
    rf"(?:{_PLACED.format(a='b')}(?:on|onto)\s+the\s+(?P<y>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?"
    rf"|(?P<b2>[a-z]+)\s+(?:{_CUBE_NOUN})\s+(?:on|onto)\s+(?P<y2>[a-z]+)\s+(?:{_CUBE_NOUN}))"
    r"\s*[.!]?$",
    re.I,
)


def tower_listed(text: str, cube_colours: frozenset[str]) -> str:
    """ "Build a tower: the red cube on the green cube, then the blue cube on the red cube."
    -> "put the red cube on the green cube, then put the blue cube on the red cube" (the
    second placing onto the cube the first placed, three cubes of the scene's colours)."""
    m = _TOWER_LISTED.match(text.strip())
    if not m:
        return text
    a, x = (m["a"] or m["a2"]).lower(), (m["x"] or m["x2"]).lower()
    b, y = (m["b"] or m["b2"]).lower(), (m["y"] or m["y2"]).lower()
    if y != a or {a, x, b} - cube_colours or len({a, x, b}) != 3:
        return text
    return f"put the {a} cube on the {x} cube, then put the {b} cube on the {a} cube"


def resaid(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with held-out 21's structures said plainly (see the module); ``cube_colours``:
    the colours the scene's cubes are named by."""
    text = no_home_after(withdrawn(text))
    text = tower_standing(pad_corrected(container_said(text)))
    text = stacked_in_order(tower_listed(text, cube_colours), cube_colours)
    text = top_as(some_cube(right_next_to(text)))
    return topic_located(two_set_aside(text, cube_colours), cube_colours)
