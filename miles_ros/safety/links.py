"""Whole-arm checks: the Panda's link spheres (:mod:`sims.robots.panda_spheres`) against
the workspace box, the keep-out zones and the table, with each sphere's braking ball.

Which spheres meet which boundary (the sphere model's link sets):

* links 0 and 1 (``panda_spheres.MOUNTED_LINKS``) sweep a fixed volume at the mounting
  (the default ``robot_base`` keep-out zone is there for the TCP): not checked;
* links 2..7 and the hand: the workspace box grown by ``link_workspace_margin`` (the
  box bounds the TCP; with joint 1 at its limit the hand reaches 2 cm past it), the
  keep-out zones and the table (the half-space ``z < table_height``);
* the fingers (``TOOL_LINKS``, covering both fingers at any opening): keep-out zones
  only. They are the tool: the TCP's workspace box (its floor 1 cm below the table top)
  already says how close to the work surface the tool may go, and a sphere cover of the
  fingertips reaches 15 mm below the TCP, so holding them above the table would forbid
  grasping a cube on it.

Braking ball of a sphere: while every joint stops, its centre moves by at most
``sum_j lipschitz[s, j] * stop_travel_j`` (``panda_spheres.sphere_lipschitz``), so the
ball of that radius plus the sphere's own radius bounds where the link can still go: the
same argument as the TCP's ball in :mod:`miles_ros.safety.cartesian`; the same rules (ball
no deeper than before, point standoff, recovery) apply to the worst sphere
(:mod:`miles_ros.safety.candidate`).

:func:`link_violations` is the outside check used by the tests: the spheres of a
command sequence against the same boundaries, independent of the supervisor's state.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from miles_ros.safety.shaping import AMAX, JMAX
from miles_ros.safety.stopping import stop_travel
from miles_ros.safety.zones import Zone, clearance, zone_arrays
from sims.robots import panda_spheres as ps

ENV = 0
"""Column of :func:`link_flags`: the sphere meets the keep-out zones."""
BOUNDS = 1
"""Column of :func:`link_flags`: the sphere meets the workspace box and the table."""

_NO_WORKSPACE = np.array([-1e9, -1e9, -1e9, 1e9, 1e9, 1e9])


def link_flags(enabled: bool = True) -> np.ndarray:
    """[S, 2] flags per sphere (columns :data:`ENV`, :data:`BOUNDS`); all zero when
    ``enabled`` is False (link checks off: only the TCP is checked)."""
    flags = np.zeros((ps.NUM_SPHERES, 2))
    if enabled:
        checked = ~ps.link_mask(ps.MOUNTED_LINKS)
        flags[:, ENV] = checked
        flags[:, BOUNDS] = checked & ~ps.link_mask(ps.TOOL_LINKS)
    return flags


def link_context(enabled: bool, table_height: float, workspace_margin: float) -> tuple:
    """The tuple the Cartesian kernels take: (flags [S, 2], [table height, workspace
    margin], scratch frames [9, 4, 4], scratch centres [S, 3], scratch travel [7], and
    per sphere [S, 3] (ball clearance, point clearance, braking radius): the previous
    output's, the candidate's, the best candidate's)."""
    n = ps.NUM_SPHERES
    prev = np.full((n, 3), 1e300)
    prev[:, 2] = 0.0
    return (
        link_flags(enabled),
        np.array([table_height, workspace_margin], dtype=np.float64),
        np.empty((9, 4, 4)),
        np.empty((n, 3)),
        np.empty(7),
        prev,
        prev.copy(),
        prev.copy(),
    )


@njit(cache=True)
def sphere_clearance(c, radius, bounds, ws, boxes, spheres, pad, table, ws_margin):
    """Margin (m) of the ball ``(c, radius)``: to the zones; with ``bounds``, also to the
    workspace walls grown by ``ws_margin`` and the table's top. Negative in a violation."""
    d = clearance(c, radius, _NO_WORKSPACE, boxes, spheres, pad)
    if bounds:
        for k in range(3):
            d = min(d, c[k] - (ws[k] - ws_margin) - radius - pad)
            d = min(d, ws[k + 3] + ws_margin - c[k] - radius - pad)
        d = min(d, c[2] - table - radius - pad)
    return d


@njit(cache=True)
def link_clearance(q, v, a, js, ws, boxes, spheres, pad, lk):
    """(ball clearance, point clearance, largest braking radius) of the checked spheres
    at arm positions ``q`` moving at ``v``/``a`` [7]: the worst margin of a sphere grown
    by its braking radius, the worst margin of the spheres themselves, and the largest
    braking radius. (1e300, 1e300, 0) when no sphere is checked. Each sphere's (ball,
    point, braking radius) goes into the context's candidate rows (``lk[6]``)."""
    flags, table, frames, centres, travel, _, cur, _ = lk
    if flags.shape[0] == 0 or flags[:, ENV].max() == 0.0:
        return 1e300, 1e300, 0.0
    ps.sphere_centers_into(q, frames, centres)
    for j in range(js.shape[0]):
        travel[j] = stop_travel(v[j], a[j], js[j, AMAX], js[j, JMAX])
    ball = 1e300
    point = 1e300
    largest = 0.0
    for s in range(flags.shape[0]):
        if flags[s, ENV] == 0.0:
            continue
        r = 0.0
        for j in range(js.shape[0]):
            r += ps.sphere_lipschitz[s, j] * travel[j]
        d = sphere_clearance(
            centres[s],
            ps.sphere_radii[s],
            flags[s, BOUNDS] != 0.0,
            ws,
            boxes,
            spheres,
            pad,
            table[0],
            table[1],
        )
        cur[s, 0] = d - r
        cur[s, 1] = d
        cur[s, 2] = r
        point = min(point, d)
        ball = min(ball, d - r)
        largest = max(largest, r)
    return ball, point, largest


def link_violations(
    positions: np.ndarray,
    workspace: tuple[np.ndarray, np.ndarray],
    zones: tuple[Zone, ...],
    table_height: float = 0.0,
    workspace_margin: float = 0.0,
    padding: float = 0.0,
    tolerance: float = 1e-9,
) -> int:
    """Number of (sample, sphere) pairs of arm positions [k, 7] whose sphere leaves the
    workspace (grown by ``workspace_margin``), enters a keep-out zone or dips below the
    table (by the link sets of the module docstring), with ``tolerance`` (m) for
    rounding."""
    positions = np.asarray(positions, dtype=np.float64).reshape(-1, 7)
    if positions.shape[0] == 0:
        return 0
    centres, radii = ps.link_spheres(positions)
    ws = np.concatenate([np.asarray(workspace[0], float), np.asarray(workspace[1], float)])
    boxes, spheres = zone_arrays(zones)
    return int(
        _count(
            centres,
            radii,
            link_flags(True),
            ws,
            boxes,
            spheres,
            padding,
            table_height,
            workspace_margin,
            tolerance,
        )
    )


@njit(cache=True)
def _count(centres, radii, flags, ws, boxes, spheres, pad, table, ws_margin, tolerance):
    count = 0
    for k in range(centres.shape[0]):
        for s in range(radii.shape[0]):
            if flags[s, ENV] == 0.0:
                continue
            d = sphere_clearance(
                centres[k, s],
                radii[s],
                flags[s, BOUNDS] != 0.0,
                ws,
                boxes,
                spheres,
                pad,
                table,
                ws_margin,
            )
            if d < -tolerance:
                count += 1
    return count
