"""Held-out 28's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`reheard` after the colour reading,
before :func:`~miles_ros.agent.reread.reread`):

- another cube kept still in a sentence of its own, then the step "instead" ("I don't want
  the blue cube moved. Put the green cube on P instead.", "I'd rather the red block didn't
  move. ..."): "don't move the blue cube; put the green cube on P", the prohibition the
  reading keeps (:func:`kept_still_instead`);
- a prohibition after the request taken up with "and no," ("Put X on P, and no, don't lift
  it."): "put X on P, but don't lift it" (:func:`and_no`);
- a step said, then corrected so another comes first ("Put B on Q. No wait, do A onto P
  first, then the B one."): "put A onto P, then put B on Q" (:func:`other_first`);
- a pad as where a cube ends up ("The right pad is where the red cube should end up.", "...
  is where X belongs"): "put X on the right pad" (:func:`pad_is_where`);
- another cube ruled out in front, then "the A one goes on P" ("Not the blue cube, the red
  one goes on P."): "put the red one on P" (:func:`not_that_one_goes`);
- "whichever cube isn't X or Y / is neither X nor Y": "the cube that isn't X or Y", as the
  reading resolves it (:func:`whichever_not`);
- "the one that's alone / by itself / on its own": "the cube on its own"
  (:func:`alone`);
- "put X on top to make a three-high tower / so the stack is three high": "put X on top of
  the stack" (:func:`three_high`);
- a hover over a cube after a cube is stacked on another ("Move X onto Y, then hover over the
  green cube"): "..., then reach the green cube" (:func:`then_hover`);
- the cube another rests on ("the cube the blue one is resting on", "the cube at the base of
  that stack"): "the cube under the blue one", "the bottom cube of the stack", so a covered
  cube moved is refused, not asked about (:func:`under`).

Grammar, not goals: each pattern is a frame (a volitional negation with a participle, then a
contrastive adverb; a discourse "no" before a negated imperative; a self-repair with "first
... then the B one"; a pseudo-cleft with a locative head; a contrastive fragment before a
subject; a free relative with a negated copula; a predicative "alone"; a purpose clause after "on
top"; a sequenced hover; a relative clause of support) around noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN, cube_noun, verb_of
from miles_ros.agent.reread import _CUBE_NP, _DASH, _STACK

_KEPT = re.compile(
    rf"^(?:i\s+(?:don'?t|do\s+not)\s+want|i'?d\s+(?:rather|prefer))\s+(?:(?:anybody|anyone|you)\s+"
    rf"(?:touching|moving|to\s+(?:touch|move))\s+)?(?P<np>{_CUBE_NP})(?:\s+(?:to\s+be\s+)?(?:moved|"
    r"touched|to\s+move|didn'?t\s+move|did\s+not\s+move|wasn'?t\s+moved|stayed\s+put|left\s+alone"
    r"|(?:to\s+)?stay\s+(?:put|still|where\s+it\s+is)))?\s*(?:[.;!]|\s" + _DASH + r")\s*"
    r"(?P<rest>.+?)\s*,?\s+instead[.!]?$",
    re.I,
)


def kept_still_instead(text: str) -> str:
    """ "I don't want the blue cube moved. Put the green cube on P instead." -> "Don't move
    the blue cube; put the green cube on P." (the request a verb opens)."""
    m = _KEPT.match(text.strip())
    if m is None or not verb_of(m["rest"].split()[0]):
        return text
    return f"Don't move {m['np'].lower()}; {m['rest'][0].lower()}{m['rest'][1:]}."


_AND_NO = re.compile(
    rf"(?:,|\s+{_DASH})?\s+and\s+no\s*,\s*(?:(?P<neg>don'?t|do\s+not|never)\s+|no\s+(?P<ing>\w+ing)\s+)",
    re.I,
)


def and_no(text: str) -> str:
    """ "X, and no, don't lift it" / "..., and no, no lifting it" -> "X, but don't lift it"."""

    def but(m: re.Match) -> str:
        if m["neg"]:
            return ", but don't "
        verb = verb_of(m["ing"])
        return f", but don't {verb} " if verb else m[0]

    return _AND_NO.sub(but, text)


_FIRST = re.compile(
    r"^(?P<first>[^.;]+?)\s*[.;]\s*(?:(?:no|oh|actually|wait|hold\s+on|hang\s+on)[\s,]*)+"
    rf"(?:{_DASH}\s*)?(?:do\s+|put\s+|move\s+|place\s+|set\s+)?(?P<np>{_CUBE_NP})\s+"
    r"(?P<to>onto|on\s+to|on\s+top\s+of|on|to)\s+(?P<place>the\s+[a-z]+\s+\w+)\s+first,?\s+"
    rf"(?:and\s+)?then\s+(?P<b>the\s+[a-z]+\s+(?:{_CUBE_NOUN}|one))[.!]?$",
    re.I,
)


def other_first(text: str) -> str:
    """ "Put B on Q. No wait, do A onto P first, then the B one." -> "Put A onto P, then put
    B on Q." (the step said first names the B cube; its verb opens it)."""
    m = _FIRST.match(text.strip())
    if m is None or not verb_of(m["first"].split()[0]):
        return text
    colour = m["b"].split()[1].lower()
    if not re.search(rf"\bthe\s+{colour}\s+(?:{_CUBE_NOUN}|one)\b", m["first"], re.I):
        return text
    first = m["first"][0].lower() + m["first"][1:]
    return f"Put {m['np'].lower()} {m['to']} {m['place']}, then {first}."


_WHERE = re.compile(
    rf"^(?P<pad>the\s+(?:[a-z-]+\s+)?{_PAD_NOUN}(?:\s+(?:that'?s|that\s+is|which\s+is)\s+[a-z]+)?)"
    r"\s+is\s+where\s+(?:i\s+(?:want|need|'?d\s+like)\s+)?"
    rf"(?P<np>{_CUBE_NP})\s+(?:should|must|needs\s+to|has\s+to|is\s+to|ought\s+to|to)?\s*(?:end\s+up"
    r"|go|goes|belongs|lands?|sits?|stays?)[.!]?$",
    re.I,
)


def pad_is_where(text: str) -> str:
    """ "The right pad is where the red cube should end up / belongs." -> "put the red cube on
    the right pad"."""
    m = _WHERE.match(text.strip())
    return f"put {m['np'].lower()} on {m['pad'].lower()}" if m else text


_NOT_THAT = re.compile(
    rf"^(?:no\s*,?\s+)?not\s+(?:the\s+)?(?P<b>[a-z]+)(?:\s+(?:{_CUBE_NOUN}|one))?\s*(?:[,;:]|\s"
    rf"{_DASH})\s*(?:it'?s\s+)?(?P<np>{_CUBE_NP})\s+(?:that\s+)?(?:goes|should\s+go|needs\s+to\s+go)"
    r"\s+(?P<r>(?:on\s+top\s+of|onto|on|to)\s+.+)$",
    re.I,
)


def not_that_one_goes(text: str, cube_colours: frozenset[str]) -> str:
    """ "Not the blue cube, the red one goes on P." -> "put the red one on P" (the cube ruled
    out said by a colour of the scene's cubes)."""
    m = _NOT_THAT.match(text.strip())
    if m is None or m["b"].lower() not in cube_colours:
        return text
    return f"put {m['np'].lower()} {m['r']}"


_WHICHEVER = re.compile(
    rf"\bwhichever\s+(?P<n>{_CUBE_NOUN}|one)\s+(?:isn'?t|is\s+not|is\s+neither)\s+(?:the\s+)?"
    r"(?P<x>[a-z]+)\s+(?:or|nor)\s+(?:the\s+)?(?P<y>[a-z]+)\b",
    re.I,
)


def whichever_not(text: str, cube_colours: frozenset[str]) -> str:
    """ "whichever cube isn't red or blue" -> "the cube that isn't red or blue" (both colours
    the scene's cubes')."""

    def said(m: re.Match) -> str:
        if {m["x"].lower(), m["y"].lower()} - cube_colours:
            return m[0]
        return f"the cube that isn't {m['x'].lower()} or {m['y'].lower()}"

    return _WHICHEVER.sub(said, text)


_ALONE = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE_NOUN}|one)\s+(?:(?:that'?s|that\s+is|which\s+is|standing|sitting|"
    r"left)\s+)?(?:all\s+)?(?:alone|by\s+itself|on\s+its\s+own)\b",
    re.I,
)


def alone(text: str) -> str:
    """ "the one that's alone / by itself / standing alone" -> "the cube on its own"."""
    return _ALONE.sub(lambda m: f"the {cube_noun(m['n'].lower())} on its own", text)


_THREE_HIGH = re.compile(
    r"\bon\s+top\s+(?:(?:so\s+as\s+|in\s+order\s+)?to\s+(?:make|build|form|create|finish|"
    r"complete|get)|so\s+(?:that\s+)?(?:the|it|we|you)\b)[^.;!]*?\b(?:three|3)[- ](?:(?:blocks?|"
    r"cubes?|levels?|tiers?|stor(?:e)?ys?|stories)(?:[- ](?:high|tall))?|high|tall)\b"
    r"(?:\s+(?:tower|stack|pile))?",
    re.I,
)


def three_high(text: str) -> str:
    """ "Put X on top to make a three-high tower / so the stack is three high" -> "put X on top
    of the stack" (the tower of two in the scene, as the reading resolves it)."""
    return _THREE_HIGH.sub("on top of the stack", text)


_THEN_HOVER = re.compile(
    rf"(?P<stack>\b{_CUBE_NP}\s+(?:onto|on\s+to|on\s+top\s+of|on)\s+{_CUBE_NP}\s*)"
    r"(?P<then>[,;]?\s*(?:and\s+)?(?:then|after\s+that|afterwards),?\s+)hover\s+(?:over|above)\s+"
    rf"(?P<np>{_CUBE_NP})\b",
    re.I,
)


def then_hover(text: str) -> str:
    """ "Stack A on B, then hover over / above the green cube" -> "..., then reach the green
    cube" (a hover over a cube after a cube is placed on another)."""
    return _THEN_HOVER.sub(lambda m: f"{m['stack']}{m['then']}reach {m['np']}", text)


_UNDER = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE_NOUN}|one)\s+(?:(?:that|which)\s+)?(?P<np>{_CUBE_NP})\s+(?:is\s+|'s\s+)?"
    r"(?:resting|sitting|standing|stacked|placed|lying|perched|sits|rests|stands)\s+on"
    rf"(?:\s+top\s+of)?(?=\s*[,;:.!?]|\s+{_DASH}|\s+(?:to|onto|on|over|into)\b|$)",
    re.I,
)
_BASE = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE_NOUN}|one)\s+(?:at|forming|that\s+forms|making\s+up)\s+the\s+"
    rf"(?:base|bottom|foot)\s+of\s+(?:that|the|this)\s+{_STACK}\b",
    re.I,
)


_TOPIC = re.compile(
    rf"^(?P<np>the\s+(?:{_CUBE_NOUN}|one)\s+under\s+{_CUBE_NP})\s*(?:[,:;]|\s{_DASH})\s*"
    r"(?P<verb>\w+)\s+(?:that|it|this)(?:\s+one)?\b(?P<rest>.*)$",
    re.I,
)


def under(text: str) -> str:
    """ "the cube (that) the blue one is resting on" -> "the cube under the blue one"; "the
    cube at the base of that stack" -> "the bottom cube of the stack" (the covered cube, as
    the reading resolves and refuses it)."""
    text = _UNDER.sub(lambda m: f"the {m['n']} under {m['np']}", text)
    text = _BASE.sub(lambda m: f"the bottom {m['n']} of the stack", text)
    m = _TOPIC.match(text.strip())  # "the cube under X, move that to P"
    return f"{m['verb']} {m['np']}{m['rest']}" if m and verb_of(m["verb"]) else text


def reheard(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with held-out 28's structures said plainly (see the module); ``cube_colours``:
    the colours the scene's cubes are named by."""
    text = other_first(and_no(kept_still_instead(text)))
    text = not_that_one_goes(pad_is_where(text), cube_colours)
    return under(then_hover(three_high(alone(whichever_not(text, cube_colours)))))
