"""The symbolic reading of a goal: what it names, whether it can be done at all, and the
manner constraints its words put on the steps.

:func:`read_goal` runs before the language model (and its constraints are applied to the
model's choices, and to any plan, after it). It refuses, with a reason that names what is
missing, a goal that

- is blank;
- names a spot of the table as a target ("the middle of the table": no skill takes one),
  moves a cube by a distance ("lift the red cube 10 cm"), or goes to a height above a
  scene thing that lies outside the planning workspace ("hover one metre above the blue
  cube": :func:`metres` reads the distance);
- names a colour no scene object has (a word of :data:`COLOURS` that is not a scene
  object's colour or a synonym of one), an object kind or place the scene does not have
  (:data:`THINGS`), or a position qualifier no pad or cube has ("the middle pad");
- asks for a relation no skill's parameter schema accepts: a cube put on / pushed against
  / touching another cube when no skill takes a cube as its target (or, when the clause
  moves it without lifting, "push / slide / nudge ...", when only skills that grasp do:
  a push is never substituted by a stack, nor by a push to some pad), a stack when no
  skill does, a placement relative to another thing that is left after the placements
  beside a thing were said as table points (:mod:`miles_ros.agent.beside`; what is left:
  :data:`RELATIONS` such as "under" and "between", no skill has such a parameter), a cube
  onto itself, or onto a cube that does not rest on the table (held in the gripper, or on
  another cube), or a cube moved from under another (a cube rests on it);
- contradicts itself: within one clause, lifting and not lifting the same cube, moving a
  cube and not moving / not touching it;
- asks for an action no skill does ("paint", "throw", "flip":
  :mod:`miles_ros.agent.repertoire`), a step a number of times ("tap the red cube three
  times": no skill takes a count), a cube put in a person's things ("in my pocket"), a
  place whose noun names nothing the scene or the skills know ("on the windowsill") or a
  point outside every skill's envelope (:mod:`miles_ros.agent.places`);
- rules out both ways of moving a cube it moves ("don't pick it up and don't push it");
- asks to turn a cube without saying how far, or only by multiples of 90 degrees (a cube
  looks the same after them): :func:`miles_ros.agent.turns.turn_refusal`;
- names nothing in the scene, no point and no parameter-free skill ("fly", "dance").

A goal that asks for no motion at all ("do nothing", "stay where you are", "thanks,
that's everything", "no action is needed", "hang on, not yet") is not a refusal: its plan
is empty and done (``nothing``). The word lists are the English vocabulary of colours,
household objects and places, not a list of goals; the scene's own names and the training
generator's synonyms decide what is known.

Manner constraints (per clause, on the cube the clause names, or the cube a pronoun
refers to): "without lifting / don't pick it up / push / slide ..." forbids skills with
the ``grasps`` permission; "pick up / lift / by grasping ...", and a clause that opens with
"move / put / place / carry ..." where no clause says a push, require it; "tap", "poke",
"without touching" forbid skills with ``contact`` on that cube (so "tap the red cube" is a
reach); "without moving it" forbids moving it; a cube moved in a stated manner and never
reached, hovered over or tapped is not a reach target. A goal that names nothing in the
scene and no point allows parameter-free steps only. :meth:`GoalReading.violation` checks
a step.

The vocabulary lives in :mod:`miles_ros.agent.vocabulary`, the verb and turn checks in
:mod:`~miles_ros.agent.repertoire` and :mod:`~miles_ros.agent.turns`; this module (about
780 lines) stays one reading: clauses, then unknown words, relations and manners over
the same clauses, filling one :class:`GoalReading`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from miles_ros.agent.grounding import Step, goal_points
from miles_ros.agent.phrases import COLOR_WORDS, CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.places import point_out_of_reach, unknown_place
from miles_ros.agent.reading_order import stacking_after, unpushed
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.repertoire import verb_refusal
from miles_ros.agent.turns import missing_turn, turn_refusal, turning_clauses
from miles_ros.agent.vocabulary import (
    COLOURS,
    DISTANCE,
    PARAMLESS_WORDS,
    POSITIONS,
    RELATIONS,
    THINGS,
)
from miles_ros.agent.world import World, in_workspace
from miles_ros.runtime.goals import covered_error

if TYPE_CHECKING:
    from miles_ros.agent.prohibitions import Prohibition

_NOTHING = re.compile(
    r"(?:(?:please|could you|can you|would you|just|ok|okay|hey|robot|now|for now|kindly|"
    r"your task:?|i'?d like you to|i need you to|let'?s|go ahead and|would you kindly|"
    r"actually|on second thoughts?|sorry|oh|um|well|no|thanks|thank you|cheers|great|good|"
    r"perfect|hang on|hold on|hold up|wait(?: a (?:moment|minute|second|sec|bit))?|"
    r"(?:just )?(?:a|one) (?:moment|minute|second|sec)|not (?:yet|now))"
    r"[,: ]*)*"
    r"(?:(?:do nothing|don'?t do anything|do not do anything|nothing|"
    r"(?:stay|remain|keep|be|sit|stand|hold) (?:still|put|where you are|there|idle|"
    r"motionless|in place|tight|steady|here|in (?:this|that|your) position)|don'?t move|"
    r"do not move|never ?mind|wait|pause|"
    r"hold on|hang on|hold up|hold (?:your|the|this|that) position|relax|no action|"
    r"stop(?: moving| everything)?|halt|"
    r"freeze|take a (?:break|rest)|forget (?:it|that|about it)|cancel(?: that| it)?|"
    r"let it be|leave it|no need to do anything|(?:there'?s |there is )?nothing (?:to do|needed|"
    r"more)|don'?t do (?:a|a single) thing|do not do (?:a|a single) thing|"
    r"(?:that'?s|that is|that'?ll be|that will be) (?:all|it|everything)|(?:we'?re|we are|i'?m|"
    r"i am|all) done|i(?:'?ve| have)? changed my mind|"
    r"(?:there'?s |there is )?(?:no (?:action|motion|movement|move)s?|nothing(?: else| more)?)"
    r"(?: is)? (?:needed|required|necessary|wanted|to be done)|"
    # the speaker not ready: "I'm not ready", "let me think", "give me a minute"
    r"(?:i'?m|i am|we'?re|we are) (?:still )?(?:not (?:ready|sure|done)|thinking|deciding|"
    r"undecided)|i (?:haven'?t|have not) decided|let (?:me|us) (?:think|decide|see)(?: about it)?|"
    r"(?:give me|i need) (?:a|one|another|a few) (?:moments?|minutes?|seconds?|secs?|bit))"
    r"(?:[, ]*(?:please|thanks|thank you|for now|at all|yet|first|(?:for )?an? "
    r"(?:moment|while|bit|second|sec|minute|little while)|for (?:now|the moment)|right now))*"
    r"[,.;: ]*)+"
)
_CLAUSES = re.compile(
    r",? (?:and )?then |, and |\band\b|;|\. |, after that|, next|, followed by|, but first|"
    r",\s(?![-+]?\d)|\bbefore you\b|\bafter you\b|\bonce you\b|\bafterwards\b"
)
_NOT_BY = r"(?:without|(?:(?:don'?t|do not|never|not)(?: by)?|instead of|rather than)(?: just)?)"
"""Words that rule out the manner after them ("without", "not by", "rather than")."""
_NO_GRASP = re.compile(
    rf"{_NOT_BY} (?:lift|pick|grasp|grab|rais)\w*(?: it)?(?: up)?|"
    r"keep(?:ing)? it on the table|"
    r"(?<!without )(?<!not )(?<!n't )(?<!never )(?<!not by )(?<!instead of )(?<!rather than )"
    r"(?<!not just )(?<!n't just )\b(?:push|slid|shov|nudg|scoot|drag)\w*"
)
_GRASP = re.compile(
    r"\b(?:pick|lift|grasp|grab|carr|hold)\w*|"
    rf"(?:\b{_NOT_BY}|n't(?: by)?(?: just)?) (?:push|slid|shov|nudg|scoot|drag)\w*"
)
"""A clause that asks to lift its cube, or not to push it ("without pushing it", "but not
by pushing it", "rather than sliding it")."""
_KEPT_THERE = re.compile(r"\b(?:leave|keep) it (?:there|in place)\b")
"""After a clause that moves the cube, where that clause put it (not a contradiction);
"where it is" is where it stands now, so moving it and keeping it where it is contradict
each other (as the training generator's refusals say)."""
_PLACING = re.compile(
    r"(?:(?:please|kindly|now|then|and|first|next|finally|lastly|also|just)[, ]+)*"
    r"(?:move|put|place|set|carry|take|transfer|relocate|drop|bring)\b"
)
"""A clause opening with a verb the training phrases say only a pick and place with, unless a
manner on its cube says otherwise ("... by pushing it" forbids grasping; "bring X to P by
sliding it" is their only push said with "bring"; the eval sets: "bring X to P" lifts)."""
_NO_TOUCH = re.compile(r"without touching(?: it)?|(?:don'?t|do not|never) touch(?: it)?")
_VISIT = re.compile(
    r"(?:(?:please|first|now|then|and|just)[, ]+)*(?:hover|reach|point|tap|poke|approach|go)\b"
)
"""A clause that goes to a thing (a reach): it moves no cube."""
_TAP = re.compile(r"\b(?:tap|taps|tapping|tapped|poke|pokes|poking|poked)\b")
_NO_MOVE = re.compile(
    r"without moving (?:it|the)|(?:don'?t|do not|never) move (?:it|the)|keep it where it is|"
    r"leave it (?:where it is|alone|there)|keep (?:it|the \w+ \w+) (?:where it is|still|in place)"
)
_MOVE_VERBS = frozenset(
    "put place set move moving push slide shove nudge scoot drag pick lift grasp grab carry "
    "bring take drop stack pile transfer relocate get shift give hold raise lower tuck slip "
    "wedge stuff".split()
)
_TARGET_PREP = re.compile(
    r"\b(?:on top of|onto|on to|on|atop|against|to|toward|towards|at|touches|touching|touch)\s+"
    r"(?:the |that |this )?([a-z_]+)(?:\s+([a-z_]+))?"
)
_NEGATED = re.compile(r"(?:don'?t|do not|never|not|without) \w+(?: it)?(?: up)?")
_SKIP = frozenset({"up", "the", "that", "this", "a", "an"})


@dataclass
class GoalReading:
    """What :func:`read_goal` found."""

    refusal: str | None = None
    """Why the goal cannot be done (None: no symbolic reason)."""
    nothing: bool = False
    """The goal asks for no motion: the plan is empty and done."""
    forbid: list[tuple[str, str | None]] = field(default_factory=list)
    """(permission, cube or None for any): skills with the permission may not act on it."""
    require: list[tuple[str, str]] = field(default_factory=list)
    """(permission, cube): a skill acting on the cube must have the permission."""
    names: list[str] = field(default_factory=list)
    """Scene names the goal mentions, in order."""
    moved: set[str] = field(default_factory=set)
    """Cubes the goal asks to move in a stated manner ("without lifting it", "by grasping
    it") and never to reach, hover over or tap: a reach to one of them serves no clause."""
    anchored: bool = True
    """False when the goal names no scene thing and no point: no step with a parameter
    can serve it (only parameter-free skills such as ``home``)."""
    prohibitions: tuple[Prohibition, ...] = ()
    """The cubes the goal keeps out of the plan ("don't touch the red cube", "every cube
    except the blue one"; :func:`miles_ros.agent.scope.read_scope`)."""
    turning: list[str] = field(default_factory=list)
    """The clauses that ask to turn a cube (:func:`miles_ros.agent.turns.turning_clauses`):
    a plan of other skills only does not serve them."""

    def plan_violation(self, steps: list[Step], registry: SkillRegistry) -> str | None:
        """Why a plan breaks the goal as a whole: a step it forbids (:meth:`prohibited`),
        or no turn step where it asks to turn a cube (:func:`~miles_ros.agent.turns.
        missing_turn`); None when it does not."""
        for step in steps:
            why = self.prohibited(step, registry)
            if why:
                return f"{step.key()}: {why}"
        return missing_turn(self.turning, steps)

    def prohibited(self, step: Step, registry: SkillRegistry) -> str | None:
        """Why ``step`` does what the goal forbids (None: it does not)."""
        for rule in self.prohibitions:
            why = rule.forbids(step, registry)
            if why:
                return why
        return None

    def violation(self, step: Step, registry: SkillRegistry) -> str | None:
        """Why ``step`` does what the goal forbids or breaks its manner constraints (None:
        it does not)."""
        if step.skill not in registry:
            return None
        forbidden = self.prohibited(step, registry)
        if forbidden:
            return forbidden
        if not self.anchored and step.params:
            return "the goal names nothing this step could act on"
        target = step.params.get("target")
        if "object" not in step.params and isinstance(target, str) and target in self.moved:
            return f"the goal asks to move {target}, not to go to it"
        perms = registry[step.skill].permissions
        obj = step.params.get("object")
        for perm, cube in self.forbid:
            if perm in perms and obj is not None and cube in (None, obj):
                return f"{step.skill} has {perm!r}, which the goal rules out for {obj}"
        for perm, cube in self.require:
            if obj == cube and perm not in perms:
                return f"{step.skill} lacks {perm!r}, which the goal asks for {obj}"
        return None


class _Vocabulary:
    """The scene's words: colours and sides to names, and the nouns it knows."""

    def __init__(self, world: World):
        self.word_to_name: dict[str, str] = {}
        self.cube_words: set[str] = set(CUBE_NOUNS)
        self.place_words: set[str] = set(PAD_NOUNS)
        for name in world.objects:
            head, _, kind = name.partition("_")
            self.cube_words.add(kind or name)
            for word in [head, name, *COLOR_WORDS.get(head, [])]:
                self.word_to_name.setdefault(word, name)
        for name in world.places:
            head, _, kind = name.partition("_")
            self.place_words.add(kind or name)
            for word in (head, name, head + "most"):
                self.word_to_name.setdefault(word, name)
        self.objects, self.places = set(world.objects), set(world.places)
        self.known_nouns = self.cube_words | self.place_words | {"table", "tabletop"}


def read_goal(
    goal: str,
    registry: SkillRegistry,
    world: World,
    prohibitions: tuple[Prohibition, ...] = (),
) -> GoalReading:
    """Read ``goal`` (see the module docstring): its positive part, when
    :func:`~miles_ros.agent.scope.read_scope` took ``prohibitions`` out of it (a clause
    that moves a cube they forbid to move or touch, or puts a cube on one they forbid to
    touch, is a contradiction)."""
    text = _plain(goal)
    if not text:
        return GoalReading(refusal="the goal is empty")
    if _NOTHING.fullmatch(text):
        return GoalReading(nothing=True)
    vocab = _Vocabulary(world)
    words = re.findall(r"[a-z_]+", text)
    reading = GoalReading(prohibitions=tuple(prohibitions))
    reading.names = [vocab.word_to_name[w] for w in words if w in vocab.word_to_name]
    clauses, said = _parse(text, vocab), split_clauses(text)
    reading.refusal = (
        (reading.names and (_arm_kept(text) or _whole_tower(text, registry)))
        or _unknown(words, vocab, world)
        or verb_refusal(said, registry)
        or turn_refusal(text, said, registry)
        or _table_spot(text)
        or _by_distance(clauses)
        or _height_above(text, world)
        or _repeated(text)
        or _belonging(text, vocab)
        or unknown_place(text, vocab.known_nouns | set(vocab.word_to_name) | COLOURS)
        or point_out_of_reach(goal, registry, world)
        or _relation(text, clauses, vocab, registry, world)
    )
    if reading.refusal is None:
        reading.refusal = _forbidden(clauses, reading.prohibitions) or _constraints(
            clauses, reading
        )
    reading.turning = turning_clauses(said, registry)
    reading.anchored = bool(reading.names or goal_points(goal))
    if reading.refusal is None and not reading.anchored:
        if not any(_asks_for(text, skill.name) for skill in registry if not skill.param_names):
            known = ", ".join(world.names)
            reading.refusal = (
                f"the goal names nothing in the scene ({known}), no point and no skill "
                f"that needs neither ({', '.join(registry.names)})"
            )
    return reading


_ARM_KEPT = re.compile(
    r"\b(?:without (?:using|moving|lifting|raising|stirring) (?:your|the|its|the robot'?s) "
    r"(?:arm|gripper|hand)s?|without (?:the|your) (?:arm|gripper|robot|hand)s? (?:moving|"
    r"stirring)|without (?:you )?moving (?:at all|an inch|a muscle)|"
    r"keep(?:ing)? (?:the robot|your arm|the arm|the gripper|your gripper|yourself) "
    r"(?:completely |perfectly |totally |absolutely |dead )?still|"
    r"(?:your|the) (?:arm|gripper) (?:stays|staying|remains|must stay|should stay|has to stay) "
    r"(?:exactly |completely |perfectly )?(?:where it is|still|put|in place)|"
    r"(?:don'?t|do not|never) (?:move|use|lift|raise) (?:your|the) (?:arm|gripper|hand)s?)\b"
)
"""The arm kept still while the goal asks for a step ("put the red cube on the pad without
using your arm", "..., keeping the robot completely still"): every skill moves the arm."""


_WHOLE_TOWER = re.compile(
    r"\b(?:move|carry|shift|take|bring|push|slide|lift|put|transport|relocate)\b[^.;]*?\bthe "
    r"(?:whole|entire|full|complete) (?:stack|tower|pile)\b|\b(?:move|carry|shift|take|bring|"
    r"push|slide|lift|put) the (?:stack|tower|pile) (?:as a whole|in one go|all at once)\b|"
    r"\b(?:push|slide|shove|nudge|drag|roll)\s+(?:the|that|this|your|our)\s+(?:stack|tower|pile)"
    r"\b(?!'s|\s+of\s+(?:the\s+)?(?:two|three))"
)
"""A tower moved as one ("move the whole stack over to the right pad"), or pushed at all
("push the tower onto the left pad": a push moves the cube it touches, and a cube another
stands on is never moved)."""


def _whole_tower(text: str, registry: SkillRegistry) -> str | None:
    """Why a goal that moves a whole tower as one cannot be done: every skill that moves a
    cube takes one cube."""
    m = _WHOLE_TOWER.search(text)
    if m is None:
        return None
    movers = [s.name for s in registry if "object" in s.param_names]
    return (
        f"no skill moves a tower as one ({m.group(0)!r}): "
        f"{', '.join(movers) or 'no skill'} moves one cube at a time"
    )


def _arm_kept(text: str) -> str | None:
    """Why a goal that names a scene thing and keeps the arm still cannot be done."""
    m = _ARM_KEPT.search(text)
    if m is None:
        return None
    return (
        f"contradictory goal: it keeps the arm still ({m.group(0)!r}) and every skill "
        "moves the arm"
    )


def _plain(goal: str) -> str:
    text = " ".join(goal.lower().replace("-", " ").split())
    return re.sub(r"[!?\"']+(?=\s|$)|[!?\"]", "", text).strip(" .")


def asks_nothing(goal: str) -> bool:
    """Whether ``goal`` only says that no motion is wanted ("do nothing", "forget it",
    "never mind"): read before anything asks which cube an "it" means."""
    text = _plain(goal)
    return bool(text) and _NOTHING.fullmatch(text) is not None


def place_moved(goal: str, world: World) -> str | None:
    """Why a goal that moves a pad or the table cannot be done ("pick up the left pad and
    put it on the red cube", "lift the table"): the thing a moving verb acts on is fixed
    to the table and no skill takes it as its object. None when no goal moves one."""
    vocab = _Vocabulary(world)
    places = "|".join(sorted(vocab.place_words | {"table", "tabletop"}, key=len, reverse=True))
    verbs = "|".join(sorted(_MOVE_VERBS, key=len, reverse=True))
    match = re.search(
        rf"\b(?:{verbs})(?:\s+up)?\s+the\s+(?P<said>[a-z_]+\s+)?(?P<thing>{places})s?\b"
        r"(?!\s+(?:of|with|closest|nearest|farthest|furthest|that|which))"
        r"(?(said)|(?!\s+(?:next|beside|near)))",  # "the pad next to X" may name a cube's place
        goal.lower(),
    )
    if match is None:
        return None
    thing = match.group(0).split("the", 1)[1].strip()
    return f"no skill moves the {thing}: it is fixed to the table; the robot moves cubes"


def split_clauses(text: str) -> list[str]:
    """The goal split at connectors; a clause that starts with "but" qualifies the one
    before it and stays with it."""
    out: list[str] = []
    for part in _CLAUSES.split(text):
        part = part.strip()
        if out and part.startswith("but ") and not part.startswith("but first"):
            out[-1] += " " + part
        elif part:
            out.append(part)
    return out


_TABLE_SPOT = re.compile(
    r"\b(?:the\s+)?(?:(?:exact\s+)?middle|cent(?:er|re)|corner|edge|far end|end|side)\s+of\s+"
    r"the\s+(?:table|tabletop)\b"
)


def _table_spot(text: str) -> str | None:
    """Why a spot of the table said by name ("the middle of the table") cannot be a
    target: skills take a pad, a cube or a point, and the scene names no such spot."""
    match = _TABLE_SPOT.search(text)
    if match is None:
        return None
    return (
        f"no skill takes a spot of the table by name ({match.group(0)!r}): a target is a "
        "pad, a cube or a point (x, y, z) in the robot's base frame"
    )


def _by_distance(clauses: list[_Clause]) -> str | None:
    """Why a clause that moves a cube by a distance ("lift the red cube 10 cm", "move the
    red cube 5 cm to the left") cannot be planned: no skill takes a distance."""
    for clause in clauses:
        match = re.search(DISTANCE, clause.text)
        if match and clause.moved and not goal_points(clause.text):
            return (
                f"no skill moves a cube by a distance ({match.group(0)!r}): a target is a pad, "
                "a cube or a point (x, y, z) in the robot's base frame"
            )
    return None


_UNITS_M = {"c": 0.01, "m": 0.001, "i": 0.0254, "f": 0.3048}
"""Metres per unit, by the unit word's first letter (centimetre, millimetre, inch, foot;
"met..." is a metre)."""
_AMOUNTS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0}
_AMOUNTS |= {"five": 5.0, "ten": 10.0, "twenty": 20.0, "thirty": 30.0, "half a": 0.5}
_AMOUNTS |= {"half an": 0.5, "a quarter of a": 0.25}


def metres(said: str) -> float | None:
    """A distance matched by :data:`~miles_ros.agent.vocabulary.DISTANCE` in metres ("10 cm"
    -> 0.1, "one metre" -> 1.0, "half a metre" -> 0.5); None when it gives no number ("a
    few inches")."""
    match = re.fullmatch(r"(?P<n>[\d.]+|[a-z ]+?)\s*(?P<unit>[a-z]+)", said.strip().lower())
    if match is None:
        return None
    n, unit = match.group("n").strip(), match.group("unit")
    amount = float(n) if re.fullmatch(r"\d+(?:\.\d+)?", n) else _AMOUNTS.get(n)
    if amount is None:
        return None
    per = 1.0 if unit.startswith("met") else _UNITS_M.get(unit[0])
    return None if per is None else amount * per


def _height_above(text: str, world: World) -> str | None:
    """Why going to a height above a scene thing that lies outside the planning workspace
    ("hover one metre above the blue cube") cannot be done: the arm reaches no such point.
    A height inside the workspace is left to the skills (a reach above the thing)."""
    names = {**{n.split("_")[0]: n for n in world.names}, **{n: n for n in world.names}}
    for match in re.finditer(
        rf"(?P<d>{DISTANCE})\s+(?:above|over|higher than|on top of)\s+(?:the\s+)?(?P<w>[a-z_]+)",
        text,
    ):
        name, height = names.get(match.group("w")), metres(match.group("d"))
        if name is None or height is None:
            continue
        x, y, z = world.position_of(name)
        point = (round(x, 3), round(y, 3), round(z + height, 3))
        if not in_workspace(point):
            return (
                f"{match.group('d')} above the {name.replace('_', ' ')} is the point "
                f"{list(point)}, outside the workspace the arm reaches: no skill goes there"
            )
    return None


_REPEATED = re.compile(
    r"\b(?:twice|thrice|(?:\d+|two|three|four|five|six|ten|several|many|a few|a couple of|"
    r"multiple|a number of) times|repeatedly|over and over(?: again)?|again and again)\b"
)
_ANGLE = re.compile(r"\d\s*(?:deg|°)|\bdegrees?\b")


def _repeated(text: str) -> str | None:
    """Why a step said a number of times ("tap the red cube three times", "push it
    twice") cannot be planned: no skill takes a count, and a step is never planned again
    once what it does holds (the same call twice leaves the world as the first left it).
    A turn by an angle said twice turns the cube further, and is left to the turn reading."""
    match = _REPEATED.search(text)
    if match is None or _ANGLE.search(text):
        return None
    return (
        f"no skill does a step a number of times ({match.group(0)!r}): a skill's call takes "
        "a cube, a place or a point, never a count, and the same call again leaves the "
        "scene as the first one left it; say each step"
    )


_POSSESSIVE = re.compile(
    r"\b(?:(?:in|into|inside|on|onto|under)\s+(?:my|our|his|her|their)|"
    r"(?:in|into|inside)\s+your)\s+(?P<noun>[a-z]+)"
)


def _belonging(text: str, vocab: _Vocabulary) -> str | None:
    """Why a cube put in or on a person's thing ("in my pocket", "on his desk") cannot be
    planned: a target is a pad, a cube or a point of the scene, and a person's belongings
    are none (their hands are a receiver, refused by the repertoire)."""
    for match in _POSSESSIVE.finditer(text):
        noun = match.group("noun")
        if noun in vocab.known_nouns or noun in vocab.word_to_name:
            continue
        return (
            f"the scene has no {noun} ({match.group(0)!r}): a target is a pad, a cube or a "
            "point of the scene, and a person's things are none of them"
        )
    return None


def _asks_for(text: str, skill: str) -> bool:
    return any(re.search(rf"\b{w}", text) for w in PARAMLESS_WORDS.get(skill, (skill,)))


def _unknown(words: list[str], vocab: _Vocabulary, world: World) -> str | None:
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word in COLOURS and word not in vocab.word_to_name:
            colours = sorted({n.split("_")[0] for n in vocab.objects})
            return f"the scene has no {word} object (its objects: {', '.join(sorted(colours))})"
        base = word[:-1] if word.endswith("s") and word[:-1] in THINGS else word
        if word == "can" and i and (words[i - 1] in _SKIP or words[i - 1] in COLOURS):
            base = "can"  # "the can", "a red can"; not "can you"
            return f"the scene has no {base} (it has {', '.join(world.names)})"
        if base in THINGS and base not in vocab.known_nouns and base not in vocab.word_to_name:
            return f"the scene has no {base} (it has {', '.join(world.names)})"
        if word in POSITIONS and nxt in vocab.known_nouns - {"table", "tabletop"}:
            pool = vocab.places if nxt in vocab.place_words else vocab.objects
            if not any(n.startswith(word + "_") for n in pool):
                return f"the scene has no {word} {nxt} (it has {', '.join(sorted(pool))})"
    return None


def _cube_at(words: list[str], vocab: _Vocabulary) -> str | None:
    for w in words:
        if w in _SKIP:
            continue
        name = vocab.word_to_name.get(w)
        return name if name in vocab.objects else None
    return None


def _takes_cube_target(skill, vocab: _Vocabulary) -> bool:
    if "target" not in skill.param_names:
        return False
    names, _ = skill.card.param_choices("target", sorted(vocab.objects))
    return bool(names) and "object" in skill.param_names


def _no_stack(registry, obj: str | None = None, target: str | None = None) -> str:
    movers = [s for s in registry if "object" in s.param_names and "target" in s.param_names]
    takes = (
        "; ".join(f"{s.name} takes target {_target_kinds(s)}" for s in movers)
        or "no skill moves a cube"
    )
    what = f"putting {obj} on {target}" if obj else "stacking"
    return f"no skill for {what} (a cube on a cube): {takes}"


def _rules_out_grasping(text: str) -> bool:
    """The clause moves its cube without lifting it ("push", "slide", "nudge", "without
    lifting ...") and nowhere asks to lift it."""
    stripped = _NO_GRASP.sub(" ", text)
    return stripped != text and not _GRASP.search(stripped)


def _no_push_to_cube(registry, obj: str, target: str, takers) -> str:
    """Why a cube cannot be pushed (moved without lifting) to another cube: the skills that
    take the cube as a target lift it; those that do not lift take no cube."""
    pushers = [
        s
        for s in registry
        if "object" in s.param_names
        and "target" in s.param_names
        and "grasps" not in s.permissions
    ]
    takes = "; ".join(f"{s.name} takes target {_target_kinds(s)}" for s in pushers)
    lifters = ", ".join(s.name for s in takers)
    return (
        f"no skill moves {obj} to {target} without lifting it (a cube to a cube): "
        f"{takes or 'no skill moves a cube without lifting it'}; {lifters} would lift it"
    )


def _target_kinds(skill) -> str:
    spec = skill.parameters.get("properties", {}).get("target", {})
    names: list[str] = []
    point = False
    for option in [spec, *spec.get("oneOf", []), *spec.get("anyOf", [])]:
        names += [e for e in option.get("enum", []) if e not in names]
        point |= option.get("type") == "array"
    return " or ".join(
        [*(["one of " + ", ".join(names)] if names else []), *(["a point"] if point else [])]
    )


@dataclass
class _Clause:
    """One clause of a goal, as far as the reading needs it."""

    text: str
    cubes: list[str]
    """Cubes it mentions, in order."""
    places: bool
    """It mentions a pad or a point."""
    moved: str | None
    """The cube it moves (after a moving verb, "it" for the previous cube, or the cube an
    elided clause starts with: "..., then the red one to the left pad")."""


def _parse(text: str, vocab: _Vocabulary) -> list[_Clause]:
    out: list[_Clause] = []
    prev: str | None = None
    for part in split_clauses(text):
        words = re.findall(r"[a-z_]+", part)
        cubes = [
            vocab.word_to_name[w] for w in words if vocab.word_to_name.get(w) in vocab.objects
        ]
        places = any(vocab.word_to_name.get(w) in vocab.places for w in words) or bool(
            re.search(r"\d", part)
        )
        free = _NEGATED.sub(" ", part).split()  # "don't pick it up" moves nothing
        moved = None
        for i, w in enumerate(free):
            if w in _MOVE_VERBS:
                rest = [x for x in free[i + 1 :] if x not in _SKIP]
                moved = _cube_at(rest[:1], vocab) or (prev if rest[:1] == ["it"] else None)
                if moved:
                    break
        lead = [
            w
            for w in words
            if w not in _SKIP | {"first", "then", "next", "lastly", "finally", "also"}
        ]
        if moved is None and lead and not (set(words) & _MOVE_VERBS) and _TARGET_PREP.search(part):
            moved = _cube_at(lead[:1], vocab)
        out.append(_Clause(part, cubes, places, moved))
        prev = cubes[-1] if cubes else (moved or prev)
    return out


_SENT_ONLY = re.compile(
    r"^(?:\w+ )*?\w+ ?: (?:first |then )?(?:the )?\w+(?: cube| block| one)? (?:to|onto|on)\b"
)
"""A cube sent to a place with its verb said once before a colon ("unstack the tower: green
to the left pad first"): moved by that clause, so a cube it covered is free after it."""


def _relation(
    text: str, clauses: list[_Clause], vocab: _Vocabulary, registry, world: World
) -> str | None:
    cube_target = [s.name for s in registry if _takes_cube_target(s, vocab)]
    if re.search(r"\b(?:stack|pile)\w*", text) and not cube_target:
        return _no_stack(registry)
    prev: str | None = None
    moved_before: set[str] = set()  # "unstack it: green to the left pad, then blue ..."
    # A clause that only says how ("could you, without lifting it,") qualifies the next
    # one; "don't lift it" alone speaks of the cube before it.
    manner = ""
    for clause in clauses:
        obj = clause.moved
        body = _NO_TOUCH.sub(" ", f"{manner} {clause.text}".strip())
        bare = obj is None and not clause.cubes and not clause.places
        fronted = re.search(r"\b(?:without|using|by|instead of|rather than)\b", clause.text)
        manner = clause.text if bare and fronted and _NO_GRASP.search(clause.text) else ""
        if obj is None and _SENT_ONLY.search(clause.text) and len(clause.cubes) == 1:
            moved_before.add(clause.cubes[0])  # "unstack it: green to the left pad first"
        if obj is not None:
            for rel in RELATIONS:
                if re.search(rf"\b{rel}\b", body):
                    return (
                        f"no skill places a cube {rel} another thing: skill targets are a "
                        "named pad or cube or a point"
                    )
            for m in _TARGET_PREP.finditer(body):
                first, second = m.group(1), m.group(2) or ""
                if first == "it":
                    target = prev if prev != obj else None
                else:
                    name = vocab.word_to_name.get(first)
                    target = name if name in vocab.objects else None
                    if target is not None and second in vocab.place_words:
                        target = None
                if target is None:
                    continue
                if target == obj:
                    return f"{obj} cannot be put on itself"
                stacking = stacking_after(obj, target, world, moved_before)
                if stacking:
                    return stacking
                params = {"object": obj, "target": target}
                takers = [s for s in registry if not s.validate(params)]
                if not takers:
                    return _no_stack(registry, obj, target)
                if _rules_out_grasping(body) and all("grasps" in s.permissions for s in takers):
                    return _no_push_to_cube(registry, obj, target, takers)
            # no skill takes a cube from under another, unless an earlier step took that off
            standing = {
                n: p for n, p in world.objects.items() if n == obj or n not in moved_before
            }
            if obj in world.objects and covered_error(obj, standing):
                return covered_error(obj, standing)
            moved_before.add(obj)
        prev = clause.cubes[-1] if clause.cubes else (obj or prev)
    return None


def _every_mover_ruled_out(forbid, require, moved: set[str], mentions: dict) -> str | None:
    """Why a cube the goal moves cannot be moved when its manners rule out both ways of
    moving it ("get the red cube onto the right pad, but don't pick it up and don't push
    it"): no lifting forbids the skills that grasp, no pushing those that do not, and a
    skill that moves a cube either grasps it or does not. Only for a cube one clause
    speaks of (in two clauses, each manner is its own clause's)."""
    for cube in sorted(moved):
        if mentions.get(cube) == 1 and ("grasps", cube) in forbid and ("grasps", cube) in require:
            return (
                f"the goal moves {cube} but rules out lifting it and pushing it: every skill "
                "that moves a cube either lifts it or pushes it"
            )
    return None


def _forbidden(clauses: list[_Clause], prohibitions) -> str | None:
    """Why a clause asks for what a goal-wide prohibition forbids: moving the cube,
    putting another cube on one it forbids to touch, or going to one it forbids to go
    near."""
    rules = {p.cube: p for p in prohibitions if p.scope == "goal"}
    for clause in clauses:
        rule = rules.get(clause.moved)
        if rule is not None:
            return (
                f"contradictory goal: it asks to move {rule.cube} and forbids it ({rule.phrase!r})"
            )
        for cube in clause.cubes:
            rule = rules.get(cube)
            if rule is not None and rule.what == "avoid":
                return (
                    f"contradictory goal: it asks to go to {cube} and forbids it ({rule.phrase!r})"
                )
            if clause.moved and rule is not None and rule.what == "touch":
                return (
                    f"the goal asks to put {clause.moved} on or against {cube} and forbids "
                    f"touching {cube} ({rule.phrase!r}): every plan for it is forbidden"
                )
    return None


def _constraints(clauses: list[_Clause], reading: GoalReading) -> str | None:
    prev: str | None = None
    moved: set[str] = set()
    kept: set[str] = set()
    visited: set[str] = set()
    manner_moved: set[str] = set()
    mentions: dict[str, int] = {}
    acting: dict[str, int] = {}  # the clauses that may act on each cube (not a hover)
    forbid: list[tuple[str, str]] = []
    require: list[tuple[str, str]] = []
    placing: list[tuple[str, str]] = []
    pending = ""
    for clause in clauses:
        text = (pending + " " + clause.text).strip()  # a manner-only clause qualifies the next
        pronoun = bool(re.search(r"\b(?:it|one)\b", clause.text))
        stripped = _NO_GRASP.sub(" ", text)
        no_grasp, grasp = stripped != text, bool(_GRASP.search(stripped))
        bare = not clause.cubes and clause.moved is None and not clause.places
        fronted = re.match(
            r"(?:without|using|by|with|instead of|rather than)\b", clause.text
        )  # qualifies the next
        if bare and fronted and (no_grasp or grasp) and clause is not clauses[-1]:
            pending = text  # "using a push, bring the blue cube ...": carry on
            continue
        pending = ""
        subject = clause.moved or (clause.cubes[0] if clause.cubes else None)
        if subject is None and pronoun and not clause.places:
            subject = prev
        for cube in {*clause.cubes, *([clause.moved] if clause.moved else [])}:
            mentions[cube] = mentions.get(cube, 0) + 1
        if not _VISIT.match(clause.text):  # a clause that may act on the cube with a skill
            for cube in {*clause.cubes, *([clause.moved] if clause.moved else [])}:
                acting[cube] = acting.get(cube, 0) + 1
        prev = clause.cubes[-1] if clause.cubes else (clause.moved or prev)
        if clause.moved:
            moved.add(clause.moved)
        visited |= set(clause.cubes) - {clause.moved}
        if subject is None:
            continue
        tap = bool(_TAP.search(text))
        no_touch, no_move = bool(_NO_TOUCH.search(text)), bool(_NO_MOVE.search(text))
        if no_move and clause.moved != subject and subject in moved and _KEPT_THERE.search(text):
            continue  # "..., and leave it there": where an earlier clause put it
        if no_grasp and grasp:
            return f"contradictory goal: it asks to lift {subject} and not to lift it"
        if (no_move or no_touch) and (clause.moved == subject or grasp):
            what = "touching" if no_touch else "moving"
            return f"contradictory goal: it asks to move {subject} without {what} it"
        if no_move:
            kept.add(subject)
        if no_grasp:
            forbid.append(("grasps", subject))
        elif grasp:
            require.append(("grasps", subject))
        elif clause.moved == subject and _PLACING.match(clause.text):
            placing.append(("grasps", subject))
        if (no_grasp or grasp) and clause.moved == subject:
            manner_moved.add(subject)
        if tap or no_touch or no_move:
            forbid.append(("contact", subject))
    both = sorted(kept & moved)
    if both:
        return f"contradictory goal: it asks to move {both[0]} and to leave it where it is"
    ruled_out = _every_mover_ruled_out(forbid, require, moved, mentions)
    if ruled_out:
        return ruled_out
    stated = {c for _, c in forbid + require}
    if any(_NO_GRASP.search(clause.text) for clause in clauses):
        placing = unpushed(placing, forbid)  # "move X to Y" lifts unless a push names X
    # a manner can be placed on its cube only when one clause speaks of that cube; "move X
    # to Y" also when the others only hover over it ("hover over the red cube, then move it
    # to the left pad") and none says how
    single = {c for c, n in mentions.items() if n == 1}
    reading.forbid = [(p, c) for p, c in forbid if c in single]
    reading.require = [(p, c) for p, c in require if c in single] + [
        (p, c) for p, c in placing if c in single or (acting.get(c) == 1 and c not in stated)
    ]
    reading.moved = (manner_moved - visited) & single
    return None
