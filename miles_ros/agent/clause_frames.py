"""Frames around a request (:func:`~miles_ros.agent.clauses.plain_clauses` runs these on the
whole goal): steps to be done in reverse, a turn said before the move, a cube kept on the
table or kept still, a pad chosen first, the one cube left when the others are named, a
thing set aside in front, verbs of putting down, a cube straightened, a stacked cube lifted
off, cubes left alone by a count; and a tower said bottom to top (:func:`_towers_said`).
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import (
    _CUBE_NOUN,
    _PAD_NOUN,
    _SENTENCE,
    _SEP,
    _WAY,
    _first_verb,
    _first_word,
    _is_place,
    _lower_first,
    _openers_off,
    _there,
    _upper_first,
    noun_phrase,
    verb_led,
    verb_of,
)
from miles_ros.agent.phrases import skill_verbs

_BACKWARDS = (
    r"(?:in reverse(?: order)?|backwards|in the opposite order|in the reverse order|the other way "
    r"(?:round|around))"
)
_IN_REVERSE = re.compile(
    r"^(?:(?:please\s+)?(?:(?:do|take|go through)\s+(?:these|them|those|this|the steps|the "
    rf"following|this list)(?:\s+(?:all|two|steps))?\s+{_BACKWARDS}|{_BACKWARDS}|reverse\s+"
    r"(?:these|them|those|the following|this list|the order(?:\s+of\s+(?:these|the following))?)"
    r"(?:\s+(?:two|steps))?)(?:,?\s+please)?)"
    rf"{_SEP}(?P<list>.+?)[.!]?$",
    re.I,
)
_LIST_SEP = re.compile(r"\s*(?:,|;)\s*(?:and\s+)?(?:then\s+)?|\s+(?:and\s+)?then\s+", re.I)


_TURN_FIRST = re.compile(
    rf"^(?:after (?:a|an) (?P<n>\d+)[- ]degrees? (?:turn|rotation)(?P<w>\s+{_WAY})?\s*,\s*"
    rf"(?P<np>the (?:\w+ ){{0,3}}?{_CUBE_NOUN})\b|once (?P<np2>the (?:\w+ ){{0,3}}?{_CUBE_NOUN}) "
    rf"(?:has been|is|'s been) (?:turned|rotated) (?:by )?(?P<n2>\d+) degrees?(?P<w2>\s+{_WAY})?"
    r"\s*,\s*it\b)(?P<rest>.+)$",
    re.I,
)


def _turn_first(text: str) -> str:
    """A turn said as what comes before the move: "After a 25-degree turn, the red cube
    should end up on the left pad." / "Once the red cube has been turned 25 degrees, it
    should go onto the left pad." -> "Turn the red cube 25 degrees. The red cube should
    end up on the left pad." """
    m = _TURN_FIRST.match(text.strip())
    if m is None:
        return text
    np, n, way = m["np"] or m["np2"], m["n"] or m["n2"], m["w"] or m["w2"] or ""
    return f"Turn {_lower_first(np)} {n} degrees{way}. {_upper_first(np)}{m['rest']}"


_KEPT_DOWN = re.compile(
    rf"^(?:keep (?P<o>it|the (?:\w+ ){{0,3}}?{_CUBE_NOUN}) (?:on|against) the table(?: the whole"
    r" time| throughout| at all times| all the way| the entire time)?\s*,?\s*and\s+|"
    rf"(?P<s>the (?:\w+ ){{0,3}}?{_CUBE_NOUN}) (?:mustn'?t|must not|shouldn'?t|should not|"
    r"can'?t|cannot|may not) (?:leave|come off) the table\s*(?:[,;:]|\s[-\u2013\u2014]+)\s*)"
    r"(?P<rest>.+?)[.!]?$",
    re.I,
)
_RAISING = re.compile(
    r"\bwithout (?:raising|lifting|picking up) (?P<o>it|the (?:\w+ ){0,3}?\w+)(?: up)?"
    r"(?: (?:off the table|at all|from the table))+\b",
    re.I,
)


def _kept_down(text: str) -> str:
    """A cube kept on the table said as the lift it rules out: "Keep the red cube on the
    table the whole time and get it over to the left pad." / "The red cube mustn't leave
    the table - move it onto the left pad." -> "get the red cube over to the left pad, but
    don't lift it"; "without raising it at all" -> "without lifting it"."""
    text = _RAISING.sub(lambda m: f"without lifting {m['o']}", text)
    m = _KEPT_DOWN.match(text.strip())
    if m is None:
        return text
    np, rest = m["o"] or m["s"], m["rest"]
    if np.lower() != "it":
        rest = re.sub(r"\bit\b", _lower_first(np), rest, count=1, flags=re.I)
    return f"{_upper_first(rest)}, but don't lift it."


def _in_reverse(text: str) -> str:
    """Steps listed, to be done in the reverse order: "Do these backwards: A, then B.", "In
    reverse order: A, then B.", "Reverse these two: A, then B." -> "B, then A" (each step a
    clause with its verb, or a verb of the skills' phrases: "point at X")."""
    m = _IN_REVERSE.match(text.strip())
    if m is None:
        return text
    parts = [p for p in _LIST_SEP.split(m["list"]) if p.strip()]
    said = frozenset().union(*skill_verbs().values())  # "point at X", "approach X"
    if len(parts) < 2 or not all(verb_of(w := _first_word(p)) or w in said for p in parts):
        return text
    return ", then ".join(_lower_first(p.strip()) for p in reversed(parts)) + "."


_LET_MOVE = re.compile(
    r"\b(?:don'?t|do not|never)\s+let\s+(?P<o>it|them|the (?:\w+ )?\w+)\s+(?:move|budge|shift)"
    r"(?:\s+(?:an inch|at all))?\b|\b(?P<s>it|the (?:\w+ )?(?:cube|block|brick))\s+(?:mustn'?t|"
    r"must not|shouldn'?t|should not|can'?t|cannot|may not)\s+(?:move|budge|shift)"
    r"(?:\s+(?:an inch|at all))?\b",
    re.I,
)


def _kept_still(text: str) -> str:
    """A cube kept still said as its subject: "..., but don't let it move", "..., but the
    cube mustn't move an inch" -> "..., but don't move it" (what the reading refuses when
    the same clause moves the cube)."""
    return _LET_MOVE.sub(
        lambda m: f"don't move {m['o'] or ('it' if m['s'].lower() == 'it' else m['s'])}", text
    )


_PAD_CHOSEN = re.compile(
    r"^(?:(?:out )?of|between|from)\s+(?:the|these|those)\s+(?:two\s+)?(?P<noun>\w+?)s?\s*,\s*"
    r"(?:(?:i'?d\s+|we'?ll\s+|let'?s\s+)?(?:use|pick|take|choose|go with|go for))\s+the\s+"
    rf"(?P<adj>\w+)\s+one(?:{_SEP}|\s+)(?:and\s+)?(?P<rest>.+)$",
    re.I,
)


def _pad_chosen(text: str) -> str:
    """A place chosen first, then the command on it: "Of the two pads, use the grey one:
    put the green cube there." -> "put the green cube on the grey pad" ("there", "on it"
    or "onto it" stand for it)."""
    m = _PAD_CHOSEN.match(text.strip())
    if m is None or not re.fullmatch(_PAD_NOUN, m["noun"], re.I):
        return text
    np = f"the {m['adj'].lower()} {m['noun'].lower()}"
    rest = _openers_off(m["rest"].strip())
    if not verb_of(_first_word(rest)):
        return text
    there = re.search(r"\b(?:over |right )?there\b|\b(?:on|onto|on top of|to)\s+it\b", rest, re.I)
    if there is None:
        return text
    return rest[: there.start()] + f"{_there(_first_word(rest))} {np}" + rest[there.end() :]


_OTHER_ONE = re.compile(
    rf"\bthe (?:other|remaining|third|last) (?:one|{_CUBE_NOUN})\b(?!\s+(?:of|from|that|which)\b)",
    re.I,
)


def _excluded(text: str, cube_colours: frozenset[str]) -> str:
    """The one cube left when the others are named before it: "Leave the red and green
    cubes alone and push the other one ..." -> "... push the blue cube ..." (every other
    colour of the scene said before "the other / remaining / third one")."""
    m = _OTHER_ONE.search(text)
    if m is None or len(cube_colours) < 3:
        return text
    said = {c for c in cube_colours if re.search(rf"\b{c}\b", text[: m.start()], re.I)}
    left = cube_colours - said
    if len(said) < 2 or len(left) != 1:
        return text
    return text[: m.start()] + f"the {next(iter(left))} cube" + text[m.end() :]


_NOT_THIS_THAT = re.compile(
    rf"^not\s+(?P<a>[^,:;]+?)\s*(?:,|\s[-\u2013\u2014]+|\bbut\b)\s*(?P<b>[^,:;]+?)\s*"
    rf"(?::|{_SEP})\s*(?P<rest>.+)$",
    re.I,
)


def _not_this_that(text: str) -> str:
    """A thing set aside in front: "Not the red cube, the blue cube: put it on the pad." ->
    "put the blue cube on the pad" (two cubes; "it" in the command stands for the second)."""
    m = _NOT_THIS_THAT.match(text.strip())
    a = m and noun_phrase(m["a"])
    b = a and noun_phrase(m["b"])
    if not b or _is_place(a) or _is_place(b) or not verb_of(_first_word(m["rest"])):
        return text
    rest, n = re.subn(r"\b(?:it|that one|this one)\b", b, m["rest"], count=1, flags=re.I)
    return rest if n else text


_POP = re.compile(
    r"\b(?:pop|plonk|plop|stick)(?=\s+(?:it|that|this|them|the\b)[^.;]*?\b(?:on|onto|on top of|"
    r"in|into)\b)",
    re.I,
)
"""Verbs of putting down ("pop it on the pad"): said as "put"."""
_STRAIGHTEN = re.compile(
    r"\b(?:straighten(?:\s+out)?|realign|reorient|align)\s+(?P<np>(?:the|that|this|it)\b[^,;.?!]*?)"
    r"(?:\s+up)?\s+(?=so\b|to face\b)|\bline\s+(?P<np2>(?:the|that|this|it)\b[^,;.?!]*?)\s+up\s+"
    r"(?=so\b|to face\b)",
    re.I,
)
"""A cube straightened so a face shows the robot: a turn ("straighten the red cube so one
side faces you" -> "turn the red cube so one side faces you")."""
_LIFT_OFF = re.compile(
    rf"^(?P<np>the (?:\w+ )?{_CUBE_NOUN}|the \w+ one)(?:'s|\s+is|\s+sits)?\s+"
    r"(?:sitting |standing |resting |stacked |placed )?on (?:top of )?"
    rf"(?:the (?:\w+ )?(?:one|{_CUBE_NOUN}))\s*(?::|,|;|\.|\s[-\u2013\u2014]+)\s*"
    r"(?:lift|take|pick|get)\s+it\s+off(?:\s+(?:of\s+)?it)?\s+and\s+(?:then\s+)?"
    r"(?P<verb>\w+)\s+it\s+(?:down\s+)?(?P<rest>.+)$",
    re.I,
)


def _lifted_off(text: str) -> str:
    """A stacked cube taken off and put down: "The blue cube on top of the red one - lift
    it off and put it on the left pad.", the layout said as a clause ("The blue cube's / is
    sitting on the red one; take it off and ...") -> "put the blue cube on the left pad"."""
    m = verb_led(_LIFT_OFF, text)
    if m is None:
        return text
    return f"{m['verb']} {_lower_first(m['np'])} {m['rest']}"


_LEAVE_COUNT = re.compile(
    r"^(?:(?:out )?of (?:the|all|these) (?:three|\w+) \w+,\s*)?"
    r"leave (?:two|both|the two|a couple) "
    r"(?:of them |of the \w+ )?(?:alone|be|where they are)\s*(?:[-\u2013\u2014]+|,|\()\s*"
    r"(?P<list>[^-\u2013\u2014)]+?)\s*(?:[-\u2013\u2014]+|\)|,)\s*(?:and\s+)?(?P<rest>.+)$",
    re.I,
)


def _left_counted(text: str) -> str:
    """Cubes left alone by a count, then listed: "Of the three cubes, leave two alone - the
    red and the green - and push the other one ..." -> "leave the red and the green alone
    and push the other one ..."."""
    m = _LEAVE_COUNT.match(text.strip())
    if m is None or not verb_of(_first_word(m["rest"])):
        return text
    return f"leave {m['list'].strip()} alone and {m['rest']}"


_TOWER_OPENING = re.compile(
    r"^(?:(?:let'?s\s+)?(?:stack|pile|build|make|put)\s+(?:up\s+)?(?:them|it|all|all three|the "
    r"(?:three\s+)?(?:cubes|blocks)|a (?:tower|stack|pile)|(?:them\s+)?all(?:\s+three)?|up|\s)*"
    r"(?:\s+up)?(?:\s+with)?\s*[:,\u2013\u2014-]?\s*|[^:]*:\s*)",
    re.I,
)
_BOTTOM = re.compile(
    r"\b(?:bottom|base|lowest|underneath|beneath|first|start(?:ing)? with|on the (?:table|"
    r"floor))\b",
    re.I,
)
_TOWER_VERBS = frozenset({"put", "place", "set", "stack", "pile", "sit", "rest", "go", "finish"})
"""Verbs a part of a tower said bottom to top may hold ("put green on it")."""
_ALL_THREE = re.compile(r"\b(?:all|three|3)\b", re.I)
_TOP = re.compile(r"\b(?:top|highest|last|finish(?:ing)? with|end(?:ing)? with)\b", re.I)
_TOWER_CUE = re.compile(
    r"\b(?:bottom|base|top|underneath|tower|stack|pile|start(?:ing)? with|finish(?:ing)? with)\b",
    re.I,
)
_LISTED_FROM = re.compile(
    r"\b(?:from the (?P<up>bottom)(?: up)?|(?P<up2>bottom)[- ]up|(?P<up3>bottom) to top|from the "
    r"top(?: down)?|top[- ]down|top to bottom)\b",
    re.I,
)
"""A list's direction said with it ("from the bottom up: red, green, blue")."""


def _tower_up(sentence: str, cube_colours: frozenset[str]) -> str | None:
    """A tower said bottom to top, one cube a part: "blue at the bottom, red in the middle,
    green on top", "Green first, blue on it, red at the very top", "start with red on the
    table, put green on it, and finish with blue", "with red on the bottom and blue on top"
    (the third cube, when "all" are stacked, in the middle) -> "put the red cube on the blue
    cube, then put the green cube on the red cube"; None for any other sentence (a part
    naming two cubes or a place, no part said at the bottom)."""
    if not cube_colours or re.search(rf"\b{_PAD_NOUN}s?\b", sentence, re.I):
        return None
    if not _TOWER_CUE.search(sentence):
        return None
    body = _TOWER_OPENING.sub("", sentence.strip().rstrip(".!"), count=1)
    colour = rf"\b(?:{'|'.join(sorted(cube_colours))})\b"
    bottom, top, middle = [], [], []
    for part in re.split(
        r"\s*(?:[,;:]|\s[-\u2013\u2014]+)\s*|\s+(?:and\s+)?then\s+|\s+and\s+", body
    ):
        said = re.findall(colour, part, re.I)
        if len(said) > 1:
            return None
        if not said:
            continue
        if any(
            verb_of(w) not in _TOWER_VERBS
            for w in re.findall(r"[a-z]+", part.lower())
            if verb_of(w)
        ):
            return None  # "first hover over the red cube": a step of its own
        plain = _LISTED_FROM.sub(" ", part)  # "blue from the bottom up": the list's direction
        role = bottom if _BOTTOM.search(plain) else top if _TOP.search(plain) else middle
        role.append(said[0].lower())
    named = bottom + middle + top
    listed = _LISTED_FROM.search(sentence)
    if listed and not bottom and not top and len(middle) in {2, 3}:
        up = listed["up"] or listed["up2"] or listed["up3"]
        bottom, middle = (middle[:1], middle[1:]) if up else (middle[-1:], middle[-2::-1])
    if len(bottom) != 1 or len(top) > 1 or len(set(named)) != len(named) or len(named) < 2:
        return None
    if len(named) == 2 and _ALL_THREE.search(sentence) and len(cube_colours) == 3:
        rest = sorted(cube_colours - set(named))  # "pile them all up, red on the bottom"
        middle, top = (rest, top) if not middle else (middle, rest)
    order = bottom + middle + top
    if len(order) > 3:
        return None
    steps = [
        f"put the {up} cube on the {low} cube" for low, up in zip(order, order[1:], strict=False)
    ]
    return ", then ".join(steps)


def _towers_said(text: str, cube_colours: frozenset[str]) -> str:
    """Each sentence of ``text`` that says a tower bottom to top (:func:`_tower_up`) said as
    its stacks, and a sentence before it that only names the tower ("Tower time!") left
    out."""
    out: list[str] = []
    sentences = _SENTENCE.split(text)
    for i, sentence in enumerate(sentences):
        tower = _tower_up(sentence, cube_colours)
        if tower is None:
            out.append(sentence)
            continue
        if out and _TOWER_CUE.search(out[-1]) and not _first_verb(out[-1]):
            out.pop()
        out.append(tower + ("." if i < len(sentences) - 1 else ""))
    return " ".join(out)
