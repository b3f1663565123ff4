"""Sentence structures said as the imperative (:func:`~miles_ros.agent.clauses.plain_clauses`
tries them in turn on each sentence): a topic and a clause pointing back at it
(:func:`_topic`), a fragment of two noun phrases (:func:`_fragment`), a cleft
(:func:`_cleft`), a thing as the subject (:func:`_subject`), a place said first as what it
is for (:func:`_pad_for`).
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import (
    _ANGLE_ONLY,
    _DANGLING,
    _MODAL,
    _PREP,
    _THING,
    _first_verb,
    _is_place,
    _openers_off,
    _there,
    noun_phrase,
    verb_of,
)

# -- sentence structures ------------------------------------------------------------------
_TOPIC_MARK = re.compile(
    r"^(?:as for|as to|about|regarding|concerning|with|now for|and|so|okay|ok)\s+", re.I
)
_TOPIC = re.compile(
    r"^(?P<topic>[^:;,\u2013\u2014]+?)\s*(?::|,|\s[-\u2013\u2014]+)\s*(?P<rest>.+)$"
)
_BACK = re.compile(r"\b(?:it|there|that one|this one)\b", re.I)


def _topic(sentence: str) -> str | None:
    """ "NP: a clause pointing back at it" -> the clause with the noun phrase in place of
    the pronoun ("it", "that one" for a thing, "there" for a place)."""
    m = _TOPIC.match(sentence)
    if m is None:
        return None
    topic = re.sub(r"\s+(?:over |right |up |down )?(?:there|here)$", "", m["topic"], flags=re.I)
    np = noun_phrase(_TOPIC_MARK.sub("", topic))  # "that green cube over there: ..."
    rest = _openers_off(m["rest"])
    where = _WHERE_GOES.match(rest.strip(" .!"))
    if np is not None and where and _is_place(np) and noun_phrase(where["np"]):
        return f"put {noun_phrase(where['np'])} on {np}"  # "the pad: that's where X goes"
    if np is None or not verb_of(rest.split()[0] if rest.split() else ""):
        return None
    place = _is_place(np)
    if place and re.search(r"\bthere\b", rest, re.I):
        verb = _first_verb(rest)
        rest = re.sub(
            r"\b(?:over |up |right )?there\b", f"{_there(verb)} {np}", rest, count=1, flags=re.I
        )
        return rest
    bare = _NO_OBJECT.match(rest)
    if not place and bare and verb_of(bare["verb"]) in _MOVING:
        return f"{bare['verb']} {np} {rest[bare.end() :]}"  # "Red cube: slide to the pad"
    back = re.search(r"\b(?:it|that one|this one)\b", rest, re.I)
    if back is None:
        return None
    return rest[: back.start()] + np + rest[back.end() :]


_NO_OBJECT = re.compile(
    r"^(?P<verb>[a-z]+)\s+(?=(?:(?:over|across|right|straight)\s+)?(?:to|onto|on to|into|"
    r"on top of|on|toward|towards)\s)",
    re.I,
)
"""A verb said straight before its place, its object left out ("slide to the left pad")."""
_MOVING = frozenset("put place set move push slide shove nudge drag bring carry get".split())


_FRAGMENT = re.compile(
    r"^(?P<what>[^,:\u2013\u2014>]+?)\s*(?:,|:|->|=>|\s[-\u2013\u2014]+)\s*(?P<where>[^,:]+?)$"
)


_TO_PLACE = re.compile(r"^\s*(?:for|onto|on to|on|to|into|over to)\s+", re.I)


def _fragment(sentence: str) -> str | None:
    """Two noun phrases, a cube and a place in either order: "Red cube, left pad.", "Left
    pad: the red cube.", "For the grey mat: the blue block." -> "put the red cube on the
    left pad"."""
    m = _FRAGMENT.match(sentence)
    if m is None:
        return None
    what, where = noun_phrase(m["what"]), noun_phrase(m["where"])
    if what is None and where is not None and not _is_place(where):  # "For the pad: X."
        what = noun_phrase(_TO_PLACE.sub("", m["what"]))
        what = what if what is not None and _is_place(what) else None
    if what is not None and where is not None and _is_place(what) and not _is_place(where):
        what, where = where, what  # "Left pad: the red cube." -> the thing, then the place
    if what is not None and not _is_place(what) and _ANGLE_ONLY.match(m["where"].strip()):
        return f"turn {what} {m['where'].strip()}"  # "Blue cube, 25 degrees clockwise."
    if what is None or where is None or _is_place(what):
        return None
    picked = re.sub(
        r"\b(?:nearest|closest|farthest|furthest|next)\s+(?:to\s+)?", "", what + " " + where
    )
    if re.search(
        rf"\b(?:on|onto|into|to|on top of)\s+(?:the\s+)?(?:\w+\s+)?{_THING}", picked, re.I
    ):
        return None  # a placing said inside ("red cube on the pad, blue cube ..."): no fragment
    return f"put {what} on {where}"


_CLEFT = re.compile(
    r"^it(?:'s| is| was)\s+(?P<np>.+?)\s+(?:(?:that|which|who)\s+)?(?P<rest>"
    r"(?:you|we|i)\b.+|(?:should|must|needs?|has|have|ought|is|are|goes|go|ends|belongs|"
    r"sits|lands|gets|wants|can|could|will)\b.+)$",
    re.I,
)
_GAP_SUBJECT = re.compile(
    rf"^(?:you|we)\s+(?:(?:really\s+)?{_MODAL}\s+(?:be\s+)?|are\s+going\s+to\s+)?(?P<vp>.+)$", re.I
)
_WANT = re.compile(
    r"^i\s+(?:want|need|'d like|would like|wanted)\s+(?:you\s+to\s+(?P<vp>.+)|(?P<pp>.+))$", re.I
)


def _with_object(vp: str, np: str) -> str | None:
    """A verb phrase with its object gap filled: after a stranded preposition ("hover
    over" + NP), else after the verb and its particle ("push onto the pad" -> "push NP
    onto the pad")."""
    words = vp.split()
    if not words or not verb_of(words[0]):
        return None
    if _DANGLING.search(vp):
        return f"{vp} {np}"
    head = 2 if len(words) > 1 and words[1].lower() in {"up", "down", "over", "back"} else 1
    if head == 2 and len(words) > 2 and re.match(_PREP, " ".join(words[2:]), re.I) is None:
        head = 1
    return " ".join([*words[:head], np, *words[head:]])


def _cleft(sentence: str) -> str | None:
    """ "It's the red cube (that) you should push onto the pad" -> "push the red cube onto
    the pad"; "It's the red cube that goes on the pad" -> the subject reading below."""
    m = _CLEFT.match(sentence)
    if m is None:
        return None
    np = noun_phrase(m["np"])
    if np is None:
        return None
    rest = m["rest"]
    gap = _GAP_SUBJECT.match(rest)
    if gap and verb_of(gap["vp"].split()[0]):
        return _with_object(gap["vp"], np)
    want = _WANT.match(rest)
    if want:
        if want["vp"]:
            return _with_object(want["vp"], np)
        if re.match(_PREP, want["pp"], re.I):
            return f"put {np} {want['pp']}"
        return None
    return _subject(f"{np} {rest}")


_SUBJECT = re.compile(
    rf"^(?P<np>.+?)\s+(?:{_MODAL}\s+)?(?:(?:be|get|been|is|are)\s+(?P<part>\w+)|"
    rf"(?P<ger>\w+ing)|(?P<stay>(?:go|goes|end up|ends up|wind up|winds up|land|lands|sit|sits|"
    rf"belong|belongs|rest|rests|finish|finishes|be|stay|stays)))\s+(?P<prep>{_PREP})\s+"
    r"(?P<place>[^;:,]+)$",
    re.I,
)


_ASKED_SUBJECT = re.compile(r"^(?:could|can|would|will|might)\s+(?=(?:the|that|this)\s)", re.I)
"""A modal asking about a thing as the subject ("Could the red cube go over to ...?")."""


def _subject(sentence: str) -> str | None:
    """A scene thing as the subject: "The red cube should end up on the left pad" -> "put
    the red cube on the left pad"; "... should be pushed onto ..." -> "push ..."; "...
    needs moving to ..." -> "move ..."."""
    m = _SUBJECT.match(_ASKED_SUBJECT.sub("", sentence))
    if m is None:
        return None
    np, place = noun_phrase(m["np"]), noun_phrase(m["place"])
    if np is None or place is None or _is_place(np):
        return None
    if (
        m["stay"]
        and m["stay"].lower() == "be"
        and not re.search(rf"\s{_MODAL}\s+be$", m[0][: m.start("stay") + 2], re.I)
    ):
        return None
    if m["part"] or m["ger"]:
        verb = verb_of(m["part"] or m["ger"])
        if verb is None or verb in {"go", "end", "sit", "land", "rest", "stay"}:
            verb = "put" if verb else None
        if verb is None:
            return None
    else:
        verb = "put"
    return f"{verb} {np} {m['prep']} {place}"


_WHERE_GOES = re.compile(
    r"^that(?:'s| is)\s+where\s+(?P<np>.+?)\s+(?:goes|belongs|should go|needs to go|has to go|"
    r"is going|must go)$",
    re.I,
)


_PAD_FOR = re.compile(
    r"^(?P<where>.+?)(?:\s+is|'s)?\s+(?:for|meant for|goes to)\s+(?P<what>.+)$", re.I
)


def _pad_for(sentence: str) -> str | None:
    """A place said first as what it is for: "Grey mat's for the blue block." -> "put the
    blue block on the grey mat" (a place, then a cube)."""
    m = _PAD_FOR.match(sentence)
    if m is None:
        return None
    where, what = noun_phrase(m["where"]), noun_phrase(m["what"])
    if where is None or what is None or not _is_place(where) or _is_place(what):
        return None
    return f"put {what} on {where}"
