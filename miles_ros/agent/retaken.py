"""Held-out 29's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`retaken` after the order words,
before the colour reading):

- the unwanted placing said first, then the one wanted on the same cube ("I don't want the
  blue cube on the red one, I want the green one on it", "Not the blue block on the red one;
  the green one is what I want on it"): "put the green one on the red one"
  (:func:`wanted_instead`);
- "anything / any cube / whatever cube but X on P ... okay, the Y one then": the last choice
  wins, "put the Y one on P" (:func:`last_choice`);
- a placing, then the tower "there" said as its pairs ("Put A on P and build the tower
  there: B on A, C on B"): each pair a placing, in order (:func:`tower_there`);
- a tower on a place said by its order ("Make a tower on P: the A cube first, then the B
  cube on it"): "put the A cube on P, then put the B cube on the A cube"
  (:func:`tower_first_then`);
- "stack all the cubes with A at the bottom / base": "stack all three cubes on A", which the
  tower reading orders in the scene (a standing stack's top first:
  :func:`~miles_ros.agent.towers.read_tower`) (:func:`all_on_bottom`);
- the arm taken back "to where it started (out / off / from)": "go home" (:func:`started`);
- "X -> P, pushed, not carried": the arrow a placing, the manner words its verb ("push X
  onto P") (:func:`arrow`);
- both pads as what a placing moves ("put both pads / the two mats on X"): "put the left pad
  and the right pad on X", which the reading refuses (a pad is fixed to the table)
  (:func:`both_pads`).

Grammar, not goals: each is a frame (a volitional negation with a contrastive "I want ... on
it"; a free-choice "anything but" repaired by a fragment; a locative "there" after a
placing, then a list of pairs; a tower with "first ... then ... on it"; a universal
quantifier with a locative "at the bottom"; a return to an origin said as a free relative;
an arrow between two noun phrases with participles of manner; a plural of the scene's
places) around noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN, verb_led
from miles_ros.agent.phrases import COLOR_WORDS
from miles_ros.agent.reread import _CUBE_NP, _DASH, _STACK

_CUBE = rf"(?:{_CUBE_NOUN}|one)"
_ON = r"(?:on\s+top\s+of|onto|on\s+to|on|to)"
_SEP = rf"(?:\s*[,;:.]+\s*|\s+{_DASH}\s*|\s*\.\.\.+\s*)"

_WANTED = re.compile(
    r"^(?:i\s+(?:don'?t|do\s+not)\s+want(?:\s+to\s+see)?|i'?d\s+rather\s+not\s+(?:have|see)|"
    rf"not)\s+(?P<x>{_CUBE_NP})\s+{_ON}\s+(?P<y>{_CUBE_NP}){_SEP}(?:but\s+)?(?:(?:i\s+(?:want|need)"
    rf"|i'?d\s+(?:like|prefer|rather\s+have))\s+(?P<z>{_CUBE_NP})\s+{_ON}\s+(?:it|there|that\s+one)"
    rf"|(?P<z2>{_CUBE_NP})\s+is\s+(?:what|the\s+one)\s+i\s+(?:want|need)\s+{_ON}\s+(?:it|there))"
    r"[.!]?$",
    re.I,
)


def wanted_instead(text: str) -> str:
    """ "I don't want X on Y, I want Z on it." -> "put Z on Y" (the placing not wanted
    dropped)."""
    m = _WANTED.match(text.strip())
    return f"put {(m['z'] or m['z2']).lower()} on {m['y'].lower()}." if m else text


_LAST = re.compile(
    rf"^(?:(?:put|place|set|move)\s+)?(?:anything|any\s+{_CUBE}|whatever\s+{_CUBE}|"
    rf"any\s+other\s+{_CUBE})\s+(?:but|except|other\s+than|apart\s+from)\s+(?P<x>{_CUBE_NP})"
    rf"\s+(?P<on>{_ON})\s+(?P<p>the\s+[a-z]+\s+\w+){_SEP}(?:(?:ok(?:ay)?|alright|all\s+right|"
    rf"fine|right)\s*,?\s*(?:then\s*,?\s*)?)?(?:make\s+it\s+)?(?P<z>{_CUBE_NP})(?:\s+then)?[.!]?$",
    re.I,
)


def last_choice(text: str) -> str:
    """ "Anything but X on P... okay, the Y one then." -> "put the Y one on P" (the choice
    said last)."""
    m = _LAST.match(text.strip())
    return f"put {m['z'].lower()} {m['on'].lower()} {m['p'].lower()}." if m else text


_COLOUR_CUBE = rf"(?:the\s+)?[a-z]+(?:\s+{_CUBE})?"
_PAIR = re.compile(
    rf"^(?:then\s+|and\s+)*(?P<a>{_COLOUR_CUBE})\s+(?:on\s+top\s+of|onto|on)\s+(?P<b>{_COLOUR_CUBE})$",
    re.I,
)
_THERE = re.compile(
    rf"^(?P<first>(?P<verb>\w+)\s+{_CUBE_NP}\s+{_ON}\s+the\s+[a-z]+\s+\w+)\s*,?\s+(?:and\s+|then\s+)*"
    rf"(?:build|make|stack|start|put\s+up)\s+(?:the|a)\s+{_STACK}(?:\s+up)?\s+(?:there|on\s+it)"
    rf"\s*(?::|{_DASH})\s*(?P<pairs>.+?)[.!]?$",
    re.I,
)


def _cube(said: str) -> str:
    """ "green", "the green one", "green cube" -> "the green cube"."""
    words = said.lower().split()
    words = words[1:] if words[0] == "the" else words
    return f"the {words[0]} cube"


def tower_there(text: str) -> str:
    """ "Put A on P and build the tower there: B on A, C on B." -> "put A on P, then put the B
    cube on the A cube, then put the C cube on the B cube"."""
    m = verb_led(_THERE, text)
    if m is None:
        return text
    pairs = [_PAIR.match(p.strip()) for p in re.split(r"\s*[,;]\s*|\s+and\s+", m["pairs"])]
    if not pairs or not all(pairs):
        return text
    steps = [f"put {_cube(p['a'])} on {_cube(p['b'])}" for p in pairs]
    return ", then ".join([m["first"][0].lower() + m["first"][1:], *steps]) + "."


_FIRST_THEN = re.compile(
    rf"^(?:build|make|start|put\s+up)\s+a\s+{_STACK}\s+on\s+(?P<p>the\s+[a-z]+\s+{_PAD_NOUN})\s*"
    rf"(?::|{_DASH}|,)\s*(?:first\s+)?(?P<a>{_CUBE_NP})(?:\s+goes\s+down)?(?:\s+first)?\s*,?\s+"
    rf"(?:and\s+)?(?:then|after\s+that|next)\s+(?:put\s+)?(?P<b>{_CUBE_NP})\s+(?:goes\s+)?"
    rf"(?:on\s+top\s+of|onto|on)\s+(?:top\s+of\s+)?(?:it|that\s+one)(?:\s+after)?[.!]?$",
    re.I,
)


def tower_first_then(text: str) -> str:
    """ "Make a tower on P: the A cube first, then the B cube on it." -> "put the A cube on
    P, then put the B cube on the A cube"."""
    m = _FIRST_THEN.match(text.strip())
    if m is None:
        return text
    a = m["a"].lower()
    return f"put {a} on {m['p'].lower()}, then put {m['b'].lower()} on {_cube(a)}."


_ALL_ON = re.compile(
    r"^(?:stack|pile|put)(?:\s+up)?\s+(?:all|every)(?:\s+one)?(?:\s+of)?(?:\s+the)?(?:\s+three)?\s+"
    rf"(?:{_CUBE_NOUN})(?:e?s)?(?:\s+up)?(?:\s+(?:into|in)\s+(?:one|a|a\s+single)\s+{_STACK})?\s*,?\s+"
    rf"(?:with\s+)?(?P<a>{_CUBE_NP})\s+(?:at\s+the\s+"
    r"(?:bottom|base)|on\s+the\s+bottom|lowest|underneath)[.!]?$",
    re.I,
)


def all_on_bottom(text: str) -> str:
    """ "Stack all the cubes with the red cube at the bottom." -> "stack all three cubes on
    the red cube"."""
    m = _ALL_ON.match(text.strip())
    return f"stack all three cubes on {_cube(m['a'])}." if m else text


_STARTED = re.compile(
    r"\b(?:take|bring|move|return|send|get|put)\s+(?:the|your)\s+(?:arm|gripper|robot|hand)\s+"
    r"(?:back\s+)?to\s+(?:where\s+|the\s+(?:spot|place|position|pose|point)\s+(?:where\s+|that\s+)?)"
    r"(?:it|you)\s+(?:started|began|begun|was\s+at\s+the\s+start)(?:\s+(?:out|off|from|at))?"
    r"(?:\s+from)?\b",
    re.I,
)


def started(text: str) -> str:
    """ "Take the arm back to where it started out" -> "go home"."""
    return _STARTED.sub("go home", text)


_ARROW = re.compile(
    r"^(?P<x>(?:the\s+)?[a-z]+(?:\s+\w+)?)\s*(?:->|=>|\u2192)\s*(?P<p>(?:the\s+)?[a-z]+\s+\w+)"
    r"(?P<how>(?:\s*[,;]\s*[^,;]+?)*)[.!]?$",
    re.I,
)
_BARE_COLOUR = re.compile(
    rf"^(?:the\s+)?(?:{'|'.join(w for words in COLOR_WORDS.values() for w in words)})$", re.I
)
_PUSHED = re.compile(r"\b(?:push\w*|slid(?:e|ing)?|shov\w*|nudg\w*|drag\w*)\b", re.I)
_LIFTED = re.compile(r"\b(?:lift\w*|carr\w*|pick\w*|rais\w*)\b", re.I)
_NOT_SAID = re.compile(r"\b(?:not|no|never|without)\s+(?:by\s+)?(?P<w>\w+)", re.I)


def arrow(text: str) -> str:
    """ "Blue cube -> yellow pad, pushed, not carried." -> "push the blue cube onto the yellow
    pad" (lifted, or no manner: "put ... on"; the place said first: the other way round); a
    colour said alone before the arrow is that colour's cube ("blue -> P, push it"), and the
    manner may follow a comma or a semicolon."""
    m = _ARROW.match(text.strip())
    if m is None:
        return text
    x = f"{m['x']} cube" if _BARE_COLOUR.match(m["x"]) else m["x"]  # "blue -> ...": a cube
    if " " not in x.strip():
        return text
    x, p = (s if s.lower().startswith("the ") else f"the {s}" for s in (x, m["p"]))
    if re.search(rf"\b{_PAD_NOUN}$", x, re.I) and not re.search(rf"\b{_PAD_NOUN}$", p, re.I):
        x, p = p, x  # the place first: "Right mat -> the blue brick"
    how = _NOT_SAID.sub("", m["how"])  # the manner ruled out says nothing of the one asked
    if _PUSHED.search(how) and not _LIFTED.search(how):
        return f"push {x.lower()} onto {p.lower()}."
    return f"put {x.lower()} on {p.lower()}."


_BOTH_PADS = re.compile(
    rf"\b(?:both(?:\s+of\s+the)?|the\s+two|the\s+pair\s+of|each\s+of\s+the)\s+{_PAD_NOUN}s\b"
    r"(?=\s+(?:on\s+top\s+of|onto|on|over|into|to)\b)",
    re.I,
)


def both_pads(text: str) -> str:
    """ "Put both pads on X" -> "put the left pad and the right pad on X" (a pad moved: the
    reading refuses it)."""
    return _BOTH_PADS.sub("the left pad and the right pad", text, count=1)


def retaken(text: str) -> str:
    """``text`` with held-out 29's structures said plainly (see the module)."""
    text = tower_first_then(tower_there(last_choice(wanted_instead(text))))
    return both_pads(arrow(started(all_on_bottom(text))))
