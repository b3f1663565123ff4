"""Held-out 27's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`dismissed` first, before the
no-motion reading, and :func:`reread` after the colour reading, before
:func:`~miles_ros.agent.regarded.regarded`):

- a cube set aside in a sentence of its own, then the step ("Never mind the red cube. Blue
  onto the yellow pad.", "Forget about the green block - red to the grey mat."): the step
  (:func:`dismissed`; "never mind" alone still asks for no motion);
- a pad as the subject that gets a cube ("The grey mat should get the red block.", "Yellow pad
  receives the green cube", "Let the yellow pad have the blue cube."): "put the cube on the
  pad" (:func:`pad_gets`);
- a placing ruled out, then "put it on Q" ("X shouldn't go on P; put it on Q.", "Don't let X
  end up on P - place it on Q instead."): "put X on Q" (:func:`not_there_but`);
- a pad ruled out, the other said as "the C one", then "V X there" ("Not onto the yellow pad:
  the grey one. Move X there."): "the grey pad" for "the grey one", as the correction is read
  when the pad is said again (:func:`other_pad_there`);
- the one cube outside the stack ("the loose cube", "the unstacked block", "the cube that
  isn't stacked", "the single cube, the one outside the stack"): "the cube on its own", an
  apposition of two such said once; the cube up off the table ("the cube that's up off the
  table", "the block not touching the table"): "the top cube" (:func:`stack_layout`);
- a tower of two "with X on Y" ("Build a two-cube tower with green on red."): "put the X
  cube on the Y cube" (:func:`two_with_on`);
- all three stacked on a pad in an order after a colon ("Stack the three cubes on P: A
  first, B on it, C on top."): "put A on P, then B on A, then C on B" (:func:`three_on_pad`);
- the job's first and last steps said as how it starts and ends ("Start by moving X onto
  P and finish by stacking Y on that X cube.", "Open with X onto P, and close by setting Y
  on ...", "First thing, A; finish off by placing Y on ..."): "move X onto P, then stack Y
  on ..." (:func:`begun_and_ended`);
- the gripper pointed at a thing and held above it ("Point the gripper at the yellow pad
  and wait above it."): "hover over the yellow pad" (:func:`aimed_and_held`);
- "the one farthest away" (from the robot, nothing else said): "the cube farthest from you"
  (:func:`far_away`);
- "unstack them / it (one at a time): A, B, C": "unstack the tower: A, B, C", or the
  placings in the order said where each is a cube sent to a place with no verb ("blue to the
  yellow pad, ...") (:func:`unstacked_list`);
- a placing onto a pad, then "it" put on a cube ("Move X to P, then put it on the blue
  one."): "it" is X, the cube just placed (:func:`placed_then_it`).

Grammar, not goals: each pattern is a frame (a topic dismissed, a pad as the recipient, a
modal negation then a pronoun, a contrastive fragment then a locative pro-form, a cube named
by the scene's structure, a resultative with its parts, an ordered list after a colon, the
aspectual verbs "start / finish by", a pointing verb then a stative one, a superlative with
its ground left out, a pronoun an unstacking verb takes) around noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import (
    _CUBE_NOUN,
    _PAD_NOUN,
    _lower_first,
    _upper_first,
    cube_noun,
)

_DASH = r"[-\u2013\u2014]+"
_CUBE_NP = rf"the\s+[a-z]+\s+(?:{_CUBE_NOUN}|one)"
"""A cube said by one word ("the red cube", "the blue one")."""
_PAD_NP = rf"the\s+[a-z]+\s+(?:{_PAD_NOUN}|one)"
"""A pad said by one word ("the grey pad", "the yellow one")."""
_ON = r"(?:on\s+top\s+of|onto|on\s+to|on|to|over\s+to|into|in)"
_PUT = (
    r"(?:put|place|set|lay|move|take|bring|carry|stick|drop|pop|stack|transfer|shift|slide|push|"
    r"get)"
)


_ASIDE = re.compile(
    r"^\s*(?:never\s*mind|forget(?:\s+about)?|don'?t\s+(?:bother|worry)\s+(?:with|about)|ignore|"
    rf"skip)\s+(?:the\s+[a-z]+(?:\s+(?:{_CUBE_NOUN}|one))?)\s*(?:[.;:,]|\s{_DASH})\s*(?P<rest>\S.*)$",
    re.I,
)


def dismissed(text: str) -> str:
    """ "Never mind the red cube. Blue onto the yellow pad." -> "Blue onto the yellow pad." """
    m = _ASIDE.match(text)
    return (
        _upper_first(re.sub(r"^(?:just|simply|only)\s+", "", m["rest"], flags=re.I)) if m else text
    )


_GETS = re.compile(
    rf"^(?:the\s+)?(?P<p>[a-z]+\s+{_PAD_NOUN})\s+(?:gets|receives|should\s+(?:get|receive|have|"
    r"take|hold)|needs|takes|will\s+(?:get|take|have|hold)|is\s+getting|has\s+to\s+get)\s+"
    rf"(?P<x>{_CUBE_NP})\s*(?P<end>[.!]?)$|"
    rf"^(?:let|give)\s+the\s+(?P<p2>[a-z]+\s+{_PAD_NOUN})\s+(?:have\s+)?(?P<x2>{_CUBE_NP})"
    r"\s*(?P<end2>[.!]?)$",
    re.I,
)


def pad_gets(text: str) -> str:
    """ "The grey mat should get the red block." -> "Put the red block on the grey mat." """
    m = _GETS.match(text.strip())
    if m is None:
        return text
    p, x = (m["p"] or m["p2"]).lower(), m["x"] or m["x2"]
    return f"Put {x} on the {p}{m['end'] or m['end2'] or '.'}"


_NOT_THERE_BUT = re.compile(
    rf"^(?:don'?t\s+let\s+)?(?P<x>{_CUBE_NP})\s+(?:(?:shouldn'?t|should\s+not|mustn'?t|must\s+not|"
    r"can'?t|cannot|won'?t|isn'?t\s+to|is\s+not\s+to)\s+)?(?:go|end\s+up|be\s+(?:put|placed|set|"
    rf"left)|sit|land|stay)\s+{_ON}\s+{_PAD_NP}\s*(?:[;,:.]|\s{_DASH})\s*(?:so\s+|instead\s+|"
    rf"rather\s+)?(?P<v>{_PUT})\s+it\s+(?P<prep>{_ON})\s+(?P<q>{_PAD_NP})(?:\s+instead)?"
    r"\s*(?P<end>[.!]?)$",
    re.I,
)


def not_there_but(text: str) -> str:
    """ "The green cube shouldn't go on the grey pad; put it on the yellow one." -> "Put the
    green cube on the yellow one." (a modal negation or "don't let" before the verb)."""
    m = _NOT_THERE_BUT.match(text.strip())
    if m is None or not re.search(r"n'?t\b|\bnot\b|\bcannot\b", m[0][: m.start("v")], re.I):
        return text
    x = _lower_first(m["x"])
    return f"{_upper_first(m['v'].lower())} {x} {m['prep']} {m['q']}{m['end'] or '.'}"


_OTHER_PAD = re.compile(
    rf"^(?P<before>not\s+(?:{_ON}\s+)?the\s+[a-z]+\s+(?P<n>{_PAD_NOUN})\s*(?:{_DASH}|[:;,])\s*"
    rf"(?:but\s+)?(?:{_ON}\s+)?the\s+[a-z]+\s+)one(?=\s*[.:;]\s*(?:please\s+)?{_PUT}\s+"
    rf"{_CUBE_NP}\s+there\b)",
    re.I,
)


def other_pad_there(text: str) -> str:
    """ "Not onto the yellow pad: the grey one. Move the red cube there." -> "Not onto the
    yellow pad: the grey pad. Move the red cube there." (the pad said again, its noun for
    "one"; the correction itself is read later, by :mod:`~miles_ros.agent.clause_references`)."""
    m = _OTHER_PAD.match(text.strip())
    return f"{m['before']}{m['n']}{text.strip()[m.end() :]}" if m else text


_STACK = r"(?:stack|tower|pile)"
_LOOSE = re.compile(
    rf"\bthe\s+(?:(?:loose|unstacked|free|lone|single|solitary|separate)\s+(?P<n>{_CUBE_NOUN}|one)|"
    rf"(?P<n2>{_CUBE_NOUN}|one)\s+(?:(?:that|which)\s*(?:isn'?t|is\s+not|'s\s+not)|that's\s+not|"
    rf"not)\s+(?:stacked|in\s+(?:a|the)\s+{_STACK}|on\s+(?:a|the)\s+{_STACK}|part\s+of\s+(?:a|the)\s+"
    rf"{_STACK})|(?P<n3>{_CUBE_NOUN}|one)\s+(?:(?:standing|sitting|lying)\s+)?(?:outside|out\s+of|"
    rf"apart\s+from|away\s+from)\s+the\s+{_STACK})\b",
    re.I,
)
_TWICE = re.compile(
    rf"\b(?P<a>the\s+(?:{_CUBE_NOUN}|cube)\s+on\s+its\s+own)\s*,\s*the\s+(?:{_CUBE_NOUN}|one)\s+on"
    r"\s+its\s+own\s*(?:,(?=\s*\w+\s))?",
    re.I,
)
_OFF_TABLE = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE_NOUN}|one)\s+(?:(?:(?:that|which)\s*(?:'s|is)|that's)\s+)?(?:(?:raised|"
    r"lifted|sitting|perched|held|standing)\s+)?up\s+off\s+the\s+table(?:top)?\b|"
    rf"\bthe\s+(?P<n2>{_CUBE_NOUN}|one)\s+(?:(?:that|which)\s*(?:isn'?t|is\s+not|'s\s+not)|that's\s+"
    r"not|not)\s+(?:touching|resting\s+on|sitting\s+on|standing\s+on|on|in\s+contact\s+with)\s+"
    r"the\s+table(?:top)?\b",
    re.I,
)


def stack_layout(text: str) -> str:
    """ "the loose cube, the one not in the stack" -> "the cube on its own"; "the cube that's
    up off the table" -> "the top cube"."""

    def noun(m: re.Match, *keys: str) -> str:
        return cube_noun(next(m[k] for k in keys if m[k]).lower())

    text = _LOOSE.sub(lambda m: f"the {noun(m, 'n', 'n2', 'n3')} on its own", text)
    text = _TWICE.sub(lambda m: m["a"], text)
    return _OFF_TABLE.sub(lambda m: f"the top {noun(m, 'n', 'n2')}", text)


_TWO_WITH = re.compile(
    r"^(?:build|make|form|put\s+together|create|stack)\s+(?:a|an)\s+(?:two|2)[- ](?:cube|block|"
    rf"high|tall|level|storey|story)s?\s+(?:{_STACK}|{_CUBE_NOUN}\s+{_STACK})|"
    rf"^(?:build|make|form|put\s+together|create)\s+a\s+{_STACK}\s+of\s+(?:two|2)(?:\s+"
    rf"(?:{_CUBE_NOUN})s)?",
    re.I,
)
_WITH_ON = re.compile(
    rf"\s*,?\s*with\s+(?:the\s+)?(?P<a>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?\s+(?:on\s+top\s+of|on|"
    rf"atop|above|over)\s+(?:the\s+)?(?P<b>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?\s*,?\s*"
    r"(?:please\s*)?(?P<end>[.!]?)$",
    re.I,
)


def two_with_on(text: str, cube_colours: frozenset[str]) -> str:
    """ "Build a two-cube tower with green on red." -> "Put the green cube on the red
    cube." (two colours of the scene's cubes)."""
    head = _TWO_WITH.match(text.strip())
    m = head and _WITH_ON.fullmatch(text.strip()[head.end() :])
    if not m:
        return text
    a, b = m["a"].lower(), m["b"].lower()
    if a == b or not {a, b} <= cube_colours:
        return text
    return f"Put the {a} cube on the {b} cube{m['end'] or '.'}"


_C = rf"(?:the\s+)?(?P<{{k}}>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?"
_THREE_ON = re.compile(
    r"^(?:stack|pile|build|put|place|set|make)\s+(?:all\s+)?(?:the\s+|all\s+)?(?:three|3|cubes|"
    rf"blocks|{_CUBE_NOUN}s)(?:\s+(?:{_CUBE_NOUN})s)?\s+(?:(?:into|as)\s+a\s+{_STACK}\s+)?"
    rf"(?:on\s+top\s+of|onto|on\s+to|on|atop)\s+(?P<p>the\s+[a-z]+\s+{_PAD_NOUN})\s*"
    rf"(?:[:;,]|\s{_DASH})\s*{_C.format(k='a')}\s+first\s*,?\s*(?:and\s+)?(?:then\s+)?"
    rf"{_C.format(k='b')}\s+(?:on\s+(?:it|that|top\s+of\s+it)|next|second)\s*,?\s*(?:and\s+)?"
    rf"(?:then\s+)?{_C.format(k='c')}\s+(?:(?:last\s+)?on\s+top|last|at\s+the\s+top)\s*"
    r"(?P<end>[.!]?)$",
    re.I,
)


def three_on_pad(text: str, cube_colours: frozenset[str]) -> str:
    """ "Stack the three cubes on the grey pad: green first, red on it, blue on top." ->
    "Put the green cube on the grey pad, then put the red cube on the green cube, then put
    the blue cube on the red cube." (three different colours of the scene's cubes)."""
    m = _THREE_ON.match(text.strip())
    if m is None:
        return text
    a, b, c = (m[k].lower() for k in "abc")
    if len({a, b, c}) != 3 or not {a, b, c} <= cube_colours:
        return text
    return (
        f"Put the {a} cube on {m['p']}, then put the {b} cube on the {a} cube, then put the "
        f"{c} cube on the {b} cube{m['end'] or '.'}"
    )


_GERUNDS = {
    f"{v[:-1] if v.endswith('e') else v}{v[-1] if v in ('put', 'set', 'drop') else ''}ing": v
    for v in (
        "move put place set stack pile push slide shove nudge take carry bring lift drop shift "
        "transfer relocate get hover reach turn rotate go return head"
    ).split()
}
_BEGUN = re.compile(
    rf"^(?:(?:start|begin|open)(?:\s+(?:off|out))?\s+(?:by\s+(?P<g>{'|'.join(_GERUNDS)})|"
    rf"with(?=\s+{_CUBE_NP}\s+{_ON}\s))|first(?:\s+thing|\s+of\s+all|\s+off)?\s*,|to\s+"
    r"(?:start|begin)(?:\s+with)?\s*,)\s+",
    re.I,
)
_ENDED = re.compile(
    r"\s*(?:,\s*|;\s*|\s+)(?:and\s+)?(?:then\s+)?(?:finish|end|close|wrap\s+up)(?:\s+(?:off|up))?"
    rf"\s+by\s+(?P<g>{'|'.join(_GERUNDS)})\s+",
    re.I,
)


def begun_and_ended(text: str) -> str:
    """ "Start by moving X onto P and finish by stacking Y on that X cube." -> "Move X onto P,
    then stack Y on that X cube." (both said, the first at the start)."""
    first = _BEGUN.match(text.strip())
    last = first and _ENDED.search(text.strip(), first.end())
    if not last:
        return text
    t = text.strip()
    said = t[first.end() : last.start()]
    if first["g"]:
        said = f"{_GERUNDS[first['g'].lower()]} {said}"
    elif re.match(r"(?:start|begin|open)", first[0], re.I):
        said = f"put {said}"  # "open with the red cube onto the pad"
    return f"{_upper_first(said)}, then {_GERUNDS[last['g'].lower()]} {t[last.end() :]}"


_AIMED = re.compile(
    r"^(?:point|aim|direct)\s+(?:the|your)\s+(?:gripper|hand|arm|end\s+effector)\s+(?:at|to|"
    rf"toward|towards)\s+(?P<x>{_PAD_NP}|{_CUBE_NP})\s*,?\s*(?:and|then|and\s+then)\s+(?:wait|stay|"
    r"hang|hold(?:\s+it)?(?:\s+there)?|remain|hover|keep\s+it)\s+(?:right\s+)?(?:above|over)\s+"
    rf"(?:it|the\s+(?:{_PAD_NOUN}|{_CUBE_NOUN}))\s*(?P<end>[.!]?)$",
    re.I,
)


def aimed_and_held(text: str) -> str:
    """ "Point the gripper at the yellow pad and wait above it." -> "Hover over the yellow
    pad." """
    m = _AIMED.match(text.strip())
    return f"Hover over {m['x']}{m['end'] or '.'}" if m else text


_FAR_AWAY = re.compile(
    rf"\bthe\s+(?:(?P<n>{_CUBE_NOUN}|one)\s+(?:(?:that's|that\s+is|which\s+is)\s+)?"
    r"(?P<most>farthest|furthest)\s+away|(?P<most2>farthest|furthest)[- ]away\s+"
    rf"(?P<n2>{_CUBE_NOUN}|one))\b(?!\s+from)",
    re.I,
)


def far_away(text: str) -> str:
    """ "the one farthest away" -> "the cube farthest from you" (away from the robot, where
    nothing else is said)."""

    def said(m: re.Match) -> str:
        n = cube_noun((m["n"] or m["n2"]).lower())
        return f"the {n} {(m['most'] or m['most2']).lower()} from you"

    return _FAR_AWAY.sub(said, text)


_UNSTACK_THEM = re.compile(
    r"^(?P<v>unstack|take\s+apart|dismantle|unpile)\s+(?:(?P<it>them|it|those|these)|the\s+"
    r"(?:tower|stack|pile))(?P<how>\s*,?\s+(?:one\s+at\s+a\s+time|one\s+by\s+one|cube\s+by\s+"
    r"cube|block\s+by\s+block))?\s*:",
    re.I,
)


_SENT = re.compile(
    r"^(?:(?:first|then|next|after\s+that|last(?:ly)?|finally)\s*,?\s+)?(?:the\s+)?(?P<c>[a-z]+)"
    rf"(?:\s+(?:{_CUBE_NOUN}|one))?\s+(?:(?:first|next|last)\s+)?(?:over\s+)?{_ON}\s+"
    rf"(?P<np>the\s+[a-z]+\s+(?:{_PAD_NOUN}|{_CUBE_NOUN}|one))(?:\s+(?:first|next|last))?$",
    re.I,
)
"""One cube sent to a place with no verb ("blue to the yellow pad", "green last onto the red
cube")."""


def unstacked_list(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """ "Unstack them one at a time: A, B, C" -> "Unstack the tower: A, B, C" (the cubes an
    unstacking verb takes are a tower's; the steps after the colon say the order); each of A,
    B, C a cube by its colour sent to a place with no verb ("blue to the yellow pad, red to
    the grey pad, green last onto the red cube"): "put the blue cube on the yellow pad, then
    ..." in the order said (an unstacking lifts each cube)."""
    m = _UNSTACK_THEM.match(text.strip())
    if m is None or not (m["it"] or m["how"]):  # "unstack the stack: ..." is read as said
        return text
    rest = text.strip()[m.end() :].strip().rstrip(".!")
    parts = [p for p in re.split(r"\s*(?:,|;)\s*(?:and\s+)?|\s+(?:and\s+)?then\s+", rest) if p]
    sent = [_SENT.match(p) for p in parts]
    if len(sent) > 1 and all(sent) and {x["c"].lower() for x in sent} <= cube_colours:
        steps = [f"put the {x['c'].lower()} cube on {x['np']}" for x in sent]
        return _upper_first(", then ".join(steps)) + "."
    return f"{_upper_first(m['v'].lower())} the tower:{text.strip()[m.end() :]}"


_PLACED_THEN_IT = re.compile(
    rf"^(?P<first>(?:please\s+)?{_PUT}\s+(?P<x>{_CUBE_NP})\s+{_ON}\s+the\s+[a-z]+\s+{_PAD_NOUN}\s*"
    r"(?:,\s*|;\s*|\.\s*|\s+)(?:and\s+)?(?:then|after\s+that|next|afterwards)?\s*,?\s*"
    rf"{_PUT}\s+)it(?=\s+(?:on\s+top\s+of|onto|on\s+to|on|atop)\s+{_CUBE_NP})",
    re.I,
)


def placed_then_it(text: str) -> str:
    """ "Move the red cube to the yellow pad, then put it on the blue one." -> "..., then
    put the red cube on the blue one." ("it", put on a cube after a placing onto a pad, is
    the cube just placed: a pad is never moved)."""
    m = _PLACED_THEN_IT.match(text.strip())
    if m is None:
        return text
    x = _lower_first(m["x"])
    return f"{m['first']}{x}{text.strip()[m.end() :]}"


def reread(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with held-out 27's structures said plainly (see the module); ``cube_colours``:
    the colours the scene's cubes are named by."""
    text = other_pad_there(not_there_but(pad_gets(text)))
    text = three_on_pad(two_with_on(stack_layout(text), cube_colours), cube_colours)
    text = unstacked_list(far_away(aimed_and_held(begun_and_ended(text))), cube_colours)
    return placed_then_it(text)
