"""Plain wording: a goal said in words the rest of the reading knows, before anything
else reads it.

People slip a letter, say a lift and a placing as two steps, name a tower instead of its
cubes, or state where a cube should be and then say "put it there". :func:`plain_wording`
says each of these the way the training phrases (:mod:`miles_ros.agent.phrases`) and the
scene's names say them:

Before these, a sentence's structure is said as an imperative clause (a topic, a fragment,
a cleft, a thing as subject, openers and asides, "B. But before that, A.":
:func:`~miles_ros.agent.clauses.plain_clauses`), and before that a condition on the scene
("if the green cube is farther from you than the red one, X; otherwise Y") is said as the
branch the cubes' positions choose (:func:`~miles_ros.agent.conditions.branch_taken`).

==========================================================  ================================
the goal says                                               the reading gets
==========================================================  ================================
"the gren cube", "the rigth pad", "the red cueb"            "the green cube", "the right
(one letter added, dropped, changed or two swapped, in a    pad", "the red cube"
colour, side or noun slot; words of four letters or more)
"pick the red cube up, then set it down on the left pad",   "pick up the red cube and put it
"lift X up and then lower it onto Y"                        on the left pad" (one pick_place)
"the green cube should go to the left pad. Push it there."  "push the green cube to the left
                                                            pad."
"green onto the grey pad, slide it there"                   "slide the green cube onto the
                                                            grey pad"
"give the blue cube a 25 degree twist"                      "turn the blue cube by 25
                                                            degrees"
"the tower" / "the stack", "the top (bottom) cube", "the    the top (bottom) cube of the one
top of the tower", "take X off the tower" (one tower        tower standing, by name
standing)
"give the green cube a good shake"                          "shake the green cube"
"go over the yellow pad", "visit the left pad"             "hover over the yellow pad"
"move the tool to x 0.45, ...", "your hand above the pad"   "the gripper" (the arm's end)
"There's a blue cube near the left pad. Put it on the       "Put the blue cube on the right
right pad."                                                 pad."
"stack the green cube on itself"                            "... on the green cube"
"take the green cube off the blue one" (green on blue)      "take the green cube"
==========================================================  ================================

A typo is corrected only where one scene word is one slip away and the word is no colour
or thing of the vocabulary (:mod:`miles_ros.agent.vocabulary`): "the purple cube" stays
unknown and is refused. With no tower standing, or several, the tower words are left as
they are (the reading refuses "the top cube" with the reason).

About 600 lines (round 47 added about 90: a cube pointed out, "this one" before its cube,
"never mind X, leave it", "shunt", a place said by a cube's colour before "there"):
:func:`plain_wording`'s one ordered list of passes and the typo corrector
they share (the tower and support rules are :mod:`miles_ros.agent.wording_towers`'s); the
passes read and rewrite one text in an order that matters, so they stay in one place.
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
from miles_ros.agent.cube_words import CubeWords
from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.reference_scene import SYNONYMS, place_colours
from miles_ros.agent.rendered import carried_on
from miles_ros.agent.restated import stacked_said
from miles_ros.agent.scene_colours import cube_colours, pad_colours, shades_said
from miles_ros.agent.scene_said import scene_said
from miles_ros.agent.towers import standing_towers
from miles_ros.agent.vocabulary import COLOURS, POSITIONS, THINGS
from miles_ros.agent.wording_towers import towers_said
from miles_ros.agent.world import World

MIN_TYPO_LETTERS = 4
"""Shorter words are not corrected: too many words are one slip from "red" or "pad"."""

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
    top of" ("off")."""
    text = _LEFT_BE.sub(r"leave \g<np> alone", _this_one_first(pointed_out(goal)))
    text = _CARRIED.sub("carry", _SHUNTED.sub("shove", _SWIVELLED.sub("turn", text)))
    text = _HUNG_OVER.sub("hover ", _OFF_THE_TOP.sub("off", text))
    text = _NOT_BEFORE.sub(r"\g<but> only after", text)
    text = _side_again(_WAY_SWAPPED.sub(_one_way, _RIGHT_ABOVE.sub("directly ", text)), world)
    text = _nice_and(_COLOUR_AGAIN.sub(r"\g<place>\g<mid>", shades_said(text, world)))
    text = stacked_said(corrected(text, world), standing_towers(world))
    text = branch_taken(reach_asked(text), world)
    text = tower_in_order(visited_in_order(compared(text, world), world), world)
    text = both_taken(taken_apart(scene_said(text, world), world), world)
    text = _THERE.sub(r"\g<np>", _placed_first(text, cube_colours(world)))
    text = plain_clauses(text, cube_colours(world), pad_colours(world))
    text = carried_on(_respectively(text))  # "it" once a topic cube is named (rendered.py)
    text = _CHOSEN_THEN_PUSHED.sub(r"\g<verb> \g<what>", text)
    text = _LIFTED_ONCE_ON.sub(
        lambda m: f"pick up {m['cube']} and put it {m['prep']} {m['where']}, then ", text
    )
    text = _ONCE_THERE.sub(lambda m: ", then ", text)
    text = _NOT_THERE.sub("", text)
    text = lift_then_place(text)
    text = _put_there(text)
    text = _turn_as_noun(text)
    text = _DIRECTION_APART.sub(r"\g<angle> \g<way>", text)
    text = _action_as_noun(text)
    text = _GO_OVER.sub("hover over ", _SWUNG.sub("move ", text))
    text = _ARM_END.sub("the gripper", text)
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


def corrected(goal: str, world: World) -> str:
    """``goal`` with each word one slip away from a scene word in that slot put right: a
    word before a cube noun against the cubes' colours, before a pad noun against the pads'
    sides and colours, after one of those against the nouns."""
    cube_words, pad_words = _modifiers(world)
    cube_nouns = set(CUBE_NOUNS) | {n + "s" for n in CUBE_NOUNS}
    pad_nouns = set(PAD_NOUNS) | {n + "s" for n in PAD_NOUNS}
    known = cube_words | pad_words | cube_nouns | pad_nouns | COLOURS | THINGS | POSITIONS
    tokens = re.split(r"([A-Za-z]+)", goal)
    lower = [w.lower() for w in tokens[1::2]]
    for i, word in enumerate(lower):
        if len(word) < MIN_TYPO_LETTERS or word in known:
            continue
        after = lower[i + 1] if i + 1 < len(lower) else ""
        before = lower[i - 1] if i else ""
        if after in cube_nouns or _fix(after, cube_nouns):
            pool = cube_words
        elif after in pad_nouns or _fix(after, pad_nouns):
            pool = pad_words
        elif before in cube_words:
            pool = cube_nouns
        elif before in pad_words:
            pool = pad_nouns
        else:
            continue
        fixed = _fix(word, pool)
        if fixed:
            tokens[2 * i + 1] = fixed
            lower[i] = fixed
    return "".join(tokens)


def _modifiers(world: World) -> tuple[set[str], set[str]]:
    """The words that say which cube (the cubes' colours and their synonyms) and which pad
    (the pads' sides and colours)."""
    cubes = set(CubeWords(world).word) - set(world.objects)  # words, not the names
    pads = {name.split("_")[0] for name in world.places}
    colours = set(place_colours(world).values())
    pads |= colours | {alias for alias, colour in SYNONYMS.items() if colour in colours}
    return cubes, pads


def _fix(word: str, pool: set[str]) -> str | None:
    """The one word of ``pool`` one slip from ``word`` (None: none, or several)."""
    if word in pool or len(word) < MIN_TYPO_LETTERS:
        return None
    near = [w for w in pool if one_slip(word, w)]
    return near[0] if len(near) == 1 else None


def one_slip(a: str, b: str) -> bool:
    """One letter added, dropped or changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


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


_STATED = re.compile(
    rf"^(?:(?P<cube>the\s+\w+\s+{_CUBE})\s+(?:should|must|needs to|has to|is to|ought to)\s+"
    r"(?:go|be|end up|sit|be moved|be put|be placed|be pushed)\s+"
    r"(?P<where>(?:on top of|onto|on|to|at|in|into)\s+the\s+[\w ]+?)\s*[.;,]"
    rf"|(?:can|could|would|will)\s+(?P<asked>the\s+\w+\s+{_CUBE})\s+(?:go|sit|be\s+put|be\s+"
    r"placed|be\s+stacked|rest|stand|fit)\s+(?P<on>(?:on\s+top\s+of|onto|on|atop)\s+the\s+"
    rf"\w+\s+(?:{_CUBE}|one))\s*\?)\s*(?P<rest>.+)$",
    re.I,
)
"""Where a cube goes, said first (a statement with "should / must", or a question "can /
could X go on top of Y?"), then what to do ("push it there", "lift it up there")."""


_THERE = re.compile(
    r"(?<!closest\s)(?<!nearest\s)(?<!farthest\s)(?<!furthest\s)(?<!close\s)(?<!near\s)"
    r"\b(?P<np>(?:over|above|on|onto|on\s+top\s+of|atop|beside)\s+"
    rf"the\s+[a-z]+\s+(?:{_CUBE}|{'|'.join(PAD_NOUNS)}|one))\s+(?:(?:over|back|right|up|down|out)\s+)?"
    r"there\b(?=\s*(?:$|[.!?,;]|(?:and|then|please|for\s+me|too)\b))",
    re.I,
)
"""A thing after a preposition of place, then "there" ("hover over the red cube back there",
"stack it on the green cube there"): "there" points at the thing just named, no other place.
Not after a relation that picks a cube ("put the cube closest to the grey pad there": "there"
is where it goes) nor after "to" (a destination that may be the relation's)."""
_PLACED_FIRST = re.compile(
    rf"^(?P<cube>(?:the\s+)?(?P<colour>[a-z]+)(?:\s+(?P<noun>{_CUBE}|one))?)\s*"
    r"(?:(?P<prep>onto|on\s+to|on|to|over\s+to|across\s+to|into)\s+"
    rf"(?P<place>the\s+[a-z]+\s+(?:{'|'.join(PAD_NOUNS)}|{_CUBE}|one)|(?P<bare>[a-z]+))|,\s*"
    rf"(?P<pad>(?:the\s+)?[a-z]+\s+(?:{'|'.join(PAD_NOUNS)})))\s*"
    r"(?:,?\s*(?:please|thanks|if\s+you\s+would|if\s+you\s+could|if\s+you\s+can)\s*)?"
    r"(?:[,;:.]|[-\u2013\u2014]+)\s*(?P<rest>.*\bit\s+(?:(?:over|up|down)\s+)?there\b.*)$",
    re.I,
)
"""A cube and its place said first, then the verb on "it there" ("green onto the grey pad,
slide it there"; "red cube, grey pad. lift it there": a cube, then a pad, named alone)."""


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


def _placed_first(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """ "green onto the grey pad, slide it there" -> "slide the green cube onto the grey pad":
    the fragment says what goes where, the clause after it how; the place may be a cube's
    colour alone ("green on red, please: lift it up and set it there": "lift the green cube
    up and set it on the red cube", the first "it" the cube, "there" the place)."""
    match = _PLACED_FIRST.match(text.strip())
    if match is None or match["colour"].lower() not in COLOURS:
        return text
    if match["bare"] and match["bare"].lower() not in cube_colours:
        return text
    said = (match["prep"] or "onto").lower()
    prep = re.sub(r"\s+", "", said) if "on" in said else "to"
    cube = f"the {match['colour'].lower()} {match['noun'] or 'cube'}"
    place = (
        f"the {match['bare'].lower()} cube"
        if match["bare"]
        else match["place"] or re.sub(r"^(?:the\s+)?", "the ", match["pad"], flags=re.I)
    )
    return _there_named(match["rest"], cube, f"{prep} {place}")


_IT_THERE = re.compile(r"\bit\s+(?:(?:over|up|down)\s+)?there\b", re.I)


def _there_named(rest: str, cube: str, where: str) -> str:
    """``rest`` with "it there" said as ``cube`` ``where``; where an "it" comes before it
    ("lift it up and set it there": two steps on one cube), that "it" is ``cube`` and "it
    there" is "it" ``where``."""
    there = _IT_THERE.search(rest)
    first = re.search(r"\bit\b", rest, re.I)
    if first.start() < there.start():
        rest = f"{rest[: there.start()]}it {where}{rest[there.end() :]}"
        return f"{rest[: first.start()]}{cube}{rest[first.end() :]}"
    return f"{rest[: there.start()]}{cube} {where}{rest[there.end() :]}"


def _put_there(text: str) -> str:
    """ "The green cube should go to the left pad. Push it there." -> "Push the green cube
    to the left pad.": the first sentence says where, the second what to do (said as a
    fragment: :func:`_placed_first`, before the clauses are read)."""
    match = _STATED.match(text.strip())
    if match is not None and match["asked"] and _IT_THERE.search(match["rest"]):
        # "can the red cube go on top of the green one? lift it up there"
        cube, where = "the" + match["asked"][3:], re.sub(r"\s+", " ", match["on"])
        return _there_named(match["rest"], cube, where)
    if match is None or not re.search(r"\bit (?:over )?there\b", match.group("rest"), re.I):
        return text
    where = re.sub(r"^(?:onto|on top of|on|at|in|into)\b", "to", match.group("where"))
    cube = "the" + match.group("cube")[3:]
    return re.sub(
        r"\bit (?:over )?there\b",
        f"{cube} {where}",
        match.group("rest"),
        count=1,
        flags=re.I,
    )


_TURN_NOUN = re.compile(
    r"\bgive\s+(?P<cube>.+?)\s+an?\s+(?P<angle>[\w.]+)[ -]?(?:degrees?|deg|°)\s+"
    r"(?P<way>(?:counter[ -]?|anti[ -]?)?clockwise\s+)?(?:turn|twist|spin|rotation)\b",
    re.I,
)


def _turn_as_noun(text: str) -> str:
    """ "give the blue cube a 25 degree twist" -> "turn the blue cube by 25 degrees"."""

    def said(m: re.Match) -> str:
        way = f" {m.group('way').strip()}" if m.group("way") else ""
        return f"turn {m.group('cube')} by {m.group('angle')} degrees{way}"

    return _TURN_NOUN.sub(said, text)


_ACTION_NOUN = re.compile(
    rf"\bgive\s+(?P<cube>the\s+\w+\s+{_CUBE}|it)\s+an?\s+(?:(?:good|quick|little|gentle|small|"
    r"light|firm|hard|big|proper|short|slight)\s+)*(?!(?:quarter|half|full|complete|third)\b)"
    r"(?P<noun>[a-z]+)\b(?![ -](?:turn|twist|spin|rotation|degrees?|deg)\b)",
    re.I,
)


def _action_as_noun(text: str) -> str:
    """ "give the green cube a good shake" -> "shake the green cube": the action said as
    its verb, which the repertoire check then reads (a push is planned, a shake refused)."""
    return _ACTION_NOUN.sub(lambda m: f"{m.group('noun')} {m.group('cube')}", text)


_NOT_BEFORE = re.compile(r"(?P<but>\bbut)\s+not\s+(?:before|until|till)\b", re.I)
"""A step kept back until another is done ("Go home, but not before putting X on P", "...
but not until X is on P"): "but only after", the order the ordering rules read."""
_SHUNTED = re.compile(
    r"\bshunt(?=\s+(?:the|this|that|it|them|[a-z]+\s+(?:along|over|across|to|onto)"
    r"|[a-z]+\s*$)\b)",
    re.I,
)
""""shunt X" is "shove X" (a push verb the training phrases lack; the imperative only)."""
_CARRIED = re.compile(
    r"\b(?:ferry|shuttle|cart|haul|lug|tote|transport|convey)(?=\s+(?:the|this|that|your|it|them)"
    r"\b)",
    re.I,
)
"""A cube carried by a verb the training phrases lack ("Ferry the red cube across and set it
on P", "haul the blue box over"): "carry", as the phrases say it (the imperative only)."""
_SWIVELLED = re.compile(r"\b(?:swivel|pivot)(?=\s+(?:the|this|that|it)\b)", re.I)
"""A cube turned by a verb the training phrases lack ("Swivel the green block so a face
points at the robot", "pivot the red box 30 degrees"): "turn" (the imperative only; the
repertoire lists neither as a verb no skill does)."""
_HUNG_OVER = re.compile(r"\bhang\s+(?=(?:over|above)\s+(?:the|it|this|that)\b)", re.I)
"""The arm hung over a thing ("just hang over the red one", "hang above the yellow pad"): a
hover, as the reach phrases say it (the imperative only; "hang on" is kept)."""
_OFF_THE_TOP = re.compile(r"\boff\s+(?:the\s+)?top\s+of\b", re.I)
"""A cube taken "off (the) top of" another ("lift red off the top of blue"): "off" it, as a
cube taken off the one under it is read."""
_GO_OVER = re.compile(
    r"\b(?:(?:go|get|come)\s+(?:right\s+)?(?:over|above)|visit|stop by|drop by|swing by)\s+"
    r"(?=the\b)",
    re.I,
)
"""The arm sent over a thing ("go over the yellow pad", "visit the left pad, then the right
pad"): a hover, as the reach phrases say it (a cube is never moved by it)."""
_SWUNG = re.compile(
    r"\b(?:swing|swivel|sweep|slew)\s+(?=(?:the|your|its)(?:\s+robot'?s|\s+arm'?s)?\s+(?:arm|hand|"
    r"gripper|tool|claw|wrist|end[- ]effector|effector|tcp|fingers)\b)",
    re.I,
)
"""The arm's end swung somewhere ("swing your hand round so it's over X"): moved there."""
_ARM_END = re.compile(
    r"\b(?:the|your|its)(?: robot'?s| arm'?s)? (?:tool(?: tip| centre point| center point)?|"
    r"end[- ]effector|effector|tcp|claw|wrist|fingertips|hand)\b(?=,?\s+(?:to|over|above|at|"
    r"toward|towards|near|onto|directly|right|up|down|back)\b)",
    re.I,
)
"""The arm's end said another way than the training phrases' "gripper" ("move the tool to
x 0.45, y 0.1, z 0.3", "hold your hand above the left pad") where it is what goes
somewhere: the gripper, not a tool or a hand the scene lacks."""
_TAP_ON = re.compile(r"\b(?:tap|poke)\s+(?:at\s+|on\s+)?(?=the\b)", re.I)


def tap_as_reach(text: str) -> str:
    """ "tap the green cube" -> "reach for the green cube" in the text the model plans (the
    reading keeps "tap": it forbids contact): said so, the model does not read "tap the green
    cube, then slide it ..." as two pushes."""
    return _TAP_ON.sub(lambda m: "Reach for " if m.group(0)[0].isupper() else "reach for ", text)


_INTRODUCED = re.compile(
    rf"^\s*(?:there(?:'s|\u2019s| is)|i see|you(?:'ll| can| will)? see|(?:do|can) you see|see|"
    rf"look at|notice|spot)\s+"
    rf"(?:(?:a|an|the)\s+(?P<cube>\w+\s+{_CUBE})\b[^.;?!]*|(?P<bare>[a-z]+)(?=\s*\?))[.;?!]+"
    r"\s*(?P<rest>.+)$",
    re.I,
)
_POINTED = re.compile(
    rf"^\s*(?:the\s+)?(?P<bare>[a-z]+)(?:\s+(?P<noun>{_CUBE}))?(?:(?:'s|\u2019s|\s+is|\s+sits|"
    r"\s+stands)\s+(?:(?:over|right|just|sitting|standing)\s+)?(?:by|near|next\s+to|beside|"
    rf"close\s+to)\s+(?:you|the\s+robot|the\s+\w+\s+(?:{'|'.join(PAD_NOUNS)}))\s*(?:[.;:,]|"
    r"\s[-\u2013\u2014]+)|\s*,\s*(?:yeah|yes|right|ok|okay|got\s+it|see\s+it)\s*\?)\s*"
    r"(?P<rest>.+)$",
    re.I,
)
"""A cube pointed out by where it is ("Red's near you; ...", "green's by the grey pad. ...")
or checked with the listener ("Green cube, yeah? ..."), its colour alone or with its noun,
then a step on "it": "it" is that cube; where it is said to be is no step and no place."""
_LOOKED_FOR = re.compile(
    rf"^\s*(?:(?:please|first|now|just)[, ]+)*(?:look (?:for|at)|find|locate|spot|search for|"
    rf"seek out|identify|pick out|check|watch|look around for)\s+the\s+(?P<cube>\w+\s+{_CUBE})"
    rf"\s*(?:,\s*)?(?:and(?: then)?|then|, then)\s+(?P<rest>[^.;?!]*\bit\b.*)$",
    re.I,
)
"""A clause that only looks for a cube, then a step on "it" ("look for the red cube and
hover over it"): the looking is no step (no skill looks), "it" is that cube."""


def introduced(text: str) -> str:
    """ "There's a blue cube near the left pad. Put it on the right pad." -> "Put the blue
    cube on the right pad.": a sentence that only points a cube out, then "it"; likewise
    "look for / find / locate the red cube and hover over it" -> "hover over the red cube"
    (:data:`_LOOKED_FOR`); "see red?" (a colour alone) as "see the red cube?"."""
    return _it_named(text, _INTRODUCED.match(text) or _LOOKED_FOR.match(text))


def pointed_out(text: str) -> str:
    """ "Red's near you; push it over to the yellow pad." -> "push the red cube over to the
    yellow pad."; "Green cube, yeah? Park above it." -> "Park above the green cube."
    (:data:`_POINTED`; read first, so the step on "it" is read as any step on a cube)."""
    return _it_named(text, _POINTED.match(text))


def _it_named(text: str, match: re.Match | None) -> str:
    """The rest of ``text`` after ``match``'s sentence, its first "it" the cube named."""
    if match is None or not re.search(r"\bit\b", match.group("rest"), re.I):
        return text
    said = match.groupdict()
    cube = said.get("cube")
    if not cube:  # "see red?", "red's near you": a colour of a cube, its noun said or not
        if said["bare"].lower() not in COLOURS:
            return text
        cube = f"{said['bare'].lower()} {said.get('noun') or 'cube'}"
    return re.sub(r"\bit\b", f"the {cube}", match.group("rest"), count=1, flags=re.I)
