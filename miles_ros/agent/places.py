"""Places a goal sends a cube or the gripper to that no skill can go to: a place phrase
whose head noun names nothing the scene or the skills know ("on the windowsill", "into the
recycling bin"), and a point said by coordinates outside every skill's envelope ("up to
0.5, 0.0, 0.6").

A place phrase is a placement preposition ("onto", "on", "on top of", "into", "to", "over
to", "across to", "towards") then a determiner and a noun phrase, up to the next
punctuation, conjunction or preposition. Its head noun is the phrase's last word. The rule
is general, not a list of furniture: the phrase names nothing when none of its words is a
scene name or colour, a cube or pad noun, a number, or an English word for a spot, a side
or a part of the table or the arm (:data:`PLACE_WORDS`: "left", "middle", "edge",
"position", "one", ...). Such a place is refused naming the noun: a skill's target is a
pad, a cube or a point of the scene.

A point is refused when every skill that takes a point as its target (reach, and, where
the goal names a cube, the cube movers with each scene cube) has it outside its card's
envelope: the planner
would otherwise choose a scene thing near it, which the goal did not ask for.
"""

from __future__ import annotations

import re

from miles_ros.agent.grounding import Step, envelope_violations
from miles_ros.agent.phrases import CUBE_NOUNS
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import World

PLACE_WORDS = frozenset(
    "left right middle center centre front back rear top bottom side sides edge edges corner "
    "corners end ends table tabletop surface desk spot spots place places position positions "
    "point points location locations area areas home start origin base robot gripper arm hand "
    "way one ones other others same first second third last next nearest closest farthest "
    "furthest leftmost rightmost stack stacks tower towers pile heap row line pair air height "
    "level count time while moment bit cubes blocks pads mats thing things object objects it "
    "them you me gap space spaces half quarter inside outside far near sec second minute "
    "moment pose poses posture configuration state".split()
)
"""English words for a spot, a side or a part of the table or the arm, and the words that
point back or count ("the same place", "the other one", "a bit", "the count of three"): a
place phrase made of one of them names something the reading resolves."""

_PREP = r"(?:onto|on\s+to|on\s+top\s+of|on|into|over\s+to|across\s+to|to|towards|toward)"
_DET = r"(?:the|my|your|his|her|our|their|that|this|a|an|some|[a-z]+'s)"
_STOP = (
    r"(?=\s*(?:[,;:.!?()\-\u2013\u2014]|$)|\s+(?:and|then|but|or|so|please|for|with|before|"
    r"after|once|when|while|if|without|instead|because|now|again|first|next|of|on|at|in|by|"
    r"from|near|to|onto|into|that|which|where|who|is|it|as|until|than|over|above|beside)\b)"
)
_PLACE_PHRASE = re.compile(rf"\b{_PREP}\s+{_DET}\s+(?P<np>[a-z][a-z'\s]*?){_STOP}", re.I)


def unknown_place(text: str, known: set[str]) -> str | None:
    """Why a place phrase of ``text`` names nothing (see the module), None when each names
    something; ``known``: the scene's words (names, colours, cube and pad nouns)."""
    for m in _PLACE_PHRASE.finditer(text):
        words = re.findall(r"[a-z]+", m["np"].lower())
        if not words or any(w in known or w in PLACE_WORDS for w in words):
            continue
        if any(w.endswith("most") for w in words):
            continue
        head = words[-1]
        return (
            f"the scene has no {head} ({m.group(0).strip()!r}): a target is a pad, a cube or "
            "a point of the scene"
        )
    return None


_CUBE_WORDS = frozenset(CUBE_NOUNS) | {f"{n}s" for n in CUBE_NOUNS} | {"it", "them", "one"}
_NUMBER = r"(-?\d*\.?\d+)"
_TRIPLE = re.compile(
    rf"(?<![\d.]){_NUMBER}\s*,\s*{_NUMBER}\s*,\s*{_NUMBER}(?!\d|\.\d)|"
    rf"\bx\s*=?\s*{_NUMBER}\s*,?\s*y\s*=?\s*{_NUMBER}\s*,?\s*z\s*=?\s*{_NUMBER}",
    re.I,
)
"""A point said as three numbers apart ("0.5, 0.0, 0.6", "x 0.2, y 0.5, z 0.3")."""


def said_points(goal: str) -> list[tuple[float, float, float]]:
    """The points ``goal`` says as three separate numbers (metres; a ``cm`` or ``mm`` after
    the triple divides), in order."""
    points = []
    for m in _TRIPLE.finditer(goal):
        values = [float(v) for v in m.groups() if v is not None]
        unit = goal[m.end() : m.end() + 6].lstrip(" )]").lower()
        scale = 0.01 if unit.startswith("cm") else 0.001 if unit.startswith("mm") else 1.0
        points.append(tuple(v * scale for v in values))
    return points  # type: ignore[return-value]


def point_out_of_reach(goal: str, registry: SkillRegistry, world: World) -> str | None:
    """Why a point the goal says cannot be a target: outside the envelope of every skill
    that takes a point (a cube mover, with each scene cube, only where the goal names a
    cube), None when one takes it."""
    words = set(re.findall(r"[a-z]+", goal.lower()))
    said = any(n.split("_")[0] in words for n in world.objects) or bool(words & _CUBE_WORDS)
    named = sorted(world.objects) if said else []  # a goal naming no cube moves none
    for point in said_points(goal):
        takers = 0
        why: list[str] = []
        for skill in registry:
            if "target" not in skill.param_names or skill.card.envelope is None:
                continue
            objects = named if "object" in skill.param_names else [None]
            for obj in objects:
                params = {"target": list(point)} | ({"object": obj} if obj else {})
                if any(p not in params for p in skill.param_names):
                    continue
                takers += 1
                try:
                    broken = envelope_violations(skill, params, world)
                except Exception:  # a call the card cannot resolve takes no point
                    broken = ["its goal cannot be resolved"]
                if not broken:
                    break
                why.append(f"{Step(skill.name, params).key()}: {broken[0]}")
            else:
                continue
            break
        else:
            if takers:
                return (
                    f"the point {point} is outside every skill's envelope ({why[0]}): no "
                    "skill reaches it, and no scene thing was asked for"
                )
    return None
