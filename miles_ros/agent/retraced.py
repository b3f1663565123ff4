"""Held-out 30's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`retraced` first, before the
no-motion and order readings):

- the gripper over a cube, a reach of that cube: "bring / take / move the gripper (right)
  over / above X and stop / hold it / wait there", "move so you're above X", "get yourself
  above X", a hover said before "then V it" ("hover over X and then stack it on Y": the hover a
  step), and "..., then move / go over X" (a reach, not a push): "reach X" (:func:`over_cube`);
- nothing to do after all: "never mind, don't do anything after all", "forget I said / asked
  (anything)", "scratch that", "all good (here)", "everything's fine (as it is)": the remarks
  and the "after all" dropped, what is left the no-motion reading's (:func:`after_all`);
- a prohibition with an adverb or a pronoun between the negation and the verb ("don't you
  (dare) push it", "don't ever push it", "without ever / once picking it up", "without you
  lifting it", "never once lifting it"): the plain prohibition (:func:`plain_prohibition`);
- "one of the (two) pads / either (one) of the pads": "a pad", asked which
  (:func:`one_of_pads`);
- a tower said by its order on a place: "build a tower of all three / every cube on P: A
  first, then B, then C" -> "put A on P, then put B on A, then put C on B"; a tower of two on
  a place said by its bottom: "make a tower of X and Y on P, X underneath / at the bottom" ->
  "put X on P, then put Y on X" (:func:`tower_in_order`);
- an ordinal counted from a side: "the cube (that's) second (counting) (in) from the left"
  -> "the second cube from the left" (:func:`counted_from`);
- "the other pad, not the Q one": "the pad that isn't Q" (:func:`other_pad_not`).
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN
from miles_ros.agent.reread import _CUBE_NP, _DASH

_STACK = r"(?:tower|stack|pile)"
_PLACE_NP = rf"the\s+[a-z]+\s+(?:{_PAD_NOUN}|{_CUBE_NOUN})"
_GRIPPER = r"(?:the|your)\s+(?:gripper|hand|arm|fingers|tool|end\s+effector)"
_OVER = r"(?:(?:right|directly|just)\s+)?(?:over|above)"
_THERE = (
    r"\s*,?\s*(?:and\s+)?(?:stop|stay|wait|hold(?:\s+it)?|keep\s+it|leave\s+it|remain)"
    r"(?:\s+(?:there|still))?"
)
_GRIPPER_OVER = re.compile(
    rf"\b(?:(?:bring|take|move|get|put|position|hold|place)\s+{_GRIPPER}\s+{_OVER}\s+"
    rf"(?P<x>{_CUBE_NP}){_THERE}|(?:move\s+so\s+(?:that\s+)?you'?(?:re|\s+are)|get\s+yourself)"
    rf"\s+{_OVER}\s+(?P<x2>{_CUBE_NP})(?:{_THERE})?)(?=\s*[.!]?$)",
    re.I,
)
"""The gripper taken over a cube and kept there, or "you" over it (a gripper over a cube with
nothing after it already reads as a reach)."""
_HOVER_THEN = re.compile(
    rf"^(?:hover|move|go)\s+{_OVER}\s+(?P<x>{_CUBE_NP})(?:\s+first)?"
    r"(?=\s*,?\s*(?:and\s+)?(?:then|after\s+that|afterwards)\s+[a-z]+\s+it\b)",
    re.I,
)
"""A hover, then a step on "it" (the cube hovered over)."""
_THEN_OVER = re.compile(
    rf"(?P<then>\b(?:then|after\s+that|afterwards),?\s+)(?:move|go)\s+{_OVER}\s+"
    rf"(?P<x>{_CUBE_NP})(?=\s*[.!]?$)",
    re.I,
)


def over_cube(text: str) -> str:
    """The gripper over a cube: "reach X" (a step, not home; not a push)."""
    text = _GRIPPER_OVER.sub(lambda m: f"reach {m['x'] or m['x2']}", text.strip())
    text = _HOVER_THEN.sub(lambda m: f"reach {m['x']}", text)
    return _THEN_OVER.sub(lambda m: f"{m['then']}reach {m['x']}", text)


_REMARK = (
    r"(?:hmm+|wait|oh(?:\s+well)?|ah|okay|ok|actually|so|well|scratch\s+that|"
    r"forget\s+(?:i\s+(?:said|asked)(?:\s+(?:anything|that))?|(?:what\s+)?i\s+said)|"
    r"(?:it'?s\s+)?all\s+good(?:\s+here)?|everything'?s\s+(?:fine|good|okay)(?:\s+as\s+it\s+is)?)"
)
_REMARKS = re.compile(rf"^(?:{_REMARK}\s*(?:[,;.!]|{_DASH})+\s*)+", re.I)
_AFTER_ALL = re.compile(r"\s*,?\s*after\s+all(?=\s*[.!]?$)", re.I)
_ONLY_REMARKS = re.compile(rf"^(?:{_REMARK}\s*(?:[,;.!]|{_DASH})*\s*)+$", re.I)


def after_all(text: str) -> str:
    """Nothing to do after all: remarks before it ("hmm", "forget I said anything", "all
    good here") and a closing "after all" dropped; remarks alone: "never mind"."""
    if _ONLY_REMARKS.match(text.strip()) and re.search(r"forget|scratch|good|fine", text, re.I):
        return "never mind."
    rest = _REMARKS.sub("", text.strip())
    if rest == text.strip() or not re.search(
        r"\b(?:never\s+mind|no\s+need|don'?t|do\s+not|nothing)\b", rest, re.I
    ):
        return text
    return _AFTER_ALL.sub("", rest)


_BETWEEN = r"(?:(?:you|ever|once|even|at\s+any\s+point|at\s+any\s+time)\s+|you\s+dare\s+)+"
_MANNER = r"(?:push|slid|shov|drag|nudg|lift|pick|rais|carr|grab|touch|mov)[a-z]*\b"
_NEGATION_BETWEEN = re.compile(
    rf"\b(?P<neg>don'?t|do\s+not|never|without)\s+{_BETWEEN}(?=(?:{_MANNER}))", re.I
)
_NEVER_ING = re.compile(r",?\s+never\s+(?=[a-z]+ing\b)", re.I)


def plain_prohibition(text: str) -> str:
    """ "don't you (dare) push it", "without ever picking it up", "never once lifting it": the
    words between the negation and the verb dropped ("never V-ing" said "without V-ing")."""
    text = _NEGATION_BETWEEN.sub(lambda m: f"{m['neg']} ", text)
    return _NEVER_ING.sub(" without ", text)


_ONE_OF_PADS = re.compile(
    rf"\b(?:one\s+of\s+the\s+(?:two\s+)?|either\s+(?:one\s+)?of\s+the\s+(?:two\s+)?)"
    rf"(?P<n>{_PAD_NOUN})s\b",
    re.I,
)
_NAMED_BEFORE = re.compile(r"\bthe\s+[a-z]+\s+$", re.I)
"""A pad named just before ("the grey one of the two pads"): that one, not any."""


def one_of_pads(text: str) -> str:
    """ "one of the (two) pads", "either (one) of the pads": "a pad" (asked which)."""
    return _ONE_OF_PADS.sub(
        lambda m: m[0] if _NAMED_BEFORE.search(m.string[: m.start()]) else f"a {m['n'].lower()}",
        text,
    )


_COLOUR_NP = r"(?:the\s+)?(?P<{}>[a-z]+)(?:\s+(?:one|{}))?"
_THREE = (
    rf"(?:all\s+three(?:\s+(?:{_CUBE_NOUN})e?s)?|the\s+three\s+(?:{_CUBE_NOUN})e?s|(?:every|each)\s+{_CUBE_NOUN}|"
    rf"all\s+the\s+(?:{_CUBE_NOUN})e?s)"
)
_IN_ORDER = re.compile(
    rf"^(?:build|make|stack|pile|put)\s+(?:up\s+)?(?:a\s+{_STACK}\s+of\s+{_THREE}|{_THREE}"
    rf"(?:\s+up)?(?:\s+in(?:to)?\s+a\s+{_STACK})?)\s+(?:up\s+)?on\s+(?P<p>{_PLACE_NP})"
    rf"\s*(?::|,|{_DASH})\s*(?:first\s+{_COLOUR_NP.format('a', _CUBE_NOUN)}|"
    rf"{_COLOUR_NP.format('a2', _CUBE_NOUN)}\s+first),?\s+(?:then|next)\s+"
    rf"{_COLOUR_NP.format('b', _CUBE_NOUN)},?\s+(?:and\s+)?(?:then|last|finally)\s+"
    rf"{_COLOUR_NP.format('c', _CUBE_NOUN)}(?:\s+last)?[.!]?$",
    re.I,
)
_TWO_UNDER = re.compile(
    rf"^(?:build|make|stack|put\s+up)\s+(?:a\s+(?:two-(?:{_CUBE_NOUN})\s+)?{_STACK}\s+"
    rf"of\s+)?(?:the\s+)?(?P<x>[a-z]+)\s+(?:(?:{_CUBE_NOUN})\s+)?and\s+(?:the\s+)?(?P<y>[a-z]+)"
    rf"(?:\s+(?:{_CUBE_NOUN})(?:e?s)?)?\s+on\s+(?P<p>{_PLACE_NP})\s*,?\s*(?:with\s+)?(?:the\s+)?"
    rf"(?P<u>[a-z]+)(?:\s+(?:one|{_CUBE_NOUN}))?\s+(?:underneath|at\s+the\s+bottom|below|"
    r"on\s+the\s+bottom|at\s+the\s+base|lowest)[.!]?$",
    re.I,
)


def tower_in_order(text: str) -> str:
    """A tower on a place said by its order ("A first, then B, then C") or by its bottom
    cube ("X and Y on P, X underneath"): each placing in that order."""
    m = _IN_ORDER.match(text.strip())
    if m:
        a, b, c = (m["a"] or m["a2"]).lower(), m["b"].lower(), m["c"].lower()
        p = m["p"].lower()
        return (
            f"put the {a} cube on {p}, then put the {b} cube on the {a} cube, "
            f"then put the {c} cube on the {b} cube."
        )
    m = _TWO_UNDER.match(text.strip())
    if m and m["u"].lower() in {m["x"].lower(), m["y"].lower()}:
        x = m["u"].lower()
        y = m["y"].lower() if x == m["x"].lower() else m["x"].lower()
        return f"put the {x} cube on {m['p'].lower()}, then put the {y} cube on the {x} cube."
    return text


_COUNTED_FROM = re.compile(
    rf"\bthe\s+(?:(?P<n>{_CUBE_NOUN}|one)\s+(?:(?:that'?s|that\s+is|which\s+is)\s+)?"
    rf"(?P<nth>second|third|first)|(?P<nth2>second|third|first)\s+(?P<n2>{_CUBE_NOUN}|one))\s+"
    r"(?:(?:counting|counted)\s+)?(?:in\s+)?from\s+the\s+(?P<s>left|right)\b",
    re.I,
)


def _noun(word: str) -> str:
    return "cube" if word.lower() == "one" else word


def counted_from(text: str) -> str:
    """ "the cube (that's) second counting from the left": "the second cube from the left"."""
    return _COUNTED_FROM.sub(
        lambda m: f"the {m['nth'] or m['nth2']} {_noun(m['n'] or m['n2'])} from the {m['s']}", text
    )


_OTHER_PAD_NOT = re.compile(
    rf"\bthe\s+other\s+(?P<n>{_PAD_NOUN})\s*(?:,|{_DASH})?\s*not\s+(?:to\s+|on\s+)?the\s+"
    rf"(?P<q>[a-z]+)\s+(?:one|{_PAD_NOUN})\b",
    re.I,
)


def other_pad_not(text: str) -> str:
    """ "the other pad, not the yellow one": "the pad that isn't yellow"."""
    return _OTHER_PAD_NOT.sub(lambda m: f"the {m['n']} that isn't {m['q']}", text)


def retraced(text: str) -> str:
    """Held-out 30's structures said plainly (see the module)."""
    text = other_pad_not(counted_from(one_of_pads(plain_prohibition(text))))
    return tower_in_order(over_cube(after_all(text)))
