"""The net under the reading: two lexical checks that do not depend on the reading having
parsed the phrase (:func:`miles_ros.agent.negation.read_in_scope`), run by the planner
after it.

- :func:`unread_manner`: a way of moving a skill does (the push verbs and the lift verbs
  of :mod:`miles_ros.agent.goal_manners`) under a negation cue that governs it ("no
  pushing today", "hold off on lifting anything", "lifting is not allowed"), whose object
  is nothing, a pronoun or the goal's one cube. When the reading took no constraint of
  that way, the skills the cards word with that verb (:func:`~miles_ros.agent.repertoire.
  repertoire`; a lift verb no card uses: the skills that grasp) are forbidden as the
  reading's prohibitions are (:data:`~miles_ros.agent.prohibitions.SKILL`): masked, and a
  plan holding one is refused naming the words. "Don't push the red one" (a cube) is left
  to :func:`~miles_ros.agent.scope.read_scope`.
- :func:`unread_verb`: a sentence whose main verb, said in a frame the reading's clause
  parse does not open with ("I'd like the red cube weighed", "give the blue cube a quick
  clean", "the green cube needs measuring"), is an action of
  :data:`~miles_ros.agent.repertoire.ACTIONS` no skill does: refused by
  :func:`~miles_ros.agent.repertoire.verb_refusal` (the same list and the same reason,
  naming the closest skill).
"""

from __future__ import annotations

import re
from dataclasses import replace

from miles_ros.agent.goal_manners import _LIFTS, _PUSHES
from miles_ros.agent.phrases import COLOR_WORDS
from miles_ros.agent.prohibitions import SKILL, Prohibition
from miles_ros.agent.reading import GoalReading
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.repertoire import _LEAD, ACTIONS, repertoire, verb_refusal

_CUE = (
    r"(?:\bno(?: more| need to| need for)?|\bnot|n't|\bdo not|\bnever|\bwithout|\bavoid|"
    r"\binstead of|\brather than|(?<!n't )(?<!not )(?<!never )(?<!n't ever )\b(?:stop|quit)|"
    r"\bhold off(?: on)?|\bno longer|\brefrain from)"
)
"""The words that rule out the way of moving they govern ("stop" and "quit" negated are not:
"don't stop pushing" asks the push)."""
_BETWEEN = (
    r"(?:\s+(?:any|more|once|ever|even|just|by|to|at all|further|you|anything by|a|an|single))*"
)
"""Words a cue may stand apart from its verb by ("without once lifting", "no more"), an article
included: a way ruled out as a noun ("without a lift", "not a single shove")."""
_WAY = rf"(?P<way>(?:{_LIFTS}|{_PUSHES})[a-z]*)"
_NEGATED = re.compile(rf"{_CUE}{_BETWEEN}\s+{_WAY}\b(?P<rest>[^.;,!?]*)")
"""A cue, then the verb it governs (no punctuation between)."""
_AFTER = re.compile(
    rf"\b{_WAY}(?:\s+(?:things|stuff|cubes|blocks|anything))?\s+(?:is|are)\s+"
    r"(?:not allowed|not permitted|forbidden|banned|off limits|off the table|out)\b"
    r"(?P<rest>)"
)
"""The verb said first, the prohibition after it ("lifting is not allowed", "pushing is off
the table today")."""
_OBJECT = re.compile(
    r"^\s*(?:up\s+)?(?P<det>the|a|an|this|that|these|those|one|any of)\b\s*(?P<np>[^.;,!?]*)"
)
_PLACED = re.compile(r"\b(?:to|onto|into|on|over|across|toward|towards|next to|beside)\b")
"""A place after the object: the negation rules out a placing, not the way (scope's)."""
_COLOURS = re.compile(rf"\b(?:{'|'.join(sorted(COLOR_WORDS, key=len, reverse=True))})\b")


def unread_manner(
    goal: str, reading: GoalReading, registry: SkillRegistry
) -> tuple[Prohibition, ...]:
    """The skill prohibitions the goal's negated ways of moving say and the reading did not
    take (see the module docstring); () when there are none."""
    text = " ".join(goal.lower().replace("\u2019", "'").replace("-", " ").split())
    colours = set(_COLOURS.findall(text))
    found: dict[str, str] = {}
    for match in [*_NEGATED.finditer(text), *_AFTER.finditer(text)]:
        obj = _OBJECT.match(match["rest"])
        if obj is not None:  # an object: a cube the goal names alone, else a cube's prohibition
            said = set(_COLOURS.findall(obj["np"]))
            if obj["det"] != "any of" and not (said and said == colours and len(colours) == 1):
                continue
            if _PLACED.search(obj["np"]):  # "don't push the red cube onto P": a placing's
                continue
        said = (
            match.group(0)
            if match.re is _AFTER
            else match.group(0)[: match.end("way") - match.start()]
        )
        phrase = " ".join(said.split())
        for skill in _skills(match["way"], registry):
            found.setdefault(skill, phrase)
    taken_lift = any(p == "grasps" for p, _ in reading.forbid)
    taken_push = any(p == "grasps" for p, _ in reading.require)
    taken = {p.cube for p in reading.prohibitions if p.what == SKILL}
    out = []
    for skill, phrase in found.items():
        grasps = "grasps" in registry[skill].permissions
        if skill in taken or (taken_lift if grasps else taken_push):
            continue
        out.append(Prohibition(skill, SKILL, phrase))
    return tuple(out)


def _skills(word: str, registry: SkillRegistry) -> list[str]:
    """The skills a way-of-moving verb names: those whose cards or phrases use a verb of its
    stem; a lift verb no card uses names the skills that grasp."""
    stem = re.match(rf"{_LIFTS}|{_PUSHES}", word)[0]
    verbs = repertoire(registry)
    named = [s for s, said in verbs.items() if any(v.startswith(stem) for v in said)]
    if not named and re.fullmatch(_LIFTS, stem):
        named = [s.name for s in registry if "grasps" in s.permissions]
    return named


_PARTICIPLE = re.compile(
    r"^(?:i'?d like|i would like|i want|i need|i'?d love|get|have)\s+(?P<np>(?:the|this|that|"
    r"it|them|my|your|all|every|each|both)\b[^.;,!?]*?)\s+(?P<verb>[a-z]+?)(?:ed|d)"
    r"(?=\s*(?:$|,|please|for me|now|today|first|too|as well))"
)
"""A thing to be done said by its participle ("I'd like the red cube weighed")."""
_GIVE_A = re.compile(
    r"^give\s+(?P<np>it|them|(?:the|this|that|each|every|all|both)\b[^.;,!?]*?)\s+(?:a|an|"
    r"some)\s+(?:(?:quick|good|little|light|thorough|gentle|proper)\s+)?(?P<verb>[a-z]+)\b"
)
"""An action said as a noun after "give X a" ("give the blue cube a quick clean")."""
_NEEDS = re.compile(
    r"^(?P<np>(?:the|this|that|it|each|every|all|both)\b[^.;,!?]*?)\s+(?:needs?|wants?)\s+"
    r"(?P<verb>[a-z]+?)ing\b"
)
"""An action said as what a thing needs ("the green cube needs measuring")."""


def _action(stem: str, done: set[str], exact: bool = False) -> str | None:
    """The action of :data:`ACTIONS` a stem says ("weigh", "measur" -> "measure"), or None:
    none, or a verb a skill does comes first ("tap", not "tape")."""
    undoubled = stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else ""
    for verb in (stem,) if exact else (stem, stem + "e", undoubled):
        if verb in done:
            return None
        if verb in ACTIONS:
            return verb
    return None


def unread_verb(goal: str, registry: SkillRegistry) -> str | None:
    """Why a sentence of the goal whose main verb is said in a frame the clause parse does
    not open with asks for an action no skill does (see the module docstring), or None."""
    text = " ".join(goal.lower().replace("\u2019", "'").replace("-", " ").split())
    done = set().union(*repertoire(registry).values())
    for sentence in re.split(r"[.;!?]+", text):
        said = _LEAD.sub("", sentence.strip())
        for frame in (_PARTICIPLE, _GIVE_A, _NEEDS):
            match = frame.match(said)
            verb = match and _action(match["verb"], done, exact=frame is _GIVE_A)
            if verb:
                why = verb_refusal([f"{verb} {match['np']}"], registry)
                if why:
                    return why
    return None


_APART = re.compile(r"((?<=[.;!?])\s+|\s+[-\u2013]\s+|;\s*|,\s+(?:(?:and|so|but|then)\s+)?)")
"""Where a goal's sentences and clauses part (the separator kept)."""


def aside(text: str, extra: tuple[Prohibition, ...]) -> str:
    """``text`` without the sentences or clauses that only say a prohibition the net found
    ("Hold off on any shoving. Move the red cube ..." -> "Move the red cube ..."): the model
    plans the positive part, as :func:`~miles_ros.agent.scope.read_scope` has it. A clause
    naming a cube stays."""
    parts = _APART.split(text)
    kept: list[str] = []
    for i in range(0, len(parts), 2):
        said = " ".join(parts[i].lower().replace("\u2019", "'").replace("-", " ").split())
        sep = parts[i + 1] if i + 1 < len(parts) else ""
        alone = not _COLOURS.search(said) and not re.search(r"\b(?:cube|block|box|brick)\b", said)
        if alone and any(p.phrase in said for p in extra):
            continue
        kept += [parts[i], sep]
    out = "".join(kept).strip(" ,;-")
    return out[:1].upper() + out[1:] if re.search(r"[a-z]", out, re.I) else text


def cast(
    goal: str, text: str, reading: GoalReading, registry: SkillRegistry
) -> tuple[str, GoalReading]:
    """The text the model plans and the reading, with the net's findings: a refusal for an
    action no skill does, or the manner prohibitions it did not take (their clauses taken
    out of ``text``, :func:`aside`); both as given when the net finds nothing or the
    reading already refuses or asks for no motion. ``goal``: as said; ``text``: as read."""
    if reading.refusal or reading.nothing:
        return text, reading
    why = unread_verb(goal, registry)
    if why:
        return text, replace(reading, refusal=why)
    extra = unread_manner(goal, reading, registry)
    if not extra:
        return text, reading
    require = reading.require
    if any("grasps" in registry[p.cube].permissions for p in extra):
        require = [r for r in require if r[0] != "grasps"]  # "move X to Y" lifts by default
    return aside(text, extra), replace(
        reading, prohibitions=reading.prohibitions + extra, require=require
    )
