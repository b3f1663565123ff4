"""Held-out 33's and 34's structures, said as the plain clauses the rest of the reading is
written for (:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`revisited` first, before
:func:`~miles_ros.agent.reviewed.reviewed`):

- "... after all" (the idiom, ending a clause): dropped ("never mind, don't do anything after
  all": "never mind, don't do anything"; :func:`after_all`);
- "everything stays put except X, which you should lift / I want you to put onto P": "leave
  the other cubes where they are and lift X onto P" (the verb said kept; :func:`which_you_move`);
- a kind of place ruled out, then the place wanted: "don't use a pad for X - stack it on Y
  instead", "no mat for X; put it on Y instead", "don't put / set / drop X on a pad, put it on
  top of Y", "not on a pad - put X onto Y" ("instead" or not; any verb of putting): "stack X on
  Y" (:func:`kind_ruled_out`);
- the step before said done: "V X ..., and when that's done / once you're holding it, V ...":
  "V X ..., then V ..."; the cube said up ("once it's up / lifted / in the air") likewise
  (:func:`once_done`);
- a cube named after its clause: "push it to P - the red cube, I mean", "set it on P, I mean
  the blue one", "put it on P; the blue cube, that is": "push the red cube to P" (only with "I
  mean / that is / I'm talking about", and not after a clause ending on a cube or a bare
  colour, which "I mean" corrects; :func:`named_after`);
- "turn / twist / spin X until / till / so (that) a (flat) face / side is aimed / directed /
  pointed at the robot": "... so a face points at the robot" (:func:`face_aimed`);
- "grab X, then set it down gently / carefully on P" (a manner word said): "pick up X and put
  it on P" (a manner of setting down is no push; :func:`set_down`);
- "put X on P and keep it exactly where it is": "don't touch X, and put X on P" (refused as a
  contradiction; :func:`moved_and_kept`);
- "snap / split X into two halves / in half": "break X" (refused by
  :mod:`~miles_ros.agent.repertoire`; :func:`in_pieces`);
- "square X up / off so a face points at the robot": "square X so ..." (the turn to face the
  robot; :func:`squared_so`).
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN
from miles_ros.agent.reread import _CUBE_NP, _DASH

_SEP = rf"\s*(?:[;:,]|{_DASH})\s*"
_END = r"\s*[.!]?$"
_PLACE = r"the\s+[a-z]+\s+[a-z]+"

_AFTER_ALL = re.compile(r"\s*,?\s+after\s+all(?=\s*(?:[.!?,;]|$))", re.I)


def after_all(text: str) -> str:
    """ "... after all" ending a clause (the idiom, not "after all the others"): dropped."""
    return _AFTER_ALL.sub("", text)


_STILL = (
    r"(?:put|(?:exactly\s+|right\s+|just\s+)?where\s+(?:it\s+is|they\s+are)|in\s+place|still|"
    r"as\s+(?:it\s+is|they\s+are))"
)
_YOU = (
    r"(?:you(?:\s+(?:should|must|need\s+to|have\s+to|can|will|'ll|are\s+to))?|you'll|"
    r"i(?:'d)?\s+(?:want|like|would\s+like|need)\s+you\s+to|i'd\s+like\s+you\s+to|"
    r"please)"
)
_WHICH_YOU = re.compile(
    r"^(?:everything|every\s+(?:cube|block|box|brick)|all(?:\s+the\s+(?:cubes|blocks|boxes|"
    r"bricks))?|nothing|no\s+(?:cube|block|box|brick))(?:\s+else)?\s+(?:stays?|remains?|moves?)"
    rf"(?:\s+{_STILL})?\s*,?\s+(?:except(?:\s+for)?|but|apart\s+from|other\s+than|save)\s+"
    rf"(?P<x>{_CUBE_NP})\s*,?\s+which\s+{_YOU}\s+(?P<v>[a-z]+)(?:\s+(?:it\s+)?(?P<d>down|over|"
    r"across|up))?\s+(?P<on>to|onto|on\s+top\s+of|on)\s+"
    rf"(?P<p>{_PLACE}){_END}",
    re.I,
)
_NOT_VERBS = frozenset({"go", "goes", "end", "be", "stay", "remain", "keep", "leave"})


def which_you_move(text: str) -> str:
    """All but X kept still, X moved by the robot in a relative clause ("which you should
    lift onto P"): "leave the other cubes where they are and lift X onto P"."""
    m = _WHICH_YOU.match(text.strip())
    if not m or m["v"].lower() in _NOT_VERBS:
        return text
    down = f" {m['d']}" if m["d"] else ""
    return f"leave the other cubes where they are and {m['v']} {m['x']}{down} {m['on']} {m['p']}."


_KIND = rf"(?:a|any|either|the)\s+(?:{_PAD_NOUN})s?|(?:a|any|either)\s+(?:[a-z]+\s+)?{_PAD_NOUN}"
_PUT_VERB = r"(?:put|place|set|move|stack|drop|lay|leave|rest|sit|carry|take|lift|bring)"
_RULED_OUT = re.compile(
    rf"^(?:(?:don'?t|do\s+not)\s+use\s+(?:{_KIND})\s+for\s+(?P<x>{_CUBE_NP})|"
    rf"(?:don'?t|do\s+not|never)\s+{_PUT_VERB}\s+(?P<x2>{_CUBE_NP})\s+(?:down\s+)?(?:on|onto|on\s+to|"
    rf"in|into)\s+(?:{_KIND})|no\s+(?:{_PAD_NOUN})s?\s+for\s+(?P<x3>{_CUBE_NP})|"
    rf"skip\s+the\s+(?:{_PAD_NOUN})s?\s+for\s+(?P<x4>{_CUBE_NP})|"
    rf"not\s+(?:on|onto|on\s+to|in|into)\s+(?:{_KIND}))"
    rf"(?:{_SEP}|\s*,?\s+and\s+|\s*,?\s+but\s+)(?:(?:just|instead|rather)\s+)?(?P<v>[a-z]+)\s+"
    rf"(?P<it>it|{_CUBE_NP})\s+(?P<rest>(?:on\s+top\s+of|onto|on|to)\s+{_CUBE_NP})"
    rf"(?:\s*,?\s+(?:instead|rather))?{_END}",
    re.I,
)


def kind_ruled_out(text: str) -> str:
    """ "don't use a pad for X - stack it on Y instead": "stack X on Y" (the kind ruled out
    says no place; the place wanted is the one said)."""
    m = _RULED_OUT.match(text.strip())
    if not m:
        return text
    x = m["x"] or m["x2"] or m["x3"] or m["x4"]
    if m["it"].lower() != "it":
        if x and m["it"].lower() != x.lower():
            return text  # two cubes said: not this structure
        x = m["it"]
    elif not x:
        return text  # "not on a pad - put it on Y": no cube said
    return f"{m['v']} {x} {m['rest']}."


_DONE = (
    r"(?:when|once|after|as\s+soon\s+as)\s+(?:(?:that|this|it)(?:'s|\s+is|\s+has\s+been)\s+"
    r"(?:done|finished|complete(?:d)?|over)|you(?:'re|\s+are)\s+(?:done|finished)(?:\s+with\s+"
    r"(?:that|this|it))?|you'?ve\s+(?:done|finished)\s+(?:that|this|it)|"
    r"you(?:'re|\s+are)\s+holding\s+it|you'?ve\s+got\s+(?:it|hold\s+of\s+it)|"
    r"you\s+have\s+(?:got\s+)?it|it(?:'s|\s+is)\s+in\s+(?:the\s+gripper|your\s+(?:hand|"
    r"gripper)|hand)|it(?:'s|\s+is|\s+has\s+been)\s+(?:(?:up|lifted|raised|picked\s+up|held|"
    r"in\s+the\s+air|off\s+the\s+table|clear)\b))"
)
_ONCE_DONE = re.compile(rf"(?:\s*,\s*|\s*;\s*|\s+)(?:and\s*,?\s+)?{_DONE}\s*,?\s+(?=[a-z])", re.I)


def once_done(text: str) -> str:
    """ "V X ..., and when that's done / once you're holding it, V ...": "V X ..., then V
    ..." (a step said to follow the one before, no condition on the scene)."""
    m = _ONCE_DONE.search(text)
    if not m or m.start() == 0 or not text[: m.start()].strip():
        return text
    return f"{text[: m.start()].rstrip(' ,;')}, then {text[m.end() :]}"


_GENTLY = r"(?:gently|carefully|softly|slowly)"
_SET_DOWN = re.compile(
    r"^(?:grab|grasp|take\s+hold\s+of|pick\s+up|pick|lift(?:\s+up)?|take|raise)\s+"
    rf"(?P<x>{_CUBE_NP})(?:\s+up)?\s*,?\s+(?:and\s+)?(?:then\s+)?(?:(?P<g1>{_GENTLY})\s+)?"
    rf"(?:set|put|place|lower|lay)\s+it(?:\s+down)?(?:\s+(?P<g2>{_GENTLY}))?(?:\s+down)?\s+"
    rf"(?P<on>on\s+top\s+of|onto|on)\s+(?P<p>{_PLACE})(?:\s*,?\s+(?P<g3>{_GENTLY}))?"
    r"(?P<end>\s*[.!]?)$",
    re.I,
)


def set_down(text: str) -> str:
    """ "grab X, then set it down gently on P": "pick up X and put it on P" (how gently it
    is set down is no way of moving it there); said with no such manner word, left as said
    (the reading already reads it)."""
    m = _SET_DOWN.match(text.strip())
    if not m or not (m["g1"] or m["g2"] or m["g3"]):
        return text
    return f"pick up {m['x']} and put it {m['on']} {m['p']}{m['end'].strip()}"


_KEPT = re.compile(
    r"^(?P<v>put|place|set|move|stack|lift|push|slide)\s+(?P<x>" + _CUBE_NP + r")\s+"
    rf"(?P<rest>(?:on\s+top\s+of|onto|on|to|over\s+to)\s+{_PLACE})\s*,?\s+(?:and|but)\s+"
    r"(?:(?:also|then)\s+)?(?:keep|leave|hold)\s+it\s+(?:(?:exactly|right|just|precisely)\s+"
    r"where\s+it\s+is(?:\s+(?:now|right\s+now))?|where\s+it\s+is\s+(?:now|right\s+now)|"
    r"in\s+its\s+(?:current|present)\s+(?:spot|place|position))" + _END,
    re.I,
)


def moved_and_kept(text: str) -> str:
    """ "put X on P and keep it exactly where it is": "don't touch X, and put X on P" (moved
    and kept where it stands: a contradiction)."""
    m = _KEPT.match(text.strip())
    return f"don't touch {m['x']}, and {m['v']} {m['x']} {m['rest']}." if m else text


_PIECES = re.compile(
    rf"^(?:[a-z]+)\s+(?P<x>{_CUBE_NP})\s+(?:(?:into|in)\s+(?:two|2|three|3|several|many|"
    r"small|little)?\s*(?:halves|pieces|bits|parts|chunks|fragments|shards)|in\s+(?:half|two))"
    + _END,
    re.I,
)


def in_pieces(text: str) -> str:
    """ "snap X into two halves", "split X in half": "break X" (refused: no skill breaks a
    cube)."""
    m = _PIECES.match(text.strip())
    return f"break {m['x']}." if m else text


_SQUARED = re.compile(
    rf"\b(?P<v>square|straighten)\s+(?P<x>{_CUBE_NP}|it)\s+(?:up|off|out)\b"
    r"(?=\s*,?\s+(?:so|to\s+face|until|till)\b)",
    re.I,
)


def squared_so(text: str) -> str:
    """ "square X up so a face points at the robot": "square X so ..." (the turn to face
    the robot; the particle said after the cube is no direction)."""
    return _SQUARED.sub(lambda m: f"{m['v']} {m['x']}", text)


_NAMED_AFTER = re.compile(
    rf"^(?P<head>(?:please\s+)?[a-z]+)\s+it\s+(?P<rest>[^;,.!?\u2013\u2014-]+?)\s*(?:{_SEP}|\s+)"
    rf"(?:(?:i\s+mean|that\s+is|i'?m\s+talking\s+about)\s*,?\s+(?P<x>{_CUBE_NP})|"
    rf"(?P<x2>{_CUBE_NP})\s*,?\s+(?:i\s+mean|that\s+is|i'?m\s+talking\s+about))\s*[.!]?$",
    re.I,
)


_CORRECTED = re.compile(rf"\b(?:{_CUBE_NOUN}|one|red|green|blue|yellow|grey|gray)$", re.I)
"""A clause ending on a cube or a bare colour: "I mean X" after it corrects that word ("move it
next to the green - I mean the blue cube"), it names no "it"."""


def named_after(text: str) -> str:
    """ "push it to P - the red cube, I mean", "set it on P, I mean the blue one": the cube
    named after the clause stands for its "it" ("push the red cube to P"); a cube named
    without "I mean / that is" is left as said."""
    m = _NAMED_AFTER.match(text.strip())
    if not m or _CORRECTED.search(m["rest"].strip()):
        return text
    return f"{m['head']} {m['x'] or m['x2']} {m['rest'].strip()}."


_AIMED = re.compile(
    r"\b(?:until|till|so\s+that|so)\s+(?:a|one|some)\s+(?:flat\s+|of\s+its\s+)?(?:face|side|faces|sides)"
    r"\s+(?:is\s+|are\s+)?(?:aimed|directed|pointed|pointing|points|turned|facing|faces|looks|looking)"
    r"\s+(?:straight\s+|right\s+|directly\s+)?(?:at|to|towards?)\s+the\s+robot\b",
    re.I,
)


def face_aimed(text: str) -> str:
    """ "until / so a (flat) face is aimed / directed at the robot": "so a face points at the
    robot" (the turn to face the robot; any verb of aiming, any of until / so)."""
    return _AIMED.sub("so a face points at the robot", text)


def revisited(text: str) -> str:
    """Held-out 33's and 34's structures said plainly (see the module)."""
    text = face_aimed(named_after(text))
    text = once_done(after_all(text))
    text = kind_ruled_out(which_you_move(text))
    text = moved_and_kept(set_down(text))
    return squared_so(in_pieces(text))
