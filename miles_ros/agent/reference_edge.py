"""Resolvers of :mod:`~miles_ros.agent.references` for "the cube near the edge" and "the
third pad" (the patterns are in :mod:`~miles_ros.agent.reference_rules`). The edge is the
table's, its extent from the scene file (:attr:`~miles_ros.agent.world.World.table_xy`). Each
cube on the table is as near an edge as its centre is to the nearest of the table top's four
sides; the nearest cube is meant when it is :data:`EDGE_MARGIN_M` or more nearer than the
next, and the planner asks which one when two or more are about equally near. A scene with no
table extent has no edge to measure from (refused). A pad by an ordinal beyond the scene's
pads is refused (no such pad).
"""

from __future__ import annotations

from miles_ros.agent.reference_scene import ORDINALS, _which

EDGE_MARGIN_M = 0.03
"""A cube nearer an edge than every other by less than this (m) is "about equally near": the
planner asks which one is meant (a cube's size is 0.04 m; 3 cm is a difference a person
standing at the table sees)."""


def edge_distance(position, table_xy) -> float:
    """The distance (m) in the table's plane from ``position`` to the nearest side of the
    table top (x min, x max, y min, y max)."""
    x, y = position[0], position[1]
    x0, x1, y0, y1 = table_xy
    return min(x - x0, x1 - x, y - y0, y1 - y)


def _near_edge(match, world):
    """The cube nearest an edge of the table, by :data:`EDGE_MARGIN_M` over the next (cubes
    standing on another are not at an edge); asked when several are about equally near,
    refused with no table extent."""
    if world.table_xy is None:
        return None, "the scene has no edge: it gives no table to measure one from"
    ranked = sorted(
        (edge_distance(p, world.table_xy), n)
        for n, p in world.objects.items()
        if p[2] < world.cube_size
    )
    if not ranked:
        return None, "no cube stands on the table"
    near = [n for d, n in ranked if d - ranked[0][0] < EDGE_MARGIN_M]
    if len(near) > 1:
        raise _which(
            f"cube (they are about equally near the edge, within {EDGE_MARGIN_M * 100:.0f} cm)",
            sorted(near),
        )
    return ranked[0][1], None


def _nth_pad(match, world):
    """ "the third pad" among the scene's pads: refused when the scene has fewer (no such
    pad); asked which among as many or more (a pad's ordinal names no side to count from)."""
    nth = match.group("nth").lower()
    pads = sorted(world.places)
    if ORDINALS[nth] > len(pads):
        return None, f"the scene has {len(pads)} pads: there is no {nth} pad"
    raise _which(f"pad (the {nth} is not said counted from which side)", pads)
