"""Held-out 12's structures (:func:`~miles_ros.agent.clauses.plain_clauses` runs these on the
whole goal): a cube cancelled and another put in its place, a step taken back and said
again, "same again with X", a place asked and answered, a way of moving ruled out before the
request.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import (
    _CUBE_NOUN,
    _SEP,
    _first_verb,
    _first_word,
    _is_place,
    _there,
    noun_phrase,
    verb_of,
)

_CHANGE_MIND = (
    r"(?:no,?\s+wait|wait,?\s+no|no,?\s+hold on|hold on,?\s+no|actually,?\s+no|no,?\s+sorry|"
    r"sorry,?\s+no|scratch that|change of plan|on second thought)"
)
_REPLACED = re.compile(
    rf"^(?P<first>[^.?!]+?){_SEP}{_CHANGE_MIND}{_SEP}?"
    rf"(?:(?:don'?t|do not) (?:move|touch) (?P<x>the (?:\w+ ){{0,2}}?(?:{_CUBE_NOUN}|one)s?)"
    rf"(?: at all)?|leave (?P<y>the (?:\w+ ){{0,2}}?(?:{_CUBE_NOUN}|one)s?) "
    r"(?:be|alone|where it is))"
    rf"{_SEP}?\s*(?:and\s+|just\s+)?(?P<rest>[^.?!]+?)\s+instead[.!]?$",
    re.I,
)
_LAST_PLACE = re.compile(
    r"\b(?:on top of|onto|on to|on|to|over to|into)\s+(?P<place>the [^,;.]+?)\s*$", re.I
)


def _replaced(text: str) -> str:
    """A cube cancelled and another put in its place: "Put the red cube on the pad - no
    wait, don't move the red cube at all, put the blue one there instead." -> "put the
    blue one on the pad" (the place said first stands for "there")."""
    m = _REPLACED.match(text.strip())
    if m is None:
        return text
    place = _LAST_PLACE.search(m["first"])
    rest = m["rest"].strip()
    if not verb_of(_first_word(rest)):
        return text
    if re.search(r"\bthere\b", rest, re.I):
        if place is None or noun_phrase(place["place"]) is None:
            return text
        where = f"{_there(_first_word(rest))} {noun_phrase(place['place'])}"
        rest = re.sub(r"\b(?:over |right )?there\b", where, rest, count=1, flags=re.I)
    return rest


_RETRACT_MARK = re.compile(
    r"(?:\s*(?:\.{2,}|\u2026)\s*|\s*[,;.]\s*|\s[-\u2013\u2014]+\s*)"
    r"(?P<mark>(?:(?:no+|nope|wait|sorry|oh)\b)?[,\s]*(?:no,?\s+)?(?:don'?t(?:\s+do\s+that)?"
    r"(?=\s*[,;:!]|\s[-\u2013\u2014])|"
    r"not that|scratch that|cancel that|forget that|strike that|no wait|wait,?\s+no|"
    r"actually,?\s+no\b|on second thoughts?|change of plan|actually(?=,?\s+not\s)|"
    r"(?:no|wait|no wait),?\s+make (?:that|it)|make that))"
    r"(?:\s*[,;:!]|\s[-\u2013\u2014]+|\.(?!\.))?\s*",
    re.I,
)
"""A step said, then taken back: "... no, don't, ...", "... - scratch that, ...", "... .
Actually not ...", "...; no wait, make that ..."."""
_LAST_SAID_PLACE = re.compile(
    r"\b(?P<prep>on top of|onto|on to|on|into|to|over to|across to|over|above)\s+"
    r"(?P<place>(?:the|that|this)\s+[^,;.]+?)\s*$",
    re.I,
)
_STRONG_MARK = re.compile(
    r"\b(?:don'?t|not that|scratch that|cancel that|forget that|strike that)\b", re.I
)
_ORDERED = re.compile(r"\b(?:first|before|after|then|too|also|as well|afterwards)\b", re.I)
_NOT_THAT = re.compile(
    r"^not\s+(?:the|that|this)\s+[^,;:\-\u2013\u2014]+?(?:\s*[,;:]|\s[-\u2013\u2014]+)\s*", re.I
)
"""The thing given up, said before the one meant ("not the yellow pad - the grey pad")."""
_CLAUSE_START = re.compile(r"(?:[,;.]\s*(?:and\s+)?(?:then\s+)?|\s+(?:and\s+)?then\s+)", re.I)


def _retracted(text: str) -> str:
    """A step said, then taken back and said again: "put the red cube on the left pad...
    no, don't, put it on the right pad instead" -> "put the red cube on the right pad";
    "push X onto P - scratch that, Q", "... . Actually not P - Q", "...; no wait, make that
    Q" -> the step with its place (or the thing reached) replaced. Only the last clause
    before the mark is taken back; what follows the mark must be a clause opening with a
    verb or a noun phrase, else the words are left as said."""
    m = _RETRACT_MARK.search(text)
    if m is None:
        return text
    before, after = text[: m.start()], text[m.end() :].strip()
    cut = list(_CLAUSE_START.finditer(before))
    head, last = (before[: cut[-1].end()], before[cut[-1].end() :]) if cut else ("", before)
    place = _LAST_SAID_PLACE.search(last)
    verb = _first_word(last)
    if place is None or not verb_of(verb):
        return text
    end = "." if after.rstrip().endswith((".", "!")) else ""
    instead = re.search(r"\binstead\b", after, re.I)
    after = re.sub(r"(?:\s*,?\s*instead)?\s*[.!]*$", "", after, flags=re.I)
    after = re.sub(r"^(?:instead|rather|i mean|just)\s*,?\s*", "", after, flags=re.I)
    if verb_of(_first_word(after)):  # "..., put it on the green cube instead"
        if _ORDERED.search(after) or not (
            instead or re.search(r"\bit\b", after, re.I) or _STRONG_MARK.search(m["mark"])
        ):
            return text  # "...; no wait, go home first": a step added, none taken back
        obj = last[len(verb) : place.start()].strip()
        if obj and noun_phrase(obj):
            after = re.sub(r"\bit\b", noun_phrase(obj) or obj, after, count=1, flags=re.I)
        return f"{head}{after}{end}"
    after = _NOT_THAT.sub("", after)
    new = noun_phrase(after)
    if new is None:
        return text
    return f"{head}{last[: place.start('place')]}{new}{end}"


_SAME_AGAIN = re.compile(
    r"(?P<sep>^(?:and\s+)?(?:now\s+)?|\s*[,;.]\s*(?:and\s+)?(?:then\s+)?(?:now\s+)?|\s+(?:and\s+)?then\s+(?:now\s+)?)"
    r"(?:(?:do\s+)?(?:the\s+)?same(?:\s+thing)?(?:\s+again)?|(?:do|repeat)\s+(?:that|it|this)"
    r"(?:\s+again)?|(?:now\s+)?the\s+same)\s*,?\s*(?:but\s+|only\s+|just\s+)*(?:with|for|on|using)"
    r"\s+(?P<np>(?:the|that|this)\s+[^,;.!?]+?)(?:\s*,?\s*(?:this time|too|as well|please))*"
    r"\s*(?P<end>[.!?]*)$",
    re.I,
)


def _same_again(text: str) -> str:
    """ "A. Same again, but with the blue cube (this time)", "A, then do that again with
    X", "A. Now the same for X" -> "A, then do the same with X" (the discourse rule says
    the step again for X); said with nothing before it, no step is there to repeat: "move
    X", whose place the reading asks back."""
    m = _SAME_AGAIN.search(text.strip())
    if m is None or noun_phrase(m["np"]) is None:
        return text
    np = noun_phrase(m["np"])
    before = text.strip()[: m.start()]
    if not before.strip():
        return f"move {np}{m['end']}"
    if not verb_of(_first_verb(before)):
        return text
    return f"{before}, then do the same with {np}{m['end']}"


_PLACE_ANSWERED = re.compile(
    rf"^(?P<p>[^?.!]+?)\?\s*(?:no|nope|nah|not that one){_SEP}(?P<q>[^.!?;:]+?)\s*[.!;:]\s*"
    r"(?P<rest>.+)$",
    re.I,
)


def _place_answered(text: str) -> str:
    """A place asked, then answered: "The left mat? No - the right mat. Hover over that."
    -> "Hover over the right mat" (both said as noun phrases; "that", "it" or "there" in
    the command stands for the answer)."""
    m = _PLACE_ANSWERED.match(text.strip())
    p = m and noun_phrase(m["p"])
    q = p and noun_phrase(m["q"])
    if not q or not verb_of(_first_word(m["rest"])):
        return text
    rest = m["rest"]
    there = re.search(r"\b(?:over |right )?there\b", rest, re.I)
    if there:
        return rest[: there.start()] + f"{_there(_first_word(rest))} {q}" + rest[there.end() :]
    rest, n = re.subn(r"\b(?:that|it)\b", q, rest, count=1, flags=re.I)
    return rest if n else text


_ANYTHING_BUT = re.compile(
    r"^(?:(?:anything|any way|anyhow|any method|whatever)\s+(?:but|except|other than|apart from)"
    r"|whatever you do,?\s*(?:no|don'?t|do not|never)|no)\s+(?:a |an )?(?P<how>\w+)(?:\s+it)?"
    rf"{_SEP}(?P<rest>.+?)[.!]?$",
    re.I,
)
_MANNER = {"push": "push", "slide": "push", "shove": "push", "nudge": "push", "drag": "push",
           "lift": "lift", "pick": "lift", "carry": "lift", "raise": "lift"}  # fmt: skip
"""The verbs that say how a cube is moved, and the one the reading forbids for each."""


def _anything_but(text: str) -> str:
    """A way ruled out before the request: "Anything but pushing - get the red cube onto
    the pad.", "Whatever you do, no lifting: the blue cube goes on the mat." -> "..., but
    don't push it" (the prohibition after the request, as the reading reads it)."""
    m = _ANYTHING_BUT.match(text.strip())
    how = m and _MANNER.get(verb_of(m["how"]) or m["how"].lower())
    if not how:
        return text
    rest = m["rest"].strip()
    first = _first_word(rest)
    if not verb_of(first):  # "the red cube goes onto the pad"
        subject = re.match(r"^(?P<np>.+?)\s+(?:goes|go|should go|needs to go)\s+(?P<r>.+)$", rest)
        if subject is None or noun_phrase(subject["np"]) is None:
            return text
        rest = f"put {noun_phrase(subject['np'])} {subject['r']}"
    return f"{rest}, but don't {how} it."


_ANY_CUBE = rf"(?:anything|any of them|any {_CUBE_NOUN}s?|(?:of )?(?:any|a) {_CUBE_NOUN})"
_WAY_RULED_OUT = re.compile(
    r"^(?:(?:don'?t|do not|never|no)\s+(?:use\s+|try\s+|go for\s+|do\s+)?(?:any\s+|a\s+)?"
    r"(?P<how>\w+)(?:\s+(?:it|them))?(?:\s+up)?"
    r"|(?:avoid|without|refrain from|steer clear of)\s+(?:any\s+)?(?P<avoid>\w+ing)"
    r"(?:\s+(?:it|them))?(?:\s+up)?"
    rf"|i (?:don'?t|do not) want (?:you )?(?P<ing>\w+ing)\s+{_ANY_CUBE}"
    rf"|i'?d rather (?:you )?(?:didn'?t|did not) (?P<verb>\w+)\s+{_ANY_CUBE}"
    r"|(?P<gerund>\w+ing) (?:is|'s) (?:off the table|out|not allowed|forbidden|banned|off limits)"
    rf"|no (?P<no>\w+ing) (?:{_ANY_CUBE}|at all))"
    r"(?:\s+(?:either|at all|today|this time|for now|for today|now|please))*$",
    re.I,
)
"""One way of moving a cube ruled out: "don't push it", "no lifting", "don't use pushing",
"don't go for a lift", "avoid / without (any) sliding (it)", and for every cube
("I don't want you pushing anything today", "pushing is off the table")."""
_HAVE_END_UP = re.compile(
    r"^(?:have|let|make sure|see that)\s+(?P<np>.+?)\s+(?:ends? up|goes|go|lands?)\s+"
    r"(?P<r>(?:on|onto|on top of)\b.+)$",
    re.I,
)
"""The placing said as where the cube should end up: "have the red cube end up on P"."""
_PLACED_FRAGMENT = re.compile(
    r"^(?P<np>[^,;:]+?)\s+(?:(?:goes|should go|must go|needs to go|is to go)\s+)?"
    r"(?:over\s+|across\s+)?(?:to|onto|on to|on)\s+(?P<p>[^,;:]+?)$",
    re.I,
)
"""A placing said with no verb after the ways ruled out: "(the) green cube to the grey pad",
"the blue brick goes to the left pad"."""


_GLOBAL_WAY = re.compile(
    r"\b(?:anything|any|off the table|not allowed|forbidden|banned|off limits|out)\b", re.I
)


def _ways_ruled_out(text: str) -> str:
    """Ways of moving ruled out before the request: "I don't want you pushing anything
    today - get X onto P", "Don't slide it and don't lift it either: just get X onto P" ->
    "get X onto P, but don't push it (and don't lift it)", as the reading reads a
    prohibition after its request (both ways ruled out: refused); "Don't lift it - push the
    red cube onto P" likewise (the request names its cube and the other way). A request
    said of "it" ("Don't push it, lift it: ...") is left to the rules after."""
    m = re.match(
        rf"^(?P<ways>[^:;.!?\u2013\u2014]+?)(?:,?\s*please)?{_SEP}(?P<rest>.+?)[.!]?$",
        text.strip(),
    )
    if m is None:
        return text
    ways = []
    for part in re.split(r"\s*,\s*(?:and\s+|or\s+|nor\s+)?|\s+(?:and|or|nor)\s+", m["ways"]):
        said = _WAY_RULED_OUT.match(part.strip())
        word = said and next(w for w in said.groups() if w)
        how = word and _MANNER.get(verb_of(word) or word.lower())
        if not how:
            return text
        ways.append((how, bool(_GLOBAL_WAY.search(part))))
    rest = re.sub(r"^(?:just|simply|only)\s+", "", m["rest"].strip(), flags=re.I)
    ends = _HAVE_END_UP.match(rest)
    if ends and noun_phrase(ends["np"]):  # "have the red cube end up on P"
        rest = f"put {noun_phrase(ends['np'])} {ends['r']}"
    fragment = _PLACED_FRAGMENT.match(rest)
    if fragment and not verb_of(_first_word(rest)):  # "green cube to the grey pad"
        np, place = noun_phrase(fragment["np"]), noun_phrase(fragment["p"])
        if np and place and not _is_place(np) and _is_place(place):
            rest = f"get {np} onto {place}"  # no way said: the one left is the reading's
    verb = verb_of(_first_word(rest))
    manner = _MANNER.get(verb or "")
    if not ways or not verb or manner in {h for h, _ in ways}:
        return text
    if len(ways) == 1 and not ways[0][1]:  # "don't lift it - push the red cube onto ..."
        if re.match(r"^(?:just|simply|only)\b", m["rest"].strip(), re.I):
            return text  # "never pick it up; simply slide ...": the prohibition rule's
        if re.match(r"\w+\s+(?:it|that|this|one)\b", rest, re.I):
            return text  # "don't push it, lift it: ..." is left to the rules after
    said = " and ".join(f"don't {how} it" for how in dict.fromkeys(h for h, _ in ways))
    return f"{rest}, but {said}."
