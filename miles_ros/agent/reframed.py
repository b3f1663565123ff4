"""Held-out 20's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`reframed` on the whole goal first,
before :func:`~miles_ros.agent.recast.recast`):

- a pause with everything left as it is ("Hold off; leave everything just as it is.", "Hang
  fire - keep it all exactly the way it is."), the whole goal: no motion (:func:`left_as_is`);
- a tower of two said first, then how ("Build a two-block stack by setting A on top of B",
  "Make a two-cube stack with A on B"):
  the placing as said, A onto B (:func:`tower_by`);
- a placing, then the cube kept where it was put ("..., and keep it there", "let it stay
  there"): the placing alone, no step after it (:func:`kept_there`);
- a reach of a pad, then "bring X to it": "it" is the pad (:func:`brought_to_it`);
- "the cube at the (very) bottom of the stack", "the bottom-most / lowest cube of the tower":
  "the lowest cube in the stack" (:func:`bottom_of_stack`);
- "unstack X": "take X off the stack"; "unstack X from / off Y" (colours, their nouns said or
  not): "take the X cube off the Y cube" (:func:`unstacked`);
- "anywhere but / except / other than the Q pad; the P one is fine / will do": onto P
  (:func:`anywhere_but`);
- "Which of the mats is the C one? V X there.": X onto the C pad (:func:`which_pad_there`);
- "whichever (one) of the cubes is / lies / sits nearest (to) you": "the cube nearest to
  you" (:func:`whichever_of`);
- a cube fixed to a thing with a material ("stick X to Y with tape", "fix X to Y with some
  glue") or "put a label on X": the material's verb ("tape", "glue", "label"), which no skill
  does (:func:`fixed_with`);
- "How much does X weigh? Weigh it for me.": the request on X (:func:`asked_about`).

Grammar, not goals: each pattern is a frame (a pause around a whole-scene object, a purpose
said before its means, a state kept after the step that made it, a pronoun after a reach, a
question that names its referent) around noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN
from miles_ros.agent.vocabulary import COLOURS

_SEP = r"[\s,.;:!\-\u2013\u2014]"
_PAUSE = (
    r"(?:hold\s+off|hold\s+on|hang\s+on|hang\s+fire|wait(?:\s+a\s+(?:moment|bit|second))?|"
    r"pause(?:\s+for\s+(?:now|a\s+moment|a\s+bit))?|stop(?:\s+there)?|not\s+yet|please|ok(?:ay)?|"
    r"for\s+now|actually|just)"
)
_LEFT_AS_IS = re.compile(
    rf"^(?:{_PAUSE}{_SEP}*)*(?:(?:just|please)\s+)?(?:leave|keep)\s+"
    r"(?:everything|it\s+all|all\s+of\s+it|things|the\s+whole\s+lot)\s+"
    r"(?:(?:just|exactly|precisely|right)\s+)?(?:as\s+(?:it\s+is|they\s+are)|"
    r"the\s+way\s+(?:it\s+is|they\s+are)|where\s+(?:it\s+is|they\s+are))"
    r"(?:\s+for\s+(?:now|the\s+moment|a\s+bit))?(?:\s*,?\s*please)?\s*[.!]?$",
    re.I,
)


def left_as_is(text: str) -> str:
    """ "Hold off; leave everything just as it is." -> "Don't do anything." (the whole goal: a
    pause, then everything kept as it is; "leave everything as it is and push X ..." is read
    by :func:`~miles_ros.agent.scope.read_scope`)."""
    return "Don't do anything." if _LEFT_AS_IS.match(text.strip()) else text


_ONE = rf"the\s+(?P<{{g}}>[a-z]+)\s+(?:{_CUBE_NOUN}|one)"
_TOWER_BY = re.compile(
    r"\b(?:build|make|form|create|put\s+up)\s+(?:me\s+)?an?\s+(?:(?:little|small|short)\s+)?"
    rf"(?:(?:two|2)[\s-]+(?:{_CUBE_NOUN}|level|storey|story)\s+)?(?:tower|stack|pile)"
    rf"(?:\s+of\s+(?:two|2)(?:\s+{_CUBE_NOUN}s)?)?\s*(?:[:,;]|\s[-\u2013\u2014]+)?\s*"
    r"(?:(?:(?:do\s+it|do\s+that|you\s+can\s+do\s+(?:it|that))\s+)?by\s+"
    r"(?P<verb>putting|placing|setting|stacking|lifting|moving)\s+|with\s+|having\s+)"
    + _ONE.format(g="a")
    + r"\s+(?:on\s+top\s+of|onto|on\s+to|on|atop)\s+"
    + _ONE.format(g="b"),
    re.I,
)


def tower_by(text: str) -> str:
    """ "Make a two-cube tower by putting the blue cube on the red one" or "... with the blue
    cube on the red one" -> "put the blue cube on the red cube" (the tower is what the placing
    makes: A on B, as said)."""

    def said(m: re.Match) -> str:
        return f"put the {m['a'].lower()} cube on the {m['b'].lower()} cube"

    return _TOWER_BY.sub(said, text)


_PUT = (
    r"\b(?:put|place|set|stack|lift|move|drop|lower|bring|carry|take|pile|get|slide|push|"
    r"shove|nudge)\b"
)
_KEPT_THERE = re.compile(
    r"\s*(?:,\s*|;\s*|\s+)(?:and\s+(?:then\s+)?|then\s+)?(?:just\s+)?"
    r"(?:(?:keep|leave)\s+it(?:\s+(?:sitting|standing|resting|lying))?|"
    r"let\s+it\s+(?:stay|sit|rest|remain))\s+(?:right\s+)?there"
    r"(?:\s+for\s+(?:now|the\s+moment|good))?(?=\s*[.!]?\s*$)",
    re.I,
)
_TO_A_PLACE = re.compile(rf"{_PUT}.*\b(?:on|onto|to|at|atop|into)\b", re.I)


def kept_there(text: str) -> str:
    """ "Put the red cube on the left pad and keep it there." -> "Put the red cube on the
    left pad." (the cube stays where the step put it: no step of its own; a goal that names
    no place before it keeps its words)."""
    m = _KEPT_THERE.search(text)
    if m is None or not _TO_A_PLACE.search(text[: m.start()]):
        return text
    return text[: m.start()] + text[m.end() :]


_BROUGHT_TO_IT = re.compile(
    r"(?P<head>\b(?:hover|reach|go|move|get|position|bring|put)\w*"
    r"(?:\s+(?:your|the)\s+(?:gripper|hand|arm))?\s+(?:right\s+)?(?:over|above)\s+"
    rf"(?P<pad>the\s+\w+\s+{_PAD_NOUN})\b"
    rf"(?P<mid>[^.?!]*?\b(?:bring|take|carry|move|get)\s+the\s+\w+\s+(?:{_CUBE_NOUN}|one)"
    r"(?:\s+(?:over|across|back))?\s+to))\s+it\b",
    re.I,
)


def brought_to_it(text: str) -> str:
    """ "Hover over the right pad, then bring the red cube to it." -> "..., then bring the
    red cube to the right pad." ("it" after a reach of a pad, the cube named: the pad)."""
    return _BROUGHT_TO_IT.sub(lambda m: f"{m['head']} {m['pad']}", text)


_BOTTOM = re.compile(
    rf"\bthe\s+(?:(?:bottom[\s-]?most|lowest)\s+{_CUBE_NOUN}\s+(?:of|in)|"
    rf"{_CUBE_NOUN}\s+(?:right\s+)?at\s+the\s+(?:very\s+)?bottom\s+of)\s+"
    r"the\s+(?:stack|tower|pile)\b",
    re.I,
)


def bottom_of_stack(text: str) -> str:
    """ "the cube at the very bottom of the stack", "the bottom-most block of the tower" ->
    "the lowest cube in the stack" (read by the references: covered, refused when moved;
    "the bottom cube of the tower" :func:`~miles_ros.agent.wording.plain_wording` says by
    name where one tower stands)."""
    return _BOTTOM.sub("the lowest cube in the stack", text)


_UNSTACK = re.compile(
    rf"\bunstack\s+(?P<x>the\s+\w+\s+(?:{_CUBE_NOUN}|one))\b"
    r"(?P<then>\s*,\s*(?:and\s+)?then\s+(?=\w+\s+it\b))?",
    re.I,
)


_UNSTACK_FROM = re.compile(
    rf"\bunstack\s+(?:the\s+)?(?P<x>[a-z]+)(?:\s+(?P<n>{_CUBE_NOUN}|one))?\s+(?:from|off)"
    rf"(?:\s+of)?\s+(?:(?:the\s+)?(?P<y>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?)\b"
    r"(?P<then>\s*,\s*(?:and\s+)?then\s+(?=\w+\s+it\b))?",
    re.I,
)
""""unstack X from Y": X is the cube taken off (the top one), Y the one it stands on."""
_TAKEN_OFF = re.compile(
    rf"\b(?:take|lift|get|pick|remove)\s+(?:the\s+)?(?P<x>[a-z]+)(?:\s+(?P<n>{_CUBE_NOUN}|one))?"
    rf"\s+off\s+(?:(?:the\s+)?(?P<y>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?)\b"
    r"(?P<then>\s*,\s*(?:and\s+)?then\s+(?=\w+\s+it\b))?",
    re.I,
)
""""take / lift / get / pick / remove X off Y", X and Y colours ("lift red off blue, then
put it on P"): X taken off Y, as "unstack X from Y" (a colour not a cube's, "off the left
pad", is kept)."""


def _taken_off(m: re.Match) -> str:
    x, y = m["x"].lower(), m["y"].lower()
    if x not in COLOURS or y not in COLOURS:
        return m.group(0)
    noun = m["n"] if m["n"] and m["n"].lower() != "one" else "cube"
    return f"take the {x} {noun} off the {y} cube" + (" and " if m["then"] else "")


def unstacked(text: str) -> str:
    """ "Unstack the green cube and set it on the right pad." / "Unstack the green cube, then
    set it down on ..." -> "take the green cube off the stack and set it on the right pad."
    (taking the top cube off is a lift; the step after it on "it" is that lift's placing);
    "Unstack blue from red and carry it to P" -> "take the blue cube off the red cube and
    carry it to P" (blue is the top cube, the one taken off, whatever red is)."""
    text = _TAKEN_OFF.sub(_taken_off, _UNSTACK_FROM.sub(_taken_off, text))
    return _UNSTACK.sub(
        lambda m: f"take {m['x']} off the stack" + (" and " if m["then"] else ""), text
    )


_ANYWHERE_BUT = re.compile(
    r"\s+anywhere\s+(?:but|except(?:\s+on)?|other\s+than|apart\s+from|besides)\s+"
    rf"(?:on\s+)?the\s+(?P<q>\w+)\s+{_PAD_NOUN}\s*(?:[:;,]|\s[-\u2013\u2014]+)\s*"
    rf"(?:but\s+)?the\s+(?P<p>\w+)\s+(?:one|{_PAD_NOUN})\s+(?:is\s+fine|will\s+do|works|"
    r"is\s+ok(?:ay)?|is\s+good)\b",
    re.I,
)


def anywhere_but(text: str) -> str:
    """ "Put the blue cube anywhere but the right pad; the left one is fine." -> "Put the
    blue cube on the left pad" (the place said good enough)."""
    return _ANYWHERE_BUT.sub(lambda m: f" on the {m['p']} pad", text)


_WHICH_PAD = re.compile(
    rf"^which\s+(?:(?:of\s+the\s+)?{_PAD_NOUN}s?\s+is|{_PAD_NOUN}(?:'s|\u2019s|\s+is)|"
    rf"one\s+is)\s+the\s+(?P<c>[a-z]+)(?:\s+(?:one|{_PAD_NOUN}))?\s*\?\s*"
    r"(?P<rest>[^?]+?)\s+(?:down\s+)?(?:over\s+)?there\b(?P<end>[^?]*)$",
    re.I,
)


def which_pad_there(text: str) -> str:
    """ "Which of the mats is the grey one? Set the blue cube down there." -> "Set the blue
    cube on the grey pad." (the question names the pad "there" points at)."""
    m = _WHICH_PAD.match(text.strip())
    if m is None:
        return text
    return f"{m['rest']} on the {m['c'].lower()} pad{m['end']}"


_WHICHEVER_OF = re.compile(
    rf"\bwhichever\s+(?:one\s+)?of\s+the\s+(?:{_CUBE_NOUN}s|three|two)\s+"
    r"(?:is|lies|sits|stands|'s)\s+(?P<sup>nearest|closest|farthest|furthest)\s+(?:to\s+)?you\b",
    re.I,
)


def whichever_of(text: str) -> str:
    """ "whichever one of the cubes lies nearest you" -> "the cube nearest to you" (you: the
    robot)."""
    return _WHICHEVER_OF.sub(
        lambda m: f"the cube {m['sup'].lower()} {'to' if m['sup'][0] in 'cn' else 'from'} you",
        text,
    )


_MATERIAL_VERB = {
    "glue": "glue",
    "superglue": "glue",
    "tape": "tape",
    "sellotape": "tape",
    "sticky tape": "tape",
    "duct tape": "tape",
    "nails": "nail",
    "a nail": "nail",
    "screws": "screw",
    "a screw": "screw",
    "solder": "solder",
}
"""A material a cube is fixed to a thing with, and the verb that says it (each one
:mod:`miles_ros.agent.repertoire` knows no skill does)."""
_MATERIAL = "|".join(
    sorted((re.escape(m).replace(r"\ ", r"\s+") for m in _MATERIAL_VERB), key=len, reverse=True)
)
_ATTACHED = re.compile(
    r"\b(?:stick|fix|attach|fasten|join|bond|secure|glue|tape)\s+(?P<x>the\s+\w+\s+(?:"
    + _CUBE_NOUN
    + r"|one))\s+(?P<prep>to|onto|on)\s+(?P<y>the\s+\w+(?:\s+\w+)?)\s+(?:with|using)\s+"
    rf"(?:some\s+|a\s+bit\s+of\s+|a\s+little\s+|the\s+)?(?P<m>{_MATERIAL})\b",
    re.I,
)
_LABEL_ON = re.compile(
    r"\b(?:put|stick|place|attach)\s+(?:a|some)\s+(?:label|sticker|tag)s?\s+on(?:to)?\s+"
    rf"(?P<x>the\s+\w+\s+(?:{_CUBE_NOUN}|one))\b",
    re.I,
)


def fixed_with(text: str) -> str:
    """ "Stick the green cube to the red one with tape." -> "tape the green cube to the red
    one" and "Put a label on the red cube" -> "label the red cube": the verb of what is done,
    which no skill does (refused, naming the closest skill)."""
    text = _ATTACHED.sub(
        lambda m: (
            f"{_MATERIAL_VERB[' '.join(m['m'].lower().split())]} {m['x']} {m['prep']} {m['y']}"
        ),
        text,
    )
    return _LABEL_ON.sub(lambda m: f"label {m['x']}", text)


_ASKED_ABOUT = re.compile(
    r"^(?:how\s+much|what)\s+does\s+(?P<x>the\s+\w+\s+(?:"
    + _CUBE_NOUN
    + r"|one))\s+(?:weigh|measure|cost)\s*\?\s*(?P<rest>\S.*)$",
    re.I,
)


def asked_about(text: str) -> str:
    """ "How much does the blue cube weigh? Weigh it for me." -> "Weigh the blue cube for
    me." (a question on a cube, its verb last, then the request on "it": the request, on that
    cube, read as any other)."""
    m = _ASKED_ABOUT.match(text.strip())
    if m is None:
        return text
    return re.sub(r"\bit\b", m["x"], m["rest"], count=1, flags=re.I)


def reframed(text: str) -> str:
    """``text`` with held-out 20's structures said plainly (see the module)."""
    text = left_as_is(which_pad_there(fixed_with(asked_about(text))))
    text = unstacked(bottom_of_stack(brought_to_it(kept_there(tower_by(text)))))
    return whichever_of(anywhere_but(text))
