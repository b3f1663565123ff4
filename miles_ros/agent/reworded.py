"""Goals that wrap a plain request in a frame of their own, said as the plain clauses the rest
of the reading is written for (:func:`miles_ros.agent.clauses.plain_clauses` runs
:func:`reworded` on the whole goal, after :func:`~miles_ros.agent.restated.restated`):

- a prohibition said as a wish, "I don't want you touching / handling / moving X": "don't
  touch / handle / move X" (:func:`wish_forbids`);
- a yes/no question about a pad, then a step onto it ("Is the grey pad free? Then put X
  there.", "Is there room on P? ..."): the step onto the pad (:func:`asked_free`);
- a step put off to the end once said ("B. Actually, do that last - first A.", "B, but save
  that for last and A first", "B last; start by doing A"): "A, then B" (:func:`put_last`);
- two clauses, then their order by the cubes' colours ("B and A - wait, do red first",
  "B and A; deal with the red one before the blue one", "the red block comes before the blue
  block"): the clause on the cube said first, first (:func:`colour_order`);
- a second clause that drops its verb and says its cube as "the X one" ("put X on P and then
  the blue one on Q"): the first clause's verb said with it (:func:`verb_shared`);
- a hover said as hanging ("move your hand so it's hanging above P") or "right over / above
  X" ("right" an intensifier, not the right side): "hover over" (:func:`hung_over`);
- a hedged request ("I was wondering whether you might A - is that alright?", "perhaps you
  could A? Would that be okay?"): A (:func:`unhedged`);
- "whichever pad / mat is the yellow one": "the yellow pad" (:func:`pad_which`);
- "... and don't move anything else", "nothing else should move", "leave everything else
  alone": "don't touch the other cubes", which names what the clause before leaves
  (:func:`nothing_else`);
- a cube described in a clause of its own that says where it is ("The blue cube's out of
  the way over there - put it on P.", "... in the wrong spot; ..."), then "it": the
  description left out, "it" said as the cube (:func:`described_first`; "there" in it is no
  place to move to);
- "once you're there / when you get there / once you're above it" between a hover and a
  step: "then", and "that cube" / "it" after it the cube hovered over (:func:`once_there`);
- the robot addressed ("..., robot.") and a tag "would / will / can you" at the end left
  out with their mark; "ahead of V-ing" as "before V-ing"; ", and after that V" as ", then
  V" (:func:`reworded`).

Grammar, not goals: each pattern is a frame (a wish, a question, an order word, a tag
question, a relative) around a clause or a noun phrase slot.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _upper_first, then_said, verb_of
from miles_ros.agent.scene_colours import COLOUR, CUBE_COLOUR, SIDE

_CUBE_NP = rf"(?:the|that|this)\s+{COLOUR}\s+(?:cube|block|box|brick|one)"
_PAD_NP = rf"the\s+(?:{SIDE}|{COLOUR})\s+(?:pad|mat|square)"
_MARK = (
    r"(?:actually|wait|oh|hmm|hang on|hold on|no|sorry|on second thought|come to think of it|"
    r"wait a sec(?:ond)?|oh wait)"
)
_MARKS = rf"(?:{_MARK}(?:\s*[,:]\s*|\s+|\s[-\u2013\u2014]+\s*))*"
_SEP = r"(?:\s*[,;:]\s*|\s+[-\u2013\u2014]+\s*|[.!]\s+)"


# -- a prohibition said as a wish -----------------------------------------------------------
_WISH = re.compile(
    r"\b(?:i|we)\s+(?:don'?t|do\s+not)\s+want\s+you\s+(?:to\s+)?(?P<verb>[a-z]+)"
    r"(?P<any>\s+(?:anywhere\s+)?near)?\s+(?P<np>(?:the|that|this)\b)",
    re.I,
)


def wish_forbids(text: str) -> str:
    """ "I don't want you touching the blue cube" -> "don't touch the blue cube"; "going
    (anywhere) near X" -> "don't touch X"; anything else unchanged."""

    def said(m: re.Match) -> str:
        word = m["verb"].lower()
        if word in {"go", "going", "come", "coming"}:
            if m["any"] is None:
                return m[0]
            verb = "touch"
        else:  # a verb the reading does not know ("bumping") forbids touching
            verb = verb_of(word) or "touch"
        return f"don't {verb} {m['np']}"

    forbidden = _WISH.sub(said, text)
    if forbidden == text:
        return text
    return re.sub(
        r"(\bdon't \w+ (?:the|that|this|any)\b[^.;,!?]*?)\s+at\s+all\b", r"\1", forbidden
    )


# -- a yes/no question about a pad, then a step onto it -------------------------------------
_ASKED_FREE = re.compile(
    rf"^(?:is\s+(?P<np>{_PAD_NP})\s+(?:free|empty|clear|open|available|unoccupied)"
    rf"(?:\s+(?:right\s+now|now|at\s+the\s+moment))?|is\s+there\s+(?:any\s+)?(?:room|space)\s+"
    rf"on\s+(?P<np2>{_PAD_NP}))\s*\?\s*(?:(?:if\s+(?:so|it\s+is|yes)|then|good|great|ok(?:ay)?|"
    r"yes|in\s+that\s+case)\s*[,:;.!-]*\s*)*(?P<rest>.+)$",
    re.I,
)


def asked_free(text: str) -> str:
    """ "Is the grey pad free? Then put the green cube there." -> "put the green cube on the
    grey pad." ("there", "on it", "onto it", "over there" after the question are the pad);
    anything else unchanged."""
    m = _ASKED_FREE.match(text.strip())
    if m is None:
        return text
    np = m["np"] or m["np2"]
    rest, n = re.subn(
        r"\b(?:(?:on|onto|on\s+to|on\s+top\s+of)\s+(?:it|that\s+one)|(?:over\s+)?there)\b",
        f"on {np}",
        m["rest"],
        count=1,
        flags=re.I,
    )
    return _upper_first(rest) if n else text


# -- a step put off to the end --------------------------------------------------------------
_LATER = (
    r"(?:do\s+(?:that|this|it)(?:\s+one)?\s+(?:last|at\s+the\s+(?:very\s+)?end|after)|"
    r"(?:leave|save|keep)\s+(?:that|this|it)(?:\s+one)?\s+(?:till|until|for)\s+(?:the\s+)?"
    r"(?:very\s+)?(?:end|last)|(?:that|this)(?:\s+one)?\s+(?:goes|comes)\s+last)"
)
_FIRST = (
    r"(?:first(?:\s+of\s+all)?|to\s+(?:start|begin)(?:\s+with)?|before\s+anything\s+else|"
    r"before\s+that|(?:start|begin)(?:\s+off)?\s+(?:with|by))"
)
_WORDS = r"(?:[^.;!?]|\.(?=\d))+?"  # a clause: no sentence mark but a decimal point
_PUT_LAST = re.compile(
    rf"^(?P<b>{_WORDS})[.!]?{_SEP}{_MARKS}(?:but\s+)?{_LATER}\s*(?:[,;:]\s*|\s+[-\u2013\u2014]+\s*|\s+and\s+)"
    rf"(?:{_FIRST}\s*,?\s+(?P<a>{_WORDS})|(?P<a2>{_WORDS})\s+first)\s*(?P<end>[.!]?)$",
    re.I,
)
_SAID_LAST = re.compile(
    rf"^(?P<b>{_WORDS})\s+(?:last|at\s+the\s+(?:very\s+)?end)\s*(?:[;,:]\s*|[.!]\s+|"
    rf"\s+[-\u2013\u2014]+\s*){_FIRST}\s*,?\s+(?P<a>{_WORDS})\s*(?P<end>[.!]?)$",
    re.I,
)


def _clause(text: str) -> str | None:
    """``text`` as an imperative clause ("pushing X" -> "push X"), None when its first
    word is no verb the reading knows."""
    words = text.strip().split(maxsplit=1)
    verb = words and verb_of(words[0])
    if not verb:
        return None
    return " ".join([verb, *words[1:]])


def put_last(text: str) -> str:
    """ "B. Actually, do that last - first A." / "B, but save that for last and A first" /
    "B last; start by pushing X" -> "A, then B."; anything else unchanged."""
    m = _PUT_LAST.match(text.strip()) or _SAID_LAST.match(text.strip())
    if m is None:
        return text
    b = re.sub(r"(?:,?\s+but)$", "", m["b"].strip(), flags=re.I)
    a = _clause(m["a"] if m["a"] else m.groupdict().get("a2") or "")
    if a is None or _clause(b) is None:
        return text
    return then_said(a, b, m["end"] or ".")


# -- two clauses, then their order by the cubes' colours ------------------------------------
_TWO = r"^(?P<a>[^,;.!?]+?)(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:then\s+|after\s+that\s+|next\s+)?"
_B = r"(?P<b>[^,;.!?]+?)"
_THE_X = rf"(?:the\s+)?(?P<x>{CUBE_COLOUR})(?:\s+(?:one|cube|block))?"
_COLOUR_FIRST = re.compile(
    rf"{_TWO}{_B}{_SEP}{_MARKS}(?:(?:do|start\s+with|begin\s+with|handle|deal\s+with|go\s+for|"
    rf"take\s+care\s+of)\s+)?{_THE_X}\s+(?:goes\s+|comes\s+)?first\s*(?P<end>[.!]?)$",
    re.I,
)


def _colour_said(colour: str, clause: str) -> bool:
    return bool(re.search(rf"\b{colour}\b", clause, re.I))


def colour_order(text: str) -> str:
    """ "B and then A - wait, do red first" / "B and A; deal with the red one before the
    blue one" -> "A, then B" where A alone names red (and B the other colour); a clause said
    without its verb takes the first clause's; anything else unchanged."""
    from miles_ros.agent.restated import _with_verb_of

    stripped = text.strip()
    m = _COLOUR_FIRST.match(stripped)
    before = None
    if m is None:
        m = _colour_before(stripped)
        before = m and m[1]
        m = m and m[0]
    if m is None:
        return text
    a, b, x = m["a"].strip(), m["b"].strip(), m["x"].lower()
    if [_colour_said(x, a), _colour_said(x, b)] != [False, True]:
        return text
    if before and not (_colour_said(before, a) and not _colour_said(before, b)):
        return text
    b = _subject_shared(a, b) if re.match(r"(?:the|that|this)\b", a, re.I) else _with_verb_of(a, b)
    if b is None:
        return text
    return then_said(b, a, m["end"] or ".")


_SUBJECT = re.compile(
    r"^(?P<np>(?:the|that|this)\s+\w+\s+(?:cube|block|one|brick|box))\s+(?P<pred>.+?)\s+"
    r"(?P<prep>on top of|onto|on|over to|to)\s+(?:the|that|this)\b",
    re.I,
)
_SUBJECT_ELIDED = re.compile(
    r"^(?P<np>(?:the|that|this)\s+\w+\s+(?:cube|block|one|brick|box))\s+"
    r"(?P<prep>on top of|onto|on|over to|to)\s+(?P<rest>(?:the|that|this)\b.*)$",
    re.I,
)


def _subject_shared(a: str, b: str) -> str | None:
    """Clause ``b`` said without its predicate after clause ``a`` said with its cube as the
    subject ("the blue cube needs to end up on the left pad", "the red one on the right
    pad" -> "the red one needs to end up on the right pad"); None when they are not so."""
    m, e = _SUBJECT.match(a), _SUBJECT_ELIDED.match(b)
    if m is None or e is None:
        return None
    return f"{e['np']} {m['pred']} {e['prep']} {e['rest']}"


_BEFORE = re.compile(
    rf"{_TWO}{_B}{_SEP}{_MARKS}(?:(?:do|handle|deal\s+with|take\s+care\s+of|move)\s+"
    rf"(?:the\s+)?(?P<x>{CUBE_COLOUR})(?:\s+(?:one|cube|block|brick|box))?|(?:the\s+)?"
    rf"(?P<x2>{CUBE_COLOUR})(?:\s+(?:one|cube|block|brick|box))?\s+(?:goes|comes|should\s+go|"
    r"should\s+come))\s+(?:before|ahead\s+of)\s+(?:the\s+)?"
    rf"(?P<y>{CUBE_COLOUR})(?:\s+(?:one|cube|block|brick|box))?\s*(?P<end>[.!]?)$",
    re.I,
)


def _colour_before(text: str) -> tuple[dict, str] | None:
    """(groups with "x" the colour said first, the colour said after "before")."""
    m = _BEFORE.match(text)
    if m is None:
        return None
    groups = {**m.groupdict(), "x": m["x"] or m["x2"]}
    return groups, m["y"].lower()


# -- a second clause that drops its verb ----------------------------------------------------
_SHARED = re.compile(
    r"(?P<a>\b(?:put|place|set|move|stack|push|slide|shove|nudge|bring|lift|take|lower|drop|"
    r"carry)\s+"
    r"[^,;.!?]+?\s+(?:on|onto|to|on\s+top\s+of|over\s+to)\s+the\s+[a-z]+\s+[a-z]+)"
    r"(?P<join>\s*,?\s+(?:and\s+)?(?:then|next|after\s+that|afterwards)\s*,?\s+)"
    r"(?P<b>the\s+[a-z]+\s+(?:one|cube|block|brick|box)\s+(?:on|onto|to|on\s+top\s+of|over\s+to)\s+)",
    re.I,
)


def verb_shared(text: str) -> str:
    """ "put X on P and then the blue one on Q" -> "put X on P and then put the blue one on
    Q" (the first clause's verb, up to its object, said with the second); anything else
    unchanged."""

    def said(m: re.Match) -> str:
        verb = re.match(r"\w+", m["a"])[0]
        return f"{m['a']}{m['join']}{verb.lower()} {m['b']}"

    return _SHARED.sub(said, text)


# -- a hover said as hanging ----------------------------------------------------------------
_HUNG = re.compile(
    r"^(?:(?:please|could you|can you|would you|just|now)[, ]+)*(?:(?:move|get|position|put|"
    r"bring|have|keep)\s+(?:your|the)\s+(?:hand|gripper|arm|end\s+effector)\s+(?:so\s+(?:that\s+)?"
    r"(?:it(?:'s|\s+is)?\s+|it\s+)|)|(?:move|go|get|hover|come)\s+)(?:just\s+|right\s+|directly\s+)?"
    r"(?:hanging|dangling|hangs|dangles|hovering|hovers|over|above)\s+(?:just\s+|right\s+|"
    r"directly\s+)?(?:over|above)?\s*(?P<np>(?:the|that|this)\s+[^,;.!?]+?)"
    r"(?P<tail>(?:\s*,?\s+(?:there|please|thanks|ta|cheers|for\s+a\s+(?:moment|bit|sec)))*)"
    r"\s*(?P<end>[.!?]?)$",
    re.I,
)


def hung_over(text: str) -> str:
    """ "Move your hand so it's hanging above the right pad" / "Get your gripper so it's
    dangling over X" / "Hover right over X there, ta." -> "hover over X."; anything else
    unchanged."""
    m = _HUNG.match(text.strip())
    if m is None:
        return text
    said = text.strip()[: m.start("np")]  # the frame before the thing: hanging, "right"
    if not re.search(r"\b(?:hang\w*|dangl\w+|right|just|directly)\b", said, re.I):
        return text
    return f"hover over {m['np']}{m['end']}"


# -- a hedged request -----------------------------------------------------------------------
_TAG = re.compile(
    r"(?:\s*[-\u2013\u2014,;]+\s*|\s*\?\s*)(?:would|will|is|does|would\s+it|is\s+it)\s+(?:that|this|"
    r"it)?\s*(?:be\s+|sound\s+)?(?:ok(?:ay)?|alright|all\s+right|fine|possible|doable|good)"
    r"(?:\s+with\s+you)?\s*\?\s*$",
    re.I,
)
_HEDGE = re.compile(
    r"^(?:(?:i\s+was\s+(?:wondering|thinking|hoping)|not\s+sure\s+if\s+(?:this|that|it)\s+is\s+"
    r"(?:doable|possible|okay|ok)|i\s+don'?t\s+know\s+if\s+(?:this|that|it)\s+works)[^?]*?"
    r"(?:,\s*|\s+)(?:but\s+|so\s+)?(?:whether\s+|if\s+)?(?:maybe\s+|perhaps\s+)?you\s+(?:could|"
    r"might|would)\s+|(?P<reason>[^?]*?),\s*so\s+(?:maybe\s+|perhaps\s+)you\s+(?:could|might)\s+)",
    re.I,
)


def unhedged(text: str) -> str:
    """ "I was wondering, if it's no trouble, whether you might A - is that alright?" /
    "Not sure if this is doable, but perhaps you could A? Would that be fine?" -> "A." ("it"
    in A after a cube named in the hedge: that cube); anything else unchanged."""
    tag = _TAG.search(text)
    if tag is None:
        return text
    m = _HEDGE.match(text[: tag.start()].strip())
    if m is None:
        return text
    ask = text[: tag.start()].strip()[m.end() :].strip(" ?")
    if _clause(ask) is None:
        return text
    named = re.search(_CUBE_NP, text[: m.end()], re.I)
    if named and re.search(r"\bit\b", ask):
        ask = re.sub(r"\bit\b", named[0].lower(), ask, count=1)
    return f"{_upper_first(ask)}."


# -- a pad by its colour in a relative ------------------------------------------------------
_PAD_WHICH = re.compile(
    rf"\bwhichever\s+(?:of\s+the\s+(?:pads|mats)|pad|mat)\s+is\s+(?:the\s+)?(?P<c>{COLOUR})"
    r"(?:\s+one)?\b|\bthe\s+(?:pad|mat)\s+[-\u2013\u2014]+\s+whichever(?:\s+one)?\s+is\s+"
    rf"(?:the\s+)?(?P<c2>{COLOUR})(?:\s+one)?\s*[-\u2013\u2014]+",
    re.I,
)


def pad_which(text: str) -> str:
    """ "whichever pad is the yellow one", "the pad - whichever one is grey -" -> "the
    yellow pad"; anything else unchanged."""
    return _PAD_WHICH.sub(lambda m: f"the {(m['c'] or m['c2']).lower()} pad", text)


# -- nothing else moves ---------------------------------------------------------------------
_ELSE = re.compile(
    r"(?:(?:\s*,\s*|\s+)(?:and|but)\s+|\s*[;,]\s*|\s+[-\u2013\u2014]+\s+(?:(?:and|but)\s+)?)"
    r"(?:(?:don'?t|do\s+not)\s+(?:move|touch|shift|disturb)\s+(?:anything|any\s+of\s+the\s+other"
    r"\s+(?:things|stuff|objects))(?:\s+else)?|nothing\s+else\s+(?:should|may|can|is\s+to)\s+"
    r"(?:move|be\s+moved)|leave\s+everything\s+else\s+(?:alone|be|as\s+it\s+is|where\s+it\s+is))"
    r"(?P<end>\s*[.!]?)$",
    re.I,
)


def nothing_else(text: str) -> str:
    """ "Put the red cube on the right pad and don't move anything else." -> "Put the red
    cube on the right pad and don't touch the other cubes." (the cubes the goal does not name);
    anything else unchanged."""
    m = _ELSE.search(text)
    if m is None or not m.start():
        return text
    return f"{text[: m.start()].rstrip(' .!')} and don't touch the other cubes."


# -- a cube described, then "it" ------------------------------------------------------------
_DESCRIBED = re.compile(
    rf"^(?P<np>{_CUBE_NP})(?:'s|\u2019s|\s+is)\s+(?!(?:going|to|supposed|meant|needs?|should)\b)[^.;:!?\-\u2013\u2014]+?"
    r"(?:\s*[;:]\s*|\s+[-\u2013\u2014]+\s*|[.!]\s+)(?P<rest>[a-z]+\s+it\b.*)$",
    re.I,
)


def described_first(text: str) -> str:
    """ "The blue cube's out of the way over there - put it on the green cube." -> "put the
    blue cube on the green cube."; anything else unchanged."""
    m = _DESCRIBED.match(text.strip())
    if m is None or _clause(m["rest"]) is None:
        return text
    if not re.search(r"\b(?:there|here|spot|place|position)\b", text[: m.start("rest")], re.I):
        return text  # "X is too close to the edge; slide it ...": read as said
    np = "the " + m["np"].split(maxsplit=1)[1]
    return _upper_first(re.sub(r"\bit\b", np.lower(), m["rest"], count=1))


# -- once there -----------------------------------------------------------------------------
_ONCE_THERE = re.compile(
    r"(?:\s*[;,]\s*(?:and\s+)?|\s+and\s+)(?:once|when|as\s+soon\s+as)\s+you(?:'re|\s+are|\s+get)"
    r"\s+(?:there|above\s+it|over\s+it|on\s+top\s+of\s+it)\s*,?\s+",
    re.I,
)


_THING = r"(?:the|that|this)\s+\w+\s+(?:cube|block|brick|box|pad|mat|square)"
_THAT_ONE = re.compile(r"\b(?:that|this)\s+(?:cube|block|brick|box|one)\b|\bit\b", re.I)


def once_there(text: str) -> str:
    """ "Hover above X; once you're there, push that cube onto P" -> "Hover above X, then push
    X onto P" ("that cube" / "it" after it: the thing hovered over, said last before; a
    "first" before the join left out); anything else unchanged."""
    m = _ONCE_THERE.search(text)
    if m is None:
        return text
    head, tail = text[: m.start()], text[m.end() :]
    head = re.sub(r"\s+first\s*$", "", head, flags=re.I)
    things = re.findall(_THING, head, re.I)
    if things and not re.search(r"(?:pad|mat|square)$", things[-1], re.I):  # a cube hovered over
        tail = _THAT_ONE.sub(things[-1].lower(), tail, count=1)
    return f"{head}, then {tail}"


_VOCATIVE = re.compile(r"^(?:(?:hey|ok(?:ay)?|right)\s*,?\s+)?robot\s*,\s*", re.I)
_ADDRESSED = re.compile(
    r"\s*,\s*(?:(?:my\s+)?robot|(?:will|would|can|could)\s+you)\s*[.!?]?\s*$", re.I
)  # "..., robot." / "..., would you?": the request, said as one
_AHEAD_OF = re.compile(r"\bahead\s+of\s+(?=[a-z]+ing\b)", re.I)
_AND_AFTER_THAT = re.compile(
    r"\s*,?\s+and\s+after\s+that\s*,?\s+(?=(?:put|place|set|move|push|slide|stack|hover|go)\b)",
    re.I,
)


def reworded(text: str) -> str:
    """``text`` with each frame of the module said plainly; the robot addressed by name and
    a tag "will you" left out ("Stay put for now, robot."), "ahead of going home" as "before
    going home", ", and after that <verb>" as ", then <verb>"."""
    called = _ADDRESSED.sub(".", _VOCATIVE.sub("", text.strip()))
    if called != text.strip():
        text = _upper_first(called)
    text = _AHEAD_OF.sub("before ", text)
    text = unhedged(hung_over(pad_which(wish_forbids(text))))
    text = described_first(asked_free(text))
    text = colour_order(put_last(verb_shared(once_there(text))))
    return nothing_else(_AND_AFTER_THAT.sub(", then ", text))
