"""Placements beside a thing: "put the red cube next to the blue cube", "slide the green
cube beside the left pad", "set the blue cube down to the left of the red cube".

No skill takes "next to" as a target, but pick_place and push take table points:
:func:`place_beside` says each such placement as a move to one point on the table at a
side of the reference, "put the red cube at (0.4, 0.06, 0.02)" (a push verb: "push ... to
(...)"), the words the model was trained on. The point lies along one side of the
reference, seen from the robot (left +y, right -y, in front -x, behind +x), at a clearance
from its centre: the reference's half size that way + the cube's half size + the skill's
placement tolerance (its card's ``success_threshold_m``), so the cube set down within that
tolerance neither lands on the reference nor pushes it. "to the left / right of", "in
front of" and "behind" name the side; "next to", "beside" and "near" take the free side
(no other cube within a cube's size plus the tolerance of the point) whose call is inside
the skill's envelope, the nearest to the cube moved (the shortest carry; a push from the
side it comes from). A placement no side allows is refused with each side's reason, and
so is one beside the robot or beside the cube itself.

Read after the referring phrases are named ("put the leftmost cube next to the rightmost
cube") and the pronouns said ("pick up the red cube and put it next to the green cube").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from miles_ros.agent.cube_words import CubePhrases, imperative
from miles_ros.agent.grounding import Step, outside_envelope
from miles_ros.agent.phrases import skill_verbs
from miles_ros.agent.pointing import PUSH_VERBS, acted_on, moved_to
from miles_ros.agent.reference_scene import place_named, spoken
from miles_ros.agent.registry import Skill, SkillRegistry
from miles_ros.agent.world import World, in_workspace

SIDES = {
    "left": (0.0, 1.0),
    "right": (0.0, -1.0),
    "in front of": (-1.0, 0.0),
    "behind": (1.0, 0.0),
}
"""The sides of a thing a cube is put beside, seen from the robot (unit xy in the base
frame); the order breaks a tie between two sides equally near the cube moved."""

_ROBOT = r"(?:the\s+)?(?:robot|arm|base)|you|yourself|me"
_RELATION = (
    r"(?:(?:right|just|directly|immediately)\s+)?"
    r"(?P<rel>next\s+to|beside|near(?:\s+to)?|close\s+to|alongside|"
    r"(?:to|by|at|on)\s+the\s+side\s+of|"
    r"(?:to\s+the\s+|on\s+the\s+)?(?P<side>left|right)(?:[-\s]hand)?(?:\s+side)?\s+of|"
    r"in\s+front\s+of|behind)"
)


@dataclass(frozen=True)
class Placement:
    """The goal with each placement beside a thing said as a move to a table point, or the
    refusal."""

    text: str
    refusal: str | None = None


def place_beside(goal: str, registry: SkillRegistry, world: World) -> Placement:
    """``goal`` with "VERB the X cube (down) next to / beside / near / left of / in front
    of ... the Y" (and "pick up X and put it next to Y") said as a move of X to the point
    beside Y (see the module); unchanged where it says none."""
    if not world.objects:
        return Placement(goal)
    cubes = CubePhrases(world)
    pattern = re.compile(
        r"(?:\b(?:pick|grab|take|lift|grasp)(?:\s+up)?\s+(?P<held>"
        + cubes.one
        + r")(?:\s+up)?\s*,?\s+and\s+(?:then\s+)?)?"
        + r"\b(?P<verb>[a-z]+)\s+(?:down\s+)?(?P<what>it|"
        + cubes.one
        + r")(?:\s+(?:down|over))?\s+"
        + _RELATION
        + r"\s+(?P<ref>"
        + _ROBOT
        + r"|the\s+[a-z_]+(?:\s+[a-z_]+)?)\b",
        re.I,
    )
    refusals: list[str] = []

    def said(match: re.Match) -> str:
        if refusals:
            return match.group(0)
        verb = imperative(match["verb"]).lower()
        skill = _moving_skill("push" if verb in PUSH_VERBS else "put", registry)
        if skill is None or verb not in set().union(*skill_verbs().values()):
            return match.group(0)
        if match["what"].lower() == "it":
            held = match["held"]
            cube = cubes.name(held) if held else acted_on(match.string[: match.start()], cubes)
        else:
            cube = cubes.name(match["what"])
        if cube is None:
            return match.group(0)
        side = _side(match)
        ref = match["ref"]
        if re.fullmatch(_ROBOT, ref, re.I):
            refusals.append(
                f"no skill puts a cube {_relation_said(match)} the robot: "
                f"{skill.name} sets a cube down on the table, inside its envelope"
            )
            return match.group(0)
        reference = _reference(ref, cubes, world)
        if reference is None:
            return match.group(0)  # the goal's reading refuses what the scene lacks
        if reference == cube:
            refusals.append(f"the {spoken(cube)} cannot be put {_relation_said(match)} itself")
            return match.group(0)
        now = _as_left_by(match.string[: match.start()], cubes, world)
        point, why = beside_point(cube, reference, side, skill, registry, now)
        if point is None:
            refusals.append(why)
            return match.group(0)
        return moved_to(verb, cube, point)

    text = pattern.sub(said, goal)
    if refusals:
        return Placement(goal, refusals[0])
    return Placement(text)


def _as_left_by(before: str, cubes: CubePhrases, world: World) -> World:
    """``world`` with each cube an earlier clause puts on a pad or a cube there ("put the
    green cube on the left pad, then put the red cube next to it": beside the green cube
    where it will be, not where it stands now)."""
    places = "|".join(re.escape(spoken(p)) for p in world.places)
    moved = re.finditer(
        rf"(?P<cube>{cubes.one})\s+(?:down\s+)?(?:on top of|onto|on|to|over to)\s+(?:the\s+)?"
        rf"(?P<place>{places}|{cubes.one})\b",
        before,
        re.I,
    )
    now = world
    for match in moved:
        cube = cubes.name(match["cube"])
        said = match["place"].lower()
        where = next((p for p in world.places if spoken(p) == said), None) or cubes.name(said)
        if cube is None or where is None or where == cube:
            continue
        if now is world:
            now = world.copy()
        x, y, z = now.position_of(where)
        on_cube = where in now.objects
        now.objects[cube] = (x, y, z + now.cube_size if on_cube else now.cube_size / 2.0)
    return now


def beside_point(
    cube: str,
    reference: str,
    side: str | None,
    skill: Skill,
    registry: SkillRegistry,
    world: World,
) -> tuple[tuple[float, float, float] | None, str]:
    """The table point ``skill`` puts ``cube`` at beside ``reference`` (a cube or a place)
    on ``side`` (a key of :data:`SIDES`; None: the free side nearest the cube), and ""; or
    None and why no side will do."""
    tolerance = float(skill.card.success_threshold_m or 0.0)
    half_cube = world.cube_size / 2.0
    rx, ry = world.position_of(reference)[:2]
    half_x, half_y = _half_extent(reference, world)
    cx, cy = world.objects[cube][:2]
    sides = [side] if side else list(SIDES)
    found: list[tuple[float, int, tuple[float, float, float]]] = []
    reasons: list[str] = []
    for order, name in enumerate(sides):
        ux, uy = SIDES[name]
        clearance = abs(ux) * half_x + abs(uy) * half_y + half_cube + tolerance
        point = (round(rx + ux * clearance, 3), round(ry + uy * clearance, 3), half_cube)
        why = _blocked(point, cube, reference, world, world.cube_size + tolerance)
        if why is None and not in_workspace(point):
            why = "off the robot's workspace"
        if why is None:
            step = Step(skill.name, {"object": cube, "target": list(point)})
            outside = outside_envelope(step, registry, world)
            why = outside.split(": ", 1)[-1] if outside else None
            if outside:
                why = f"outside {skill.name}'s envelope ({why})"
        if why is None:
            found.append((math.hypot(point[0] - cx, point[1] - cy), order, point))
        else:
            reasons.append(f"{_side_said(name)}: {why}")
    if found:
        return min(found)[2], ""
    where = _side_said(side) if side else "no side"
    return None, (
        f"{where} of the {spoken(reference)} can take the {spoken(cube)} ({', '.join(reasons)})"
        if side is None
        else f"the {spoken(cube)} cannot be put {where} the {spoken(reference)}: "
        + reasons[0].split(": ", 1)[1]
    )


def _blocked(point, cube: str, reference: str, world: World, room: float) -> str | None:
    """The other cube standing within ``room`` (m, xy) of ``point``, said; None: free."""
    for name, position in world.objects.items():
        if name in (cube, reference):
            continue
        if math.hypot(position[0] - point[0], position[1] - point[1]) < room:
            return f"the {spoken(name)} is there"
    return None


def _half_extent(name: str, world: World) -> tuple[float, float]:
    """Half the footprint (x, y, m) of a cube or a place (a place of unknown size: a
    cube's)."""
    if name in world.objects:
        return world.cube_size / 2.0, world.cube_size / 2.0
    size = world.place_sizes.get(name, (world.cube_size, world.cube_size))
    return size[0] / 2.0, size[1] / 2.0


def _reference(phrase: str, cubes: CubePhrases, world: World) -> str | None:
    """The cube or place a phrase ("the blue cube", "the left pad") names."""
    words = re.sub(r"^the\s+", "", phrase.strip(), flags=re.I).lower()
    cube = cubes.name(words)
    if cube is not None:
        return cube
    return place_named(words, world)


def _moving_skill(verb: str, registry: SkillRegistry) -> Skill | None:
    """The registered skill ``verb`` says that moves a cube to a table point: a cube
    ``object`` and a ``target`` that takes a point."""
    verbs = skill_verbs()
    for skill in registry:
        if verb not in verbs.get(skill.name, ()):
            continue
        properties = skill.parameters.get("properties", {})
        if "object" not in properties or "target" not in properties:
            continue
        if skill.card.param_choices("target", [])[1]:
            return skill
    return None


def _side(match: re.Match) -> str | None:
    rel = " ".join(match["rel"].lower().split())
    if match["side"]:
        return match["side"].lower()
    return rel if rel in SIDES else None


def _side_said(side: str) -> str:
    return side if side in ("in front of", "behind") else f"to the {side} of"


def _relation_said(match: re.Match) -> str:
    return " ".join(match["rel"].lower().split())
