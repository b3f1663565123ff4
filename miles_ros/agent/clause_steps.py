"""Steps said in other words (:func:`~miles_ros.agent.clauses.plain_clauses` runs these on each
sentence or the whole goal): an angle set off by a comma, a prohibition said as an aside, a
placing said as a chain of verbs, a step cancelled by the next, a reach said by the
gripper's place or as a hold, a pad by its side of the table, "no need to go home", a bare
demonstrative object, a possessive superlative, a pad by what it is not.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_corrections import _MANNER
from miles_ros.agent.clause_grammar import (
    _ANGLE,
    _CUBE_NOUN,
    _PAD_NOUN,
    _PREP,
    _THING,
    _WAY,
    _first_word,
    _is_place,
    _openers_off,
    noun_phrase,
    verb_of,
)

_ANGLE_AFTER_COMMA = re.compile(
    rf"^(?P<turn>(?:turn|rotate|spin|twist)\b[^,;]*?)\s*,\s*(?P<angle>{_ANGLE}(?:\s+{_WAY})?)"
    r"(?P<end>[.!?]?)$",
    re.I,
)
_NO_GERUND = re.compile(
    r"(?:^|(?<=[;,:]\s))no\s+(?P<ger>\w+ing)\b"
    r"(?P<alone>(?:\s+(?:is\s+)?(?:allowed|permitted))?(?=\s*(?:,\s*please\s*)?[.!]?$))?",
    re.I,
)
""""no" and a gerund; ``alone``: nothing follows but "allowed" or "please" ("..., no
lifting allowed")."""


def _said_out(sentence: str) -> str:
    """An angle set off by a comma ("rotate the red cube clockwise, 15 degrees") and a
    prohibition said as "no" and a gerund ("...; no going home afterwards" -> "don't go
    home afterwards"; a manner with nothing after it, "..., no lifting allowed" -> "...,
    don't lift it")."""
    m = _ANGLE_AFTER_COMMA.match(sentence)
    if m and not re.search(r"\d", m["turn"]):
        sentence = f"{m['turn']} {m['angle']}{m['end']}"

    def dont(g: re.Match) -> str:
        verb = verb_of(g["ger"])
        if verb and g["alone"] is not None and verb in _MANNER:
            return f"don't {verb} it"  # "..., no lifting allowed": the clause's cube
        return f"don't {verb}" if verb else g[0]

    return _NO_GERUND.sub(dont, sentence)


_NEEDLESS = re.compile(
    r"\s*(?:,|;|:|\s[-\u2013\u2014]+)\s*(?:and\s+|but\s+)?(?:(?:it|that|this|they)\s+(?:doesn'?t|"
    r"does not|don'?t|do not|won'?t|will not|shouldn'?t)\s+need\s+(?:any\s+)?(?P<ger>\w+ing)|"
    r"(?:there'?s\s+|there is\s+)?no\s+need\s+(?:to|for)\s+(?:you\s+to\s+)?(?P<verb>\w+)|"
    r"you\s+(?:don'?t|do not|needn'?t|need not)\s+(?:have\s+to\s+|need\s+to\s+)?(?P<verb2>\w+)|"
    r"(?:it|that|this)\s+(?:needn'?t|need not|doesn'?t have to|does not have to)\s+be\s+"
    r"(?P<part>\w+)|no\s+(?P<ger2>\w+ing))(?:\s+(?:it|them))?(?P<up>\s+up)?\s*(?P<end>[.!]?)$",
    re.I,
)


def _needless(sentence: str) -> str:
    """A prohibition said as an aside after the request: "push the red cube onto the pad,
    it doesn't need lifting" / "- no lifting" / "; there's no need to pick it up" -> "push
    the red cube onto the pad, but don't lift it" (kept: a contradiction is still read)."""
    m = _NEEDLESS.search(sentence)
    if m is None or m.start() == 0:
        return sentence
    verb = verb_of(m["ger"] or m["verb"] or m["verb2"] or m["part"] or m["ger2"])
    if verb is None or not verb_of(_first_word(sentence)):
        return sentence
    up = " up" if m["up"] or verb == "pick" else ""
    return f"{sentence[: m.start()]}, but don't {verb} it{up}{m['end']}"


# -- a plan said in several verbs, a step cancelled, a reach said politely (held-out 11) --
_JOIN = r"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+)"
_CHAIN = re.compile(
    r"^(?:pick|grab|lift|take|get|grasp|raise|collect)\s+(?:up\s+)?(?P<np>(?:the|that|this)\s+"
    rf"[^,;]+?)(?:\s+up)?{_JOIN}(?:(?:carry|bring|take|move|lift|raise|hold|swing|walk|ferry)"
    rf"\s+it(?:\s+(?:over|across|up|along|there|with you|over there))?{_JOIN})+"
    r"(?:set|put|place|lower|drop|rest|stand|leave)\s+it(?:\s+down)?\s+"
    r"(?P<prep>on top of|onto|on to|on|into|in)\s+(?P<place>(?:the|that|this)\s+[^,;]+?)$",
    re.I,
)


def _chain(sentence: str) -> str:
    """A placing said as a chain of verbs on one thing: "pick up the red cube, carry it
    over and set it down on the pad" -> "put the red cube on the pad" (one thing taken,
    carried with "it" and no place, and put down with "it" on one place; "pick up X and put
    it on P", with nothing carried between, is the wording module's)."""
    m = _CHAIN.match(sentence.strip().rstrip(".!?"))
    np = m and noun_phrase(m["np"])
    if np is None or noun_phrase(m["place"]) is None or _is_place(np):
        return sentence
    end = "." if sentence.rstrip().endswith(".") else ""
    return f"put {np} {m['prep'].lower()} {noun_phrase(m['place'])}{end}"


_CANCEL = re.compile(
    rf"^(?:don'?t|do not|never)\s+(?P<v1>\w+)\s+(?:(?P<obj>it|(?:the|that|this)\s+[^,;.]+?)\s+)?"
    rf"(?P<p1>{_PREP})\s+(?P<x>(?:the|that|this)\s+[^,;.]+?)\s*(?:[,;.:]|\s[-\u2013\u2014]+)\s*"
    r"(?:but\s+|instead\s*,?\s*|rather\s*,?\s*|just\s+)?(?P<v2>\w+)\s+(?:(?P<obj2>it)\s+)?"
    rf"(?P<p2>{_PREP})\s+(?P<y>(?:the|that|this)\s+[^,;.]+?)(?:\s*,?\s*instead)?\s*[.!]?$",
    re.I,
)
_GO = frozenset("go head move come get".split())


def _cancelled(text: str) -> str:
    """A step cancelled by the step said next: "don't put the red cube on the left pad,
    put it on the right one (instead)" -> "put the red cube on the right one"; "don't hover
    over the left pad; go over the right pad instead" -> "hover over the right pad" (the
    same thing, another place; the prohibition said of the place given up)."""
    m = _CANCEL.match(_openers_off(text.strip()))
    if m is None or not verb_of(m["v1"]) or not verb_of(m["v2"]):
        return text
    x, y = noun_phrase(m["x"]), noun_phrase(m["y"])
    if x is None or y is None or x.lower() == y.lower():
        return text  # the same place forbidden and asked: a contradiction, read as said
    if m["obj"]:
        obj = noun_phrase(m["obj"]) if m["obj"].lower() != "it" else None
        if obj is None or m["obj2"] is None:
            return text
        return f"{m['v2']} {obj} {m['p2']} {y}"
    if m["obj2"]:
        return text
    v1, v2 = verb_of(m["v1"]), verb_of(m["v2"])
    if v2 in _GO and v1 not in _GO:
        return f"{m['v1'].lower()} {m['p1'].lower()} {y}"  # "go over" in place of "hover over"
    return f"{m['v2']} {m['p2']} {y}"


_REACH_SAID = re.compile(
    r"\b(?:(?P<verb>position|put|bring|move|hold|get|place|park)\s+(?:your|the|its)\s+(?:gripper|hand|"
    r"arm|tool|fingers|end effector)|(?P<hover>hover|wait|stay|pause))\s+"
    r"(?:(?:for\s+)?(?:a|one)\s+(?:moment|second|sec|bit|while|little)\s+)?"
    r"(?P<just>(?:right|just|directly|exactly|straight)\s+)?"
    r"(?:to\s+(?:(?:right|just|directly)\s+)?)?(?:above|over)\s+(?=(?:the|that|this|it)\b)",
    re.I,
)
_SHOW_BY = re.compile(
    r"^(?:show me|point out|point to|indicate|let me see|tell me)\s+(?:where\s+)?(?P<np>(?:the|"
    r"that|this)\s+.+?)(?:\s+is)?\s+(?:for me\s+)?by\s+(?:hovering|reaching|going|moving|holding "
    r"(?:your|the) (?:gripper|hand))\s+(?:over|above|to)\s+(?:it|there|that one)\s*"
    r"(?P<end>[.!]?)$",
    re.I,
)


def _reach_said(sentence: str) -> str:
    """A reach said by the gripper's place or its purpose: "position your gripper right
    above X", "hover a moment over X", "show me where X is by hovering over it" -> "hover
    over X"."""
    m = _SHOW_BY.match(sentence.strip())
    if m and noun_phrase(m["np"]):
        return f"hover over {noun_phrase(m['np'])}{m['end']}"
    m = _REACH_SAID.search(sentence)
    if m is None or (m["hover"] and m.group(0).lower().split()[1] in {"over", "above"}):
        return sentence  # "hover over X" is said plainly already
    if m["verb"] and m["verb"].lower() not in {"position", "park"} and not m["just"]:
        return sentence  # "bring your hand over X": the wording module's gripper
    return sentence[: m.start()] + "hover over " + sentence[m.end() :]


_HELD_OVER = re.compile(
    r"^(?:go and\s+|just\s+)?(?P<lead>hold(?:\s+(?:still|steady|position|it))?|stay(?:\s+put)?|"
    r"remain|wait|keep (?:the|your) (?:gripper|hand|arm)(?:\s+(?:hovering|still|steady))?|park|"
    r"hover|(?:bring|move|put|get|position|park) (?:the|your) (?:gripper|hand|arm))\s+"
    r"(?:right\s+|just\s+|directly\s+)?(?:above|over)\s+(?P<np>(?:the|that|this)\s+[^,;.!?]+?)"
    r"(?P<tail>(?:\s*,?\s+(?:and\s+)?(?:wait|stay|hold(?:\s+it)?|remain|pause)(?:\s+(?:there|"
    r"still|put))?|\s+for\s+(?:a|one)\s+(?:moment|sec|second|bit|while))*)\s*(?P<end>[.!?]?)$",
    re.I,
)
_HOLDS = re.compile(r"^(?:hold|stay|remain|wait|keep|park)\b", re.I)


def _held_over(sentence: str) -> str:
    """A reach said as a hold or a wait: "hold still above X", "stay put over X", "keep the
    gripper hovering above X for a moment", "move the gripper over X and stay there" ->
    "hover over X" (a bare "bring the gripper over X" is the wording module's)."""
    m = _HELD_OVER.match(sentence.strip())
    np = m and noun_phrase(m["np"])
    if not np or not (m["tail"].strip() or _HOLDS.match(m["lead"])):
        return sentence
    return f"hover over {np}{m['end']}"


_PAD_BY_SIDE = re.compile(
    rf"\bthe (?P<noun>{_PAD_NOUN}) (?:over )?(?:on|at|to) the (?P<side>left|right)(?:[- ]hand)?"
    r"(?: (?:side|end|edge))?(?: of the table)?\b|\bthe (?P<side2>left|right)[- ]hand "
    rf"(?P<noun2>{_PAD_NOUN})\b",
    re.I,
)
"""A pad said by its side of the table ("the pad on the right side of the table", "the
left-hand mat"): "the right pad"."""

_NO_NEED_HOME = re.compile(
    r"(?P<lead>^|\s*[,;:]\s*|\s*[-\u2013\u2014]+\s*|\s+and\s+|(?<=[.!?])\s+)(?:and\s+)?"
    r"(?:there'?s\s+|there is\s+)?(?:no\s+need\s+(?:for you\s+)?to|you\s+(?:don'?t|do not|needn'?t"
    r"|need not)(?:\s+(?:have|need))?(?:\s+to)?|(?:don'?t|do not)\s+bother)\s+(?:going|go|return"
    r"(?:ing)?|head(?:ing)?|com(?:e|ing)|mov(?:e|ing))\s+(?:back\s+)?(?:to\s+)?(?:home|base)"
    r"(?:\s+(?:position|pose))?(?:\s+(?:afterwards?|after(?:\s+that)?|later|at the end|again|then"
    r"|when you'?re done))?(?P<end>\s*[.!;,]?)",
    re.I,
)


def _no_need_home(text: str) -> str:
    """ "..., no need to go home afterwards" / "No need to return home; ..." said of a goal
    that asks no return home elsewhere: the step nobody asked for, left out."""
    m = _NO_NEED_HOME.search(text)
    if m is None:
        return text
    rest = text[: m.start()] + text[m.end() :]
    if re.search(r"\bhome\b", rest, re.I):
        return text  # a return home asked too: read as said
    head, tail = text[: m.start()].rstrip(), text[m.end() :].lstrip(" ,;:.-")
    if not head:
        return _openers_off(tail)
    end = m["end"].strip() if m["end"].strip() in {".", "!"} else ""
    return f"{head}{end} {tail}".strip() if tail else f"{head}{end or '.'}"


_BARE_OBJECT = re.compile(
    rf"^(?P<verb>\w+)\s+(?P<pro>that|this|one)(?=\s*(?:[.!?]|$|\s+(?:{_PREP})\s))", re.I
)


def _bare_object(sentence: str, before: str) -> str:
    """A demonstrative or "one" with no noun as a verb's object ("Move that.", "Put one on
    the left pad." with nothing named before) -> "it": the thing meant is not said, and
    the reading asks which one (or takes the thing an earlier clause named)."""
    m = _BARE_OBJECT.match(sentence)
    if m is None or not verb_of(m["verb"]):
        return sentence
    if m["pro"].lower() == "one" and re.search(rf"\b{_THING}\b|\b(?:it|them)\b", before, re.I):
        return sentence  # "one" of the things said before: read as said
    return f"{m['verb']} it{sentence[m.end() :]}"


_NEEDLESS_ALONE = re.compile(
    r"^(?:and\s+)?(?:(?:there'?s\s+|there is\s+)?no\s+need\s+(?:to|for)|no\s+\w+ing\b|"
    r"you\s+(?:don'?t|do not|needn'?t|need not)\s+(?:have\s+to|need\s+to)?|"
    r"(?:it|that|this)\s+(?:needn'?t|need not|doesn'?t need|does not need|doesn'?t have to|"
    r"does not have to)\b)",
    re.I,
)


_POSSESSIVE = re.compile(
    rf"\bthe\s+(?P<owner>(?:\w+\s+)?(?:{_PAD_NOUN}|{_CUBE_NOUN})|robot)'s\s+"
    rf"(?P<sup>nearest|closest|farthest|furthest)\s+(?P<noun>{_CUBE_NOUN}|one)\b",
    re.I,
)


def _possessive(text: str) -> str:
    """A thing's superlative as a possessive: "the grey pad's nearest cube" -> "the cube
    nearest to the grey pad"."""

    def said(m: re.Match) -> str:
        noun = "cube" if m["noun"].lower() == "one" else m["noun"]
        to = "to" if m["sup"].lower() in {"nearest", "closest"} else "from"
        return f"the {noun} {m['sup']} {to} the {m['owner']}"

    return _POSSESSIVE.sub(said, text)


_PLACE_NOT = re.compile(
    rf"\b(?:the\s+(?P<noun>{_PAD_NOUN})\s+(?:that|which)|(?:whichever|whatever)\s+"
    rf"(?P<noun2>{_PAD_NOUN}))\s*(?:'s\s+not|\s+is\s+not|\s+isn'?t)\s+(?:the\s+)?(?P<word>\w+)"
    rf"(?:\s+(?:one|{_PAD_NOUN}))?\b|\bthe\s+(?P<noun3>{_PAD_NOUN})\s+other\s+than\s+(?:the\s+)?"
    rf"(?P<word3>\w+)(?:\s+(?:one|{_PAD_NOUN}))?\b",
    re.I,
)


def _place_not(text: str, places: tuple[tuple[str, ...], ...]) -> str:
    """A pad by what it is not, where the scene has two: "the pad that isn't yellow",
    "whichever mat is not the left one", "the pad other than the grey one" -> "the right
    pad" (``places``: each place's words, its side and its colour)."""
    if len(places) != 2:
        return text

    def said(m: re.Match) -> str:
        word = (m["word"] or m["word3"]).lower()
        word = "grey" if word == "gray" else word
        other = [p for p in places if word not in p]
        if len(other) != 1:
            return m[0]
        return f"the {other[0][0]} {m['noun'] or m['noun2'] or m['noun3']}"

    return _PLACE_NOT.sub(said, text)
