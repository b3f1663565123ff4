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
:mod:`~miles_ros.agent.repertoire` and :mod:`~miles_ros.agent.turns`. This module is one
reading over the same clauses (:mod:`~miles_ros.agent.goal_clauses`): the refusals that
rest on one phrase (:mod:`~miles_ros.agent.goal_refusals`), then relations
(:mod:`~miles_ros.agent.goal_relations`) and manners (:mod:`~miles_ros.agent.goal_manners`),
filling one :class:`GoalReading`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from miles_ros.agent.goal_clauses import _MOVE_VERBS, _parse, _Vocabulary, split_clauses
from miles_ros.agent.goal_manners import _constraints, _forbidden
from miles_ros.agent.goal_refusals import (
    _arm_kept,
    _belonging,
    _by_distance,
    _height_above,
    _repeated,
    _table_spot,
    _unknown,
    _whole_tower,
)
from miles_ros.agent.goal_relations import _relation
from miles_ros.agent.grounding import Step, goal_points
from miles_ros.agent.places import point_out_of_reach, unknown_place
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.repertoire import verb_refusal
from miles_ros.agent.turns import missing_turn, turn_refusal, turning_clauses
from miles_ros.agent.vocabulary import COLOURS, PARAMLESS_WORDS
from miles_ros.agent.world import World

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
        or _height_above(text, world, registry)
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


def _asks_for(text: str, skill: str) -> bool:
    return any(re.search(rf"\b{w}", text) for w in PARAMLESS_WORDS.get(skill, (skill,)))
