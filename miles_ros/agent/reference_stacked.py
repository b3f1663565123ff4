"""Resolvers of :mod:`~miles_ros.agent.references` for a cube picked by what it stands on or
under (held-out 19's structures; the patterns are in :mod:`~miles_ros.agent.reference_rules`):

- "the cube in the middle of the stack", "the middle cube of the tower": the cube with one
  cube under it and one on it (the tower's middle level, not the table plane's middle;
  :func:`_stack_middle`);
- "the lowest / bottom cube in / of the stack": the cube with a cube on it and none under it
  (the tower's bottom level, not the lowest cube of the table; :func:`_stack_bottom`);
- "the cube sitting / resting on P": the cube on the pad's area, on the table; refused when
  none is (:func:`_on_place`);
- "the left / right one of the two cubes at the back / front": of the two cubes farthest
  from / nearest to the base along x, the one on that side (:func:`_side_of_two`);
- a description of where a cube sits, checked against the scene before the goal is read
  (:func:`seat_checked`): "The C cube sitting on D: V it ...", "V the C cube that is on
  (top of) the D one ...", "The C cube is resting on D; V it ...": said true, the cube by
  its colour (the description dropped; where the step takes it "off", kept as said); said
  false, refused with what C really stands on; "the cube sitting / that is on D" with no
  colour: the cube standing on D, refused when none does.
"""

from __future__ import annotations

import math
import re

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.reference_scene import TIE_M, _which, level, place_named, spoken


def _level_with(world, name: str, dz_sign: float) -> bool:
    """Whether another cube stands right on (``dz_sign`` +1) or right under (-1) ``name``:
    the same x, y within 2 :data:`TIE_M`, a cube's edge higher or lower."""
    p = world.objects[name]
    return any(
        m != name
        and math.dist(p[:2], q[:2]) < 2 * TIE_M
        and abs(dz_sign * (q[2] - p[2]) - world.cube_size) < 2 * TIE_M
        for m, q in world.objects.items()
    )


def _stack_middle(match, world):
    """The cube with a cube under it and one on it; refused when no three cubes stand in one
    tower, asked when several towers have a middle."""
    middle = sorted(
        n for n in world.objects if _level_with(world, n, 1.0) and _level_with(world, n, -1.0)
    )
    if not middle:
        return None, "no three cubes stand in one stack: the scene's stack has no middle cube"
    if len(middle) > 1:
        raise _which("cube (more than one stack has a middle)", middle)
    return middle[0], None


def _stack_bottom(match, world):
    """The cube with a cube on it and none under it; refused when no cube stands on another,
    asked when several towers stand."""
    bottom = sorted(
        n for n in world.objects if _level_with(world, n, 1.0) and not _level_with(world, n, -1.0)
    )
    if not bottom:
        return None, "no cube stands on another: the scene has no stack"
    if len(bottom) > 1:
        raise _which("cube (more than one stack stands)", bottom)
    return bottom[0], None


def _on_place(match, world):
    """The cube on the table inside the pad's area (its size from the scene, else a cube's);
    refused when none is, asked when several are."""
    place = place_named(match.group("place"), world)
    if place is None:
        return None, f"the scene has no {match.group('place').lower()} pad"
    (px, py), (sx, sy) = (
        world.places[place][:2],
        world.place_sizes.get(place, (world.cube_size, world.cube_size)),
    )
    on = sorted(
        n
        for n, p in world.objects.items()
        if abs(p[0] - px) <= sx / 2
        and abs(p[1] - py) <= sy / 2
        and not _level_with(world, n, -1.0)
    )
    if not on:
        return None, f"no cube is on the {spoken(place)}"
    if len(on) > 1:
        raise _which(f"cube (more than one is on the {spoken(place)})", on)
    return on[0], None


def _side_of_two(match, world):
    """Of the two cubes at the back (largest x) or front (smallest x), the one on the side
    said; refused with fewer than three cubes, asked when the two are not apart from the rest
    along x or :func:`~miles_ros.agent.reference_scene.level` across."""
    cubes = world.objects
    if len(cubes) < 3:
        return None, f"the scene has {len(cubes)} cubes: no two of them stand apart"
    back = match.group("end").lower() in {"back", "rear"}
    ranked = sorted(cubes, key=lambda n: (-1.0 if back else 1.0) * cubes[n][0])
    two, rest = ranked[:2], ranked[2]
    if level(cubes[two[1]][0], cubes[rest][0]):
        raise _which(f"cube (no two stand at the {match.group('end').lower()})", sorted(cubes))
    if level(cubes[two[0]][1], cubes[two[1]][1]):
        raise _which("cube (the two are level across)", sorted(two))
    sign = 1.0 if match.group("side").lower() == "left" else -1.0
    return max(two, key=lambda n: sign * cubes[n][1]), None


_NOUN = rf"(?:{'|'.join(CUBE_NOUNS)})"
_SITTING = r"(?:sitting|resting|lying|standing|perched|stacked|sat|balanced|placed)"
_RELATIVE = r"(?:that'?s|that\s+is|which\s+is|which'?s)"
_ON = (
    r"(?:right\s+|just\s+|currently\s+|now\s+)?(?:on\s+top\s+of|on|atop)\s+(?:the\s+)?"
    rf"(?P<y>[a-z]+)(?:\s+(?:{_NOUN}|one))?(?!\s+(?:{'|'.join(PAD_NOUNS)})\b)"
)
_SEAT_TOPIC = re.compile(
    rf"^\s*(?P<np>the\s+(?:(?P<x>[a-z]+)\s+)?(?P<n>{_NOUN}))(?:(?:'s|\s+(?:{_RELATIVE}|is))"
    rf"(?:\s+(?:currently|now|still))?(?:\s+{_SITTING})?|\s+(?:(?:currently|now|still)\s+)?"
    rf"(?:{_SITTING}|sits|rests|stands|lies))\s+{_ON}"
    r"(?=\s*(?:[:;,.]|\s[-\u2013\u2014]+))",
    re.I,
)
"""A cube said first by where it sits, before the step ("The green cube sitting on red: ...",
"The cube resting on the red one - ...", "The blue block is sitting on green; ...")."""
_SEAT_RELATIVE = re.compile(
    rf"\b(?P<np>the\s+(?:(?P<x>[a-z]+)\s+)?(?P<n>{_NOUN}))\s+{_RELATIVE}\s+"
    rf"(?:(?:currently\s+|now\s+|still\s+)?{_SITTING}\s+)?{_ON}\b",
    re.I,
)
"""A cube picked inside a step by a relative clause of where it sits ("put the green cube
that is on the blue cube onto ...", "lift the cube that's sitting on red onto ...")."""


def _on_top_of(world, below: str) -> str | None:
    """The cube standing right on ``below`` (:func:`_level_with`'s tolerance), or None."""
    p = world.objects[below]
    for name, q in world.objects.items():
        if (
            name != below
            and math.dist(p[:2], q[:2]) < 2 * TIE_M
            and abs(q[2] - p[2] - world.cube_size) < 2 * TIE_M
        ):
            return name
    return None


def _under_of(world, name: str) -> str | None:
    """The cube ``name`` stands right on, or None (on the table)."""
    return next((n for n in world.objects if n != name and _on_top_of(world, n) == name), None)


def _seat(match: re.Match, world) -> tuple[str, str | None]:
    """The noun phrase the description of ``match`` stands for, or a refusal."""
    below = f"{match['y'].lower()}_cube"
    x = match["x"] and match["x"].lower()
    if below not in world.objects or (x and f"{x}_cube" not in world.objects):
        return match.group(0), None  # not a cube of the scene: the rest of the reading says so
    the = match["np"][:3]
    if not x:
        top = _on_top_of(world, below)
        if top is None:
            return match.group(0), f"no cube sits on the {spoken(below)}"
        return f"{the} {top.split('_')[0]} {match['n']}", None
    under = _under_of(world, f"{x}_cube")
    if under == below:
        return f"{the} {x} {match['n']}", None
    where = f"it sits on the {spoken(under)}" if under else "it stands on the table"
    return match.group(0), f"the {x} cube does not sit on the {spoken(below)}: {where}"


def seat_checked(text: str, world) -> tuple[str, str | None]:
    """``text`` with each description of where a cube sits checked against ``world`` (see
    the module): said true, the cube by its colour; ``(text, reason)`` where the scene
    contradicts one or no cube sits where the cube is said to."""
    for pattern in (_SEAT_TOPIC, _SEAT_RELATIVE):
        m = pattern.search(text)
        if m is None or (pattern is _SEAT_TOPIC and not re.search(r"\bit\b", text[m.end() :])):
            continue  # a topic is one where a step on "it" follows
        said, refusal = _seat(m, world)
        if refusal:
            return text, refusal
        if m["x"] and re.search(r"\boff\b", text[m.end() :], re.I):
            return text, None  # "... - take it off": what it sits on is the step's
        if pattern is _SEAT_TOPIC:  # the step, "it" the cube said first
            rest = re.sub(r"^[\s:;,.\u2013\u2014-]+", "", text[m.end() :])
            rest = re.sub(r"\bit\b", said[:1].lower() + said[1:], rest, count=1, flags=re.I)
            text = rest[:1].upper() + rest[1:]
            continue
        text = text[: m.start()] + said + text[m.end() :]
    return text, None
