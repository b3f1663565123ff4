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
neighbour). It runs only for periods that report an intervention, in numpy.
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


def _boundary_names(n_boxes: int, n_spheres: int, names: tuple[list[str], list[str]]):
    """The boundary of each column of :func:`nearest_boundary`'s distance table: the
    workspace walls, the boxes, the spheres (rows beyond ``names``' are peers'), the
    table."""
    box_names, sphere_names = names
    return (
        [f"workspace {wall}" for wall in WALLS]
        + [f"zone {box_names[b] if b < len(box_names) else 'peer arm'}" for b in range(n_boxes)]
        + [
            f"zone {sphere_names[s] if s < len(sphere_names) else 'peer arm'}"
            for s in range(n_spheres)
        ]
        + ["the table"]
    )


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
    context (its flags and table/margin row).

    One table of distances, a row per body (the TCP, then each checked link sphere) and a
    column per boundary (:func:`_boundary_names`), ``inf`` where a rule does not apply:
    peers send hundreds of spheres, and the supervisor reports every intervening period.
    Ties on the margin go to the alphabetically first "body at boundary", then the smaller
    clearances."""
    flags, (table, ws_margin) = lk[0], lk[1]
    checked = np.flatnonzero(flags[:, ENV]) if flags.shape[0] else np.empty(0, dtype=np.intp)
    bodies = ["TCP"] + [ps.sphere_links[s] for s in checked]
    points = np.empty((1 + checked.size, 3))
    points[0] = tcp_position(q)
    size = np.full(1 + checked.size, pad)
    braking = np.empty(1 + checked.size)
    braking[0] = braking_radius(js, v, a)
    # The TCP meets the workspace walls; a bounded link sphere meets them grown by the
    # margin, and the table; every body meets the zones.
    lo = np.full((1 + checked.size, 3), -np.inf)
    hi = np.full((1 + checked.size, 3), np.inf)
    lo[0], hi[0] = ws[:3], ws[3:]
    floor = np.full(1 + checked.size, -np.inf)
    if checked.size:
        travel = np.array(
            [stop_travel(v[j], a[j], js[j, AMAX], js[j, JMAX]) for j in range(js.shape[0])]
        )
        points[1:] = ps.sphere_centers(q)[checked]
        size[1:] += ps.sphere_radii[checked]
        braking[1:] = ps.sphere_lipschitz[checked] @ travel
        bounded = flags[checked, BOUNDS] != 0.0
        lo[1:][bounded] = ws[:3] - ws_margin
        hi[1:][bounded] = ws[3:] + ws_margin
        floor[1:][bounded] = table
    distance = np.hstack(
        [
            points - lo,
            hi - points,
            np.array([[_box_signed_distance(p, bx) for bx in boxes] for p in points]).reshape(
                len(points), boxes.shape[0]
            ),
            np.linalg.norm(points[:, None, :] - spheres[None, :, :3], axis=2) - spheres[:, 3],
            (points[:, 2] - floor)[:, None],
        ]
    )
    point = distance - size[:, None]
    ball = point - braking[:, None]
    margin = np.minimum(ball, point - STANDOFF)
    columns = _boundary_names(boxes.shape[0], spheres.shape[0], names)
    _, what, b, p = min(
        (margin[i, j], f"{bodies[i]} at {columns[j]}", ball[i, j], point[i, j])
        for i, j in np.argwhere(margin == margin.min())
    )
    return f"{what} (ball {b * 1000.0:+.1f} mm, point {p * 1000.0:+.1f} mm)"
