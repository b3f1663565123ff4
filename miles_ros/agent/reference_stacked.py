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
  from / nearest to the base along x, the one on that side (:func:`_side_of_two`).
"""

from __future__ import annotations

import math

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
