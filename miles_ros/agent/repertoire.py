"""The robot's verb repertoire: a goal whose action verb no skill does is refused.

A verb maps to a skill when the skill's card uses it (its description's verbs: "Pushes
a cube ... Use it to slide, shove or nudge a cube") or the training generator words the
skill with it (:func:`miles_ros.agent.phrases.skill_verbs`, the one list of phrases per
skill). :data:`ACTIONS` is English vocabulary, like the reading's colour words: actions a
person asks of an arm at a table, each with the permission it would need (``grasps``:
done with the cube in the hand; ``contact``: done to its surface; ``moves_arm``: done
from a distance). :func:`verb_refusal` refuses a clause whose imperative verb is one of
them and not in the repertoire (so a future skill whose card says "rotate" makes "rotate
the red cube" plannable), naming the verb, what the robot can do, and the closest skill:
one with the permission the action needs and the fewest others (``grasps``: pick_place,
``contact``: push, ``moves_arm``: reach, in the default registry). A verb outside both
lists is refused the same way when its clause acts on a cube and says nowhere for it to go
(:func:`unknown_verb`: "squash the blue cube flat"); else it is left to the model and the
reading (its unknown objects, relations and contradictions). A cube handed to a person
("give the red cube to me", "pass me the blue cube") is refused the same way: no skill's
target is a person.
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS, skill_verbs
from miles_ros.agent.registry import Skill, SkillRegistry
from miles_ros.agent.reviewed import TOGETHER
from miles_ros.agent.vocabulary import DISTANCE
from miles_ros.agent.wording_typos import one_slip

_HELD = (
    "hand throw toss fling hurl lob shake rotate turn spin twist flip tilt wave swing "
    "pour squeeze wiggle jiggle balance bounce weigh hide conceal bury"
)
_SURFACE = (
    "paint colour color weld glue tape nail screw solder wipe clean wash polish scrub rub "
    "dust roll knock hit strike kick punch smash crush break cut slice chop saw drill scratch "
    "draw write sign stamp engrave heat melt cook freeze fold open close lock unlock topple "
    "tip spray stir sharpen bend crumple sand wrap staple"
)
_AFAR = "inspect photograph scan film measure read smell sniff examine"
ACTIONS: dict[str, str] = {
    **{verb: "moves_arm" for verb in _AFAR.split()},
    **{verb: "contact" for verb in _SURFACE.split()},
    **{verb: "grasps" for verb in _HELD.split()},
}
"""English action verbs and the permission each would need."""

_LEAD = re.compile(
    r"^(?:(?:please|kindly|now|then|first|next|finally|lastly|also|and|just|ok|okay|hey|"
    r"robot|could you|can you|would you|will you|i'?d like you to|i want you to|"
    r"i need you to|go ahead and|let'?s|try to|your task:?)[,: ]+)*"
)


def repertoire(registry: SkillRegistry) -> dict[str, frozenset[str]]:
    """Per registered skill, the verbs it does: its card's description verbs and the
    training generator's verbs for it."""
    generated = skill_verbs()
    return {
        skill.name: frozenset(_card_verbs(skill)) | generated.get(skill.name, frozenset())
        for skill in registry
    }


def _card_verbs(skill: Skill) -> set[str]:
    """The verbs of a card's description: its first word ("Pushes" -> push) and the list
    after "Use it to" ("approach, hover above or point at")."""
    text = skill.description.lower()
    verbs = {_base(w) for w in re.findall(r"^([a-z]+)", text)}
    for listed in re.findall(r"use it to ([^.;]*)", text):
        for part in re.split(r",|\bor\b|\band\b", listed):
            words = re.findall(r"[a-z]+", part)
            if words and words[0] == "to":  # "... or to square a face"
                words = words[1:]
            if words and words[0] not in _NOT_VERBS:
                verbs.add(_base(words[0]))
    return verbs


_NOT_VERBS = frozenset(
    {"a", "an", "the", "e", "g", "it", "its", "not", "then", "by", "from", "for", "in", "on"}
    | {"onto", "into", "at", "with", "without", "next", "over", "under", "to"}
)
"""Words that open a part of a card's "Use it to" list without naming an action (a
prepositional phrase, "e.g."): never taken as the skill's verb."""


def _base(word: str) -> str:
    """``pushes`` -> ``push``, ``moves`` -> ``move``, ``picks`` -> ``pick``."""
    for suffix in ("shes", "ches", "sses", "xes"):
        if word.endswith(suffix):
            return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


_LIGHT_VERB = re.compile(
    r"^(?:take|make|shoot|grab|get|snap)\s+(?:a|an|some|one|another)\s+(?:quick\s+|short\s+|"
    r"close\s+|little\s+)?(?P<noun>photo|photograph|picture|pic|snapshot|snap|shot|video|"
    r"film|recording|scan|measurement)s?\s+(?:of|from)\b"
)
"""An action said as "take a photo of X": the verb is the noun's ("photograph"), not "take"
(a pick)."""
_NOUN_VERB = {
    **dict.fromkeys(
        ("photo", "photograph", "picture", "pic", "snapshot", "snap", "shot"), "photograph"
    ),
    **dict.fromkeys(("video", "film", "recording"), "film"),
    "scan": "scan",
    "measurement": "measure",
}
"""The verb of each noun :data:`_LIGHT_VERB` reads (each in :data:`ACTIONS`)."""


def _light_verb(text: str) -> str:
    """``text`` with "take a photo of" said as its verb ("photograph ...")."""
    m = _LIGHT_VERB.match(text)
    return _NOUN_VERB[m["noun"]] + text[m.end() :] if m else text


_TO_PERSON = re.compile(
    r"\b(?:to|into the hands? of)\s+(?:me|us|him|her|them|my hand|the (?:person|operator|"
    r"user|human))\b|^(?:give|pass|bring|hand|toss|throw|fetch|get)\s+(?:me|us|him|her|them)\b|"
    r"\b(?:in|into|on|onto)\s+(?:my|our|his|her|their|your)\s+(?:hands?|palms?|laps?)\b|"
    r"^(?:fetch|bring|get)\b(?:(?!\b(?:on|onto|to|into|in|at|over|next to)\b).)*\bfor (?:me|us)\b"
)
"""A person as the receiver ("... to me", "give me ..."): no skill's target is a person.
"Get the red cube onto a pad for me" says a place: "for me" is whom it is done for."""
_CUBE = re.compile(rf"\b(?:{'|'.join(CUBE_NOUNS)})s?\b")
_ON_EDGE = re.compile(
    r"\b(?:on(?:to)?|upon)\s+(?:(?:just|only)\s+)?(?:a|an|one|its|one of its|their|a single)\s+"
    r"(?:corners?|edges?|points?|"
    r"tips?|vertex|vertices)\b(?!\s+of\b)|\bstand(?:s|ing)?\b[^.;]*?\b(?:upright|on end)\b|"
    r"\bstand (?:it|the (?:[a-z]+ )?[a-z]+) up\b"
)
"""A cube stood on an edge or a corner, or upright ("balance it on one of its corners",
"stand the red cube up"): every skill leaves a cube lying on a face."""
_AT_ONCE = re.compile(rf"\b(?:all|both|every|the\s+(?:two|three))\b[^.;]*?\b{TOGETHER}\b")
"""Cubes moved all at the same time ("move the cubes all at once", said so by
:func:`~miles_ros.agent.reviewed.at_once`): the arm carries or pushes one cube at a time, so
no plan does it."""


_BY_DOING = re.compile(r"\bby\s+([a-z]+?)(?:([b-df-hj-np-tv-z])\2)?ing\b")
"""A means said as a gerund ("find out what it weighs by weighing it"): its verb is the act."""


def by_doing(text: str) -> str | None:
    """The verb of :data:`ACTIONS` a clause names as its means ("by weighing it": "weigh",
    "by measuring it": "measure", "by scanning it": "scan"), or None: the clause's own verb
    ("find out", "check", "see") asks for nothing the arm does, the means is the action."""
    for m in _BY_DOING.finditer(text):
        stem = m[1] + (m[2] or "")
        for verb in (stem, stem + "e", m[1] + (m[2] or "") * 2):
            if verb in ACTIONS:
                return verb
    return None


_WITH_MATERIAL = re.compile(
    r"\b(?:with|using)\s+(?:some\s+)?(?:(?:super|wood|hot)[- ]?(?P<glue>glue)|(?P<glue2>glue)|"
    r"(?:duct\s+|sticky\s+)?(?P<tape>tape)|(?P<nail>nail)s|(?P<screw>screw)s|(?P<solder>solder)|"
    r"(?:a\s+)?(?P<weld>weld))\b"
)
"""A means said as the stuff it uses ("stick red and blue together with superglue", "fix them
with tape"): its verb of :data:`ACTIONS` is the act ("glue", "tape")."""


def with_material(text: str) -> str | None:
    """The verb of :data:`ACTIONS` a clause's means names by its material ("with superglue":
    "glue"; "with duct tape": "tape"; "with nails": "nail"), or None."""
    m = _WITH_MATERIAL.search(text)
    if m is None:
        return None
    return next(("glue" if k == "glue2" else k) for k, v in m.groupdict().items() if v)


def verb_refusal(clauses: list[str], registry: SkillRegistry) -> str | None:
    """Why a goal (its clauses, lower case) asks for an action no skill does, or None: an
    imperative of :data:`ACTIONS` outside the repertoire, or a cube handed to a person."""
    known = repertoire(registry)
    done = set().union(*known.values()) if known else set()
    for clause in clauses:
        text = _light_verb(_LEAD.sub("", clause.strip()))
        words = text.split()
        verb = words[0].strip(",.:;") if words else ""
        if verb not in done | _GOING | _ATTENDING:  # "superglue green onto blue": glue
            verb = _PREFIXED.sub(r"\1", verb)  # ("return home" is home's, never "turn")
        verb = verb if verb in ACTIONS else by_doing(text) or with_material(text) or verb
        if verb in ACTIONS and verb not in done:
            what, permission = f"no skill can {verb}", ACTIONS[verb]
        elif _ON_EDGE.search(text) and _CUBE.search(text):
            what, permission = "no skill stands a cube on an edge or a corner", "grasps"
        elif _AT_ONCE.search(text):
            what, permission = "no skill moves more than one cube at a time", "grasps"
        elif _TO_PERSON.search(text) and _CUBE.search(text):
            what, permission = "no skill hands a cube to a person", "grasps"
        elif unknown_verb(text, done):
            what, permission = f"no skill can {unknown_verb(text, done)} a cube", "contact"
        else:
            continue
        can = ", ".join(f"{s.name} ({_summary(s)})" for s in registry)
        close = closest_skill(permission, registry, takes_object=bool(_CUBE.search(clause)))
        nearest = f"; the closest is {close.name}" if close else ""
        return f"{what}: the robot can {can}{nearest}"
    return None


_PART_OF = r"(?:the |its |a |an )?(?:edges?|corners?|sides?|faces?|top|bottom|surface) of "
_DONE_TO_CUBE = re.compile(
    rf"^(?P<verb>[a-z]+)(?: (?:up|down|over|off|out|around|about|away))? (?:{_PART_OF})?"
    rf"(?:(?:the|a|an|this|that|your|my) (?:[a-z]+ )?(?:{'|'.join(CUBE_NOUNS)})s?\b|the "
    r"(?:other|remaining) (?:two|three|ones?)\b|the (?:others|rest)\b|both of them\b|all of "
    r"them\b|them\b)(?P<rest>.*)$"
)
"""An imperative whose object is a cube: said by a cube noun, by a part of one ("sand down
the edges of the red cube"), or by the words that stand for cubes named before ("the other
two", "the rest", "them")."""
_SOMEWHERE = re.compile(
    r"\b(?:to|onto|on|into|in|over|above|at|toward|towards|next|beside|near|behind|front|left|"
    r"right|between|under|below|off|from|by|deg|degrees?|clockwise|counterclockwise|"
    r"anticlockwise|face|faces|facing|home)\b|°|\d"
)
_ATTENDING = frozenset(
    "find see look locate spot watch notice check consider select choose mind leave ignore "
    "use both all each every only not except".split()
)
"""Words that open a clause about a cube without asking the arm to act on it ("find the
blue block and hover above it", "see the cube closest to you?") or that are no verb
("both the red and the green cube ..."): never read as an action."""
_GOING = frozenset(
    "visit touch tour indicate highlight target mark select aim grip clasp clutch seize "
    "snatch grab fetch collect retrieve remove release lower raise hoist elevate straighten "
    "align center centre orient square ferry shuttle cart haul lug tote transport convey "
    "relocate deliver".split()
)
"""English verbs near a skill's own ones, whose object is where the arm goes or what it
holds, lifts, carries or squares ("visit the red cube", "grip the blue cube", "ferry the red
cube across and set it on P", "straighten the green cube"): left to the model and the reading
(a grasp with nowhere to go is asked about), never refused as an action no skill does."""


def unknown_verb(clause: str, known: set[str]) -> str | None:
    """The verb of an imperative clause that acts on a cube and says no place, point, angle,
    distance or pose for it ("squash the blue cube flat"), when neither a skill's card nor the
    training phrases use it: no skill does it (a skill's every call on a cube takes a
    target, an angle or a pose, and the verb says none). A clause that says where the cube
    goes ("relocate the red cube to the left pad") is left to the model and the reading."""
    match = _DONE_TO_CUBE.match(clause.strip())
    if match is None:
        return None
    verb = match.group("verb")
    said = verb in known | _ATTENDING | _GOING | ACTIONS.keys() or _SOMEWHERE.fullmatch(verb)
    slip = any(one_slip(verb, w) and w[0] == verb[0] for w in known)
    rest = _NOT_A_PLACE.sub("", match.group("rest"))
    if said or slip or _SOMEWHERE.search(rest) or re.search(DISTANCE, rest):
        return None  # a typo of a known verb ("hovr", not "lick": a slip keeps the first letter)
    return verb


_NOT_A_PLACE = re.compile(
    r"\b(?:in|into) (?!(?:the|a|an|its|their|front|place|position|line|between|middle|"
    r"centre|center|order|turn|sequence|row|stack|tower|pile)\b)[a-z]+"
)
""""in / into" before a bare noun that says no place: what the cube is put in or made into
("wrap the blue cube in tape", "split the red box in half", "crack it into halves"), not
where it goes ("into the left pad", "in front of the red cube", "in line")."""
_PREFIXED = re.compile(rf"^(?:super|re|over|hot|spot)({'|'.join(sorted(ACTIONS))})$")
"""A verb made of a prefix and an action of :data:`ACTIONS` ("superglue", "repaint",
"hotglue"): that action, unless a skill or the reading knows the verb itself ("return")."""


def closest_skill(permission: str, registry: SkillRegistry, takes_object: bool) -> Skill | None:
    """The skill with ``permission`` and the fewest other permissions; among equals, one
    that takes an ``object`` when the clause names a cube (else one with a parameter)."""

    def rank(skill: Skill) -> tuple:
        fits = "object" in skill.param_names if takes_object else bool(skill.param_names)
        return (permission not in skill.permissions, len(skill.permissions), not fits)

    skills = sorted(registry, key=rank)
    return skills[0] if skills else None


def _summary(skill: Skill) -> str:
    """The first phrase of the card's description, in lower case ("picks a cube up with
    the gripper and places it")."""
    first = re.split(r"\.\s|[,;(]| within | until ", skill.description, maxsplit=1)[0]
    first = first.strip().rstrip(".")
    return first[:1].lower() + first[1:]
