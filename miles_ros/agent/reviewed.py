"""Held-out 32's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`reviewed` first, before
:func:`~miles_ros.agent.reparsed.reparsed`):

- "everything stays where it is / nothing moves except X, which goes to P": "leave the other
  cubes where they are and put X on P" (X moves; :func:`which_goes`);
- "I don't want X on P; I want it on Q": "put X on Q" (the placing on Q, its manner left to
  the planner as for any goal; :func:`wanted_instead`);
- "lift X, carry it to P and let go of it there": "pick up X and put it on P" (carrying and
  letting go are parts of the lift; :func:`carried_there`);
- a place corrected: "put X beside (Y)... no, on top of it / onto Y": "put X on top of Y"
  (the later words win; :func:`place_redone`);
- "leave X be / alone, and put X on P": "don't touch X, and put X on P" (refused as a
  contradiction; :func:`left_and_moved`);
- a request called off but its first part: "V X ...; then V Y ... no wait, just do the
  first bit": "V X ..." (:func:`first_only`);
- "the X and the Y: put the former / latter on Z": "put X / Y on Z"; "look at / see / here are X
  and Y. Put the first (one) on the second (one)": "put X on Y" (:func:`former_latter`);
- "the cube that sits / lying between the two others": "the cube between the other two" (read
  in the scene); "the cube sitting / that's lying / which stands in the middle / at the front /
  on the left / nearest ...": "the cube in the middle ..." (:func:`between_others`);
- thanks and praise alone ("that'll do for now, thanks a lot", "nice work earlier"): "nothing
  for now" (:func:`thanked`);
- "complete / finish the stack: X goes (up) on top": "put X on top of the stack"
  (:func:`up_top`);
- "put all three / both cubes on P at the same time / at once": "move the cubes all at the
  same time" (refused by :mod:`~miles_ros.agent.repertoire`: the arm moves one cube at a
  time; :func:`at_once`).
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN
from miles_ros.agent.reread import _CUBE_NP, _DASH
from miles_ros.agent.scene_colours import CUBE_COLOUR

_SEP = rf"\s*(?:[;:,]|{_DASH})\s*"
_END = r"\s*[.!]?$"
_PLACE = rf"the\s+[a-z]+\s+(?:{_PAD_NOUN}|{_CUBE_NOUN}|one)"
_STILL = r"(?:put|where\s+(?:it\s+is|they\s+are)|in\s+place|still|as\s+(?:it\s+is|they\s+are))"
_WHICH_GOES = re.compile(
    r"^(?:everything|every\s+(?:cube|block|box)|all(?:\s+the\s+(?:cubes|blocks|boxes))?|"
    r"nothing|no\s+(?:cube|block|box))(?:\s+else)?\s+(?:stays?|remains?|moves?)"
    rf"(?:\s+{_STILL})?\s*,?\s+(?:except(?:\s+for)?|but|apart\s+from|other\s+than|save)\s+"
    rf"(?P<x>{_CUBE_NP})\s*,?\s+which\s+(?:goes|moves|should\s+go|is\s+to\s+go|"
    r"should\s+end\s+up|ends\s+up|needs\s+to\s+go)\s+(?:over\s+)?(?:to|onto|on)\s+"
    rf"(?P<p>{_PLACE}){_END}",
    re.I,
)


def which_goes(text: str) -> str:
    """All but X kept still, X said to go to P in a relative clause: X moves (see the
    module)."""
    m = _WHICH_GOES.match(text.strip())
    if not m:
        return text
    return f"leave the other cubes where they are and put {m['x']} on {m['p']}."


_WANT_ON = r"(?:on|onto|going\s+(?:to|on)|to\s+go\s+(?:to|on))"
_WANTED = re.compile(
    rf"^i\s+(?:don'?t|do\s+not)\s+want\s+(?P<x>{_CUBE_NP})\s+{_WANT_ON}\s+{_PLACE}{_SEP}"
    rf"(?:i\s+want|i'?d\s+like|i\s+would\s+like)\s+it\s+{_WANT_ON}\s+(?P<q>{_PLACE}){_END}",
    re.I,
)


def wanted_instead(text: str) -> str:
    """ "I don't want X on P; I want it on Q": "put X on Q"."""
    m = _WANTED.match(text.strip())
    return f"put {m['x']} on {m['q']}." if m else text


_CARRIED = re.compile(
    r"^(?:lift|raise|pick\s+up)(?:\s+up)?\s+(?P<x>" + _CUBE_NP + r")(?:\s+up)?\s*,?\s+"
    r"(?:and\s+)?(?:carry|bring|take|move)\s+it\s+(?:over\s+|across\s+)?(?:to|onto)\s+"
    rf"(?P<p>{_PLACE})\s*,?\s+(?:and\s+|then\s+|and\s+then\s+)?(?:let\s+go\s+of\s+it|"
    r"let\s+it\s+go|release\s+it|drop\s+it(?:\s+off)?|put\s+it\s+down)\s+there" + _END,
    re.I,
)


def carried_there(text: str) -> str:
    """ "lift X, carry it to P and let go of it there": one lift (see the module)."""
    m = _CARRIED.match(text.strip())
    return f"pick up {m['x']} and put it on {m['p']}." if m else text


_REDONE = re.compile(
    r"^(?P<head>.+?)\s+(?:beside|next\s+to|by|alongside|near)(?:\s+(?P<y>"
    + _CUBE_NP
    + r"))?\s*(?:\.\.\.|\u2026|"
    + _DASH
    + r"|,)\s*(?:no|sorry|i\s+mean|rather)\s*,?\s+(?P<on>on\s+top\s+of|onto|on)\s+"
    rf"(?P<t>it|{_CUBE_NP}){_END}",
    re.I,
)

_TAKE_IT = re.compile(
    rf"\b(?:take|grab|pick\s+up)\s+(?P<x>{_CUBE_NP})\s+and\s+(?P<v>put|place|set|stack)\s+it$",
    re.I,
)
"""A cube taken, then "put it": the cube said (the later "it" points elsewhere)."""


def place_redone(text: str) -> str:
    """A place said, then corrected ("beside... no, on top of it"): the later place, "it" the
    cube named with the first place (else left to the reading of "it")."""
    m = _REDONE.match(text.strip())
    if not m:
        return text
    target = m["y"] if m["t"].lower() == "it" and m["y"] else m["t"]
    head = _TAKE_IT.sub(lambda n: f"{n['v']} {n['x']}", m["head"])
    return f"{head} {m['on']} {target}."


_LEFT_AND_MOVED = re.compile(
    rf"^(?:leave|let)\s+(?P<x>{_CUBE_NP})\s+(?:be|alone|as\s+it\s+is|where\s+it\s+is)"
    r"(?P<sep>\s*,?\s+(?:and(?:\s+then)?|then)\s+|\s*;\s*)(?P<v>[a-z]+)\s+(?P<y>"
    + _CUBE_NP
    + r")\b(?P<rest>.*)$",
    re.I,
)


def left_and_moved(text: str) -> str:
    """ "leave X be, and put X on P": "don't touch X, and put X on P" (a contradiction)."""
    m = _LEFT_AND_MOVED.match(text.strip())
    if not m or m["x"].lower() != m["y"].lower():
        return text
    return f"don't touch {m['x']}, and {m['v']} {m['y']}{m['rest']}"


_FIRST_ONLY = re.compile(
    r"^(?P<first>.+?)(?:\s*[;,]\s*|\s+)(?:and\s+)?then\s+.+?(?:\.\.\.|\u2026|"
    + _DASH
    + r"|,)\s*(?:(?:no|oh)\s*,?\s*)?(?:wait|actually|sorry|no)?\s*,?\s*(?:just|only)\s+"
    r"(?:do\s+)?the\s+first\s+(?:bit|part|step|one|thing)(?:\s+of\s+it)?" + _END,
    re.I,
)


def first_only(text: str) -> str:
    """All but the first request called off ("... no wait, just do the first bit"): the
    first request alone."""
    m = _FIRST_ONLY.match(text.strip())
    return f"{m['first'].rstrip(' ,;')}." if m else text


_PAIR_LEAD = (
    r"(?:(?:look\s+at|see|take|consider|notice|find|here\s+(?:are|is)|there(?:'s|\s+is|\s+are)|"
    r"(?:you|we)\s+(?:see|have)|of)\s+)"
)
"""Words that show the pair before it is ranked ("Look at X and Y. Put the first on the
second.")."""
_RANKED = (
    r"\bthe\s+(?P<w>former|latter|first|second)(?:\s+one)?\b(?!\s*-)(?!\s+(?!(?:on|onto|to|"
    r"into|over|above|beside|next|atop|up|down|and|then|off|in|by|with|at|under|please)\b)[a-z])"
)
"""One of a pair by its rank ("the former", "the second one"), not the first of more words
("the second green cube", "the first from the left")."""
_PAIR_NP = rf"(?:{_CUBE_NP}|{CUBE_COLOUR}(?:\s+{_CUBE_NOUN})?)"
"""One of the pair: a cube said by one word ("the red cube"), or a cube's colour said alone,
its noun with it or not ("Blue and red: ...", "red block and green block: ...")."""
_PAIR = re.compile(
    rf"^{_PAIR_LEAD}?(?P<a>{_PAIR_NP})\s+and\s+(?P<b>{_PAIR_NP})(?:{_SEP}|\s*[.?!]\s+)"
    rf"(?P<rest>.*{_RANKED}.*)$",
    re.I,
)


def _the(np: str) -> str:
    if not re.match(r"the\b", np, re.I):  # a colour said alone, its noun or not
        words = np.lower().split()
        return f"the {words[0]} {words[1] if len(words) > 1 else 'cube'}"
    return re.sub(r"^the\b", "the", np, flags=re.I)


def former_latter(text: str) -> str:
    """ "the X and the Y: put the former on Z", "look at X and Y. Put the first on the
    second.": "put X on Z", "put X on Y" (each ranked one named; a cube of the pair may be
    said by its colour alone, "Blue and red: put the former on the latter")."""
    m = _PAIR.match(text.strip())
    if not m:
        return text
    return re.sub(
        _RANKED,
        lambda n: _the(m["a"] if n["w"].lower() in ("former", "first") else m["b"]),
        m["rest"],
        flags=re.I,
    )


_BETWEEN = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE_NOUN})\s+(?:(?:that(?:'s|\s+is|\s+sits|\s+lies)|which\s+(?:is|sits)|"
    r"lying|sitting)\s+)(?:in\s+)?between\s+the\s+(?:other\s+two|two\s+others|others)\b",
    re.I,
)
_POSED = (
    r"(?:sitting|lying|resting|standing|located|placed|positioned|set|found)(?:\s+(?:right|just))?"
)
"""A cube's posture before where it is ("sitting", "lying right")."""
_WHERE_IT_IS = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE_NOUN}|one)\s+(?:(?:that(?:'s|\s+is)|which(?:'s|\s+is))\s+{_POSED}|"
    rf"(?:that|which)\s+(?:sits|lies|rests|stands)(?:\s+(?:right|just))?|{_POSED})\s+"
    r"(?=(?:in\s+the\s+(?:very\s+)?(?:middle|centre|center)|at\s+the\s+(?:very\s+)?(?:front|back|"
    r"centre|center|middle)|on\s+the\s+(?:far\s+)?(?:left|right)(?:\s+(?:side|end))?"
    rf"(?![\w-]|\s+(?:{_PAD_NOUN}|one)\b)|(?:the\s+)?(?:furthest|farthest|nearest|closest))\b)",
    re.I,
)
"""A cube said by where it is, with its posture ("the cube sitting in the middle", "the block
that's lying at the front", "the one which stands on the far left"); not a cube said by the
pad it is on ("the cube sitting on the left pad": another rule's, which needs the verb)."""


def between_others(text: str) -> str:
    """ "the cube that sits between the two others": "the cube between the other two" (read
    in the scene by :mod:`~miles_ros.agent.reference_picks`), not a place "between"; "the cube
    sitting in the middle / at the front / on the left": "the cube in the middle ..." (its
    posture says nothing of which it is)."""
    text = _BETWEEN.sub(lambda m: f"the {m['n']} between the other two", text)
    return _WHERE_IT_IS.sub(lambda m: f"the {m['n']} ", text)


_THANKS = re.compile(
    r"(?:(?:that'?s|that\s+(?:was|is))\s+(?:all|everything)\s+(?:i|we)\s+(?:needed|wanted|"
    r"need|want)(?:\s+done)?|that'?ll\s+do|that\s+will\s+do|"
    r"that'?s\s+(?:enough|all|it|great|fine)|that\s+(?:was|is)\s+(?:enough|all|it)|"
    r"(?:nice|good|great|lovely|fine|excellent)\s+(?:work|job)|well\s+done|"
    r"thank\s+you(?:\s+(?:so|very)\s+much)?|thanks?(?:\s+(?:a\s+lot|so\s+much|very\s+much))?|"
    r"many\s+thanks|cheers|for\s+(?:now|today|the\s+(?:moment|time\s+being|day))|at\s+the\s+moment|"
    r"earlier|before|just\s+now|there|today|(?P<lead>ok(?:ay)?|alright|all\s+right|right|so|well))"
    r"(?:\s*[,.!;\u2013\u2014-]+\s*|\s+|$)",
    re.I,
)
"""Thanks, praise and the words said around them; a lead ("OK", "right", "so") alone is not
thanks."""


def thanked(text: str) -> str:
    """Thanks and praise, nothing asked: "nothing for now"."""
    rest, thanks = text.strip(), False
    while rest:
        m = _THANKS.match(rest)
        if not m or not m.group(0):
            return text
        thanks = thanks or not m["lead"]
        rest = rest[m.end() :]
    return "nothing for now." if thanks else text


_UP_TOP = re.compile(
    r"^(?:complete|finish(?:\s+off)?|top\s+off)\s+the\s+(?:stack|tower|pile)(?:\s+off)?"
    rf"{_SEP}(?P<x>{_CUBE_NP})\s+(?:goes|sits|is\s+going|will\s+go)\s+(?:up\s+)?(?:on\s+)?"
    r"(?:the\s+)?top" + _END,
    re.I,
)


def up_top(text: str) -> str:
    """ "complete the stack: X goes up top": "put X on top of the stack"."""
    m = _UP_TOP.match(text.strip())
    return f"put {m['x']} on top of the stack." if m else text


TOGETHER = r"(?:at\s+(?:the\s+same\s+time|once)|simultaneously|in\s+one\s+go|all\s+together)"
"""The words of moves made together (:data:`miles_ros.agent.repertoire._AT_ONCE` refuses them)."""
_AT_ONCE = re.compile(
    r"^[a-z]+\s+(?:all(?:\s+of)?(?:\s+the)?(?:\s+(?:two|three))?|both(?:\s+of)?(?:\s+the)?|"
    rf"the\s+(?:two|three))\s+(?:{_CUBE_NOUN})e?s\b.*\b{TOGETHER}\s*[.!]?$|"
    rf"^[a-z]+\s+every\s+(?:{_CUBE_NOUN})\b.*\b{TOGETHER}\s*[.!]?$",
    re.I,
)


def at_once(text: str) -> str:
    """ "put all three cubes on P at the same time": "move the cubes all at the same time"
    (refused: the arm moves one cube at a time), before the cubes are counted out."""
    return "move the cubes all at the same time." if _AT_ONCE.match(text.strip()) else text


def reviewed(text: str) -> str:
    """Held-out 32's structures said plainly (see the module)."""
    text = wanted_instead(which_goes(text))
    text = place_redone(carried_there(text))
    text = former_latter(first_only(left_and_moved(text)))
    return at_once(up_top(thanked(between_others(text))))
