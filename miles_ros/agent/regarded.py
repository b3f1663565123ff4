"""Held-out 25's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`regarded` on the whole goal, after
the no-motion and colour readings, before :func:`~miles_ros.agent.rendered.rendered`):

- an aside after a step saying where a thing is ("..., it's right next to it", "- it's close
  by", "; it's not far"): no step, dropped (:func:`nearby_aside`);
- "that / this / the same pad" after one pad named earlier in the goal ("Slide the cube
  closest to the grey pad onto that pad."): that pad (:func:`that_pad`);
- a pad said first as the target, then a step whose place is "it" ("Yellow pad's the target:
  slide the green cube over to it."): that pad (:func:`target_first`);
- both pads visited, one said first ("Hover over each pad, the yellow one first.", "Go above
  both mats, starting with the grey one."): that pad, then the other (:func:`each_pad_first`);
- a cube made to face the robot ("Make X face the robot squarely.", "Get X to face you square
  on."): "turn X to face the robot" (:func:`made_to_face`);
- cubes ordered by weight ("Sort the cubes by how heavy they are.", "Put the blocks in order
  of how much they weigh."): "Weigh the cubes." (refused as the verb no skill does, naming the
  closest skill, as other verbs out of the repertoire are; :func:`by_weight`).

Grammar, not goals: each pattern is a frame (a predicative aside about place, a
demonstrative pointing back at a noun phrase, a distributive with an order word, a
causative with a facing verb, an ordering with a measure no skill takes) around noun phrase
slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN

_DASH = r"[-\u2013\u2014]+"
_NEARBY = re.compile(
    rf"\s*(?:[,;]|\s{_DASH})\s*(?:it'?s|it\s+is|that'?s|that\s+is)\s+(?:right\s+|just\s+|only\s+|"
    r"really\s+|very\s+)?(?:(?:next\s+to|beside|close\s+to|near(?:\s+to)?|by)\s+it|close(?:\s+by)?"
    r"|near(?:by)?|next\s+door|not\s+far(?:\s+(?:off|away))?|a\s+short\s+way\s+(?:off|away))"
    r"(?=\s*[.!]?\s*$)",
    re.I,
)


def nearby_aside(text: str) -> str:
    """ "Push X onto P, it's right next to it." -> "Push X onto P." (where a thing is, said
    after the step at the goal's end: it asks nothing)."""
    return _NEARBY.sub("", text)


_THAT_PAD = re.compile(rf"\b(?:that|this|the\s+same)\s+(?P<n>{_PAD_NOUN})\b", re.I)


def _pad_nps(places: tuple[tuple[str, ...], ...]) -> re.Pattern:
    words = "|".join(w for place in places for w in place) or "left|right"
    return re.compile(rf"\bthe\s+(?P<w>{words})\s+(?:{_PAD_NOUN})\b", re.I)


def _place_of(word: str, places: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
    return next((p for p in places if word.lower() in p), None)


def that_pad(text: str, places: tuple[tuple[str, ...], ...] = ()) -> str:
    """ "Slide the cube closest to the grey pad onto that pad." -> "... onto the grey pad."
    ("that / this / the same pad" is the one pad the goal named before it; left as said when
    it named none or two; a first sentence that only points that pad out, or the place said
    twice, "to where P is, right onto that pad", is said once)."""
    m = _THAT_PAD.search(text)
    if m is None:
        return text
    before = {
        (_place_of(p["w"], places) or (p["w"].lower(),)): p[0]
        for p in _pad_nps(places).finditer(text[: m.start()])
    }
    if len(before) != 1:
        return text
    text = text[: m.start()] + next(iter(before.values())) + text[m.end() :]
    return _WHERE_IT_IS.sub(" ", _POINTED_OUT.sub("", text))


_PAD_NP = rf"the\s+[a-z]+\s+(?:{_PAD_NOUN})"
_POINTED_OUT = re.compile(
    rf"^(?:(?:do\s+you\s+|can\s+you\s+)?see\s+{_PAD_NP}\s*\?|{_PAD_NP}\s+is\s+(?:the|your)\s+"
    rf"(?:target|goal|destination)\s*(?:[,;:]|\s{_DASH}))\s*",
    re.I,
)
"""A first sentence that only points the pad out ("See the grey pad?", "The grey pad is the
target:"): the step names it now, so it asks nothing."""
_TARGET_FIRST = re.compile(
    rf"^(?:(?:the\s+)?(?P<w>[a-z]+)\s+(?P<n>{_PAD_NOUN})(?:'s|\u2019s|\s+is|\s+will\s+be)\s+(?:the|"
    r"your|our)\s+(?:target|goal|destination|aim)|(?:the|your|our)\s+(?:target|goal|destination|"
    rf"aim)(?:'s|\u2019s|\s+is|\s+will\s+be)\s+(?:the\s+)?(?P<w2>[a-z]+)\s+(?P<n2>{_PAD_NOUN}))"
    rf"\s*(?:[,;:.]|\s{_DASH})\s*(?P<rest>.+)$",
    re.I,
)
_TO_IT = re.compile(r"\b(?P<to>onto|on\s+to|on|to|into)\s+it\b(?=\s*(?:[.!]\s*)?$)", re.I)


def target_first(text: str) -> str:
    """ "Yellow pad's the target: slide the green cube over to it." -> "slide the green cube over
    to the yellow pad." (a pad said first as the target, or "the target is P:", "it" at the
    step's end the place it names; a step that names its place otherwise is left as said)."""
    m = _TARGET_FIRST.match(text.strip())
    if m is None:
        return text
    w, noun = (m["w"], m["n"]) if m["w"] else (m["w2"], m["n2"])
    rest, n = _TO_IT.subn(rf"\g<to> the {w.lower()} {noun.lower()}", m["rest"], count=1)
    return rest if n else text


_WHERE_IT_IS = re.compile(
    rf"\s+(?:(?:across|over)\s+)?to\s+where\s+{_PAD_NP}\s+is\s*,?\s*(?:right\s+)?"
    r"(?=(?:onto|on\s+to|on|to)\s)",
    re.I,
)
"""A place said twice, the second time by "that pad" ("... across to where the grey pad is,
right onto that pad"): once."""


_EACH_PAD_FIRST = re.compile(
    r"^(?P<v>(?:please\s+)?(?:hover|go|move|visit|reach|travel|point)(?:\s+(?:the\s+gripper|"
    r"your\s+(?:gripper|hand)|the\s+arm))?(?:\s+(?:over|above|to))?)\s+(?:each|both|every|"
    rf"all)(?:\s+of)?(?:\s+the)?(?:\s+two)?\s+(?:{_PAD_NOUN})s?(?:\s+with\s+the\s+gripper)?\s*"
    rf"(?:[,;:]|\s{_DASH})?\s*(?:(?:starting|beginning)\s+with\s+)?(?:the\s+)?(?P<w>[a-z]+)"
    rf"(?:\s+(?:one|{_PAD_NOUN}))?(?P<first>\s+(?:first|before\s+the\s+other))?\s*[.!]?\s*$",
    re.I,
)


def each_pad_first(text: str, places: tuple[tuple[str, ...], ...] = ()) -> str:
    """ "Hover over each pad, the yellow one first." -> "hover over the left pad, then hover
    over the right pad" (both pads, the one said first before the other; ``places``: each
    place's words, its side then its colour)."""
    m = _EACH_PAD_FIRST.match(text.strip())
    if m is None or len(places) != 2:
        return text
    if not m["first"] and not re.search(r"\b(?:starting|beginning)\s+with\b", m[0], re.I):
        return text
    first = _place_of(m["w"], places)
    if first is None:
        return text
    other = next(p for p in places if p != first)
    return f"hover over the {first[0]} pad, then hover over the {other[0]} pad"


_ROBOT = r"(?:the\s+robot|the\s+arm|you|yourself|me)"
_MADE_TO_FACE = re.compile(
    rf"\b(?:make|get|have|set)\s+(?P<np>(?:the\s+[a-z]+\s+(?:{_CUBE_NOUN})|it))\s+(?:to\s+)?"
    rf"(?:sit\s+)?(?:squarely\s+)?(?:face|facing|point\s+at|look\s+at)\s+{_ROBOT}"
    r"(?:\s+(?:squarely|square\s+on|straight\s+on|head\s+on|directly|straight))?\b",
    re.I,
)


def made_to_face(text: str) -> str:
    """ "Make the green cube face the robot squarely." -> "turn the green cube to face the
    robot" (a cube caused to face the robot is the turn that points a face at it)."""
    return _MADE_TO_FACE.sub(lambda m: f"turn {m['np']} to face the robot", text)


_BY_WEIGHT = re.compile(
    r"\b(?:sort|order|arrange|rank|line|put|place|set)\b[^.;!?]*?\b(?:by|according\s+to|in\s+"
    r"order\s+of|from\s+(?:the\s+)?(?:heaviest|lightest))\b[^.;!?]*?\b(?:weigh|weighs|weight|"
    r"weights|heavy|heaviness|heavier|heaviest|lighter|lightest|mass|how\s+much\s+they\s+weigh)\b",
    re.I,
)


def by_weight(text: str) -> str:
    """ "Sort the cubes by how heavy they are." -> "Weigh the cubes." (no skill weighs a cube:
    the repertoire check refuses the verb, as any other it has no skill for)."""
    return "Weigh the cubes." if _BY_WEIGHT.search(text) else text


def regarded(text: str, places: tuple[tuple[str, ...], ...] = ()) -> str:
    """``text`` with held-out 25's structures said plainly (see the module); ``places``: each
    place's words, its side then its colour."""
    text = nearby_aside(made_to_face(by_weight(target_first(text))))
    return each_pad_first(that_pad(text, places), places)
