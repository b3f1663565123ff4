"""Plain wording: a goal said in words the rest of the reading knows, before anything
else reads it.

People slip a letter, say a lift and a placing as two steps, name a tower instead of its
cubes, or state where a cube should be and then say "put it there". :func:`plain_wording`
says each of these the way the training phrases (:mod:`miles_ros.agent.phrases`) and the
scene's names say them: its one ordered list of passes is the one entry; the passes of one
job each live in a module of their own, whose docstring says what it reads:

- typos put right: :mod:`miles_ros.agent.wording_typos`;
- a place stated, then "put it there": :mod:`miles_ros.agent.wording_there`;
- a turn or an action said as a noun, verbs the phrases lack, the arm's end:
  :mod:`miles_ros.agent.wording_verbs`;
- a cube pointed out or introduced, then "it": :mod:`miles_ros.agent.wording_pointed`;
- tower words and a cube's support: :mod:`miles_ros.agent.wording_towers`.

Before these, a sentence's structure is said as an imperative clause (a topic, a fragment,
a cleft, a thing as subject, openers and asides, "B. But before that, A.":
:func:`~miles_ros.agent.clauses.plain_clauses`), and before that a condition on the scene
("if the green cube is farther from you than the red one, X; otherwise Y") is said as the
branch the cubes' positions choose (:func:`~miles_ros.agent.conditions.branch_taken`).

==========================================================  ================================
the goal says                                               the reading gets
==========================================================  ================================
"pick the red cube up, then set it down on the left pad",   "pick up the red cube and put it
"lift X up and then lower it onto Y"                        on the left pad" (one pick_place)
"the tower" / "the stack", "the top (bottom) cube", "the    the top (bottom) cube of the one
top of the tower", "take X off the tower" (one tower        tower standing, by name
standing)
"stack the green cube on itself"                            "... on the green cube"
"take the green cube off the blue one" (green on blue)      "take the green cube"
==========================================================  ================================

With no tower standing, or several, the tower words are left as they are (the reading
refuses "the top cube" with the reason).
"""

from __future__ import annotations

import re

from miles_ros.agent.apart import both_taken, taken_apart
from miles_ros.agent.clauses import plain_clauses
from miles_ros.agent.conditions import (
    branch_taken,
    compared,
    reach_asked,
    tower_in_order,
    visited_in_order,
)
from miles_ros.agent.frames_said import frames_said
from miles_ros.agent.identified import identified
from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.rendered import carried_on
from miles_ros.agent.restated import stacked_said
from miles_ros.agent.said_how import said_how
from miles_ros.agent.said_once import said_once
from miles_ros.agent.scene_colours import cube_colours, pad_colours, shades_said
from miles_ros.agent.scene_said import scene_said
from miles_ros.agent.towers import standing_towers
from miles_ros.agent.wording_pointed import introduced, pointed_out
from miles_ros.agent.wording_there import put_there, there_placed
from miles_ros.agent.wording_towers import towers_said
from miles_ros.agent.wording_typos import corrected
from miles_ros.agent.wording_verbs import (
    action_as_noun,
    arm_sent,
    hung_over,
    turn_as_noun,
    verbs_said,
)
from miles_ros.agent.world import World

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"


def plain_wording(goal: str, world: World) -> str:
    """``goal`` said plainly (see the module): typos, a lift then a placing, "put it
    there", a turn or another action said as a noun, "go over", a cube pointed out then
    "it", "itself", a cube taken off the one under it, tower words, "right above X",
    a way of moving taken back for the other, a pad said again by its own side, "on top"
    alone after a cube put on another (on the cube last put), a verb of carrying the training
    phrases lack ("ferry / shuttle / haul X": "carry X"; "swivel / pivot X": "turn X"), "but not
    before / until" ("but only after"), a cube pointed out then "it" ("Red's near you; push it
    ...": :func:`pointed_out`), "no lifting this one; just V X" (X without lifting), "never mind
    X, leave it" (X left alone), "shunt" ("shove"), "hang over / above" ("hover"), "off (the)
    top of" ("off"); first, round 53's frames (:func:`frames_said`), the gripper as the
    thing moved and a manner restated (:func:`said_how`), a move said once
    (:func:`said_once`: a manner or a restatement with the move) and a description that
    identifies (:func:`identified`)."""
    text = _LEFT_BE.sub(
        r"leave \g<np> alone",
        _this_one_first(
            pointed_out(
                identified(said_once(said_how(frames_said(goal, world), world), world), world)
            )
        ),
    )
    text = hung_over(_OFF_THE_TOP.sub("off", verbs_said(text)))
    text = _NOT_BEFORE.sub(r"\g<but> only after", text)
    text = _side_again(_WAY_SWAPPED.sub(_one_way, _RIGHT_ABOVE.sub("directly ", text)), world)
    text = _nice_and(_COLOUR_AGAIN.sub(r"\g<place>\g<mid>", shades_said(text, world)))
    text = stacked_said(corrected(text, world), standing_towers(world))
    text = branch_taken(reach_asked(text), world)
    text = tower_in_order(visited_in_order(compared(text, world), world), world)
    text = both_taken(taken_apart(scene_said(text, world), world), world)
    text = there_placed(text, cube_colours(world))
    text = plain_clauses(text, cube_colours(world), pad_colours(world))
    text = carried_on(_respectively(text))  # "it" once a topic cube is named (rendered.py)
    text = _CHOSEN_THEN_PUSHED.sub(r"\g<verb> \g<what>", text)
    text = _LIFTED_ONCE_ON.sub(
        lambda m: f"pick up {m['cube']} and put it {m['prep']} {m['where']}, then ", text
    )
    text = _ONCE_THERE.sub(lambda m: ", then ", text)
    text = _NOT_THERE.sub("", text)
    text = lift_then_place(text)
    text = turn_as_noun(put_there(text))
    text = _DIRECTION_APART.sub(r"\g<angle> \g<way>", text)
    text = arm_sent(action_as_noun(text))
    return towers_said(introduced(text), world)


_LEFT_BE = re.compile(
    rf"\b(?:never\s+mind|forget(?:\s+about)?|don'?t\s+worry\s+about)\s+(?P<np>the\s+[a-z]+\s+"
    rf"(?:{_CUBE}|one))\s*[,;:]\s*(?:just\s+)?(?:leave|let)\s+it(?:\s+(?:be|alone|there))?\b",
    re.I,
)
""""never mind / forget (about) the red cube, leave it / let it be": the cube left alone (a
prohibition, not a step taken back: "it" is the cube just named)."""
_RIGHT_ABOVE = re.compile(
    r"(?<!\bthe )(?<!\bthe far )\bright\s+"
    r"(?=(?:above|over|on\s+top\s+of)\s+(?:the|that|this|it)\b)",
    re.I,
)
""""right above / over / on top of X" is "directly above X" (an intensifier, not a side: the
right pad is "the right one", never "right above"; "the right over there" keeps its side)."""
_LIFT_WORDS = r"(?:lift|pick|grasp|grab|rais|carr)"
_PUSH_WORDS = r"(?:push|slid|shov|nudg|scoot|drag)"
_THIS_ONE_FIRST = re.compile(
    rf"^\s*(?:no|don'?t|do\s+not|never)\s+(?P<way>(?:{_LIFT_WORDS}|{_PUSH_WORDS}|pick)\w*(?:\s+up)?)"
    r"\s+(?:this|that)\s+one(?:\s+up)?\s*(?:[;:,]|\s[-\u2013\u2014]+)\s*(?:just\s+)?"
    rf"(?P<rest>\w+\s+(?:the\s+)?[a-z]+\s+(?:{_CUBE}|one)\b[^.;!?]*?)\s*(?P<end>[.!]?)$",
    re.I,
)


def _this_one_first(text: str) -> str:
    """ "No lifting this one; just shunt the green cube over to P." -> "shunt the green cube
    over to P without lifting it": "this one" is the cube the step after it names."""
    m = _THIS_ONE_FIRST.match(text)
    if m is None:
        return text
    way = "lifting" if re.match(rf"{_LIFT_WORDS}|pick", m["way"], re.I) else "pushing"
    return f"{m['rest']} without {way} it{m['end']}"


_WAY_SWAPPED = re.compile(
    r"\s*[,;]\s*(?:and\s+|but\s+|so\s+)?(?:never\s+mind|forget(?:\s+about)?|no|not|don'?t|do\s+not|"
    rf"instead\s+of|rather\s+than)\s+(?:by\s+)?(?P<no>(?:{_LIFT_WORDS}|{_PUSH_WORDS})\w*)"
    r"(?:\s+it)?(?:\s+up)?\s*(?:[,;]|\s[-\u2013\u2014])\s*(?:just\s+)?"
    rf"(?P<yes>(?:{_LIFT_WORDS}|{_PUSH_WORDS})\w*)\s+it(?:\s+up)?(?:\s+instead)?"
    r"(?=\s*(?:[.!;]|$))",
    re.I,
)
"""A clause's way of moving its cube taken back and the other way said after it ("..., and
never mind pushing, lift it", "..., don't slide it, pick it up"): one manner of that clause,
said as "without" the way ruled out (two ways of the same kind are left as said)."""


def _one_way(m: re.Match) -> str:
    lifts = bool(re.match(_LIFT_WORDS, m["no"], re.I))
    if lifts == bool(re.match(_LIFT_WORDS, m["yes"], re.I)):
        return m.group(0)
    word = m["no"].lower()
    if not word.endswith("ing"):
        word = {"pick": "picking", "lift": "lifting", "push": "pushing", "slide": "sliding"}.get(
            word, word
        )
    return f" without {word} it{' up' if word.startswith('pick') else ''}"


_CHOSEN_THEN_PUSHED = re.compile(
    r"\b(?:take|find|pick out|choose|select|spot)\s+(?P<what>the\s+[^,;.]+?)\s+and\s+(?:then\s+)?"
    r"(?P<verb>push|slide|shove|nudge)\s+it\b",
    re.I,
)
"""A cube chosen, then pushed ("take the cube nearest the right pad and push it onto the
pad"): the choosing verb is no grasp; the step is the push."""
_ONCE_THERE = re.compile(
    r"\s*(?P<sep>[,;]?)\s*(?:and\s*,?\s*)?(?:once|when|after|as soon as|the moment)\s+"
    r"(?:it'?s|it is|it has been put|it gets|it has got(?:ten)?|they'?re|they are)\s+"
    r"(?:there|in place|down)\b\s*,?\s*",
    re.I,
)
"""A step said to follow the cube's arrival ("..., and once it's there, push it ..."):
"then", the place "there" points at being the one just named."""
_LIFTED_ONCE_ON = re.compile(
    rf"\b(?:lift|pick up|grab|raise|pick)\s+(?P<cube>the\s+\w+\s+{_CUBE})(?:\s+up)?\s*[,;]?\s*"
    r"(?:and\s*,?\s*)?(?:once|when|after|as soon as|the moment)\s+(?:it'?s|it is|it gets|"
    r"it has been (?:put|placed|set)|it'?s been (?:put|placed|set))\s+"
    r"(?P<prep>on top of|onto|on)\s+(?P<where>the\s+[a-z ]+?)\s*,\s*(?:then\s+)?",
    re.I,
)
"""A lift, then the next step said to follow the cube's arrival on a place ("lift the blue
cube, and once it's on the grey pad, go home"): the lift is a placing there ("pick up the
blue cube and put it on the grey pad, then go home")."""
_NOT_THERE = re.compile(
    r"(?:,\s*(?:and |but )?|\s+(?:and|but)\s+|\s+)(?:not|rather than|instead of)\s+"
    r"(?:on|onto|on top of|to|into|over|above|next to)\s+(?:the\s+)?[a-z_]+"
    rf"(?:\s+(?:{_CUBE}|one|{'|'.join(PAD_NOUNS)}))?\b",
    re.I,
)
"""A place set aside after the one meant ("stack the blue cube on the red cube, not on the
green one", "onto the yellow pad rather than onto the grey one"): no step goes there, so
it is dropped."""
_PLACE_NOUN = rf"(?:{_CUBE}|{'|'.join(PAD_NOUNS)})"
_RESPECTIVELY = re.compile(
    rf"\b(?:the )?(?P<a>[a-z]+)(?: {_CUBE}| one)? and (?:the )?(?P<b>[a-z]+) (?P<n>{_CUBE})s?"
    r"(?P<prep>(?: over)? (?:to|on|onto|into|on top of|over)) "
    rf"(?:the )?(?P<p>[a-z]+)(?: {_PLACE_NOUN})? and (?:the )?(?P<q>[a-z]+) (?P<m>{_PLACE_NOUN})s?"
    r",? respectively\b",
    re.I,
)
"""Cubes and places paired in order ("move the green and blue cubes to the right and left
pads respectively")."""


def _respectively(text: str) -> str:
    """ "the A and B cubes to the P and Q pads respectively" -> "the A cube to the P pad and
    the B cube to the Q pad"."""
    return _RESPECTIVELY.sub(
        lambda m: (
            f"the {m['a']} {m['n']}{m['prep']} the {m['p']} {m['m']} and the {m['b']} "
            f"{m['n']}{m['prep']} the {m['q']} {m['m']}"
        ),
        text,
    )


_DIRECTION_APART = re.compile(
    r"(?P<angle>\d+(?:\.\d+)?\s*(?:°|deg(?:rees?)?\b))\s*,\s*"
    r"(?P<way>(?:counter|anti)[ -]?clockwise|clockwise)\b",
    re.I,
)
"""A direction set off by commas after its angle ("by 30 degrees, clockwise, then ..."):
it belongs to that angle, not to a clause of its own."""


_LIFT_THEN_PLACE = re.compile(
    rf"\b(?:pick|lift|grab|raise|take|grasp)\s+(?:up\s+)?(?P<cube>the\s+(?P<colour>\w+)\s+{_CUBE})"
    r"(?:\s+up)?\s*,?\s*(?:and\s+)?(?:then\s+)?(?:set|put|place|lower|drop|lay|move|stack|rest)\s+"
    rf"(?:it|(?:that|this|the same)\s+(?:{_CUBE}|one)|the\s+(?P=colour)\s+{_CUBE})"
    r"(?:\s+down)?\s+(?P<prep>on top of|onto|on|to|at|in|into)\b",
    re.I,
)


def lift_then_place(text: str) -> str:
    """ "pick the red cube up, then set it down on the left pad" -> "pick up the red cube
    and put it on the left pad": one pick_place, as the training phrases say it; the cube
    said again by its colour ("lift the red cube, then set the red block down on ...", as
    "X after picking it up" is said in order) is "it"."""
    return _LIFT_THEN_PLACE.sub(
        lambda m: f"pick up {m.group('cube')} and put it {m.group('prep')}", text
    )


_COLOUR_AGAIN = re.compile(
    rf"(?P<place>\bthe\s+(?P<c>[a-z]+)\s+(?:{'|'.join(PAD_NOUNS)}|{_CUBE}))"
    r"(?P<mid>(?:\s+(?!(?:the|and|then|after|before|but|or)\b)[a-z']+){0,4}?)"
    r"\s*(?:[,;:]|\s[-\u2013\u2014]+)"
    rf"\s*(?:i\s+mean\s+)?the\s+(?P=c)(?:\s+(?:one|{'|'.join(PAD_NOUNS)}|{_CUBE}))?\s*,?\s+"
    rf"(?:not|and\s+not|rather\s+than|instead\s+of)\s+the\s+[a-z]+"
    rf"(?:\s+(?:one|{'|'.join(PAD_NOUNS)}|{_CUBE}))?(?=\s*(?:$|[.!?]))",
    re.I,
)
"""A thing said by its colour, then that colour said again against another ("onto the yellow
pad - the yellow, not the grey"; "on the grey mat; the grey one, not the yellow one"): the thing
said once (a different colour after it is a correction, left to the corrections' rules). A
few words of the same clause may stand between the thing and its colour said again ("to the
grey pad by pushing - the grey one, not the yellow"): none of them "the", "and", "then", "but"
or "or", so the colour said again is never another clause's thing's."""


_SIDE_AGAIN = re.compile(
    rf"(?P<place>\bthe\s+(?P<c>[a-z]+)\s+(?:{'|'.join(PAD_NOUNS)}))\s*(?:,|\s[-\u2013\u2014]+)\s*"
    r"(?:i\s+mean\s+)?(?:the\s+one|that\s+one|the\s+pad|the\s+mat|which\s+is|that'?s|it'?s)\s+"
    r"(?:(?:on|to|at)\s+(?:the\s+|your\s+|my\s+)?)?(?P<side>left|right)(?:\s+(?:side|one|hand\s+side))?"
    r"(?=\s*(?:$|[.!?;]))",
    re.I,
)
"""A pad said by its colour or side, then by its side again (", the one on the right"): the
pad said once where the side is the pad's own (another side is left to the corrections)."""


def _side_again(text: str, world: World) -> str:
    sides = {side: colour for side, colour in pad_colours(world)}

    def once(m: re.Match) -> str:
        side, said = m["side"].lower(), m["c"].lower().replace("gray", "grey")
        return m["place"] if said in (side, sides.get(side)) else m.group(0)

    return _SIDE_AGAIN.sub(once, text)


_NICE_AND = re.compile(
    r"(?:\s*,\s*|\s+)(?:nice|good|real)\s+and\s+(?:square|neat|neatly|tidy|"
    r"tidily|straight|gentle|gently|easy|slow|slowly|careful|carefully|flat|level|even|"
    r"cent(?:red|ered))(?=\s*(?:$|[.!?]))",
    re.I,
)
"""How neatly a placing is done, said at its end ("put X on Y, nice and square"): no step of
its own (not a turn), dropped where the sentence places or pushes a cube."""
_PLACES = re.compile(
    r"\b(?:put|place|set|stack|lift|move|push|slide|drop|lay|pile|carry|bring|nudge|shove)\b", re.I
)


def _nice_and(text: str) -> str:
    """ "Place the red cube on top of the green cube, nice and square." -> "Place the red cube
    on top of the green cube." (a placing's manner); a sentence with no placing kept."""
    return _NICE_AND.sub("", text) if _PLACES.search(text) else text


_NOT_BEFORE = re.compile(r"(?P<but>\bbut)\s+not\s+(?:before|until|till)\b", re.I)
"""A step kept back until another is done ("Go home, but not before putting X on P", "...
but not until X is on P"): "but only after", the order the ordering rules read."""
_OFF_THE_TOP = re.compile(r"\boff\s+(?:the\s+)?top\s+of\b", re.I)
"""A cube taken "off (the) top of" another ("lift red off the top of blue"): "off" it, as a
cube taken off the one under it is read."""
