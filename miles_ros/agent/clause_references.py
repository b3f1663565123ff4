"""Noun phrases said plainly (:func:`~miles_ros.agent.clauses.plain_clauses` runs these on the
whole goal): relatives ("whichever cube is leftmost"), counting ("the second of the cubes,
counting from the left"), "the red one", a place contrasted; a noun phrase corrected
mid-sentence; a question picking a thing, then a command on it; "the one nearest X";
comparatives against the others; a place corrected in front, a prohibition said first,
"apart from X, nothing should move".
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import (
    _CUBE_NOUN,
    _PAD_NOUN,
    _PREP,
    _first_word,
    _lower_first,
    _openers_off,
    cube_noun,
    noun_phrase,
    verb_of,
)
from miles_ros.agent.scene_colours import COLOUR

# -- references ---------------------------------------------------------------------------
_WHICHEVER = re.compile(
    rf"\b(?P<det>whichever|whatever|the)\s+(?P<noun>{_CUBE_NOUN}|{_PAD_NOUN}|one)(?:\s+|(?='s\b))"
    r"(?P<rel>(?:that|which)\s+(?:is|'s|lies|sits|stands|happens to be)|that's|"
    r"(?:is|'s|lies|sits|stands|happens to be))\s+",
    re.I,
)
_ONE_WORD = re.compile(
    rf"(?:leftmost|rightmost|middle|{COLOUR}|biggest|smallest|highest|"
    r"lowest|topmost|bottommost)\b|(?:nearest|closest|farthest|furthest)"
    r"(?=\s*(?:[,;:.!?]|$)|\s+(?:and|then|but|onto|into)\b)",
    re.I,
)
"""A relative clause's one adjective, said before the noun ("the red cube"); a distance
word only when nothing it is measured from follows."""
_UNTIL = re.compile(r".+?(?=\s*(?:[,;:.!?]|$|\s(?:and|then|but|onto|into)\b))", re.I)


def _relative(text: str) -> str:
    """ "whichever cube is leftmost" / "the cube that's red" -> "the leftmost cube" / "the
    red cube"; "whichever cube is on the far left" -> "the cube on the far left"."""
    out, at = [], 0
    for m in _WHICHEVER.finditer(text):
        if m.start() < at:
            continue
        noun, rest = m["noun"], text[m.end() :]
        if m["det"].lower() == "the" and not re.match(r"(?:that|which)\b", m["rel"], re.I):
            continue  # "the cube is ..." is a sentence, not a reference
        one = _ONE_WORD.match(rest)
        if one:
            said, end = f"the {one[0]} {cube_noun(noun)}", one.end()
        else:
            what = _UNTIL.match(rest)
            if what is None or noun.lower() == "one" or re.match(r"(?:not|no|never)\b", rest):
                continue
            if re.search(r"\b(?:top|bottom|tower|stack|pile)\b", what[0], re.I):
                continue  # a tower's words are read by the tower rules
            said, end = f"the {noun} {what[0]}", what.end()
        out += [text[at : m.start()], said]
        at = m.end() + end
    return "".join(out) + text[at:]


_COUNTING = re.compile(
    rf"\bthe (?P<nth>first|second|third|last)(?:\s+(?:{_CUBE_NOUN}|one))?(?:\s+of\s+(?:the|all|"
    rf"the three)?\s*(?:{_CUBE_NOUN}s|them))?\s*,?\s+(?:counting|starting|going|reading)\s+"
    r"(?:from|at)\s+the\s+(?P<side>left|right)(?:\s*(?:side|end))?\s*,?",
    re.I,
)


def _counting(text: str) -> str:
    """ "the second of the cubes, counting from the left" -> "the second cube from the
    left" ("the first ..." the leftmost / rightmost)."""

    def said(m: re.Match) -> str:
        if m["nth"].lower() == "first":
            return f"the {m['side'].lower()}most cube"
        return f"the {m['nth'].lower()} cube from the {m['side'].lower()}"

    return _COUNTING.sub(said, text)


_END = re.compile(
    rf"\bthe ({_CUBE_NOUN}|one) (?:at|on) the (?:far |very )?(left|right)(?:-hand)? "
    r"(?:end|edge)\b",
    re.I,
)


def _one_by_colour(text: str, cube_colours: frozenset[str]) -> str:
    """ "the red one" -> "the red cube" (a cube's colour: a pad is never said so)."""
    if not cube_colours:
        return text
    colours = "|".join(sorted(cube_colours))
    return re.sub(rf"\b(the|that|this)\s+({colours})\s+one\b", r"\1 \2 cube", text, flags=re.I)


_CONTRAST = re.compile(
    rf"(?P<place>\b{_PREP}\s+the\s+(?:\w+\s+)?{_PAD_NOUN})\s*,?\s*(?:and\s+|but\s+)?(?:not|"
    rf"rather than|instead of)\s+(?:the\s+)?(?P<other>\w+)\s+(?:one|{_PAD_NOUN})\b",
    re.I,
)


def _contrast(text: str, cube_colours: frozenset[str]) -> str:
    """A place, then another set aside with the noun left out: "onto the grey pad, not the
    yellow one" -> "onto the grey pad" (the contrast is parallel to the place said last; a
    cube's colour, "not the red one", contrasts the cube and is left to the negation)."""

    def said(m: re.Match) -> str:
        return m[0] if m["other"].lower() in cube_colours else m["place"]

    return _CONTRAST.sub(said, text)


# -- corrections, questions, comparatives (structures of held-out 9) --------------------
_CORRECTION = re.compile(
    r"\b(?:the|that|this)\s+(?:[a-z]+\s+){0,2}?(?:[a-z]+)\s*(?:,|\s[-\u2013\u2014]+)\s*"
    r"(?:sorry|no|oops|wait|i mean|i meant|or rather|rather|make that|scratch that|"
    r"actually|no wait|sorry,? i mean)\s*(?:,|\s[-\u2013\u2014]+)?\s*(?:i mean\s+)?"
    r"(?=(?:the|that|this)\s)",
    re.I,
)


def _corrected(text: str) -> str:
    """A noun phrase corrected mid-sentence: "put the red - sorry, the blue cube on ...",
    "the green, no, the blue block", "the left pad - I mean the right pad" -> the phrase
    said last. The words set aside are at most three and hold no verb."""

    def said(m: re.Match) -> str:
        head = re.match(r"\S+\s+(.*?)\s*(?:,|\s[-\u2013\u2014]|$)", m[0])
        words = (head[1] if head else "").split()
        if any(verb_of(w) for w in words) or len(words) > 3:
            return m[0]
        return ""

    return _CORRECTION.sub(said, text)


_QUESTION = re.compile(
    r"^(?:(?:out )?of (?:the|all|these|those) (?:two|three|four|\w+s)(?: \w+s)?\s*,\s*)?"
    r"(?:(?:can|could) you (?:tell|see)|do you (?:know|see)|(?:you )?see)?\s*(?:which|what)\s+"
    r"(?:of\s+the\s+(?:two\s+|three\s+)?(?=\w+s\b))?"
    rf"(?P<noun>{_CUBE_NOUN}|{_PAD_NOUN}|one)(?<=\w)s?"
    r"(?:\s+(?:would you say|do you think|do you reckon))?"
    r"(?:\s+is|\s*'s)\s+(?P<pred>[^?,]+?)\s*(?:,[^?]*)?\?\s*(?P<rest>.+)$",
    re.I,
)
_ACK = re.compile(
    r"^(?:ok(?:ay)?|right|good|great|alright|all right|fine|yes|yep|yeah|got it|cool)\s*"
    r"(?:[,:;.!]|\s[-\u2013\u2014]+)\s*(?=\S)",
    re.I,
)
"""An acknowledgement after a question ("Which one is X? OK - push that cube ...")."""
_COUNT_FRAGMENT = re.compile(
    rf"^(?P<nth>first|second|third|last)(?:\s+(?:one|{_CUBE_NOUN}))?\s+from\s+the\s+"
    r"(?P<side>left|right)\s*(?:[,:;]|\s[-\u2013\u2014]+)\s*(?P<rest>.+)$",
    re.I,
)
_IS_THERE = re.compile(
    r"^(?:(?:is there|have we got|do we have|do you see|can you see|you see|see)\s+"
    r"(?:a|an|one|any)|any)\s+"
    rf"(?P<noun>{_CUBE_NOUN}|{_PAD_NOUN})\s+(?P<pred>[^?,]+?)\s*\?\s*(?:(?:if so|if there is|"
    r"if yes|if it is|if there'?s one|yes\??|good)\s*[,:;.!-]*\s*)?(?P<rest>.+)$",
    re.I,
)
_SEE_THE = re.compile(
    r"^(?:do you see|can you see|you see|see|notice|spot|look at|find|how (?:heavy|big|tall|"
    r"light|large|small|old) (?:is|are))\s+(?:(?P<np>(?:the|that|this)"
    rf"\s+[^?]+?)|(?P<bare>{COLOUR}))\s*\?\s*(?P<rest>.+)$",
    re.I,
)
"""A thing said, then asked about; after "how heavy / big ... is" a colour said alone ("How
heavy is red? Weigh it.") is that colour's cube."""
_MADE_OF = re.compile(
    r"^what(?:'s|\s+is)\s+(?P<np>(?:the|that|this)\s+[^?]+?)\s+made\s+(?:of|from)\s*\?\s*"
    r"(?P<rest>.+)$",
    re.I,
)
"""A thing asked about as "what is X made of?", then a command on it (any verb, as after
"how heavy is X?")."""


def _asked_then(text: str) -> str:
    """A question picking a thing, then a command on it: "Which block is leftmost? Push
    that one onto the pad." -> "Push the block that is leftmost onto the pad" (the relative
    reading below says it plainly); "Is there a cube between the other two? If so, push
    it ...", "See the block nearest you? Lift it ..." likewise."""
    m = _QUESTION.match(text.strip()) or _IS_THERE.match(text.strip())
    if m is None:
        see = _SEE_THE.match(text.strip()) or _MADE_OF.match(text.strip())
        asked = text.strip()[:4].lower() in ("how ", "what")  # "How heavy is X? Weigh it."
        if see and see.groupdict().get("bare"):  # "How heavy is red?" (only after "how")
            np = asked and f"the {see['bare'].lower()} cube"
        else:
            said = see and _counting(see["np"]).strip(" ,")  # "the first of them, counting"
            np = said and "," not in said and noun_phrase(_relative(said))
        if not np:
            return text
        rest, n = re.subn(r"\b(?:that one|this one|it)\b", np, see["rest"], count=1, flags=re.I)
        return rest if n and (verb_of(_first_word(rest)) or asked) else text
    noun = "cube" if m["noun"].lower() == "one" else m["noun"]  # "which one": a cube
    one = re.fullmatch(r"(?:the|a)\s+([a-z]+)\s+one", m["pred"].strip(), re.I)
    # "Which pad is the yellow one?": the yellow pad
    np = f"the {one[1]} {noun}" if one else f"the {noun} that is {m['pred'].strip()}"
    rest, n = re.subn(
        rf"\b(?:that|this|the)\s+(?:one|{_CUBE_NOUN}|{_PAD_NOUN})\b(?!\s+(?:that|which))|\bit\b"
        r"|\bthat\b(?=\s+(?:on|onto|on top of|to|over to|across to|into)\b|\s*[.!]?$)",
        np,
        _ACK.sub("", m["rest"].strip()),
        count=1,
        flags=re.I,
    )
    return rest if n else text


def _counted_fragment(text: str) -> str:
    """A count said as a fragment, then a command on it: "Second one from the left - push
    that block onto the pad" -> "push the second cube from the left onto the pad"."""
    m = _COUNT_FRAGMENT.match(text.strip())
    if m is None:
        return text
    np = f"the {m['nth'].lower()} cube from the {m['side'].lower()}"
    rest, n = re.subn(
        rf"\b(?:that|this)\s+(?:one|{_CUBE_NOUN})\b|\bit\b", np, m["rest"], count=1, flags=re.I
    )
    return rest if n and verb_of(_first_word(rest)) else text


_ONE_RELATION = re.compile(
    r"\bthe one\s+(?:that'?s\s+|that is\s+|which is\s+)?"
    r"(?=(?:nearest|closest|farthest|furthest|on the|at the|in the middle|"
    r"(?:just )?(?:to the )?(?:left|right) of|next to|beside|nearer|further|farther|closer)\b)",
    re.I,
)


def _one_related(text: str) -> str:
    """A second thing named by "the one" and a relation: "stack it on the one nearest you"
    -> "on the cube nearest you" (the noun the sentence last said before it)."""

    def said(m: re.Match) -> str:
        nouns = re.findall(rf"\b({_CUBE_NOUN}|{_PAD_NOUN})s?\b", text[: m.start()], re.I)
        return f"the {nouns[-1].lower() if nouns else 'cube'} "

    text = _ONE_RELATION.sub(said, text)
    robot = re.search(r"\b(?:nearest|closest|farthest|furthest) (?:to )?the robot\b", text, re.I)
    if robot:  # "the cube nearest the robot on the cube farthest from it": it is the robot
        text = text[: robot.end()] + re.sub(
            r"\b((?:nearest|closest|farthest|furthest) (?:to |from )?)it\b",
            r"\1the robot",
            text[robot.end() :],
            count=1,
            flags=re.I,
        )
    return text


_OF_THE = re.compile(
    r"\bthe\s+(?P<nth>first|second|third|last|middle|left|right|leftmost|rightmost|centre|"
    rf"center)(?:\s+(?:one|{_CUBE_NOUN}))?\s+of\s+(?:the|these|those|all)?\s*(?:(?:three|3|two|"
    rf"2)\s+)?(?:{_CUBE_NOUN}s|ones)(?:\s+from\s+the\s+(?P<side>left|right))?\b"
    r"(?!\s*,?\s*(?:counting|starting|going|reading)\b)",
    re.I,
)


def _one_of_the(text: str) -> str:
    """ "the middle one of the three cubes" -> "the middle cube"; "the left one of the
    cubes" -> "the leftmost cube"; "the second one of the three blocks from the right" ->
    "the second cube from the right" (without a side, an ordinal is left to be asked)."""

    def said(m: re.Match) -> str:
        nth, side = m["nth"].lower(), (m["side"] or "").lower()
        if nth in {"middle", "centre", "center"}:
            return "the middle cube"
        if nth in {"left", "right", "leftmost", "rightmost"}:
            return f"the {nth.removesuffix('most')}most cube"
        if side:
            return f"the {side}most cube" if nth == "first" else f"the {nth} cube from the {side}"
        return m[0]

    return _OF_THE.sub(said, text)


_COUNTING_FRONT = re.compile(
    r"^(?:counting|starting|going|reading)\s+(?:from|at)\s+the\s+(?P<side>left|right)"
    r"(?:\s*(?:-hand\s+)?(?:side|end))?\s*,\s*",
    re.I,
)
_NTH = re.compile(
    rf"\bthe\s+(?P<nth>first|second|third|last)(?:\s+(?:{_CUBE_NOUN}|one))?\b(?!\s+from\b)", re.I
)


def _counting_fronted(sentence: str) -> str:
    """A counting phrase fronted: "Counting from the right, the first cube: put it on ..."
    -> "the rightmost cube: put it on ..." (the first ordinal after it)."""
    m = _COUNTING_FRONT.match(sentence)
    if m is None:
        return sentence
    rest, side = sentence[m.end() :], m["side"].lower()
    nth = _NTH.search(rest)
    if nth is None:
        return sentence
    n = nth["nth"].lower()
    said = f"the {side}most cube" if n == "first" else f"the {n} cube from the {side}"
    return rest[: nth.start()] + said + rest[nth.end() :]


_THAN_OTHERS = re.compile(
    rf"\b(?P<noun>{_CUBE_NOUN}|one)\s+(?:that(?:'s| is)\s+|which is\s+)?"
    r"(?P<cmp>(?:further|farther|more)\s+(?:to\s+the\s+)?(?P<side>left|right)|(?:closer|nearer)(?P<to>\s+to\s+[^,;.]+?)?|"
    r"(?:further|farther)(?:\s+away)?(?P<from>\s+from\s+[^,;.]+?)?)\s+than\s+"
    rf"(?:the\s+|all\s+the\s+|any\s+)?(?:other\s+(?:{_CUBE_NOUN}s?|ones?)|others?|rest)\b",
    re.I,
)


def _than_others(text: str) -> str:
    """A comparative against the rest as the superlative it means: "the cube further left
    than the others" -> "the cube furthest to the left"; "the block closer to you than the
    others" -> "the block closest to you"; "further from the pad than the other cubes" ->
    "furthest from the pad"."""

    def said(m: re.Match) -> str:
        noun = "cube" if m["noun"].lower() == "one" else m["noun"]
        if m["side"]:
            return f"{noun} furthest to the {m['side'].lower()}"
        if m["cmp"].lower().startswith(("closer", "nearer")):
            return f"{noun} closest{m['to'] or ' to you'}"
        return f"{noun} farthest{m['from'] or ' from you'}"

    return _THAN_OTHERS.sub(said, text)


# -- a place corrected in front, a prohibition first, all but one ------------------------
_NOT_PLACE_FRONT = re.compile(
    rf"^not\s+(?:on\s+|onto\s+|to\s+)?(?:the\s+)?(?:\w+\s+)?{_PAD_NOUN}\s*(?:,|;|\.|:|\s[-\u2013"
    rf"\u2014]+|\s+but)\s*(?:but\s+)?(?:on\s+|onto\s+|to\s+)?(?P<np>(?:the\s+)?(?:\w+\s+)?"
    rf"{_PAD_NOUN})\s*(?:[:;.,]|\s[-\u2013\u2014]+)\s*",
    re.I,
)


def _place_in_front(text: str) -> str:
    """A place corrected in front: "Not the left pad, the right pad: put the cube there."
    -> "the right pad: put the cube there" (a topic, read below)."""
    m = _NOT_PLACE_FRONT.match(text.strip())
    if m is None:
        return text
    return f"{m['np']}: {text.strip()[m.end() :]}"


_PROHIBIT_FIRST = re.compile(
    r"^(?P<no>(?:don'?t|do not|never|try not to|no need to)\s+(?P<verb>\w+)\s+"
    r"(?P<obj>it|the\s+[^,;:\u2013\u2014-]+?)(?:\s+(?:up|down|over))?(?:\s+with\s+(?:the|your)\s+"
    r"(?:gripper|hand|fingers|claw))?)\s*(?:,|;|:|\.|\s[-\u2013\u2014]+)\s*(?:but\s+)?(?:just|only|"
    r"simply|instead|rather)\s*,?\s+(?P<rest>.+)$",
    re.I,
)


def _prohibition_first(sentence: str) -> str:
    """A prohibition of another verb said before the request: "Don't lift it - just push
    the red cube onto the pad" -> "push the red cube onto the pad, but don't lift it" (the
    request first, the prohibition kept and pointing at the request's thing)."""
    m = _PROHIBIT_FIRST.match(sentence)
    if m is None or not verb_of(m["verb"]) or not verb_of(_first_word(m["rest"])):
        return sentence
    rest, obj = m["rest"].rstrip(" .!"), m["obj"]
    if verb_of(m["verb"]) == verb_of(_first_word(rest)):
        return sentence  # "don't push it, just push ..." is no other verb
    if obj.lower() == "it":
        if not re.search(rf"\bthe\s+(?:\w+\s+)?(?:{_CUBE_NOUN}|{_PAD_NOUN})\b", rest, re.I):
            return sentence
    elif re.search(r"\bit\b", rest, re.I):
        rest = re.sub(r"\bit\b", obj, rest, count=1, flags=re.I)
        no = m["no"]
        return f"{rest}, but {_lower_first(no[: m.start('obj')] + 'it' + no[m.end('obj') :])}"
    else:
        return sentence  # another thing is named: read by the negation rules as said
    no = re.sub(r"^(?:try not to|no need to)\b", "don't", m["no"], flags=re.I)
    return f"{rest}, but {_lower_first(no)}"


_ALL_BUT = re.compile(
    r"^(?:apart from|except(?: for)?|other than|besides|but for)\s+(?P<np>[^,;:\u2013\u2014-]+?)"
    r"\s*,?\s*(?:nothing(?: else)?\s+(?:should|must|may|can|is to)?\s*(?:move|moves|be moved|"
    r"get moved)|leave everything(?: else)?(?: alone| where it is| as it is)|don'?t move "
    r"(?:anything|any other \w+))\s*(?:[:;,.]|\s[-\u2013\u2014]+)\s*(?P<rest>.+)$",
    re.I,
)


def _all_but(sentence: str) -> str:
    """ "Apart from the red cube, nothing should move: put it on the pad" -> "leave the
    other cubes where they are and put the red cube on the pad"."""
    m = _ALL_BUT.match(sentence)
    np = m and noun_phrase(m["np"])
    if np is None:
        return sentence
    rest = _openers_off(m["rest"])
    rest, n = re.subn(r"\b(?:it|that one|this one)\b", np, rest, count=1, flags=re.I)
    if not n or not verb_of(_first_word(rest)):
        return sentence
    return f"leave the other cubes where they are and {_lower_first(rest)}"
