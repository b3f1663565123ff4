"""Held-out 18's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`rephrased` on the whole goal
first, before :func:`~miles_ros.agent.restated.restated`):

- a place said, then corrected as "not on Q, on P" ("Put X on Q - actually no, not on Q, on
  P."): one step, onto P (:func:`not_on_but`);
- a tower of two said as a tower, then its parts ("Make a tower of two: X on Y", "two-cube
  stack - X on top of Y"): "put X on Y", the cube said first on top (:func:`two_high`);
- "finish / complete / top off the tower with X": "put X on top of the tower"
  (:func:`tower_finished`);
- three cubes stacked on a place in an order said after it ("Stack the three cubes on P: A
  first, then B, then C"): A onto P, B onto A, C onto B (:func:`stacked_in_order`);
- a placing, then "(and) then turn it": "it" the cube carried (:func:`turned_after`);
- "... and let go / release it / drop it there" after a point: the placing at the point,
  no step more (:func:`let_go`); "leave the tower alone and V X onto P": the step
  (:func:`tower_left`);
- "go / head to P" as a clause of its own: "hover over P" (:func:`went_to_pad`);
- "(over) to P with X": "put X on P" (:func:`with_place_first`);
- "... . Don't move anything else." / "Nothing else is to be moved." as a sentence of its
  own after a step: said as the step's "and don't touch the other cubes"
  (:func:`else_after`);
- "the front / back / rear cube": "the frontmost / backmost cube" (the depth superlative
  said as an adjective; :func:`depth_adjective`); "leave the two cubes at the back alone;
  V the other one": "V the frontmost cube" (:func:`two_at_back`);
- "the cube nearest P: V it onto that pad": "V it onto P" ("that pad" names the pad of the
  topic; :func:`that_pad`);
- "X is in my / the way; could you V it ...": "V X ..." (a reason, no place:
  :func:`in_the_way`);
- "hold / keep / stay still while I ...", "don't move while I ...": no motion
  (:func:`still_while`); "stack those two" with nothing named: "stack them", asked which
  (:func:`those_two`);
- a goal of going home said with a typo of "home" ("go hoem now"): "go home", only where
  the word is one edit from "home" and no other word (:func:`home_typo`).

Grammar, not goals: each pattern is a frame (a correction, a count, a list's order, a
reason, a subordinate "while" clause) around clauses or noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import (
    _CUBE_NOUN,
    _PAD_NOUN,
    cube_noun,
    noun_phrase,
    verb_led,
    verb_of,
)
from miles_ros.agent.scene_colours import CUBE_COLOUR

_PLACE_PREP = r"(?:on top of|onto|on to|on|into|to|over to|across to)"
_MARK = r"(?:\s*(?:\.{2,}|\u2026|[,;:])\s*|\s+[-\u2013\u2014]+\s*)"
_NOT_ON = re.compile(
    rf"^(?P<head>.+?\b{_PLACE_PREP})\s+(?P<q>(?:the|that|this)\s+[^,;:.!?\u2013\u2014]+?){_MARK}"
    r"(?:(?:actually|sorry|no|wait|hang on|hold on|oops|oh|i mean)[\s,]*)*(?:[-\u2013\u2014]\s*)?"
    rf"not\s+{_PLACE_PREP}\s+(?P<q2>(?:the|that|this)\s+[^,;:.!?\u2013\u2014]+?)"
    rf"(?:{_MARK}|\s+)(?:but\s+)?{_PLACE_PREP}\s+(?P<p>(?:the|that|this)\s+[^,;:.!?]+?)"
    r"(?P<end>[.!?]*)$",
    re.I,
)


def not_on_but(text: str) -> str:
    """ "Put X on Q - actually no, not on Q, on P." -> "Put X on P." (the place given up said
    again after "not"; anything else unchanged)."""
    m = _NOT_ON.match(text.strip())
    if m is None or m["q"].lower() != m["q2"].lower() or noun_phrase(m["p"]) is None:
        return text
    return f"{m['head']} {m['p']}{m['end']}"


_TWO = (
    r"(?:(?:tower|stack|pile) of two|"
    r"two[- ](?:cube|block|high|level|storey|story)\s+(?:tower|stack|pile))"
)
_TWO_HIGH = re.compile(
    r"^(?:(?:please\s+)?(?:make|build|do|put together|let'?s have|i want|can you make)\s+)?"
    r"(?:a|an)?\s*"
    rf"{_TWO}(?:,?\s*please)?{_MARK}(?:with\s+)?(?:the\s+)?(?P<x>\w+)(?:\s+{_CUBE_NOUN})?\s+"
    rf"(?:on top of|on|onto|over)\s+(?:the\s+)?(?P<y>\w+)(?:\s+{_CUBE_NOUN})?\s*[.!]?$",
    re.I,
)


def two_high(text: str, cube_colours: frozenset[str]) -> str:
    """ "Make a tower of two: the red cube on the blue cube." -> "put the red cube on the blue
    cube" (each a cube of the scene by its colour)."""
    m = _TWO_HIGH.match(text.strip())
    if m is None or {m["x"].lower(), m["y"].lower()} - cube_colours or m["x"] == m["y"]:
        return text
    return f"put the {m['x'].lower()} cube on the {m['y'].lower()} cube."


_FINISHED = re.compile(
    r"^(?P<verb>finish|complete|top|cap)(?:\s+off)?\s+(?P<t>the\s+(?:tower|stack|pile))(?:\s+off)?"
    rf"\s+(?:with|using)\s+(?P<x>(?:the|that|this)\s+(?:\w+\s+)?(?:{_CUBE_NOUN}|one))"
    r"(?P<end>\s*[,.!?].*)?$",
    re.I,
)


def tower_finished(text: str) -> str:
    """ "Finish the tower with the green cube." -> "put the green cube on top of the tower."
    ("complete / top off / cap the stack with ..." likewise)."""
    m = _FINISHED.match(text.strip())
    x = _cube_said(m)
    return f"put {x} on top of {m['t'].lower()}." if x else text


def _cube_said(m: re.Match | None) -> str | None:
    """The noun phrase of group ``x`` of ``m`` where it names a cube ("the red block", "the
    blue one"), else None."""
    x = m and noun_phrase(m["x"])
    return x if x and re.search(rf"\b{_CUBE_NOUN}\b|\bone\b", x, re.I) else None


_IN_ORDER = re.compile(
    r"^(?P<verb>stack|pile|build|put|place|set)\s+(?:up\s+)?(?:all\s+)?(?:the\s+)?(?:three|3|all)"
    rf"(?:\s+of\s+the)?\s+{_CUBE_NOUN}s\s+(?:up\s+)?(?:into a tower\s+)?"
    r"(?P<prep>on|onto|on top of)\s+"
    rf"(?P<p>the\s+\w+\s+{_PAD_NOUN}){_MARK}(?P<list>.+?)[.!]?$",
    re.I,
)
_ORDER_PART = re.compile(
    r"^(?:and\s+)?(?:then\s+)?(?:the\s+)?(?P<c>\w+)(?:\s+(?:one|cube|block))?"
    r"(?:\s+(?:first|next|second|last|on top|at the top|after that|after it|third))?$",
    re.I,
)


def stacked_in_order(text: str, cube_colours: frozenset[str]) -> str:
    """ "Stack the three cubes on the left pad: red first, then blue, then green." -> "put
    the red cube on the left pad, then put the blue cube on the red cube, then put the green
    cube on the blue cube" (each colour a cube of the scene, each said once)."""
    m = _IN_ORDER.match(text.strip())
    if m is None:
        return text
    parts = [p for p in re.split(r"\s*,\s*|\s+(?:and|then)\s+(?=\w)", m["list"]) if p]
    said = [_ORDER_PART.match(p.strip()) for p in parts]
    order = [s["c"].lower() for s in said if s]
    if len(said) != 3 or None in said or set(order) != cube_colours or len(cube_colours) != 3:
        return text
    steps = [f"put the {order[0]} cube on {m['p'].lower()}"]
    pairs = zip(order, order[1:], strict=False)
    steps += [f"put the {up} cube on the {low} cube" for low, up in pairs]
    return ", then ".join(steps) + "."


_TURNED_AFTER = re.compile(
    r"^(?P<a>(?:put|place|set|stack|move|push|slide|shove|nudge|lower|drop|carry|bring)\s+"
    rf"(?P<x>the\s+\w+\s+{_CUBE_NOUN})\s+[^,;.]+?)(?P<sep>\s*(?:,|;)?\s*(?:and\s+)?"
    r"(?:then|after that|afterwards|next|once it'?s (?:down|there))\s*,?\s+)"
    r"(?P<verb>turn|rotate|spin|twist|give)\s+it\b",
    re.I,
)


def turned_after(text: str) -> str:
    """ "Put X on P and then turn it 30 degrees." -> "... and then turn X 30 degrees" ("it"
    is the cube just carried, not another)."""
    m = _TURNED_AFTER.match(text.strip())
    if m is None:
        return text
    return f"{text.strip()[: m.end('verb')]} {m['x']}{text.strip()[m.end() :]}"


_GO_TO_PAD = re.compile(
    rf"(?P<lead>^|(?:,|;|\band|\bthen)\s+)(?:go|head|come)(?:\s+(?:over|across|straight))?\s+to\s+"
    rf"(?P<p>the\s+\w+\s+{_PAD_NOUN})\b(?=\s*(?:,|;|\.|$|\s+(?:and\s+)?then\b))",
    re.I,
)


def went_to_pad(text: str) -> str:
    """ "Go to the left pad, (not the right one,) and then back home." -> "hover over the
    left pad, and then back home." (going to a pad, a clause of its own, is the reach over
    it; "go to the left pad with the red cube" is not)."""
    return _GO_TO_PAD.sub(lambda m: f"{m['lead']}hover over {m['p']}", text)


_LET_GO = re.compile(
    r"\s*(?:,\s*)?(?:and\s+|then\s+|,\s*then\s+)+(?:let go(?: of it)?|let it go|release it|"
    r"drop it|set it down|put it down|leave it)\s+(?:there|at that point|at that spot)"
    r"\s*(?P<end>[.!]?)$",
    re.I,
)
_POINT = re.compile(r"-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?")


def let_go(text: str) -> str:
    """ "Carry X to 0.5, -0.15, 0.2 and let go there." -> "Carry X to 0.5, -0.15, 0.2." (the
    placing at the point is the step; letting go there is how it ends)."""
    m = _LET_GO.search(text)
    if m is None or not _POINT.search(text[: m.start()]):
        return text
    return text[: m.start()].rstrip(" ,") + (m["end"] or ".")


_TOWER_LEFT = re.compile(
    r"^(?:leave|don'?t touch|do not touch|keep away from|don'?t disturb|never mind)\s+the\s+"
    r"(?:tower|stack|pile)(?:\s+(?:alone|be|where it is|as it is))?\s*(?:,\s*|;\s*|\s+)(?:and\s+)?"
    r"(?:just\s+)?(?P<rest>(?P<verb>\w+)\s+(?:the|that|this)\s+\w+\s+\w+\s+.+)$",
    re.I,
)


def tower_left(text: str) -> str:
    """ "Leave the tower alone and slide the green cube onto the right pad." -> "slide the
    green cube onto the right pad." (the step said names its cube and a pad)."""
    m = verb_led(_TOWER_LEFT, text)
    if m is None:
        return text
    if not re.search(rf"\b{_PAD_NOUN}\b", m["rest"], re.I) or re.search(
        r"\b(?:tower|stack|pile|top)\b", m["rest"], re.I
    ):
        return text
    return m["rest"]


_WITH_PLACE = re.compile(
    rf"^(?:(?:over|across|back)\s+)?(?:on)?to\s+(?P<p>the\s+(?:\w+\s+)?{_PAD_NOUN})\s+with\s+"
    r"(?P<x>(?:the|that|this)\s+[^,;:.!?]+?)(?:\s*,?\s*(?:please|if you would|if you could|"
    r"thanks))?\s*[.!]?$",
    re.I,
)


def with_place_first(text: str) -> str:
    """ "Over to the left pad with the red cube, please." -> "put the red cube on the left
    pad." """
    m = _WITH_PLACE.match(text.strip())
    x = _cube_said(m)
    return f"put {x} on {m['p'].lower()}." if x else text


_ELSE_SENTENCE = re.compile(
    r"(?<=[.!])\s+(?:(?:and\s+)?(?:please\s+)?(?:don'?t|do not)\s+(?:move|touch|shift|disturb)\s+"
    r"(?:anything(?:\s+else)?|any(?:\s+of\s+the)?\s+other\s+(?:cubes|blocks|things)|the\s+other\s+"
    r"(?:cubes|blocks))|nothing\s+else\s+(?:should|may|can|is\s+to|must)\s+(?:move|be\s+moved))"
    r"(?:\s+(?:at all|please))?\s*[.!]?$",
    re.I,
)


def else_after(text: str) -> str:
    """ "Put X on P. Do not move anything else." -> "Put X on P and don't touch the other
    cubes." (no contradiction: only the cube said moves)."""
    m = _ELSE_SENTENCE.search(text)
    if m is None:
        return text
    return f"{text[: m.start()].rstrip(' .!')} and don't touch the other cubes."


_DEPTH_ADJ = re.compile(rf"\bthe\s+(?P<d>front|back|rear)\s+(?P<n>{_CUBE_NOUN}|one)\b", re.I)


def depth_adjective(text: str) -> str:
    """ "the front cube" -> "the frontmost cube", "the back / rear block" -> "the backmost
    block"."""

    def said(m: re.Match) -> str:
        depth = "front" if m["d"].lower() == "front" else "back"
        return f"the {depth}most {cube_noun(m['n'])}"

    return _DEPTH_ADJ.sub(said, text)


_TWO_AT_BACK = re.compile(
    r"^(?:leave|keep|don'?t (?:disturb|touch|move)|do not (?:disturb|touch|move))\s+the\s+two\s+"
    rf"{_CUBE_NOUN}s\s+(?:at|in)\s+the\s+(?:back|rear)(?:\s+(?:alone|be|where they are))?\s*"
    rf"(?:[;,:]|\s[-\u2013\u2014]+)\s*(?:and\s+|just\s+)*(?P<verb>\w+)\s+the\s+(?:other|remaining"
    rf"|third|last)\s+(?:one|{_CUBE_NOUN})\b",
    re.I,
)


def two_at_back(text: str) -> str:
    """ "Leave the two cubes at the back alone; push the other one onto P" -> "push the
    frontmost cube onto P" (the one cube not at the back: the frontmost of three)."""
    m = verb_led(_TWO_AT_BACK, text)
    if m is None:
        return text
    return f"{m['verb']} the frontmost cube{text.strip()[m.end() :]}"


_THAT_PAD = re.compile(
    rf"^(?P<topic>the\s+(?:{_CUBE_NOUN}|one)\s+(?:that'?s\s+)?(?:nearest|closest|farthest|"
    rf"furthest)\s+(?:to\s+|from\s+)?(?P<p>the\s+\w+\s+{_PAD_NOUN}))\s*(?::|,|\s[-\u2013\u2014]+)"
    rf"\s*(?P<rest>.+)$",
    re.I,
)


def that_pad(text: str) -> str:
    """ "The cube nearest the right pad: slide it onto that pad." -> "The cube nearest the
    right pad: slide it onto the right pad." ("that pad" points at the pad of the topic)."""
    m = _THAT_PAD.match(text.strip())
    if m is None:
        return text
    rest, n = re.subn(rf"\b(?:that|this|the same)\s+{_PAD_NOUN}\b", m["p"], m["rest"], flags=re.I)
    return f"{m['topic']}: {rest}" if n else text


_IN_THE_WAY = re.compile(
    rf"^(?P<np>(?:the|that|this)\s+(?:\w+\s+)?{_CUBE_NOUN})(?:'s|\u2019s|\s+is)\s+"
    r"(?:a bit\s+|kind of\s+|rather\s+|really\s+)?"
    r"(?:in\s+(?:my|the|our)\s+way|blocking\s+(?:me|my\s+\w+))\s*"
    r"(?:[;,:.]|\s[-\u2013\u2014]+)\s*(?P<rest>.+)$",
    re.I,
)


def in_the_way(text: str) -> str:
    """ "The green cube is in my way; could you move it to the left pad?" -> "could you move
    the green cube to the left pad?" (a reason said first; "it" the cube)."""
    m = _IN_THE_WAY.match(text.strip())
    if m is None or re.match(r"so\b", m["rest"], re.I):
        return text  # "..., so perhaps you could ...": the hedge's (reworded.unhedged)
    rest, n = re.subn(r"\bit\b", m["np"].lower(), m["rest"], count=1, flags=re.I)
    return rest if n else text


_STILL_WHILE = re.compile(
    r"^(?:(?:please|just|ok(?:ay)?|now)[,\s]+)*(?:(?:hold|stay|keep|remain)\s+(?:still|put|steady)|"
    r"(?:don'?t|do not)\s+move|freeze)(?:\s+(?:for me|for a (?:moment|second|sec|bit)|please))*"
    r"\s*,?\s+(?:while|whilst|as|until)\s+(?:i|we)\b[^.;!?]*[.!]?$",
    re.I,
)


def still_while(text: str) -> str:
    """ "Hold still while I adjust the camera." -> "Don't do anything." (no motion: the
    while-clause is the speaker's)."""
    return "Don't do anything." if _STILL_WHILE.match(text.strip()) else text


_THOSE_TWO = re.compile(
    r"\b(?P<verb>[a-z]+)\s+(?:(?:those|these)\s+two(?:\s+(?:cubes|blocks|bricks|boxes|ones))?|"
    r"the\s+two\s+of\s+them)\b",
    re.I,
)


def those_two(text: str) -> str:
    """ "Stack those two." with nothing named before -> "Stack them." (asked which)."""
    m = _THOSE_TWO.search(text)
    named = rf"\b{_CUBE_NOUN}s?\b|\b{CUBE_COLOUR}\b"
    if m is None or not verb_of(m["verb"]) or re.search(named, text[: m.start()], re.I):
        return text
    return f"{text[: m.end('verb')]} them{text[m.end() :]}"


_HOME_GOAL = re.compile(
    r"^(?P<lead>(?:please\s+)?(?:go|head|return|come|get|move)(?:\s+(?:back|right))?(?:\s+to)?"
    r"\s+)(?P<word>[a-z]+)(?P<tail>(?:[\s,]+(?:now|please|pls|plz|thanks|thx|again))*\s*[.!]?)$",
    re.I,
)
_NEAR_HOME = frozenset(
    "home hole hose hope homer homes homey hone honed dome come comb some hoe".split()
)
"""Words one edit from "home" that are words of their own (never read as "home"), and
"home" itself."""


def _one_edit(word: str, target: str) -> bool:
    """Whether ``word`` is one edit from ``target``: a letter swapped with the next, left
    out, added or changed."""
    if abs(len(word) - len(target)) > 1 or word == target:
        return False
    if len(word) == len(target):
        diff = [i for i, (a, b) in enumerate(zip(word, target, strict=True)) if a != b]
        if len(diff) == 1:
            return True
        i = diff[0] if diff else 0
        return (
            len(diff) == 2
            and diff[1] == i + 1
            and word[i] == target[i + 1]
            and word[i + 1] == target[i]
        )
    short, long = sorted((word, target), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def home_typo(text: str) -> str:
    """ "go hoem now pls" -> "go home now pls" (a goal of going home whose last word is one
    edit from "home" and is no word of its own: "go hope" stays)."""
    m = _HOME_GOAL.match(text.strip())
    if m is None:
        return text
    return f"{m['lead']}home{m['tail']}" if home_misspelt(m["word"]) else text


def home_misspelt(word: str) -> bool:
    """Whether ``word`` is "home" with a typo: one edit from it, its first letter kept, and
    no word of its own (:data:`_NEAR_HOME`)."""
    word = word.lower()
    return word not in _NEAR_HOME and _one_edit(word, "home") and word[0] == "h"


def rephrased(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with held-out 18's structures said plainly (see the module);
    ``cube_colours``: the colours the scene's cubes are named by."""
    text = home_typo(still_while(text))
    text = with_place_first(tower_finished(two_high(text, cube_colours)))
    text = turned_after(stacked_in_order(not_on_but(text), cube_colours))
    text = went_to_pad(tower_left(let_go(else_after(text))))
    text = in_the_way(that_pad(two_at_back(depth_adjective(text))))
    return those_two(text)
