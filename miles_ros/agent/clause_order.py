"""The order of steps said with order words (:func:`_reorder`, run by
:func:`~miles_ros.agent.clauses.plain_clauses` last): "A. But before that, B", "A only after
B" with B a state, "Last of all A; first B", "A, but start with C", clauses each tagged with
their place ("Second, A; first, B").
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import (
    _CUBE_NOUN,
    _PREP,
    _first_word,
    _is_place,
    _lower_first,
    _upper_first,
    noun_phrase,
    verb_of,
)

# -- order --------------------------------------------------------------------------------
_TOUCH_ANY = (
    r"(?:you (?:touch|handle|lay a finger on|go near|move|pick up) (?:any|a single|a|the) "
    r"(?:cube|block|brick)s?)"
)
"""A step before any cube is touched ("before you touch any cube, ..."): the step said
with it comes first."""
_BEFORE_THAT = re.compile(
    r"^(?P<a>.+?)(?:\s*[.;]\s*|\s*,\s*|\s+|\s[-\u2013\u2014]+\s*)(?:but|and)?\s*(?:(?:before|"
    r"prior to|ahead of) (?:that|this|doing that|you do that|you do it|that happens|anything else|"
    rf"everything(?: else)?|all (?:of )?(?:that|this|else)|any of (?:that|this)|{_TOUCH_ANY}))"
    r"\s*,?\s+(?P<b>.+)$",
    re.I,
)
_B_BEFORE = re.compile(
    r"^(?P<a>.+?)(?:\s*[.;]\s*|\s*,\s*|\s[-\u2013\u2014]+\s*)(?:oh,?\s+)?(?:but|and)?\s*(?P<b>.+?)"
    r"\s*,?\s+(?:before (?:that|this|doing that|you do(?: that| it| this| so)?)|beforehand|first)"
    r"[.!]?$",
    re.I,
)


_NOT_UNTIL = re.compile(
    r"^(?P<a>.+?)\s*,?\s+(?:but\s+)?(?:only\s+(?:after|once|when)|not\s+(?:until|before))\s+"
    r"(?P<b>.+?)[.!]?$",
    re.I,
)
_DONE = re.compile(
    r"^(?:you(?:'ve|\s+have)?\s+(?:been|gone)\s+(?P<to>over|above|to)\s+(?P<place>.+)|"
    r"(?P<np>.+?)\s+(?:is|'s|sits|stands|rests)\s+(?P<prep>on top of|on|in)\s+(?P<where>.+))$",
    re.I,
)


def _first_when(text: str) -> str:
    """ "A only after / not until B" with B a state reached ("the green cube is on the grey
    pad", "you've been over the right pad") -> "B said as a step, then A"."""
    m = _NOT_UNTIL.match(text.strip())
    done = m and _DONE.match(m["b"].strip())
    if done is None:
        return text
    if done["place"]:
        place = noun_phrase(done["place"])
        step = place and f"hover over {place}"
    else:
        np, where = noun_phrase(done["np"]), noun_phrase(done["where"])
        step = np and where and f"put {np} {done['prep'].lower()} {where}"
    return f"{step}, then {_lower_first(m['a'].strip(' ,'))}" if step else text


_LAST_OF_ALL = re.compile(
    r"^(?:last(?:\s+of\s+all)?|at\s+the\s+(?:very\s+)?end|finally)\s*,?\s+(?P<a>[^;.]+?)\s*[;.]\s*"
    r"(?:(?:but\s+)?first(?:\s+of\s+all)?\s*,?\s+)?(?P<b>.+?)[.!]?$",
    re.I,
)
_START_WITH = re.compile(
    r"^(?P<a>.+?)\s*,?\s+but\s+(?:start|begin)\s+(?:with|by)\s+(?P<c>.+?)[.!]?$", re.I
)


def _order_words(text: str) -> str:
    """ "Last of all A; first B" -> "B, then A"; "A, but start with C" -> "C, then A" (C a
    thing: said with A's verb and preposition)."""
    m = _LAST_OF_ALL.match(text.strip())
    if m and verb_of(_first_word(m["a"])) and verb_of(_first_word(m["b"])):
        return f"{m['b']}, then {_lower_first(m['a'])}"
    m = _START_WITH.match(text.strip())
    if m is None or not verb_of(_first_word(m["a"])):
        return text
    c, first = m["c"], _first_word(m["c"])
    if first.endswith("ing") and verb_of(first):  # "start by going home"
        c = verb_of(first) + c[len(first) :]
    elif not verb_of(first):
        head = re.match(r"^(?P<head>.+?)\b(?:the|that|this)\b", m["a"], re.I)
        if head is None or noun_phrase(c) is None:
            return text
        if re.search(rf"\b(?:{_PREP})\s+the\b", m["a"][head.end() :], re.I):
            return text  # "put the red cube on the pad, but start with the blue one": where?
        c = head["head"] + c
    return f"{c}, then {_lower_first(m['a'])}"


_RANK = {
    "first": 1, "firstly": 1, "first of all": 1, "to start": 1, "to start with": 1,
    "to begin": 1, "to begin with": 1, "at the start": 1, "at the beginning": 1,
    "step one": 1, "step 1": 1, "before anything else": 1, "before everything": 1,
    "before everything else": 1,
    "second": 2, "secondly": 2, "step two": 2, "step 2": 2, "next": 2,
    "in between": 2, "in the middle": 2,
    "third": 3, "thirdly": 3, "step three": 3, "step 3": 3,
    "last": 9, "lastly": 9, "last of all": 9, "finally": 9, "at the end": 9,
    "at the very end": 9,
}  # fmt: skip
"""Order words and the place each gives its clause ("last" after any other)."""
_TAG = "|".join(sorted((re.escape(t) for t in _RANK), key=len, reverse=True))
_TAG_FRONT = re.compile(rf"^(?P<tag>{_TAG})\s*[,:]?\s+(?P<rest>.+)$", re.I)
_TAG_BACK = re.compile(rf"^(?P<rest>.+?)\s*,?\s+(?P<tag>{_TAG})$", re.I)
_PARTS = re.compile(r"\s*[.;]\s*|\s*,\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+", re.I)
_BEFORE_THAT_CHAIN = re.compile(
    r"\s*[,.;]?\s*(?:and\s+|but\s+)?(?:before|prior to)\s+(?:that|this)\s*[,:]?\s*", re.I
)


_PLACED = re.compile(
    r"^(?P<what>.+?)\s+(?P<prep>on top of|onto|on to|on|to)\s+(?P<where>.+)$", re.I
)


def _placed(fragment: str) -> str | None:
    """A thing and where it goes, with no verb ("red cube onto the right pad") -> "the red
    cube onto the right pad", for a verb said before it (else "put"); None for anything
    else."""
    m = _PLACED.match(fragment)
    what, where = (noun_phrase(m["what"]), noun_phrase(m["where"])) if m else (None, None)
    if what is None or where is None or _is_place(what):
        return None
    return f"{what} {m['prep'].lower()} {where}"


def _tagged(text: str) -> str:
    """Clauses each given its place by an order word, in any order: "Second, A; first, B",
    "A last, B first and C in between" -> "B, then C, then A" (a clause of a noun phrase
    alone takes the verb of the clause before it); "C. Before that, B, and before that,
    A" -> "A, then B, then C"; "before anything else" on the first clause is left out."""
    text = text.strip()
    parts = _BEFORE_THAT_CHAIN.split(text.rstrip(".!"))
    if len(parts) > 2 and all(verb_of(_first_word(p)) for p in parts):
        said = ", then ".join(_lower_first(p.strip(" ,")) for p in reversed(parts)) + "."
        return _upper_first(said) if text[:1].isupper() else said
    front = re.match(
        rf"^(?:before (?:anything|everything)(?: else)?|before {_TOUCH_ANY})\s*,?\s+(?P<rest>.+)$",
        text,
        re.I,
    )
    if front and verb_of(_first_word(front["rest"])):
        return front["rest"]
    parts: list[str] = []
    for part in (p for p in _PARTS.split(text.rstrip(".!")) if p):
        if parts and re.fullmatch(_TAG, parts[-1], re.I):  # "second, A": the tag, then A
            parts[-1] = f"{parts[-1]} {part}"
        else:
            parts.append(part)
    if len(parts) < 2:
        return text
    ranked, head = [], ""
    for part in parts:
        m = _TAG_FRONT.match(part) or _TAG_BACK.match(part)
        if m is None:
            return text
        rest = m["rest"].strip()
        if verb_of(_first_word(rest)):
            lead = re.match(r"^(?P<head>.+?)\b(?:the|that|this|it)\b", rest, re.I)
            head = lead["head"] if lead else ""
        elif noun_phrase(rest) is not None and head:
            rest = head + noun_phrase(rest)
        elif _placed(rest) is not None:  # "red cube onto the right pad second"
            rest = (head or "put ") + _placed(rest)
        else:
            return text
        ranked.append((_RANK[m["tag"].lower()], rest))
    ranks = [r for r, _ in ranked]
    if len(set(ranks)) != len(ranks) or ranks == sorted(ranks):
        return text
    said = ", then ".join(_lower_first(c) for _, c in sorted(ranked)) + "."
    return _upper_first(said) if text[:1].isupper() else said


def _reorder(text: str) -> str:
    """ "A. But before that, B." / "A, but B first." -> "B, then A" (an "it" in B that
    points at A's cube takes its name, and A says "it"); "A only after B" / "A, but not
    until B" with B a state: :func:`_first_when`."""
    text = _tagged(_order_words(_first_when(text)))
    for pattern in (_BEFORE_THAT, _B_BEFORE):
        m = pattern.match(text.strip())
        if m is None:
            continue
        a, b = m["a"].strip(" ,.;"), m["b"].strip(" ,.;")
        if not verb_of(_first_word(a)) or not verb_of(_first_word(b)):
            continue
        if re.search(r"\b(?:then|first|last|before|after)\b", a + " " + b, re.I):
            continue
        cube = re.search(rf"\bthe (?:\w+ )?{_CUBE_NOUN}\b", a, re.I)
        if re.search(r"\bit\b", b, re.I) and cube and not re.search(r"\bit\b", a, re.I):
            b = re.sub(r"\bit\b", cube[0], b, count=1, flags=re.I)
            if len(re.findall(rf"\bthe (?:\w+ )?{_CUBE_NOUN}\b", b, re.I)) < 2:
                a = a[: cube.start()] + "it" + a[cube.end() :]  # else "it" could be either
        return f"{b}, then {_lower_first(a)}"
    return text
