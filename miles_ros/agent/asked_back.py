"""Words that leave the cube or the pad unsaid, said so that the reading asks back (issue 31,
held-out 40-42's remaining classes; docs/interfaces.md, "Default scene": a question back asks
only which thing). Each rule is a frame, not a wording:

- a demonstrative used as a pronoun ("that", "this", "that / this one") as the object of a
  verb of moving or turning, or heading a terse fragment ("That one - the grey pad."), in a
  goal that names no cube by colour or noun: it points at nothing the goal says, so it is
  "it", which the reading asks about (:func:`pointing_unnamed`);
- "onto / on / to P with it" closing a clause ("Green cube, onto the pad with it."): "with
  it" is the cube already said, so the place is read alone ("the pad" of two is asked);
- the ends of the cubes said with "hand": "the left- / right-hand-most cube" is "the leftmost
  / rightmost cube" (a cube, never a pad; asked when the cubes are level), and "the front /
  back cube" is "the frontmost / backmost cube" (a cube at an end of the table front to back,
  asked when level, never refused as "no front cube");
- "there" after a cube said as a topic or seen ("That fourth cube there - ...", "See red
  there? ..."): it says where the cube stands, not where it goes, so it is dropped and no pad
  is asked (:func:`there_of_cube`).
"""

from __future__ import annotations

import re

from miles_ros.agent.cube_words import VERBS
from miles_ros.agent.vocabulary import COLOURS

_CUBE_NOUN = r"(?:cubes?|blocks?|box(?:es)?|bricks?)"
_MOVING = sorted(
    (VERBS - {"go", "head", "reset", "retract", "return", "approach", "reach", "hover", "point"})
    | {"hoist", "heave", "raise", "lower", "haul", "lug", "pop", "swivel", "pivot", "tip"},
    key=len,
    reverse=True,
)
"""Verbs whose object is a cube moved or turned (the intransitive ones and the reach left
out: "go there", "hover over that")."""
_AFTER_OBJECT = (
    r"(?=\s*(?:[-,.;:!?\u2013\u2014]|$)|\s+(?:up|over|across|onto|on|to|into|in|round|around|"
    r"back|down|along|towards?|by|\d+|a|an|the|for|please|clockwise|anticlockwise|"
    r"counter-?clockwise|left(?:wards)?|right(?:wards)?)\b)"
)
"""What may follow an object pronoun: a place, a turn, a particle or the clause's end; not a
noun ("that cube") nor a verb ("that is")."""
_DEMONSTRATIVE_OBJECT = re.compile(
    rf"\b(?P<verb>{'|'.join(_MOVING)})(?P<up>\s+up)?\s+(?:that|this)(?:\s+one)?\b{_AFTER_OBJECT}",
    re.I,
)
_DEMONSTRATIVE_TOPIC = re.compile(
    r"^(?P<lead>(?:(?:ok(?:ay)?|right|now|so|and)\s*,?\s+)*)(?:that|this)(?:\s+one)?(?=\s*[-,:\u2013\u2014])",
    re.I,
)
_WITH_IT = re.compile(
    r"\b(?P<place>(?:onto|on\s+to|on|into|to)\s+the\s+(?:[a-z-]+\s+)?[a-z]+)\s+with\s+it\b"
    r"(?=\s*(?:[,.;:!?]|$|please|thanks|thank\s+you|ta|cheers))",
    re.I,
)
_HAND_MOST = re.compile(r"\b(left|right)(?:-|\s+)?hand(?:-|\s+)?most\b", re.I)
_FRONT_CUBE = re.compile(
    r"(?<!\btwo )(?<!\bboth )(?<!\bthree )\b(?P<the>the\s+)?(?P<end>front|back|rear)\s+"
    r"(?P<noun>cube|block|box|brick)\b(?!\s+of\b)",
    re.I,
)
_TOPIC_THERE = re.compile(
    rf"^(?P<np>(?:that|this|the)\s+(?:[a-z]+\s+)?(?:{_CUBE_NOUN}|one))\s+(?:over\s+|right\s+)?there"
    r"(?=\s*[-,:\u2013\u2014])",
    re.I,
)
_ORDINAL_THAT = re.compile(
    r"\b(that|this)\s+((?:first|second|third|fourth|fifth|sixth|last)\s+(?:cube|block|box|brick|one))\b",
    re.I,
)
_SEEN_THERE = re.compile(
    r"\b(?P<seen>(?:see|spot|notice|see\s+the)\s+(?:the\s+)?[a-z]+(?:\s+(?:cube|block|box|brick|one))?)"
    r"\s+(?:over\s+|right\s+|sitting\s+|standing\s+)?there\s*\?",
    re.I,
)


def _names_a_cube(text: str, cube_colours: frozenset[str]) -> bool:
    words = set(re.findall(r"[a-z]+", text.lower()))
    named = words & set(cube_colours or COLOURS)
    return bool(named) or bool(re.search(rf"\b{_CUBE_NOUN}\b", text, re.I))


def pointing_unnamed(text: str, cube_colours: frozenset[str]) -> str:
    """``text`` with a demonstrative pronoun that points at nothing said as "it" (see the
    module): only in a goal that names no cube by colour or noun ("Hoist that onto the
    yellow pad." -> "Hoist it onto the yellow pad.", asked which cube)."""
    if _names_a_cube(text, cube_colours):
        return text
    text = _DEMONSTRATIVE_OBJECT.sub(lambda m: f"{m['verb']}{m['up'] or ''} it", text)
    return _DEMONSTRATIVE_TOPIC.sub(lambda m: f"{m['lead']}{'it' if m['lead'] else 'It'}", text)


def there_of_cube(text: str) -> str:
    """``text`` without a "there" that says where a cube said as a topic or seen stands (see
    the module); a demonstrative before an ordinal is "the" ("that fourth cube": the fourth,
    refused where the scene has three)."""
    text = _ORDINAL_THAT.sub(lambda m: ("The " if m[1][0].isupper() else "the ") + m[2], text)
    text = _TOPIC_THERE.sub(lambda m: m["np"], text)
    return _SEEN_THERE.sub(lambda m: m["seen"] + "?", text)


def _end_most(m: re.Match) -> str:
    end = "back" if m["end"].lower() == "rear" else m["end"].lower()
    return f"{m['the'] or 'the '}{end}most {m['noun']}"


def asked_back(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """The rules of the module, in order."""
    text = there_of_cube(text)
    text = _WITH_IT.sub(lambda m: m["place"], text)
    text = _HAND_MOST.sub(lambda m: m[1] + "most", text)
    text = _FRONT_CUBE.sub(_end_most, text)
    return pointing_unnamed(text, cube_colours)
