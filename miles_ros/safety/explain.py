"""Which boundary a Cartesian intervention met: the audit trail's ``cartesian`` events name
it, so an operator reading "shaped to the limits" learns what the arm was kept from.

:func:`nearest_boundary` measures the output state the way the supervisor's check does
(:mod:`miles_ros.safety.candidate`, :mod:`miles_ros.safety.links`): the TCP's braking ball
against each workspace wall and keep-out zone, and each checked link sphere's braking ball
against the zones and, for the arm's links, the grown workspace walls and the table. It
names the smallest of those margins. The blend search stops a commanded step where its
bounding rule is met, so the boundary with the smallest margin at the output is the one
that bound (a tie between two, or the TCP segment test, which has no margin, can make it
name a neighbour). It runs only for periods that report an intervention, in Python.
"""

from __future__ import annotations

import numpy as np

from miles_ros.safety.kinematics import braking_radius, tcp_position
from miles_ros.safety.links import BOUNDS, ENV
from miles_ros.safety.shaping import AMAX, JMAX
from miles_ros.safety.stopping import stop_travel
from miles_ros.safety.zones import Box, Zone
from sims.robots import panda_spheres as ps

WALLS = ("x min", "y min", "z min (floor)", "x max", "y max", "z max")
"""Names of the workspace box's walls, in the order of its [min xyz, max xyz] array."""

__all__ = ["WALLS", "nearest_boundary", "zone_names"]


def zone_names(zones: tuple[Zone, ...] | list[Zone]) -> tuple[list[str], list[str]]:
    """(box names, sphere names) in the row order of
    :func:`~miles_ros.safety.zones.zone_arrays`."""
    return (
        [z.name for z in zones if isinstance(z, Box)],
        [z.name for z in zones if not isinstance(z, Box)],
    )


def _box_distance(p: np.ndarray, bx: np.ndarray) -> float:
    lo, hi = bx[:3] - p, p - bx[3:]
    d = np.maximum(lo, hi)
    outside = np.maximum(d, 0.0)
    return float(np.linalg.norm(outside)) if outside.any() else float(d.max())


def _margins(
    p: np.ndarray,
    radius: float,
    ws: np.ndarray | None,
    boxes: np.ndarray,
    spheres: np.ndarray,
    names: tuple[list[str], list[str]],
    pad: float,
):
    """(margin, boundary) pairs of the ball ``(p, radius)``: workspace walls (when ``ws``
    is given), boxes, spheres; negative inside a zone or outside a wall."""
    if ws is not None:
        for k in range(3):
            yield p[k] - ws[k] - radius - pad, f"workspace {WALLS[k]}"
            yield ws[k + 3] - p[k] - radius - pad, f"workspace {WALLS[k + 3]}"
    box_names, sphere_names = names
    for b in range(boxes.shape[0]):
        name = box_names[b] if b < len(box_names) else "peer arm"
        yield _box_distance(p, boxes[b]) - radius - pad, f"zone {name}"
    for s in range(spheres.shape[0]):
        name = sphere_names[s] if s < len(sphere_names) else "peer arm"
        d = float(np.linalg.norm(p - spheres[s, :3])) - spheres[s, 3]
        yield d - radius - pad, f"zone {name}"


def nearest_boundary(
    js: np.ndarray,
    q: np.ndarray,
    v: np.ndarray,
    a: np.ndarray,
    ws: np.ndarray,
    boxes: np.ndarray,
    spheres: np.ndarray,
    names: tuple[list[str], list[str]],
    pad: float,
    lk: tuple,
) -> tuple[str, float]:
    """(description, margin in m) of the boundary closest to the braking balls of the arm
    at ``q`` moving at ``v``/``a``: "TCP ... workspace z min (floor)", "panda_hand ...
    table", "panda_leftfinger ... zone robot_base". Spheres beyond the first
    ``len(names)`` rows of ``spheres``/``boxes`` are peers' envelopes ("peer arm").
    ``lk``: the supervisor's link context (its flags and table/margin row)."""
    best = (np.inf, "")
    p = tcp_position(q)
    r_tcp = float(braking_radius(js, v, a))
    for m, what in _margins(p, r_tcp, ws, boxes, spheres, names, pad):
        best = min(best, (m, f"TCP braking ball at {what}"))
    flags, (table, ws_margin) = lk[0], lk[1]
    if flags.shape[0] and flags[:, ENV].any():
        centres = ps.sphere_centers(q)
        travel = np.array(
            [stop_travel(v[j], a[j], js[j, AMAX], js[j, JMAX]) for j in range(js.shape[0])]
        )
        grown = np.concatenate([ws[:3] - ws_margin, ws[3:] + ws_margin])
        for s in np.flatnonzero(flags[:, ENV]):
            r = float(ps.sphere_radii[s] + ps.sphere_lipschitz[s] @ travel)
            link = ps.sphere_links[s]
            bounded = flags[s, BOUNDS] != 0.0
            for m, what in _margins(
                centres[s], r, grown if bounded else None, boxes, spheres, names, pad
            ):
                best = min(best, (m, f"{link} braking ball at {what}"))
            if bounded:
                m = float(centres[s][2] - table - r - pad)
                best = min(best, (m, f"{link} braking ball at the table"))
    return best[1], float(best[0])
