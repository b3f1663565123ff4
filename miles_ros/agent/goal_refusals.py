"""The refusals of the symbolic reading (:mod:`miles_ros.agent.reading`) that each rest on
one phrase of the goal: the arm kept still, a whole tower moved as one, a spot of the table,
a move by a distance, a height above a thing out of reach, a step said a number of times, a
person's things, and words the scene does not have."""

from __future__ import annotations

import re

from miles_ros.agent.goal_clauses import _SKIP, _Clause, _Vocabulary
from miles_ros.agent.grounding import Step, goal_points, outside_envelope
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.vocabulary import COLOURS, DISTANCE, POSITIONS, THINGS
from miles_ros.agent.world import World, in_workspace

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


def _point_refusal(said: str, point, registry: SkillRegistry, world: World) -> str | None:
    """Why the arm cannot go to ``point`` (``said``: how the goal put it), or None: outside
    the workspace, or outside the reach card's envelope."""
    if not in_workspace(point):
        return f"{said}, outside the workspace the arm reaches: no skill goes there"
    outside = "reach" in registry and outside_envelope(
        Step("reach", {"target": list(point)}), registry, world
    )
    return f"{said}: {outside}" if outside else None


def _height_above(text: str, world: World, registry: SkillRegistry) -> str | None:
    """Why going to a height above a scene thing that lies outside the planning workspace
    ("hover one metre above the blue cube") cannot be done: the arm reaches no such point;
    or, inside it, outside the reach skill's trained envelope ("hold the gripper 60 cm above
    the yellow pad": its card's reason); the same for a height said as z in the base frame
    ("up to z 0.7 above the green cube"). A height inside both is left to the skills."""
    names = {**{n.split("_")[0]: n for n in world.names}, **{n: n for n in world.names}}
    for match in re.finditer(
        rf"(?P<d>{DISTANCE})\s+(?:up\s+|high\s+)?(?:above|over|higher than|on top of)\s+"
        r"(?:the\s+)?(?P<w>[a-z_]+)",
        text,
    ):
        name, height = names.get(match.group("w")), metres(match.group("d"))
        if name is None or height is None:
            continue
        x, y, z = world.position_of(name)
        point = (round(x, 3), round(y, 3), round(z + height, 3))
        said = f"{match.group('d')} above the {name.replace('_', ' ')} is the point {list(point)}"
        refusal = _point_refusal(said, point, registry, world)
        if refusal:
            return refusal
    for match in _Z_ABOVE.finditer(text):  # "up to z 0.7 above the green cube's spot"
        name = names.get(match.group("w"))
        if name is None:
            continue
        x, y, _ = world.position_of(name)
        point = (round(x, 3), round(y, 3), float(match.group("z")))
        said = (
            f"z {match.group('z')} above the {name.replace('_', ' ')} is the point {list(point)}"
        )
        refusal = _point_refusal(said, point, registry, world)
        if refusal:
            return refusal
    return None


_Z_ABOVE = re.compile(
    r"\bz\s*(?:=\s*)?(?P<z>\d+(?:\.\d+)?)\s*(?:m\b|met(?:er|re)s?\b)?\s+(?:up\s+)?(?:above|over)\s+"
    r"(?:the\s+)?(?P<w>[a-z_]+)"
)
"""A height said as the point's z in the base frame, over a thing ("to z 0.7 above the green
cube"): the point above that thing at that z."""


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
