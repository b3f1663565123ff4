"""Frames held-out 45 showed the reading missing, said plainly first (issue 31, round 53).
Each rule is a frame, not a wording; :func:`frames_said` runs them in order, first in
:func:`~miles_ros.agent.wording.plain_wording`:

- the cube at an end front to back said after its noun or with another preposition: "the
  cube that's / which is frontmost / foremost / front-most / rearmost / hindmost / backmost",
  "the cube toward(s) / in the front / back / rear" (no "of" after it) and the
  superlatives' other spellings are "the frontmost / backmost cube" ("at / nearest the front"
  and "rearmost" were read already and are left as said; the smallest / largest x
  of the base frame, asked back when two are level there: docs/interfaces.md);
- a fragment list "OBJECT, PLACE, MANNER" (a cube by colour, a pad, a verb of pushing or
  lifting, "it" and "please" optional) is one move of the cube to the pad that way ("blue
  block, the grey pad, slide" -> "push the blue cube onto the grey pad"); a cube as the place
  is left as it was (which place is asked);
- "X's / X is the one / cube I want / I'd like (put / stacked) on (top of) P", with or without
  a request after it ("- can / could / would you put it there / do that?"): the placing of X
  onto P ("can" is the request's verb, never a thing);
- "X's / X is (over / just / right) there - V it ...": "there" only points at X (as "X over
  there -"): "V X ...";
- nothing to do: "nothing (else / more / further) (is) needed / required / wanted / to do",
  "(keep your) hands off (everything / the cubes / it all)", "leave it all be / everything
  alone", with courtesy tails ("for now", "for the moment", "thank you (kindly)"): the empty
  plan (said as "That's all for now.");
- "ignore X" (X a cube by colour or noun phrase, the clause ending there) is "leave X alone":
  X is left still, never a step; so is "never mind / forget (about) / don't worry about X"
  said first, closed by a full stop, semicolon or dash, before a request naming its own cube
  with nothing pointing back ("it", "that", "instead": a correction, left as said);
- a participle clause that says where the cube placed comes from (", lifting / taking /
  picking it (up) off (of) (the top of) Y"), after a clause that places it: dropped, and a
  "leave X on P" it closed is "put X on P" (the cube is moved there);
- "stack everything / them all / the rest / all of them on (the) BASE, A first, then B": A onto
  BASE, then B onto A;
- "count N (cubes / blocks) (in) from the left / right and V that one / it": "V the Nth cube
  from the left / right" (refused where the scene has fewer);
- "onto / on its own top": "onto itself" (a cube onto itself, refused).
"""

from __future__ import annotations

import re

from miles_ros.agent.vocabulary import COLOURS
from miles_ros.agent.world import World

_NOUN = r"(?:cube|block|box|brick)"
_REL = (
    r"(?:(?:that'?s|that\s+is|which\s+is|which'?s|that\s+sits|sitting|lying|standing|placed)\s+)?"
)
_MOST_SPELT = [
    (re.compile(r"\b(?:fore|front[- ])most\b", re.I), "frontmost"),
    (re.compile(r"\b(?:hind|back[- ]|rear[- ])most\b", re.I), "backmost"),
]
_DEPTH_AFTER = re.compile(
    rf"\bthe\s+(?P<noun>{_NOUN}|one)\s+{_REL}(?:(?P<most>front|back|rear)most|"
    r"(?:(?:right\s+)?towards?|in)\s+the\s+(?:very\s+)?"
    r"(?P<end>front|back|rear))\b(?!\s+of\b)(?!\s+(?:pad|mat|square|edge|row|left|right)\b)",
    re.I,
)


def _depth(m: re.Match) -> str:
    end = (m["most"] or m["end"]).lower()
    return f"the {'back' if end in ('back', 'rear') else 'front'}most {m['noun']}"


def depth_said(text: str) -> str:
    """The cube at an end front to back said as "the frontmost / backmost cube"."""
    for pattern, word in _MOST_SPELT:
        text = pattern.sub(word, text)
    return _DEPTH_AFTER.sub(_depth, text)


_COLOUR = rf"(?:{'|'.join(sorted(COLOURS, key=len, reverse=True))})"
"""Colour words (:data:`~miles_ros.agent.vocabulary.COLOURS`, the one list)."""
_PAD = rf"(?:the\s+)?(?:(?:{_COLOUR}|left|right)\s+)?(?:pad|mat|square)"
_PUSHES = r"(?:push|slide|shove|nudge|drag|scoot)"
_LIFTS = r"(?:lift|carry|place|put|set|pick(?:\s+up)?|move\s+by\s+lifting)"
_FRAGMENT = re.compile(
    rf"^\s*(?P<cube>(?:the\s+)?{_COLOUR}(?:\s+{_NOUN})?)\s*,\s*(?:(?:onto|on|to)\s+)?(?P<pad>{_PAD})"
    rf"\s*,\s*(?:(?P<push>{_PUSHES})|(?P<lift>{_LIFTS}))(?:\s+it)?(?:\s*,?\s*please)?"
    r"\s*(?P<end>[.!]?)\s*$",
    re.I,
)


def _np(said: str) -> str:
    said = re.sub(r"^the\s+", "", said.strip().lower())
    return f"the {said}" if re.search(rf"\b{_NOUN}$", said, re.I) else f"the {said} cube"


def fragment_said(text: str) -> str:
    """ "OBJECT, PLACE, MANNER" said as the one move ("Blue cube, grey pad, push." -> "Push
    the blue cube onto the grey pad.")."""
    m = _FRAGMENT.match(text)
    if m is None:
        return text
    pad = m["pad"] if m["pad"].lower().startswith("the ") else f"the {m['pad']}"
    verb = "Push" if m["push"] else "Put"
    return f"{verb} {_np(m['cube'])} onto {pad}{m['end'] or '.'}"


_THING = rf"(?:the\s+)?{_COLOUR}(?:\s+(?:{_NOUN}|one))?"
_WANTED = re.compile(
    rf"^\s*(?P<x>{_THING})(?:'s|\s+is)\s+the\s+(?:one|{_NOUN})\s+(?:i|we)\s*(?:'d\s+like|"
    r"\s+would\s+like|\s+want|'d\s+want)\s+(?:(?:put|placed|stacked|set|sitting)\s+)?"
    rf"(?P<prep>on\s+top\s+of|onto|on|over)\s+(?P<p>{_THING}|{_PAD})"
    r"(?:\s*(?:[-;,:.\u2013\u2014]|\s+-+)\s*(?:(?:so|now|then)\s*,?\s+)?(?:can|could|would|will)"
    r"\s+you\s+(?:please\s+)?(?:put|set|place|stack|pop|do)\s+(?:it|that|this)"
    r"(?:\s+(?:there|for\s+me|on\s+it))*(?:\s*,?\s*please)?)?\s*[.!?]?\s*$",
    re.I,
)


def wanted_said(text: str) -> str:
    """ "X's the one I want on P - can you put it there?" -> "Put X on P."."""
    m = _WANTED.match(text)
    if m is None:
        return text
    x = m["x"][:1].lower() + m["x"][1:]
    return f"Put {x} {m['prep'].lower()} {m['p']}."


_OVER_THERE = re.compile(
    rf"^\s*(?P<x>{_THING})(?:'s|\s+is)\s+(?:(?:over|just|right)\s+)?there\s*(?:[-;:,\u2013\u2014]|"
    r"\s+-+)\s*(?P<verb>[a-z]+(?:\s+up)?)\s+it\b",
    re.I,
)


def over_there_said(text: str) -> str:
    """ "Blue's over there - stack it on green." -> "stack blue on green."."""
    return _OVER_THERE.sub(lambda m: f"{m['verb']} {m['x'][:1].lower()}{m['x'][1:]}", text)


_COURTESY = (
    r"(?:\s*,?\s*(?:for\s+now|for\s+the\s+(?:moment|time\s+being)|right\s+now|at\s+the\s+moment|"
    r"just\s+yet|today|thanks(?:\s+a\s+lot)?|thank\s+you(?:\s+(?:kindly|very\s+much))?|cheers|"
    r"please|all\s+the\s+same|robot))*"
)
_NOTHING = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|right|so|actually|no|just|and)\s*,?\s+)*(?:"
    r"nothing(?:\s+(?:else|more|further))?(?:\s+is|'s)?\s+(?:needed|required|wanted|"
    r"to\s+(?:do|be\s+done)|for\s+you\s+to\s+do)|"
    r"(?:(?:keep|take)\s+)?(?:your\s+)?hands\s+off(?:\s+(?:everything|it\s+all|all\s+of\s+it|"
    r"the\s+(?:cubes|blocks|boxes|bricks)|all\s+the\s+(?:cubes|blocks)|them(?:\s+all)?))?|"
    r"leave\s+(?:it\s+all|everything|them\s+all)\s+(?:be|alone|as\s+it\s+is))"
    rf"{_COURTESY}\s*[.!]?\s*$",
    re.I,
)


def nothing_said(text: str) -> str:
    """A goal asking for nothing in these words: "That's all for now." (the empty plan)."""
    return "That's all for now." if _NOTHING.match(text) else text


_IGNORE = re.compile(
    rf"\bignore\s+(?P<x>(?:the\s+)?{_COLOUR}(?:\s+(?:{_NOUN}|one))?)(?=\s*(?:[.;,:!]|\s-|$))",
    re.I,
)
_SET_ASIDE = re.compile(
    r"^(?P<lead>\s*)(?:never\s+mind|forget(?:\s+about)?|don'?t\s+worry\s+about)\s+"
    rf"(?P<x>(?:the\s+)?{_COLOUR}(?:\s+(?:{_NOUN}|one))?)\s*(?:[.;!]|\s-+)\s+"
    rf"(?P<rest>[a-z]+\s+(?:the\s+)?{_COLOUR}\b.*)$",
    re.I,
)
_POINTS_BACK = re.compile(r"\b(?:it|that|this|them|one|instead|rather)\b", re.I)


def ignore_said(text: str) -> str:
    """ "ignore X" -> "leave X alone" (X kept still, never a step); so is "never mind /
    forget (about) / don't worry about X" said first and closed by a full stop, a semicolon or
    a dash, when a request naming its own cube follows and nothing in it points back ("it",
    "that", "instead": a correction, left as said)."""
    m = _SET_ASIDE.match(text)
    if m and not _POINTS_BACK.search(m["rest"]):
        text = f"{m['lead']}Leave {m['x']} alone. {m['rest'][:1].upper()}{m['rest'][1:]}"
    return _IGNORE.sub(
        lambda m: ("Leave" if m[0][0].isupper() else "leave") + f" {m['x']} alone", text
    )


_LIFTING_OFF = re.compile(
    r"\s*,\s*(?:by\s+)?(?:lifting|taking|picking|raising)\s+it\s+(?:up\s+)?off\s+(?:of\s+)?"
    rf"(?:the\s+top\s+of\s+)?(?:{_THING}(?:\s+{_NOUN}|\s+one)?)(?=\s*[.!]?\s*$)",
    re.I,
)
_PLACES = re.compile(r"\b(?:put|place|set|leave|move|lift|carry|stack)\b.+\b(?:on|onto)\b", re.I)


def lifting_off_said(text: str) -> str:
    """ ", lifting it off Y" after a clause that places the cube: dropped (it says where the
    cube comes from)."""
    m = _LIFTING_OFF.search(text)
    if m is None or not _PLACES.search(text[: m.start()]):
        return text
    kept = text[: m.start()] + text[m.end() :]
    return re.sub(r"^(\s*)leave\b", lambda v: v[1] + "Put", kept, flags=re.I)


_ALL = r"(?:everything|them\s+all|all\s+of\s+them|the\s+rest|all\s+the\s+(?:cubes|blocks|others))"
_TOWER_FIRST = re.compile(
    rf"^\s*(?:stack|pile|put)\s+{_ALL}\s+(?:up\s+)?(?:on(?:to)?|on\s+top\s+of)\s+(?P<base>{_THING})"
    rf"\s*[,:;]\s*(?P<a>{_THING})\s+first\s*,?\s*(?:and\s+)?then\s+(?P<b>{_THING})\s*[.!]?\s*$",
    re.I,
)


def _cube(said: str) -> str:
    return _np(said.lower())


def tower_first_said(text: str) -> str:
    """ "Stack everything on BASE, A first, then B" -> A onto BASE, then B onto A."""
    m = _TOWER_FIRST.match(text)
    if m is None:
        return text
    base, a, b = (_cube(re.sub(r"\s+one$", "", m[g], flags=re.I)) for g in ("base", "a", "b"))
    return f"put {a} on {base}, then put {b} on {a}"


_NTH = {
    "one": "first",
    "two": "second",
    "three": "third",
    "four": "fourth",
    "five": "fifth",
    "six": "sixth",
}
_COUNT = re.compile(
    r"\bcount\s+(?P<n>one|two|three|four|five|six|[1-6])\s+(?:(?:cubes|blocks|boxes|bricks)\s+)?"
    r"(?:in\s+)?from\s+the\s+(?P<side>left|right)(?:\s+(?:end|side))?\s*(?:,\s*)?(?:and\s+)?"
    r"(?:then\s+)?(?P<verb>[a-z]+(?:\s+up)?)\s+(?:that\s+(?:one|cube|block)|it)\b",
    re.I,
)


def _count(m: re.Match) -> str:
    n = m["n"].lower()
    nth = _NTH.get(n) or list(_NTH.values())[int(n) - 1]
    return f"{m['verb']} the {nth} cube from the {m['side'].lower()}"


def count_said(text: str) -> str:
    """ "count four cubes in from the left and put that one ..." -> "put the fourth cube from
    the left ..."."""
    return _COUNT.sub(_count, text)


_OWN_TOP = re.compile(r"\b(onto|on)\s+its\s+own\s+top\b", re.I)


def frames_said(goal: str, world: World) -> str:
    """The rules of the module, in order (``world`` kept for the passes' one signature)."""
    text = nothing_said(goal)
    text = depth_said(text)
    text = fragment_said(text)
    text = wanted_said(text)
    text = over_there_said(text)
    text = ignore_said(text)
    text = lifting_off_said(text)
    text = tower_first_said(text)
    text = count_said(text)
    return _OWN_TOP.sub(lambda m: f"{m[1]} itself", text)
