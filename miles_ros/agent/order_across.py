"""The order of steps said by order words across clauses, read once for every clause
(:func:`ordered`, run by :func:`~miles_ros.agent.clauses.plain_clauses` on the whole goal,
after the no-motion reading, before the held-out rules):

- an order word gives its clause a place: "first (of all)", "to begin (with)", "at the very
  start" first; "second", "third"; "last (of all)", "lastly", "finally", "at the end", "in
  the end", "(home) as the last thing" last (:data:`~miles_ros.agent.clause_order._RANK`);
- "before all / any of that", "before everything (else)", "ahead of all that": before every
  clause said;
- "before that / it", "prior to that": just before the clause said before it;
- a clause with no order word ("then / next / after which A", "A"): just after the clause said
  before it.

"A, then go home, and before all that C" -> "C, then A, then go home"; "Home last, please:
first A" -> "A, then go home"; "Finally go home; before that B and, first of all, A" -> "A,
then B, then go home". Grammar, not goals: each clause is a verb phrase with an order word
before or after it; the goal is said anew only where every clause is one, one order word or
more moves a clause, no two clauses claim the same place, and no clause points back with a
pronoun (a clause moved before its referent would lose it): anything else is left to the
older order rules (:mod:`~miles_ros.agent.clause_order`).
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _first_word, _lower_first, _upper_first, verb_of
from miles_ros.agent.clause_order import _RANK

_ALL_BEFORE = (
    r"(?:before|ahead of|prior to)\s+(?:all\s+(?:of\s+)?(?:that|this|it|of\s+it)|any\s+of\s+"
    r"(?:that|this|it)|everything(?:\s+else)?|anything(?:\s+else)?)"
)
_JUST_BEFORE = r"(?:before|prior to|ahead of)\s+(?:that|this|it|doing that|you do that)"
_RANKS = {
    **{t: r for t, r in _RANK.items() if t not in {"next", "in between", "in the middle"}},
    "as the last thing": 9,
    "at the very start": 1,
    "to finish": 9,
    "in the end": 9,
}
"""Order words that give a clause its place; "next" is read as "then" (after the clause
before it), and "in between / in the middle" are left to the older rules (a place too)."""
_TAG = "|".join(sorted((re.escape(t) for t in _RANKS), key=len, reverse=True))
_AFTER = r"(?:then|next|after that|after which|afterwards)"
_TAGS = rf"(?:{_ALL_BEFORE}|{_JUST_BEFORE}|{_TAG}|{_AFTER})"
_FRONT = re.compile(
    rf"^(?:(?:but|and|though)\s+)*(?P<tag>{_TAGS})(?:\s*,?\s*though)?\s*[,:]?\s+(?P<rest>.+)$",
    re.I,
)
_BARE_TAG = re.compile(rf"^(?:(?:but|and|though)\s+)*{_TAGS}(?:\s*,?\s*though)?$", re.I)
_BACK = re.compile(rf"^(?P<rest>.+?)\s*,?\s+(?:comes\s+|is\s+|goes\s+)?(?P<tag>{_TAG})$", re.I)
_PARTS = re.compile(
    r"\s*[.;:]\s*|\s*,\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s*,\s*|\s+[-\u2013\u2014]+\s+"
    r"(?:and\s+|but\s+)?|\s+(?:and|but)\s+(?=(?:then|before|prior|ahead|first|finally|last)\b)",
    re.I,
)
_POLITE = re.compile(r"^(?:please|thanks|thank you|cheers)$", re.I)
_POINTS_BACK = re.compile(r"\b(?:it|its|them|they|there|that one|this one|the other)\b", re.I)
_ORDER_VERBS = {"end", "finish", "start", "begin", "do", "save", "leave"}
"""Verbs that say an order themselves ("end by A", "do X first"): left to the older rules."""
_TAGGED = re.compile(rf"\b(?:{_TAG})\b", re.I)
_HOME = re.compile(r"^(?:going\s+|getting\s+|heading\s+)?(?:back\s+)?home$", re.I)


def _clause(rest: str) -> str | None:
    """The clause said as a verb phrase ("home" -> "go home"), else None."""
    rest = rest.strip(" ,")
    if _HOME.match(rest):
        return "go home"
    first = _first_word(rest)
    if verb_of(first) != first or first in _ORDER_VERBS or _TAGGED.search(rest):
        return None  # "put", not "going"; "end by A", "do X first and B second": the old rules
    return rest


def ordered(text: str) -> str:
    """``text`` said as its clauses in the order its order words give them, joined by
    "then" (see the module); ``text`` itself where it is not clauses with order words."""
    body = text.strip()
    end = body[-1:] if body[-1:] in ".!" else ""
    parts: list[str] = []
    for part in _PARTS.split(body.rstrip(".!")):
        if not part or _POLITE.match(part.strip()):
            continue
        if parts and _BARE_TAG.match(parts[-1].strip()):  # "first of all, A": the tag, then A
            parts[-1] = f"{parts[-1].strip()} {part}"
        else:
            parts.append(part)
    if len(parts) < 2:
        return text
    keys: list[float] = []
    clauses: list[str] = []
    moved = False
    for part in parts:
        front = _FRONT.match(part.strip())
        tag, rest = (front["tag"].lower(), front["rest"]) if front else ("", part)
        back = None if front else _BACK.match(part.strip())
        if back:
            tag, rest = back["tag"].lower(), back["rest"]
        said = _clause(rest)
        if said is None or _POINTS_BACK.search(said):
            return text
        tag = re.sub(r"\s+", " ", tag)
        prev = keys[-1] if keys else 5.0
        if re.fullmatch(_ALL_BEFORE, tag, re.I):
            key, moved = 0.0, True
        elif re.fullmatch(_JUST_BEFORE, tag, re.I):
            key, moved = prev - 0.01, bool(keys)
        elif tag in _RANKS:
            key, moved = float(_RANKS[tag]), True
        else:  # "then A", "A": after the clause before it
            key = prev + 0.01 if keys else 5.0
        keys.append(key)
        clauses.append(said)
    whole = [k for k in keys if k == int(k)]
    if not moved or len(set(whole)) != len(whole) or len(set(keys)) != len(keys):
        return text
    order = sorted(range(len(keys)), key=keys.__getitem__)
    if order == sorted(order):
        return text
    said = ", then ".join(_lower_first(clauses[i]) for i in order) + (end or ".")
    return _upper_first(said) if body[:1].isupper() else said
