"""Which boundary a Cartesian intervention met: the audit trail's ``cartesian`` events name
it, so an operator reading "shaped to the limits" learns what the arm was kept from.

:func:`nearest_boundary` measures the output state the way the supervisor's check does
(:mod:`miles_ros.safety.candidate`, :mod:`miles_ros.safety.links`): the TCP's braking ball
against each workspace wall and keep-out zone, and each checked link sphere's braking ball
against the zones and, for the arm's links, the grown workspace walls and the table. Per
boundary it takes the tighter of the two rules a commanded point meets there: the braking
ball outside it, and the point itself :data:`~miles_ros.safety.candidate.STANDOFF` away
from it. It names the boundary where that margin is smallest. The blend search stops a
commanded step where its bounding rule is met, so that boundary is the one that bound (a
tie between two, or the TCP segment test, which has no margin, can make it name a
neighbour). It runs only for periods that report an intervention, in Python.
"""

from __future__ import annotations

import numpy as np

from miles_ros.safety.candidate import STANDOFF
from miles_ros.safety.kinematics import braking_radius, tcp_position
from miles_ros.safety.links import BOUNDS, ENV
from miles_ros.safety.shaping import AMAX, JMAX
from miles_ros.safety.stopping import stop_travel
from miles_ros.safety.zones import Box, Zone, _box_signed_distance
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


def _distances(
    p: np.ndarray,
    ws: np.ndarray | None,
    boxes: np.ndarray,
    spheres: np.ndarray,
    names: tuple[list[str], list[str]],
):
    """(distance, boundary) pairs of the point ``p``: workspace walls (when ``ws`` is
    given), boxes, spheres; negative inside a zone or outside a wall."""
    if ws is not None:
        for k in range(3):
            yield p[k] - ws[k], f"workspace {WALLS[k]}"
            yield ws[k + 3] - p[k], f"workspace {WALLS[k + 3]}"
    box_names, sphere_names = names
    for b in range(boxes.shape[0]):
        name = box_names[b] if b < len(box_names) else "peer arm"
        yield float(_box_signed_distance(p, boxes[b])), f"zone {name}"
    for s in range(spheres.shape[0]):
        name = sphere_names[s] if s < len(sphere_names) else "peer arm"
        yield float(np.linalg.norm(p - spheres[s, :3])) - spheres[s, 3], f"zone {name}"


def _candidate(what: str, point: float, braking: float) -> tuple[float, str, float, float]:
    """(the tighter rule's margin, what, ball clearance, point clearance) of one boundary:
    ``point`` is the body's clearance, ``braking`` its braking radius."""
    ball = point - braking
    return min(ball, point - STANDOFF), what, ball, point


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
) -> str:
    """The boundary nearest to stopping the arm at ``q`` moving at ``v``/``a``, with the
    clearance (m) of the body's braking ball and of the body itself there: "TCP at
    workspace z min (floor) (ball +0.1 mm, point +12.0 mm)", "panda_hand at the table
    (...)", "panda_fingers at zone robot_base (...)". Spheres or boxes beyond
    ``names``' rows are peers' envelopes ("peer arm"). ``lk``: the supervisor's link
    context (its flags and table/margin row)."""
    found = []
    r_tcp = float(braking_radius(js, v, a))
    for d, what in _distances(tcp_position(q), ws, boxes, spheres, names):
        found.append(_candidate(f"TCP at {what}", d - pad, r_tcp))
    flags, (table, ws_margin) = lk[0], lk[1]
    if flags.shape[0] and flags[:, ENV].any():
        centres = ps.sphere_centers(q)
        travel = np.array(
            [stop_travel(v[j], a[j], js[j, AMAX], js[j, JMAX]) for j in range(js.shape[0])]
        )
        grown = np.concatenate([ws[:3] - ws_margin, ws[3:] + ws_margin])
        for s in np.flatnonzero(flags[:, ENV]):
            size = float(ps.sphere_radii[s]) + pad
            r = float(ps.sphere_lipschitz[s] @ travel)
            link = ps.sphere_links[s]
            bounded = flags[s, BOUNDS] != 0.0
            for d, what in _distances(
                centres[s], grown if bounded else None, boxes, spheres, names
            ):
                found.append(_candidate(f"{link} at {what}", d - size, r))
            if bounded:
                found.append(_candidate(f"{link} at the table", centres[s][2] - table - size, r))
    _, what, ball, point = min(found)
    return f"{what} (ball {ball * 1000.0:+.1f} mm, point {point * 1000.0:+.1f} mm)"
