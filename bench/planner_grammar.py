"""The planner on the dev sets' goals said in other grammar: meaning-preserving
transformations of each goal, its label kept, answered like ``bench/planner.py --sets``.

    .venv/bin/python bench/planner_grammar.py --json [--groups A,B,C,D,E,F,G,H,I,J,K,L,M,N]
        [--per 40] [--sets dev,heldout,...,heldout8] [--only NAME,...] [--threads 1]

Each transformation applies only where the goal has the shape it rewrites exactly (a
clause "VERB the X cube PREP the Y", a reference "the leftmost cube", two clauses joined by
"then", ...) and skips the goal otherwise, so the label stays the goal's. Two groups:

- **A** (developed against): topic first ("The red cube: put it on the left pad."),
  fragments ("Red cube, left pad."), "whichever" relatives ("whichever cube is
  leftmost"), leading hesitations and politeness ("Um, could you ..."), "the X one" for
  "the X cube", an explicit reorder ("B. But before that, A.").
- **B** (written with A, committed before any planner change, never tuned on): clefts
  ("It's the red cube that you should put on the left pad."), passive / "should end up"
  ("The red cube should end up on the left pad."), "I'd like / need / want you to ...",
  a trailing reason or aside (", because I'm tidying up."), counting ("the first of the
  cubes, counting from the left"), "the cube that is / that's X" relatives, "As for the
  red cube, put it ...".
- **C** (the structures held-out 9 showed, written before the round that reads them,
  committed before any planner change, never tuned on): a question then a command on
  "that one" ("Which block is furthest to the left? Push that one ..."), a second cube by
  "the one <relation>" ("... on the one nearest to you"), "the middle / left / second one
  of the three cubes", a counting phrase fronted as a topic ("Counting from the left, the
  first cube - push it ..."), "further left than the others", a prohibition of another
  verb first ("Don't pick the red cube up - just push it ..."), "Apart from the red cube,
  nothing should move: ...", a place corrected in front ("Not the right pad, the left
  pad: put the red cube there."), a colour corrected mid-sentence ("the green - sorry,
  the red cube").
- **D** (the structures held-out 10 showed, written and committed before the round that
  reads them, never tuned on): a cube by a comparison against another cube ("the block
  closer to you than the blue one"), a pad by a comparison against a cube ("whichever pad
  is farther from the red cube"), a pad by what it is not ("the pad that isn't grey"), a
  possessive ("the yellow pad's nearest cube"), a prohibition as an aside that
  contradicts nothing ("Push the red cube onto the grey pad, it doesn't need lifting.").
- **E** (the structures held-out 11 showed, in other wordings, committed before the round
  that reads them, never tuned on): a fragment with the place first ("Grey mat - the red
  cube, thanks."), a placing as a chain of verbs ("Grab X, take it across and lower it
  onto P."), a question naming the referent ("Is there a block in the middle? If there
  is, put it on P."), a correction cancelling a step ("Don't put X on Q; put it on P
  instead."), an aside cancelling a return home, a push asked with an aside forbidding a
  lift ("Could you push X onto P? You don't have to lift it."), the order said in words
  ("Step two: B. Step one: A.", "C at the end, A at the start and B in the middle."),
  polite or purposeful reaches ("Point out P for me by hovering above it.").
- **F** (the structures held-out 12 showed, in other wordings, committed before the round
  that reads them, never tuned on): a question about "one" then "that cube", a pad said
  by colour first ("The grey mat is for the blue cube."), "on top of the one that's
  farthest from the robot", exclusions ("Leave the green and blue cubes alone and push the
  other one ..."), a correction replacing the cube, "Anything but a push - ...", "before
  you lay a finger on any cube" / "ahead of all that" / "backwards", "Spot the red cube?
  Pop it onto P.", a stacked cube "taken off and set on P", a tower said bottom to top;
  and, labelled anew (the goal's label replaced): a request forbidding the only way to do
  it and an activity no skill does (refusals), a place or amount left unsaid ("Nudge the
  red cube a little.": a question back), small talk about a cube (no motion),
  "straighten X so one of its faces is towards you" (a turn to face the robot), a whole
  tower moved (a refusal).
- **G** (the structures held-out 13 showed, in other wordings, committed before the round
  that reads them, never tuned on): a step said, then cancelled and replaced ("Put X on
  Q... no, don't, put it on P instead.", "- scratch that, P.", "Actually not Q - P."), a
  tower said bottom to top ("Red at the bottom, then green, then blue on top.", "Start
  with red on the table, put green on it, and finish with blue."), a tower taken down
  from the top, a reach said as a hold ("Move the gripper over X and stay there."), a pad
  said by its side of the table ("the right-hand pad"), every push ruled out for the day
  ("I'd rather you didn't push anything today - get X onto P."); and, labelled anew: a
  condition on the scene ("If the red cube is further left than the blue one, put it on
  P; otherwise just go home": the branch the scene's positions choose, never both), "same
  again, but with the blue cube" after a step (the step repeated on that cube) and with
  nothing before it (a question back), no motion ("Do nothing for now, thanks.": an empty
  plan), both ways of moving a cube ruled out (a refusal).
- **H** (the structures held-out 14 showed, in other wordings, committed before the round
  that reads them, never tuned on): a topic then a verb with no object ("Red cube: slide
  onto the left pad."), a cube by its rank ("the second-nearest cube to you"), two cubes
  compared ("Compare the red and the blue cube: the one farther from you - put it on P.");
  and, labelled anew: a verb naming a relation no skill makes ("Tuck X under Y.", "stand X
  up on one of its edges", "balance X on its corner": refused), a manner leaving only a
  push ("Keep X on the table the whole time and get it over to P.": the push where its
  card passes, else refused), a push of a cube with another stacked on it first
  (refused), a turn said before the move ("After a 25-degree turn, X should end up on P."),
  a condition asked as a question ("Is X to the left of Y? If so, ...; otherwise ...": the
  branch the scene chooses), no motion in other words ("Just leave things the way they
  are.", "Not now - I'll let you know when."), every cube visited in an order said by a
  relation ("Visit the cubes from nearest to farthest, hovering over each one.").
- **I** (the structures held-out 15 showed, in other wordings, committed before the round
  that reads them, never tuned on): "never mind / forget X" beside a request on another
  cube, "wait above it / hold there" after a referent, "don't shift Y, but stack X on it",
  a tower taken apart from the top with its cubes said bottom first, "the pair of them, the
  A and the B" onto one pad, "which of the pads is the grey one? hover above it"; and,
  labelled anew: a place whose noun names nothing in the scene ("onto the bookshelf") and
  a point out of reach by coordinates (refused), "forget about X" alone and no motion in
  other words (an empty plan), a verb no skill has on a cube ("Scan the red cube",
  refused), a push of a tower (refused), a tower built in an order said by a relation
  ("from right to left, the rightmost at the base"), a condition whose verb is a step
  ("Once X has been slid onto P, set Y on the right pad": the push, then the placing), a
  turn until the cube faces the robot square on.
- **J** (the structures held-out 16 showed, in other wordings, committed before the round
  that reads them, never tuned on): a place corrected after a dash or a comma ("Set X on Q -
  no wait, on P.": one step, onto P), a point said with its coordinates' names ("x = 0.5, y =
  0.1, z = 0.3", "x 0.5 y 0.1 z 0.3"), "it" after a full stop naming the cube of the sentence
  before ("Keep Y still. Set X on top of it."), a list of places then one verb ("P first,
  next Q - go above each of them."), order words ("B; before that though, A.", "Last of all,
  B. To start with, A.", "B, then A - no, hold on, A first."), a cube named by its relation to
  another as the referent ("the block to the left of the green one", "the cube sitting on
  the red one"), "of the three blocks, the one ...", "only X should move; the rest stay where
  they are", "the next one down" after the top of a stack; and, labelled anew: "every cube
  but X, Y first" (a reach of each other cube), no motion asked as waiting ("Hang tight for a
  moment.", "Stay there till I say go.": an empty plan).
- **K** (the structures held-out 17 showed, in other wordings, committed before the round
  that reads them, never tuned on): a prohibition said as "I don't want you handling Y", a
  yes/no question about a pad then a step onto it ("Is the yellow mat empty? If it is, set X
  on it."), a step put off to the end ("B. Actually, leave that till the end - begin with
  A."), a cube named by colour to go first ("B and then A - hang on, the red one first.", "B
  and A; deal with the red one before the blue one."), a list whose second placing drops its
  verb ("set X on P and next the blue one on Q", before a return home), a hover said as
  hanging or "right over", a long hedged request, "Is there a block to the left of Y? Move
  that ...", "whichever mat is the grey one", "... and don't touch anything else" (only the
  cube said moves), a cataphoric "it" ("Don't pick it up - just slide X ..."), "X's sitting
  off on its own there - put it ...", "Go above X; when you get there, push that block ..." (the
  reach, then the step), a superlative along the table's depth ("the cube furthest back",
  "the block farthest from the robot", as the cube moved or the cube it goes onto); and,
  labelled anew: a pad moved (refused: a pad is not a cube), a pick with no place ("Could you
  lift the red block for me?": asked where), no motion asked as staying or holding still
  ("Remain where you are for now, robot.": an empty plan).
- **L** (the structures held-out 18 showed, in other wordings, committed before the round
  that reads them, never tuned on): a place corrected as "not on Q, on P" (one step, onto
  P), a tower of two said as a tower then its parts, the tower finished with a cube, a cube
  carried to a point and let go there, the tower left alone beside a step, "Across to P
  with X", a hover kept in a list ("Hover over P, then come back home", "Hover above X and
  then stack it on Y"), three cubes stacked on a pad in an order said after a colon, "S.
  Don't move anything else.", a typo of "home", "the front / back cube", "the two cubes at
  the back", "the block closest to P: V it onto that pad", "X is in my way; could you V it
  ...", "the cube on its own" (the other two moved side by side); and, labelled anew: a
  placing then "turn it N degrees" (the placing and the turn where the cards pass them,
  else refused), "the cube next to" the middle cube and "X is in my way; could you move
  it?" with no place (asked), "Keep still while I ..." (an empty plan), "Stack these two"
  and "the cube nearest the pad ... the other pad" (asked), "the cube under X" with nothing
  under X (refused).
- **M** (the structures held-out 19 showed, in other wordings, committed before the round
  that reads them, never tuned on): "Would you mind moving X over onto P?" (a lift, as
  "move ... onto" is read), "Hover above X over there.", "Never mind the two blocks at the
  back; V the front one ..." and "Out of the two cubes in the back, V the left one ...", a
  prohibition said before its cube ("No sliding it - lift X and set it on P."), "Don't use
  the Q mat. Set X on a mat." (onto P), a typo of a one-word goal ("hme, thanks"); and,
  labelled anew: a placing, then "move the arm over P" (a reach added), two pads reached,
  the second as "the C one", "Build a tower on Y: A first, then B" (A onto Y, B onto A),
  the tower's middle level ("the cube in the middle of the stack": reached; "the middle
  cube of the stack" moved: refused, it is covered), a cube pushed off the table's edge and
  "the cube sitting on P" with no cube on P (refused), "that pad over there" with two pads
  and "Stack the two cubes." among three (asked), "Hang on, don't do anything just yet."
  (an empty plan).
- **N** (the structures held-out 20 showed, in other wordings, committed before the round
  that reads them, never tuned on): a tower of two said first, then how ("Build a two-block
  stack by setting A on top of the B one": A on B), a placing then "keep it there" / "leave it
  there" (no step after it), onto "the C one" then left there, "whichever of the cubes is
  closest to you" (the robot), "Which of the mats is the grey one? Set X down there.", "anywhere
  but the Q pad; the P one is fine" (onto P); and, labelled anew: a reach of a pad, then "bring X
  to it" (the reach and a placing), a pause with everything left as it is (an empty plan), a
  verb no skill does ("weigh", "measure", "glue", "tape", "put a label on": refused), the top
  of a tower unstacked onto a pad (the scene a tower), "the cube near the edge" with three
  at the envelope's edges (asked), "the lowest block in the pile" moved (refused: covered).

Per transformation, at most ``--per`` goals it applies to (chosen by a hash of name and
goal: the same goals every run), each answered as transformed and as written. Prints one
JSON object::

    {"per": 40, "groups": {"A": {"n", "exact", "original_exact"}, "B": {...}},
     "transforms": {"topic": {"group": "A", "applies": 212, "n": 40, "exact": 0.95,
                              "original_exact": 1.0, "misses": [...]}, ...}}

``exact``: the transformed goals answered exactly as labelled (plan, refusal or
question, as ``bench/planner.py``); ``original_exact``: the same goals as written.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import logging
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miles_ros.agent import evaluation, models  # noqa: E402
from miles_ros.agent.evaluation import answer, dev_set, load_eval_set, parse_step  # noqa: E402

SETS = {
    name: evaluation.HELD_OUT_SETS[name]
    for name in ("heldout", *(f"heldout{n}" for n in range(2, 9)))
}
"""The read sets besides ``dev`` (a later held-out set is never transformed here)."""

# -- the shapes a transformation rewrites -------------------------------------------------
_CUBE = r"(?:cube|block)"
_COLOUR = r"(?:red|green|blue)"
_PAD = r"the (?:left|right|yellow|grey|gray) (?:pad|mat)"
_SIDE = r"(?:left|right)"
_ANCHOR = rf"(?:the robot|you|{_PAD}|the {_COLOUR} {_CUBE})"
_POSITION_PRE = r"(?:leftmost|rightmost|nearest|closest|farthest|furthest|middle)"
_POSITION_POST = (
    rf"(?:(?:nearest|closest|farthest|furthest)(?: to| from)? {_ANCHOR}"
    rf"|(?:on|at) the far {_SIDE}|in the middle)"
)
_CUBE_NP = (
    rf"the {_COLOUR} {_CUBE}|the {_POSITION_PRE} {_CUBE}|the {_CUBE} {_POSITION_POST}"
    rf"|the second {_CUBE} from the {_SIDE}"
)
_PLACE_NP = rf"{_PAD}|{_CUBE_NP}"
_PREP = r"(?:on top of|onto|on|over to|across to|to|into)"
_MOVERS = {
    "put": "put",
    "place": "placed",
    "set": "set",
    "move": "moved",
    "push": "pushed",
    "slide": "slid",
    "shove": "shoved",
    "nudge": "nudged",
    "stack": "stacked",
}
"""Verbs of a moving clause and their participles."""
_REACH = r"(?:hover over|hover above|reach over|reach|move your gripper over)"
_MOVE_CLAUSE = re.compile(
    rf"^(?P<verb>{'|'.join(_MOVERS)}) (?P<obj>{_CUBE_NP}) (?P<prep>{_PREP}) "
    rf"(?P<place>{_PLACE_NP})$",
    re.I,
)
_REACH_CLAUSE = re.compile(rf"^(?P<verb>{_REACH}) (?P<obj>{_PLACE_NP})$", re.I)
_IMPERATIVE = re.compile(
    r"^(?:put|place|set|move|push|slide|shove|nudge|stack|hover|reach|turn|rotate|pick|lift|"
    r"go|take|grab|return|bring|carry|drop|head|tap|touch|leave|don'?t|do)\b",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:it|its|there|them|that|this|both|one|ones|first|then)\b", re.I)


@dataclass(frozen=True)
class Clause:
    """One clause of a goal: a verb, the thing it acts on, and (moving) a place."""

    verb: str
    obj: str
    prep: str = ""
    place: str = ""


def _bare(goal: str) -> str:
    return goal.strip().rstrip(".!").strip()


def clause(goal: str) -> Clause | None:
    """The goal as one clause of a moving verb or a reach ("push the leftmost cube onto the
    grey pad", "hover over the red cube"); None when it is anything else."""
    text = _bare(goal)
    m = _MOVE_CLAUSE.match(text)
    if m:
        return Clause(m["verb"].lower(), m["obj"], m["prep"].lower(), m["place"])
    m = _REACH_CLAUSE.match(text)
    if m:
        return Clause(m["verb"].lower(), m["obj"])
    return None


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _pick(options: list[str], goal: str) -> str:
    """One of ``options`` by a hash of the goal (the same every run)."""
    return options[int(hashlib.sha1(goal.encode()).hexdigest(), 16) % len(options)]


def _rest(c: Clause) -> str:
    return f" {c.prep} {_lower_first(c.place)}" if c.prep else ""


def _single_step(item: dict, skill: str | None = None) -> bool:
    plan = item["plan"]
    return (
        item["expect"] == "plan" and len(plan) == 1 and (skill is None or plan[0].skill == skill)
    )


def _flat_scene(item: dict) -> bool:
    """Every cube on the table (no tower: counting left to right means one thing)."""
    return all(p[2] < 0.04 for p in (item["objects"] or {}).values())


def _other_colour(a: str, cubes: dict, key: str, place: str = "") -> str | None:
    """The colour of a cube of ``cubes`` other than the ``a`` one and not named in ``place``,
    picked by ``key``; None when there is none."""
    others = [x for x in _OTHER_COLOURS[a] if f"{x}_cube" in cubes and x not in place.lower()]
    return _pick(others, key) if others else None


# -- group A ------------------------------------------------------------------------------
def topic_first(goal: str, item: dict) -> str | None:
    """ "The red cube: put it on the left pad." / "The leftmost cube: hover over it." """
    c = clause(goal)
    if c is None:
        return None
    return f"{_upper_first(c.obj)}: {c.verb} it{_rest(c)}."


def fragment(goal: str, item: dict) -> str | None:
    """ "Red cube, left pad." for a plain placing (put / place / move / set, a pick_place)."""
    c = clause(goal)
    if c is None or c.verb not in {"put", "place", "move", "set"} or not c.place:
        return None
    if c.prep not in {"on", "onto", "to"} or not _single_step(item, "pick_place"):
        return None
    what, where = (re.sub(r"^the ", "", s, flags=re.I) for s in (c.obj, c.place))
    return f"{_upper_first(what)}, {_lower_first(where)}."


_WHICHEVER_PRE = re.compile(rf"\bthe ({_POSITION_PRE}) ({_CUBE})\b", re.I)
_WHICHEVER_POST = re.compile(rf"\bthe ({_CUBE}) ({_POSITION_POST})\b", re.I)
_PAD_COLOUR = re.compile(r"\bthe (yellow|grey|gray) (pad|mat)\b", re.I)


def whichever(goal: str, item: dict) -> str | None:
    """The first positional reference (or pad said by colour) as "whichever cube is
    leftmost", "whichever cube is nearest the robot", "whichever pad is yellow"."""
    for pattern, say in (
        (_WHICHEVER_PRE, lambda m: f"whichever {m[2]} is {_PREDICATE.get(m[1].lower(), m[1])}"),
        (_WHICHEVER_POST, lambda m: f"whichever {m[1]} is {m[2]}"),
        (_PAD_COLOUR, lambda m: f"whichever {m[2]} is {m[1]}"),
    ):
        m = pattern.search(goal)
        if m is None or m.start() == 0:  # not the sentence's first words
            continue
        after = goal[m.end() :]
        if pattern is _WHICHEVER_PRE and re.match(
            r"\s+(?:to|from|of|that|which|other|except|but)\b", after
        ):
            return None  # "whichever block is closest to the pad" would be another block
        return goal[: m.start()] + say(m) + after
    return None


_PREDICATE = {
    "middle": "in the middle",
    "nearest": "nearest to you",
    "closest": "closest to you",
    "farthest": "farthest from you",
    "furthest": "furthest from you",
}
"""A premodifier said after "is" (distances are from the robot, as the sets say them)."""

_OPENERS = ["Um, ", "Okay, so, ", "Right then, ", "Er, please ", "Hmm, could you "]


def opener(goal: str, item: dict) -> str | None:
    """A hesitation or politeness before an imperative: "Um, put the red cube ..." """
    text = goal.strip()
    if not _IMPERATIVE.match(text):
        return None
    negated = re.match(r"(?:don'?t|do not)\b", text, re.I)
    return _pick(_OPENERS[:3] if negated else _OPENERS, goal) + _lower_first(text)


_CUBE_BY_COLOUR = re.compile(rf"\bthe ({_COLOUR}) {_CUBE}\b", re.I)


def the_one(goal: str, item: dict) -> str | None:
    """ "the red one" for "the red cube" (cube colours only: a pad is never red)."""
    if not _CUBE_BY_COLOUR.search(goal):
        return None
    return _CUBE_BY_COLOUR.sub(lambda m: f"the {m[1]} one", goal)


_THEN = re.compile(
    r"^(?P<a>[^,;.]+?)(?:,? and then|, then|; then|\. Then) (?P<b>[^,;.]+?)\.?$", re.I
)


def _then_parts(goal: str, item: dict) -> tuple[str, str] | None:
    """The two parts A and B of a goal said "A, then B" whose plan has two steps; else None."""
    m = _THEN.match(goal.strip())
    if m is None or item["expect"] != "plan" or len(item["plan"]) != 2:
        return None
    return m["a"].strip(), m["b"].strip()


def reorder(goal: str, item: dict) -> str | None:
    """ "A, then B." as "B. But before that, A." (neither part pointing at the other)."""
    parts = _then_parts(goal, item)
    if parts is None:
        return None
    a, b = parts
    if _PRONOUN.search(a) or _PRONOUN.search(b):
        return None
    if not _IMPERATIVE.match(a) or not _IMPERATIVE.match(b):
        return None
    return f"{_upper_first(b)}. But before that, {_lower_first(a)}."


# -- group B ------------------------------------------------------------------------------
def cleft(goal: str, item: dict) -> str | None:
    """ "It's the red cube that you should put on the left pad." """
    c = clause(goal)
    if c is None:
        return None
    return f"It's {_lower_first(c.obj)} that you should {c.verb}{_rest(c)}."


def passive(goal: str, item: dict) -> str | None:
    """ "The red cube should end up on the left pad." (a placing) / "The red cube should be
    pushed onto the grey pad." (a push)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item):
        return None
    skill = item["plan"][0].skill
    if skill == "pick_place" and c.verb in {"put", "place", "set", "move"}:
        return f"{_upper_first(c.obj)} should end up on {_lower_first(c.place)}."
    if skill == "push" and c.verb in {"push", "slide", "shove", "nudge"}:
        return f"{_upper_first(c.obj)} should be {_MOVERS[c.verb]}{_rest(c)}."
    return None


_REQUESTS = ["I'd like you to ", "I need you to ", "I want you to "]


def request(goal: str, item: dict) -> str | None:
    """ "I'd like you to push ..." before an imperative."""
    text = goal.strip()
    if not _IMPERATIVE.match(text) or re.match(r"(?:don'?t|do)\b", text, re.I):
        return None
    return _pick(_REQUESTS, goal) + _lower_first(text)


_ASIDES = [
    ", because I'm tidying up.",
    " - no rush.",
    ", if you don't mind.",
    ", that would help me a lot.",
]


def aside(goal: str, item: dict) -> str | None:
    """A trailing reason or aside after a statement or imperative (not a question)."""
    text = goal.strip()
    if text.endswith("?") or not _IMPERATIVE.match(text):
        return None
    return _bare(text) + _pick(_ASIDES, goal)


_COUNTING = re.compile(
    rf"\bthe (?:(?P<most>left|right)most {_CUBE}|second {_CUBE} from the (?P<side>left|right))\b",
    re.I,
)


def counting(goal: str, item: dict) -> str | None:
    """ "the first of the cubes, counting from the left" for "the leftmost cube", "the second
    of the cubes, counting from the right" for "the second cube from the right" (no tower
    in the scene)."""
    if not _flat_scene(item):
        return None
    m = _COUNTING.search(goal)
    if m is None:
        return None
    nth, side = ("first", m["most"]) if m["most"] else ("second", m["side"])
    after = goal[m.end() :]
    comma = "," if re.match(r"\s+\w", after) else ""
    return goal[: m.start()] + f"the {nth} of the cubes, counting from the {side}{comma}" + after


def that_is(goal: str, item: dict) -> str | None:
    """The first cube reference as a relative: "the cube that's red", "the cube that is
    leftmost", "the cube that is nearest the robot"."""
    for pattern, say in (
        (_CUBE_BY_COLOUR, lambda m: f"the cube that's {m[1]}"),
        (_WHICHEVER_PRE, lambda m: f"the {m[2]} that is {m[1]}"),
        (_WHICHEVER_POST, lambda m: f"the {m[1]} that is {m[2]}"),
    ):
        m = pattern.search(goal)
        if m:
            return goal[: m.start()] + say(m) + goal[m.end() :]
    return None


def as_for(goal: str, item: dict) -> str | None:
    """ "As for the red cube, put it on the left pad." """
    c = clause(goal)
    if c is None:
        return None
    return f"As for {_lower_first(c.obj)}, {c.verb} it{_rest(c)}."


# -- group C ------------------------------------------------------------------------------
_OTHER_COLOURS = {"red": ("green", "blue"), "green": ("blue", "red"), "blue": ("red", "green")}
_OTHER_PAD = {
    "left": "right",
    "right": "left",
    "yellow": "grey",
    "grey": "yellow",
    "gray": "yellow",
}
_POSITION_QUESTION = {
    "leftmost": "furthest to the left",
    "rightmost": "furthest to the right",
    **_PREDICATE,
}
_CUBE_PRE_NP = re.compile(rf"^the ({_POSITION_PRE}) ({_CUBE})$", re.I)
_CUBE_POST_NP = re.compile(rf"^the ({_CUBE}) ({_POSITION_POST})$", re.I)
_COLOUR_NP = re.compile(rf"^the ({_COLOUR}) ({_CUBE})$", re.I)


def _position(np: str) -> tuple[str, str] | None:
    """(noun, predicate) of a positional cube reference said after "is": ("cube",
    "furthest to the left") for "the leftmost cube"; None for anything else."""
    m = _CUBE_PRE_NP.match(np)
    if m:
        return m[2], _POSITION_QUESTION[m[1].lower()]
    m = _CUBE_POST_NP.match(np)
    if m:
        return m[1], m[2]
    return None


def _cubes(item: dict) -> int:
    """The cubes in the goal's scene (the default scene has three)."""
    return len(item["objects"]) if item["objects"] else 3


def _step_on_position(goal: str, item: dict) -> tuple[Clause, tuple[str, str]] | None:
    """The clause of a one-step goal on a cube said by its position, and that position."""
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    p = _position(c.obj)
    return None if p is None else (c, p)


def question_then(goal: str, item: dict) -> str | None:
    """A question, then the command on "that one": "Which block is furthest to the left?
    Push that one onto the grey pad." """
    found = _step_on_position(goal, item)
    if found is None:
        return None
    c, p = found
    ask = _pick(
        [
            "Which {n} is {p}? ",
            "Can you tell which {n} is {p}? ",
            "Which {n} is {p}, would you say? ",
        ],
        "question|" + goal,
    )
    return ask.format(n=p[0].lower(), p=p[1]) + f"{_upper_first(c.verb)} that one{_rest(c)}."


def _scene_cubes(item: dict) -> dict[str, tuple[float, ...]]:
    """The goal's cube centres by name (its scene's, else config/scene.yaml's)."""
    if item["objects"]:
        return item["objects"]
    import yaml

    scene = yaml.safe_load((Path(__file__).resolve().parents[1] / "config/scene.yaml").read_text())
    return {n: tuple(o["position"]) for n, o in scene["objects"].items()}


_RELATIONS = (
    ("furthest to the left", lambda p: p[1]),
    ("furthest to the right", lambda p: -p[1]),
    ("nearest to you", lambda p: -((p[0] ** 2 + p[1] ** 2) ** 0.5)),
    ("farthest from you", lambda p: (p[0] ** 2 + p[1] ** 2) ** 0.5),
)
"""A relation that picks one cube, and the score the cube it picks is highest on."""


def _relation_of(
    name: str, cubes: dict[str, tuple[float, ...]], relations=_RELATIONS
) -> str | None:
    """The first of ``relations`` (said, score) ``name`` alone is 2 cm or more ahead of every
    other cube on."""
    for said, score in relations:
        others = [score(p) for n, p in cubes.items() if n != name]
        if others and score(cubes[name]) >= max(others) + 0.02:
            return said
    return None


def one_relation(goal: str, item: dict) -> str | None:
    """A second cube named by "the one <relation>": "stack the red cube on the one nearest
    to you", "put the green block on the one furthest to the left" (the cube placed on, by
    its position: a positional reference rephrased, or a colour the scene's positions
    single out; no tower)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item) or not _flat_scene(item):
        return None
    p = _position(c.place)
    said = p and p[1]
    m = _COLOUR_NP.match(c.place)
    if m:
        cubes = _scene_cubes(item)
        name = f"{m[1].lower()}_cube"
        said = name in cubes and _relation_of(name, cubes)
    if not said:
        return None
    return f"{_upper_first(c.verb)} {_lower_first(c.obj)} {c.prep} the one {said}."


_ORDINAL_OF = re.compile(
    rf"\bthe (?:(?P<most>left|right)most {_CUBE}|middle {_CUBE}|{_CUBE} in the middle"
    rf"|second {_CUBE} from the (?P<side>left|right))\b",
    re.I,
)


def ordinal_of(goal: str, item: dict) -> str | None:
    """ "the middle one of the three cubes", "the second one of the three blocks from the
    right", "the left one of the three cubes" (three cubes on the table)."""
    if not _flat_scene(item) or _cubes(item) != 3:
        return None
    m = _ORDINAL_OF.search(goal)
    if m is None or _RESTRICTED.match(goal[m.end() :]):
        return None
    noun = _pick(["cubes", "blocks"], goal)
    if m["most"]:
        say = f"the {m['most'].lower()} one of the three {noun}"
    elif m["side"]:
        say = f"the second one of the three {noun} from the {m['side'].lower()}"
    else:
        say = f"the middle one of the three {noun}"
    return goal[: m.start()] + say + goal[m.end() :]


_COUNT_NP = re.compile(
    rf"^the (?:(?P<most>left|right)most {_CUBE}|second {_CUBE} from the (?P<side>left|right))$",
    re.I,
)


def counting_topic(goal: str, item: dict) -> str | None:
    """A counting phrase fronted as a topic: "Counting from the left, the first cube - push
    it onto the grey pad." (no tower)."""
    c = clause(goal)
    if c is None or not _flat_scene(item):
        return None
    m = _COUNT_NP.match(c.obj)
    if m is None:
        return None
    nth, side = ("first", m["most"]) if m["most"] else ("second", m["side"])
    sep = _pick([" - ", ": ", "; "], goal)
    return f"Counting from the {side.lower()}, the {nth} cube{sep}{c.verb} it{_rest(c)}."


_THAN = {
    "leftmost": "further left than the others",
    "rightmost": "further right than the others",
    "nearest": "closer to you than the others",
    "closest": "closer to you than the other cubes",
    "farthest": "further from you than the others",
    "furthest": "further away from you than the other cubes",
}
_THAN_NP = re.compile(rf"\bthe ({'|'.join(_THAN)}) ({_CUBE})\b(?! (?:to|from|of)\b)", re.I)
_RESTRICTED = re.compile(r"\s+(?:that|which|who|except|but|other|not|to|from|of)\b", re.I)
"""What after a superlative restricts the set it is said over ("the rightmost cube that
isn't blue"): a rewrite as "of the three" or "than the others" would change it."""


def than_others(goal: str, item: dict) -> str | None:
    """A superlative said as a comparative against the rest: "the cube further left than
    the others", "the block closer to you than the others"."""
    m = _THAN_NP.search(goal)
    if m is None or _RESTRICTED.match(goal[m.end() :]):
        return None
    return goal[: m.start()] + f"the {m[2]} {_THAN[m[1].lower()]}" + goal[m.end() :]


def prohibit_other(goal: str, item: dict) -> str | None:
    """A prohibition of another verb before the request: "Don't pick the red cube up - just
    push it onto the grey pad.", "Don't slide the green block; only put it on the left
    pad.", "Don't grab the red cube, just hover over it." """
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    skill = item["plan"][0].skill
    forbid = {"push": "pick {o} up", "pick_place": "slide {o}", "reach": "grab {o}"}.get(skill)
    if forbid is None:
        return None
    sep, just = _pick([(" - ", "just"), ("; ", "only"), (", ", "just")], goal)
    return f"Don't {forbid.format(o=_lower_first(c.obj))}{sep}{just} {c.verb} it{_rest(c)}."


def except_nothing(goal: str, item: dict) -> str | None:
    """ "Apart from the red cube, nothing should move: put it on the left pad." (a push or a
    placing of one cube)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item):
        return None
    if item["plan"][0].skill not in {"push", "pick_place"}:
        return None
    head = _pick(
        [
            "Apart from {o}, nothing should move: ",
            "Except {o}, nothing moves - ",
            "Other than {o}, leave everything alone; ",
        ],
        goal,
    )
    return head.format(o=_lower_first(c.obj)) + f"{c.verb} it{_rest(c)}."


_PAD_NP = re.compile(r"^the (left|right|yellow|grey|gray) (pad|mat)$", re.I)


def _other_pad_said(m: re.Match) -> str:
    """The pad other than the one a match of ``_PAD_NP`` names, said the same way ("the grey
    mat" for "the yellow mat", "the right pad" for "the left pad")."""
    return f"the {_OTHER_PAD[m[1].lower()]} {m[2].lower()}"


def place_corrected(goal: str, item: dict) -> str | None:
    """A place corrected in front: "Not the right pad - the left pad. Put the red cube
    there." """
    c = clause(goal)
    if c is None or not c.place or not _single_step(item):
        return None
    m = _PAD_NP.match(c.place)
    if m is None:
        return None
    other = _other_pad_said(m)
    head = _pick(["Not {x}, {y}: ", "Not {x} but {y} - ", "Not {x}; {y}. "], goal)
    head = head.format(x=other, y=_lower_first(c.place))
    verb = c.verb if head.endswith(": ") or head.endswith("- ") else _upper_first(c.verb)
    return head + f"{verb} {_lower_first(c.obj)} there."


def self_correction(goal: str, item: dict) -> str | None:
    """A colour corrected mid-sentence: "Push the green - sorry, the red cube onto ...",
    "put the blue, no, the red block ..." (the first cube said by its colour)."""
    m = _CUBE_BY_COLOUR.search(goal)
    if m is None or m.start() == 0:
        return None
    wrong = _pick(list(_OTHER_COLOURS[m[1].lower()]), goal)
    fix = _pick([" - sorry, ", ", no, ", " - I mean "], goal[::-1])
    return goal[: m.start()] + f"the {wrong}{fix}{m[0]}" + goal[m.end() :]


# -- group D ------------------------------------------------------------------------------
def _first_cube_said(goal: str, item: dict) -> tuple[re.Match, dict] | None:
    """The goal's first cube said by colour (not at its start, the colour said once) and the
    scene's cubes, in a scene with no tower; None otherwise."""
    if not _flat_scene(item):
        return None
    m = _CUBE_BY_COLOUR.search(goal)
    cubes = {n: p for n, p in _scene_cubes(item).items() if n.endswith("_cube")}
    if m is None or m.start() == 0 or f"{m[1].lower()}_cube" not in cubes:
        return None
    if len(re.findall(rf"\b{m[1]}\b", goal, re.I)) > 1:
        return None  # the colour said twice: which one is meant stays the goal's
    return m, cubes


_PADS = {"left": (0.55, 0.25), "right": (0.55, -0.25)}
"""The pads' centres (config/scene.yaml's places; no set moves them)."""
_PAD_SIDE = {"left": "left", "right": "right", "yellow": "left", "grey": "right", "gray": "right"}
_COMPARATIVES = (
    ("further left than", lambda p: p[1]),
    ("further to the right than", lambda p: -p[1]),
    ("closer to you than", lambda p: -((p[0] ** 2 + p[1] ** 2) ** 0.5)),
    ("further away from you than", lambda p: (p[0] ** 2 + p[1] ** 2) ** 0.5),
)
"""A comparative against one other thing, and the score the thing it picks is higher on."""


def _against(name: str, cubes: dict[str, tuple[float, ...]]) -> tuple[str, str] | None:
    """(comparative, other cube's colour) that picks ``name`` alone: ``name`` 2 cm or more
    ahead of the other cube on the score, every remaining cube 2 cm or more behind it."""
    for said, score in _COMPARATIVES:
        for other, q in cubes.items():
            if other == name or score(cubes[name]) < score(q) + 0.02:
                continue
            rest = [score(p) for n, p in cubes.items() if n not in {name, other}]
            if all(s <= score(q) - 0.02 for s in rest):
                return said, other.split("_")[0]
    return None


def than_another(goal: str, item: dict) -> str | None:
    """A cube by a comparison against another cube: "the block closer to you than the blue
    one", "whichever cube is further left than the green cube" (the goal's first cube said
    by colour; the scene's positions pick it alone; no tower)."""
    found = _first_cube_said(goal, item)
    if found is None:
        return None
    m, cubes = found
    found = _against(f"{m[1].lower()}_cube", cubes)
    if found is None:
        return None
    said, other = found
    say = _pick(
        [
            "the cube {s} the {o} one",
            "whichever block is {s} the {o} cube",
            "the cube that's {s} the {o} one",
        ],
        "than|" + goal,
    ).format(s=said, o=other)
    return goal[: m.start()] + say + goal[m.end() :]


def pad_farther(goal: str, item: dict) -> str | None:
    """A pad by a comparison against a cube: "whichever pad is farther from the red cube",
    "the mat nearer to the blue block" (the cube 3 cm or more nearer one pad)."""
    m = _PAD_COLOUR.search(goal) or re.search(r"\bthe (left|right) (pad|mat)\b", goal, re.I)
    if m is None:
        return None
    side = _PAD_SIDE[m[1].lower()]
    other = "right" if side == "left" else "left"
    for cube, p in sorted(_scene_cubes(item).items()):
        if not cube.endswith("_cube") or cube.split("_")[0] in goal.lower():
            continue  # not a cube the goal itself names
        near, far = (math.dist(p[:2], _PADS[s]) for s in (side, other))
        if abs(near - far) < 0.03:
            continue
        word = ("nearer to", "closer to") if near < far else ("farther from", "further from")
        say = _pick(
            ["whichever {n} is {w} the {c} cube", "the {n} {w} the {c} block"], "pad|" + goal
        ).format(n=m[2].lower(), w=_pick(list(word), goal), c=cube.split("_")[0])
        return goal[: m.start()] + say + goal[m.end() :]
    return None


def pad_not(goal: str, item: dict) -> str | None:
    """A pad by what it is not: "the pad that isn't grey", "the mat that's not the right
    one" (two pads: the one not named is the other)."""
    m = _PAD_NP_IN.search(goal)
    if m is None:
        return None
    other = _OTHER_PAD[m[1].lower()]
    if m[1].lower() in {"left", "right"}:
        say = _pick(["the {n} that isn't the {o} one", "the {n} other than the {o} one"], goal)
    else:
        say = _pick(["the {n} that isn't {o}", "whichever {n} is not {o}"], goal)
    return goal[: m.start()] + say.format(n=m[2].lower(), o=other) + goal[m.end() :]


_PAD_NP_IN = re.compile(r"\bthe (left|right|yellow|grey|gray) (pad|mat)\b", re.I)


def possessive(goal: str, item: dict) -> str | None:
    """A cube by a possessive: "the yellow pad's nearest cube", "the right mat's closest
    block" (the goal's first cube said by colour, 3 cm or more nearer that pad than any
    other cube; no tower)."""
    found = _first_cube_said(goal, item)
    if found is None:
        return None
    m, cubes = found
    name = f"{m[1].lower()}_cube"
    for side, pad in _PADS.items():
        d = {n: math.dist(p[:2], pad) for n, p in cubes.items()}
        if all(d[name] <= v - 0.03 for n, v in d.items() if n != name):
            colour = {"left": "yellow", "right": "grey"}[side]
            pad_said = _pick([f"the {side} pad", f"the {colour} mat"], goal)
            if re.search(rf"\b{side} (?:pad|mat)|{colour}\b", goal, re.I):
                return None  # the goal names that pad too: two references to one place
            say = f"{pad_said}'s {_pick(['nearest cube', 'closest block'], goal)}"
            return goal[: m.start()] + say + goal[m.end() :]
    return None


_ASIDE_PROHIBIT = {
    "push": [", it doesn't need lifting.", " - no lifting.", "; there's no need to pick it up."],
    "pick_place": [", no pushing it.", " - it doesn't need sliding.", "; don't drag it."],
    "reach": [", it doesn't need grabbing.", " - no touching.", "; no need to pick it up."],
}


def aside_prohibit(goal: str, item: dict) -> str | None:
    """A prohibition as an aside that contradicts nothing: "Push the red cube onto the grey
    pad, it doesn't need lifting.", "... - no lifting." (one step of a push, a placing or a
    reach, forbidding what that step does not do)."""
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    asides = _ASIDE_PROHIBIT.get(item["plan"][0].skill)
    if asides is None:
        return None
    return _bare(goal) + _pick(asides, "aside|" + goal)


# -- group E ------------------------------------------------------------------------------
_PLACERS = {"put", "place", "move", "set", "stack"}


def place_first(goal: str, item: dict) -> str | None:
    """A fragment with the place first: "Grey mat - the red cube, thanks.", "For the yellow
    pad: the blue block." (one cube placed on a pad)."""
    c = clause(goal)
    if c is None or c.verb not in _PLACERS or not _single_step(item, "pick_place"):
        return None
    if c.prep not in {"on", "onto", "to"} or not _PAD_NP.match(c.place):
        return None
    place, bare = _lower_first(c.place), re.sub(r"^the ", "", c.place, flags=re.I)
    form = _pick(["{B} - {o}, thanks.", "For {p}: {o}.", "Onto {p}, {o}, if you would."], goal)
    return form.format(B=_upper_first(bare), p=place, o=_lower_first(c.obj))


_CHAINS = [
    "Grab {o}, take it across and lower it onto {p}.",
    "Lift {o} up, bring it over, then drop it on {p}.",
    "Pick {o} up, move it across and put it down on {p}.",
]


def verb_chain(goal: str, item: dict) -> str | None:
    """A placing said as a chain of verbs on one object: "Grab the red cube, take it across
    and lower it onto the left pad." (one pick_place)."""
    c = clause(goal)
    if c is None or c.verb not in _PLACERS or not _single_step(item, "pick_place"):
        return None
    if c.prep not in {"on", "onto", "to", "on top of"}:
        return None
    return _pick(_CHAINS, "chain|" + goal).format(o=_lower_first(c.obj), p=_lower_first(c.place))


def question_names(goal: str, item: dict) -> str | None:
    """A question that names the referent, then an instruction on it: "Which cube's nearest
    to you? Push that cube onto the grey pad.", "Is there a block in the middle? If there
    is, put it on the left pad." (one step on a cube said by its position)."""
    found = _step_on_position(goal, item)
    if found is None:
        return None
    c, p = found
    n, pred = p[0].lower(), p[1]
    forms = ["Which {n}'s {p}? {V} that {n}{r}.", "Do you see the {n} that's {p}? {V} it{r}."]
    if pred == "in the middle":  # "is there a cube furthest to the left?" is no question
        forms.append("Is there a {n} {p}? If there is, {v} it{r}.")
    form = _pick(forms, "names|" + goal)
    return form.format(n=n, p=pred, V=_upper_first(c.verb), v=c.verb, r=_rest(c))


def _other_cube(name: str, item: dict) -> str | None:
    cubes = sorted(n for n in _scene_cubes(item) if n.endswith("_cube") and n != name)
    return cubes[0].split("_")[0] if cubes else None


def cancel_step(goal: str, item: dict) -> str | None:
    """A correction or "instead" that cancels a step: "Don't put the red cube on the right
    pad; put it on the left pad instead.", "Wait, don't hover over the green cube. Go over
    the blue cube." (one placing, push or reach; the step cancelled goes to the other pad
    or another cube of the scene)."""
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    target = c.place or c.obj
    m = _PAD_NP.match(target)
    if m:
        other = _other_pad_said(m)
    else:
        m = _COLOUR_NP.match(target)
        if m is None or not c.place and item["plan"][0].skill != "reach":
            return None
        colour = m[1].lower()
        if c.place and colour in c.obj.lower():
            return None
        other_colour = _other_cube(f"{colour}_cube", item)
        if other_colour is None or other_colour in c.obj.lower():
            return None
        other = f"the {other_colour} {m[2].lower()}"
    if c.place:
        said = f"{c.verb} {_lower_first(c.obj)} {c.prep}"
        forms = [
            "Don't {s} {x}; {v} it {q} {y} instead.",
            "Wait, don't {s} {x}. {V} it {q} {y}.",
            "Scratch that - don't {s} {x}, {v} it {q} {y}.",
        ]
        args = {"s": said, "v": c.verb, "V": _upper_first(c.verb), "q": c.prep}
    else:
        forms = [
            "Don't {s} {x}; go over {y} instead.",
            "Wait, don't {s} {x}. Hover above {y}.",
            "Scratch that - don't {s} {x}, reach over {y}.",
        ]
        args = {"s": c.verb}
    form = _pick(forms, "cancel|" + goal)
    return form.format(x=other, y=_lower_first(target), **args)


_NO_HOME = [
    "; you don't have to go home after.",
    " - no need to return home afterwards.",
    ", and there's no need to head back home later.",
]


def no_home(goal: str, item: dict) -> str | None:
    """An aside that cancels a step nobody asked for: "...; you don't have to go home
    after." (a plan of one step that is not a return home)."""
    text = goal.strip()
    if text.endswith("?") or not _IMPERATIVE.match(text) or not _single_step(item):
        return None
    if item["plan"][0].skill == "home" or re.search(r"home", text, re.I):
        return None
    return _bare(text) + _pick(_NO_HOME, "home|" + goal)


_NO_LIFT_QUESTION = [
    "Could you {v} {o}{r}? You don't have to lift it.",
    "{V} {o}{r}, would you? No picking it up.",
    "Can you just {v} {o}{r}? It needn't be lifted.",
]


def push_no_lift(goal: str, item: dict) -> str | None:
    """A push asked as a question, then an aside that forbids lifting: "Could you push the
    red cube onto the grey pad? You don't have to lift it." (one push)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item, "push"):
        return None
    form = _pick(_NO_LIFT_QUESTION, "lift|" + goal)
    return form.format(v=c.verb, V=_upper_first(c.verb), o=_lower_first(c.obj), r=_rest(c))


_THEN3 = re.compile(
    r"^(?P<a>[^,;.]+?)(?:, then|,? and then|; then|\. Then) (?P<b>[^,;.]+?)"
    r"(?:, then|,? and then|; then|\. Then|, and finally|\. Finally,?) (?P<c>[^,;.]+?)\.?$",
    re.I,
)


def _plain_parts(parts: list[str] | tuple[str, ...]) -> bool:
    """Each part an imperative pointing at no other ("do the same" points back)."""
    return all(
        _IMPERATIVE.match(p) and not _PRONOUN.search(p) and not re.search(r"\bsame\b", p, re.I)
        for p in parts
    )


def _then_said(goal: str, item: dict, forms: list[str], key: str) -> str | None:
    """A goal "A, then B" of two plain parts (:func:`_plain_parts`) and two steps said by one
    of ``forms`` picked by ``key`` ({a}, {b} the parts, {B} the second capitalised)."""
    parts = _then_parts(goal, item)
    if parts is None or not _plain_parts(parts):
        return None
    a, b = parts
    return _pick(forms, key).format(B=_upper_first(b), a=_lower_first(a), b=_lower_first(b))


def order_said(goal: str, item: dict) -> str | None:
    """The order said in words against the order written: "Step two: B. Step one: A.",
    "B second and A first." (two steps); "C at the end, A at the start and B in the
    middle.", "C; prior to that, B; and prior to that, A." (three steps). The steps are
    clauses with no pronoun, one plan step each."""
    if item["expect"] != "plan":
        return None
    text = goal.strip()
    m = _THEN3.match(text)
    if m and len(item["plan"]) == 3:
        a, b, c = (m[k].strip() for k in "abc")
        if not _plain_parts([a, b, c]):
            return None
        form = _pick(
            [
                "{C} at the end, {a} at the start and {b} in the middle.",
                "{C}; prior to that, {b}; and prior to that, {a}.",
            ],
            "order3|" + goal,
        )
        return form.format(C=_upper_first(c), a=_lower_first(a), b=_lower_first(b))
    forms = [
        "Step two: {b}. Step one: {a}.",
        "{B} second and {a} first.",
        "{B} - but before everything, {a}.",
    ]
    return _then_said(goal, item, forms, "order2|" + goal)


_POLITE_REACH = [
    "Could you bring your gripper to just above {o}?",
    "Hold the gripper over {o} for a second, would you?",
    "Point out {o} for me by hovering above it.",
    "Put your hand right over {o}, please.",
]


def polite_reach(goal: str, item: dict) -> str | None:
    """A reach said politely or by its purpose: "Could you bring your gripper to just above
    the red cube?", "Point out the left pad for me by hovering above it." (one reach)."""
    c = clause(goal)
    if c is None or c.prep or not _single_step(item, "reach"):
        return None
    return _pick(_POLITE_REACH, "reach|" + goal).format(o=_lower_first(c.obj))


# -- group F ------------------------------------------------------------------------------
# Written for the structures held-out 12 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (a refusal, a question back, no motion,
# a turn to face the robot): those return ``(goal, fields)`` and the item takes ``fields``.
Relabelled = tuple[str, dict]


def _colour_of(np: str) -> str | None:
    m = _COLOUR_NP.match(np)
    return m[1].lower() if m else None


def _step(text: str):
    return parse_step(text)


def which_that(goal: str, item: dict) -> str | None:
    """A question about "one", then the command on "that cube / that one": "Out of the
    three, which one is furthest to the left? OK - push that cube onto the grey pad.", and
    a count said as a fragment: "Second one from the left - hover over that block." """
    c = clause(goal)
    if c is None or not _single_step(item) or not _flat_scene(item):
        return None
    m = re.match(rf"^the second ({_CUBE}) from the ({_SIDE})$", c.obj, re.I)
    if m:
        return f"Second one from the {m[2].lower()} - {c.verb} that {m[1].lower()}{_rest(c)}."
    p = _position(c.obj)
    if p is None:
        return None
    form = _pick(
        [
            "Out of the three, which one is {p}? OK - {v} that {n}{r}.",
            "Which one would you say is {p}? Right, {v} that one{r}.",
            "Which one's {p}, do you think? {V} that {n}{r}, please.",
        ],
        "which|" + goal,
    )
    return form.format(p=p[1], n=p[0].lower(), v=c.verb, V=_upper_first(c.verb), r=_rest(c))


def pad_named_first(goal: str, item: dict) -> str | None:
    """A pad said by its colour before the cube: "The grey mat is for the blue cube.", "Of
    the two pads, pick the yellow one and set the red cube onto it." (one placing onto a
    pad said by colour)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item, "pick_place"):
        return None
    m = _PAD_NP.match(c.place)
    if m is None or m[1].lower() not in {"yellow", "grey", "gray"}:
        return None
    colour, noun = m[1].lower(), m[2].lower()
    if c.verb not in {"put", "place", "set", "move"}:
        return None
    form = _pick(
        [
            "{C} {n}'s for {o}, please.",
            "The {c} {n} is for {o}.",
            "Of the two {n}s, pick the {c} one and {v} {o} onto it.",
            "Between the {n}s, go with the {c} one - {v} {o} there.",
        ],
        "padfirst|" + goal,
    )
    return form.format(C=colour.capitalize(), c=colour, n=noun, o=_lower_first(c.obj), v=c.verb)


def on_the_one_that(goal: str, item: dict) -> str | None:
    """A cube stacked on "the one that's <relation>": "Put the red cube on top of the one
    that's farthest from the robot." (a stack onto a cube the scene's positions single
    out; no tower)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item, "pick_place"):
        return None
    colour = _colour_of(c.place)
    cubes = _scene_cubes(item)
    if colour is None or not _flat_scene(item) or f"{colour}_cube" not in cubes:
        return None
    said = _relation_of(f"{colour}_cube", cubes)
    if said is None:
        return None
    said = said.replace("you", _pick(["you", "the robot"], goal))
    form = _pick(["on top of the one that's {s}", "onto whichever one is {s}"], "top|" + goal)
    return f"{_upper_first(c.verb)} {_lower_first(c.obj)} {form.format(s=said)}."


def exclusion(goal: str, item: dict) -> str | None:
    """A cube named by excluding the others: "Leave the green and blue cubes alone and push
    the other one onto the grey pad.", "Of the three blocks, red and green stay put; move
    the remaining one ...", "Not the blue cube - the red cube: put it on ..." (one step on
    a cube said by colour, three cubes on the table)."""
    c = clause(goal)
    if c is None or not _single_step(item) or not _flat_scene(item) or _cubes(item) != 3:
        return None
    colour = _colour_of(c.obj)
    if colour is None or colour in c.place.lower():
        return None
    a, b = _OTHER_COLOURS[colour]
    form = _pick(
        [
            "Leave the {a} and {b} cubes alone and {v} the other one{r}.",
            "Of the three blocks, {a} and {b} stay put; {v} the remaining one{r}.",
            "Not the {a} cube - the {x} cube: {v} it{r}.",
        ],
        "exclude|" + goal,
    )
    return form.format(a=a, b=b, x=colour, v=c.verb, r=_rest(c))


def replace_cube(goal: str, item: dict) -> str | None:
    """A correction that cancels one cube and puts another in its place: "Push the green
    cube onto the grey pad - no, hold on, don't move the green cube at all; push the red
    one there instead.", and a place asked then answered: "The right mat? Nope - the left
    mat. Hover above that." (one step)."""
    c = clause(goal)
    if c is None or not _single_step(item) or not _flat_scene(item):
        return None
    if not c.place and item["plan"][0].skill == "reach":
        m = _PAD_NP.match(c.obj)
        if m is None:
            return None
        other = _other_pad_said(m)
        return f"{_upper_first(other)}? Nope - {_lower_first(c.obj)}. Hover above that."
    colour = _colour_of(c.obj)
    if colour is None or not c.place or colour in c.place.lower():
        return None
    wrong = _pick([x for x in _OTHER_COLOURS[colour] if x not in c.place.lower()], goal)
    form = _pick(
        [
            "{V} the {w} cube{r} - no, hold on, don't move the {w} cube at all; {v} the {x} "
            "one there instead.",
            "{V} the {w} block{r}. Wait, no: leave the {w} block be and {v} the {x} block "
            "there instead.",
        ],
        "replace|" + goal,
    )
    return form.format(V=_upper_first(c.verb), v=c.verb, w=wrong, x=colour, r=_rest(c))


def anything_but(goal: str, item: dict) -> str | None:
    """A placing said by the one way it must not be done: "Anything but a push - get the
    red cube onto the grey pad." (one pick_place onto a pad)."""
    forms = [
        "Anything but a push - get {o} onto {p}.",
        "Whatever you do, no pushing: get {o} over to {p}.",
        "Any way except sliding it - {o} goes onto {p}.",
    ]
    return _placing_said(goal, item, forms, "anybut|")


def _placing_said(goal: str, item: dict, forms: list[str], key: str) -> str | None:
    """One placing onto a pad (a pick_place) said in one of ``forms`` ({o}: the cube, {p}:
    the pad), chosen by a hash of ``key`` and the goal."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item, "pick_place"):
        return None
    if _PAD_NP.match(c.place) is None:
        return None
    return _pick(forms, key + goal).format(o=_lower_first(c.obj), p=_lower_first(c.place))


def only_way_forbidden(goal: str, item: dict) -> Relabelled | None:
    """A request that forbids the only way to do it, to refuse: "Push the red cube onto the
    grey pad without the arm moving.", "Put the blue cube on the left pad, but the cube
    mustn't move an inch." (one step moving a cube or reaching)."""
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    said = f"{_upper_first(c.verb)} {_lower_first(c.obj)}{_rest(c)}"
    forms = [
        "{s} without the arm moving.",
        "{s}, keeping the robot completely still.",
        "{s} - and your arm stays exactly where it is.",
    ]
    if c.place:
        forms.append("{s}, but the cube mustn't move an inch.")
    return _pick(forms, "onlyway|" + goal).format(s=said), {"expect": "refuse", "plan": []}


_BEFORE_TOUCH = re.compile(r"^(?:hover|reach|go home|return home|move your gripper)\b", re.I)


def before_all(goal: str, item: dict) -> str | None:
    """The first step said last: "B. But before you lay a finger on any cube, A." (A a reach
    or a return home), "B; and ahead of all that, A.", "Backwards, please: B, then A." (two
    steps said "A, then B", no pronoun)."""
    parts = _then_parts(goal, item)
    if parts is None or not _plain_parts(parts):
        return None
    a, b = parts
    forms = [
        "{B}; and ahead of all that, {a}.",
        "Do them backwards, please: {b}, then {a}.",
    ]
    if _BEFORE_TOUCH.match(a) and item["plan"][0].skill in {"reach", "home"}:
        forms.append("{B}. But before you lay a finger on any cube, {a}.")
    form = _pick(forms, "beforeall|" + goal)
    return form.format(B=_upper_first(b), a=_lower_first(a), b=_lower_first(b))


def see_pop(goal: str, item: dict) -> str | None:
    """A question that points, then a placing said "pop / stick it on": "Spot the red
    cube? Pop it onto the grey pad." (one pick_place of a cube said by colour)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item, "pick_place"):
        return None
    colour = _colour_of(c.obj)
    if colour is None:
        return None
    form = _pick(
        [
            "Spot the {c} cube? Pop it onto {p}.",
            "You see the {c} block there? Stick it on {p}, please.",
            "Notice the {c} cube? Pop that on {p}.",
        ],
        "pop|" + goal,
    )
    return form.format(c=colour, p=_lower_first(c.place))


def _under(name: str, cubes: dict[str, tuple[float, ...]]) -> str | None:
    """The cube ``name`` stands on (the same x, y within 2 cm, one level lower)."""
    p = cubes[name]
    for other, q in cubes.items():
        if other != name and math.dist(p[:2], q[:2]) < 0.02 and 0.03 < p[2] - q[2] < 0.05:
            return other
    return None


def lift_off(goal: str, item: dict) -> str | None:
    """A cube standing on another taken off and put down: "The green cube sitting on the
    red one - take it off and set it on the grey pad." (one pick_place of a stacked cube
    onto a pad, whatever the goal's wording)."""
    if not _single_step(item, "pick_place"):
        return None
    cubes = _scene_cubes(item)
    name, target = (item["plan"][0].params.get(k) for k in ("object", "target"))
    if not isinstance(target, str) or target not in {"left_pad", "right_pad"}:
        return None
    side = target.split("_")[0]
    place = _pick([f"the {side} pad", f"the {'yellow' if side == 'left' else 'grey'} pad"], goal)
    if name not in cubes or cubes[name][2] < 0.04:
        return None
    below = _under(name, cubes)
    if below is None:
        return None
    top, low = name.split("_")[0], below.split("_")[0]
    form = _pick(
        [
            "The {t} cube sitting on the {b} one - take it off and set it on {p}.",
            "Lift the {t} block off the {b} block and put it down on {p}.",
        ],
        "liftoff|" + goal,
    )
    return form.format(t=top, b=low, p=place)


_NOT_A_SKILL = [
    "Weigh {o}, would you?",
    "Tuck {o} away under the table, out of sight.",
    "Put {o} on the kitchen scales and tell me its weight.",
    "Measure how tall {o} is with a ruler.",
]


def not_a_skill(goal: str, item: dict) -> Relabelled | None:
    """An activity no skill does, on a cube the goal names, to refuse: "Weigh the red cube,
    would you?", "Tuck the blue cube away under the table, out of sight." """
    c = clause(goal)
    if c is None or _colour_of(c.obj) is None:
        return None
    said = _pick(_NOT_A_SKILL, "noskill|" + goal).format(o=_lower_first(c.obj))
    return said, {"expect": "refuse", "plan": []}


def place_unsaid(goal: str, item: dict) -> Relabelled | None:
    """A cube moved with its place or amount left unsaid, to ask back where: "Nudge the red
    cube a little.", "Bring the blue block nearer.", "Stack the green cube." (a step on a
    cube said by colour; the question back names the scene's places)."""
    c = clause(goal)
    if c is None or not c.place or _colour_of(c.obj) is None:
        return None
    if not _single_step(item) or item["plan"][0].skill not in {"push", "pick_place"}:
        return None
    form = _pick(
        ["Nudge {o} a little.", "Bring {o} nearer.", "Stack {o}.", "Shift {o} over a touch."],
        "unsaid|" + goal,
    )
    return form.format(o=_lower_first(c.obj)), {"expect": "clarify", "plan": []}


def small_talk(goal: str, item: dict) -> Relabelled | None:
    """Small talk about a cube the goal names, asking for no motion: "Nice, the red cube's
    fine - leave it like that.", "Never mind about the blue cube, forget what I asked." """
    c = clause(goal)
    colour = c and _colour_of(c.obj)
    if not colour:
        return None
    form = _pick(
        [
            "Nice, the {c} cube's fine - leave it like that.",
            "Never mind about the {c} cube, forget what I asked.",
            "Cool, the {c} block is good where it is; leave it.",
        ],
        "talk|" + goal,
    )
    return form.format(c=colour), {"expect": "plan", "plan": []}


def _turned_cube(goal: str, item: dict) -> re.Match | None:
    """ "the <colour> <cube>" in a goal of one turn of that cube, the only cube it names."""
    if not _single_step(item, "turn"):
        return None
    name = item["plan"][0].params.get("object")
    m = re.search(rf"\bthe ({_COLOUR}) ({_CUBE})\b", goal, re.I)
    if m is None or name != f"{m[1].lower()}_cube" or len(_CUBE_BY_COLOUR.findall(goal)) != 1:
        return None
    return m


def straighten(goal: str, item: dict) -> Relabelled | None:
    """A turn said by the face it should show: "Straighten out the red cube so one of its
    faces is towards you." (one turn; the label turns the same cube to face the robot)."""
    m = _turned_cube(goal, item)
    if m is None:
        return None
    form = _pick(
        [
            "Straighten out the {c} {n} so one of its faces is towards you.",
            "Line the {c} {n} up so that one side looks straight at you.",
        ],
        "straight|" + goal,
    )
    said = form.format(c=m[1].lower(), n=m[2].lower())
    return said, {"plan": [_step(f"turn {m[1].lower()}_cube face_robot")]}


def _tower3(plan) -> tuple[str, str, str] | None:
    """(bottom, middle, top) colours of a tower of three said as two stacks (the middle cube
    onto the bottom one, then the top cube onto the middle one); None for any other plan."""
    if len(plan) != 2 or any(s.skill != "pick_place" for s in plan):
        return None
    a, b = plan[0].params.get("object"), plan[0].params.get("target")
    if plan[1].params.get("target") != a or not all(
        isinstance(n, str) and n.endswith("_cube") for n in (a, b, plan[1].params["object"])
    ):
        return None
    return tuple(n.split("_")[0] for n in (b, a, plan[1].params["object"]))


def _tower3_said(item: dict, forms: list[str], key: str) -> str | None:
    """A tower of three built on a cube on the table (:func:`_tower3`) said by one of
    ``forms`` picked by ``key`` ({l}, {m}, {t} the colours bottom to top, {L} the bottom one
    capitalised); None for any other plan or a scene with a tower."""
    tower = _tower3(item["plan"]) if item["expect"] == "plan" else None
    if tower is None or not _flat_scene(item):
        return None
    low, mid, top = tower
    return _pick(forms, key).format(l=low, L=low.capitalize(), m=mid, t=top)


def tower_said(goal: str, item: dict) -> str | None:
    """A tower of three said bottom to top: "Tower from the bottom up: red, green, blue.",
    "Red at the base, green in the middle and blue on top - stack them." (two stacks
    building one tower on a cube on the table)."""
    forms = [
        "Tower from the bottom up: {l}, {m}, {t}.",
        "{L} at the base, {m} in the middle and {t} on top - stack them.",
        "Make a stack: {l} lowest, {m} next, {t} at the very top.",
    ]
    return _tower3_said(item, forms, "tower|" + goal)


def whole_tower(goal: str, item: dict) -> Relabelled | None:
    """A tower moved as one, which no skill does, to refuse: "Carry the whole tower over
    to the grey pad." (a scene with a cube standing on another)."""
    cubes = _scene_cubes(item)
    if not any(_under(n, cubes) for n in cubes if n.endswith("_cube")):
        return None
    pad = _pick(["the grey pad", "the yellow pad", "the left mat"], goal)
    form = _pick(
        ["Carry the whole tower over to {p}.", "Shift the entire stack onto {p} in one go."],
        "whole|" + goal,
    )
    return form.format(p=pad), {"expect": "refuse", "plan": []}


# -- group G ------------------------------------------------------------------------------
# Written for the structures held-out 13 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (a branch of a condition, a question
# back, no motion, a refusal): those return ``(goal, fields)``.
_REGISTRY_WORLD: list = []


def _valid(steps: list, item: dict) -> bool:
    """``steps`` pass the shipped cards' validation in the goal's scene."""
    from miles_ros.agent.registry import SkillRegistry
    from miles_ros.agent.validation import validate_plan
    from miles_ros.agent.world import load_world

    if not _REGISTRY_WORLD:
        _REGISTRY_WORLD.extend([SkillRegistry.load(), load_world()])
    registry, world = _REGISTRY_WORLD
    if item["objects"]:
        world = world.copy()
        world.objects.update(item["objects"])
    return not validate_plan(steps, registry, world)


def _wrong_place(c: Clause, item: dict) -> str | None:
    """The place (or reached thing) a correction gives up: the other pad, or another cube
    of the scene than the one acted on."""
    target = c.place or c.obj
    m = _PAD_NP.match(target)
    if m:
        return _other_pad_said(m)
    m = _COLOUR_NP.match(target)
    if m is None or (not c.place and item["plan"][0].skill != "reach"):
        return None
    colour = m[1].lower()
    if c.place and colour in c.obj.lower():
        return None
    others = [
        x
        for x in _OTHER_COLOURS[colour]
        if f"{x}_cube" in _scene_cubes(item) and x not in c.obj.lower()
    ]
    if not others:
        return None
    return f"the {_pick(others, 'wrong|' + item['goal'])} {m[2].lower()}"


def cancel_after(goal: str, item: dict) -> str | None:
    """A step said, then cancelled and replaced after it: "Put the red cube on the right
    pad... no, don't, put it on the left pad instead.", "... - scratch that, the left
    pad.", "... . Actually not the right pad - the left pad." (one placing, push or reach;
    the cancelled place must not be planned)."""
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    wrong = _wrong_place(c, item)
    if wrong is None or (c.place and wrong.lower() in c.obj.lower()):
        return None
    right = _lower_first(c.place or c.obj)
    if c.place:
        forms = [
            "{V} {o} {q} {x}... no, don't do that, {v} it {q} {y} instead.",
            "{V} {o} {q} {x} - scratch that, {y}.",
            "{V} {o} {q} {x}. Actually not {x} - {y}.",
            "{V} {o} {q} {x}; no wait, make that {y}.",
        ]
    else:
        forms = [
            "Hover over {x}... no, don't - hover over {y} instead.",
            "Go above {x} - scratch that, {y}.",
            "Hover above {x}. Actually not {x} - {y}.",
        ]
    form = _pick(forms, "after|" + goal)
    return form.format(
        V=_upper_first(c.verb), v=c.verb, o=_lower_first(c.obj), q=c.prep, x=wrong, y=right
    )


_ELSE = [("just go home", "home"), ("hover over the {b} cube instead", "reach {b}_cube")]


def condition(goal: str, item: dict) -> Relabelled | None:
    """A condition on the scene with two branches, one planned: "If the red cube is
    further left than the blue one, put it on the right pad; otherwise just go home." (the
    goal's step when the scene makes the condition hold by 2 cm or more, else the other
    branch; never both)."""
    c = clause(goal)
    if c is None or not _single_step(item) or not _flat_scene(item):
        return None
    a = _colour_of(c.obj)
    cubes = _scene_cubes(item)
    if a is None or f"{a}_cube" not in cubes:
        return None
    b = _other_colour(a, cubes, "condb|" + goal, c.place)
    if b is None:
        return None
    p, q = cubes[f"{a}_cube"], cubes[f"{b}_cube"]
    said, score = _pick(list(_COMPARATIVES), "condc|" + goal)
    if abs(score(p) - score(q)) < 0.02:
        return None  # too close to call: the condition is no fact of the scene
    other, step = _pick(_ELSE, "conde|" + goal)
    other, step = other.format(b=b), step.format(b=b)
    form = _pick(
        [
            "If the {a} cube is {s} the {b} one, {v} it{r}; otherwise {e}.",
            "Should the {a} block be {s} the {b} block, {v} it{r}. If it isn't, {e}.",
            "{V} the {a} cube{r}, but only if it's {s} the {b} cube - if not, {e}.",
        ],
        "cond|" + goal,
    )
    said_goal = form.format(
        a=a, b=b, s=said, v=c.verb, V=_upper_first(c.verb), r=_rest(c), e=other
    )
    holds = score(p) > score(q)
    plan = item["plan"] if holds else [_step(step)]
    return said_goal, {"expect": "plan", "plan": plan}


def _planned(plan: list, item: dict, forms: list[str], key: str, **said) -> Relabelled | None:
    """``plan`` as the label of one of ``forms`` picked by ``key`` (its fields ``said``),
    where the plan passes the cards in the goal's scene; None where it does not."""
    if not _valid(plan, item):
        return None
    return _pick(forms, key).format(**said), {"expect": "plan", "plan": plan}


_AGAIN = [
    "{S}. Same again, but with the {b} cube this time.",
    "{S}, then do that again with the {b} block.",
    "{S}. Now the same for the {b} cube, please.",
]


def same_again(goal: str, item: dict) -> Relabelled | None:
    """A step, then "same again, but with the blue cube": the step said before, repeated on
    the cube named (one placing onto a pad, or a reach, of a cube said by colour; the two
    steps pass the cards in the scene)."""
    c = clause(goal)
    if c is None or not _single_step(item) or item["plan"][0].skill not in {"pick_place", "reach"}:
        return None
    a = _colour_of(c.obj)
    cubes = _scene_cubes(item)
    if a is None or not _flat_scene(item):
        return None
    b = _other_colour(a, cubes, "againb|" + goal, c.place)
    if b is None:
        return None
    first = item["plan"][0]
    if str(first.params.get("target", "")).endswith("_cube"):
        return None  # a second cube onto the same cube: that cube is covered by then
    params = {**first.params, "object": f"{b}_cube"}
    text = " ".join([first.skill, *(str(v) for v in params.values())])
    plan = [first, _step(text)]
    return _planned(plan, item, _AGAIN, "again|" + goal, S=_bare(goal), b=b)


_AGAIN_ALONE = [
    "Same again, but with the {b} cube this time.",
    "Do that again with the {b} block.",
    "And now the same for the {b} cube, please.",
    "Repeat that, only with the {b} cube.",
]


def same_unsaid(goal: str, item: dict) -> Relabelled | None:
    """ "Do that again with the blue block." with nothing said before it to repeat: asked
    back (the goal's cube by colour)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a:
        return None
    said = _pick(_AGAIN_ALONE, "alone|" + goal).format(b=a)
    return said, {"expect": "clarify", "plan": []}


_STILL = [
    "Do nothing for now, thanks.",
    "Nothing else, thanks.",
    "That's all, no more moves.",
    "Hold on, don't do anything yet.",
    "Let's stop here - nothing more for now.",
    "I'm done, no more tasks today.",
    "Hold off on the {c} cube for now - don't do anything yet.",
    "Nothing for the {c} cube today, thanks.",
    "The {c} block is fine as it is, no more moves.",
]


def no_motion(goal: str, item: dict) -> Relabelled | None:
    """A goal asking for no motion, as an empty plan (the dev sets' label for "Cool, leave
    it like that."): "Do nothing for now, thanks.", "Hold off on the red cube for now -
    don't do anything yet." """
    c = clause(goal)
    colour = c and _colour_of(c.obj)
    forms = _STILL if colour else [f for f in _STILL if "{c}" not in f]
    return _pick(forms, "still|" + goal).format(c=colour), {"expect": "plan", "plan": []}


def tower_up(goal: str, item: dict) -> str | None:
    """A tower said bottom to top: "Red at the bottom, then green, then blue on top.",
    "Start with red on the table, put green on it, and finish with blue." (two stacks on a
    cube on the table), "Blue on the bottom, red on top." (one stack)."""
    plan = item["plan"]
    if item["expect"] != "plan" or not _flat_scene(item):
        return None
    if len(plan) == 1 and plan[0].skill == "pick_place":
        top, low = plan[0].params.get("object"), plan[0].params.get("target")
        if not (isinstance(low, str) and low.endswith("_cube")):
            return None
        form = _pick(
            [
                "{B} on the bottom, {a} on top.",
                "A two-cube stack: {b} underneath, {a} above it.",
                "Start with {b} on the table and finish with {a} on it.",
            ],
            "up2|" + goal,
        )
        b, a = low.split("_")[0], top.split("_")[0]
        return form.format(B=b.capitalize(), b=b, a=a)
    forms = [
        "{L} at the bottom, then {m}, then {t} on top.",
        "Start with {l} on the table, put {m} on it, and finish with {t}.",
        "Build a tower with {l} as its base, {m} above that and {t} at the very top.",
    ]
    return _tower3_said(item, forms, "up3|" + goal)


def _top_then_next_onto_pads(item: dict) -> tuple[str, str] | None:
    """("the left pad", "the right pad")-like names of the two pads of a plan that places a
    tower's top cube and then the cube it stood on onto pads; None for any other plan."""
    plan = item["plan"]
    if item["expect"] != "plan" or len(plan) != 2 or any(s.skill != "pick_place" for s in plan):
        return None
    cubes = _scene_cubes(item)
    top, nxt = (s.params.get("object") for s in plan)
    pads = [s.params.get("target") for s in plan]
    if top not in cubes or nxt != _under(top, cubes):
        return None
    if any(_under(n, cubes) == top for n in cubes):
        return None  # a cube stands on the one taken first: it is no top
    if not all(p in {"left_pad", "right_pad"} for p in pads):
        return None
    p, q = (f"the {x.split('_')[0]} pad" for x in pads)
    return p, q


def _pads_said(item: dict, forms: list[str], key: str) -> str | None:
    """A tower's top cube and then the cube under it placed onto pads (the plan
    :func:`_top_then_next_onto_pads` names), said by one of ``forms`` picked by ``key``
    ({p} the first pad, {q} the second); None for any other plan."""
    pads = _top_then_next_onto_pads(item)
    return None if pads is None else _pick(forms, key).format(p=pads[0], q=pads[1])


def take_apart(goal: str, item: dict) -> str | None:
    """A tower taken down from the top: "Unstack it: top cube onto the right pad, then the
    next one down onto the left pad." (two placings onto pads, the second of the cube the
    first stood on)."""
    forms = [
        "Unstack it: top cube onto {p}, then the next one down onto {q}.",
        "Take the stack down one by one - the top block to {p}, then the one under it to {q}.",
    ]
    return _pads_said(item, forms, "apart|" + goal)


_HOLD = [
    "Keep the gripper hovering above {o} for a moment.",
    "Move the gripper over {o} and stay there.",
    "Park above {o} and wait there.",
    "Go and hold position above {o}.",
]


def hold_over(goal: str, item: dict) -> str | None:
    """A reach said as a hold or a wait: "Move the gripper over the red cube and stay
    there.", "Park above the left pad and wait there." (one reach)."""
    c = clause(goal)
    if c is None or c.prep or not _single_step(item, "reach"):
        return None
    return _pick(_HOLD, "hold|" + goal).format(o=_lower_first(c.obj))


def pad_side(goal: str, item: dict) -> str | None:
    """A pad said by its side of the table: "the right-hand pad", "the pad over on the
    left", "the pad at the right end of the table" (the first pad the goal names)."""
    m = _PAD_NP_IN.search(goal)
    if m is None:
        return None
    side = _PAD_SIDE[m[1].lower()]
    form = _pick(
        ["the {s}-hand {n}", "the {n} over on the {s}", "the {n} at the {s} end of the table"],
        "side|" + goal,
    )
    return goal[: m.start()] + form.format(s=side, n=m[2].lower()) + goal[m.end() :]


def no_pushing(goal: str, item: dict) -> str | None:
    """Every push ruled out for the day, then a placing: "I'd rather you didn't push
    anything today - get the red cube onto the grey pad." (one pick_place onto a pad)."""
    forms = [
        "I'd rather you didn't push anything today - get {o} onto {p}.",
        "Pushing is off the table for now; get {o} onto {p}.",
        "No pushing of any cube this time: get {o} onto {p}.",
    ]
    return _placing_said(goal, item, forms, "nopush|")


def no_way(goal: str, item: dict) -> Relabelled | None:
    """Both ways of moving a cube ruled out, then the cube moved, to refuse: "Don't slide it
    and don't lift it either - just get the red cube onto the grey pad." (a placing or a
    push onto a pad)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item):
        return None
    if item["plan"][0].skill not in {"push", "pick_place"} or _PAD_NP.match(c.place) is None:
        return None
    form = _pick(
        [
            "Don't slide it and don't lift it either - just get {o} onto {p}.",
            "No pushing and no lifting: just get {o} over to {p}.",
            "Get {o} onto {p}, but don't pick it up and don't push it.",
        ],
        "noway|" + goal,
    )
    said = form.format(o=_lower_first(c.obj), p=_lower_first(c.place))
    return said, {"expect": "refuse", "plan": []}


# -- group H ------------------------------------------------------------------------------
_NO_SKILL_RELATION = [
    "Tuck {o} under {y}.",
    "Slip {o} underneath {y}, please.",
    "Can you stand {o} up on one of its edges?",
    "Get {o} to balance on a corner.",
    "Balance {o} on its corner on {p}.",
    "Wedge {o} beneath {y}.",
]


def no_relation(goal: str, item: dict) -> Relabelled | None:
    """A verb naming a relation no skill makes, to refuse (never a placing on top): "Tuck
    the red cube under the blue cube.", "Can you stand the red cube up on one of its
    edges?", "Balance the red cube on its corner on the left pad." """
    c = clause(goal)
    a = c and _colour_of(c.obj)
    cubes = _scene_cubes(item)
    if not a or not _flat_scene(item):
        return None
    y = _other_colour(a, cubes, "rely|" + goal)
    if y is None:
        return None
    y = f"the {y} cube"
    form = _pick(_NO_SKILL_RELATION, "rel|" + goal)
    if "{p}" in form and not (c.place and _PAD_NP.match(c.place)):
        form = _NO_SKILL_RELATION[2]
    said = form.format(o=_lower_first(c.obj), y=y, p=_lower_first(c.place))
    return _upper_first(said), {"expect": "refuse", "plan": []}


def _placing_onto_pad(goal: str, item: dict) -> Clause | None:
    """The clause of a goal of one placing onto a pad in a scene with no tower."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item, "pick_place"):
        return None
    if _PAD_NP.match(c.place) is None or not _flat_scene(item):
        return None
    return c


def kept_down(goal: str, item: dict) -> Relabelled | None:
    """A manner that leaves only a push: "Keep the red cube on the table the whole time and
    get it over to the left pad.", "Get the red cube onto the grey pad without lifting it."
    (from one placing onto a pad: the push when the push card passes in the scene, else a
    refusal: the only other skill is ruled out)."""
    c = _placing_onto_pad(goal, item)
    if c is None:
        return None
    first = item["plan"][0]
    push = [_step(f"push {first.params['object']} {first.params['target']}")]
    form = _pick(
        [
            "Keep {o} on the table the whole time and get it over to {p}.",
            "Get {o} onto {p} without lifting it off the table.",
            "{O} mustn't leave the table - move it onto {p}.",
            "Without raising it at all, get {o} across to {p}.",
        ],
        "down|" + goal,
    )
    said = form.format(o=_lower_first(c.obj), O=_upper_first(c.obj), p=_lower_first(c.place))
    if _valid(push, item):
        return said, {"expect": "plan", "plan": push}
    return said, {"expect": "refuse", "plan": []}


def push_stacked(goal: str, item: dict) -> Relabelled | None:
    """A push of a cube with another stacked on it first, to refuse: "Slide the red cube onto
    the right pad, but put the green cube on top of it before you do." (from one push of a
    cube by colour onto a pad)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item, "push") or not _flat_scene(item):
        return None
    if _PAD_NP.match(c.place) is None:
        return None
    cubes = _scene_cubes(item)
    y = _other_colour(a, cubes, "stky|" + goal)
    if y is None:
        return None
    form = _pick(
        [
            "{V} {o} onto {p}, but put the {y} cube on top of it before you do.",
            "Stack the {y} block on {o} and then {v} {o} over to {p}.",
            "First set the {y} cube on {o}; after that, {v} {o} onto {p}.",
        ],
        "stk|" + goal,
    )
    said = form.format(
        V=_upper_first(c.verb), v=c.verb, o=_lower_first(c.obj), p=_lower_first(c.place), y=y
    )
    return said, {"expect": "refuse", "plan": []}


def topic_verbs(goal: str, item: dict) -> str | None:
    """A topic then a verb with no object: "Red cube: slide onto the left pad.", "The blue
    block - push over to the grey mat, please." (one push or placing)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item):
        return None
    form = _pick(
        ["{O}: {v} {q} {p}.", "{O} - {v} {q} {p}, please.", "{O}; {v} {q} {p} for me."],
        "tverb|" + goal,
    )
    return form.format(O=_upper_first(c.obj), v=c.verb, q=c.prep, p=_lower_first(c.place))


def turn_then(goal: str, item: dict) -> Relabelled | None:
    """A turn said as what comes before the move: "After a 25-degree turn, the red cube
    should end up on the left pad." (from one placing of a cube onto a pad: the turn, then
    the placing, where both pass the cards in the scene)."""
    c = _placing_onto_pad(goal, item)
    if c is None:
        return None
    first = item["plan"][0]
    n = _pick(["20", "25", "30", "40"], "tdeg|" + goal)
    plan = [_step(f"turn {first.params['object']} {n}"), first]
    forms = [
        "After a {n}-degree turn, {o} should end up on {p}.",
        "Once {o} has been turned {n} degrees, it should go onto {p}.",
        "{O}: a {n} degree turn first, and then it belongs on {p}.",
    ]
    o, p = _lower_first(c.obj), _lower_first(c.place)
    return _planned(plan, item, forms, "turn|" + goal, n=n, o=o, O=_upper_first(c.obj), p=p)


_ASKED = (
    ("to the left of", lambda p: p[1]),
    ("to the right of", lambda p: -p[1]),
    ("nearer to you than", lambda p: -((p[0] ** 2 + p[1] ** 2) ** 0.5)),
    ("farther from you than", lambda p: (p[0] ** 2 + p[1] ** 2) ** 0.5),
)


def asked_condition(goal: str, item: dict) -> Relabelled | None:
    """A condition asked as a question: "Is the red cube to the left of the blue one? If
    so, hover over the red cube - otherwise over the blue one." (one reach or placing of a
    cube by colour; the branch the scene's positions choose, by 2 cm or more, nothing
    else)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item) or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    b = _other_colour(a, cubes, "askb|" + goal, c.place)
    if b is None:
        return None
    said, score = _pick(list(_ASKED), "askc|" + goal)
    p, q = cubes[f"{a}_cube"], cubes[f"{b}_cube"]
    if abs(score(p) - score(q)) < 0.02:
        return None
    form = _pick(
        [
            "Is the {a} cube {s} the {b} one? If so, {S}; otherwise hover over the {b} cube.",
            "Is the {a} block {s} the {b} block? If it is, {S}. If not, go to the {b} block.",
            "Tell me - is the {a} cube {s} the {b} cube? Yes: {S}. No: hover above the {b} cube.",
        ],
        "ask|" + goal,
    )
    holds = score(p) > score(q)
    plan = item["plan"] if holds else [_step(f"reach {b}_cube")]
    return form.format(a=a, b=b, s=said, S=_lower_first(_bare(goal))), {
        "expect": "plan",
        "plan": plan,
    }


_STILL_OTHER = [
    "Just leave things the way they are.",
    "Keep it all as it is, thanks.",
    "That's plenty - nothing more, thank you.",
    "That'll be all for now, nothing else.",
    "Not now - I'll let you know when.",
    "Hang on, not yet; I'll say when.",
    "All good, you can stop there.",
]


def still_other(goal: str, item: dict) -> Relabelled | None:
    """No motion, in other words than group G's: "Just leave things the way they are.",
    "That's plenty - nothing more, thank you.", "Not now - I'll let you know when." (an
    empty plan)."""
    if clause(goal) is None:
        return None
    return _pick(_STILL_OTHER, "still2|" + goal), {"expect": "plan", "plan": []}


def _dist(p: tuple[float, ...]) -> float:
    return (p[0] ** 2 + p[1] ** 2) ** 0.5


def _ranked(cubes: dict[str, tuple[float, ...]], score) -> list[str] | None:
    """The cubes by ``score``, highest first; None unless each is 2 cm or more apart."""
    names = sorted(cubes, key=lambda n: -score(cubes[n]))
    values = [score(cubes[n]) for n in names]
    if any(u - v < 0.02 for u, v in zip(values, values[1:], strict=False)):
        return None
    return names


def second_nearest(goal: str, item: dict) -> str | None:
    """A cube by its rank: "the second-nearest cube to you", "the second-farthest block
    from you" (for a cube said by colour that is second by 2 cm or more, three cubes or
    more on the table)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    cubes = _scene_cubes(item)
    if not a or not _flat_scene(item) or len(cubes) < 3:
        return None
    said = _pick(
        [("second-nearest", lambda p: -_dist(p)), ("second-farthest", _dist)], "sn|" + goal
    )
    ranked = _ranked(cubes, said[1])
    if ranked is None or ranked[1] != f"{a}_cube":
        return None
    word = "to" if said[0] == "second-nearest" else "from"
    np = _pick(
        [f"the {said[0]} cube {word} you", f"the {said[0]} block {word} you"], "snn|" + goal
    )
    return goal.replace(c.obj, np, 1)


_SWEEPS = (
    ("nearest to farthest", lambda p: -_dist(p)),
    ("farthest to nearest", _dist),
    ("left to right", lambda p: p[1]),
    ("right to left", lambda p: -p[1]),
)


def sweep(goal: str, item: dict) -> Relabelled | None:
    """A visit of every cube in an order said by a relation: "Visit the cubes from nearest to
    farthest, hovering over each one.", "Sweep across the blocks left to right, stopping
    above each." (a reach of each cube in that order; cubes 2 cm or more apart on it)."""
    cubes = _scene_cubes(item)
    if not _flat_scene(item) or len(cubes) < 2 or clause(goal) is None:
        return None
    said, score = _pick(list(_SWEEPS), "swp|" + goal)
    ranked = _ranked(cubes, score)
    if ranked is None:
        return None
    plan = [_step(f"reach {n}") for n in ranked]
    forms = [
        "Visit the cubes from {s}, hovering over each one.",
        "Sweep across the blocks {s}, stopping above each.",
        "Go over every cube in order, {s}.",
    ]
    return _planned(plan, item, forms, "swf|" + goal, s=said)


def compare_two(goal: str, item: dict) -> str | None:
    """Two cubes compared, the one that wins goes: "Compare the red and the blue cube: the
    one farther from you goes onto the left pad." (one placing or push of a cube by colour
    onto a pad, 2 cm or more ahead of the other cube named)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _single_step(item) or not _flat_scene(item):
        return None
    if _PAD_NP.match(c.place) is None:
        return None
    cubes = _scene_cubes(item)
    b = _other_colour(a, cubes, "cmpb|" + goal)
    if b is None:
        return None
    options = [
        ("farther from you", _dist),
        ("nearer to you", lambda p: -_dist(p)),
        ("further left", lambda p: p[1]),
        ("further right", lambda p: -p[1]),
    ]
    wins = [s for s, f in options if f(cubes[f"{a}_cube"]) >= f(cubes[f"{b}_cube"]) + 0.02]
    if not wins:
        return None
    s = _pick(wins, "cmps|" + goal)
    x, y = _pick([(a, b), (b, a)], "cmpo|" + goal)
    form = _pick(
        [
            "Compare the {x} and the {y} cube: the one {s} - {v} it {q} {p}.",
            "Look at the {x} block and the {y} block; whichever is {s}, {v} that one {q} {p}.",
        ],
        "cmp|" + goal,
    )
    return form.format(x=x, y=y, s=s, v=c.verb, q=c.prep, p=_lower_first(c.place))


# -- group I ------------------------------------------------------------------------------
# Written for the structures held-out 15 showed, in other wordings, before the round that
# reads them; never tuned on (only its rate and each transformation's are read).
_NOWHERE = [
    "the bookshelf",
    "the stool",
    "my lunchbox",
    "the recycling bin",
    "the kitchen counter",
    "her notebook",
    "the radiator",
    "that shoebox",
]


def nowhere(goal: str, item: dict) -> Relabelled | None:
    """A place whose noun names nothing in the scene or the skills' repertoire, to refuse:
    "Set the red cube down on the bookshelf.", "Slide the blue block into the recycling
    bin." (from one placing or push of a cube by colour)."""
    c = clause(goal)
    if c is None or not c.place or _colour_of(c.obj) is None or not _single_step(item):
        return None
    place = _pick(_NOWHERE, "nowhere|" + goal)
    form = _pick(
        [
            "{V} {o} onto {p}.",
            "Could you {v} {o} over to {p}?",
            "{O} goes on {p}, please.",
            "I'd like {o} moved to {p}.",
        ],
        "nowf|" + goal,
    )
    said = form.format(
        V=_upper_first(c.verb), v=c.verb, o=_lower_first(c.obj), O=_upper_first(c.obj), p=place
    )
    return said, {"expect": "refuse", "plan": []}


_FAR_POINTS = ["0.30, 0.05, 0.75", "0.95, 0.00, 0.20", "0.40, -0.60, 0.15", "0.50, 0.45, 0.30"]


def far_point(goal: str, item: dict) -> Relabelled | None:
    """A point said by coordinates outside reach's workspace, to refuse (never a pad or a
    cube near it): "Take your gripper up to 0.30, 0.05, 0.75." (from one reach)."""
    if not _single_step(item, "reach"):
        return None
    point = _pick(_FAR_POINTS, "farpt|" + goal)
    form = _pick(
        [
            "Take your gripper up to {x}.",
            "Move the hand to x y z = {x}, please.",
            "Could you stretch out to the point {x}?",
        ],
        "farf|" + goal,
    )
    return form.format(x=point), {"expect": "refuse", "plan": []}


_FORGET = [
    "Forget about the {c} cube.",
    "Never mind the {c} block after all.",
    "Leave the {c} cube be, actually.",
    "Oh, forget the {c} one - never mind.",
]


def forget_alone(goal: str, item: dict) -> Relabelled | None:
    """ "Never mind X / forget X / leave X be" said alone: no motion ("Forget about the red
    cube.")."""
    c = clause(goal)
    colour = c and _colour_of(c.obj)
    if not colour:
        return None
    return _pick(_FORGET, "forget|" + goal).format(c=colour), {"expect": "plan", "plan": []}


def forget_other(goal: str, item: dict) -> str | None:
    """ "Never mind X" beside a request on another cube, which alone is planned: "Forget the
    blue block; hover over the red cube." (one step on a cube said by colour, X another
    cube of the scene the step does not touch)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    cubes = _scene_cubes(item)
    b = _other_colour(a, cubes, "forgetb|" + goal, c.place)
    if b is None:
        return None
    form = _pick(
        [
            "Forget the {b} block; {s}.",
            "Never mind the {b} cube - just {s}.",
            "Leave the {b} cube be and {s}.",
        ],
        "forgetf|" + goal,
    )
    return form.format(b=b, s=_lower_first(_bare(goal)))


_NO_SKILL_VERB = [
    "Scan {o} with your camera.",
    "Take a photo of {o} for me.",
    "Sniff {o} and tell me what it smells of.",
    "Read the label stuck on {o} aloud.",
    "Could you weigh {o} in your hand?",
    "Paint {o} white.",
]


def no_skill_verb(goal: str, item: dict) -> Relabelled | None:
    """A verb no skill has, with a cube as its object, to refuse (never a reach of it):
    "Scan the red cube with your camera.", "Take a photo of the blue block for me." """
    c = clause(goal)
    if c is None or _colour_of(c.obj) is None:
        return None
    said = _pick(_NO_SKILL_VERB, "nsverb|" + goal).format(o=_lower_first(c.obj))
    return said, {"expect": "refuse", "plan": []}


def _tower_pairs(cubes: dict[str, tuple[float, ...]]) -> list[tuple[str, str]]:
    """(top, the cube it stands on) for each cube standing on another."""
    return [(n, _under(n, cubes)) for n in cubes if _under(n, cubes)]


def push_tower(goal: str, item: dict) -> Relabelled | None:
    """A push of a tower (a stacked cube), to refuse, never a placing of its top: "Shove the
    stack over to the grey mat.", "Slide the tower onto the left pad." (a scene with a cube
    standing on another)."""
    cubes = _scene_cubes(item)
    if not _tower_pairs(cubes):
        return None
    pad = _pick(["the grey mat", "the left pad", "the yellow pad", "the right pad"], goal)
    form = _pick(
        [
            "Shove the stack over to {p}.",
            "Slide the tower onto {p}.",
            "Push the whole stack of cubes onto {p}, please.",
            "Nudge that tower across to {p}.",
        ],
        "ptower|" + goal,
    )
    return form.format(p=pad), {"expect": "refuse", "plan": []}


_ORDERS = (
    ("from left to right, the leftmost at the bottom", lambda p: p[1]),
    ("from right to left, starting with the rightmost at the base", lambda p: -p[1]),
    ("front to back - the one nearest you on the table", lambda p: -p[0]),
    ("from back to front, the farthest back at the bottom", lambda p: p[0]),
)


def tower_order(goal: str, item: dict) -> Relabelled | None:
    """A tower of the three cubes in an order said by a relation: "Stack all three from
    right to left, starting with the rightmost at the base." (a flat scene of three cubes
    2 cm or more apart on the relation; the middle one onto the first, the last onto the
    middle, where both pass the cards)."""
    cubes = {n: p for n, p in _scene_cubes(item).items() if n.endswith("_cube")}
    if len(cubes) != 3 or not _flat_scene(item):
        return None
    said, score = _pick(list(_ORDERS), "tordr|" + goal)
    ranked = sorted(cubes, key=lambda n: -score(cubes[n]))
    if any(
        score(cubes[a]) < score(cubes[b]) + 0.02 for a, b in zip(ranked, ranked[1:], strict=False)
    ):
        return None
    low, mid, top = ranked
    plan = [_step(f"pick_place {mid} {low}"), _step(f"pick_place {top} {mid}")]
    forms = ["Build a stack {s}.", "Make a tower of the cubes {s}."]
    return _planned(plan, item, forms, "tordf|" + goal, s=said)


def _stack_said(goal: str, item: dict, forms: list[str], key: str, cubes: int = 0) -> str | None:
    """A goal of one placing of a cube by colour onto another by colour said by one of
    ``forms`` picked by ``key`` ({x} the cube placed, {y} the one it goes on); None for any
    other goal or a scene of fewer than ``cubes`` cubes."""
    c = clause(goal)
    if c is None or not _single_step(item, "pick_place"):
        return None
    x, y = _colour_of(c.obj), _colour_of(c.place)
    if not x or not y or (cubes and len(_scene_cubes(item)) < cubes):
        return None
    return _pick(forms, key).format(x=x, y=y)


def keep_but_onto(goal: str, item: dict) -> str | None:
    """ "Don't move Y, but put X on top of it": X onto Y, Y not moved ("Keep the blue block
    where it is, but stack the red block on it."; from one placing of a cube by colour onto
    another)."""
    forms = [
        "Don't shift the {y} cube, but stack the {x} cube on it.",
        "Keep the {y} block where it is, but set the {x} block on top of it.",
        "Leave the {y} cube in place - just put the {x} one on top of it.",
    ]
    return _stack_said(goal, item, forms, "keepon|" + goal)


def _pushed_onto_pad(goal: str, item: dict):
    """``(clause, colour)`` of a goal that is one push of a cube said by its colour onto a
    pad said by name or colour, else None (the selection of the transforms "from one push
    of a cube by colour onto a pad")."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item, "push") or _PAD_NP.match(c.place or "") is None:
        return None
    return c, a


def pushed_then(goal: str, item: dict) -> Relabelled | None:
    """A condition whose verb is a step: "Once the red cube has been slid onto the left pad,
    set the blue cube on the right pad." (from one push of a cube by colour onto a pad: the
    push, then another cube placed on the other pad, where both pass the cards)."""
    found = _pushed_onto_pad(goal, item)
    if found is None:
        return None
    c, a = found
    cubes = _scene_cubes(item)
    b = _other_colour(a, cubes, "pthenb|" + goal)
    if b is None or not _flat_scene(item):
        return None
    push = item["plan"][0]
    other_pad = "right_pad" if push.params["target"] == "left_pad" else "left_pad"
    plan = [push, _step(f"pick_place {b}_cube {other_pad}")]
    part = _MOVERS["push"] if c.verb not in _MOVERS else _MOVERS[c.verb]
    forms = [
        "Once the {a} cube has been {d} onto {p}, set the {b} cube on the {q} pad.",
        "When the {a} block is {d} over to {p}, lift the {b} block onto the {q} pad.",
    ]
    said = {"a": a, "d": part, "p": _lower_first(c.place), "b": b, "q": other_pad.split("_")[0]}
    return _planned(plan, item, forms, "pthen|" + goal, **said)


_WAIT = [
    "Find {o} and wait above it.",
    "Go to {o} and hold there, please.",
    "{O} - get over it and stay there a sec.",
    "Can you head over to {o} and wait right above it?",
]


def wait_above(goal: str, item: dict) -> str | None:
    """A referent, then "wait above it / hold there": a hover ("Find the red cube and wait
    above it."; from one reach)."""
    c = clause(goal)
    if c is None or c.prep or not _single_step(item, "reach"):
        return None
    return _pick(_WAIT, "wait|" + goal).format(o=_lower_first(c.obj), O=_upper_first(c.obj))


def _unplanned(item: dict, forms: list[str], key: str, expect: str = "plan") -> Relabelled | None:
    """One of ``forms`` picked by ``key`` in place of a goal with a plan of one step or more,
    labelled ``expect`` with no plan (no motion, or a question back); None for any other
    goal."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    return _pick(forms, key), {"expect": expect, "plan": []}


_IDLE = [
    "Easy there - you can stay where you are.",
    "Whoa, not so fast, I'm not ready yet.",
    "You're fine to stay put for now.",
    "That's everything for now, cheers.",
    "No need to move at the moment.",
    "We're finished here for now.",
]


def idle(goal: str, item: dict) -> Relabelled | None:
    """No motion in other words: "Easy there - you can stay where you are.", "That's
    everything for now, cheers." (an empty plan)."""
    return _unplanned(item, _IDLE, "idle|" + goal)


def square_on(goal: str, item: dict) -> Relabelled | None:
    """A turn said by facing the robot square on: "Rotate the red cube till it's square on to
    you." (from one turn of a cube said by colour: a turn to face the robot)."""
    m = _turned_cube(goal, item)
    if m is None:
        return None
    plan = [_step(f"turn {m[1].lower()}_cube face_robot")]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Rotate the {c} {n} till it's square on to you.",
            "Twist the {c} {n} round so it faces you square on.",
        ],
        "square|" + goal,
    )
    return form.format(c=m[1].lower(), n=m[2].lower()), {"plan": plan}


def apart_said(goal: str, item: dict) -> str | None:
    """A tower taken apart top to bottom with the cubes said bottom first: "Take the stack
    apart from the top down: the blue cube to the left pad and the green cube to the right
    pad." (two placings onto pads, the top cube first in the plan)."""
    pads = _top_then_next_onto_pads(item)
    if pads is None:
        return None
    p, q = pads
    t, n = (s.params["object"].split("_")[0] for s in item["plan"])
    form = _pick(
        [
            "Take the stack apart from the top down: the {n} cube to {q} and the {t} cube to {p}.",
            "Dismantle the tower top to bottom - {n} goes on {q}, {t} on {p}.",
        ],
        "apsaid|" + goal,
    )
    return form.format(t=t, n=n, p=p, q=q)


def both_named(goal: str, item: dict) -> str | None:
    """ "Take them both, the A and the B, and put them on P" for two placings of two cubes
    onto the same pad (the first said first; the second stands on it)."""
    plan = item["plan"]
    if item["expect"] != "plan" or len(plan) != 2 or any(s.skill != "pick_place" for s in plan):
        return None
    a, b = (s.params.get("object") for s in plan)
    pads = {str(s.params.get("target")) for s in plan}
    if len(pads) != 1 or not {a, b} <= set(_scene_cubes(item)) or a == b:
        return None
    pad = pads.pop()
    if pad not in {"left_pad", "right_pad"}:
        return None
    form = _pick(
        [
            "Pick up the pair of them, the {a} and the {b}, and put them on the {p} pad.",
            "Take both - the {a} one and the {b} one - over to the {p} pad.",
        ],
        "both|" + goal,
    )
    return form.format(a=a.split("_")[0], b=b.split("_")[0], p=pad.split("_")[0])


def which_pad(goal: str, item: dict) -> str | None:
    """A question naming a pad by colour, then a hover over "that one": "Which of the pads is
    the grey one? Hover above it." (from one reach of a pad)."""
    if not _single_step(item, "reach"):
        return None
    target = item["plan"][0].params.get("target") or item["plan"][0].params.get("object")
    colour = {"left_pad": "yellow", "right_pad": "grey"}.get(str(target))
    if colour is None:
        return None
    form = _pick(
        [
            "Which of the pads is the {c} one? Hover above it.",
            "Which mat is {c}? Go and put your gripper over that one.",
            "Which pad's the {c} one? Move over that one, please.",
        ],
        "whpad|" + goal,
    )
    return form.format(c=colour)


# -- group J ------------------------------------------------------------------------------
# Written for the structures held-out 16 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (a reach of each cube but one, no
# motion): those return ``(goal, fields)``.
_J_CORRECT = [
    "{V} {o} on {w} - no wait, on {p}.",
    "{V} {o} onto {w}, hang on, no: onto {p}.",
    "{V} {o} on {w} - actually, sorry, on {p}.",
]


def dash_correction(goal: str, item: dict) -> str | None:
    """A place corrected after a dash or a comma, one step onto the last place: "Set the red
    cube on the right pad - no wait, on the left pad." (from one placing onto a pad or a
    cube said by colour; the place said first is another pad or cube of the scene)."""
    c = clause(goal)
    if c is None or not c.place or not _single_step(item, "pick_place"):
        return None
    if c.verb not in {"put", "place", "set", "move", "stack"}:
        return None
    m = _PAD_NP.match(c.place)
    if m:
        wrong = _other_pad_said(m)
    else:
        x, y = _colour_of(c.obj), _colour_of(c.place)
        if not x or not y:
            return None
        rest = [z for z in _OTHER_COLOURS[x] if z != y and f"{z}_cube" in _scene_cubes(item)]
        if not rest:
            return None
        wrong = f"the {rest[0]} cube"
    form = _pick(_J_CORRECT, "jcorr|" + goal)
    return form.format(V=_upper_first(c.verb), o=_lower_first(c.obj), w=wrong, p=c.place)


def _point(item: dict) -> list[float] | None:
    if not _single_step(item, "reach"):
        return None
    target = item["plan"][0].params.get("target")
    return target if isinstance(target, list) and len(target) == 3 else None


def _point_said(goal: str, item: dict, forms: list[str], key: str) -> str | None:
    """The item's one reach of a point said by one of ``forms`` (picked by ``key`` and the
    goal), its coordinates in ``{x}``, ``{y}``, ``{z}``; None without such a reach."""
    p = _point(item)
    if p is None:
        return None
    x, y, z = (f"{v:g}" for v in p)
    return _pick(forms, key + "|" + goal).format(x=x, y=y, z=z)


def named_point(goal: str, item: dict) -> str | None:
    """A point said with its coordinates' names: "Hover at x = 0.5, y = 0.1, z = 0.3.",
    "Bring the gripper to x 0.5 y 0.1 z 0.3." (from one reach of a point)."""
    return _point_said(
        goal,
        item,
        [
            "Hover at x = {x}, y = {y}, z = {z}.",
            "Bring the gripper to x {x} y {y} z {z}, please.",
            "Move your hand to the spot x={x}, y={y}, z={z}.",
            "Can you go to x: {x}, y: {y}, z: {z}?",
        ],
        "jpoint",
    )


def it_next_sentence(goal: str, item: dict) -> str | None:
    """ "It" after a full stop naming the cube of the sentence before: "Keep the blue block
    still. Set the red block on top of it." (from one placing of a cube by colour onto
    another, a third cube in the scene)."""
    forms = [
        "Keep the {y} block still. Set the {x} block on top of it.",
        "The {y} cube stays put. Stack the {x} cube on it.",
        "Leave the {y} cube where it is. Now put the {x} one on it.",
    ]
    return _stack_said(goal, item, forms, "jit|" + goal, cubes=3)


def _named(step) -> str | None:
    """How a reach target of a pad or a cube is said ("the left pad", "the red cube")."""
    return _said(step.params.get("target") or step.params.get("object"))


def places_then_verb(goal: str, item: dict) -> str | None:
    """A list of places, then one verb for each: "The right pad first, next the blue cube -
    go above each of them." (from two or three reaches of pads and cubes)."""
    plan = item["plan"]
    if item["expect"] != "plan" or len(plan) not in (2, 3):
        return None
    if any(s.skill != "reach" for s in plan):
        return None
    said = [_named(s) for s in plan]
    if None in said or len(set(said)) != len(said):
        return None
    if len(said) == 2:
        head = f"{_upper_first(said[0])} first, next {said[1]}"
    else:
        head = f"{_upper_first(said[0])} first, then {said[1]}, and finally {said[2]}"
    tail = _pick(
        [" - go above each of them.", ": hover over every one.", " - stop over each in turn."],
        "jlist|" + goal,
    )
    return head + tail


def order_words(goal: str, item: dict) -> str | None:
    """The order said in words: "B; before that though, A.", "Last of all, B. To start with, A.",
    "B, then A - no, do A first." (from "A, then B", two steps, no pronoun)."""
    forms = [
        "{B}; before that though, {a}.",
        "Last of all, {b}. To start with, {a}.",
        "{B}, then {a} - no, hold on, {a} first.",
    ]
    return _then_said(goal, item, forms, "jorder|" + goal)


def except_first(goal: str, item: dict) -> Relabelled | None:
    """ "Every cube except X, Y first": "Hover over all the cubes but the red one, starting
    with the blue one." (from one reach of a cube by colour in a flat scene of three cubes:
    a reach of each other cube, the one said first first)."""
    if not _single_step(item, "reach") or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    x = str(item["plan"][0].params.get("target")).split("_")[0]
    if len(cubes) != 3 or f"{x}_cube" not in cubes:
        return None
    a, b = _pick([_OTHER_COLOURS[x], _OTHER_COLOURS[x][::-1]], "jexc|" + goal)
    plan = [_step(f"reach {a}_cube"), _step(f"reach {b}_cube")]
    forms = [
        "Hover over all the cubes but the {x} one, starting with the {a} one.",
        "Go above each block apart from the {x} block - the {a} block first.",
    ]
    return _planned(plan, item, forms, "jexf|" + goal, x=x, a=a)


def _relation_to(name: str, cubes: dict[str, tuple[float, ...]]) -> tuple[str, str] | None:
    """(relation, other cube) such that ``name`` is the only cube 2 cm or more on that side
    of the other one, every other cube 2 cm or more off it ("to the left of", "red_cube")."""
    sides = (
        ("to the left of", 1, 1.0),
        ("to the right of", 1, -1.0),
        ("behind", 0, 1.0),
        ("in front of", 0, -1.0),
    )
    for said, axis, sign in sides:
        for other, q in cubes.items():
            if other == name:
                continue
            d = {n: sign * (p[axis] - q[axis]) for n, p in cubes.items() if n != other}
            if d[name] >= 0.02 and all(v <= -0.02 for n, v in d.items() if n != name):
                return said, other
    return None


def relation_referent(goal: str, item: dict) -> str | None:
    """A cube named by its relation to another, as the referent, never a place: "Push the
    block to the left of the green one onto the grey pad.", "the cube sitting on the red
    one" (from one step on a cube by colour: the only cube on that side of another, or the
    cube standing on another)."""
    c = clause(goal)
    x = c and _colour_of(c.obj)
    if not x or not _single_step(item):
        return None
    cubes = _scene_cubes(item)
    name = f"{x}_cube"
    if name not in cubes:
        return None
    under = _under(name, cubes)
    if under:
        ref = f"the cube sitting on the {under.split('_')[0]} one"
    elif _flat_scene(item):
        rel = _relation_to(name, cubes)
        if rel is None or rel[1].split("_")[0] in c.place.lower():
            return None
        ref = f"the {_pick(['cube', 'block'], goal)} {rel[0]} the {rel[1].split('_')[0]} one"
    else:
        return None
    return f"{_upper_first(c.verb)} {ref}{_rest(c)}."


def of_the_three(goal: str, item: dict) -> str | None:
    """ "Of the three cubes, the one <relation>": "Of the three blocks, the one nearest to
    you - push it onto the grey pad." (from one step on a cube by colour the scene's
    positions single out, three cubes on the table)."""
    c = clause(goal)
    x = c and _colour_of(c.obj)
    if not x or not _single_step(item) or not _flat_scene(item) or _cubes(item) != 3:
        return None
    cubes = _scene_cubes(item)
    said = f"{x}_cube" in cubes and _relation_of(f"{x}_cube", cubes)
    if not said:
        return None
    form = _pick(
        [
            "Of the three blocks, the one {s} - {v} it{r}.",
            "Out of the three cubes, {v} the one {s}{r}.",
        ],
        "j3|" + goal,
    )
    return form.format(s=said, v=c.verb, r=_rest(c))


def only_moving(goal: str, item: dict) -> str | None:
    """ "Only X should move - the others stay where they are": "Only the red block should
    move; the rest stay exactly where they are. Put it on the left pad." (from one step on
    a cube by colour onto a pad)."""
    c = clause(goal)
    x = c and _colour_of(c.obj)
    if not x or not _single_step(item) or not c.place or _PAD_NP.match(c.place) is None:
        return None
    form = _pick(
        [
            "Only the {x} block should move; the rest stay exactly where they are. {V} it{r}.",
            "{V} the {x} cube{r} - that's the only one I want moving, the other cubes stay put.",
        ],
        "jonly|" + goal,
    )
    return form.format(x=x, V=_upper_first(c.verb), r=_rest(c))


def next_down(goal: str, item: dict) -> str | None:
    """ "The next one down" after the top of a stack: "Lift the top cube off the pile onto
    the left pad, and after that the next one down onto the right pad." (from two placings
    of a tower's top cube and the cube under it onto pads)."""
    forms = [
        "Lift the top cube off the pile onto {p}, and after that the next one down onto {q}.",
        "Take the uppermost block from the stack to {p}; then the next one down goes on {q}.",
    ]
    return _pads_said(item, forms, "jnext|" + goal)


_HANG_ON = [
    "Hang tight for a moment.",
    "Stay there till I say go.",
    "Hold on a minute - don't do anything just yet.",
    "Wait there until I give the word.",
    "Sit still for a sec, would you.",
    "Wait until I tell you to start.",
    "Don't go anywhere yet - I'll say when.",
]


def hang_on(goal: str, item: dict) -> Relabelled | None:
    """No motion asked as waiting: "Hang tight for a moment.", "Stay there till I say go."
    (an empty plan)."""
    return _unplanned(item, _HANG_ON, "jhang|" + goal)


# -- group K ------------------------------------------------------------------------------
# Written for the structures held-out 17 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (a pad moved, a pick with no place, no
# motion): those return ``(goal, fields)``.
def dont_want(goal: str, item: dict) -> str | None:
    """A prohibition said as "I don't want you ...ing Y" beside a step on another cube:
    "I don't want you handling the green block at all. Put the red cube on the left pad."
    (from one step on a cube by colour onto a pad; Y a cube of the scene the step leaves
    alone)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item) or _PAD_NP.match(c.place or "") is None:
        return None
    y = _other_colour(a, _scene_cubes(item), "kwanty|" + goal)
    if y is None:
        return None
    form = _pick(
        [
            "I don't want you handling the {y} block at all. {S}.",
            "{S} - and I don't want you bumping the {y} cube.",
            "I do not want you moving the {y} cube; {s}.",
            "I don't want you going anywhere near the {y} one. {S}, please.",
        ],
        "kwant|" + goal,
    )
    return form.format(y=y, S=_upper_first(_bare(goal)), s=_lower_first(_bare(goal)))


_PAD_MOVES = [
    "Slide the {p} over towards the {c} cube.",
    "Pick up the {p} and set it down nearer to me.",
    "Could you shift the {p} a little to the left?",
    "Put the {p} on top of the {c} block.",
    "Drag the {p} across to the other side of the table.",
]


def pad_moved(goal: str, item: dict) -> Relabelled | None:
    """A pad moved (a pad is not a cube: refused): "Slide the grey mat over towards the red
    cube.", "Put the yellow pad on top of the blue block." (from one step on a cube by
    colour onto a pad)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    m = c and _PAD_NP.match(c.place or "")
    if not a or not m:
        return None
    pad = _pick(["yellow pad", "grey mat", "left pad", "right mat"], "kpadp|" + goal)
    said = _pick(_PAD_MOVES, "kpad|" + goal).format(p=pad, c=a)
    return said, {"expect": "refuse", "plan": []}


_PICK_ALONE = [
    "Could you lift the {c} block for me?",
    "Grab the {c} cube quickly, would you?",
    "Pick the {c} cube up, please.",
    "Go ahead and take hold of the {c} block.",
    "Hey robot, pick up the {c} one real fast.",
]


def pick_alone(goal: str, item: dict) -> Relabelled | None:
    """A pick with no place, asked back where the cube goes (the contract's "pick up the
    blue cube" and nothing more): "Could you lift the red block for me?" (from one step on
    a cube by colour)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    return _pick(_PICK_ALONE, "kpick|" + goal).format(c=a), {"expect": "clarify", "plan": []}


def _pad_clear(pad: str, item: dict) -> bool:
    x, y = _PADS[pad]
    return all(math.dist((x, y), p[:2]) > 0.08 for p in _scene_cubes(item).values())


def free_then(goal: str, item: dict) -> str | None:
    """A yes/no question about a pad, then an instruction onto it: "Is the yellow mat
    empty? If it is, set the red cube on it." (from one placing or push of a cube by colour
    onto a pad no cube stands on)."""
    c = clause(goal)
    m = c and _PAD_NP.match(c.place or "")
    if not m or not _colour_of(c.obj) or not _single_step(item):
        return None
    if not _pad_clear(_PAD_SIDE[m[1].lower()], item):
        return None
    form = _pick(
        [
            "Is {p} empty? If it is, {v} {o} on it.",
            "Is there room on {p}? Then {v} {o} over there.",
            "Is {p} clear right now? Good - {v} {o} onto it.",
        ],
        "kfree|" + goal,
    )
    return form.format(p=_lower_first(c.place), v=c.verb, o=_lower_first(c.obj))


def _said(target) -> str | None:
    """How a cube or pad name is said ("the red cube", "the left pad"), else None."""
    if not isinstance(target, str) or "_" not in target:
        return None
    a, noun = target.split("_", 1)
    return f"the {a} {noun}" if noun in {"pad", "cube"} else None


def _step_said(step) -> str | None:
    """One step said as a plain clause ("put the red cube on the left pad", "push the red
    cube onto the left pad", "hover over the left pad", "go home"), else None."""
    if step.skill == "home":
        return "go home"
    target = _said(step.params.get("target"))
    if step.skill == "reach":
        return target and f"hover over {target}"
    obj = _said(step.params.get("object"))
    if not obj or not target:
        return None
    return f"put {obj} on {target}" if step.skill == "pick_place" else f"push {obj} onto {target}"


def _two_said(item: dict) -> tuple[str, str] | None:
    """(A, B): a two-step plan's steps said as plain clauses."""
    plan = item["plan"]
    if item["expect"] != "plan" or len(plan) != 2:
        return None
    a, b = (_step_said(s) for s in plan)
    return (a, b) if a and b else None


def do_last(goal: str, item: dict) -> str | None:
    """A step put off to the end after it is said: "B. Actually, leave that till the end -
    first A.", "B, but save that for last and A first." (from a plan of two steps said
    plainly: a placing, a push, a hover, going home)."""
    parts = _two_said(item)
    if parts is None:
        return None
    a, b = parts
    form = _pick(
        [
            "{B}. Actually, leave that till the end - first {a}.",
            "{B}, but save that for last and {a} first.",
            "{B} - no, do that one at the very end; to start, {a}.",
            "{B} at the end; before anything else, {a}.",
        ],
        "klast|" + goal,
    )
    return form.format(B=_upper_first(b), a=a)


def _colour_steps(item: dict) -> tuple[str, str] | None:
    """The colours of the cubes two steps move, in plan order, when they differ and neither
    step names the other's cube (so "red first" picks one step)."""
    plan = item["plan"]
    if item["expect"] != "plan" or len(plan) != 2:
        return None
    names = [str(s.params.get("object", "")) for s in plan]
    if not all(n.endswith("_cube") for n in names) or names[0] == names[1]:
        return None
    if names[0] == plan[1].params.get("target") or names[1] == plan[0].params.get("target"):
        return None
    return names[0].split("_")[0], names[1].split("_")[0]


def _colours_said(item: dict, forms: list[str], key: str) -> str | None:
    """Two steps on two cubes said by one of ``forms`` picked by ``key`` ({a} and {b} the
    steps, {B} the second capitalised, {c} and {d} the cubes' colours in plan order); None
    for any other plan."""
    parts, colours = _two_said(item), _colour_steps(item)
    if parts is None or colours is None:
        return None
    a, b = parts
    return _pick(forms, key).format(B=_upper_first(b), a=a, b=b, c=colours[0], d=colours[1])


def colour_first(goal: str, item: dict) -> str | None:
    """Two steps said in the other order, then one named by its colour to go first: "B and
    then A - hang on, the red one first.", "B, after that A. Hmm, no: do red first." (from a
    plan of two placings or pushes of two cubes)."""
    forms = [
        "{B} and then {a} - hang on, the {c} one first.",
        "{B}, after that {a}. Hmm, no: do {c} first.",
        "{B}, then {a} - oh wait, {c} goes first.",
    ]
    return _colours_said(item, forms, "kcol|" + goal)


def one_before(goal: str, item: dict) -> str | None:
    """Two steps said, then their order by the cubes' colours: "B and A; deal with the red
    one before the blue one.", "B, and A - handle the red cube ahead of the blue cube." (from
    a plan of two placings or pushes of two cubes)."""
    forms = [
        "{B} and {a}; deal with the {c} one before the {d} one.",
        "{B}, and {a} - handle the {c} cube ahead of the {d} cube.",
        "I need two things: {b} and {a}. The {c} block comes before the {d} block.",
    ]
    return _colours_said(item, forms, "kbef|" + goal)


def list_elided(goal: str, item: dict) -> Relabelled | None:
    """A list of two placings whose second drops its verb and says its cube as "the X one",
    the whole before a return home: "Before heading back home, set the red cube on the
    left pad and next the blue one on the right pad." (from two placings of two cubes by
    colour: the two, then home)."""
    plan = item["plan"]
    if item["expect"] != "plan" or len(plan) != 2 or any(s.skill != "pick_place" for s in plan):
        return None
    objs = [_said(s.params.get("object")) for s in plan]
    places = [_said(s.params.get("target")) for s in plan]
    if None in objs or None in places or objs[0] == objs[1]:
        return None
    full = [*plan, _step("home")]
    if not _valid(full, item):
        return None
    b = objs[1].split()[1]
    form, with_home = _pick(
        [
            ("Before heading back home, set {o} on {p} and next the {b} one on {q}.", True),
            ("Ahead of going home, place {o} on {p}, and after that the {b} one on {q}.", True),
            ("Set {o} on {p} and then the {b} one onto {q}, please.", False),
        ],
        "klist|" + goal,
    )
    said = form.format(o=objs[0], p=places[0], b=b, q=places[1])
    return said, {"expect": "plan", "plan": full if with_home else plan}


_DANGLE = [
    "Get your gripper so it's dangling over {t}.",
    "Position the hand so that it hangs just above {t}.",
    "Move right over {t}, cheers.",
    "Go right above {t} there, please.",
    "Have the gripper hanging over {t} for a moment.",
]


def hanging_over(goal: str, item: dict) -> str | None:
    """A hover said as hanging or "right over": "Get your gripper so it's dangling over the
    red cube.", "Move right over the left pad, cheers." (from one reach of a pad or a cube
    said by name)."""
    if not _single_step(item, "reach"):
        return None
    target = _said(item["plan"][0].params.get("target"))
    if target is None:
        return None
    return _pick(_DANGLE, "kdangle|" + goal).format(t=target)


def hedged(goal: str, item: dict) -> str | None:
    """A long hedged request around one step: "I was wondering, if it's no trouble, whether
    you might put the red cube on the left pad - is that alright?" (from one step said as a
    clause; a placing onto a pad also said with "it" after the cube)."""
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    forms = [
        "I was wondering, if it's no trouble, whether you might {s} - is that alright?",
        "Not sure if this is doable, but perhaps you could {s}? Would that be fine?",
    ]
    a = _colour_of(c.obj)
    if a and _single_step(item, "pick_place") and _PAD_NP.match(c.place or ""):
        forms.append(
            "The {a} cube is a bit in my way, so perhaps you could lift it up and carry it "
            "across to {p} - does that sound okay?"
        )
    form = _pick(forms, "khedge|" + goal)
    return form.format(s=_lower_first(_bare(goal)), a=a, p=_lower_first(c.place))


def is_there(goal: str, item: dict) -> str | None:
    """A yes/no question naming a cube by its relation to another, then the step on "that":
    "Is there a block to the left of the green one? Move that to the right pad." (from one
    step on a cube by colour, the only cube on that side of another)."""
    c = clause(goal)
    x = c and _colour_of(c.obj)
    if not x or not _single_step(item) or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    rel = f"{x}_cube" in cubes and _relation_to(f"{x}_cube", cubes)
    if not rel or rel[1].split("_")[0] in c.place.lower():
        return None
    form = _pick(
        [
            "Is there a block {r} the {o} one? {V} that{q}.",
            "Any cube {r} the {o} cube? If so, {v} that one{q}.",
            "Do you see a cube {r} the {o} block? {V} that{q}, please.",
        ],
        "kthere|" + goal,
    )
    return form.format(
        r=rel[0], o=rel[1].split("_")[0], V=_upper_first(c.verb), v=c.verb, q=_rest(c)
    )


def which_is(goal: str, item: dict) -> str | None:
    """A pad said as "whichever pad/mat is the yellow one": "Set the red cube on whichever
    mat is the grey one." (from a goal naming one pad by its side or colour)."""
    m = _PAD_NP_IN.search(goal)
    if m is None or len(_PAD_NP_IN.findall(goal)) != 1:
        return None
    colour = {"left": "yellow", "right": "grey", "gray": "grey"}.get(m[1].lower(), m[1].lower())
    said = _pick(
        [
            "whichever mat is the {c} one",
            "whichever of the pads is the {c} one",
            "the pad - whichever one is {c} -",
        ],
        "kwhich|" + goal,
    ).format(c=colour)
    return goal[: m.start()] + said + goal[m.end() :]


def nothing_else(goal: str, item: dict) -> str | None:
    """A step on one cube, then everything else kept still (no contradiction: only the cube
    said moves): "Slide the red cube onto the left pad, and don't touch anything else." (from
    one step on a cube by colour onto a pad)."""
    forms = [
        "{S}, and don't touch anything else.",
        "{S}; nothing else should move.",
        "{S} - but don't shift any of the other things.",
        "{S} and leave everything else alone.",
    ]
    return _pad_step_said(goal, item, forms, "kelse|" + goal)


def _pad_step_said(goal: str, item: dict, forms: list[str], key: str) -> str | None:
    """A goal of one step on a cube by colour onto a pad said by one of ``forms`` picked by
    ``key`` ({S} the goal, capitalised, without its end mark); None for any other goal."""
    c = clause(goal)
    if c is None or not _colour_of(c.obj) or not _single_step(item):
        return None
    if _PAD_NP.match(c.place or "") is None:
        return None
    return _pick(forms, key).format(S=_upper_first(_bare(goal)))


def cataphoric(goal: str, item: dict) -> str | None:
    """A prohibition on "it" before the cube is named: "Don't pick it up - just slide the red
    cube onto the left pad." (from one push of a cube by colour onto a pad)."""
    found = _pushed_onto_pad(goal, item)
    if found is None:
        return None
    c, a = found
    form = _pick(
        [
            "Don't pick it up - just slide the {a} cube onto {p}.",
            "Try not to lift it; simply push the {a} block to {p}.",
            "No need to grab it, just nudge the {a} cube over to {p}.",
        ],
        "kcata|" + goal,
    )
    return form.format(a=a, p=_lower_first(c.place))


def out_of_way(goal: str, item: dict) -> str | None:
    """A cube described in a clause of its own, then "it": "The red block's sitting off on its
    own there - put it on the left pad." (from one step on a cube by colour with a place)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _single_step(item):
        return None
    form = _pick(
        [
            "The {a} block's sitting off on its own there - {v} it{q}.",
            "The {a} cube's a bit out of place over here; {v} it{q}.",
            "That {a} cube's in the wrong spot - {v} it{q}, would you?",
        ],
        "kway|" + goal,
    )
    return form.format(a=a, v=c.verb, q=_rest(c))


def once_there(goal: str, item: dict) -> Relabelled | None:
    """A hover, then the step on "that cube" once there: "Go above the red block first; when
    you get there, push that block onto the left pad." (from one placing or push of a cube by
    colour: the reach of it, then the step)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _single_step(item):
        return None
    plan = [_step(f"reach {a}_cube"), item["plan"][0]]
    forms = [
        "Go above the {a} block first; when you get there, {v} that block{q}.",
        "Move over the {a} cube, and once you're above it, {v} that cube{q}.",
    ]
    return _planned(plan, item, forms, "konce|" + goal, a=a, v=c.verb, q=_rest(c))


_HOLD_STILL = [
    "Remain where you are for now, robot.",
    "Freeze right there for the moment.",
    "Hang on, just hold still and don't move.",
    "Keep still for now, will you.",
    "Just wait where you are, don't move yet.",
    "Stay right there for a bit, please.",
]


def hold_still(goal: str, item: dict) -> Relabelled | None:
    """No motion, asked as staying or waiting where the robot is: "Remain where you are for
    now, robot.", "Hang on, just hold still and don't move." (an empty plan)."""
    return _unplanned(item, _HOLD_STILL, "khold|" + goal)


def _ahead_said(goal: str, item: dict, relations, form: str, key: str) -> str | None:
    """The goal with its cube (else the cube it goes onto), said by colour, said again by
    ``form`` where that cube alone is ahead on one of ``relations`` (:func:`_relation_of`):
    {s} the relation, {n} "cube" or "block" picked by ``key``. From one step in a flat scene;
    None where neither cube is ahead."""
    c = clause(goal)
    if c is None or not _single_step(item) or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    for np in (c.obj, c.place):
        x = np and _colour_of(np)
        said = x and f"{x}_cube" in cubes and _relation_of(f"{x}_cube", cubes, relations)
        if said:
            noun = _pick(["cube", "block"], key)
            return goal.replace(np, form.format(s=said, n=noun), 1)
    return None


_DEPTH = (
    ("furthest back", lambda p: p[0]),
    ("farthest from the robot", _dist),
    ("nearest the front", lambda p: -p[0]),
    ("at the very back", lambda p: p[0]),
)


def furthest_back(goal: str, item: dict) -> str | None:
    """A superlative along the table's depth (from the robot's base), as the cube moved or
    the cube it goes onto: "Push the cube furthest back onto the left pad.", "Stack the
    red cube on the block farthest from the robot." (from one step whose cube, or whose
    target cube, is 2 cm or more ahead of every other cube on it, cubes on the table)."""
    depth = [_pick(list(_DEPTH), "kdepth|" + goal)]
    return _ahead_said(goal, item, depth, "the {n} {s}", "kdn|" + goal)


# -- group L ------------------------------------------------------------------------------
# Written for the structures held-out 18 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (a turn after a placing, a question
# back, a refusal, no motion): those return ``(goal, fields)``.
def _placed_cube(goal: str, item: dict) -> tuple[Clause, str] | None:
    """The clause of one placing of a cube by colour onto a pad or a cube, and its colour."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _single_step(item, "pick_place"):
        return None
    return c, a


def place_then_turn(goal: str, item: dict) -> Relabelled | None:
    """A placing, then a turn of "it", the cube just carried: "Set the red cube on the left
    pad, then rotate it 20 degrees." (from one placing of a cube by colour: the placing and
    the turn where both pass the cards in the scene, else refused, as turn's card says)."""
    found = _placed_cube(goal, item)
    if found is None or not _flat_scene(item):
        return None
    c, a = found
    n = _pick(["20", "25", "35", "40"], "lturnn|" + goal)
    clockwise = _pick([False, True], "lturnw|" + goal)
    plan = [item["plan"][0], _step(f"turn {a}_cube {'-' if clockwise else ''}{n}")]
    way = " clockwise" if clockwise else ""
    form = _pick(
        [
            "{S}, then rotate it {n} degrees{w}.",
            "{S} and after that give it a {n} degree twist{w}.",
            "{S}; once it's down, turn it by {n} degrees{w}.",
        ],
        "lturn|" + goal,
    )
    said = form.format(S=_upper_first(_bare(goal)), n=n, w=way)
    if _valid(plan, item):
        return said, {"expect": "plan", "plan": plan}
    return said, {"expect": "refuse", "plan": []}


def _other_place(c: Clause, a: str, item: dict, key: str) -> str | None:
    """Another place the cube ``a`` could be said to go first (the other pad, or a cube the
    step leaves alone), said as a noun phrase; None when there is none."""
    pad = _PAD_NP.match(c.place)
    if pad:
        side = _PAD_SIDE[pad[1].lower()]
        return f"the {'right' if side == 'left' else 'left'} {pad[2].lower()}"
    y = _colour_of(c.place)
    other = y and _other_colour(a, _scene_cubes(item), key, c.place)
    return f"the {other} cube" if other and other != y else None


def not_on_but(goal: str, item: dict) -> str | None:
    """A place said, then corrected as "not on Q, on P": "Set the red cube on the right pad
    - no wait, not on the right pad, on the left pad." (from one placing of a cube by colour
    onto a pad or a cube: one step, onto the place said last)."""
    found = _placed_cube(goal, item)
    if found is None:
        return None
    c, a = found
    q = _other_place(c, a, item, "lnot|" + goal)
    if q is None:
        return None
    form = _pick(
        [
            "{V} the {a} cube on {q} - no wait, not on {q}, on {p}.",
            "{V} the {a} block onto {q}... sorry, not onto {q} but onto {p}.",
            "{V} the {a} cube on {q}; hang on, not on {q} - on {p}.",
        ],
        "lnotf|" + goal,
    )
    return form.format(V=_upper_first(c.verb), a=a, q=q, p=_lower_first(c.place))


def two_tower(goal: str, item: dict) -> str | None:
    """A tower of two said as a tower, then its parts: "Build a stack of two: the green cube
    on the blue cube." (from one placing of a cube by colour onto another; the first cube
    said goes on top)."""
    forms = [
        "Build a stack of two: the {x} cube on the {y} cube.",
        "Two-cube tower, please - the {x} block on top of the {y} block.",
        "Let's have a two-high pile: {x} cube on {y} cube.",
    ]
    return _stack_said(goal, item, forms, "ltwo|" + goal)


def _tower_top(item: dict) -> tuple[str, list[str]] | None:
    """The top cube of the scene's one tower and the cubes on the table beside it."""
    cubes = _scene_cubes(item)
    pairs = _tower_pairs(cubes)
    if len(pairs) != 1:
        return None
    top, low = pairs[0]
    if any(t == top for _, t in pairs):
        return None
    free = [n for n in cubes if n not in {top, low} and not _under(n, cubes)]
    return top, free


def _tower_finished(item: dict, forms: list[str], key: str) -> Relabelled | None:
    """The scene's one tower of two finished with the cube beside it (that cube onto the
    tower's top, where it passes the cards), said by one of ``forms`` picked by ``key`` ({c}
    that cube's colour), from any plan; None for any other scene."""
    found = _tower_top(item)
    if found is None or len(found[1]) != 1 or item["expect"] != "plan":
        return None
    top, (free,) = found
    plan = [_step(f"pick_place {free} {top}")]
    return _planned(plan, item, forms, key, c=free.split("_")[0])


def finish_tower(goal: str, item: dict) -> Relabelled | None:
    """The tower finished with a cube: "Complete the stack with the green cube." (a scene
    with one tower of two and a cube beside it: that cube onto the tower's top)."""
    forms = [
        "Complete the stack with the {c} cube.",
        "Top the tower off with the {c} block.",
        "Finish off the pile using the {c} cube, please.",
    ]
    return _tower_finished(item, forms, "lfin|" + goal)


def _middle(cubes: dict[str, tuple[float, ...]]) -> str | None:
    """The cube between the other two along the table's width (each of them 4 cm or more
    to one side of it, on the table)."""
    if len(cubes) != 3 or any(p[2] > 0.04 for p in cubes.values()):
        return None
    names = sorted(cubes, key=lambda n: cubes[n][1])
    ys = [cubes[n][1] for n in names]
    return names[1] if ys[1] - ys[0] >= 0.04 and ys[2] - ys[1] >= 0.04 else None


def next_to_two(goal: str, item: dict) -> Relabelled | None:
    """ "The cube next to X" where X is the middle cube, two cubes beside it (asked which):
    "Push the block beside the green one onto the left pad." (from one step on a cube by
    colour; the scene's middle cube named)."""
    c = clause(goal)
    if c is None or not _single_step(item) or not _colour_of(c.obj):
        return None
    mid = _middle(_scene_cubes(item))
    if mid is None:
        return None
    form = _pick(
        [
            "{V} the block beside the {m} one{q}.",
            "{V} the cube next to the {m} cube{q}, please.",
            "Could you {v} the cube alongside the {m} block{q}?",
        ],
        "lnext|" + goal,
    )
    said = form.format(V=_upper_first(c.verb), v=c.verb, m=mid.split("_")[0], q=_rest(c))
    return said, {"expect": "clarify", "plan": []}


def let_go_there(goal: str, item: dict) -> str | None:
    """A cube carried to a point and let go there (no return home asked): "Take the red
    cube over to 0.5, 0.0, 0.3 and release it there." (from one placing at a point)."""
    if not _single_step(item, "pick_place"):
        return None
    step = item["plan"][0]
    p, obj = step.params.get("target"), _said(step.params.get("object"))
    if not (isinstance(p, list) and len(p) == 3) or obj is None:
        return None
    form = _pick(
        [
            "Take {o} over to {x}, {y}, {z} and release it there.",
            "Bring {o} to the point {x}, {y}, {z} and let it go there.",
            "Carry {o} across to {x}, {y}, {z}, then drop it there.",
        ],
        "lgo|" + goal,
    )
    x, y, z = (f"{v:g}" for v in p)
    return form.format(o=obj, x=x, y=y, z=z)


def leave_tower(goal: str, item: dict) -> str | None:
    """The tower left alone beside a step on the free cube (no return home asked): "Don't
    touch the stack; push the blue cube onto the left pad." (from one placing or push of the
    cube beside the scene's one tower of two)."""
    forms = [
        "Don't touch the stack; {s}.",
        "Leave the pile where it is and {s}.",
        "Keep away from the tower, and {s}.",
    ]
    return _beside_tower(goal, item, forms, "ltower|" + goal)


def _beside_tower(goal: str, item: dict, forms: list[str], key: str) -> str | None:
    """One of ``forms`` (picked by ``key``; {s} the step said) for a goal of one placing or
    push onto a pad of the cube beside the scene's one tower; None for any other goal."""
    found = _tower_top(item)
    if found is None or not _single_step(item) or item["plan"][0].skill == "reach":
        return None
    step = item["plan"][0]
    said = _step_said(step)
    if said is None or step.params.get("object") not in found[1] or "pad" not in said:
        return None
    return _pick(forms, key).format(s=said)


def _placed_said(
    goal: str, item: dict, forms: list[str], key: str, onto_pad: bool = True
) -> str | None:
    """A goal of one placing of a cube by colour (onto a pad where ``onto_pad``) said by one
    of ``forms`` picked by ``key``: {a} the cube's colour, {p} its place as the goal says it,
    and for a pad {s} its side, {o} the other side and {c} its colour; None for any other
    goal."""
    found = _placed_cube(goal, item)
    pad = found and _PAD_NP.match(found[0].place)
    if not found or (onto_pad and not pad):
        return None
    c, a = found
    said = {"a": a, "p": _lower_first(c.place)}
    if pad:
        side = _PAD_SIDE[pad[1].lower()]
        said |= {"s": side, "o": _pad_other(side), "c": _SIDE_COLOUR[side]}
    return _pick(forms, key).format(**said)


def over_with(goal: str, item: dict) -> str | None:
    """A placing said as a place, then "with X": "Across to the right pad with the blue
    block, please." (from one placing of a cube by colour onto a pad)."""
    forms = [
        "Across to {p} with the {a} block, please.",
        "Onto {p} with the {a} cube.",
        "Over to {p} with the {a} one, if you would.",
    ]
    return _placed_said(goal, item, forms, "lwith|" + goal)


def hover_kept(goal: str, item: dict) -> Relabelled | None:
    """A hover kept in its place in a list: "Hover over the right pad, then come back home."
    (a reach of a pad: the reach, then home), "Move over to the left pad, not the right one,
    and then home." and "Hover above the red cube and then put it on the blue one." (a
    placing of a cube onto another: the reach of the cube, then the placing)."""
    if _single_step(item, "reach"):
        target = _said(item["plan"][0].params.get("target"))
        pad = target and _PAD_NP.match(target)
        if not pad:
            return None
        other = f"the {'right' if pad[1] == 'left' else 'left'} {pad[2]}"
        if pad[1] not in {"left", "right"}:
            return None
        form = _pick(
            [
                "Hover over {t}, then come back home.",
                "Move over to {t}, not {o}, and then home.",
                "Go above {t} first and return home after that.",
            ],
            "lhov|" + goal,
        )
        plan = [item["plan"][0], _step("home")]
        return form.format(t=target, o=other), {"expect": "plan", "plan": plan}
    found = _placed_cube(goal, item)
    if found is None or not _colour_of(found[0].place):
        return None
    c, a = found
    plan = [_step(f"reach {a}_cube"), item["plan"][0]]
    forms = [
        "Hover above the {a} cube and then stack it on {p}.",
        "Go over the {a} block first, then put it on {p}.",
    ]
    return _planned(plan, item, forms, "lhovc|" + goal, a=a, p=_lower_first(c.place))


def stack_ordered(goal: str, item: dict) -> Relabelled | None:
    """Three cubes stacked on a pad in an order said after a colon: "Pile the three cubes up
    on the right pad: green first, then red, then blue." (from one placing of a cube by
    colour onto a pad in a scene of three cubes on the table: that cube first, the other
    two in an order picked by the goal, where the three steps pass the cards)."""
    found = _placed_cube(goal, item)
    cubes = _scene_cubes(item)
    if found is None or _PAD_NP.match(found[0].place) is None or len(cubes) != 3:
        return None
    if not _flat_scene(item):
        return None
    c, a = found
    rest = [n.split("_")[0] for n in sorted(cubes) if n != f"{a}_cube"]
    b, d = rest if _pick([True, False], "lord|" + goal) else rest[::-1]
    pad = _said(item["plan"][0].params.get("target"))
    plan = [
        item["plan"][0],
        _step(f"pick_place {b}_cube {a}_cube"),
        _step(f"pick_place {d}_cube {b}_cube"),
    ]
    if pad is None:
        return None
    forms = [
        "Pile the three cubes up on {p}: {a} first, then {b}, then {d}.",
        "Stack all three blocks on {p} - {a} first, {b} next, {d} last.",
        "Build a tower of the three cubes on {p}: {a} first, then {b}, and {d} on top.",
    ]
    return _planned(plan, item, forms, "lstk|" + goal, p=_lower_first(c.place), a=a, b=b, d=d)


def nothing_else_said(goal: str, item: dict) -> str | None:
    """A step, then a sentence keeping everything else still (no contradiction): "Push the
    red cube onto the left pad. Nothing else is to be moved." (from one step on a cube by
    colour onto a pad)."""
    forms = [
        "{S}. Don't move anything else.",
        "{S}. Nothing else is to be moved.",
        "{S}. Do not touch any of the other cubes.",
    ]
    return _pad_step_said(goal, item, forms, "lelse|" + goal)


_HOME_TYPOS = [
    "go hmoe now",
    "Go hoem, please.",
    "return hoome",
    "head hom now pls",
    "go homw",
]


def home_typo(goal: str, item: dict) -> str | None:
    """A goal of going home said with a typo of "home" (one letter swapped, doubled, missing
    or next on the keyboard): "Go hoem, please." (from a plan of going home alone)."""
    if not _single_step(item, "home"):
        return None
    return _pick(_HOME_TYPOS, "ltypo|" + goal)


_FRONT_BACK = (("front", lambda p: -p[0]), ("back", lambda p: p[0]))


def front_back(goal: str, item: dict) -> str | None:
    """The depth superlative said as an adjective: "Push the front block onto the left
    pad.", "Stack the red cube on the back cube." (from one step whose cube, or whose target
    cube, is 2 cm or more ahead of every other cube along the table's depth)."""
    return _ahead_said(goal, item, _FRONT_BACK, "the {s} {n}", "lfbn|" + goal)


def _apart(cubes: dict[str, tuple[float, ...]]) -> tuple[str, list[str]] | None:
    """The cube apart from the other two (each of them more than 1.3 times as far from it
    as from each other, and 10 cm or more), and those two; None for any other scene."""
    if len(cubes) != 3 or any(p[2] > 0.04 for p in cubes.values()):
        return None
    for name in cubes:
        pair = [n for n in cubes if n != name]
        close = math.dist(cubes[pair[0]][:2], cubes[pair[1]][:2])
        far = min(math.dist(cubes[name][:2], cubes[n][:2]) for n in pair)
        if far >= 0.10 and far > 1.3 * close:
            return name, pair
    return None


def _colour_step_of_three(goal: str, item: dict) -> tuple[Clause, str, dict] | None:
    """(clause, colour, cubes): a goal of one step with a place on a cube said by colour, in
    a flat scene of three cubes that holds it; None for any other goal."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _single_step(item) or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    if len(cubes) != 3 or f"{a}_cube" not in cubes:
        return None
    return c, a, cubes


def _two_back_said(
    goal: str, item: dict, alone: list[str], side: list[str], keys: tuple[str, str]
) -> str | None:
    """A goal of one step on a cube by colour, the scene's other two cubes both 4 cm or more
    behind it (said by one of ``alone``: {v} the verb, {q} the rest), or it one of two at the
    back, 4 cm or more apart across (said by one of ``side``, {s} its side); the form picked
    by ``keys`` (one for each list); None for any other goal."""
    found = _colour_step_of_three(goal, item)
    if found is None:
        return None
    c, a, cubes = found
    front = sorted(cubes, key=lambda n: cubes[n][0])
    if cubes[front[1]][0] - cubes[front[0]][0] < 0.04:
        return None
    if front[0] == f"{a}_cube":
        return _pick(alone, keys[0] + "|" + goal).format(v=c.verb, q=_rest(c))
    back = front[1:]
    if abs(cubes[back[0]][1] - cubes[back[1]][1]) < 0.04:
        return None
    left = max(back, key=lambda n: cubes[n][1])
    said = "left" if left == f"{a}_cube" else "right"
    return _pick(side, keys[1] + "|" + goal).format(v=c.verb, s=said, q=_rest(c))


def two_at_back(goal: str, item: dict) -> str | None:
    """Two cubes selected as a group by position among three ("the two cubes at the back"),
    then the other one, or one of the two by a side: "Leave the two blocks at the back
    alone; slide the remaining one onto the right pad.", "Of the two cubes at the back, put
    the one further left on the right pad." (from one step on a cube by colour, the scene's
    two other cubes both 4 cm or more behind it, or it one of two at the back)."""
    alone = [
        "Leave the two blocks at the back alone; {v} the remaining one{q}.",
        "Don't disturb the two cubes at the back - {v} the other one{q}.",
    ]
    side = [
        "Of the two cubes at the back, {v} the one further {s}{q}.",
        "Of the two blocks at the back, {v} the {s} one{q}.",
    ]
    return _two_back_said(goal, item, alone, side, ("lback", "lbk"))


def nearest_that_pad(goal: str, item: dict) -> str | None:
    """The cube nearest a pad as a topic, then "that pad": "The block closest to the left
    pad: push it onto that pad." (from one placing or push onto a pad of the cube 2 cm or
    more nearer that pad than the others)."""
    c = clause(goal)
    pad = c and _PAD_NP.match(c.place or "")
    a = c and _colour_of(c.obj)
    if not pad or not a or not _single_step(item) or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    where = _PADS[_PAD_SIDE[pad[1].lower()]]
    dist = {n: math.dist(p[:2], where) for n, p in cubes.items()}
    if any(dist[n] - dist[f"{a}_cube"] < 0.02 for n in dist if n != f"{a}_cube"):
        return None
    noun = pad[2].lower()
    form = _pick(
        [
            "The block closest to {p}: {v} it onto that {n}.",
            "The cube nearest {p} - {v} it on that {n}, please.",
        ],
        "lnear|" + goal,
    )
    return form.format(p=_lower_first(c.place), v=c.verb, n=noun)


def in_my_way(goal: str, item: dict) -> Relabelled | None:
    """A cube said to be in the way, then "could you move it": with a place, the step
    ("The red block is in my way; could you put it on the left pad?"); with none, asked
    where (a move that says nowhere)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _single_step(item):
        return None
    if _pick([True, False], "lwayp|" + goal):
        form = _pick(
            [
                "The {a} block is in my way; could you {v} it{q}?",
                "That {a} cube's in the way - can you {v} it{q}?",
            ],
            "lway|" + goal,
        )
        return form.format(a=a, v=c.verb, q=_rest(c)), {}
    form = _pick(
        [
            "The {a} block is in my way; could you move it?",
            "The {a} cube's in the way - can you shift it, please?",
        ],
        "lwayn|" + goal,
    )
    return form.format(a=a), {"expect": "clarify", "plan": []}


def on_its_own(goal: str, item: dict) -> Relabelled | None:
    """The one cube apart from the other two, asked about, then "it": "See the block sitting
    by itself? Push it onto the right pad." (from one step on a cube by colour onto a pad,
    the other two cubes moved side by side 6 cm apart to the back on the other half of the
    table, where the step still passes the cards)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    cubes = _scene_cubes(item)
    if not a or not c.place or not _single_step(item) or len(cubes) != 3:
        return None
    if not _flat_scene(item) or _PAD_NP.match(c.place) is None:
        return None
    x = cubes[f"{a}_cube"]
    side = -1.0 if x[1] >= 0 else 1.0
    pair = [n for n in sorted(cubes) if n != f"{a}_cube"]
    objects = {f"{a}_cube": tuple(x)}
    for n, y in zip(pair, (0.08, 0.14), strict=True):
        objects[n] = (0.62, side * y, 0.02)
    moved = {**item, "objects": objects}
    if _apart(objects) != (f"{a}_cube", pair) or not _valid(item["plan"], moved):
        return None
    form = _pick(
        [
            "See the block sitting by itself? {V} it{q}.",
            "Do you see the cube on its own? {V} it{q}.",
            "Notice the cube that's off on its own? {V} it{q}, please.",
        ],
        "lown|" + goal,
    )
    return form.format(V=_upper_first(c.verb), q=_rest(c)), {"objects": objects}


_STILL_WHILE = [
    "Stay still while I move the lamp.",
    "Keep still while I check the cable.",
    "Don't move while I fix the camera mount.",
    "Hold still for me while I take a photo.",
    "Freeze while I tidy the table edge.",
]


def still_while(goal: str, item: dict) -> Relabelled | None:
    """No motion asked for while the speaker does something (an empty plan): "Keep still
    while I check the cable."."""
    return _unplanned(item, _STILL_WHILE, "lwhile|" + goal)


_THOSE_TWO = [
    "Pile those two up.",
    "Stack these two, please.",
    "Put those two on top of each other.",
    "Stack the two of them.",
]


def those_two(goal: str, item: dict) -> Relabelled | None:
    """Two cubes pointed at with nothing named (asked which): "Stack these two, please."."""
    return _unplanned(item, _THOSE_TWO, "lthose|" + goal, "clarify")


def under_none(goal: str, item: dict) -> Relabelled | None:
    """ "The cube underneath X" where nothing stands under X (refused: no such cube): "Push
    the block beneath the red one onto the left pad." (from one step on a cube by colour on
    the table)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    cubes = _scene_cubes(item)
    if f"{a}_cube" not in cubes or _under(f"{a}_cube", cubes):
        return None
    form = _pick(
        [
            "{V} the block beneath the {a} one{q}.",
            "{V} the cube under the {a} cube{q}.",
            "{V} whichever cube is underneath the {a} block{q}.",
        ],
        "lunder|" + goal,
    )
    said = form.format(V=_upper_first(c.verb), a=a, q=_rest(c))
    return said, {"expect": "refuse", "plan": []}


_OTHER_PAD_MOVES = [
    "Move the block nearest the pad onto the other pad.",
    "Push the cube closest to the mat over to the other mat.",
    "Put the cube that's nearest to the pad on the other one.",
]


def other_pad(goal: str, item: dict) -> Relabelled | None:
    """ "The cube closest to the pad ... the other pad" with two pads (asked which pad):
    "Push the cube closest to the mat over to the other mat."."""
    return _unplanned(item, _OTHER_PAD_MOVES, "lopad|" + goal, "clarify")


# -- group M ------------------------------------------------------------------------------
# Written for the structures held-out 19 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (a reach added, a refusal, a question
# back, no motion, a tower moved in): those return ``(goal, fields)``.
def _pad_other(side: str) -> str:
    return "right" if side == "left" else "left"


_SIDE_COLOUR = {"left": "yellow", "right": "grey"}


def arm_over(goal: str, item: dict) -> Relabelled | None:
    """A placing, then the arm moved over a pad (a reach, not a push): "Put the red cube on
    the blue cube, then move the arm over the right pad." (from one placing of a cube by
    colour: the placing and a reach of a pad the goal picks)."""
    found = _placed_cube(goal, item)
    if found is None:
        return None
    side = _pick(["left", "right"], "marm|" + goal)
    plan = [item["plan"][0], _step(f"reach {side}_pad")]
    forms = [
        "{S}, then move the arm over the {p} pad.",
        "{S} and afterwards bring your arm above the {p} mat.",
        "{S}; after that, move the arm so it's over the {p} pad.",
    ]
    return _planned(plan, item, forms, "marmf|" + goal, S=_upper_first(_bare(goal)), p=side)


def off_edge(goal: str, item: dict) -> Relabelled | None:
    """A cube pushed off the table (no place on the table: refused): "Slide the red block
    off the edge of the table." (from one step on a cube by colour)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    form = _pick(
        [
            "Slide the {a} block off the edge of the table.",
            "Push the {a} cube over the table's edge, please.",
            "Could you shove the {a} cube right off the table?",
        ],
        "medge|" + goal,
    )
    return form.format(a=a), {"expect": "refuse", "plan": []}


def that_pad_there(goal: str, item: dict) -> Relabelled | None:
    """ "That pad over there" with two pads (asked which): "Set the red block down on that
    mat over there." (from one placing of a cube by colour onto a pad)."""
    forms = [
        "Set the {a} block down on that mat over there.",
        "Could you place the {a} cube onto that pad over there?",
        "Move the {a} cube to that pad over there, thanks.",
    ]
    said = _placed_said(goal, item, forms, "mthere|" + goal)
    return None if said is None else (said, {"expect": "clarify", "plan": []})


_ONE_WORD_TYPOS = ["homw now", "hme, thanks", "Hom please.", "hoome!", "hpme please"]


def one_word_typo(goal: str, item: dict) -> str | None:
    """A one-word goal with a small typo and a politeness word: "hme, thanks" (from a plan
    of going home alone)."""
    if not _single_step(item, "home"):
        return None
    return _pick(_ONE_WORD_TYPOS, "mtypo|" + goal)


def mind_moving(goal: str, item: dict) -> str | None:
    """ "Would you mind moving X over onto P?" (from one placing of a cube by colour onto a
    pad said with "move": "move ... onto" lifts, as the contract reads it)."""
    c = clause(goal)
    if c is None or c.verb != "move":
        return None
    forms = [
        "Would you mind moving the {a} block over onto {p}?",
        "Do you mind moving the {a} cube across onto {p}, please?",
        "Would you mind very much moving the {a} cube over onto {p}?",
    ]
    return _placed_said(goal, item, forms, "mmind|" + goal)


def hover_there(goal: str, item: dict) -> str | None:
    """A reach of a cube with "there" after it (the cube is the place): "Hover above the red
    block over there." (from a reach of a cube by colour)."""
    if not _single_step(item, "reach"):
        return None
    target = _said(item["plan"][0].params.get("target"))
    if not target or not target.endswith("cube"):
        return None
    a = target.split()[1]
    form = _pick(
        [
            "Hover above the {a} block over there.",
            "Reach over the {a} cube there, please.",
            "Go and hover over the {a} cube there.",
        ],
        "mhover|" + goal,
    )
    return form.format(a=a)


def _tower3_scene(item: dict, key: str) -> tuple[dict, list[str]] | None:
    """The goal's three cubes moved into one tower at the middle front of the table, in an
    order picked by ``key`` (bottom first); None for a scene of other than three cubes."""
    cubes = sorted(_scene_cubes(item))
    if len(cubes) != 3:
        return None
    order = _pick(list(itertools.permutations(cubes)), key)
    return {n: (0.5, 0.0, 0.02 + 0.04 * i) for i, n in enumerate(order)}, list(order)


def middle_of_stack(goal: str, item: dict) -> Relabelled | None:
    """The tower's middle level: "Hover over the block in the middle of the pile." (a reach
    of it) and "Put the middle cube of the stack on the left pad." (refused: a cube under
    another is not lifted) (from any plan, the scene's three cubes moved into a tower)."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    found = _tower3_scene(item, "mmid|" + goal)
    if found is None:
        return None
    objects, order = found
    moved = {**item, "objects": objects}
    plan = [_step(f"reach {order[1]}")]
    if _pick([True, False], "mmidr|" + goal) and _valid(plan, moved):
        form = _pick(
            [
                "Hover over the {n} in the middle of the {t}.",
                "Reach above the {n} in the middle of the {t}, please.",
            ],
            "mmidf|" + goal,
        )
        n = _pick(["cube", "block"], "mmidn|" + goal)
        t = _pick(["pile", "stack", "tower"], "mmidt|" + goal)
        return form.format(n=n, t=t), {"expect": "plan", "plan": plan, "objects": objects}
    form = _pick(
        [
            "Put the middle cube of the stack on the {p} pad.",
            "Move the middle block of the tower over to the {p} mat.",
        ],
        "mmidm|" + goal,
    )
    p = _pick(["left", "right", "yellow", "grey"], "mmidp|" + goal)
    return form.format(p=p), {"expect": "refuse", "plan": [], "objects": objects}


def pad_then_one(goal: str, item: dict) -> Relabelled | None:
    """Two pads reached, the second said as "the C one" (a pad: the pad of that colour):
    "Go above the grey mat, then the yellow one." (from a reach of a pad)."""
    if not _single_step(item, "reach"):
        return None
    target = item["plan"][0].params.get("target")
    if not isinstance(target, str) or target not in {"left_pad", "right_pad"}:
        return None
    side = target.split("_")[0]
    other = _pad_other(side)
    plan = [item["plan"][0], _step(f"reach {other}_pad")]
    forms = [
        "Go above the {c} mat, then the {o} one.",
        "Hover over the {c} pad first and then the {o} one.",
        "Move your gripper over the {c} pad, then over the {o} one.",
    ]
    return _planned(
        plan, item, forms, "mpads|" + goal, c=_SIDE_COLOUR[side], o=_SIDE_COLOUR[other]
    )


def never_mind_two(goal: str, item: dict) -> str | None:
    """Two cubes set aside as a group by position, then the other one: "Never mind the two
    blocks at the back; push the front one onto the left pad.", or one of the two by a side
    ("Out of the two cubes in the back, move the left one ...") (from one step on a cube by
    colour, as :func:`two_at_back`)."""
    alone = [
        "Never mind the two blocks at the back; {v} the front one{q}.",
        "Forget about the two cubes at the back and {v} the other one{q}.",
    ]
    side = [
        "Out of the two cubes in the back, {v} the {s} one{q}.",
        "Of the pair of blocks at the back, {v} the one on the {s}{q}.",
    ]
    return _two_back_said(goal, item, alone, side, ("mnever", "mnvs"))


def dont_push_first(goal: str, item: dict) -> str | None:
    """A prohibition said before the cube it is about: "No sliding it - lift the red cube
    and set it on the left pad." (from one placing of a cube by colour onto a pad: the
    placing, no push step)."""
    forms = [
        "No sliding it - lift the {a} cube and set it on {p}.",
        "Don't drag it; pick the {a} block up and place it onto {p}.",
        "Don't push it, please: grab the {a} cube and put it down on {p}.",
    ]
    return _placed_said(goal, item, forms, "mdont|" + goal)


def not_that_pad(goal: str, item: dict) -> str | None:
    """A pad ruled out, then "a pad": the other one ("Don't use the yellow mat. Set the red
    cube on a mat.") (from one placing of a cube by colour onto a pad)."""
    found = _placed_cube(goal, item)
    pad = found and _PAD_NP.match(found[0].place)
    if not pad:
        return None
    other = _pad_other(_PAD_SIDE[pad[1].lower()])
    said = _pick([other, _SIDE_COLOUR[other]], "mnotp|" + goal)
    form = _pick(
        [
            "Don't use the {o} mat. Set the {a} cube on a mat.",
            "Leave the {o} pad out of it - put the {a} block on a pad.",
            "Not the {o} pad, please. Place the {a} cube on either pad.",
        ],
        "mnotf|" + goal,
    )
    return form.format(o=said, a=found[1])


_HOLD_OFF = [
    "Wait - hold off on everything for a bit.",
    "Hang on, don't do anything just yet.",
    "Hold off on doing anything until I say so.",
    "Wait a moment, do nothing yet.",
]


def hold_off(goal: str, item: dict) -> Relabelled | None:
    """No motion yet (an empty plan): "Hang on, don't do anything just yet."."""
    return _unplanned(item, _HOLD_OFF, "mhold|" + goal)


def tower_on(goal: str, item: dict) -> Relabelled | None:
    """A tower built on a cube in an order said after a colon: "Build a tower on the blue
    cube: red first, then green." (from one placing of a cube by colour onto another in a
    flat scene of three cubes: that placing, then the third cube onto the first, as
    :func:`_three_on` takes it)."""
    forms = [
        "Build a tower on the {x} cube: {a} first, then {b}.",
        "Make a stack on top of the {x} block - the {a} one first, then the {b} one.",
        "Stack onto the {x} cube: {a} first and {b} after it.",
    ]
    return _three_said(goal, item, forms, "mtow|" + goal)


_THE_TWO = [
    "Stack the two blocks.",
    "Put the two cubes on top of each other.",
    "Pile up the two cubes, please.",
]


def stack_the_two(goal: str, item: dict) -> Relabelled | None:
    """ "The two cubes" stacked among three (asked which): "Pile up the two cubes, please."
    (from any plan in a scene of three cubes)."""
    if len(_scene_cubes(item)) != 3:
        return None
    return _unplanned(item, _THE_TWO, "mtwo|" + goal, "clarify")


def on_pad_none(goal: str, item: dict) -> Relabelled | None:
    """ "The cube sitting on P" when no cube is on P (refused: no such cube): "Slide the
    block that's sitting on the left pad over to the right pad." (from any plan in a scene
    with no cube within 8 cm of either pad's centre)."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    cubes = _scene_cubes(item)
    if any(math.dist(p[:2], q) < 0.08 for p in cubes.values() for q in _PADS.values()):
        return None
    side = _pick(["left", "right"], "mon|" + goal)
    form = _pick(
        [
            "Slide the block that's sitting on the {p} pad over to the {o} pad.",
            "Push the cube resting on the {p} mat onto the {o} mat.",
            "Move the cube on the {p} pad across to the {o} one.",
        ],
        "monf|" + goal,
    )
    said = form.format(p=side, o=_pad_other(side))
    return said, {"expect": "refuse", "plan": []}


# -- group N ------------------------------------------------------------------------------
# Written for the structures held-out 20 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (no motion, a refusal, a question back,
# a scene moved): those return ``(goal, fields)``.
_LEAVE_ALL = [
    "Pause for now; keep everything exactly as it is.",
    "Hang fire - leave it all just the way it is.",
    "Stop there. Leave everything precisely as it is, please.",
    "Not yet: keep everything just as it is for the moment.",
]


def leave_all(goal: str, item: dict) -> Relabelled | None:
    """No motion, said as a pause and everything left as it is (an empty plan): "Hang fire -
    leave it all just the way it is." (from any plan)."""
    return _unplanned(item, _LEAVE_ALL, "nleave|" + goal)


_TOOL_VERBS = [
    "Weigh the {a} block and tell me how heavy it is.",
    "Could you measure the {a} cube for me?",
    "Glue the {a} cube to the {b} one.",
    "Tape the {a} block onto the {b} block, please.",
    "Put a label on the {a} cube saying 'done'.",
    "What does the {a} cube weigh? Put it on the scale and check.",
    "Measure how tall the {a} cube is.",
    "Fix the {a} block to the {b} one with some glue.",
]


def tool_verb(goal: str, item: dict) -> Relabelled | None:
    """A verb no skill does on a cube ("Weigh the red block and tell me how heavy it is.",
    "Glue the red cube to the green one.", "Put a label on ..."): refused (from one step on a
    cube by colour; the second cube another of the scene)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    b = _other_colour(a, _scene_cubes(item), "ntoolb|" + goal)
    if b is None:
        return None
    form = _pick(_TOOL_VERBS, "ntool|" + goal)
    return form.format(a=a, b=b), {"expect": "refuse", "plan": []}


def tower_by(goal: str, item: dict) -> str | None:
    """A tower of two said first, then how: "Build a two-block stack by setting the red cube
    on top of the green one." (A on B, as said; from one placing of a cube by colour onto
    another)."""
    return _cube_onto_cube(
        goal,
        item,
        [
            "Build a two-block stack by setting the {a} cube on top of the {b} one.",
            "Make a little tower of two by placing the {a} block onto the {b} block.",
            "Form a two-cube tower: do it by putting the {a} cube on the {b} cube.",
            "Could you make a tower of two cubes by stacking the {a} one on the {b} one?",
        ],
        "ntower|",
    )


def _cube_onto_cube(goal: str, item: dict, forms: list[str], key: str) -> str | None:
    """One of ``forms`` (picked by ``key`` + the goal) with {a} the placed cube's colour and
    {b} the colour of the cube it goes onto, from one placing of a cube onto a cube."""
    found = _placed_cube(goal, item)
    b = found and _colour_of(found[0].place)
    if not b:
        return None
    return _pick(forms, key + goal).format(a=found[1], b=b)


def keep_there(goal: str, item: dict) -> str | None:
    """A placing, then the cube kept where it was put (no step after it): "Set the red cube
    on the left pad and let it stay there." (from one placing of a cube by colour)."""
    forms = [
        "Set the {a} cube on {p} and let it stay there.",
        "Put the {a} block onto {p}, then keep it there.",
        "Place the {a} cube on {p} and just leave it there.",
        "Lift the {a} cube onto {p} and keep it there for now.",
    ]
    return _placed_said(goal, item, forms, "nkeep|" + goal, onto_pad=False)


def hover_bring(goal: str, item: dict) -> Relabelled | None:
    """A reach of a pad, then "bring X to it" (a placing, "bring" lifts: the reach and the
    placing): "Go above the left pad, then bring the red cube over to it." (from one
    placing of a cube by colour onto a pad)."""
    found = _placed_cube(goal, item)
    pad = found and _PAD_NP.match(found[0].place)
    if not pad:
        return None
    side = _PAD_SIDE[pad[1].lower()]
    plan = [_step(f"reach {side}_pad"), item["plan"][0]]
    forms = [
        "Go above {p}, then bring the {a} cube over to it.",
        "Hover over {p} first and then bring the {a} block to it.",
        "Move your gripper over {p}; next, bring the {a} cube across to it.",
    ]
    return _planned(
        plan, item, forms, "nbring|" + goal, p=_lower_first(found[0].place), a=found[1]
    )


def _nearest_robot(item: dict) -> str | None:
    """The scene's cube nearest the robot's base in the table's plane, by 3 cm at least over
    the next (else None); a flat scene only."""
    if not _flat_scene(item):
        return None
    ranked = sorted((math.hypot(p[0], p[1]), n) for n, p in _scene_cubes(item).items())
    if len(ranked) < 2 or ranked[1][0] - ranked[0][0] < 0.03:
        return None
    return ranked[0][1]


def nearest_you(goal: str, item: dict) -> str | None:
    """ "Whichever of the cubes is closest to you" (you: the robot): "Reach over whichever of
    the blocks is closest to you." (from one step on a cube by colour that is the scene's
    nearest to the robot)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item) or _nearest_robot(item) != f"{a}_cube":
        return None
    which = _pick(
        [
            "whichever of the blocks is closest to you",
            "whichever one of the cubes lies nearest you",
            "whichever of the cubes is nearest to you",
        ],
        "nnear|" + goal,
    )
    return _upper_first(f"{c.verb} {which}{_rest(c)}.")


def which_pad_is(goal: str, item: dict) -> str | None:
    """A question naming a pad by colour, then the step "there": "Which of the mats is the
    grey one? Set the red cube down there." (from one placing of a cube by colour onto a
    pad)."""
    forms = [
        "Which of the mats is the {c} one? Set the {a} cube down there.",
        "Which pad's the {c} one? Put the {a} block there, please.",
        "Which one is the {c} pad? Place the {a} cube there.",
    ]
    return _placed_said(goal, item, forms, "nwhich|" + goal)


def anywhere_but(goal: str, item: dict) -> str | None:
    """A place ruled out, then the other said as good enough: "Put the red cube anywhere but
    the right pad; the left one is fine." (from one placing of a cube by colour onto a
    pad)."""
    forms = [
        "Put the {a} cube anywhere but the {o} pad; the {s} one is fine.",
        "Set the {a} block down anywhere other than the {o} mat - the {s} mat works.",
        "Place the {a} cube anywhere except on the {o} pad: the {s} pad will do.",
    ]
    return _placed_said(goal, item, forms, "nany|" + goal)


def one_left_there(goal: str, item: dict) -> str | None:
    """A cube onto "the C one" (a cube: no pad of that colour), then left there: "Stack the
    red cube on the green one and just leave it there." (from one placing of a cube by
    colour onto another)."""
    return _cube_onto_cube(
        goal,
        item,
        [
            "Stack the {a} cube on the {b} one and just leave it there.",
            "Set the {a} block onto the {b} one, and let it stay there.",
            "Put the {a} cube on top of the {b} one and leave it sitting there.",
        ],
        "nonethere|",
    )


def _top_said(
    goal: str, item: dict, forms: list[str], order_key: str, key: str
) -> Relabelled | None:
    """A goal of one placing of a cube by colour onto a pad, the scene's three cubes moved
    into one tower with that cube on top (the two under it in an order picked by
    ``order_key``) where the placing still passes the cards, said by one of ``forms`` picked
    by ``key`` ({a} the cube's colour, {p} the pad as said) and labelled with the scene
    moved; None for any other goal."""
    found = _placed_cube(goal, item)
    pad = found and _PAD_NP.match(found[0].place)
    if not pad:
        return None
    cubes = sorted(_scene_cubes(item))
    a = f"{found[1]}_cube"
    if len(cubes) != 3 or a not in cubes:
        return None
    below = [n for n in cubes if n != a]
    if _pick([0, 1], order_key):
        below.reverse()
    objects = {n: (0.5, 0.0, 0.02 + 0.04 * i) for i, n in enumerate([*below, a])}
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    said = _pick(forms, key).format(a=found[1], p=_lower_first(found[0].place))
    return said, {"objects": objects}


def unstack_set(goal: str, item: dict) -> Relabelled | None:
    """The top of a tower unstacked and set on a pad: "Unstack the green block and put it on
    the left pad." (from one placing of a cube by colour onto a pad, the scene's three cubes
    moved into a tower with that cube on top)."""
    forms = [
        "Unstack the {a} block and put it on {p}.",
        "Could you unstack the {a} cube and lay it on {p}?",
        "Unstack the {a} cube, then set it down on {p}.",
    ]
    return _top_said(goal, item, forms, "nunsto|" + goal, "nunst|" + goal)


_EDGE_SCENE = [(0.31, 0.02), (0.64, 0.27), (0.50, -0.29)]
"""A scene of cubes at the envelope's edges (the front, the back left corner, the right)."""


def near_edge(goal: str, item: dict) -> Relabelled | None:
    """ "The cube near the edge" where several are near one (asked which): "Move the block
    by the edge onto the red cube." (from one placing of a cube by colour onto another, the
    scene's three cubes moved to the envelope's edges)."""
    found = _placed_cube(goal, item)
    b = found and _colour_of(found[0].place)
    cubes = sorted(_scene_cubes(item))
    if not b or len(cubes) != 3:
        return None
    order = _pick(list(itertools.permutations(cubes)), "nedge|" + goal)
    objects = {n: (*xy, 0.02) for n, xy in zip(order, _EDGE_SCENE, strict=True)}
    form = _pick(
        [
            "Move the block by the edge onto the {b} cube.",
            "Put the cube near the edge on top of the {b} one.",
            "Stack the cube that's close to the edge on the {b} block.",
        ],
        "nedgef|" + goal,
    )
    return form.format(b=b), {"expect": "clarify", "plan": [], "objects": objects}


def lowest_in_stack(goal: str, item: dict) -> Relabelled | None:
    """The bottom of a tower moved (refused: a cube under another is not lifted or pushed):
    "Put the lowest block in the pile on the left pad." (from any plan, the scene's three
    cubes moved into a tower)."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    found = _tower3_scene(item, "nlow|" + goal)
    if found is None:
        return None
    objects, _ = found
    form = _pick(
        [
            "Put the lowest block in the pile on the {p} pad.",
            "Move the bottom-most cube of the tower to the {p} mat.",
            "Lift the cube at the very bottom of the stack onto the {p} pad.",
            "Slide the lowest cube in the stack across to the {p} pad.",
        ],
        "nlowf|" + goal,
    )
    p = _pick(["left", "right", "yellow", "grey"], "nlowp|" + goal)
    return form.format(p=p), {"expect": "refuse", "plan": [], "objects": objects}


# -- group O ------------------------------------------------------------------------------
# Written for the structures held-out 21 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (no motion, a refusal, a question back,
# a scene moved): those return ``(goal, fields)``.
def hover_stay(goal: str, item: dict) -> Relabelled | None:
    """A hover kept where it is, no return home ("Go above the grey mat and remain there -
    no going home after.": the reach alone) (from a reach of a pad)."""
    if not _single_step(item, "reach"):
        return None
    target = _said(item["plan"][0].params.get("target"))
    pad = target and _PAD_NP.match(target)
    if not pad:
        return None
    p = _pick([target, f"the {_SIDE_COLOUR[pad[1]]} mat"], "ohovp|" + goal)
    form = _pick(
        [
            "Go above {p} and remain there - no going home after.",
            "Move your gripper over {p} and hold it there; don't return home afterwards.",
            "Hover above {p}, stay put, and don't head back home after.",
        ],
        "ohov|" + goal,
    )
    return form.format(p=p), {"expect": "plan", "plan": list(item["plan"])}


def goes_on(goal: str, item: dict) -> Relabelled | None:
    """A correction whose new place is said with "goes on" (a placing: "goes on" lifts):
    "Not the left mat - the red block goes on the right mat." (from one placing of a cube
    by colour onto a pad)."""
    forms = [
        "Not the {o} mat - the {a} block goes on the {s} mat.",
        "No, wrong pad: the {a} cube goes on the {s} pad, not the {o} one.",
        "Not on the {o} pad, no. The {a} cube goes on the {s} pad.",
    ]
    said = _placed_said(goal, item, forms, "ogoes|" + goal)
    return None if said is None else (said, {"expect": "plan", "plan": list(item["plan"])})


def tower_standing(goal: str, item: dict) -> str | None:
    """The tower left standing beside a step on the free cube (no home step; the
    prohibition covers the tower's cubes): "Keep the stack standing and put the blue cube on
    the left pad." (from one placing or push of the cube beside the scene's one tower)."""
    forms = [
        "Keep the stack standing and {s}.",
        "Let the pile stay up; {s}.",
        "Leave the tower as it stands, and {s}.",
    ]
    return _beside_tower(goal, item, forms, "ostand|" + goal)


def into_box(goal: str, item: dict) -> Relabelled | None:
    """A cube put into a container the scene lacks (refused): "Toss the red cube into that
    bin." (from one placing of a cube by colour)."""
    forms = [
        "Drop the {a} block into the bin over there.",
        "Toss the {a} cube into that tray.",
        "Put the {a} cube in the box, please.",
        "Could you drop the {a} cube into that crate?",
    ]
    said = _placed_said(goal, item, forms, "obox|" + goal, onto_pad=False)
    return None if said is None else (said, {"expect": "refuse", "plan": []})


def _three_on(goal: str, item: dict, key: str) -> tuple[str, str, str, list] | None:
    """(x, a, b, plan): a placing of cube ``a`` onto cube ``x`` in a flat scene of three,
    then the third cube ``b`` onto ``a``, where both steps pass the cards."""
    found = _placed_cube(goal, item)
    x = found and _colour_of(found[0].place)
    cubes = _scene_cubes(item)
    if not x or len(cubes) != 3 or not _flat_scene(item):
        return None
    a = found[1]
    (b,) = [n.split("_")[0] for n in cubes if n not in {f"{a}_cube", f"{x}_cube"}]
    plan = [item["plan"][0], _step(f"pick_place {b}_cube {a}_cube")]
    return (x, a, b, plan) if _valid(plan, item) else None


def _three_said(goal: str, item: dict, forms: list[str], key: str) -> Relabelled | None:
    """One of ``forms`` (picked by ``key``; {x} the cube stacked on, {a} then {b}) for a goal
    :func:`_three_on` takes, labelled with its two placings; None for any other goal."""
    found = _three_on(goal, item, key)
    if found is None:
        return None
    x, a, b, plan = found
    return _pick(forms, key).format(x=x, a=a, b=b), {"expect": "plan", "plan": plan}


def stack_first(goal: str, item: dict) -> Relabelled | None:
    """Three stacked on a cube in an order said after a colon: "Pile all three onto the red
    block: green first, then blue on top." (from one placing of a cube by colour onto
    another in a flat scene of three: it first, the third cube onto it)."""
    forms = [
        "Pile all three onto the {x} block: {a} first, then {b} on top.",
        "Stack the three cubes on the {x} one - {a} first, and {b} on top of it.",
        "Make a tower of all three on the {x} cube: {a} first, {b} last.",
    ]
    return _three_said(goal, item, forms, "ofirstf|" + goal)


def on_top_of_that(goal: str, item: dict) -> Relabelled | None:
    """ "On top of that" after a placing (the cube just placed): "Set the green block on the
    red one, then put the blue block on top of that." (from one placing of a cube by colour
    onto another in a flat scene of three: then the third cube onto it)."""
    forms = [
        "Set the {a} block on the {x} one, then put the {b} block on top of that.",
        "Place the {a} cube onto the {x} cube and the {b} cube on top of that one.",
        "Put the {a} cube on the {x} cube, and on top of that the {b} cube.",
    ]
    return _three_said(goal, item, forms, "othatf|" + goal)


def tower_top_as(goal: str, item: dict) -> Relabelled | None:
    """The tower completed with a cube said as its top: "Finish the stack with the green
    block as the top one." (a scene with one tower of two and a cube beside it: that cube
    onto the tower's top)."""
    forms = [
        "Finish the stack with the {c} block as the top one.",
        "Complete the pile, with the {c} cube as its top.",
        "Round off the tower so that the {c} cube is its top.",
    ]
    return _tower_finished(item, forms, "otopas|" + goal)


def some_cube(goal: str, item: dict) -> Relabelled | None:
    """An unspecified one of several cubes moved ("Push some block onto the left pad.",
    "Put one of those blocks on the grey mat.": asked which) (from one placing or push of a
    cube onto a pad in a scene of two or more cubes)."""
    c = clause(goal)
    pad = c and _PAD_NP.match(c.place or "")
    if not pad or not _single_step(item) or len(_scene_cubes(item)) < 2:
        return None
    form = _pick(
        [
            "{V} some block onto {p}.",
            "{V} one of those blocks onto {p}.",
            "Could you {v} one of the cubes over to {p}?",
            "{V} some cube or other onto {p}.",
        ],
        "osome|" + goal,
    )
    said = form.format(V=_upper_first(c.verb), v=c.verb, p=_lower_first(c.place))
    return said, {"expect": "clarify", "plan": []}


def right_next_to(goal: str, item: dict) -> str | None:
    """ "The cube right next to X", one cube clearly nearest X (it, 5 cm or more nearer X
    than the third): "Set the block just beside the blue one on the grey pad." (from one
    placing or push of a cube by colour onto a pad in a flat scene of three)."""
    found = _colour_step_of_three(goal, item)
    if found is None or _PAD_NP.match(found[0].place) is None:
        return None
    c, a, cubes = found
    me = f"{a}_cube"

    def gap(p: str, q: str) -> float:
        return math.hypot(cubes[p][0] - cubes[q][0], cubes[p][1] - cubes[q][1])

    for x in sorted(n for n in cubes if n != me):
        (third,) = [n for n in cubes if n not in {me, x}]
        if gap(x, third) - gap(x, me) >= 0.05:
            form = _pick(
                [
                    "{V} the block just beside the {x} one{q}.",
                    "{V} the cube right next to the {x} block{q}, please.",
                    "Could you {v} the cube sitting right beside the {x} one{q}?",
                ],
                "onext|" + goal,
            )
            return form.format(V=_upper_first(c.verb), v=c.verb, x=x.split("_")[0], q=_rest(c))
    return None


def two_at_front(goal: str, item: dict) -> str | None:
    """Two cubes set aside as a group by position ("the two cubes at the front"), then a
    step on the third by colour: "Leave the two blocks in front alone and just push the red
    cube onto the left pad." (from one step on a cube by colour onto a place, the scene's
    two other cubes both 4 cm or more in front of it)."""
    found = _colour_step_of_three(goal, item)
    if found is None:
        return None
    _, a, cubes = found
    order = sorted(cubes, key=lambda n: cubes[n][0])
    if order[2] != f"{a}_cube" or cubes[order[2]][0] - cubes[order[1]][0] < 0.04:
        return None
    form = _pick(
        [
            "Leave the two blocks in front alone and just {s}.",
            "Keep your hands off the two cubes at the front; just {s}.",
            "Don't disturb the front two cubes - only {s}.",
        ],
        "ofront|" + goal,
    )
    return form.format(s=_bare(_lower_first(goal)))


def topic_locative(goal: str, item: dict) -> Relabelled | None:
    """A noun phrase with a locative said first, then "it" (the subject, not a target):
    "The blue block at the top of the pile - set it on the left pad." (from one placing of a
    cube by colour onto a pad, the scene's three cubes moved into a tower with that cube on
    top)."""
    forms = [
        "The {a} block at the top of the pile - set it on {p}.",
        "The {a} cube on top of the tower: place it onto {p}.",
        "The {a} cube up on the stack, put it down on {p}, please.",
    ]
    return _top_said(goal, item, forms, "otopl|" + goal, "otoplf|" + goal)


def tower_again(goal: str, item: dict) -> Relabelled | None:
    """A tower said, then its placings, a cube named again being the same cube (three high):
    "Make a stack: the green block on the red block, then the blue block on the green
    block." (from one placing of a cube by colour onto another in a flat scene of three)."""
    forms = [
        "Make a stack: the {a} block on the {x} block, then the {b} block on the {a} block.",
        "Tower time - {a} cube onto {x} cube, and after that {b} cube onto {a} cube.",
        "Build a pile: put the {a} cube on the {x} one, then the {b} cube on the {a} one.",
    ]
    return _three_said(goal, item, forms, "oagainf|" + goal)


_LEAVE_THINGS = [
    "Forget it - just leave everything the way it is.",
    "Actually, never mind; leave things as they are.",
    "Scratch that, leave things how they are.",
    "Never mind that, just let everything stay the way it is.",
]


def leave_things(goal: str, item: dict) -> Relabelled | None:
    """The request withdrawn and everything left as it is (an empty plan): "Scratch that,
    leave things how they are." (from any plan)."""
    return _unplanned(item, _LEAVE_THINGS, "oleave|" + goal)


def near_edge_one(goal: str, item: dict) -> Relabelled | None:
    """ "The cube near the edge" with one cube clearly nearest an edge of the table (at the
    cube region's side, the others near the table's middle): "Put the block by the edge of
    the table on the left pad." (from one placing or push of a cube by colour onto a pad, the
    scene's three cubes moved)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    pad = c and _PAD_NP.match(c.place or "")
    cubes = sorted(_scene_cubes(item))
    if not a or not pad or not _single_step(item) or len(cubes) != 3:
        return None
    if f"{a}_cube" not in cubes:
        return None
    side = 1.0 if _pick([True, False], "oedges|" + goal) else -1.0
    rest = [n for n in cubes if n != f"{a}_cube"]
    objects = {
        f"{a}_cube": (0.40, 0.28 * side, 0.02),
        rest[0]: (0.45, 0.0, 0.02),
        rest[1]: (0.52, -0.10 * side, 0.02),
    }
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "{V} the block by the edge of the table{q}.",
            "{V} the cube near the edge{q}, please.",
            "Could you {v} the cube that's close to the edge{q}?",
        ],
        "oedgef|" + goal,
    )
    said = form.format(V=_upper_first(c.verb), v=c.verb, q=_rest(c))
    return said, {"objects": objects}


# -- group P ------------------------------------------------------------------------------
# Written for the structures held-out 22 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (no motion, a refusal, a question back,
# a scene moved): those return ``(goal, fields)``.
_P_PUSH_SAID = ["slide", "shove", "push"]
_P_LIFT_SAID = ["place", "set", "lift", "put"]


def _p_step_said(step, verb: str) -> str | None:
    """A placing or a push said with ``verb`` ("set the red block on the left pad"), else
    None."""
    obj, target = _said(step.params.get("object")), _said(step.params.get("target"))
    if step.skill not in {"pick_place", "push"} or not obj or not target:
        return None
    prep = "onto" if step.skill == "push" or verb == "lift" else "on"
    return f"{verb} {obj} {prep} {target}"


def own_verb(goal: str, item: dict) -> str | None:
    """Two clauses, each with its own verb, a push and a placing in either order (the
    second clause's verb is its own: "First slide the red cube onto the left pad, then set
    the blue cube on the right pad." lifts the blue cube) (from a plan of a push and a
    placing of two cubes)."""
    plan = item["plan"]
    skills = {s.skill for s in plan}
    if item["expect"] != "plan" or len(plan) != 2 or skills != {"push", "pick_place"}:
        return None
    if plan[0].params.get("object") == plan[1].params.get("object"):
        return None
    said = []
    for i, step in enumerate(plan):
        verbs = _P_PUSH_SAID if step.skill == "push" else _P_LIFT_SAID
        said.append(_p_step_said(step, _pick(verbs, f"pown{i}|" + goal)))
    if not all(said):
        return None
    form = _pick(
        [
            "First {a}, then {b}.",
            "{A}; after that, {b}.",
            "{A}, and once that's done, {b}.",
            "To begin, {a}. Next, {b}.",
        ],
        "pownf|" + goal,
    )
    return form.format(A=_upper_first(said[0]), a=said[0], b=said[1])


def and_come_home(goal: str, item: dict) -> Relabelled | None:
    """A placing, then "and come home" (both steps: "Set red on the grey mat and come home
    afterwards.") (from one placing of a cube by colour onto a pad)."""
    found = _placed_cube(goal, item)
    pad = found and _PAD_NP.match(found[0].place)
    if not pad:
        return None
    plan = [item["plan"][0], _step("home")]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Set {a} on {p} and come home afterwards.",
            "Place the {a} block on {p}, and come back home.",
            "Lift {a} onto {p} and then come on home.",
            "Pop the {a} cube on {p} and come home after.",
        ],
        "phome|" + goal,
    )
    said = form.format(a=found[1], p=_lower_first(found[0].place))
    return said, {"expect": "plan", "plan": plan}


def actually_first(goal: str, item: dict) -> str | None:
    """A step said, then another brought in front of it with "actually ... first" and its
    place after the cube: "Set the blue block on the grey mat. Actually, do the red block
    first, onto the yellow mat." (from a plan of two placings of two cubes onto pads)."""
    plan = item["plan"]
    if item["expect"] != "plan" or len(plan) != 2:
        return None
    if any(s.skill != "pick_place" for s in plan):
        return None
    colours = _colour_steps(item)
    targets = [_said(s.params.get("target")) for s in plan]
    if colours is None or not all(t and _PAD_NP.match(t) for t in targets):
        return None
    form = _pick(
        [
            "Set the {d} block on {q}. Actually, do the {c} block first, onto {p}.",
            "Put the {d} cube on {q}. Wait, actually - the {c} cube first, onto {p}.",
            "Place the {d} cube on {q}; actually, start with the {c} one, onto {p}.",
        ],
        "pfirst|" + goal,
    )
    return form.format(c=colours[0], d=colours[1], p=targets[0], q=targets[1])


_P_CUBE_LIKE = {
    "blue": [
        "the cube coloured like the sky",
        "the sky-coloured block",
        "the block that's the colour of the sky",
        "the one whose colour is blue",
    ],
    "green": [
        "the cube that's the colour of grass",
        "the block coloured like grass",
        "the grass-coloured cube",
        "the one whose colour is green",
    ],
    "red": [
        "the red-coloured block",
        "the cube whose colour is red",
        "the block that's coloured red",
        "the one whose colour is red",
    ],
}
_P_PAD_LIKE = [
    "the {c}-coloured {n}",
    "the {n} whose colour is {c}",
    "the {n} that's coloured {c}",
    "the {n} coloured {c}",
]


def colour_like(goal: str, item: dict) -> str | None:
    """A cube or a pad said by a paraphrase of its colour (the scene's colours only): "Push
    the cube coloured like the sky onto the left pad.", "Set the red cube on the
    grey-coloured mat." (from one step on a cube by colour, or onto a pad by colour)."""
    c = clause(goal)
    if c is None or not _single_step(item):
        return None
    a = _colour_of(c.obj)
    pad = _PAD_COLOUR.search(c.place or "")
    if a and (not pad or _pick([True, False], "plikew|" + goal)):
        obj = _pick(_P_CUBE_LIKE[a], "plikec|" + goal)
        return f"{_upper_first(c.verb)} {obj}{_rest(c)}."
    if not pad:
        return None
    said = _pick(_P_PAD_LIKE, "plikep|" + goal).format(c=pad[1].lower(), n=pad[2].lower())
    place = c.place[: pad.start()] + said + c.place[pad.end() :]
    return f"{_upper_first(c.verb)} {_lower_first(c.obj)} {c.prep} {place}."


def _third_said(goal: str, item: dict, forms: list[str], key: str) -> str | None:
    """One step on a cube by colour in a scene of three said by one of ``forms`` picked by
    ``key`` ({x} and {y} the two other colours, in an order picked by ``key``; {V} / {v} the
    verb, {q} the place), else None."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    cubes = _scene_cubes(item)
    if not a or not _single_step(item) or len(cubes) != 3 or f"{a}_cube" not in cubes:
        return None
    x, y = sorted(n.split("_")[0] for n in cubes if n != f"{a}_cube")
    if _pick([True, False], f"{key}o|" + goal):
        x, y = y, x
    form = _pick(forms, f"{key}|" + goal)
    return form.format(V=_upper_first(c.verb), v=c.verb, x=x, y=y, q=_rest(c))


def neither_nor(goal: str, item: dict) -> str | None:
    """The third cube said as "neither X nor Y": "Slide the block that's neither green nor
    red onto the grey pad." (from one step on a cube by colour in a scene of three)."""
    forms = [
        "{V} the block that's neither {x} nor {y}{q}.",
        "{V} the cube which is neither {x} nor {y}{q}, please.",
        "Could you {v} the one that is neither {x} nor {y}{q}?",
    ]
    return _third_said(goal, item, forms, "pneith")


def _p_in_front(goal: str, item: dict) -> tuple[Clause, str] | None:
    """The clause of one step on a cube by colour and its colour, where the scene's two other
    cubes (three, flat) both stand 4 cm or more behind it; None for any other goal."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item) or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    if len(cubes) != 3 or f"{a}_cube" not in cubes:
        return None
    order = sorted(cubes, key=lambda n: cubes[n][0])
    if order[0] != f"{a}_cube" or cubes[order[1]][0] - cubes[order[0]][0] < 0.04:
        return None
    return c, a


def back_two_front(goal: str, item: dict) -> str | None:
    """The two cubes at the back set aside as a group, then "the front one" (the remaining
    cube): "Keep the two back blocks where they are and move the front one onto the grey
    mat." (from one step on a cube by colour onto a place, the scene's two other cubes both
    4 cm or more behind it)."""
    found = _p_in_front(goal, item)
    if found is None or not _PAD_NP.match(found[0].place or ""):
        return None
    c = found[0]
    form = _pick(
        [
            "Keep the two back blocks where they are and {v} the front one{q}.",
            "Leave both cubes at the back in place, then {v} the one at the front{q}.",
            "The two cubes at the back stay put; {v} the front one{q}.",
        ],
        "pbkfr|" + goal,
    )
    return form.format(v=c.verb, q=_rest(c))


def moved_built_on(goal: str, item: dict) -> Relabelled | None:
    """A cube moved off a tower, then another built on it where it now stands: "Put the red
    block on the left pad, then the green block onto the red block." (from one placing of a
    cube by colour onto a pad, the scene's three cubes moved into a tower with it on top:
    then the cube it left on top onto it)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    cubes = sorted(_scene_cubes(item))
    a = f"{found[1]}_cube"
    if len(cubes) != 3 or a not in cubes:
        return None
    below = [n for n in cubes if n != a]
    if _pick([0, 1], "pbuilto|" + goal):
        below.reverse()
    objects = {n: (0.5, 0.0, 0.02 + 0.04 * i) for i, n in enumerate([*below, a])}
    plan = [item["plan"][0], _step(f"pick_place {below[1]} {a}")]
    moved = {**item, "objects": objects}
    if not _valid(plan, moved):
        return None
    form = _pick(
        [
            "Put the {a} block on {p}, then the {b} block onto the {a} block.",
            "First move the {a} cube onto {p}; after that, stack the {b} cube on the {a} one.",
            "Set the {a} cube down on {p} and then put the {b} cube on top of the {a} cube.",
        ],
        "pbuilt|" + goal,
    )
    said = form.format(a=found[1], b=below[1].split("_")[0], p=_lower_first(found[0].place))
    return said, {"expect": "plan", "plan": plan, "objects": objects}


def bring_back(goal: str, item: dict) -> Relabelled | None:
    """A cube taken to a pad, then "brought back onto" another cube (a placing onto that
    cube, not a point): "Carry the green block over to the left mat, then bring it back onto
    the blue block." (from one placing of a cube by colour onto another cube)."""
    found = _placed_cube(goal, item)
    y = found and _colour_of(found[0].place)
    if not y or not _flat_scene(item):
        return None
    a = found[1]
    pad = _pick(["left", "right"], "pbackp|" + goal)
    plan = [_step(f"pick_place {a}_cube {pad}_pad"), item["plan"][0]]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Carry the {a} block over to the {p} mat, then bring it back onto the {y} block.",
            "Move the {a} cube to the {p} pad, and after that bring it back onto the {y} cube.",
            "Take the {a} cube across to the {p} pad; then bring it back and set it on the {y}"
            " cube.",
        ],
        "pback|" + goal,
    )
    return form.format(a=a, p=pad, y=y), {"expect": "plan", "plan": plan}


def move_to_lift(goal: str, item: dict) -> Relabelled | None:
    """A reach of a cube said as "move / go to it", then "lift it onto" a place ("it" the
    cube reached): "Go to the red block, then lift it onto the grey mat." (from one placing
    of a cube by colour: the reach and the placing)."""
    found = _placed_cube(goal, item)
    if found is None:
        return None
    c, a = found
    plan = [_step(f"reach {a}_cube"), item["plan"][0]]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Go to the {a} block, then lift it onto {p}.",
            "Move over to the {a} cube and then lift it onto {p}.",
            "Head to the {a} cube first, and lift it onto {p}.",
        ],
        "pmvlift|" + goal,
    )
    return form.format(a=a, p=_lower_first(c.place)), {"expect": "plan", "plan": plan}


def home_stay(goal: str, item: dict) -> str | None:
    """Going home, then staying there: "Go back to your home position and remain there."
    (from a plan of going home alone)."""
    if not _single_step(item, "home"):
        return None
    return _pick(
        [
            "Go back to your home position and remain there.",
            "Head to the home pose and stay put there.",
            "Return home and stay there, please.",
            "Get back to the home position and stay there.",
        ],
        "phstay|" + goal,
    )


def cancel_nothing(goal: str, item: dict) -> Relabelled | None:
    """The request cancelled, nothing needed (an empty plan): "Scrap that - I don't need
    anything." (from any plan)."""
    return _unplanned(
        item,
        [
            "Scrap that - I don't need anything.",
            "Cancel that, I don't need anything after all.",
            "Call that off; I don't need anything right now.",
            "Cancel it - I don't want anything done.",
        ],
        "pcancel|" + goal,
    )


def third_pad(goal: str, item: dict) -> Relabelled | None:
    """A pad by an ordinal the scene's two pads lack ("the third pad": refused) (from one
    placing or push of a cube by colour onto a pad)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _PAD_NP.match(c.place or "") or not _single_step(item):
        return None
    form = _pick(
        [
            "{V} the {a} block onto the third mat.",
            "{V} the {a} cube onto the third pad, please.",
            "Could you {v} the {a} cube onto the third pad?",
        ],
        "pthird|" + goal,
    )
    return form.format(V=_upper_first(c.verb), v=c.verb, a=a), {"expect": "refuse", "plan": []}


def one_of_back(goal: str, item: dict) -> Relabelled | None:
    """A cube put onto "one of the back cubes" with two at the back (asked which): "Stack the
    red block on one of the cubes at the back." (from one step on a cube by colour, the
    scene's two other cubes both 4 cm or more behind it)."""
    found = _p_in_front(goal, item)
    if found is None:
        return None
    a = found[1]
    form = _pick(
        [
            "Stack the {a} block on one of the cubes at the back.",
            "Set the {a} cube on top of one of the back blocks.",
            "Place the {a} cube onto one of the two back cubes.",
        ],
        "poneback|" + goal,
    )
    return form.format(a=a), {"expect": "clarify", "plan": []}


def on_it_none(goal: str, item: dict) -> Relabelled | None:
    """A cube put "on it" with nothing said before for "it" to name (asked what): "Set the
    green block on it." (from one placing of a cube by colour)."""
    found = _placed_cube(goal, item)
    if found is None:
        return None
    form = _pick(
        [
            "Set the {a} block on it.",
            "Place the {a} cube on top of it, please.",
            "Could you lift the {a} cube onto it?",
        ],
        "ponit|" + goal,
    )
    return form.format(a=found[1]), {"expect": "clarify", "plan": []}


def tower_full(goal: str, item: dict) -> Relabelled | None:
    """One more cube asked on a tower already three high (refused: the tower's limit, and no
    cube left to add): "Put one more block on top of the stack." (from any plan, the scene's
    three cubes moved into a tower)."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    found = _tower3_scene(item, "pfull|" + goal)
    if found is None:
        return None
    form = _pick(
        [
            "Put one more block on top of the stack.",
            "Stack an extra cube onto the top of the tower.",
            "Add one more cube to the pile, on top.",
        ],
        "pfullf|" + goal,
    )
    return form, {"expect": "refuse", "plan": [], "objects": found[0]}


_P_VERB_TYPOS = {
    "move": ["moev", "mvoe"],
    "place": ["plcae", "palce"],
    "push": ["psuh", "puhs"],
    "slide": ["sldie", "silde"],
}


def verb_typo(goal: str, item: dict) -> str | None:
    """The verb said with two letters swapped ("plcae the red cube on the left pad", "psuh
    the blue block onto the grey mat": the verb it is closest to) (from one step of a cube
    said as one clause with move, place, push or slide)."""
    c = clause(goal)
    if c is None or c.verb not in _P_VERB_TYPOS or not c.place or not _single_step(item):
        return None
    typo = _pick(_P_VERB_TYPOS[c.verb], "ptypo|" + goal)
    return f"{typo} {_lower_first(c.obj)}{_rest(c)}"


# -- group Q ------------------------------------------------------------------------------
# Written for the structures held-out 23 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (no motion, a refusal, a scene's step):
# those return ``(goal, fields)``.


def bare_colours(goal: str, item: dict) -> str | None:
    """A fragment of two bare colours, the place's noun without its article: "blue onto
    yellow mat", "green to grey pad, thanks" (from one placing of a cube by colour onto a pad
    by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _PAD_NP.match(found[0].place)
    if not pad or pad[1].lower() not in {"yellow", "grey", "gray"}:
        return None
    form = _pick(
        ["{a} onto {p} {n}", "{a} to {p} {n}, thanks", "{A} on {p} {n} please"],
        "qbare|" + goal,
    )
    return form.format(a=found[1], A=found[1].capitalize(), p=pad[1].lower(), n=pad[2].lower())


_Q_LIKE = {
    "blue": ["a clear summer sky", "a calm sea", "the open ocean"],
    "green": ["fresh spring grass", "a lime", "a green leaf"],
    "red": ["a ripe strawberry", "a fire engine", "a ripe cherry"],
}


def colour_of_thing(goal: str, item: dict) -> str | None:
    """A cube said by a thing of its colour with an article and an adjective: "Push the block
    coloured like a ripe strawberry onto the grey pad.", "the cube that's the colour of fresh
    spring grass" (from one step on a cube by colour)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    thing = _pick(_Q_LIKE[a], "qthing|" + goal)
    form = _pick(
        ["the block coloured like {t}", "the cube that's the colour of {t}"], "qthingf|" + goal
    )
    return f"{_upper_first(c.verb)} {form.format(t=thing)}{_rest(c)}."


def belongs_push(goal: str, item: dict) -> str | None:
    """Where a cube goes said first, then the push to it: "The red block belongs on the grey
    mat - slide it over there." (from one push of a cube by colour onto a pad: one push)."""
    found = _pushed_onto_pad(goal, item)
    if found is None:
        return None
    c, a = found
    form = _pick(
        [
            "The {a} block belongs on {p} - slide it over there.",
            "The {a} cube should go on {p}; shove it there.",
            "The {a} cube's place is {p}: push it over there, please.",
        ],
        "qbelong|" + goal,
    )
    return form.format(a=a, p=_lower_first(c.place))


def take_and_turn(goal: str, item: dict) -> str | None:
    """A cube taken hold of, then turned by an angle ("it" the cube): "Grab the blue block and
    rotate it 30 degrees." (from one turn of a cube by an angle)."""
    m = _turned_cube(goal, item)
    angle = m and item["plan"][0].params.get("angle")
    if not isinstance(angle, float) or angle <= 0:
        return None
    form = _pick(
        [
            "Grab the {c} block and rotate it {n} degrees.",
            "Get hold of the {c} cube and twist it by {n} degrees.",
            "Take hold of the {c} cube, then spin it {n} degrees.",
        ],
        "qturn|" + goal,
    )
    return form.format(c=m[1].lower(), n=f"{angle:g}")


def same_but_onto(goal: str, item: dict) -> str | None:
    """A placing, then "the same with" another cube "but onto" another pad (two placings):
    "Set the red block on the grey mat, then do the same with the green one, only onto the
    yellow mat." (from two placings of two cubes onto pads)."""
    plan = item["plan"]
    colours = _colour_steps(item)
    if colours is None or any(s.skill != "pick_place" for s in plan):
        return None
    targets = [_said(s.params.get("target")) for s in plan]
    if not all(t and _PAD_NP.match(t) for t in targets) or targets[0] == targets[1]:
        return None
    form = _pick(
        [
            "Set the {c} block on {p}, then do the same with the {d} one, only onto {q}.",
            "Put the {c} cube on {p}. After that, the same for the {d} cube but onto {q}.",
            "Place the {c} cube on {p}; do the same thing with the {d} one, but on {q}.",
        ],
        "qsame|" + goal,
    )
    return form.format(c=colours[0], d=colours[1], p=targets[0], q=targets[1])


def tower_base_twice(goal: str, item: dict) -> str | None:
    """A tower of three said on its base cube, the base named again in the first stack: "Make
    a three-block tower on the red block: green on red, then blue on top." (from a tower of
    three built on a cube on the table)."""
    forms = [
        "Make a three-block tower on the {l} block: {m} on {l}, then {t} on top.",
        "Stack three high on the {l} cube - {m} onto {l}, {t} last.",
        "Build a tower of three on top of the {l} cube: {m} on the {l}, and {t} at the top.",
    ]
    return _tower3_said(item, forms, "qbase|" + goal)


def scrap_last(goal: str, item: dict) -> Relabelled | None:
    """The last request cancelled with "no need" to act (an empty plan): "Forget my previous
    instruction; there's no need to do anything." (from any plan)."""
    return _unplanned(
        item,
        [
            "Forget my previous instruction; there's no need to do anything.",
            "Cancel the last request - no need to move at all.",
            "Drop that last instruction, there's no need to move.",
        ],
        "qscrap|" + goal,
    )


def point_hold(goal: str, item: dict) -> str | None:
    """The gripper raised or brought to a point, then held there (the reach): "Bring the
    gripper up to x 0.5, y 0.1, z 0.3 and keep it there." (from one reach of a point)."""
    return _point_said(
        goal,
        item,
        [
            "Bring the gripper up to x {x}, y {y}, z {z} and keep it there.",
            "Lift your hand to x {x}, y {y}, z {z} and hold it there for a bit.",
            "Raise the arm to x {x}, y {y}, z {z}, then hold it there.",
        ],
        "qhold",
    )


def cube_in_front(goal: str, item: dict) -> str | None:
    """The cube said as "the cube in front" where one stands in front of the other two:
    "Slide the block in front onto the grey mat." (from one step on a cube by colour, the
    scene's two other cubes both 4 cm or more behind it)."""
    found = _p_in_front(goal, item)
    if found is None or not found[0].place:
        return None
    c = found[0]
    form = _pick(
        [
            "{V} the block in front{q}.",
            "{V} the cube that's in front{q}, please.",
            "Could you {v} the cube in front{q}?",
        ],
        "qfront|" + goal,
    )
    return form.format(V=_upper_first(c.verb), v=c.verb, q=_rest(c))


def isnt_x_or_y(goal: str, item: dict) -> str | None:
    """The third cube said as "the cube that isn't X or Y": "Push the block that is not green
    or red onto the grey pad." (from one step on a cube by colour in a scene of three)."""
    forms = [
        "{V} the block that is not {x} or {y}{q}.",
        "{V} the cube which isn't {x} or {y}{q}.",
        "Could you {v} the one that's not {x} or {y}{q}?",
    ]
    return _third_said(goal, item, forms, "qisnt")


_Q_PREP_TYPOS = {"above": ["abvoe", "aboev", "abov"], "over": ["ovre", "oevr"]}


def prep_typo(goal: str, item: dict) -> str | None:
    """A reach's preposition with a letter swapped or dropped: "Hover abvoe the grey mat.",
    "Hang ovre the red block for a moment." (from one reach of a pad or a cube)."""
    if not _single_step(item, "reach"):
        return None
    target = _said(item["plan"][0].params.get("target"))
    if target is None:
        return None
    prep = _pick(["above", "over"], "qprepw|" + goal)
    typo = _pick(_Q_PREP_TYPOS[prep], "qprept|" + goal)
    form = _pick(
        ["Hover {t} {x} for a moment.", "Hang {t} {x}, please.", "Move the gripper {t} {x}."],
        "qprep|" + goal,
    )
    return form.format(t=typo, x=target)


def back_two_reach(goal: str, item: dict) -> Relabelled | None:
    """The two cubes at the back left alone, then a reach of the one in front (the reach
    alone, no step after it): "Keep the two cubes at the back where they are and hover over
    the blue block." (from one step on a cube by colour, the scene's two other cubes both 4
    cm or more behind it: a reach of that cube)."""
    found = _p_in_front(goal, item)
    if found is None:
        return None
    a = found[1]
    plan = [_step(f"reach {a}_cube")]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Keep the two cubes at the back where they are and hover over the {a} block.",
            "Don't disturb the two back blocks; just go above the {a} one.",
            "Leave both back cubes alone and move over the {a} cube.",
        ],
        "qbkreach|" + goal,
    )
    return form.format(a=a), {"expect": "plan", "plan": plan}


def then_bring_it(goal: str, item: dict) -> Relabelled | None:
    """A placing onto a pad, then "bring it over to" the other pad ("it" the cube carried: a
    second placing, where the cards pass it in the scene, else refused): "Set the green block
    on the grey mat and after that carry it over to the yellow mat." (from one placing of a
    cube by colour onto a pad)."""
    found = _placed_cube(goal, item)
    pad = found and _PAD_NP.match(found[0].place)
    if not pad or not _flat_scene(item):
        return None
    first = item["plan"][0].params.get("target")
    other = {"left_pad": "right_pad", "right_pad": "left_pad"}.get(first)
    if other is None:
        return None
    a = found[1]
    plan = [item["plan"][0], _step(f"pick_place {a}_cube {other}")]
    label = (
        {"expect": "plan", "plan": plan}
        if _valid(plan, item)
        else {"expect": "refuse", "plan": []}
    )
    form = _pick(
        [
            "Set the {a} block on {p} and after that carry it over to {q}.",
            "Put the {a} cube onto {p}, then bring it across to {q}.",
            "Lift the {a} cube onto {p}, and next take it over to {q}.",
        ],
        "qbring|" + goal,
    )
    return form.format(a=a, p=_lower_first(found[0].place), q=_said(other)), label


def sort_by(goal: str, item: dict) -> Relabelled | None:
    """Every cube measured and ordered by it, which no skill does (refused): "Measure all the
    blocks and arrange them from lightest to heaviest." (from any plan)."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    form = _pick(
        [
            "Measure all the blocks and arrange them from lightest to heaviest.",
            "Weigh every cube, then sort them in a row by weight.",
            "Weigh the three cubes and put them in order, heaviest first.",
        ],
        "qsort|" + goal,
    )
    return form, {"expect": "refuse", "plan": []}


# -- group R ------------------------------------------------------------------------------
# Written for the structures held-out 24 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (no motion, a refusal, a question back, a
# scene moved, the steps reordered): those return ``(goal, fields)``.
_R_PAD_SIDE = {"yellow": "left", "grey": "right", "gray": "right"}


def _pad_by_colour(c: Clause | None) -> re.Match | None:
    """The clause's place as a pad by its colour ("the grey mat"), else None."""
    pad = c and c.place and _PAD_NP.match(c.place)
    return pad if pad and pad[1].lower() in _R_PAD_SIDE else None


def terse_pad(goal: str, item: dict) -> str | None:
    """A terse fragment, cube and pad each with its noun but no article: "red block onto grey
    mat pls" (from one placing of a cube by colour onto a pad by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad:
        return None
    form = _pick(
        [
            "{a} block onto {p} mat pls",
            "{a} cube over to {p} square, ta",
            "{A} brick on {p} pad thx",
        ],
        "rterse|" + goal,
    )
    return form.format(a=found[1], A=found[1].capitalize(), p=pad[1].lower())


def pad_colour_np(goal: str, item: dict) -> str | None:
    """A pad by its colour said in another noun phrase: "... onto the mat that has a grey
    colour", "... onto the pad in yellow", "... onto the right mat - the grey one" (from one
    step of a cube onto a pad by colour)."""
    c = clause(goal)
    pad = _pad_by_colour(c)
    if not pad or not _single_step(item):
        return None
    p = pad[1].lower()
    form = _pick(
        ["the mat that has a {p} colour", "the pad in {p}", "the {s} mat - the {p} one"],
        "rpadnp|" + goal,
    )
    place = form.format(p=p, s=_R_PAD_SIDE[p])
    return f"{_upper_first(c.verb)} {_lower_first(c.obj)} {c.prep} {place}."


_R_SAME_AS = {
    "blue": ["the sky", "the sea"],
    "green": ["fresh grass", "a lime"],
    "red": ["a tomato", "a strawberry"],
}


def same_colour_as(goal: str, item: dict) -> str | None:
    """A cube said by "the same colour as" a thing: "Push the block with the same colour as the
    sky onto the grey pad.", "the cube that matches the colour of a lime" (from one step on a
    cube by colour)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    thing = _pick(_R_SAME_AS[a], "rsame|" + goal)
    form = _pick(
        [
            "the block with the same colour as {t}",
            "the cube that matches the colour of {t}",
            "the cube the same colour as {t}",
        ],
        "rsamef|" + goal,
    )
    return f"{_upper_first(c.verb)} {form.format(t=thing)}{_rest(c)}."


def keep_on_table(goal: str, item: dict) -> str | None:
    """A push with the cube kept on the table said after it (one push): "Nudge the red block
    across to the grey mat, keeping it on the table." (from one push of a cube onto a pad)."""
    c = clause(goal)
    if c is None or not c.place or c.verb not in {"push", "slide", "shove", "nudge"}:
        return None
    if not _single_step(item, "push"):
        return None
    form = _pick(
        [
            "{V} {o} across to {p}, keeping it on the table.",
            "{V} {o} to {p} - keep it flat on the table.",
            "{V} {o} over to {p} and keep it down on the table the whole way.",
        ],
        "rtable|" + goal,
    )
    return form.format(V=_upper_first(c.verb), o=_lower_first(c.obj), p=_lower_first(c.place))


def _r_two_tower(item: dict, a: str, key: str) -> dict | None:
    """The goal's scene (three cubes on the table) with the two cubes other than ``a`` stacked
    at the place of one of them (picked by ``key``), ``a`` left where it is; None for any
    other scene."""
    cubes = _scene_cubes(item)
    if len(cubes) != 3 or a not in cubes or not _flat_scene(item):
        return None
    bottom, top = _pick(list(itertools.permutations(n for n in sorted(cubes) if n != a)), key)
    x, y, _ = cubes[bottom]
    return {a: tuple(cubes[a]), bottom: (x, y, 0.02), top: (x, y, 0.06)}


def _loose_of_two(goal: str, item: dict, key: str) -> tuple[Clause, dict] | None:
    """(clause, objects): one placing of a cube by colour onto a pad, the scene's two other
    cubes stacked (:func:`_r_two_tower`, picked by ``key``), where the placing still passes
    the cards; None otherwise."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    objects = _r_two_tower(item, f"{found[1]}_cube", key)
    if objects is None or not _valid(item["plan"], {**item, "objects": objects}):
        return None
    return found[0], objects


def not_in_stack(goal: str, item: dict) -> Relabelled | None:
    """The one cube not in a tower of two: "Set the block that's not in the tower on the grey
    mat." (from one placing of a cube by colour onto a pad, the other two cubes stacked)."""
    found = _loose_of_two(goal, item, "rnotin|" + goal)
    if found is None:
        return None
    form = _pick(
        [
            "Set the block that's not in the tower on {p}.",
            "Move the cube that isn't on the stack over to {p}.",
            "Put the one cube not belonging to the pile onto {p}.",
        ],
        "rnotinf|" + goal,
    )
    return form.format(p=_lower_first(found[0].place)), {"objects": found[1]}


def complete_stack(goal: str, item: dict) -> Relabelled | None:
    """A tower of two finished with the third cube (onto the tower's top): "Top off the stack
    with the green cube." (from one placing of a cube by colour onto a pad, the other two
    cubes stacked: a placing onto the top one)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    a = f"{found[1]}_cube"
    objects = _r_two_tower(item, a, "rcompl|" + goal)
    if objects is None:
        return None
    top = max(objects, key=lambda n: objects[n][2])
    plan = [_step(f"pick_place {a} {top}")]
    if not _valid(plan, {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "Finish the tower by setting the {a} block on top.",
            "Top off the stack with the {a} cube.",
            "Complete the pile: put the {a} block up on it.",
        ],
        "rcomplf|" + goal,
    )
    return form.format(a=found[1]), {"expect": "plan", "plan": plan, "objects": objects}


def no_push_skill(goal: str, item: dict) -> str | None:
    """A placing with the push skill ruled out first (the placing): "Without the push skill,
    set the red cube on the yellow pad." (from one placing of a cube onto a pad said with put,
    place, set or move)."""
    c = clause(goal)
    if c is None or c.verb not in {"put", "place", "set", "move"} or not _pad_by_colour(c):
        return None
    if not _single_step(item, "pick_place"):
        return None
    form = _pick(
        [
            "Without the push skill, {v} {o}{q}.",
            "Don't use your pushing skill; {v} {o}{q}.",
            "No push skill here please - {v} {o}{q}.",
        ],
        "rnopush|" + goal,
    )
    return form.format(v=c.verb, o=_lower_first(c.obj), q=_rest(c))


def only_then(goal: str, item: dict) -> str | None:
    """Two steps with "only then / only after that" before the second (both steps, in that
    order): "First put the red cube on the left pad; only then push the green cube onto the
    right pad." (from a plan of two steps said plainly)."""
    parts = _two_said(item)
    if parts is None:
        return None
    a, b = parts
    form = _pick(
        [
            "{A} first, and only after that {b}.",
            "First {a}; only then {b}.",
            "{A} to begin with - only once that's done, {b}.",
        ],
        "ronly|" + goal,
    )
    return form.format(A=_upper_first(a), a=a, b=b)


def after_gone_it(goal: str, item: dict) -> Relabelled | None:
    """A placing said as done ("once X has reached P"), then another cube stacked on "it" (X):
    "Once the red block has reached the grey mat, set the blue block on it." (from one placing
    of a cube by colour onto a pad: that placing, then another cube onto it, where the cards
    pass both)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    a = found[1]
    b = _other_colour(a, _scene_cubes(item), "rgoneb|" + goal)
    if b is None:
        return None
    plan = [item["plan"][0], _step(f"pick_place {b}_cube {a}_cube")]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Once the {a} block has reached {p}, set the {b} block on it.",
            "When the {a} cube has been moved to {p}, put the {b} cube on top of it.",
            "After the {a} cube is over on {p}, stack the {b} one on it.",
        ],
        "rgone|" + goal,
    )
    return form.format(a=a, b=b, p=_lower_first(found[0].place)), {"plan": plan}


def grab_then_it(goal: str, item: dict) -> str | None:
    """A cube taken hold of in one sentence, then put down on a place by "it" in the next
    (the placing): "Take hold of the red block. After that, put it on the green cube." (from
    one placing of a cube by colour)."""
    found = _placed_cube(goal, item)
    if not found:
        return None
    c, a = found
    form = _pick(
        [
            "Pick up the {a} block. Next, set it down on {q}.",
            "Take hold of the {a} cube. After that, put it on {q}.",
            "Get the {a} cube. Then lower it onto {q}.",
        ],
        "rgrab|" + goal,
    )
    return form.format(a=a, q=_lower_first(c.place))


def said_where_it(goal: str, item: dict) -> str | None:
    """Where a cube is said first (its side of the table), then "it" placed: "The blue cube is
    on your left - put it onto the grey pad." (from one placing of a cube by colour, the cube
    3 cm or more off the middle of the table)."""
    found = _placed_cube(goal, item)
    if not found:
        return None
    c, a = found
    y = _scene_cubes(item).get(f"{a}_cube", (0.0, 0.0, 0.0))[1]
    if abs(y) < 0.03:
        return None
    form = _pick(
        [
            "The {a} block's over on the {s}; set it on {q}.",
            "The {a} cube is on your {s} - put it onto {q}.",
            "The {a} cube's at the {s}. Place it on {q}.",
        ],
        "rwhere|" + goal,
    )
    return form.format(a=a, s="left" if y > 0 else "right", q=_lower_first(c.place))


def _placed_on_cube(goal: str, item: dict) -> tuple[str, str] | None:
    """The colours of the cube placed and of the cube it goes onto, for one placing of a cube
    by colour onto a cube by colour; else None."""
    found = _placed_cube(goal, item)
    b = found and _colour_of(found[0].place)
    return (found[1], b) if b else None


def tower_two(goal: str, item: dict) -> str | None:
    """A tower of two said by its two cubes, then which is on top (the top one onto the
    other): "Build a two-block tower out of the red and green cubes, red at the top." (from
    one placing of a cube by colour onto a cube by colour)."""
    pair = _placed_on_cube(goal, item)
    if not pair:
        return None
    form = _pick(
        [
            "Stack the {b} and {a} blocks, with {a} on top.",
            "Build a two-block tower out of the {a} and {b} cubes, {a} at the top.",
            "Make a stack from the {b} and the {a} cube, the {a} one uppermost.",
        ],
        "rtwo|" + goal,
    )
    return form.format(a=pair[0], b=pair[1])


def no_action(goal: str, item: dict) -> Relabelled | None:
    """No motion said with an aside or as nothing to do (an empty plan): "Everything's fine
    here, nothing needs doing." (from any plan)."""
    return _unplanned(
        item,
        [
            "Only testing the microphone - you don't have to move.",
            "Everything's fine here, nothing needs doing.",
            "No action required at the moment, thanks.",
            "Just seeing if you're awake; no need to do anything.",
        ],
        "rnoact|" + goal,
    )


def stand_still_while(goal: str, item: dict) -> Relabelled | None:
    """Staying still said with a reason or a time (an empty plan): "Hold still while I fix the
    cable, please." (from any plan)."""
    return _unplanned(
        item,
        [
            "Stand still for a moment while I move the lamp.",
            "For the time being, stay exactly where you are.",
            "Hold still while I fix the cable, please.",
            "Right now just stay put where you are.",
        ],
        "rstill|" + goal,
    )


def stay_above(goal: str, item: dict) -> str | None:
    """A reach said as going to a thing and staying above it (the reach alone): "Bring your
    hand to the red cube and stay over it." (from one reach of a cube or pad)."""
    if not _single_step(item, "reach"):
        return None
    target = _said(item["plan"][0].params.get("target"))
    if target is None:
        return None
    form = _pick(
        [
            "Take the gripper over to {o} and remain above it.",
            "Bring your hand to {o} and stay over it.",
            "Go over to {o} with the gripper and keep above it.",
        ],
        "rabove|" + goal,
    )
    return form.format(o=target)


def first_though(goal: str, item: dict) -> str | None:
    """The second step said first, then the first with "first, though" (both, in plan order):
    "Push the green cube onto the left pad; first, though, put the red cube on the right pad."
    (from a plan of two steps said plainly)."""
    parts = _two_said(item)
    if parts is None:
        return None
    a, b = parts
    form = _pick(
        [
            "{B}; first, though, {a}.",
            "{B} - but first of all {a}.",
            "{B}, but before you do, {a}.",
        ],
        "rfirst|" + goal,
    )
    return form.format(B=_upper_first(b), a=a)


def reverse_order(goal: str, item: dict) -> Relabelled | None:
    """Two steps said, then to be done in reverse (the second first): "In reverse order: hover
    over the red cube, then go home." (from a plan of two steps said plainly, reversed where
    the cards pass it)."""
    parts = _two_said(item)
    if parts is None:
        return None
    plan = list(reversed(item["plan"]))
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "In reverse order: {a}, then {b}.",
            "Do the following backwards: {a}, then {b}.",
            "Reverse these two, please: {a}, then {b}.",
        ],
        "rrev|" + goal,
    )
    return form.format(a=parts[0], b=parts[1]), {"plan": plan}


def push_on_tower(goal: str, item: dict) -> Relabelled | None:
    """A push of a cube that stands on another (refused: a cube on a tower is not pushed):
    "Could you nudge the red cube over to the grey pad?" (from one push of a cube by colour
    onto a pad, the cube moved onto another cube of the scene)."""
    found = _pushed_onto_pad(goal, item)
    if found is None:
        return None
    c, a = found
    cubes = _scene_cubes(item)
    b = _other_colour(a, cubes, "rpushb|" + goal)
    if b is None or not _flat_scene(item) or len(cubes) != 3:
        return None
    x, y, _ = cubes[f"{a}_cube"]
    third = next(n for n in cubes if n not in {f"{a}_cube", f"{b}_cube"})
    if math.dist(cubes[third][:2], (x, y)) < 0.06:
        return None
    objects = {f"{b}_cube": (x, y, 0.02), f"{a}_cube": (x, y, 0.06), third: tuple(cubes[third])}
    if _valid(item["plan"], {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "{V} the {a} block along to {p}.",
            "Could you {v} the {a} cube over to {p}?",
            "Can you {v} the {a} block onto {p}, please?",
        ],
        "rpush|" + goal,
    )
    said = form.format(V=_upper_first(c.verb), v=c.verb, a=a, p=_lower_first(c.place))
    return said, {"expect": "refuse", "plan": [], "objects": objects}


def shuffle_ask(goal: str, item: dict) -> Relabelled | None:
    """Cubes moved with no place or no cubes said ("rearrange the cubes a bit", "swap them
    over"): asked back (from any plan)."""
    return _unplanned(
        item,
        [
            "Can you shuffle the blocks about a little?",
            "Rearrange the cubes a bit, would you?",
            "Switch those two around.",
            "Swap them over, please.",
        ],
        "rshuffle|" + goal,
        expect="clarify",
    )


# -- group S ------------------------------------------------------------------------------
# Written for the structures held-out 25 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (no motion, a refusal, a scene moved, the
# steps changed): those return ``(goal, fields)``.


def verbless_over(goal: str, item: dict) -> str | None:
    """A terse fragment with no verb, the gripper over a thing (the reach): "claw above the
    red block please" (from one reach of a cube or pad)."""
    if not _single_step(item, "reach"):
        return None
    target = _said(item["plan"][0].params.get("target"))
    if target is None:
        return None
    form = _pick(
        ["claw above {o} please", "the gripper over {o}, thanks", "hand above {o} pls"],
        "sverbless|" + goal,
    )
    return form.format(o=target.replace(" cube", " block"))


def aside_near(goal: str, item: dict) -> str | None:
    """One step onto a pad with an aside after it that is no step ("it's right beside it"):
    "Nudge the red cube onto the left pad - it's just beside it." (from one step of a cube by
    colour onto a pad)."""
    c = clause(goal)
    if c is None or not _colour_of(c.obj) or not _PAD_NP.match(c.place or ""):
        return None
    if not _single_step(item) or item["plan"][0].skill not in {"push", "pick_place"}:
        return None
    form = _pick(
        ["{g}, it's right beside it.", "{g} - it's just close to it.", "{g}; it's next door."],
        "saside|" + goal,
    )
    return form.format(g=f"{_upper_first(c.verb)} {_lower_first(c.obj)}{_rest(c)}")


def that_pad_back(goal: str, item: dict) -> str | None:
    """A pad named, then "that pad / mat" for it (the same pad): "The grey mat is the target:
    slide the red block onto that mat." (from one step of a cube by colour onto a pad)."""
    c = clause(goal)
    pad = c and _colour_of(c.obj) and _PAD_NP.match(c.place or "")
    if not pad or not _single_step(item) or item["plan"][0].skill not in {"push", "pick_place"}:
        return None
    form = _pick(
        [
            "{P} is the target: {v} {o} onto that {n}.",
            "See {p}? {V} {o} over onto that {n}.",
            "{V} {o} across to where {p} is, right onto that {n}.",
        ],
        "sthat|" + goal,
    )
    p = _lower_first(c.place)
    return form.format(
        P=_upper_first(p), p=p, v=c.verb, V=_upper_first(c.verb), o=_lower_first(c.obj), n=pad[2]
    )


_S_PAD_COLOUR = {"left_pad": "yellow", "right_pad": "grey"}


def both_pads_first(goal: str, item: dict) -> Relabelled | None:
    """Both pads visited, one said first by its colour ("each / both pads, the grey one
    first": a reach of that pad, then of the other): "Go above both mats, starting with the
    grey one." (from one reach of a pad)."""
    if not _single_step(item, "reach"):
        return None
    first = item["plan"][0].params.get("target")
    if not isinstance(first, str) or first not in _S_PAD_COLOUR:
        return None
    other = "right_pad" if first == "left_pad" else "left_pad"
    form = _pick(
        [
            "Go above both mats, starting with the {c} one.",
            "Move over each of the two pads, the {c} pad before the other.",
            "Visit both pads with the gripper - {c} one first.",
        ],
        "sboth|" + goal,
    )
    plan = [item["plan"][0], _step(f"reach {other}")]
    return form.format(c=_S_PAD_COLOUR[first]), {"plan": plan}


def face_square(goal: str, item: dict) -> Relabelled | None:
    """A cube made to face the robot "squarely" / "square on" (the turn to face the robot):
    "Get the red block to face you squarely." (from one step on a cube by colour, where the
    turn passes the cards in the scene)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _single_step(item):
        return None
    plan = [_step(f"turn {a}_cube face_robot")]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Get the {a} block to face you squarely.",
            "Have the {a} cube face the robot square on.",
            "Make the {a} cube sit squarely facing the robot.",
        ],
        "sface|" + goal,
    )
    return form.format(a=a), {"plan": plan}


def front_pair_side(goal: str, item: dict) -> Relabelled | None:
    """Of two cubes side by side at the front, the left or right one (the third cube behind
    them): "Of the two cubes at the front, take the left one to the grey pad." (from one
    placing of a cube by colour onto a pad: the scene moved so that cube is the front pair's
    one on that side)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    a = f"{found[1]}_cube"
    cubes = _scene_cubes(item)
    if len(cubes) != 3 or a not in cubes:
        return None
    others = list(itertools.permutations(n for n in sorted(cubes) if n != a))
    b, back = _pick(others, "sfp|" + goal)
    side = _pick(["left", "right"], "sfpside|" + goal)
    y = 0.07 if side == "left" else -0.07
    objects = {a: (0.42, y, 0.02), b: (0.42, -y, 0.02), back: (0.6, 0.0, 0.02)}
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "Of the two cubes at the front, take the {s} one to {p}.",
            "The two front blocks: put the {s}-hand one on {p}.",
            "Between the two nearer cubes, move the one on the {s} onto {p}.",
        ],
        "sfpf|" + goal,
    )
    return form.format(s=side, p=_lower_first(found[0].place)), {"objects": objects}


def relax_nothing(goal: str, item: dict) -> Relabelled | None:
    """No task said, with "relax / take a break / take it easy" (an empty plan): "Nothing to
    do for now, take a break." (from any plan)."""
    return _unplanned(
        item,
        [
            "Nothing to do for now, take a break.",
            "No job at the moment - relax.",
            "Take it easy, there's no task yet.",
            "There's no work for you just now; chill.",
        ],
        "srelax|" + goal,
    )


def stack_with_on(goal: str, item: dict) -> str | None:
    """A tower of two said as a thing made "with X on Y" (X onto Y): "Build a stack of two,
    the red cube on the green cube." (from one placing of a cube by colour onto a cube by
    colour)."""
    pair = _placed_on_cube(goal, item)
    if not pair:
        return None
    form = _pick(
        [
            "Make a two-block tower with the {a} block on the {b} block.",
            "Build a stack of two, the {a} cube on the {b} cube.",
            "Form a two-cube pile having the {a} cube on top of the {b} one.",
        ],
        "sstack|" + goal,
    )
    return form.format(a=pair[0], b=pair[1])


def too_far_bring(goal: str, item: dict) -> str | None:
    """Where a cube is said as "too far <side>", then "bring it over to" a pad (the placing,
    planned or refused as the cards say): "The red block sits too far to the left; move it
    across to the grey mat." (from one placing of a cube by colour onto a pad, the cube 3
    cm or more off the middle)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    a = found[1]
    y = _scene_cubes(item).get(f"{a}_cube", (0.0, 0.0, 0.0))[1]
    if abs(y) < 0.03:
        return None
    form = _pick(
        [
            "The {a} block sits too far to the {s}; move it across to {p}.",
            "The {a} cube's too far over on the {s} - carry it to {p}.",
            "{A} cube is too far {s}. Take it over to {p}.",
        ],
        "sfar|" + goal,
    )
    side = "left" if y > 0 else "right"
    return form.format(a=a, A=a.capitalize(), s=side, p=_lower_first(found[0].place))


def sort_heavy(goal: str, item: dict) -> Relabelled | None:
    """Cubes ordered by how heavy they are, which no skill weighs (refused): "Arrange the
    blocks by how heavy each one is." (from any plan)."""
    return _unplanned(
        item,
        [
            "Arrange the blocks by how heavy each one is.",
            "Put the cubes in order of how much they weigh.",
            "Line the cubes up according to their heaviness.",
        ],
        "sheavy|" + goal,
        expect="refuse",
    )


# -- group T ------------------------------------------------------------------------------
# Written for the structures held-out 26 showed, in other wordings, before the round that
# reads them; never tuned on. Some change the label (a step added, the scene moved): those
# return ``(goal, fields)``.


def _then_home(item: dict) -> list | None:
    """A plan of one or two steps said plainly (no return home in it), then home; None
    where a step is not said plainly or the plan with home fails the cards."""
    plan = item["plan"]
    if item["expect"] != "plan" or not 1 <= len(plan) <= 2:
        return None
    if any(s.skill == "home" or not _step_said(s) for s in plan):
        return None
    plan = [*plan, _step("home")]
    return plan if _valid(plan, item) else None


def before_all_that(goal: str, item: dict) -> Relabelled | None:
    """Two steps said in order, then home, then the first step with "before all that /
    before any of that" (the first step first, home last): "Push the red cube onto the grey
    pad and go home; but before any of that, hover over the green cube." (from a plan of two
    steps said plainly, home added where the cards pass it)."""
    plan = _then_home(item)
    if plan is None or len(plan) != 3:
        return None
    a, b = (_step_said(s) for s in plan[:2])
    form = _pick(
        [
            "{B} and go home; but before any of that, {a}.",
            "{B}, after which return home - and ahead of all that, {a}.",
            "{B}, then head home, though before all of it {a}.",
        ],
        "tbefore|" + goal,
    )
    return form.format(B=_upper_first(b), a=a), {"plan": plan}


def home_last_first(goal: str, item: dict) -> Relabelled | None:
    """Home said first as the last step, then the step with "first" (the step, then home):
    "Back home at the end, please - first, put the red cube on the left pad." (from one step
    said plainly, home added where the cards pass it)."""
    plan = _then_home(item)
    if plan is None or len(plan) != 2:
        return None
    form = _pick(
        [
            "Back home at the end, please - first, {a}.",
            "Return home as the last thing; first {a}.",
            "Going home comes last: to begin, {a}.",
        ],
        "thome|" + goal,
    )
    return form.format(a=_step_said(plan[0])), {"plan": plan}


def finally_first_of_all(goal: str, item: dict) -> Relabelled | None:
    """Home said "finally", then the second step "before that" and the first "first of all"
    (plan order: first, second, home): "Lastly go home; prior to that push the blue cube onto
    the left pad, and to begin with hover over the red cube." (from a plan of two steps said
    plainly, home added where the cards pass it)."""
    plan = _then_home(item)
    if plan is None or len(plan) != 3:
        return None
    a, b = (_step_said(s) for s in plan[:2])
    form = _pick(
        [
            "Lastly go home; prior to that {b}, and to begin with {a}.",
            "In the end return home; before that, {b} - and first of all, {a}.",
            "Last of all go home. Before it, {b}; at the very start, {a}.",
        ],
        "tfinal|" + goal,
    )
    return form.format(a=a, b=b), {"plan": plan}


_T_CENTRE = (0.48, 0.0, 0.02)


def centre_cube(goal: str, item: dict) -> Relabelled | None:
    """The cube said by where it sits, the centre of the table ("the block resting in the
    middle of the table": a referent, not a place): "Move the block resting in the middle of
    the table onto the grey mat." (from one placing of a cube by colour onto a pad, the scene
    moved so that cube is at the table's centre and the others off it)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    a = f"{found[1]}_cube"
    others = sorted(n for n in _scene_cubes(item) if n != a)
    if len(others) != 2:
        return None
    b, c = _pick([others, others[::-1]], "tcentreo|" + goal)
    objects = {a: _T_CENTRE, b: (0.40, 0.17, 0.02), c: (0.58, -0.16, 0.02)}
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "Move the block resting in the middle of the table onto {p}.",
            "Take the cube that sits at the centre of the table to {p}.",
            "The cube located in the table's centre - put it on {p}.",
        ],
        "tcentre|" + goal,
    )
    return form.format(p=_lower_first(found[0].place)), {"objects": objects}


def _on_other(goal: str, item: dict, key: str) -> tuple[str, str, dict] | None:
    """(a, b, objects): the cube ``a`` a placing moves, stood on another cube ``b`` of a
    flat scene of three, where the placing still passes the cards; None otherwise."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    cubes = _scene_cubes(item)
    a = found[1]
    b = _other_colour(a, cubes, key)
    if b is None or len(cubes) != 3 or not _flat_scene(item):
        return None
    x, y, _ = cubes[f"{b}_cube"]
    objects = {**cubes, f"{a}_cube": (x, y, 0.06)}
    return (a, b, objects) if _valid(item["plan"], {**item, "objects": objects}) else None


def resting_on_it(goal: str, item: dict) -> Relabelled | None:
    """A cube said to stand on another, then "it" (the cube on top) placed: "The red block
    is resting on the blue one; move it to the grey mat." (from one placing of a cube by
    colour onto a pad, the scene moved so that cube stands on another)."""
    found = _on_other(goal, item, "tresto|" + goal)
    if found is None:
        return None
    a, b, objects = found
    form = _pick(
        [
            "The {a} block is resting on the {b} one; move it to {p}.",
            "The {a} cube sits on top of the {b} cube - could you set it on {p}?",
            "There's the {a} cube, stacked on the {b} one. Place it onto {p}.",
        ],
        "trest|" + goal,
    )
    p = _lower_first(clause(goal).place)
    return form.format(a=a, b=b, p=p), {"objects": objects}


def pile_first_next(goal: str, item: dict) -> Relabelled | None:
    """A pile on a cube, its two cubes said "first ..., then ... on top of the <first>"
    (a tower of three, the first said cube counted once): "Make a stack on the red block: to
    start the green block, next the blue block on top of the green." (from one placing of a
    cube by colour onto another in a flat scene of three: it first, the third cube onto
    it)."""
    forms = [
        "Make a stack on the {x} block: to start the {a} block, next the {b} block on top of "
        "the {a}.",
        "Pile onto the {x} cube - first the {a} cube, after that the {b} cube on the {a} one.",
        "Build up a tower on the {x} one: initially the {a} cube, then the {b} cube above the "
        "{a}.",
    ]
    return _three_said(goal, item, forms, "tpile|" + goal)


def middle_of_file(goal: str, item: dict) -> Relabelled | None:
    """The middle cube of a row that runs front to back (the middle along the row, not
    across it): "Push the block in the middle of the line onto the grey mat." (from one step
    of a cube by colour onto a pad, the scene moved so the three stand in a front-to-back
    row with that cube in the middle)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not _PAD_NP.match(c.place or "") or not _single_step(item):
        return None
    if item["plan"][0].skill not in {"push", "pick_place"}:
        return None
    cubes = _scene_cubes(item)
    others = sorted(n for n in cubes if n != f"{a}_cube")
    if len(cubes) != 3 or len(others) != 2:
        return None
    front, back = _pick([others, others[::-1]], "tfileo|" + goal)
    y = _pick([0.14, 0.0, -0.14], "tfiley|" + goal)
    objects = {front: (0.36, y, 0.02), f"{a}_cube": (0.48, y, 0.02), back: (0.60, y, 0.02)}
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "{V} the block in the middle of the line onto {p}.",
            "The cubes stand in a row; {v} the middle one of the row to {p}.",
            "{V} the cube at the centre of the row over to {p}.",
        ],
        "tfile|" + goal,
    )
    return form.format(V=_upper_first(c.verb), v=c.verb, p=_lower_first(c.place)), {
        "objects": objects
    }


def _one_stack(goal: str, item: dict) -> tuple[str, str, str, dict] | None:
    """(a, x, b, objects): one placing of cube ``a`` onto cube ``x`` in a flat scene of three,
    the scene moved so ``x`` stands on the third cube ``b`` (the scene's one stack of two),
    where the placing still passes the cards; None otherwise."""
    pair = _placed_on_cube(goal, item)
    cubes = _scene_cubes(item)
    if not pair or len(cubes) != 3 or not _flat_scene(item):
        return None
    a, x = pair
    (b,) = [n.split("_")[0] for n in cubes if n not in {f"{a}_cube", f"{x}_cube"}]
    bx, by, _ = cubes[f"{b}_cube"]
    objects = {**cubes, f"{x}_cube": (bx, by, 0.06)}
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    return a, x, b, objects


def make_it_three(goal: str, item: dict) -> Relabelled | None:
    """The scene's one stack of two made a tower of three by a cube on top ("it" is the
    stack): "Turn it into a tower of three by adding the red block on top." (from one placing
    of a cube by colour onto another, the scene moved so the cube it goes onto stands on the
    third)."""
    found = _one_stack(goal, item)
    if found is None:
        return None
    a, _, _, objects = found
    form = _pick(
        [
            "Turn it into a tower of three by adding the {a} block on top.",
            "Make that a three-block stack: the {a} cube goes on top.",
            "Let's make it three cubes high - put the {a} one up top.",
        ],
        "tthree|" + goal,
    )
    return form.format(a=a), {"objects": objects}


def take_apart_two(goal: str, item: dict) -> Relabelled | None:
    """ "The two cubes" / "the pair" of the scene's one stack taken apart, the top one onto a
    pad, then the bottom one onto the third cube: "Take the two stacked blocks apart: red to
    the grey mat, then green onto the blue block." (from one placing of a cube by colour onto
    a pad in a flat scene of three, the scene moved so it stands on another, where both
    steps pass the cards)."""
    found = _on_other(goal, item, "tapart|" + goal)
    if found is None:
        return None
    a, b, objects = found
    cubes = _scene_cubes(item)
    (c,) = [n.split("_")[0] for n in cubes if n not in {f"{a}_cube", f"{b}_cube"}]
    plan = [item["plan"][0], _step(f"pick_place {b}_cube {c}_cube")]
    if not _valid(plan, {**item, "objects": objects}):
        return None
    p = _lower_first(clause(goal).place)
    form = _pick(
        [
            "Take the two stacked blocks apart: {a} to {p}, then {b} onto the {c} block.",
            "Split up the pair of cubes - {a} onto {p} and then {b} on the {c} cube.",
            "Unpile the two blocks: first {a} over to {p}, then {b} onto the {c} one.",
        ],
        "tapartf|" + goal,
    )
    return form.format(a=a, b=b, c=c, p=p), {"plan": plan, "objects": objects}


# -- group U (held-out 27's structures) ---------------------------------------------------
_U_SHADES = {
    "red": ["cherry-red", "bright red", "blood red", "scarlet"],
    "green": ["forest-green", "grass green", "dark green", "emerald-green"],
    "blue": ["navy-blue", "royal blue", "pale blue", "baby-blue"],
    "yellow": ["lemon-yellow", "bright yellow", "pale yellow", "golden-yellow"],
    "grey": ["slate-grey", "steel grey", "light grey", "ash-grey"],
}
"""Each scene colour said as a shade of it (a compound whose last word is the colour, or a
synonym)."""


def shade_said(goal: str, item: dict) -> str | None:
    """A cube's and a pad's colour said as a shade ("slate-grey", "navy-blue", "bright red"):
    "Put the navy-blue block on the slate-grey mat." (from one step of a cube by colour onto
    a pad by colour or a cube by colour)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _single_step(item):
        return None
    pad = _pad_by_colour(c)
    b = pad[1].lower().replace("gray", "grey") if pad else _colour_of(c.place)
    if not b:
        return None
    sa = _pick(_U_SHADES[a], "ushadea|" + goal)
    sb = _pick(_U_SHADES[b], "ushadeb|" + goal)
    noun = "mat" if pad else _pick(["block", "one"], "ushaden|" + goal)
    form = _pick(
        [
            "{V} the {sa} block {prep} the {sb} {n}.",
            "{V} the {sa} cube {prep} the {sb} {n}, please.",
        ],
        "ushade|" + goal,
    )
    return form.format(V=_upper_first(c.verb), sa=sa, sb=sb, n=noun, prep=c.prep)


def pad_gets(goal: str, item: dict) -> str | None:
    """The pad said as the one that gets the cube: "The grey mat should get the red block."
    (from one placing of a cube by colour onto a pad by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad:
        return None
    form = _pick(
        [
            "The {p} mat should get the {a} block.",
            "{P} pad receives the {a} cube",
            "Let the {p} pad have the {a} block.",
        ],
        "ugets|" + goal,
    )
    p = pad[1].lower()
    return form.format(p=p, P=p.capitalize(), a=found[1])


def other_pad_there(goal: str, item: dict) -> str | None:
    """The other pad ruled out first, then "the C one", then the placing "there": "Not the
    yellow mat - the grey one. Set the red block there." (from one placing of a cube by
    colour onto a pad by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad:
        return None
    p = pad[1].lower().replace("gray", "grey")
    q = "grey" if p == "yellow" else "yellow"
    form = _pick(
        [
            "Not the {q} mat - the {p} one. Set the {a} block there.",
            "Not to the {q} pad, the {p} one: move the {a} cube there.",
            "Not on the {q} pad; the {p} one. Put the {a} block there, please.",
        ],
        "unotpad|" + goal,
    )
    return form.format(p=p, q=q, a=found[1])


def alone_cube(goal: str, item: dict) -> Relabelled | None:
    """The one cube outside a tower of two said by its layout ("the unstacked block", "the
    cube standing on its own"): "Put the unstacked block on the grey mat." (from one placing
    of a cube by colour onto a pad, the other two cubes stacked)."""
    found = _loose_of_two(goal, item, "ualone|" + goal)
    if found is None:
        return None
    form = _pick(
        [
            "Put the unstacked block on {p}.",
            "Move the cube standing on its own over to {p}.",
            "The block that isn't part of the tower: set it on {p}.",
            "Take the single cube, the one outside the stack, to {p}.",
        ],
        "ualonef|" + goal,
    )
    return form.format(p=_lower_first(found[0].place)), {"objects": found[1]}


def off_the_table(goal: str, item: dict) -> Relabelled | None:
    """The top cube of a stack of two said as the one not on the table: "Move the block
    that isn't touching the table to the grey mat." (from one placing of a cube by colour
    onto a pad in a flat scene of three, the scene moved so it stands on another)."""
    found = _on_other(goal, item, "uoff|" + goal)
    if found is None:
        return None
    _, _, objects = found
    form = _pick(
        [
            "Move the block that isn't touching the table to {p}.",
            "Take the cube raised up off the tabletop and set it on {p}.",
            "The cube that's not resting on the table - put it onto {p}.",
        ],
        "uofff|" + goal,
    )
    return form.format(p=_lower_first(clause(goal).place)), {"objects": objects}


def straight_in_line(goal: str, item: dict) -> Relabelled | None:
    """A cube said by the cube it stands straight in front of or behind ("the block just in
    front of the blue one", "the cube directly behind the red block"), the third cube in
    front and to the side: "Put the block right in front of the green one on the grey mat."
    (from one placing of a cube by colour onto a pad in a flat scene of three, the scene
    moved so)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place) or not _flat_scene(item):
        return None
    a = found[1]
    cubes = _scene_cubes(item)
    b = _other_colour(a, cubes, "uline|" + goal)
    if b is None or len(cubes) != 3:
        return None
    (c,) = [n for n in cubes if n not in {f"{a}_cube", f"{b}_cube"}]
    behind = _pick([False, True], "ulineb|" + goal)
    y = _pick([0.0, -0.04, 0.04], "uliney|" + goal)
    side = _pick([0.2, -0.2], "ulines|" + goal)
    xa, xb = (0.56, 0.44) if behind else (0.42, 0.55)
    objects = {f"{a}_cube": (xa, y, 0.02), f"{b}_cube": (xb, y, 0.02), c: (0.36, side, 0.02)}
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    forms = (
        ["the cube directly behind the {b} block", "the block straight behind the {b} one"]
        if behind
        else ["the block just in front of the {b} one", "the cube right in front of the {b} cube"]
    )
    np = _pick(forms, "ulinef|" + goal).format(b=b)
    c0 = found[0]
    return f"{_upper_first(c0.verb)} {np} {c0.prep} {_lower_first(c0.place)}.", {
        "objects": objects
    }


def tower_with_on(goal: str, item: dict) -> str | None:
    """A tower of two said as made "with X on Y", the colours bare (X onto Y): "Make a
    2-block tower with red on blue." (from one placing of a cube by colour onto a cube by
    colour)."""
    pair = _placed_on_cube(goal, item)
    if not pair:
        return None
    form = _pick(
        [
            "Make a 2-block tower with {a} on {b}.",
            "Put together a two-high stack with {a} on top of {b}.",
            "Build a tower of two blocks with {a} on {b}, please.",
        ],
        "utwo|" + goal,
    )
    return form.format(a=pair[0], b=pair[1])


def three_on_pad(goal: str, item: dict) -> Relabelled | None:
    """All three stacked on a pad in an order said after a colon: "Pile the three blocks onto
    the grey mat: red first, blue on it, green on top." (from one placing of a cube by colour
    onto a pad in a flat scene of three: it, then the other two in turn, where the cards
    pass them)."""
    found = _placed_cube(goal, item)
    cubes = _scene_cubes(item)
    if not found or not _PAD_NP.match(found[0].place) or len(cubes) != 3:
        return None
    if not _flat_scene(item):
        return None
    a = found[1]
    rest = [n.split("_")[0] for n in sorted(cubes) if n != f"{a}_cube"]
    b, c = _pick([rest, rest[::-1]], "uthreeo|" + goal)
    plan = [
        item["plan"][0],
        _step(f"pick_place {b}_cube {a}_cube"),
        _step(f"pick_place {c}_cube {b}_cube"),
    ]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Pile the three blocks onto {p}: {a} first, {b} on it, {c} on top.",
            "Stack all the cubes on {p} - the {a} one first, {b} on that, then {c} on top.",
            "Build the three into a tower on {p}: {a} first, then {b} on it, {c} last on top.",
        ],
        "uthree|" + goal,
    )
    p = _lower_first(found[0].place)
    return form.format(p=p, a=a, b=b, c=c), {"expect": "plan", "plan": plan}


def stay_for_now(goal: str, item: dict) -> Relabelled | None:
    """No motion said as leave to stay ("you can just stay where you are"): an empty plan
    (from any plan)."""
    return _unplanned(
        item,
        [
            "You may just remain where you are for the moment.",
            "Feel free to stay where you are for now.",
            "You can simply keep still for the time being.",
        ],
        "ustay|" + goal,
    )


def never_mind_other(goal: str, item: dict) -> str | None:
    """Another cube set aside with "never mind / forget about", then a terse placing: "Forget
    about the green block. Red onto the grey mat." (from one placing of a cube by colour
    onto a pad by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad:
        return None
    a = found[1]
    b = _other_colour(a, _scene_cubes(item), "unever|" + goal)
    if b is None:
        return None
    form = _pick(
        [
            "Forget about the {b} block. {A} onto the {p} mat.",
            "Never mind the {b} one - {a} to the {p} pad.",
            "Don't bother with the {b} cube; {a} onto the {p} pad.",
        ],
        "unevf|" + goal,
    )
    return form.format(a=a, A=a.capitalize(), b=b, p=pad[1].lower())


def shouldnt_go(goal: str, item: dict) -> str | None:
    """The placing ruled out on one pad, then "put it on the C one" (the other pad): "The red
    block mustn't end up on the yellow mat - place it on the grey one." (from one placing of
    a cube by colour onto a pad by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad:
        return None
    p = pad[1].lower().replace("gray", "grey")
    q = "grey" if p == "yellow" else "yellow"
    form = _pick(
        [
            "The {a} block mustn't end up on the {q} mat - place it on the {p} one.",
            "The {a} cube should not go onto the {q} pad; set it on the {p} one instead.",
            "Don't let the {a} cube go on the {q} pad; put it on the {p} one.",
        ],
        "ushould|" + goal,
    )
    return form.format(a=found[1], p=p, q=q)


def begin_end_by(goal: str, item: dict) -> Relabelled | None:
    """Two placings said as how the job begins and ends, the second onto "that X cube":
    "Begin by moving the red block onto the grey mat and end by stacking the blue block on
    that red block." (from one placing of a cube by colour onto a pad in a flat scene of
    three, then another cube onto it, where the cards pass both)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place) or not _flat_scene(item):
        return None
    a = found[1]
    b = _other_colour(a, _scene_cubes(item), "ubegin|" + goal)
    if b is None:
        return None
    plan = [item["plan"][0], _step(f"pick_place {b}_cube {a}_cube")]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Begin by moving the {a} block onto {p} and end by stacking the {b} block on that "
            "{a} block.",
            "First thing, put the {a} cube on {p}; finish off by placing the {b} cube on top of "
            "that {a} one.",
            "Open with the {a} cube onto {p}, and close by setting the {b} cube on that {a} cube.",
        ],
        "ubeginf|" + goal,
    )
    p = _lower_first(found[0].place)
    return form.format(a=a, b=b, p=p), {"expect": "plan", "plan": plan}


def then_onto_it(goal: str, item: dict) -> Relabelled | None:
    """A placing onto a pad, then "it" (the cube just placed) onto another cube: "Take the
    red cube to the grey mat, then set it on the green one." (from one placing of a cube by
    colour onto a pad in a flat scene of three, where the cards pass both)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place) or not _flat_scene(item):
        return None
    a = found[1]
    b = _other_colour(a, _scene_cubes(item), "uthenit|" + goal)
    if b is None:
        return None
    plan = [item["plan"][0], _step(f"pick_place {a}_cube {b}_cube")]
    if not _valid(plan, item):
        return None
    form = _pick(
        [
            "Take the {a} cube to {p}, then set it on the {b} one.",
            "Carry the {a} block over to {p}; after that, place it on the {b} block.",
            "Get the {a} cube onto {p} and then put it on top of the {b} one.",
        ],
        "uthenitf|" + goal,
    )
    p = _lower_first(found[0].place)
    return form.format(a=a, b=b, p=p), {"expect": "plan", "plan": plan}


def aim_and_wait(goal: str, item: dict) -> str | None:
    """A reach said as pointing the gripper at a pad and waiting above it (one reach): "Aim
    the gripper at the grey mat and stay above it." (from one reach of a pad)."""
    if not _single_step(item, "reach"):
        return None
    target = item["plan"][0].params.get("target")
    colour = (
        {"left_pad": "yellow", "right_pad": "grey"}.get(target)
        if isinstance(target, str)
        else None
    )
    if colour is None:
        return None
    form = _pick(
        [
            "Aim the gripper at the {p} mat and stay above it.",
            "Point your gripper at the {p} pad, then hold it there above the pad.",
            "Point the hand at the {p} pad and hang above it.",
        ],
        "uaim|" + goal,
    )
    return form.format(p=colour)


def nearest_on_farthest(goal: str, item: dict) -> Relabelled | None:
    """A stack said by distances from the robot, the second "the one farthest away": "Put the
    block nearest the robot on top of the one furthest away." (from one placing of a cube by
    colour onto another in a flat scene of three, the scene moved so the first is the
    nearest to the robot and the second the farthest, 8 cm or more apart in turn)."""
    pair = _placed_on_cube(goal, item)
    cubes = _scene_cubes(item)
    if not pair or len(cubes) != 3 or not _flat_scene(item):
        return None
    a, b = (f"{x}_cube" for x in pair)
    (c,) = [n for n in cubes if n not in {a, b}]
    y = _pick([(0.1, -0.12, 0.0), (-0.1, 0.14, 0.02), (0.0, -0.15, 0.12)], "unearp|" + goal)
    objects = {a: (0.36, y[0], 0.02), c: (0.46, y[1], 0.02), b: (0.58, y[2], 0.02)}
    if not _valid(item["plan"], {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "Put the block nearest the robot on top of the one furthest away.",
            "Stack the cube closest to you onto the one that's farthest from you.",
            "Pile the nearest block to the robot on the farthest-away one.",
        ],
        "unear|" + goal,
    )
    return form, {"objects": objects}


# -- group V (held-out 28's structures) ---------------------------------------------------
def forbid_manner(goal: str, item: dict) -> Relabelled | None:
    """A manner forbidden first, the goal said with a neutral verb: "No sliding, please -
    get the red block over to the grey mat." (from one placing of a cube by colour onto a
    pad: pushing forbidden, the placing kept; from one push onto a pad: lifting forbidden,
    the push kept)."""
    c = clause(goal)
    a = c and _colour_of(c.obj)
    if not a or not c.place or not _PAD_NP.match(c.place):
        return None
    if _single_step(item, "pick_place"):
        forms = [
            "No sliding, please - get the {a} block over to {p}.",
            "Avoid pushing it: bring the {a} cube to {p}.",
            "Without any shoving, get the {a} cube onto {p}.",
            "Don't go for a push; have the {a} block end up on {p}.",
        ]
    elif _single_step(item, "push"):
        forms = [
            "No lifting, please - get the {a} block over to {p}.",
            "Avoid picking it up: bring the {a} cube to {p}.",
            "Without raising it, get the {a} cube onto {p}.",
            "Don't go for a lift; have the {a} block end up on {p}.",
        ]
    else:
        return None
    return _pick(forms, "vforbid|" + goal).format(a=a, p=_lower_first(c.place))


def kept_still_instead(goal: str, item: dict) -> str | None:
    """Another cube said to stay still in a sentence of its own, then the placing "instead":
    "The green block has to stay where it is. Set the red block on the grey mat instead."
    (from one placing of a cube by colour onto a pad by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad:
        return None
    a = found[1]
    b = _other_colour(a, _scene_cubes(item), "vkeep|" + goal)
    if b is None:
        return None
    form = _pick(
        [
            "The {b} block has to stay where it is. Set the {a} block on the {p} mat instead.",
            "I'd rather the {b} cube didn't move. Move the {a} cube to the {p} pad instead.",
            "I don't want anybody touching the {b} one. Place the {a} cube on the {p} pad "
            "instead.",
        ],
        "vkeepf|" + goal,
    )
    return form.format(a=a, b=b, p=pad[1].lower().replace("gray", "grey"))


def and_no_lift(goal: str, item: dict) -> str | None:
    """A placing verb, then "and no, don't lift it": the push ("Set the red cube on the grey
    mat - and no, don't pick it up."; from one push of a cube by colour onto a pad)."""
    found = _pushed_onto_pad(goal, item)
    if found is None:
        return None
    c, a = found
    form = _pick(
        [
            "Set the {a} cube on {p} - and no, don't pick it up.",
            "Get the {a} block onto {p}, and no, no lifting it.",
            "Move the {a} cube to {p}; and no, don't raise it.",
        ],
        "vnolift|" + goal,
    )
    return form.format(a=a, p=_lower_first(c.place))


def stated_lift_off(goal: str, item: dict) -> Relabelled | None:
    """The layout stated, then "lift it off and put it on P" (one placing of the top cube):
    "The red block's sitting on the blue one; take it off and set it on the grey mat." (from
    one placing of a cube by colour onto a pad, the scene moved so it stands on another)."""
    found = _on_other(goal, item, "vstate|" + goal)
    if found is None:
        return None
    a, b, objects = found
    form = _pick(
        [
            "The {a} block's sitting on the {b} one; take it off and set it on {p}.",
            "The {a} cube is on top of the {b} cube - lift it off and move it to {p}.",
            "The {a} one's stacked on the {b} one. Pick it off and place it on {p}.",
        ],
        "vstatef|" + goal,
    )
    return form.format(a=a, b=b, p=_lower_first(clause(goal).place)), {"objects": objects}


def wait_first_then(goal: str, item: dict) -> Relabelled | None:
    """A placing said, then corrected so another placing comes first: "Set the blue cube on
    the yellow mat. Hold on, do the red cube onto the grey mat first, then the blue one."
    (from one placing of a cube by colour onto a pad by colour: it, then another cube onto
    the other pad, where the cards pass both)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad or not _flat_scene(item):
        return None
    a = found[1]
    b = _other_colour(a, _scene_cubes(item), "vwait|" + goal)
    if b is None:
        return None
    p = pad[1].lower().replace("gray", "grey")
    q = "grey" if p == "yellow" else "yellow"
    other = "right_pad" if item["plan"][0].params["target"] == "left_pad" else "left_pad"
    plan = [item["plan"][0], _step(f"pick_place {b}_cube {other}")]
    forms = [
        "Set the {b} cube on the {q} mat. Hold on, do the {a} cube onto the {p} mat first, "
        "then the {b} one.",
        "Put the {b} block on the {q} pad. Actually wait, the {a} block onto the {p} pad "
        "first, and then the {b} one.",
        "Move the {b} cube to the {q} pad. No, hang on - the {a} cube to the {p} pad first, "
        "then the {b} cube.",
    ]
    return _planned(plan, item, forms, "vwaitf|" + goal, a=a, b=b, p=p, q=q)


def top_onto_lone(goal: str, item: dict) -> Relabelled | None:
    """The top cube of a stack of two onto the cube standing alone: "Move the block at the top
    of the pile onto the one that's by itself." (from any plan in a flat scene of three, the
    scene moved so two cubes stand stacked: the placing, where it passes the cards)."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    cubes = _scene_cubes(item)
    if len(cubes) != 3 or not _flat_scene(item):
        return None
    lone = _pick(sorted(cubes), "vlone|" + goal)
    objects = _r_two_tower(item, lone, "vlonet|" + goal)
    if objects is None:
        return None
    (top,) = [n for n, p in objects.items() if p[2] > 0.04]
    form = _pick(
        [
            "Move the block at the top of the pile onto the one that's by itself.",
            "Put the cube on top of the tower onto the one standing alone.",
            "Take the top cube of the stack and set it on the one that's on its own.",
        ],
        "vlonef|" + goal,
    )
    plan = [_step(f"pick_place {top} {lone}")]
    if not _valid(plan, {**item, "objects": objects}):
        return None
    return form, {"expect": "plan", "plan": plan, "objects": objects}


def pad_thats_is_where(goal: str, item: dict) -> str | None:
    """The pad said by a relative of its colour, as where the cube should end up: "The mat
    that's yellow is where the red block belongs." (from one placing of a cube by colour
    onto a pad by colour)."""
    found = _placed_cube(goal, item)
    pad = found and _pad_by_colour(found[0])
    if not pad:
        return None
    form = _pick(
        [
            "The mat that's {p} is where the {a} block belongs.",
            "The pad which is {p} is where the {a} cube should go.",
            "The {p}-coloured pad is where I want the {a} cube to end up.",
        ],
        "vwhere|" + goal,
    )
    return form.format(a=found[1], p=pad[1].lower().replace("gray", "grey"))


def not_b_a_goes(goal: str, item: dict) -> str | None:
    """A cube corrected in front, then "the A one goes on P" (a placing): "Not the green
    block - the red one goes onto the grey mat." (from one placing of a cube by colour onto
    a pad)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    a = found[1]
    b = _other_colour(a, _scene_cubes(item), "vnotb|" + goal)
    if b is None:
        return None
    form = _pick(
        [
            "Not the {b} block - the {a} one goes onto {p}.",
            "Not the {b} cube; it's the {a} one that goes on {p}.",
            "No, not {b}: the {a} cube goes on {p}.",
        ],
        "vnotbf|" + goal,
    )
    return form.format(a=a, b=b, p=_lower_first(found[0].place))


def _third_of_three(goal: str, item: dict) -> tuple[str, str, str] | None:
    """(a, b, c): one placing of cube ``a`` by colour onto cube ``b`` by colour in a scene of
    three cubes, ``c`` the third (colours); None where the goal has not that shape."""
    pair = _placed_on_cube(goal, item)
    cubes = _scene_cubes(item)
    if not pair or len(cubes) != 3:
        return None
    a, b = pair
    (c,) = [n.split("_")[0] for n in cubes if n not in {f"{a}_cube", f"{b}_cube"}]
    return a, b, c


def neither_of_two(goal: str, item: dict) -> str | None:
    """The cube a placing goes onto said as the one of neither other colour, the cube moved
    among them: "Put the blue block on whichever block isn't green or blue." (from one
    placing of a cube by colour onto a cube by colour, three cubes)."""
    found = _third_of_three(goal, item)
    if found is None:
        return None
    a, _, c = found
    first, second = _pick([(c, a), (a, c)], "vneitho|" + goal)
    form = _pick(
        [
            "Put the {a} block on whichever block isn't {x} or {y}.",
            "Stack the {a} cube onto whichever cube is neither {x} nor {y}.",
            "Set the {a} cube on top of the cube that isn't {x} or {y}.",
        ],
        "vneith|" + goal,
    )
    return form.format(a=a, x=first, y=second)


def then_hover_over(goal: str, item: dict) -> Relabelled | None:
    """A placing, then "hover over" another cube (a reach): "Stack the red cube on the blue
    one, then hover above the green cube." (from one placing of a cube by colour onto a cube
    by colour in a flat scene of three, where the cards pass both)."""
    found = _third_of_three(goal, item)
    if found is None or not _flat_scene(item):
        return None
    a, b, c = found
    plan = [item["plan"][0], _step(f"reach {c}_cube")]
    forms = [
        "Stack the {a} cube on the {b} one, then hover above the {c} cube.",
        "Set the {a} block onto the {b} block and after that hover over the {c} block.",
        "Put the {a} cube on top of the {b} cube; then hover over the {c} one.",
    ]
    return _planned(plan, item, forms, "vhover|" + goal, a=a, b=b, c=c)


def _loose_by_two(goal: str, item: dict, key: str) -> tuple[str, str, dict] | None:
    """(cube, top, objects): the cube of one placing by colour onto a pad left loose, the
    scene's other two stacked (:func:`_r_two_tower`, picked by ``key``), ``top`` the upper one;
    None otherwise."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    a = f"{found[1]}_cube"
    objects = _r_two_tower(item, a, key)
    if objects is None:
        return None
    (top,) = [n for n, p in objects.items() if p[2] > 0.04]
    return a, top, objects


def three_high(goal: str, item: dict) -> Relabelled | None:
    """The loose cube put on a stack of two "to make a three-high tower": "Set the red block on
    top so the tower is three high." (from one placing of a cube by colour onto a pad, the
    other two cubes stacked: it onto the top one)."""
    found = _loose_by_two(goal, item, "vthree|" + goal)
    if found is None:
        return None
    a, top, objects = found
    plan = [_step(f"pick_place {a} {top}")]
    if not _valid(plan, {**item, "objects": objects}):
        return None
    form = _pick(
        [
            "Set the {a} block on top so the tower is three high.",
            "Put the {a} cube on top to build a three-block tower.",
            "Add the {a} cube on top to make it a three-high stack.",
        ],
        "vthreef|" + goal,
    )
    return form.format(a=a.split("_")[0]), {"expect": "plan", "plan": plan, "objects": objects}


def held_too_high(goal: str, item: dict) -> Relabelled | None:
    """The gripper held a height above a pad outside the reach card's envelope: "Keep the
    gripper 70 cm over the grey mat." (from one reach of a pad: refused)."""
    c = clause(goal)
    if c is None or c.prep or not _single_step(item, "reach") or not _PAD_NP.match(c.obj):
        return None
    n = _pick(["55", "70", "80", "90"], "vhighn|" + goal)
    form = _pick(
        [
            "Keep the gripper {n} cm over {o}.",
            "Hold the hand {n} centimetres above {o}.",
            "Hover {n} cm up above {o} and stay there.",
        ],
        "vhigh|" + goal,
    )
    return form.format(n=n, o=_lower_first(c.obj)), {"expect": "refuse", "plan": []}


def under_cube_moved(goal: str, item: dict) -> Relabelled | None:
    """The cube another rests on said by that relation, and moved: refused, it is covered
    ("The block the red one sits on - take that to the grey mat."; from one placing of a cube
    by colour onto a pad, the scene moved so another cube stands on it)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place) or not _flat_scene(item):
        return None
    cubes = _scene_cubes(item)
    a = found[1]
    b = _other_colour(a, cubes, "vunder|" + goal)
    if b is None or len(cubes) != 3:
        return None
    x, y, _ = cubes[f"{a}_cube"]
    objects = {**cubes, f"{b}_cube": (x, y, 0.06)}
    form = _pick(
        [
            "The block the {b} one sits on - take that to {p}.",
            "Move the cube underneath the {b} cube over to {p}.",
            "Carry the bottom block of that pile to {p}.",
        ],
        "vunderf|" + goal,
    )
    p = _lower_first(found[0].place)
    return form.format(b=b, p=p), {"expect": "refuse", "plan": [], "objects": objects}


def done_forget(goal: str, item: dict) -> Relabelled | None:
    """Nothing to do, said as a dismissal or as the work done: "Ah, never mind, drop it." /
    "Nothing more to move, we're all finished." (from any plan: an empty plan)."""
    return _unplanned(
        item,
        [
            "Ah, never mind, drop it.",
            "Oh, forget about it, never mind.",
            "Nothing more to move, we're all finished.",
            "No further moves needed - that's us done.",
        ],
        "vdone|" + goal,
    )


# -- group W (held-out 29's structures) ---------------------------------------------------
# Written for the structures held-out 29 showed, in other wordings, before the round that
# reads them; never tuned on. One table row per transformation (:data:`_W_ROWS`): a
# selector giving the forms' fields and the label's (or None where the goal has not the
# shape), the forms, and the key that picks one.
Said = tuple[dict, dict]


def _w_third(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour among three: {a} placed, {b}
    under it, {c} the third; the label kept."""
    found = _third_of_three(goal, item)
    if found is None:
        return None
    a, b, c = found
    return {"a": a, "b": b, "c": c}, {}


def _w_pad_other(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}), {b} another cube of the
    scene; the label kept."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    b = _other_colour(found[1], _scene_cubes(item), "wother|" + goal)
    if b is None:
        return None
    return {"a": found[1], "b": b, "p": _lower_first(found[0].place)}, {}


def _w_pad_tower(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a pad in a flat scene of three: that placing,
    then the other two stacked on it ({b} on {a}, {c} on {b}), where the cards pass it."""
    found = _w_pad_other(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    said = found[0]
    (c,) = [n.split("_")[0] for n in cubes if n not in {f"{said['a']}_cube", f"{said['b']}_cube"}]
    plan = [
        item["plan"][0],
        _step(f"pick_place {said['b']}_cube {said['a']}_cube"),
        _step(f"pick_place {c}_cube {said['b']}_cube"),
    ]
    return {**said, "c": c}, {"expect": "plan", "plan": plan}


def _w_pad_two(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a pad, then another cube ({b}) onto it."""
    found = _w_pad_other(goal, item)
    if not found or not _flat_scene(item):
        return None
    said = found[0]
    plan = [item["plan"][0], _step(f"pick_place {said['b']}_cube {said['a']}_cube")]
    return said, {"expect": "plan", "plan": plan}


def _w_all_on(goal: str, item: dict) -> Said | None:
    """A tower of all three on the cube ({a}) of one placing onto a pad, the other two
    stacked first (picked by the goal): the top one onto it, then the bottom one on top."""
    found = _loose_by_two(goal, item, "wall|" + goal)
    if found is None:
        return None
    a, top, objects = found
    (bottom,) = [n for n in objects if n not in {a, top}]
    plan = [_step(f"pick_place {top} {a}"), _step(f"pick_place {bottom} {top}")]
    return {"a": a.split("_")[0]}, {"expect": "plan", "plan": plan, "objects": objects}


def _w_nothing(goal: str, item: dict) -> Said | None:
    """Any plan of one step or more on a cube by colour ({a}): an empty plan."""
    found = _placed_cube(goal, item)
    if item["expect"] != "plan" or not item["plan"] or not found:
        return None
    return {"a": found[1]}, {"expect": "plan", "plan": []}


def _w_stack_kept(goal: str, item: dict) -> Said | None:
    """Any plan of one step or more, the scene moved so two cubes stand stacked: an empty
    plan."""
    found = _w_nothing(goal, item)
    objects = found and _r_two_tower(item, f"{found[0]['a']}_cube", "wkept|" + goal)
    if not objects:
        return None
    return {}, {"expect": "plan", "plan": [], "objects": objects}


def _w_home(goal: str, item: dict) -> Said | None:
    """A return home alone; the label kept."""
    return ({}, {}) if _single_step(item, "home") else None


def _w_pushed(goal: str, item: dict) -> Said | None:
    """One push of a cube by colour onto a pad; the label kept."""
    found = _pushed_onto_pad(goal, item)
    if found is None:
        return None
    c, a = found
    return {"A": a.capitalize(), "p": _lower_first(c.place)}, {}


def _w_turn_side(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour in a flat scene: a turn of that cube to a side, left
    counter-clockwise (a positive angle), right clockwise (docs/interfaces.md), where the
    turn card passes it."""
    found = _placed_cube(goal, item)
    if not found or not _flat_scene(item):
        return None
    a = found[1]
    n = _pick(["15", "25", "30", "45"], "wturnn|" + goal)
    side = _pick(["left", "right"], "wturns|" + goal)
    angle = n if side == "left" else f"-{n}"
    return {"a": a, "n": n, "s": side}, {
        "expect": "plan",
        "plan": [_step(f"turn {a}_cube {angle}")],
    }


def _placed_refused(goal: str, item: dict) -> Said | None:
    """Any placing of a cube by colour ({a}), said as something no skill does and refused:
    both pads put on it (a pad is not moved; group W), balanced on a corner or an edge (no
    skill balances a cube; group X), something found out about it by a verb no skill does,
    "by weighing it" or asked first (groups AE, AF; docs/interfaces.md: the skills' verbs)."""
    found = _placed_cube(goal, item)
    return found and ({"a": found[1]}, {"expect": "refuse", "plan": []})


def _w_side_of_two(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad in a flat scene of three: "the cube to the {s} of"
    the cube ({x}) both others lie to that side of (left: larger y), asked back which."""
    found = _w_pad_other(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    side = _pick(["left", "right"], "wsides|" + goal)
    sign = 1 if side == "left" else -1
    x = min(cubes, key=lambda n: sign * cubes[n][1])
    if any(sign * (cubes[n][1] - cubes[x][1]) < 0.03 for n in cubes if n != x):
        return None
    said = {"s": side, "x": x.split("_")[0], "p": found[0]["p"]}
    return said, {"expect": "clarify", "plan": []}


_W_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "unwanted_first": (
        _w_third,
        [
            "I'd rather not have the {c} block on the {b} one - I'd like the {a} block on it.",
            "Not the {c} cube on top of the {b} cube; the {a} cube is what I want on it.",
            "I don't want to see the {c} one on the {b} block, I want the {a} one on there.",
        ],
    ),
    "last_choice": (
        _w_pad_other,
        [
            "Any block except the {b} one onto {p}... alright, the {a} one then.",
            "Whatever cube but the {b} cube on {p} - fine, make it the {a} one.",
            "Anything other than the {b} block on {p}... okay then, the {a} block.",
        ],
    ),
    "tower_there": (
        _w_pad_tower,
        [
            "Set the {a} block on {p} and stack the tower up there: {b} on {a}, {c} on {b}.",
            "Move the {a} cube to {p} and build the stack there - {b} onto {a}, {c} onto {b}.",
            "Place the {a} cube on {p}, then make the tower there: {b} on {a}, then {c} on {b}.",
        ],
    ),
    "first_then_on_it": (
        _w_pad_two,
        [
            "Build a stack on {p}: the {a} block goes down first, then the {b} block on it.",
            "Start a tower on {p} - the {a} cube first, and after that the {b} cube on top of it.",
            "Make a pile on {p}: first the {a} cube, then put the {b} cube on it.",
        ],
    ),
    "all_at_bottom": (
        _w_all_on,
        [
            "Pile every block up with the {a} one at the base.",
            "Stack all three cubes, the {a} cube at the bottom.",
            "Put all the blocks into one stack with the {a} block lowest.",
        ],
    ),
    "as_they_stand": (
        _w_nothing,
        [
            "Leave the blocks just the way they are.",
            "Keep all the cubes precisely where they are.",
            "Let the cubes be, exactly as they stand.",
        ],
    ),
    "no_need_fine": (
        _w_nothing,
        [
            "There's no need to shift the {a} block, it's okay where it is.",
            "No need to touch the {a} cube - it's fine as it is.",
            "You needn't move the {a} cube, it's alright.",
        ],
    ),
    "stack_kept": (
        _w_stack_kept,
        [
            "Leave the pile as it is and stay still.",
            "Keep the tower the way it is, and don't move.",
            "Keep the stack just as it is; no moving.",
        ],
    ),
    "home_started": (
        _w_home,
        [
            "Bring the arm back to where it began.",
            "Return the arm to the spot it started from, please.",
            "Move the arm back to where it started off.",
        ],
    ),
    "arrow_push": (
        _w_pushed,
        [
            "{A} block -> {p}, slid, not lifted.",
            "{A} cube -> {p}, by pushing, not carrying.",
            "{A} cube => {p}, pushed along, not picked up.",
        ],
    ),
    "turn_side": (
        _w_turn_side,
        [
            "Turn the {a} block {n} degrees to the {s}.",
            "Rotate the {a} cube by {n} degrees to the {s}.",
            "Give the {a} cube a {n}-degree turn to the {s}.",
        ],
    ),
    "pads_on_cube": (
        _placed_refused,
        [
            "Set the two mats on top of the {a} block.",
            "Stack both pads onto the {a} cube.",
            "Place the pair of pads on the {a} cube.",
        ],
    ),
    "side_of_two": (
        _w_side_of_two,
        [
            "Put the block to the {s} of the {x} one on {p}.",
            "Move the cube that's to the {s} of the {x} cube over to {p}.",
            "Take the cube on the {s} of the {x} block and set it on {p}.",
        ],
    ),
}
"""name -> (selector, forms) of group W."""


def _w_transform(name: str) -> Callable[[str, dict], str | Relabelled | None]:
    """Group W's transformation ``name`` (:data:`_W_ROWS`): its selector's fields said by one
    of its forms picked by name and goal; a relabelled plan only where the cards pass it in
    the goal's (or the moved) scene."""
    select, forms = {
        **_W_ROWS,
        **_X_ROWS,
        **_Y_ROWS,
        **_Z_ROWS,
        **_AA_ROWS,
        **_AB_ROWS,
        **_AC_ROWS,
        **_AD_ROWS,
        **_AE_ROWS,
        **_AF_ROWS,
        **_AG_ROWS,
        **_AH_ROWS,
        **_AI_ROWS,
        **_AJ_ROWS,
        **_AK_ROWS,
        **_AL_ROWS,
        **_AM_ROWS,
        **_AN_ROWS,
        **_AO_ROWS,
        **_AP_ROWS,
    }[name]

    def transform(goal: str, item: dict) -> str | Relabelled | None:
        found = select(goal, item)
        if found is None:
            return None
        said, fields = found
        plan = fields.get("plan")
        if plan and not _valid(plan, {**item, **fields}):
            return None
        text = _pick(forms, f"w{name}|{goal}").format(**said)
        return (text, fields) if fields else text

    transform.__doc__ = select.__doc__
    return transform


# -- group X (held-out 30's structures) ---------------------------------------------------
# Written for the structures held-out 30 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_X_ROWS`, made transformations
# by :func:`_w_transform`).
def _x_over(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) in a flat scene: the gripper over that cube, a
    reach of it."""
    found = _placed_cube(goal, item)
    if not found or not _flat_scene(item):
        return None
    return {"a": found[1]}, {"expect": "plan", "plan": [_step(f"reach {found[1]}_cube")]}


def _x_over_then(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour ({a} onto {b}) in a flat scene:
    a hover over {a}, then that placing."""
    pair = _placed_on_cube(goal, item)
    if not pair or not _flat_scene(item):
        return None
    a, b = pair
    plan = [_step(f"reach {a}_cube"), item["plan"][0]]
    return {"a": a, "b": b}, {"expect": "plan", "plan": plan}


def _x_then_over(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour among three ({a} onto {b}, {c}
    the third): that placing, then the gripper over {c} (a reach)."""
    found = _w_third(goal, item)
    if not found:
        return None
    said = found[0]
    plan = [item["plan"][0], _step(f"reach {said['c']}_cube")]
    return said, {"expect": "plan", "plan": plan}


def _x_empty(goal: str, item: dict) -> Said | None:
    """Any plan of one step or more: an empty plan (nothing to do)."""
    if item["expect"] != "plan" or not item["plan"]:
        return None
    return {}, {"expect": "plan", "plan": []}


def _x_no_push(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}); the label kept (lifted)."""
    found = _placed_cube(goal, item)
    if not found or not _PAD_NP.match(found[0].place):
        return None
    return {"a": found[1], "p": _lower_first(found[0].place)}, {}


def _x_no_lift(goal: str, item: dict) -> Said | None:
    """One push of a cube by colour ({a}) onto a pad ({p}); the label kept (pushed)."""
    found = _pushed_onto_pad(goal, item)
    return found and ({"a": found[1], "p": _lower_first(found[0].place)}, {})


def _x_middle_two_ways(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a flat scene of three whose middle cube left
    to right is not its middle front to back (each order 3 cm apart or more): the middle one
    left to right placed there (docs/interfaces.md, "Default scene"; asked until held-out 30's
    relabelling)."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    by_y = sorted(cubes, key=lambda n: cubes[n][1])
    by_x = sorted(cubes, key=lambda n: cubes[n][0])
    spread = all(
        abs(cubes[m][k] - cubes[n][k]) >= 0.03
        for order, k in ((by_y, 1), (by_x, 0))
        for m, n in zip(order, order[1:], strict=False)
    )
    if not spread or by_y[1] == by_x[1]:
        return None
    pad = item["plan"][0].params["target"]
    return {"p": found[0]["p"]}, {"plan": [_step(f"pick_place {by_y[1]} {pad}")]}


def _x_pad_of_two(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad: onto one of the two pads, asked
    which."""
    found = _x_no_push(goal, item)
    return found and ({"a": found[0]["a"]}, {"expect": "clarify", "plan": []})


def _x_other_pad(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad: "the other pad, not the {q} one",
    {q} the colour of the pad not named; the label kept."""
    found = _x_no_push(goal, item)
    if not found:
        return None
    p = found[0]["p"]
    q = "grey" if re.search(r"left|yellow", p) else "yellow"
    return {"a": found[0]["a"], "q": q}, {}


def _x_second_from(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a flat scene of three spread left to right
    (3 cm apart or more): the cube second from the {s} (the middle one) placed there."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    by_y = sorted(cubes, key=lambda n: cubes[n][1])
    if any(cubes[n][1] - cubes[m][1] < 0.03 for m, n in zip(by_y, by_y[1:], strict=False)):
        return None
    side = _pick(["left", "right"], "xsecond|" + goal)
    pad = item["plan"][0].params["target"]
    plan = [_step(f"pick_place {by_y[1]} {pad}")]
    return {"s": side, "p": found[0]["p"]}, {"expect": "plan", "plan": plan}


def _x_two_under(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}) in a flat scene, {b} another
    cube: a tower of the two on {p}, {a} underneath ({a} onto {p}, then {b} onto {a})."""
    return _w_pad_two(goal, item)


_X_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "gripper_over": (
        _x_over,
        [
            "Take the gripper over the {a} block and hold it there.",
            "Get yourself right above the {a} cube.",
            "Position your hand over the {a} block and wait there.",
        ],
    ),
    "hover_then_stack": (
        _x_over_then,
        [
            "Hover above the {a} block first, and then put it on the {b} block.",
            "Go over the {a} cube, then place it on top of the {b} cube.",
            "Move over the {a} cube and after that stack it on the {b} one.",
        ],
    ),
    "then_over": (
        _x_then_over,
        [
            "Put the {a} block on the {b} block, then go over the {c} block.",
            "Stack the {a} cube onto the {b} cube and then move above the {c} cube.",
            "Set the {a} cube on the {b} one, and after that move over the {c} one.",
        ],
    ),
    "nothing_after_all": (
        _x_empty,
        [
            "Actually, never mind - don't do a thing.",
            "Oh, scratch that, forget I asked.",
            "Everything's fine as it is, no need to do anything.",
        ],
    ),
    "no_push_adverb": (
        _x_no_push,
        [
            "Take the {a} block over to {p}, and don't you dare push it.",
            "Bring the {a} cube to {p}, but don't ever push it.",
            "Get the {a} cube onto {p} - do not you push it.",
        ],
    ),
    "no_lift_adverb": (
        _x_no_lift,
        [
            "Get the {a} block to {p} without once lifting it.",
            "Bring the {a} cube over to {p}, never once picking it up.",
            "Move the {a} cube onto {p} without you ever lifting it.",
        ],
    ),
    "middle_two_ways": (
        _x_middle_two_ways,
        [
            "Put the centre block on {p}.",
            "Move the block that's between the other two onto {p}.",
            "Place the cube in the middle on {p}.",
        ],
    ),
    "pad_of_two": (
        _x_pad_of_two,
        [
            "Set the {a} block on one of the pads.",
            "Move the {a} cube onto one of the two mats.",
            "Put the {a} cube on either one of the pads.",
        ],
    ),
    "tower_in_order": (
        _w_pad_tower,
        [
            "Stack the three blocks up on {p} - the {a} one first, then {b}, then the {c} one.",
            "Make a tower of every cube on {p}: {a} first, then {b}, then {c}.",
            "Pile all three cubes on {p}: first {a}, then {b}, then {c}.",
        ],
    ),
    "two_underneath": (
        _x_two_under,
        [
            "Build a tower of the {a} and {b} blocks on {p}, {a} at the bottom.",
            "Stack the {b} cube and the {a} cube on {p}, the {a} one underneath.",
            "Make a two-cube stack of {a} and {b} on {p}, with {a} below.",
        ],
    ),
    "second_from_side": (
        _x_second_from,
        [
            "Put the cube that's second from the {s} on {p}.",
            "Take the second block counting from the {s} and set it on {p}.",
            "Move the cube second in from the {s} onto {p}.",
        ],
    ),
    "other_pad_not": (
        _x_other_pad,
        [
            "Set the {a} block on the other mat, not the {q} one.",
            "Put the {a} cube on the other pad - not the {q} pad.",
            "Move the {a} cube to the other pad, not to the {q} one.",
        ],
    ),
    "balance_corner": (
        _placed_refused,
        [
            "Get the {a} block to balance on a single corner.",
            "Stand the {a} cube up on one of its edges.",
            "Balance the {a} cube on one corner, please.",
        ],
    ),
}
"""name -> (selector, forms) of group X."""


# -- group Y (held-out 31's structures) ---------------------------------------------------
# Written for the structures held-out 31 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_Y_ROWS`, made transformations
# by :func:`_w_transform`).
def _y_other_pad(said: str) -> str:
    """The pad not named by ``said`` ("the left pad" -> "the right pad"), in its noun."""
    m = _PAD_NP.match(said)
    return f"the {_OTHER_PAD[m[1].lower()]} {m[2].lower()}"


def _y_pad_id(item: dict) -> str:
    return item["plan"][0].params["target"]


def _y_pushed(goal: str, item: dict) -> Said | None:
    """One push of a cube by colour ({a}) onto a pad ({p}); the label kept (pushed)."""
    return _x_no_lift(goal, item)


def _y_reach_pad(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a pad ({p}): a hover over that pad, the cubes
    kept clear of (a reach of the pad)."""
    found = _x_no_push(goal, item)
    if not found:
        return None
    return {"p": found[0]["p"]}, {"expect": "plan", "plan": [_step(f"reach {_y_pad_id(item)}")]}


def _y_unnamed(goal: str, item: dict) -> Said | None:
    """One push or placing of a cube onto a pad ({p}), the cube said by nothing ("that
    thing"): asked which."""
    found = _x_no_lift(goal, item) or _x_no_push(goal, item)
    return found and ({"p": found[0]["p"]}, {"expect": "clarify", "plan": []})


def _y_outer(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a scene of three: "the outer cube", asked
    which (two cubes are outermost)."""
    found = _x_no_push(goal, item)
    if not found or len(_scene_cubes(item)) != 3:
        return None
    return {"p": found[0]["p"]}, {"expect": "clarify", "plan": []}


def _y_side_cube(goal: str, item: dict, tied: bool) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a flat scene of three spread left to right
    (3 cm apart or more): "the {s}-hand cube", that side's outermost cube placed there; with
    ``tied`` the scene moved so the two cubes on that side stand level (0.5 cm apart in y,
    8 cm or more apart front to back), asked which."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    side = _pick(["left", "right"], "yside|" + goal)
    sign = 1 if side == "left" else -1
    by = sorted(cubes, key=lambda n: -sign * cubes[n][1])
    if any(abs(cubes[m][1] - cubes[n][1]) < 0.03 for m, n in zip(by, by[1:], strict=False)):
        return None
    said = {"s": side, "p": found[0]["p"]}
    if not tied:
        return said, {"expect": "plan", "plan": [_step(f"pick_place {by[0]} {_y_pad_id(item)}")]}
    first, second = by[0], by[1]
    if abs(cubes[first][0] - cubes[second][0]) < 0.08:
        return None
    x, _, z = cubes[second]
    objects = {**cubes, second: (x, cubes[first][1] - sign * 0.005, z)}
    return said, {"expect": "clarify", "plan": [], "objects": objects}


def _y_side_tied(goal: str, item: dict) -> Said | None:
    """:func:`_y_side_cube` with the two cubes on that side level: asked which."""
    return _y_side_cube(goal, item, tied=True)


def _y_side_one(goal: str, item: dict) -> Said | None:
    """:func:`_y_side_cube` in the scene as it is: that side's outermost cube placed."""
    return _y_side_cube(goal, item, tied=False)


def _y_it_moved_on(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}): that placing, then "it" moved
    on to {q} (the other pad or another cube), planned where both placings pass the cards,
    refused where the move on passes neither lifted nor pushed."""
    found = _x_no_push(goal, item)
    if not found:
        return None
    a, p = found[0]["a"], found[0]["p"]
    b = _other_colour(a, _scene_cubes(item), "yitb|" + goal)
    to_cube = b is not None and _pick(["pad", "cube"], "yitq|" + goal) == "cube"
    q, target = (f"the {b} cube", f"{b}_cube") if to_cube else (_y_other_pad(p), None)
    target = target or ("right_pad" if _y_pad_id(item) == "left_pad" else "left_pad")
    first = item["plan"][0]
    lifted = [first, _step(f"pick_place {a}_cube {target}")]
    if _valid(lifted, item):
        return {"a": a, "p": p, "q": q}, {"expect": "plan", "plan": lifted}
    if not to_cube and _valid([first, _step(f"push {a}_cube {target}")], item):
        return None
    return {"a": a, "p": p, "q": q}, {"expect": "refuse", "plan": []}


def _y_now_it(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a place ({t}); the label kept."""
    found = _placed_cube(goal, item)
    return found and ({"a": found[1], "t": _lower_first(found[0].place)}, {})


def _y_hint(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}), {b} another cube said as what
    it is lifted over; the label kept (one step)."""
    return _w_pad_other(goal, item)


def _y_stops(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad ({p}): three stops, {p}, the other pad ({q}), then
    home (reach, reach, home)."""
    found = _x_no_push(goal, item)
    if not found:
        return None
    p = found[0]["p"]
    pad = _y_pad_id(item)
    other = "right_pad" if pad == "left_pad" else "left_pad"
    plan = [_step(f"reach {pad}"), _step(f"reach {other}"), _step("home")]
    return {"p": p, "q": _y_other_pad(p)}, {"expect": "plan", "plan": plan}


def _y_finish(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad, the scene's other two stacked: the
    stack finished with {a} (onto its top cube)."""
    found = _loose_by_two(goal, item, "yfin|" + goal)
    if found is None:
        return None
    a, top, objects = found
    plan = [_step(f"pick_place {a} {top}")]
    return {"a": a.split("_")[0]}, {"expect": "plan", "plan": plan, "objects": objects}


def _y_on_both(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour among three ({a} onto {b}, {c}
    the third): that placing, then {c} on top of both (onto {a})."""
    found = _w_third(goal, item)
    if not found:
        return None
    said = found[0]
    plan = [item["plan"][0], _step(f"pick_place {said['c']}_cube {said['a']}_cube")]
    return said, {"expect": "plan", "plan": plan}


_Y_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "not_started": (
        _x_empty,
        [
            "Wait a sec - don't begin anything yet.",
            "Hold it, don't start on anything just yet.",
            "One moment: don't kick anything off yet.",
        ],
    ),
    "stand_by": (
        _x_empty,
        [
            "There's nothing that needs doing right now, just wait.",
            "Nothing needs moving at the moment - just stay ready.",
            "Nothing has to be done for now; just be on standby.",
        ],
    ),
    "lift_instead": (
        _x_no_push,
        [
            "Don't push the {a} block - lift it and set it on {p} instead.",
            "No sliding the {a} cube; pick it up and place it on {p} instead.",
            "Don't shove the {a} cube: pick it up and put it onto {p} instead.",
        ],
    ),
    "all_but_stays": (
        _y_pushed,
        [
            "Everything apart from the {a} block stays where it is; push the {a} block to {p}.",
            "Every cube but the {a} cube stays put - slide the {a} cube onto {p}.",
            "All except the {a} cube remain in place; shove the {a} cube over to {p}.",
        ],
    ),
    "hover_clear": (
        _y_reach_pad,
        [
            "Keep the gripper away from the blocks; just hover above {p}.",
            "I don't want your hand anywhere near the cubes - just go over {p}.",
            "Stay clear of the cubes, only hover over {p}.",
        ],
    ),
    "that_thing": (
        _y_unnamed,
        [
            "Slide that object over towards {p}.",
            "Shove this thing across to {p}.",
            "Move that item over to {p}.",
        ],
    ),
    "outer_cube": (
        _y_outer,
        [
            "Move the outside block onto {p}.",
            "Set the outermost cube on {p}.",
            "Put the cube on the outside onto {p}.",
        ],
    ),
    "side_hand_tied": (
        _y_side_tied,
        [
            "Put the {s}-hand block on {p}.",
            "Move the {s}-hand cube over to {p}.",
            "Set the cube on the {s}-hand side onto {p}.",
        ],
    ),
    "side_hand_one": (
        _y_side_one,
        [
            "Put the {s}-hand block on {p}.",
            "Move the {s}-hand cube over to {p}.",
            "Set the cube on the {s}-hand side onto {p}.",
        ],
    ),
    "it_moved_on": (
        _y_it_moved_on,
        [
            "Set the {a} block on {p} and then shift it over to {q}.",
            "Put the {a} cube onto {p}, then move it across to {q}.",
            "Place the {a} cube on {p} and after that carry it on to {q}.",
        ],
    ),
    "on_that_cube": (
        _w_pad_two,
        [
            "Move the {a} block to {p}, then put the {b} block on top of that block.",
            "Set the {a} cube on {p} and after that place the {b} cube onto that cube.",
            "Put the {a} cube onto {p}; then stack the {b} cube on that same cube.",
        ],
    ),
    "now_it": (
        _y_now_it,
        [
            "Pick up the {a} block. Now set it on {t}.",
            "Take hold of the {a} cube. Next, place it onto {t}.",
            "Lift the {a} cube. Now put it down on {t}.",
        ],
    ),
    "lift_over_hint": (
        _y_hint,
        [
            "Could you move the {a} block to {p}? You'll need to lift it over the {b} block.",
            "Get the {a} cube onto {p} - you'll have to carry it over the {b} one.",
            "Please bring the {a} cube to {p}; you'll need to pick it up over the {b} cube.",
        ],
    ),
    "three_stops": (
        _y_stops,
        [
            "Three stops - {p}, {q} and then home.",
            "Three places to go: {p}, then {q}, then home.",
            "Three waypoints: {p}, {q}, home.",
        ],
    ),
    "finish_stack": (
        _y_finish,
        [
            "The tower's one short - top it off with the {a} block.",
            "The pile needs one more cube: finish it with the {a} cube.",
            "One more on the stack - complete it with the {a} cube.",
        ],
    ),
    "on_both": (
        _y_on_both,
        [
            "Stack the {a} block on the {b} block, and put the {c} block on top of the two.",
            "Put the {a} cube onto the {b} cube, with the {c} cube on top of both of them.",
            "Place the {a} cube on the {b} cube and the {c} cube on top of them both.",
        ],
    ),
}
"""name -> (selector, forms) of group Y."""


# -- group Z (held-out 32's structures) ---------------------------------------------------
# Written for the structures held-out 32 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_Z_ROWS`, made transformations
# by :func:`_w_transform`).
def _z_other_pad(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}), {q} the other pad; the label
    kept (the placing on {p})."""
    found = _x_no_push(goal, item)
    return found and ({**found[0], "q": _y_other_pad(found[0]["p"])}, {})


def _z_on_cube(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a cube by colour ({b}); the label kept."""
    pair = _placed_on_cube(goal, item)
    return pair and ({"a": pair[0], "b": pair[1]}, {})


def _z_refused(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a place ({t}): refused (the cube both left
    alone and moved)."""
    found = _y_now_it(goal, item)
    return found and (found[0], {"expect": "refuse", "plan": []})


def _z_at_once(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a scene of three: all three at the same time,
    refused (the arm carries one cube at a time)."""
    found = _x_no_push(goal, item)
    if not found or len(_scene_cubes(item)) != 3:
        return None
    return {"p": found[0]["p"]}, {"expect": "refuse", "plan": []}


def _z_first_only(goal: str, item: dict) -> Said | None:
    """:func:`_w_pad_two`'s two placings said, then all but the first called off: the first
    placing only."""
    found = _w_pad_two(goal, item)
    return found and (found[0], {"expect": "plan", "plan": found[1]["plan"][:1]})


def _z_former(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour among three ({a} onto {b}, {c}
    the third), {a} said as "the former" or "the latter" of a pair with {c}; the label kept."""
    return _w_third(goal, item)


def _z_tied(goal: str, item: dict, axis: int) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a flat scene of three spread 3 cm apart or
    more along ``axis`` (1: left to right, the middle one; 0: front to back, the front one):
    the scene moved so that cube stands level with its neighbour along ``axis`` (0.5 cm
    apart, 8 cm or more apart across), asked which."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    by = sorted(cubes, key=lambda n: cubes[n][axis])
    if any(cubes[n][axis] - cubes[m][axis] < 0.03 for m, n in zip(by, by[1:], strict=False)):
        return None
    first, second = (by[1], by[2]) if axis == 1 else (by[0], by[1])
    if abs(cubes[first][1 - axis] - cubes[second][1 - axis]) < 0.08:
        return None
    moved = list(cubes[second])
    moved[axis] = cubes[first][axis] + 0.005
    objects = {**cubes, second: tuple(moved)}
    return {"p": found[0]["p"]}, {"expect": "clarify", "plan": [], "objects": objects}


def _z_between_tied(goal: str, item: dict) -> Said | None:
    """:func:`_z_tied` left to right: the cube between the other two, asked which."""
    return _z_tied(goal, item, 1)


def _z_front_tied(goal: str, item: dict) -> Said | None:
    """:func:`_z_tied` front to back: the cube at the front, asked which."""
    return _z_tied(goal, item, 0)


_Z_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "all_else_which_goes": (
        _x_no_push,
        [
            "Nothing moves but the {a} block, which goes onto {p}.",
            "All the cubes stay put except the {a} cube, which should end up on {p}.",
            "Every block stays where it is apart from the {a} one, which moves to {p}.",
        ],
    ),
    "not_there_want": (
        _z_other_pad,
        [
            "I don't want the {a} block on {q}; I'd like it on {p}.",
            "I don't want the {a} cube going to {q} - I want it going to {p}.",
            "I do not want the {a} cube on {q}, I want it on {p}.",
        ],
    ),
    "carry_release": (
        _x_no_push,
        [
            "Pick up the {a} block, bring it over to {p} and release it there.",
            "Raise the {a} cube, move it across to {p} and drop it there.",
            "Lift up the {a} cube, take it to {p}, then let it go there.",
        ],
    ),
    "beside_no_on": (
        _z_on_cube,
        [
            "Put the {a} block next to the {b} block... no, on top of it.",
            "Set the {a} cube by the {b} cube - sorry, on top of it.",
            "Place the {a} cube alongside the {b} cube... no, onto it.",
        ],
    ),
    "leave_and_move": (
        _z_refused,
        [
            "Leave the {a} block alone and put the {a} block on {t}.",
            "Let the {a} cube be, then move the {a} cube onto {t}.",
            "Leave the {a} cube as it is, and place the {a} cube on {t}.",
        ],
    ),
    "all_at_once": (
        _z_at_once,
        [
            "Move all three blocks onto {p} at once.",
            "Put every cube on {p} simultaneously.",
            "Set the three cubes on {p}, all at the same time.",
        ],
    ),
    "first_bit_only": (
        _z_first_only,
        [
            "Put the {a} block on {p}, then the {b} block on it... no, only do the first part.",
            "Set the {a} cube on {p}; then stack the {b} cube... actually, just the first step.",
            "Move the {a} cube onto {p}, then put the {b} cube on it - wait, only the first bit.",
        ],
    ),
    "former_latter": (
        _z_former,
        [
            "The {a} block and the {c} block: set the former on the {b} block.",
            "The {c} cube and the {a} cube - put the latter onto the {b} cube.",
            "Of the {a} cube and the {c} cube, stack the former on the {b} cube.",
        ],
    ),
    "between_tied": (
        _z_between_tied,
        [
            "Put the block in between the other two on {p}.",
            "Move the cube lying between the others onto {p}.",
            "Set the cube that sits between the two others on {p}.",
        ],
    ),
    "front_tied": (
        _z_front_tied,
        [
            "Set the front block on {p}.",
            "Move the cube in front over to {p}.",
            "Put the cube at the very front on {p}.",
        ],
    ),
    "thanks_nothing": (
        _x_empty,
        [
            "That's enough for now, many thanks.",
            "Good job just now.",
            "Lovely work before, thank you.",
        ],
    ),
    "goes_up_top": (
        _y_finish,
        [
            "Finish the tower: the {a} block goes on the top.",
            "Complete the pile - the {a} cube goes up on top.",
            "Finish off the stack: the {a} cube sits up top.",
        ],
    ),
}
"""name -> (selector, forms) of group Z."""


# -- group AA (held-out 33's structures) --------------------------------------------------
# Written for the structures held-out 33 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_AA_ROWS`, made
# transformations by :func:`_w_transform`).
def _aa_then_turn(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}) in a flat scene, {b} another
    cube: that placing, then {b} turned {n} degrees to a side ({s}; left counter-clockwise,
    docs/interfaces.md), where both pass the cards."""
    found = _w_pad_other(goal, item)
    if not found or not _flat_scene(item):
        return None
    said = found[0]
    n = _pick(["15", "20", "35", "40"], "aaturnn|" + goal)
    side = _pick(["left", "right"], "aaturns|" + goal)
    angle = n if side == "left" else f"-{n}"
    plan = [item["plan"][0], _step(f"turn {said['b']}_cube {angle}")]
    return {**said, "n": n, "s": side}, {"expect": "plan", "plan": plan}


def _aa_kept_moved(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a place ({t}), the cube then kept where it
    is: refused (moved and kept in place)."""
    found = _y_now_it(goal, item)
    return found and (found[0], {"expect": "refuse", "plan": []})


def _aa_square_home(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) in a flat scene: {a} turned to face the robot,
    then home, where the turn passes the cards."""
    found = _placed_cube(goal, item)
    if not found or not _flat_scene(item):
        return None
    a = found[1]
    return {"a": a}, {
        "expect": "plan",
        "plan": [_step(f"turn {a}_cube face_robot"), _step("home")],
    }


_AA_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "all_else_you_move": (
        _x_no_push,
        [
            "Nothing else moves apart from the {a} block, which you need to carry to {p}.",
            "All the boxes stay where they are except the {a} one, which I want you to put"
            " on {p}.",
            "Every cube stays in place but the {a} cube, which you should set down on {p}.",
        ],
    ),
    "no_kind_instead": (
        _z_on_cube,
        [
            "Don't put the {a} block on a pad - set it on the {b} block instead.",
            "No mat for the {a} cube; stack it on top of the {b} cube instead.",
            "Skip the pads for the {a} cube and place it on the {b} cube instead.",
        ],
    ),
    "when_done_turn": (
        _aa_then_turn,
        [
            "Put the {a} block on {p}, and once that's finished, rotate the {b} block {n}"
            " degrees to the {s}.",
            "Set the {a} cube down on {p}; when this is done, turn the {b} cube {n} degrees"
            " to the {s}.",
            "Move the {a} cube onto {p}, and after that's done, give the {b} cube a"
            " {n}-degree turn to the {s}.",
        ],
    ),
    "grab_set_down": (
        _x_no_push,
        [
            "Take hold of the {a} block, then lower it carefully onto {p}.",
            "Grasp the {a} cube and then put it down softly on {p}.",
            "Pick up the {a} box, then set it down gently onto {p}.",
        ],
    ),
    "once_holding": (
        _z_on_cube,
        [
            "Lift the {a} block, and when you've got it, set it on the {b} block.",
            "Pick up the {a} cube; once it's in the gripper, place it on top of the {b} cube.",
            "Grab the {a} cube and, as soon as you're holding it, put it onto the {b} cube.",
        ],
    ),
    "moved_kept": (
        _aa_kept_moved,
        [
            "Place the {a} block on {t}, but keep it exactly where it is now.",
            "Move the {a} box onto {t} and leave it right where it is.",
            "Set the {a} cube on {t} and keep it in its current spot.",
        ],
    ),
    "into_pieces": (
        _placed_refused,
        [
            "Break the {a} block into two pieces.",
            "Split the {a} box in half.",
            "Crack the {a} cube into halves.",
        ],
    ),
    "after_all_nothing": (
        _x_empty,
        [
            "Forget it, do nothing after all.",
            "Actually, never mind - don't move anything after all.",
            "Scratch that, I don't need anything done after all.",
        ],
    ),
    "all_stay_put": (
        _x_empty,
        [
            "Keep every block right where it is.",
            "Leave all the boxes just where they are.",
            "Let all three cubes stay exactly where they are now.",
        ],
    ),
    "all_i_needed": (
        _x_empty,
        [
            "That's everything I wanted, thanks.",
            "That was all I needed today, thank you very much.",
            "That's all I wanted for now, thanks a lot.",
        ],
    ),
    "square_up_home": (
        _aa_square_home,
        [
            "Square up the {a} block so one face points toward the robot, then return home.",
            "Square the {a} cube off so a side faces the robot, and then go back home.",
            "Square the {a} box up so that a face is towards the robot, then head home.",
        ],
    ),
}
"""name -> (selector, forms) of group AA."""


# -- group AB (held-out 34's structures) --------------------------------------------------
# Written for the structures held-out 34 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_AB_ROWS`, made
# transformations by :func:`_w_transform`).
def _ab_face(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) in a flat scene: {a} turned to face the robot,
    where the turn passes the cards."""
    found = _placed_cube(goal, item)
    if not found or not _flat_scene(item):
        return None
    return {"a": found[1]}, {"expect": "plan", "plan": [_step(f"turn {found[1]}_cube face_robot")]}


_AB_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "as_they_lie": (
        _x_empty,
        [
            "Leave all the blocks exactly how they lie.",
            "Keep the three boxes just as they stand right now.",
            "Let every cube sit precisely where it sits.",
            "Leave both of the cubes the way they were.",
        ],
    ),
    "everything_wanted": (
        _x_empty,
        [
            "Alright, that's everything we wanted for today.",
            "OK, that was all I needed for the moment.",
            "Right, that's everything I wanted done for now.",
            "Okay - that is all we need today.",
        ],
    ),
    "halt_no_more": (
        _x_empty,
        [
            "Halt. No more moving.",
            "Stop now - no further moves.",
            "Freeze, no more motion please.",
            "Stop there; no more movements.",
        ],
    ),
    "not_kind_put_it": (
        _z_on_cube,
        [
            "Don't set the {a} block on a mat, place it on top of the {b} block.",
            "Not on a pad - put the {a} box onto the {b} box.",
            "Do not drop the {a} cube on a tile; stack it on the {b} cube.",
        ],
    ),
    "it_named_after": (
        _x_no_push,
        [
            "Set it down on {p} - the {a} block, I mean.",
            "Carry it over to {p}, I mean the {a} box.",
            "Put it on {p}; the {a} cube, that is.",
        ],
    ),
    "once_up_put": (
        _z_on_cube,
        [
            "Raise the {a} block and, once it's in the air, set it on the {b} block.",
            "Pick the {a} box up and, when it's lifted, place it onto the {b} box.",
            "Lift up the {a} cube; once it is up, stack it on the {b} cube.",
        ],
    ),
    "until_face_aimed": (
        _ab_face,
        [
            "Rotate the {a} block until one flat side is aimed at the robot.",
            "Spin the {a} box till a face points toward the robot.",
            "Turn the {a} cube until a flat face is directed at the robot.",
        ],
    ),
}
"""name -> (selector, forms) of group AB."""


# -- group AC (held-out 35's structures) --------------------------------------------------
# Written for the structures held-out 35 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_AC_ROWS`, made
# transformations by :func:`_w_transform`).
_AC_ISH = {"red": "reddish", "green": "greenish", "blue": "bluish"}
_AC_WORDS = {"15": "fifteen", "25": "twenty-five", "30": "thirty", "45": "forty-five"}


def _ac_ish(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour, both said as "-ish" colours
    ({ai} onto {bi}); the label kept."""
    pair = _placed_on_cube(goal, item)
    if not pair or pair[0] not in _AC_ISH or pair[1] not in _AC_ISH:
        return None
    return {"ai": _AC_ISH[pair[0]], "bi": _AC_ISH[pair[1]]}, {}


def _ac_middle(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a flat scene of three spread 3 cm apart or
    more left to right: the middle one left to right placed there (docs/interfaces.md,
    "Default scene"), where the card passes it."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    by_y = sorted(cubes, key=lambda n: cubes[n][1])
    if any(cubes[n][1] - cubes[m][1] < 0.03 for m, n in zip(by_y, by_y[1:], strict=False)):
        return None
    pad = item["plan"][0].params["target"]
    return {"p": found[0]["p"]}, {"plan": [_step(f"pick_place {by_y[1]} {pad}")]}


def _ac_turn_words(goal: str, item: dict) -> Said | None:
    """:func:`_w_turn_side`'s turn with its amount said after the direction, in words ({w})
    or digits ({n}), the direction as a side ({s}) or a clock's way ({cw})."""
    found = _w_turn_side(goal, item)
    if found is None:
        return None
    said = found[0]
    cw = (
        "clockwise"
        if said["s"] == "right"
        else _pick(["anticlockwise", "counter-clockwise"], "acturncw|" + goal)
    )
    return {**said, "w": _AC_WORDS[said["n"]], "cw": cw}, found[1]


def _ac_chain(goal: str, item: dict) -> Said | None:
    """Any placing of a cube by colour in a flat scene of three: one tower said top down
    ({t} on {m} on {b}): {m} onto {b}, then {t} onto {m}, where the cards pass both."""
    found = _placed_cube(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    names = sorted(cubes)
    t, m, b = _pick(
        [[names[i], names[j], names[k]] for i, j, k in itertools.permutations(range(3))],
        "acchain|" + goal,
    )
    plan = [_step(f"pick_place {m} {b}"), _step(f"pick_place {t} {m}")]
    colour = {n: n.split("_")[0] for n in names}
    return {"t": colour[t], "m": colour[m], "b": colour[b]}, {"expect": "plan", "plan": plan}


_AC_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "ish_colours": (
        _ac_ish,
        [
            "Set the {ai} block on top of the {bi} one.",
            "Stack the {ai} box onto the {bi} box.",
            "Put the {ai} cube on the {bi} one, please.",
        ],
    ),
    "sitting_in_middle": (
        _ac_middle,
        [
            "Put the block sitting in the middle onto {p}.",
            "Move the box that's lying in the middle over to {p}.",
            "Set the cube standing in the middle on {p}.",
        ],
    ),
    "over_there": (
        _x_over,
        [
            "Hover above the {a} block over there.",
            "Put the gripper over the {a} box right there.",
            "Go and hover over the {a} cube back there.",
        ],
    ),
    "on_cube_there": (
        _z_on_cube,
        [
            "Stack the {a} block onto the {b} block there.",
            "Set the {a} box on top of the {b} box over there.",
            "Put the {a} cube up on the {b} cube right there.",
        ],
    ),
    "first_second": (
        _z_on_cube,
        [
            "See the {a} block and the {b} block? Put the first on the second.",
            "Take the {b} box and the {a} box. Stack the second onto the first.",
            "Here are the {a} cube and the {b} cube - set the first one on the second one.",
            "The {b} block and the {a} block: put the latter on top of the former.",
        ],
    ),
    "amount_after": (
        _ac_turn_words,
        [
            "Turn the {a} block to the {s}, {w} degrees' worth.",
            "Rotate the {a} box {cw}, {w} degrees.",
            "Give the {a} cube a small turn to the {s}, so {n} degrees.",
            "Twist the {a} block {cw} - {n} degrees' worth.",
        ],
    ),
    "if_in_reach": (
        _x_no_push,
        [
            "Can you reach the {a} block? If so, lift it onto {p}.",
            "Is the {a} box within reach? If it is, set it on {p}.",
            "Is the {a} cube close enough to grab? If yes, put it on {p}.",
        ],
    ),
    "place_then_it_there": (
        _x_no_lift,
        [
            "the {a} block onto {p}, push it there",
            "{a} box to {p} - slide it over there.",
            "The {a} cube onto {p}; nudge it there.",
        ],
    ),
    "tower_said_down": (
        _ac_chain,
        [
            "Build one tower, {t} on top of {m} on top of {b}.",
            "Stack all three into a single pile: {t} on {m} on {b}.",
            "Make a tower of the blocks, {t} on top of {m}, on top of {b}.",
        ],
    ),
}
"""name -> (selector, forms) of group AC."""


# -- group AD (held-out 36's structures) --------------------------------------------------
# Written for the structures held-out 36 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_AD_ROWS`, made
# transformations by :func:`_w_transform`).
def _ad_chain(goal: str, item: dict) -> Said | None:
    """:func:`_ac_chain`'s tower ({b} at the bottom, {m} on it, {t} on top): {m} onto {b},
    then {t} onto {m}, where the cards pass both."""
    return _ac_chain(goal, item)


def _ad_refused(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}), neither pushed nor lifted:
    refused (only push and pick_place move a cube, docs/interfaces.md)."""
    found = _x_no_push(goal, item)
    return found and (found[0], {"expect": "refuse", "plan": []})


def _ad_no_referent(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a place, the place said only as "it" with
    nothing named before: asked which."""
    found = _placed_cube(goal, item)
    return found and ({"a": found[1]}, {"expect": "clarify", "plan": []})


def _ad_three(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_push`'s placing ({a} onto {p}) in a scene of three cubes; the label kept."""
    found = _x_no_push(goal, item)
    return found if found and len(_scene_cubes(item)) == 3 else None


def _ad_pad_colour(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_push`'s placing onto a pad said by its colour ({p}, {q} without its
    article, {pc} its colour, {oc} the other pad's); the label kept."""
    found = _x_no_push(goal, item)
    m = found and re.match(r"the (yellow|grey) (\w+)$", found[0]["p"], re.I)
    if not m:
        return None
    oc = "grey" if m[1].lower() == "yellow" else "yellow"
    return {**found[0], "q": found[0]["p"][4:], "pc": m[1].lower(), "oc": oc}, {}


_AD_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "tower_pairs": (
        _ad_chain,
        [
            "Make a stack: the {m} block on the {b} block, the {t} block on top.",
            "Build a pile - {m} box on the {b} box, {t} box on top.",
            "Tower, please: {m} brick onto the {b} brick, and the {t} brick on top.",
        ],
    ),
    "tower_bottom_up": (
        _ad_chain,
        [
            "Three-level stack: {b}, {m}, {t} from the bottom up.",
            "A tower of the blocks - {b}, {m} and {t}, bottom to top.",
            "Pile the boxes up, {b}, {m}, {t}, starting from the bottom.",
        ],
    ),
    "amount_then_side": (
        _w_turn_side,
        [
            "Rotate the {a} block {n} degrees {s}.",
            "Spin the {a} box {n} degrees to the {s}.",
            "Turn the {a} brick by {n} degrees {s}.",
        ],
    ),
    "neither_verb": (
        _ad_refused,
        [
            "Move the {a} block onto {p} without pushing or lifting it.",
            "Get the {a} box over to {p}, but don't slide it or pick it up.",
            "Put the {a} brick on {p} without sliding or picking it up.",
        ],
    ),
    "no_referent": (
        _ad_no_referent,
        [
            "Now set the {a} block on it.",
            "Next, stack the {a} box on top of it.",
            "Then put the {a} brick onto it.",
        ],
    ),
    "leaving_alone": (
        _ad_three,
        [
            "Lift the {a} block onto {p}, leaving the other two alone.",
            "Set the {a} box on {p}, leaving the others where they are.",
            "Put the {a} brick on {p} and leave the other two alone.",
        ],
    ),
    "stay_still": (
        _x_empty,
        [
            "Stay still for a moment, robot.",
            "Scrap that - no moves at all.",
            "Keep everything on the table just as it is.",
            "Hold still for now.",
        ],
    ),
    "dont_move_at_all": (
        _w_nothing,
        [
            "Please don't move the {a} block at all.",
            "Do not touch the {a} box at all, please.",
        ],
    ),
    "nice_and_neat": (
        _z_on_cube,
        [
            "Place the {a} block up on top of the {b} block, nice and square.",
            "Stack the {a} box on the {b} box, nice and neat.",
        ],
    ),
    "colour_restated": (
        _ad_pad_colour,
        [
            "Lift the {a} block onto {p} - the {pc}, not the {oc}.",
            "Put the {a} box on {p}; the {pc} one, not the {oc} one.",
        ],
    ),
    "fragment_it_there": (
        _ad_pad_colour,
        [
            "{a} block, {q}. set it there",
            "the {a} box, {q} - put it there.",
        ],
    ),
    "swing_over": (
        _x_over,
        [
            "Swing your hand round so it's over the {a} block.",
            "Swing the gripper across until it's above the {a} box.",
        ],
    ),
}
"""name -> (selector, forms) of group AD."""


# -- group AE (held-out 37's structures) --------------------------------------------------
# Written for the structures held-out 37 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_AE_ROWS`, made
# transformations by :func:`_w_transform`).
_AE_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "by_doing": (
        _placed_refused,
        [
            "Work out how heavy the {a} block is by weighing it.",
            "Figure out the {a} box's weight by weighing it.",
            "Check how big the {a} brick is by measuring it.",
            "See what's under the {a} block by flipping it.",
        ],
    ),
    "nothing_left": (
        _x_empty,
        [
            "Lovely, the table looks neat. That's all.",
            "Forget that request, I've changed my mind.",
            "Cancel that ask - I've changed my mind.",
            "Everything looks fine. That's all for now.",
        ],
    ),
    "right_above": (
        _x_over,
        [
            "Put the gripper right above the {a} block.",
            "Move your hand right over the {a} box.",
            "Bring the claw right above the {a} brick.",
        ],
    ),
    "never_mind_verb": (
        _x_no_push,
        [
            "Set the {a} block on {p}, and never mind sliding, lift it.",
            "Get the {a} box onto {p} - never mind pushing it, pick it up.",
        ],
    ),
}
"""name -> (selector, forms) of group AE."""


# -- group AF (held-out 38's structures) --------------------------------------------------
# Written for the structures held-out 38 showed, in other wordings, before the round that
# reads them; never tuned on. Table-driven as group W (:data:`_AF_ROWS`, made
# transformations by :func:`_w_transform`).
def _af_tower(goal: str, item: dict) -> Said | None:
    """A tower of three built on a cube on the table (:func:`_tower3`; {l}, {m}, {t} the
    colours bottom to top); the label kept (the top one goes on the middle one, the cube
    last placed)."""
    tower = _tower3(item["plan"]) if item["expect"] == "plan" else None
    if tower is None or not _flat_scene(item):
        return None
    low, mid, top = tower
    return {"l": low, "m": mid, "t": top}, {}


_AF_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "no_v_first": (
        _x_no_push,
        [
            "No sliding today. The {a} block to {p}.",
            "No pushing at all, please. Move the {a} box onto {p}.",
            "No shoving please! Get the {a} brick over to {p}.",
        ],
    ),
    "no_lift_first": (
        _x_no_lift,
        [
            "No lifting today. Get the {a} block over to {p}.",
            "Take the {a} box across to {p} without once lifting it.",
            "No picking up, please. The {a} brick goes to {p}.",
        ],
    ),
    "ask_then_do": (
        _placed_refused,
        [
            "How heavy is the {a} block? Weigh it for me.",
            "How big is the {a} box? Measure it with your gripper.",
            "What's the {a} brick made of? Scan it.",
        ],
    ),
    "on_top_tower": (
        _af_tower,
        [
            "Put the {m} block on the {l} block, then stack the {t} one on top.",
            "Set the {m} box onto the {l} box, and then put the {t} box on top.",
        ],
    ),
    "nothing_mind": (
        _x_empty,
        [
            "Ah, don't mind me.",
            "Scrap that last request.",
            "Forget what I asked a moment ago, ignore it.",
        ],
    ),
}
"""name -> (selector, forms) of group AF."""


# -- group AG (the net's class, held-out 38's other structures) ----------------------------
# Written for a prohibition of a way of moving and a verb no skill does said in frames no
# group has, and for held-out 38's structures round 43 left unread, in other wordings, before
# the round that reads them; never tuned on. Table-driven as group W (:data:`_AG_ROWS`, made
# transformations by :func:`_w_transform`).
_AG_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "way_off_push": (
        _x_no_push,
        [
            "Pushing is off the table today; lift the {a} block to {p}.",
            "Hold off on any shoving. Move the {a} box onto {p}.",
            "Quit sliding things around - set the {a} brick on {p}.",
            "Stop nudging stuff, and put the {a} block onto {p}.",
        ],
    ),
    "way_off_lift": (
        _x_no_lift,
        [
            "Hold off on lifting anything; get the {a} block across to {p}.",
            "Lifting is not allowed today. The {a} box needs to end up on {p}.",
            "Quit picking things up - just get the {a} brick over to {p}.",
            "No more grabbing, please. Get the {a} block over to {p}.",
        ],
    ),
    "no_need_way": (
        _x_no_push,
        [
            "No need to push the {a} block, just lift it onto {p}.",
            "There's no need to slide the {a} box; pick it up and set it on {p}.",
        ],
    ),
    "verb_frame": (
        _placed_refused,
        [
            "I'd like the {a} block weighed, please.",
            "Go ahead and photograph the {a} box for me.",
            "Please give the {a} brick a quick clean.",
            "Could you paint the {a} block?",
            "I need you to measure the {a} block.",
        ],
    ),
    "hands_off_all": (
        _x_empty,
        [
            "Hands off the table for now, touch nothing.",
            "Keep your hands off all the blocks for now; don't touch a thing.",
            "Leave every box be for now, don't touch anything.",
        ],
    ),
    "after_lifting": (
        _x_no_push,
        [
            "Set the {a} block down on {p} after lifting it.",
            "Put the {a} box on {p} once you've picked it up.",
        ],
    ),
    "still_over": (
        _x_over,
        [
            "Keep the hand still above the {a} block.",
            "Reach out to the {a} box over there.",
            "Hold the gripper steady over the {a} brick.",
        ],
    ),
}
"""name -> (selector, forms) of group AG."""


# -- group AH (held-out 39's structures) ---------------------------------------------------
# Written for the structures held-out 39 showed, in other wordings (boxes, blocks, bricks;
# other verbs and frames), before the round that reads them; never tuned on. Table-driven as
# group W (:data:`_AH_ROWS`, made transformations by :func:`_w_transform`).
def _ah_far_over(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour in a flat scene whose cube farthest from the robot's
    base (xy) is 2 cm or more farther than every other: the gripper over that cube (a
    reach)."""
    if not _x_over(goal, item):
        return None
    cubes = _scene_cubes(item)
    far = [
        n
        for n in cubes
        if _relation_of(n, cubes, (("far", lambda p: (p[0] ** 2 + p[1] ** 2) ** 0.5),))
    ]
    if not far:
        return None
    return {}, {"expect": "plan", "plan": [_step(f"reach {far[0]}")]}


def _ah_two_tower(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour ({a} onto {b}) in a flat scene:
    a tower of two said by its colours alone, {a} on top; the label kept."""
    pair = _placed_on_cube(goal, item)
    if not pair or not _flat_scene(item):
        return None
    return {"a": pair[0], "b": pair[1]}, {}


def _ah_bare_pad(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a pad in a flat scene: a cube onto a pad said
    with neither's colour, asked back which."""
    found = _x_no_push(goal, item)
    if not found or not _flat_scene(item):
        return None
    return {}, {"expect": "clarify", "plan": []}


_AH_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "arrow_to": (
        _x_no_lift,
        [
            "{a} box -> {p}, slide it",
            "the {a} block -> {p}; nudge it over",
        ],
    ),
    "pad_is_target": (
        _x_no_lift,
        [
            "The target is {p}: shove the {a} brick across to it.",
            "{p} is the goal - push the {a} box over to it.",
        ],
    ),
    "moving_verb": (
        _x_no_push,
        [
            "Shuttle the {a} box over and put it down on {p}.",
            "Cart the {a} block across and place it on {p}.",
            "Haul the {a} brick over and set it down on {p}.",
        ],
    ),
    "far_over": (
        _ah_far_over,
        [
            "Put your hand above whichever block sits farthest from your base.",
            "Move the gripper over whatever box is farthest away from your base.",
        ],
    ),
    "middle_lift": (
        _x_second_from,
        [
            "The block between the other two goes on {p}; pick it up.",
            "The box in the middle of the other two goes to {p} - lift it there.",
        ],
    ),
    "tower_of_colours": (
        _ah_two_tower,
        [
            "Make a two-block stack of {b} and {a}, {a} on top.",
            "Stack a two-box tower from {a} and {b}, with {a} at the top.",
        ],
    ),
    "sit_tight": (
        _x_empty,
        [
            "Keep the arm completely still.",
            "Stay right where you are for a bit.",
            "Hold on, not yet, let me think it over.",
            "Nah, drop that whole plan.",
        ],
    ),
    "bare_pad": (
        _ah_bare_pad,
        [
            "block onto pad plz",
            "box to the mat thx",
        ],
    ),
}
"""name -> (selector, forms) of group AH."""


# -- group AI (held-out 40's structures) ---------------------------------------------------
# Written for the structures held-out 40 showed, in other wordings (boxes, blocks, bricks;
# other verbs and frames), before the round that reads them; never tuned on. Table-driven as
# group W (:data:`_AI_ROWS`, made transformations by :func:`_w_transform`).
_AI_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "no_a_lift": (
        _x_no_lift,
        [
            "Take the {a} box over to {p} without a lift.",
            "The {a} block goes to {p}, and no lifting of any kind.",
            "Bring the {a} brick across to {p} - not a single lift.",
            "Get the {a} block onto {p}, with no pick-up.",
        ],
    ),
    "no_a_push": (
        _x_no_push,
        [
            "Get the {a} box over to {p} without a shove.",
            "The {a} block needs to reach {p}; no pushing of any kind.",
            "Bring the {a} brick to {p} - not a single nudge.",
        ],
    ),
}
"""name -> (selector, forms) of group AI."""


# -- group AJ (held-out 40's and 39's other structures) ------------------------------------
# Written for the structures of held-out 40's and 39's misses left unread by rounds 45-46,
# in other wordings (boxes, blocks, bricks; mats; other verbs and frames), before the round
# that reads them; never tuned on. Table-driven as group W (:data:`_AJ_ROWS`, made
# transformations by :func:`_w_transform`).
def _aj_stacked(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}) in a flat scene of three, the
    scene moved so {a} stands on another cube ({b}, picked by the goal; {c} the third): the
    same placing, where the cards pass it."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    a = found[0]["a"]
    b = _pick(sorted(n for n in cubes if n != f"{a}_cube"), "ajstack|" + goal)
    (c,) = [n for n in cubes if n not in {f"{a}_cube", b}]
    x, y, _ = cubes[b]
    objects = {**cubes, b: (x, y, 0.02), f"{a}_cube": (x, y, 0.06)}
    said = {**found[0], "b": b.split("_")[0], "c": c.split("_")[0]}
    return said, {"expect": "plan", "plan": item["plan"], "objects": objects}


def _aj_false_seat(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}) in a flat scene, {b} another
    cube: "{a} sitting on {b}" said, which the scene contradicts (every cube on the table):
    refused."""
    found = _w_pad_other(goal, item)
    if not found or not _flat_scene(item):
        return None
    return found[0], {"expect": "refuse", "plan": []}


def _aj_on_none(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a pad in a flat scene, {b} another cube: "the
    cube sitting on {b}" said, and no cube is on it: refused."""
    return _aj_false_seat(goal, item)


def _aj_others(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad ({p}) in a scene of three, {b} and
    {c} the other two (left out of every step); the label kept."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3:
        return None
    b, c = sorted(n.split("_")[0] for n in cubes if n != f"{found[0]['a']}_cube")
    return {**found[0], "b": b, "c": c}, {}


def _aj_push_onto_cube(goal: str, item: dict) -> Said | None:
    """One push of a cube by colour ({a}) onto a pad, {b} another cube of the scene: a push
    until {a} sits on {b} (a push only goes to a pad): refused."""
    found = _x_no_lift(goal, item)
    if not found:
        return None
    b = _other_colour(found[0]["a"], _scene_cubes(item), "ajpush|" + goal)
    return b and ({"a": found[0]["a"], "b": b}, {"expect": "refuse", "plan": []})


def _aj_pushed_other(goal: str, item: dict) -> Said | None:
    """One push of a cube by colour ({a}) onto a pad ({p}), {b} another cube; the label
    kept (pushed)."""
    found = _x_no_lift(goal, item)
    if not found:
        return None
    b = _other_colour(found[0]["a"], _scene_cubes(item), "ajother|" + goal)
    return b and ({**found[0], "A": found[0]["a"].capitalize(), "b": b}, {})


def _aj_pad_hover(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a pad ({p}): the gripper over {p} (a reach of the
    pad), where the cards pass it."""
    found = _x_no_push(goal, item)
    if not found:
        return None
    pad = item["plan"][0].params["target"]
    return {"p": found[0]["p"]}, {"expect": "plan", "plan": [_step(f"reach {pad}")]}


def _aj_by_pad(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) onto a pad in a flat scene whose cube {a} is 5
    cm or more nearer the other pad ({q}, said by its colour) than that one: "{a}'s by {q}",
    then the lift to "the {pc} one"; the label kept."""
    found = _x_no_push(goal, item)
    if not found or not _flat_scene(item):
        return None
    a = found[0]["a"]
    target = item["plan"][0].params["target"]
    pads = {"left_pad": (0.55, 0.25), "right_pad": (0.55, -0.25)}
    other = "right_pad" if target == "left_pad" else "left_pad"
    xy = _scene_cubes(item)[f"{a}_cube"][:2]
    if math.dist(xy, pads[other]) + 0.05 > math.dist(xy, pads[target]):
        return None
    colour = {"left_pad": "yellow", "right_pad": "grey"}
    return {"A": a.capitalize(), "q": f"the {colour[other]} pad", "pc": colour[target]}, {}


def _aj_over_colour(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}) in a flat scene: the gripper over it (a
    reach), {A} the colour capitalised."""
    found = _x_over(goal, item)
    return found and ({**found[0], "A": found[0]["a"].capitalize()}, found[1])


def _aj_stack_hover_home(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour ({a} onto {b}) in a flat scene:
    that placing, then the gripper over a pad ({q}), then home, where the cards pass it."""
    pair = _placed_on_cube(goal, item)
    if not pair or not _flat_scene(item):
        return None
    pad = _pick(["left_pad", "right_pad"], "ajhover|" + goal)
    q = _pick(
        [f"the {pad.split('_')[0]} pad", f"the {'yellow' if pad == 'left_pad' else 'grey'} mat"],
        "ajq|" + goal,
    )
    plan = [item["plan"][0], _step(f"reach {pad}"), _step("home")]
    return {"a": pair[0], "b": pair[1], "q": q}, {"expect": "plan", "plan": plan}


def _aj_on_cube(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour ({a} onto {b}) in a flat scene,
    {A} the colour capitalised; the label kept."""
    pair = _placed_on_cube(goal, item)
    if not pair or not _flat_scene(item):
        return None
    return {"a": pair[0], "A": pair[0].capitalize(), "b": pair[1]}, {}


_AJ_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "unstack_top": (
        _aj_stacked,
        [
            "Unstack the {a} box from the {b} one and bring it over to {p}.",
            "Take the {a} block off {b} and carry it across to {p}.",
        ],
    ),
    "on_cube_set_there": (
        _aj_on_cube,
        [
            "{A} onto {b}, if you would: pick it up and put it down there.",
            "Could the {a} block sit on top of the {b} one? Pick it up and place it there.",
            "{A} box on the {b} box, thanks - grab it and drop it there.",
        ],
    ),
    "pad_hover": (
        _aj_pad_hover,
        [
            "Claw over to {p}, hold it there a second.",
            "Hand to {p}; wait above it for a bit.",
        ],
    ),
    "by_pad_lift": (
        _aj_by_pad,
        [
            "{A}'s over by {q}. Pick it up and take it to the {pc} one.",
            "{A} is next to {q}. Lift it across to the {pc} mat.",
        ],
    ),
    "seat_true": (
        _aj_stacked,
        [
            "The block resting on {b} - move it onto {p}.",
            "The {a} box sitting on the {b} box: put it on {p}.",
            "Put the {a} brick that is on the {b} brick onto {p}.",
        ],
    ),
    "seat_false": (
        _aj_false_seat,
        [
            "The {a} box sitting on the {b} box: put it on {p}.",
            "Put the {a} block that is on the {b} block onto {p}.",
        ],
    ),
    "seat_none": (
        _aj_on_none,
        [
            "The block resting on {b} - move it onto {p}.",
            "Whichever box sits on the {b} one, lift it onto {p}.",
        ],
    ),
    "leave_both": (
        _aj_others,
        [
            "Leave the {b} and {c} boxes out of it; just put {a} onto {p}.",
            "Don't touch {b} or {c} at all; simply lift the {a} block onto {p}.",
        ],
    ),
    "push_onto_cube": (
        _aj_push_onto_cube,
        [
            "Nudge the {a} block along until it's resting on {b}.",
            "Slide the {a} box over till it sits on the {b} one.",
        ],
    ),
    "all_but_one_stays": (
        _aj_pushed_other,
        [
            "All of them but {a} stay where they are; shove {a} across to {p}.",
            "Every block other than {a} stays still; nudge {a} over to {p}.",
        ],
    ),
    "no_lift_this": (
        _aj_pushed_other,
        [
            "No picking this one up; just nudge the {a} box over to {p}.",
            "Don't lift this one - just slide the {a} block to {p}.",
        ],
    ),
    "forget_leave": (
        _w_pad_other,
        [
            "Forget the {b} box, let it be; put the {a} block on {p}.",
            "Don't worry about the {b} brick, leave it; set the {a} brick on {p}.",
        ],
    ),
    "not_x_the_y": (
        _w_pad_other,
        [
            "Not {b} - the {a} box, onto {p}.",
            "Not the {b} one: the {a} block, on {p}.",
        ],
    ),
    "aside_push": (
        _aj_pushed_other,
        [
            "Spot {a}? Shove it across to {p}.",
            "{A}'s close to you; nudge it over to {p}.",
        ],
    ),
    "yeah_over": (
        _aj_over_colour,
        [
            "{A} block, right? Hold the gripper above it.",
            "The {a} box, ok? Hover over it.",
        ],
    ),
    "nothing_now": (
        _x_empty,
        [
            "That's all I need from you for now, cheers.",
            "Stay there and hang on for me.",
        ],
    ),
    "stack_hover_home": (
        _aj_stack_hover_home,
        [
            "Put {a} on {b}, then move over {q}, then go home.",
            "Stack the {a} block on the {b} one, then hover above {q}, then back home.",
        ],
    ),
}
"""name -> (selector, forms) of group AJ."""


# -- group AK (held-out 41's structures) ---------------------------------------------------
# Written for the structures held-out 41 showed, in other wordings (boxes, blocks, bricks;
# mats; other verbs and frames), before the round that reads them; never tuned on.
# Table-driven as group W (:data:`_AK_ROWS`, made transformations by :func:`_w_transform`).
def _ak_push_colour(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_lift`'s push onto a pad said by its colour ({a} onto {p}; {pc} the
    pad's colour, {oc} the other pad's, {n} the pad's noun, {A} the cube's colour
    capitalised); the label kept."""
    found = _x_no_lift(goal, item)
    m = found and re.match(r"the (yellow|grey) (\w+)$", found[0]["p"], re.I)
    if not m:
        return None
    oc = "grey" if m[1].lower() == "yellow" else "yellow"
    a = found[0]["a"]
    return {**found[0], "A": a.capitalize(), "pc": m[1].lower(), "oc": oc, "n": m[2]}, {}


def _ak_lift_colour(goal: str, item: dict) -> Said | None:
    """:func:`_ad_pad_colour`'s placing onto a pad said by its colour, {A} the cube's colour
    capitalised, {n} the pad's noun; the label kept."""
    found = _ad_pad_colour(goal, item)
    if not found:
        return None
    said = found[0]
    return {**said, "A": said["a"].capitalize(), "n": said["q"].split()[-1]}, {}


def _ak_former_latter(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour ({a} onto {b}), the two said
    first as a pair and then as "the former" and "the latter" ({A}, {B} capitalised); the
    label kept."""
    pair = _placed_on_cube(goal, item)
    if not pair:
        return None
    a, b = pair
    return {"a": a, "b": b, "A": a.capitalize(), "B": b.capitalize()}, {}


def _ak_end_on_middle(goal: str, item: dict) -> Said | None:
    """One placing of a cube in a flat scene of three spread left to right (3 cm apart or
    more): the {s}most cube stacked on the middle one left to right (docs/interfaces.md,
    "Default scene"), where the cards pass it."""
    found = _end_of_three(goal, item, "akend|")
    if found is None:
        return None
    side, end, by_y = found
    return {"s": side}, {"expect": "plan", "plan": [_step(f"pick_place {end} {by_y[1]}")]}


def _end_of_three(goal: str, item: dict, tag: str) -> tuple[str, str, list[str]] | None:
    """For one placing of a cube (``goal``, ``item``) in a flat scene of three cubes spread
    left to right, 3 cm apart or more: a side drawn by ``tag`` and the goal, the cube at
    that end and the cubes from right to left (+y is the robot's left); None otherwise."""
    if not _placed_cube(goal, item):
        return None
    cubes = _scene_cubes(item)
    if len(cubes) != 3 or not _flat_scene(item):
        return None
    by_y = sorted(cubes, key=lambda n: cubes[n][1])
    if any(cubes[n][1] - cubes[m][1] < 0.03 for m, n in zip(by_y, by_y[1:], strict=False)):
        return None
    side = _pick(["left", "right"], tag + goal)
    return side, (by_y[-1] if side == "left" else by_y[0]), by_y


_AK_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "terse_pad_colour": (
        _ak_push_colour,
        [
            "{A}, {pc} {n}, with a push.",
            "The {a} block, {pc} {n}, by sliding it.",
            "{A} box - {pc} {n} - shove it.",
        ],
    ),
    "pad_asked_by_colour": (
        _ak_lift_colour,
        [
            "Which {n} is {pc}? Set the {a} block down there.",
            "Which one is the {pc} {n}? Lift the {a} box over to it.",
            "Which of the {n}s is {pc}? Pick the {a} brick up and put it there.",
        ],
    ),
    "colour_one_not": (
        _ak_push_colour,
        [
            "Slide the {a} box over to the {pc} {n} - the {pc} one, not the {oc}.",
            "The {a} block gets pushed to the {pc} {n}: the {pc} one, not the {oc} one.",
        ],
    ),
    "keep_off_pad": (
        _ak_lift_colour,
        [
            "Keep off the {oc} {n} - the {a} brick goes onto the {pc} one, lifted.",
            "Leave the {oc} {n} alone; the {a} block goes on the {pc} one, picked up.",
        ],
    ),
    "pair_ranked": (
        _ak_former_latter,
        [
            "{A} and {b}: stack the former on the latter.",
            "The {a} block and the {b} block - set the former down on top of the latter.",
            "{B} and {a}: lift the latter onto the former.",
        ],
    ),
    "end_on_middle": (
        _ak_end_on_middle,
        [
            "Put the {s}most block on top of the middle one.",
            "Stack the {s}most box onto the middle one.",
        ],
    ),
    "swivel_face": (
        _ab_face,
        [
            "Swivel the {a} block so one side points at the robot.",
            "Rotate the {a} box so that a face points toward the robot.",
        ],
    ),
    "bare_pad_thanks": (
        _ah_bare_pad,
        [
            "Block on mat, please, cheers.",
            "Box onto pad, thanks a lot.",
        ],
    ),
}
"""name -> (selector, forms) of group AK."""


# -- group AL (held-out 42's general gaps) ------------------------------------------------
# Written for the classes held-out 42 showed (a demonstrative with nothing to point at, a pad
# said by its noun alone, a verb no skill does, a cube taken off another, "hang over"), in
# other wordings, before the round that reads them; never tuned on. Table-driven as group W
# (:data:`_AL_ROWS`, made transformations by :func:`_w_transform`).
def _al_that_pad(goal: str, item: dict) -> Said | None:
    """:func:`_ad_pad_colour`'s placing onto a pad said by its colour, the cube said by a
    demonstrative or pronoun that nothing in the goal names: asked which cube."""
    found = _ad_pad_colour(goal, item)
    return found and (found[0], {"expect": "clarify", "plan": []})


def _al_that_turn(goal: str, item: dict) -> Said | None:
    """:func:`_w_turn_side`'s turn ({n} degrees to the {s}), the cube said by a demonstrative
    that nothing in the goal names: asked which cube."""
    found = _w_turn_side(goal, item)
    return found and (found[0], {"expect": "clarify", "plan": []})


def _al_bare_pad(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour ({a}, {A} capitalised) onto a pad, the pad said by its
    noun alone with two pads in the scene: asked which pad."""
    found = _x_no_push(goal, item)
    if not found:
        return None
    a = found[0]["a"]
    return {"a": a, "A": a.capitalize()}, {"expect": "clarify", "plan": []}


def _al_end_hover(goal: str, item: dict) -> Said | None:
    """One placing of a cube in a flat scene of three spread left to right (3 cm apart or
    more): the gripper over the {s}-hand-most cube, a reach of that cube (never a pad)."""
    found = _end_of_three(goal, item, "alend|")
    if found is None:
        return None
    side, end, _ = found
    return {"s": side}, {"expect": "plan", "plan": [_step(f"reach {end}")]}


def _al_off_other(goal: str, item: dict) -> Said | None:
    """:func:`_aj_stacked`'s placing of {a} (standing on {b}) onto a pad ({p}), {A} the
    colour capitalised: the same placing."""
    found = _aj_stacked(goal, item)
    return found and ({**found[0], "A": found[0]["a"].capitalize()}, found[1])


def _al_hang_over(goal: str, item: dict) -> Said | None:
    """:func:`_x_over`'s hover over a cube ({a}), {b} another cube kept clear of; the
    reach."""
    found = _x_over(goal, item)
    if not found:
        return None
    b = _other_colour(found[0]["a"], _scene_cubes(item), "alhang|" + goal)
    return b and ({"a": found[0]["a"], "b": b}, found[1])


_AL_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "that_to_pad": (
        _al_that_pad,
        [
            "Raise that up and put it on the {q}.",
            "This one - over to the {q}, thanks.",
            "Carry it across to the {q}, would you.",
        ],
    ),
    "that_turn": (
        _al_that_turn,
        [
            "Rotate that one {n} degrees to the {s}.",
            "Spin this {n} degrees toward the {s}, please.",
        ],
    ),
    "bare_pad_two": (
        _al_bare_pad,
        [
            "The {a} block - onto the pad, thanks.",
            "{A} box: set it down on the mat.",
            "Lift the {a} brick over onto the pad, if you would.",
        ],
    ),
    "end_cube_hover": (
        _al_end_hover,
        [
            "Hold the gripper above the {s}-hand-most block.",
            "Hover over the block furthest to the {s}.",
        ],
    ),
    "verb_no_skill": (
        _placed_refused,
        [
            "Varnish the {a} block.",
            "File down the corners of the {a} box.",
            "Paint stripes on the {a} brick.",
            "Bolt the {a} block to the table for good.",
        ],
    ),
    "take_off_other": (
        _al_off_other,
        [
            "Get the {a} box off the {b} one and set it down on {p}.",
            "Lift {a} off the top of {b}, then put it on {p}.",
        ],
    ),
    "on_top_said": (
        _al_off_other,
        [
            "{A}'s sitting on top of {b}. Put it on {p}.",
            "The {a} block is on the {b} block. Carry it over to {p}.",
        ],
    ),
    "hang_over": (
        _al_hang_over,
        [
            "Stay away from the {b} box and just hang over the {a} one.",
            "Hang above the {a} block, keeping off the {b} one.",
        ],
    ),
}
"""name -> (selector, forms) of group AL."""


# -- group AM (held-out 40-42's remaining classes) -----------------------------------------
# Written for the classes held-out 40-42 still missed (nothing to do, a question back, "all
# except X", a cube described before it is acted on), in other wordings, before the round
# that reads them; never tuned on. Table-driven as group W (:data:`_AM_ROWS`, made
# transformations by :func:`_w_transform`).
_AM_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "am_nothing": (
        _x_empty,
        [
            "Nothing further for you right now, cheers.",
            "No need to do a thing for the moment, ta.",
            "Everything's fine here, just stand by.",
            "Hold up, don't do anything yet.",
            "Stop there and wait for me, please.",
            "Forget it, keep sitting there.",
            "Okay, cancel that - do nothing whatsoever.",
            "Stay there and wait for my word.",
        ],
    ),
    "am_wait_then": (
        _x_no_push,
        [
            "Wait a second, then put the {a} block on {p}.",
            "Stand by; after that, lift the {a} box onto {p}.",
        ],
    ),
    "am_that_pad": (
        _al_that_pad,
        [
            "Lift that and set it on the {q}.",
            "That one - the {q}, off you go.",
            "Pop it over on the {q}, please.",
        ],
    ),
    "am_that_turn": (
        _al_that_turn,
        [
            "Twist that one {n} degrees to the {s}.",
            "Turn this {n} degrees over to the {s}.",
        ],
    ),
    "am_bare_pad": (
        _al_bare_pad,
        [
            "{A} block, onto the mat with it, thanks.",
            "The {a} box - put it down on the pad, please.",
        ],
    ),
    "am_end_hover": (
        _al_end_hover,
        [
            "Move the gripper over the {s}-hand-most box.",
            "Bring the gripper above the {s}-most block.",
        ],
    ),
    "am_except_moved": (
        _x_no_push,
        [
            "Every block but {a} stays where it is; lift {a} onto {p}.",
            "Leave everything except the {a} cube alone, and put it on {p}.",
            "Don't touch anything apart from the {a} box: set it down on {p}.",
            "All the cubes stay put except {a}, which goes onto {p}.",
        ],
    ),
    "am_on_top_moved": (
        _al_off_other,
        [
            "{A}'s resting on top of {b}. Take it over to {p}.",
            "{A} is sitting up on {b} - carry it to {p}.",
        ],
    ),
    "am_see_there": (
        _x_no_push,
        [
            "See the {a} block there? Put it on {p}.",
            "You see {a} over there? Lift it onto {p}.",
        ],
    ),
    "am_on_cube_there": (
        _aj_on_cube,
        [
            "The {a} box on top of the {b} one - raise it and lower it there.",
            "{A} goes on {b}: grab it and place it there.",
        ],
    ),
}
"""name -> (selector, forms) of group AM."""


# -- group AN (held-out 43's classes) -----------------------------------------------------
# Written for the classes held-out 43 (and 40-42's unread) still missed (a manner clause or a
# restatement, nothing to do, a pad said by "the COLOUR one" / "that COLOUR pad" /
# "COLOUR-pad-wards", asking only when it must, a description that identifies), in other
# wordings, before the round that reads them; never tuned on. Table-driven as group W
# (:data:`_AN_ROWS`, made transformations by :func:`_w_transform`).
def _an_far_end(goal: str, item: dict) -> Said | None:
    """One placing of a cube onto a pad ({p}) in a flat scene of three spread left to right
    (3 cm apart or more): the cube at the far {s} placed there (the {s}most)."""
    found = _x_no_push(goal, item)
    ends = found and _end_of_three(goal, item, "anend|")
    if not ends:
        return None
    side, end, _ = ends
    pad = item["plan"][0].params["target"]
    plan = [_step(f"pick_place {end} {pad}")]
    return {"s": side, "p": found[0]["p"]}, {"expect": "plan", "plan": plan}


def _an_three_tower(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour among three in a flat scene
    ({a} onto {b}, {c} the third): a tower of all three, {b} at the bottom, {a} on {b}, {c}
    on {a}, where the cards pass it."""
    found = _w_third(goal, item)
    if not found or not _flat_scene(item):
        return None
    said = found[0]
    plan = [item["plan"][0], _step(f"pick_place {said['c']}_cube {said['a']}_cube")]
    return said, {"expect": "plan", "plan": plan}


def _an_under_hover(goal: str, item: dict) -> Said | None:
    """:func:`_aj_stacked`'s scene ({a} standing on {b}): the gripper over the cube
    underneath (a reach of {b})."""
    found = _aj_stacked(goal, item)
    if not found:
        return None
    b = found[0]["b"]
    return found[0], {"expect": "plan", "plan": [_step(f"reach {b}_cube")], **_objects(found)}


def _an_off_then_hover(goal: str, item: dict) -> Said | None:
    """:func:`_aj_stacked`'s scene ({a} standing on {b}, {c} the third): the top cube onto
    {c}, then the gripper over the cube it sat on ({b}), where the cards pass it."""
    found = _aj_stacked(goal, item)
    if not found:
        return None
    s = found[0]
    plan = [_step(f"pick_place {s['a']}_cube {s['c']}_cube"), _step(f"reach {s['b']}_cube")]
    return s, {"expect": "plan", "plan": plan, **_objects(found)}


def _objects(found: Said) -> dict:
    """The moved scene of a selector's label, where it has one."""
    return {"objects": found[1]["objects"]} if "objects" in found[1] else {}


_AN_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "an_manner_over": (
        _w_pad_other,
        [
            "Set the {a} block down on {p}, carrying it over the {b} one.",
            "Get {a} across to {p}, raising it clear of the {b} box.",
            "Move the {a} brick to {p}, picking it up to do so.",
            "Bring the {a} box over to {p} by lifting it.",
        ],
    ),
    "an_raise_lower": (
        _x_no_push,
        [
            "Raise the {a} block and lower it down onto {p}.",
            "Pick the {a} box up and set it on {p}.",
            "Lift {a} off the table and put it down on {p}.",
        ],
    ),
    "an_restated": (
        _aj_on_cube,
        [
            "{A} on {b}, please - pile them up that way, {a} on top.",
            "Put the {a} box on the {b} box, so {a} ends up on top.",
            "Stack {a} onto {b}; {a} goes at the top.",
        ],
    ),
    "an_top_named": (
        _al_off_other,
        [
            "Take the upper block, the {a} one, over to {p}.",
            "Move the top box - the {a} one - onto {p}.",
        ],
    ),
    "an_two_moves": (
        _w_pad_two,
        [
            "Lift {a} onto {p}, then set the {b} block on it.",
            "Put the {a} box on {p}, and after that pile {b} on it.",
            "Get {a} to {p} first; next, place the {b} brick on top of it.",
        ],
    ),
    "an_over_onto": (
        _aj_on_cube,
        [
            "Lift the {a} block over onto the {b} one.",
            "Carry {a} over and set it onto {b}.",
        ],
    ),
    "an_nothing": (
        _x_empty,
        [
            "No job for you at the moment.",
            "There's no work to do right now - sit tight.",
            "No errands today, just idle.",
            "Hang on for now, thanks.",
            "Just sit tight for the time being.",
            "Stay put; there's nothing for you to do.",
            "No orders at present. Rest.",
            "Standby, please.",
            "Hold on a moment, no task yet.",
            "Nothing on the list for you just now.",
        ],
    ),
    "an_no_task_but": (
        _x_no_lift,
        [
            "No other job today - just push the {a} block to {p}.",
            "Nothing else for you: slide {a} onto {p}.",
        ],
    ),
    "an_colour_one": (
        _ak_push_colour,
        [
            "Not the {oc} {n}, the {pc} one: slide {a} over to it.",
            "The {pc} one, not the {oc} {n} - push the {a} box there.",
            "Push the {a} block toward that {pc} {n}.",
            "{A} box - shove it {pc}-{n}-wards.",
        ],
    ),
    "an_colour_one_lift": (
        _ak_lift_colour,
        [
            "Lift {a} onto that {q}.",
            "Not the {oc} {n} but the {pc} one: put the {a} block on it.",
        ],
    ),
    "an_which_cube": (
        _al_that_pad,
        [
            "Push the block over to that {q}.",
            "Slide the box onto that {q}.",
        ],
    ),
    "an_far_end": (
        _an_far_end,
        [
            "The block out on the far {s}: put it on {p}.",
            "Lift the box on the far {s} over to {p}.",
        ],
    ),
    "an_not_pad": (
        _aj_on_cube,
        [
            "Don't put {a} on a mat; stack it on top of {b}.",
            "Not onto a pad - set the {a} block on the {b} one.",
        ],
    ),
    "an_over_there": (
        _ak_push_colour,
        [
            "{A} box over there - push it until it sits on the {pc} {n}.",
            "The {a} block over there: slide it so it ends up on the {pc} {n}.",
        ],
    ),
    "an_all_three": (
        _an_three_tower,
        [
            "Stack them all up: {b} at the bottom, {a} on {b}, {c} on {a}.",
            "Pile every block: {b} underneath, then {a}, then {c} on top.",
            "Build a tower on {b}: {a} goes on it first, {c} right at the top.",
        ],
    ),
    "an_described": (
        _al_off_other,
        [
            "The {a} block on top of the {b} one - move it to {p}.",
            "The {a} box sitting on {b}: carry it over to {p}.",
        ],
    ),
    "an_under_hover": (
        _an_under_hover,
        [
            "Put the hand above the lower box of that pile.",
            "Hover over the cube at the bottom of that stack.",
        ],
    ),
    "an_off_then_hover": (
        _an_off_then_hover,
        [
            "Take the top block off and set it on {c}. Then hover over the block it was on.",
            "Lift the upper box down onto {c}, then hold the gripper over the one it sat on.",
        ],
    ),
}
"""name -> (selector, forms) of group AN."""


# -- group AO (held-out 44's classes) -----------------------------------------------------
# Written for the classes held-out 44 (and 40-43's unread) still missed (the gripper as the
# thing moved, a manner restated, nothing to do or the request called off, a description
# that identifies, a tower with a middle), in other wordings, before the round that reads
# them; never tuned on. Table-driven as group W (:data:`_AO_ROWS`, made transformations by
# :func:`_w_transform`).
def _ao_point(goal: str, item: dict) -> Said | None:
    """One reach of a point ({x}, {y}, {z}); the label kept."""
    p = _point(item)
    if p is None:
        return None
    x, y, z = (f"{v:g}" for v in p)
    return {"x": x, "y": y, "z": z}, {}


def _ao_push_other(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_lift`'s push of {a} onto a pad ({p}), {b} another cube of the scene, {A}
    the colour capitalised; the label kept."""
    found = _x_no_lift(goal, item)
    b = found and _other_colour(found[0]["a"], _scene_cubes(item), "aoother|" + goal)
    if not b:
        return None
    return {**found[0], "A": found[0]["a"].capitalize(), "b": b}, {}


def _ao_lift_kept(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_push`'s placing of {a} onto a pad ({p}), {A} the colour capitalised; the
    label kept (lifted)."""
    found = _x_no_push(goal, item)
    return found and ({**found[0], "A": found[0]["a"].capitalize()}, {})


def _ao_then_home(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_push`'s placing of {a} onto a pad ({p}), then home."""
    found = _x_no_push(goal, item)
    if not found:
        return None
    return found[0], {"expect": "plan", "plan": [item["plan"][0], _step("home")]}


def _ao_off_onto(goal: str, item: dict) -> Said | None:
    """:func:`_aj_stacked`'s scene ({a} standing on {b}, {c} the third): {a} onto {c},
    where the cards pass it."""
    found = _aj_stacked(goal, item)
    if not found:
        return None
    s = found[0]
    plan = [_step(f"pick_place {s['a']}_cube {s['c']}_cube")]
    return {**s, "A": s["a"].capitalize()}, {"expect": "plan", "plan": plan, **_objects(found)}


def _ao_unstack_then(goal: str, item: dict) -> Said | None:
    """:func:`_aj_stacked`'s scene ({a} standing on {b}) and placing of {a} onto a pad
    ({p}): that placing, then {b} onto the other pad ({q}), where the cards pass it."""
    found = _aj_stacked(goal, item)
    if not found:
        return None
    s = found[0]
    pad = item["plan"][0].params["target"]
    other = "right_pad" if pad == "left_pad" else "left_pad"
    q = "the grey pad" if other == "right_pad" else "the yellow pad"
    plan = [item["plan"][0], _step(f"pick_place {s['b']}_cube {other}")]
    return {**s, "q": q}, {"expect": "plan", "plan": plan, **_objects(found)}


def _ao_neither(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour among three in a flat scene
    ({a}, {b}, {c}): the gripper over the cube that is neither {a} nor {b} (a reach of {c})."""
    found = _w_third(goal, item)
    if not found or not _flat_scene(item):
        return None
    return found[0], {"expect": "plan", "plan": [_step(f"reach {found[0]['c']}_cube")]}


def _ao_too_few(goal: str, item: dict) -> Said | None:
    """One placing of a cube by colour onto a cube by colour among three ({a} onto {b}): a
    stack four cubes high, refused (three cubes)."""
    found = _w_third(goal, item)
    return found and (found[0], {"expect": "refuse", "plan": []})


_AO_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "ao_gripper_over": (
        _x_over,
        [
            "Hand above the {a} block, thanks.",
            "The gripper over the {a} box, nothing more.",
            "Fingers to the {a} cube, please - just hover.",
            "Tool above the {a} brick.",
        ],
    ),
    "ao_gripper_end": (
        _al_end_hover,
        [
            "Gripper above the {s}most block, only hovering.",
            "The hand over the box furthest to the {s}, please.",
        ],
    ),
    "ao_gripper_under": (
        _an_under_hover,
        [
            "Fingers above the bottom block of that pile, please.",
            "The gripper to the lower box of the stack.",
        ],
    ),
    "ao_gripper_point": (
        _ao_point,
        [
            "Bring the hand to x={x} y={y} z={z} and keep it there.",
            "Move the gripper to x {x}, y {y}, z {z}, then hold it there.",
            "Tool at x={x}, y={y}, z={z}; keep it there.",
        ],
    ),
    "ao_grip_lookalike": (
        _ao_lift_kept,
        [
            "Grip the {a} block and set it down on {p}.",
            "Gripper closed on the {a} box, lift it over to {p}.",
        ],
    ),
    "ao_manner_push": (
        _ao_push_other,
        [
            "{A} has to end up on {p}; slide it over the table.",
            "Get the {a} box across to {p} - push it, don't pick it up.",
            "{a} block over onto {p}, shove it, keep it on the table",
        ],
    ),
    "ao_manner_lift": (
        _ao_lift_kept,
        [
            "Grab the {a} block, carry it, and drop it on {p}.",
            "{A} box. Set it down on {p}. Pick it up, no pushing.",
            "Pick up {a} and leave it on {p}.",
            "Move the {a} brick onto {p}; carry it, don't slide it.",
        ],
    ),
    "ao_manner_home_said": (
        _ao_then_home,
        [
            "Lift {a} onto {p} and leave it there, then go home.",
            "Carry the {a} block to {p}, then return home.",
        ],
    ),
    "ao_called_off": (
        _x_empty,
        [
            "Cancel that order, I've had second thoughts.",
            "Forget the task - I changed my mind.",
            "Never mind that request.",
            "Drop it, I've changed my mind.",
            "Call off the job, please.",
            "Scratch that; cancel the task.",
        ],
    ),
    "ao_hold_off": (
        _x_empty,
        [
            "Hold off, don't start yet.",
            "Hang on - not yet.",
            "Wait. Don't begin.",
            "Not now, hold off.",
        ],
    ),
    "ao_stay": (
        _x_empty,
        [
            "Stay where you are.",
            "Just stay there, please.",
            "You can stay put where you are for now.",
            "Stay right there.",
        ],
    ),
    "ao_called_off_then": (
        _ao_push_other,
        [
            "Cancel that - push the {a} block onto {p} instead.",
            "Wait, then slide {a} over to {p}.",
            "Don't start with {b}; push {a} to {p}.",
        ],
    ),
    "ao_described_off": (
        _ao_off_onto,
        [
            "The {a} block rests on {b}. Take it off and set it on {c}.",
            "{A} is sitting on {b}. Lift it off and put it on {c}.",
        ],
    ),
    "ao_neither": (
        _ao_neither,
        [
            "Hover over the block that isn't {a} and isn't {b}.",
            "Gripper above the cube that's not {a} and not {b}.",
        ],
    ),
    "ao_unstack_paren": (
        _ao_unstack_then,
        [
            "Take the stack apart first ({a} onto {p}), then lift {b} onto {q}.",
            "Unstack first ({a} to {p}); then carry {b} over to {q}.",
        ],
    ),
    "ao_tower_middle": (
        _an_three_tower,
        [
            "Make a three-block tower on {b}, {a} in the middle.",
            "Build a three-cube stack on {b} with {a} in the middle.",
        ],
    ),
    "ao_tower_too_high": (
        _ao_too_few,
        [
            "Keep adding to the pile until it is four blocks high.",
            "Stack cubes until the tower is four cubes tall.",
        ],
    ),
}
"""name -> (selector, forms) of group AO."""


# -- group AP (held-out 45's classes) -----------------------------------------------------
# Written for the classes held-out 45 (and 40-44's unread) still missed (the cube at an end
# front to back, a fragment or a request naming the thing, nothing to do, what a clause
# forbids or describes, a tower's order, a count or a self the scene cannot meet), in other
# wordings, before the round that reads them; never tuned on. Table-driven as group W
# (:data:`_AP_ROWS`, made transformations by :func:`_w_transform`).
def _ap_depth(goal: str, item: dict) -> tuple[str, str, str] | None:
    """For one placing of a cube onto a pad in a flat scene of three cubes spread front to
    back, 3 cm apart or more: an end drawn by the goal ("front": the smallest x of the base
    frame, "back": the largest), the cube at that end and the pad's words."""
    found = _x_no_push(goal, item)
    cubes = _scene_cubes(item)
    if not found or len(cubes) != 3 or not _flat_scene(item):
        return None
    by_x = sorted(cubes, key=lambda n: cubes[n][0])
    if any(cubes[n][0] - cubes[m][0] < 0.03 for m, n in zip(by_x, by_x[1:], strict=False)):
        return None
    end = _pick(["front", "back"], "apdepth|" + goal)
    return end, (by_x[0] if end == "front" else by_x[-1]), found[0]["p"]


def _ap_depth_hover(goal: str, item: dict) -> Said | None:
    """:func:`_ap_depth`'s scene: the gripper over the cube at the {d} end (a reach)."""
    found = _ap_depth(goal, item)
    if found is None:
        return None
    end, cube, _ = found
    return {"d": end}, {"expect": "plan", "plan": [_step(f"reach {cube}")]}


def _ap_depth_place(goal: str, item: dict) -> Said | None:
    """:func:`_ap_depth`'s scene: the cube at the {d} end placed onto the pad ({p})."""
    found = _ap_depth(goal, item)
    if found is None:
        return None
    end, cube, pad = found
    target = item["plan"][0].params["target"]
    return {"d": end, "p": pad}, {"expect": "plan", "plan": [_step(f"pick_place {cube} {target}")]}


def _ap_push_capital(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_lift`'s push of {a} onto a pad ({p}), {A} the colour capitalised; the
    label kept."""
    found = _x_no_lift(goal, item)
    return found and ({**found[0], "A": found[0]["a"].capitalize()}, {})


def _ap_third_capital(goal: str, item: dict) -> Said | None:
    """:func:`_w_third`'s placing of {a} onto {b} ({c} the third), {A} capitalised; the label
    kept."""
    found = _w_third(goal, item)
    return found and ({**found[0], "A": found[0]["a"].capitalize()}, {})


def _ap_count_past(goal: str, item: dict) -> Said | None:
    """:func:`_w_third`'s scene of three ({a} onto {b}): a fourth or fifth cube counted,
    which the scene has not: refused."""
    found = _w_third(goal, item)
    return found and (found[0], {"expect": "refuse", "plan": []})


def _ap_third_from(goal: str, item: dict) -> Said | None:
    """:func:`_end_of_three`'s scene (three cubes spread left to right): the third cube from
    the {o} is the cube at the other end; the gripper over it (a reach)."""
    found = _end_of_three(goal, item, "apthird|")
    if found is None:
        return None
    side, end, _ = found
    other = "right" if side == "left" else "left"
    return {"o": other}, {"expect": "plan", "plan": [_step(f"reach {end}")]}


def _ap_onto_itself(goal: str, item: dict) -> Said | None:
    """:func:`_x_no_push`'s cube ({a}) placed onto itself: refused."""
    found = _x_no_push(goal, item)
    return found and (found[0], {"expect": "refuse", "plan": []})


_AP_ROWS: dict[str, tuple[Callable[[str, dict], Said | None], list[str]]] = {
    "ap_depth_hover": (
        _ap_depth_hover,
        [
            "Move the gripper over the block that is {d}most.",
            "Hover above the cube towards the {d}, please.",
            "Put your hand over the box nearest the {d}.",
        ],
    ),
    "ap_depth_place": (
        _ap_depth_place,
        [
            "The block toward the {d}: set it down on {p}.",
            "Take the cube which is {d}most and lift it onto {p}.",
            "The box at the {d} - carry that over to {p}.",
        ],
    ),
    "ap_fragment_manner": (
        _ap_push_capital,
        [
            "{A} block, {p}, slide.",
            "{A} cube, {p}, shove it.",
            "The {a} box, {p}, push please.",
        ],
    ),
    "ap_wanted_request": (
        _ap_third_capital,
        [
            "{A}'s the block I'd like on top of {b} - could you set it there?",
            "{A} is the one I want on {b}; would you put it there?",
            "{A}'s the cube I want stacked on {b} - can you do that?",
        ],
    ),
    "ap_points_over_there": (
        _ap_third_capital,
        [
            "{A}'s over there - put it on top of {b}.",
            "{A}'s just there; set it on the {b} block.",
        ],
    ),
    "ap_nothing_needed": (
        _x_empty,
        [
            "Nothing more is needed right now, thanks.",
            "Nothing further required at the moment.",
            "Keep your hands off the cubes for now, please.",
            "Hands off it all for the moment.",
            "Leave it all be, thank you.",
            "Nothing to do for now, cheers.",
        ],
    ),
    "ap_ignore_other": (
        _ap_third_capital,
        [
            "Ignore {c}. Put {a} on top of {b}.",
            "Forget about {c}; stack {a} on {b}.",
            "Don't worry about {c} - set {a} on {b}.",
            "Never mind {c}. Place {a} on {b}.",
        ],
    ),
    "ap_lifting_off": (
        _al_off_other,
        [
            "Leave the {a} block on {p}, lifting it off the {b}.",
            "Have the {a} cube end up on {p}, taking it off the {b} one.",
        ],
    ),
    "ap_tower_first_then": (
        _an_three_tower,
        [
            "Stack everything on the {b} block, {a} first, then {c}.",
            "Pile them all onto the {b} cube: {a} first, then {c}.",
            "Stack the rest on {b}, {a} first and then {c}.",
        ],
    ),
    "ap_count_past": (
        _ap_count_past,
        [
            "Count four blocks in from the right and set that one on {b}.",
            "Put the fifth cube on top of the {b} one.",
            "The fourth cube from the left goes on {b}.",
        ],
    ),
    "ap_third_from": (
        _ap_third_from,
        [
            "Hover over the third cube from the {o}.",
            "Gripper above the third block counting from the {o}, please.",
        ],
    ),
    "ap_onto_itself": (
        _ap_onto_itself,
        [
            "Put the {a} cube onto its own top.",
            "Stack the {a} block on top of itself.",
            "Set the {a} box onto itself.",
        ],
    ),
}
"""name -> (selector, forms) of group AP."""


TRANSFORMS: dict[str, tuple[str, Callable[[str, dict], str | Relabelled | None]]] = {
    "topic": ("A", topic_first),
    "fragment": ("A", fragment),
    "whichever": ("A", whichever),
    "opener": ("A", opener),
    "the_one": ("A", the_one),
    "reorder": ("A", reorder),
    "cleft": ("B", cleft),
    "passive": ("B", passive),
    "request": ("B", request),
    "aside": ("B", aside),
    "counting": ("B", counting),
    "that_is": ("B", that_is),
    "as_for": ("B", as_for),
    "question_then": ("C", question_then),
    "one_relation": ("C", one_relation),
    "ordinal_of": ("C", ordinal_of),
    "counting_topic": ("C", counting_topic),
    "than_others": ("C", than_others),
    "prohibit_other": ("C", prohibit_other),
    "except_nothing": ("C", except_nothing),
    "place_corrected": ("C", place_corrected),
    "self_correction": ("C", self_correction),
    "than_another": ("D", than_another),
    "pad_farther": ("D", pad_farther),
    "pad_not": ("D", pad_not),
    "possessive": ("D", possessive),
    "aside_prohibit": ("D", aside_prohibit),
    "place_first": ("E", place_first),
    "verb_chain": ("E", verb_chain),
    "question_names": ("E", question_names),
    "cancel_step": ("E", cancel_step),
    "no_home": ("E", no_home),
    "push_no_lift": ("E", push_no_lift),
    "order_said": ("E", order_said),
    "polite_reach": ("E", polite_reach),
    "which_that": ("F", which_that),
    "pad_named_first": ("F", pad_named_first),
    "on_the_one_that": ("F", on_the_one_that),
    "exclusion": ("F", exclusion),
    "replace_cube": ("F", replace_cube),
    "anything_but": ("F", anything_but),
    "only_way_forbidden": ("F", only_way_forbidden),
    "before_all": ("F", before_all),
    "see_pop": ("F", see_pop),
    "lift_off": ("F", lift_off),
    "not_a_skill": ("F", not_a_skill),
    "place_unsaid": ("F", place_unsaid),
    "small_talk": ("F", small_talk),
    "straighten": ("F", straighten),
    "tower_said": ("F", tower_said),
    "whole_tower": ("F", whole_tower),
    "cancel_after": ("G", cancel_after),
    "condition": ("G", condition),
    "same_again": ("G", same_again),
    "same_unsaid": ("G", same_unsaid),
    "no_motion": ("G", no_motion),
    "tower_up": ("G", tower_up),
    "take_apart": ("G", take_apart),
    "hold_over": ("G", hold_over),
    "pad_side": ("G", pad_side),
    "no_pushing": ("G", no_pushing),
    "no_way": ("G", no_way),
    "no_relation": ("H", no_relation),
    "kept_down": ("H", kept_down),
    "push_stacked": ("H", push_stacked),
    "topic_verbs": ("H", topic_verbs),
    "turn_then": ("H", turn_then),
    "asked_condition": ("H", asked_condition),
    "still_other": ("H", still_other),
    "second_nearest": ("H", second_nearest),
    "sweep": ("H", sweep),
    "compare_two": ("H", compare_two),
    "nowhere": ("I", nowhere),
    "far_point": ("I", far_point),
    "forget_alone": ("I", forget_alone),
    "forget_other": ("I", forget_other),
    "no_skill_verb": ("I", no_skill_verb),
    "push_tower": ("I", push_tower),
    "tower_order": ("I", tower_order),
    "keep_but_onto": ("I", keep_but_onto),
    "pushed_then": ("I", pushed_then),
    "wait_above": ("I", wait_above),
    "idle": ("I", idle),
    "square_on": ("I", square_on),
    "apart_said": ("I", apart_said),
    "both_named": ("I", both_named),
    "which_pad": ("I", which_pad),
    "dash_correction": ("J", dash_correction),
    "named_point": ("J", named_point),
    "it_next_sentence": ("J", it_next_sentence),
    "places_then_verb": ("J", places_then_verb),
    "order_words": ("J", order_words),
    "except_first": ("J", except_first),
    "relation_referent": ("J", relation_referent),
    "of_the_three": ("J", of_the_three),
    "only_moving": ("J", only_moving),
    "next_down": ("J", next_down),
    "hang_on": ("J", hang_on),
    "dont_want": ("K", dont_want),
    "pad_moved": ("K", pad_moved),
    "pick_alone": ("K", pick_alone),
    "free_then": ("K", free_then),
    "do_last": ("K", do_last),
    "colour_first": ("K", colour_first),
    "one_before": ("K", one_before),
    "list_elided": ("K", list_elided),
    "hanging_over": ("K", hanging_over),
    "hedged": ("K", hedged),
    "is_there": ("K", is_there),
    "which_is": ("K", which_is),
    "nothing_else": ("K", nothing_else),
    "cataphoric": ("K", cataphoric),
    "out_of_way": ("K", out_of_way),
    "once_there": ("K", once_there),
    "hold_still": ("K", hold_still),
    "furthest_back": ("K", furthest_back),
    "place_then_turn": ("L", place_then_turn),
    "not_on_but": ("L", not_on_but),
    "two_tower": ("L", two_tower),
    "finish_tower": ("L", finish_tower),
    "next_to_two": ("L", next_to_two),
    "let_go_there": ("L", let_go_there),
    "leave_tower": ("L", leave_tower),
    "over_with": ("L", over_with),
    "hover_kept": ("L", hover_kept),
    "stack_ordered": ("L", stack_ordered),
    "nothing_else_said": ("L", nothing_else_said),
    "home_typo": ("L", home_typo),
    "front_back": ("L", front_back),
    "two_at_back": ("L", two_at_back),
    "nearest_that_pad": ("L", nearest_that_pad),
    "in_my_way": ("L", in_my_way),
    "on_its_own": ("L", on_its_own),
    "still_while": ("L", still_while),
    "those_two": ("L", those_two),
    "under_none": ("L", under_none),
    "other_pad": ("L", other_pad),
    "arm_over": ("M", arm_over),
    "off_edge": ("M", off_edge),
    "that_pad_there": ("M", that_pad_there),
    "one_word_typo": ("M", one_word_typo),
    "mind_moving": ("M", mind_moving),
    "hover_there": ("M", hover_there),
    "middle_of_stack": ("M", middle_of_stack),
    "pad_then_one": ("M", pad_then_one),
    "never_mind_two": ("M", never_mind_two),
    "dont_push_first": ("M", dont_push_first),
    "not_that_pad": ("M", not_that_pad),
    "hold_off": ("M", hold_off),
    "tower_on": ("M", tower_on),
    "stack_the_two": ("M", stack_the_two),
    "on_pad_none": ("M", on_pad_none),
    "leave_all": ("N", leave_all),
    "tool_verb": ("N", tool_verb),
    "tower_by": ("N", tower_by),
    "keep_there": ("N", keep_there),
    "hover_bring": ("N", hover_bring),
    "nearest_you": ("N", nearest_you),
    "which_pad_is": ("N", which_pad_is),
    "anywhere_but": ("N", anywhere_but),
    "one_left_there": ("N", one_left_there),
    "unstack_set": ("N", unstack_set),
    "near_edge": ("N", near_edge),
    "lowest_in_stack": ("N", lowest_in_stack),
    "hover_stay": ("O", hover_stay),
    "goes_on": ("O", goes_on),
    "tower_standing": ("O", tower_standing),
    "into_box": ("O", into_box),
    "stack_first": ("O", stack_first),
    "on_top_of_that": ("O", on_top_of_that),
    "tower_top_as": ("O", tower_top_as),
    "some_cube": ("O", some_cube),
    "right_next_to": ("O", right_next_to),
    "two_at_front": ("O", two_at_front),
    "topic_locative": ("O", topic_locative),
    "tower_again": ("O", tower_again),
    "leave_things": ("O", leave_things),
    "near_edge_one": ("O", near_edge_one),
    "own_verb": ("P", own_verb),
    "and_come_home": ("P", and_come_home),
    "actually_first": ("P", actually_first),
    "colour_like": ("P", colour_like),
    "neither_nor": ("P", neither_nor),
    "back_two_front": ("P", back_two_front),
    "moved_built_on": ("P", moved_built_on),
    "bring_back": ("P", bring_back),
    "move_to_lift": ("P", move_to_lift),
    "home_stay": ("P", home_stay),
    "cancel_nothing": ("P", cancel_nothing),
    "third_pad": ("P", third_pad),
    "one_of_back": ("P", one_of_back),
    "on_it_none": ("P", on_it_none),
    "tower_full": ("P", tower_full),
    "verb_typo": ("P", verb_typo),
    "bare_colours": ("Q", bare_colours),
    "colour_of_thing": ("Q", colour_of_thing),
    "belongs_push": ("Q", belongs_push),
    "take_and_turn": ("Q", take_and_turn),
    "same_but_onto": ("Q", same_but_onto),
    "tower_base_twice": ("Q", tower_base_twice),
    "scrap_last": ("Q", scrap_last),
    "point_hold": ("Q", point_hold),
    "cube_in_front": ("Q", cube_in_front),
    "isnt_x_or_y": ("Q", isnt_x_or_y),
    "prep_typo": ("Q", prep_typo),
    "back_two_reach": ("Q", back_two_reach),
    "then_bring_it": ("Q", then_bring_it),
    "sort_by": ("Q", sort_by),
    "terse_pad": ("R", terse_pad),
    "pad_colour_np": ("R", pad_colour_np),
    "same_colour_as": ("R", same_colour_as),
    "keep_on_table": ("R", keep_on_table),
    "not_in_stack": ("R", not_in_stack),
    "complete_stack": ("R", complete_stack),
    "no_push_skill": ("R", no_push_skill),
    "only_then": ("R", only_then),
    "after_gone_it": ("R", after_gone_it),
    "grab_then_it": ("R", grab_then_it),
    "said_where_it": ("R", said_where_it),
    "tower_two": ("R", tower_two),
    "no_action": ("R", no_action),
    "stand_still_while": ("R", stand_still_while),
    "stay_above": ("R", stay_above),
    "first_though": ("R", first_though),
    "reverse_order": ("R", reverse_order),
    "push_on_tower": ("R", push_on_tower),
    "shuffle_ask": ("R", shuffle_ask),
    "verbless_over": ("S", verbless_over),
    "aside_near": ("S", aside_near),
    "that_pad_back": ("S", that_pad_back),
    "both_pads_first": ("S", both_pads_first),
    "face_square": ("S", face_square),
    "front_pair_side": ("S", front_pair_side),
    "relax_nothing": ("S", relax_nothing),
    "stack_with_on": ("S", stack_with_on),
    "too_far_bring": ("S", too_far_bring),
    "sort_heavy": ("S", sort_heavy),
    "before_all_that": ("T", before_all_that),
    "home_last_first": ("T", home_last_first),
    "finally_first_of_all": ("T", finally_first_of_all),
    "centre_cube": ("T", centre_cube),
    "resting_on_it": ("T", resting_on_it),
    "pile_first_next": ("T", pile_first_next),
    "middle_of_file": ("T", middle_of_file),
    "make_it_three": ("T", make_it_three),
    "take_apart_two": ("T", take_apart_two),
    "shade_said": ("U", shade_said),
    "pad_gets": ("U", pad_gets),
    "other_pad_there": ("U", other_pad_there),
    "alone_cube": ("U", alone_cube),
    "off_the_table": ("U", off_the_table),
    "straight_in_line": ("U", straight_in_line),
    "tower_with_on": ("U", tower_with_on),
    "three_on_pad": ("U", three_on_pad),
    "stay_for_now": ("U", stay_for_now),
    "never_mind_other": ("U", never_mind_other),
    "shouldnt_go": ("U", shouldnt_go),
    "begin_end_by": ("U", begin_end_by),
    "then_onto_it": ("U", then_onto_it),
    "aim_and_wait": ("U", aim_and_wait),
    "nearest_on_farthest": ("U", nearest_on_farthest),
    "forbid_manner": ("V", forbid_manner),
    "kept_still_instead": ("V", kept_still_instead),
    "and_no_lift": ("V", and_no_lift),
    "stated_lift_off": ("V", stated_lift_off),
    "wait_first_then": ("V", wait_first_then),
    "top_onto_lone": ("V", top_onto_lone),
    "pad_thats_is_where": ("V", pad_thats_is_where),
    "not_b_a_goes": ("V", not_b_a_goes),
    "neither_of_two": ("V", neither_of_two),
    "then_hover_over": ("V", then_hover_over),
    "three_high": ("V", three_high),
    "held_too_high": ("V", held_too_high),
    "under_cube_moved": ("V", under_cube_moved),
    "done_forget": ("V", done_forget),
    **{name: ("W", _w_transform(name)) for name in _W_ROWS},
    **{name: ("X", _w_transform(name)) for name in _X_ROWS},
    **{name: ("Y", _w_transform(name)) for name in _Y_ROWS},
    **{name: ("Z", _w_transform(name)) for name in _Z_ROWS},
    **{name: ("AA", _w_transform(name)) for name in _AA_ROWS},
    **{name: ("AB", _w_transform(name)) for name in _AB_ROWS},
    **{name: ("AC", _w_transform(name)) for name in _AC_ROWS},
    **{name: ("AD", _w_transform(name)) for name in _AD_ROWS},
    **{name: ("AE", _w_transform(name)) for name in _AE_ROWS},
    **{name: ("AF", _w_transform(name)) for name in _AF_ROWS},
    **{name: ("AG", _w_transform(name)) for name in _AG_ROWS},
    **{name: ("AH", _w_transform(name)) for name in _AH_ROWS},
    **{name: ("AI", _w_transform(name)) for name in _AI_ROWS},
    **{name: ("AJ", _w_transform(name)) for name in _AJ_ROWS},
    **{name: ("AK", _w_transform(name)) for name in _AK_ROWS},
    **{name: ("AL", _w_transform(name)) for name in _AL_ROWS},
    **{name: ("AM", _w_transform(name)) for name in _AM_ROWS},
    **{name: ("AN", _w_transform(name)) for name in _AN_ROWS},
    **{name: ("AO", _w_transform(name)) for name in _AO_ROWS},
    **{name: ("AP", _w_transform(name)) for name in _AP_ROWS},
}
"""name -> (group, transformation). Group B was written with A and committed before any
planner change; nothing is tuned on it. Group C (the structures held-out 9 showed) was
written and committed before the next planner change and is never tuned on either. Groups D
and E (the structures held-outs 10 and 11 showed) likewise, group F (held-out 12's) and group G
(held-out 13's), group H (held-out 14's), group I (held-out 15's), group J (held-out 16's),
group K (held-out 17's), group L (held-out 18's), group M (held-out 19's), group N
(held-out 20's), group O (held-out 21's), group P (held-out 22's), group Q (held-out 23's),
group R (held-out 24's), group S (held-out 25's), group T (held-out 26's), group U
(held-out 27's), group V (held-out 28's), group W (held-out 29's), group X (held-out
30's), group Y (held-out 31's), group Z (held-out 32's), group AA (held-out 33's), group AB
(held-out 34's), group AC (held-out 35's), group AD (held-out 36's), group AE (held-out 37's),
group AF (held-out 38's), group AG (the net's class and held-out 38's other structures),
group AH (held-out 39's), group AI (held-out 40's), group AJ (held-out 40's and 39's other
structures), group AK (held-out 41's), group AL (held-out 42's general gaps), group AM
(held-out 40-42's remaining classes), group AN (held-out 43's classes), group AO (held-out
44's classes), group AP (held-out 45's classes)."""


def transformed(items: list[dict], name: str, per: int) -> tuple[int, list[tuple[dict, dict]]]:
    """How many of ``items`` transformation ``name`` applies to, and at most ``per`` of
    them as (original, transformed) pairs, chosen by a hash of name and goal."""
    _, fn = TRANSFORMS[name]
    pairs, seen = [], set()
    for item in items:
        new = fn(item["goal"], item)
        new, fields = new if isinstance(new, tuple) else (new, {})
        if new is None or new == item["goal"] or new in seen:
            continue
        seen.add(new)
        pairs.append((item, {**item, **fields, "goal": new}))
    pairs.sort(key=lambda p: hashlib.sha1(f"{name}|{p[0]['goal']}".encode()).hexdigest())
    return len(pairs), pairs[:per]


def load_items(names: list[str], registry, world) -> list[dict]:
    items = []
    for name in names:
        items += dev_set(registry, world) if name == "dev" else load_eval_set(SETS[name])
    return items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument("--groups", default="A,B,C,D,E,F,G,H,I,J,K,L,M,N")
    parser.add_argument("--only", default="", help="these transformations only")
    parser.add_argument("--per", type=int, default=40, help="goals per transformation")
    parser.add_argument("--sets", default=",".join(["dev", *SETS]))
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--show", action="store_true", help="print the pairs, answer nothing")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from miles_ros.agent.planner import DEFAULT_ADAPTER, Planner, PlannerConfig
    from miles_ros.agent.registry import SkillRegistry
    from miles_ros.agent.world import load_world

    names = [n for n in args.sets.split(",") if n]
    unknown = sorted(set(names) - {"dev", *SETS})
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}")
    groups = set(args.groups.split(","))
    only = {n for n in args.only.split(",") if n}
    chosen = [n for n, (g, _) in TRANSFORMS.items() if g in groups and (not only or n in only)]
    registry = SkillRegistry.load()
    if args.show:
        items = load_items(names, registry, load_world())
        for name in chosen:
            applies, pairs = transformed(items, name, args.per)
            print(f"== {name} ({TRANSFORMS[name][0]}): {applies} apply")
            for old, new in pairs:
                print(f"  {old['goal']!r} -> {new['goal']!r}")
        return 0
    adapter = DEFAULT_ADAPTER if (DEFAULT_ADAPTER / "adapter_config.json").exists() else None
    planner = Planner.from_options(
        registry=registry,
        adapter=adapter,
        threads=args.threads or models.default_threads(),
        config=PlannerConfig(fallback=False),
    )
    planner.plan("go home", use_cache=False)  # warm-up
    items = load_items(names, registry, planner.world)
    originals: dict[tuple, dict] = {}
    out: dict = {"per": args.per, "sets": names, "groups": {}, "transforms": {}}
    for name in chosen:
        group = TRANSFORMS[name][0]
        applies, pairs = transformed(items, name, args.per)
        rows = []
        for old, new in pairs:
            key = (old["goal"], tuple(sorted((old["objects"] or {}).items())))
            if key not in originals:
                originals[key] = answer(planner, old)
            rows.append((originals[key], answer(planner, new)))
        n = len(rows)
        exact = sum(r["ok"] for _, r in rows)
        was = sum(o["ok"] for o, _ in rows)
        out["transforms"][name] = {
            "group": group,
            "applies": applies,
            "n": n,
            "exact": round(exact / n, 4) if n else None,
            "original_exact": round(was / n, 4) if n else None,
            "misses": [
                {k: r[k] for k in ("goal", "expect", "got", "expected", "steps", "reason")}
                | {"original_ok": o["ok"]}
                for o, r in rows
                if not r["ok"]
            ],
        }
        tally = out["groups"].setdefault(group, {"n": 0, "exact": 0, "original_exact": 0})
        tally["n"] += n
        tally["exact"] += exact
        tally["original_exact"] += was
    if not args.json:
        for name, t in out["transforms"].items():
            print(
                f"{t['group']} {name:10s} {t['exact']} of {t['n']} "
                f"(as written {t['original_exact']}; applies to {t['applies']})",
                file=sys.stderr,
            )
        for group, t in sorted(out["groups"].items()):
            print(
                f"group {group}: {t['exact']}/{t['n']} (as written {t['original_exact']})",
                file=sys.stderr,
            )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
