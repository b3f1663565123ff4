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

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from miles_ros.safety.shaping import AMAX, JMAX
from miles_ros.safety.stopping import stop_travel
from miles_ros.safety.zones import (
    NO_TABLE,
    Zone,
    boundary_count,
    clearance,
    clearances_into,
    zone_arrays,
)
from sims.robots import panda
from sims.robots import panda_spheres as ps

if TYPE_CHECKING:
    from miles_ros.safety.config import SafetyConfig

ENV = 0
"""Column of :func:`link_flags`: the sphere meets the keep-out zones."""
BOUNDS = 1
"""Column of :func:`link_flags`: the sphere meets the workspace box and the table."""

_NO_WALLS = 1e9
"""How far (m) the walls are grown for a sphere they do not bound: out of reach."""


def link_flags(enabled: bool = True) -> np.ndarray:
    """[S, 2] flags per sphere (columns :data:`ENV`, :data:`BOUNDS`); all zero when
    ``enabled`` is False (link checks off: only the TCP is checked)."""
    flags = np.zeros((ps.NUM_SPHERES, 2))
    if enabled:
        checked = ~ps.link_mask(ps.MOUNTED_LINKS)
        flags[:, ENV] = checked
        flags[:, BOUNDS] = checked & ~ps.link_mask(ps.TOOL_LINKS)
    return flags


def link_context(
    enabled: bool, table_height: float, workspace_margin: float, boundaries: int = 7
) -> tuple:
    """The tuple the Cartesian kernels take: (flags [S, 2], [table height, workspace
    margin], scratch frames [9, 4, 4], scratch centres [S, 3], scratch travel [7], and
    the bodies' rows [S + 1, 1 + ``boundaries``]: the previous output's, the candidate's,
    the best candidate's). A body's row (row 0 the TCP, row ``1 + s`` sphere ``s``) holds
    its braking radius, then its point clearance to each boundary
    (:func:`~miles_ros.safety.zones.clearances_into`'s numbering, 1e300 where the boundary
    does not bound it); :func:`with_boundaries` fits the rows to other zones."""
    n = ps.NUM_SPHERES
    rows = np.full((n + 1, 1 + boundaries), 1e300)
    rows[:, 0] = 0.0
    return (
        link_flags(enabled),
        np.array([table_height, workspace_margin], dtype=np.float64),
        np.empty((9, 4, 4)),
        np.empty((n, 3)),
        np.empty(7),
        rows,
        rows.copy(),
        rows.copy(),
    )


def with_boundaries(lk: tuple, boxes: np.ndarray, spheres: np.ndarray) -> tuple:
    """``lk``, or a copy whose rows fit ``boxes`` and ``spheres`` (their values then to be
    filled from the output state)."""
    n = int(boundary_count(boxes, spheres))
    if lk[5].shape[1] == 1 + n:
        return lk
    rows = np.full((lk[5].shape[0], 1 + n), 1e300)
    rows[:, 0] = 0.0
    return lk[:5] + (rows, rows.copy(), rows.copy())


@njit(cache=True)
def _bounds_of(bounds, table, ws_margin):
    """(growth of the workspace walls, table) for a sphere: with ``bounds`` the walls grown
    by the margin and the table, else neither."""
    if bounds:
        return ws_margin, table
    return _NO_WALLS, NO_TABLE


@njit(cache=True)
def sphere_clearance(c, radius, bounds, ws, boxes, spheres, pad, table, ws_margin):
    """Margin (m) of the ball ``(c, radius)``: to the zones; with ``bounds``, also to the
    workspace walls grown by ``ws_margin`` and the table's top. Negative in a violation."""
    grow, top = _bounds_of(bounds, table, ws_margin)
    out = np.empty(boundary_count(boxes, spheres))
    return clearances_into(c, radius, ws, grow, top, boxes, spheres, pad, out)


@njit(cache=True)
def link_clearance(q, v, a, js, ws, boxes, spheres, pad, lk):
    """(ball clearance, point clearance, largest braking radius) of the checked spheres
    at arm positions ``q`` moving at ``v``/``a`` [7]: the worst margin of a sphere grown
    by its braking radius, the worst margin of the spheres themselves, and the largest
    braking radius. (1e300, 1e300, 0) when no sphere is checked. Each sphere's row
    (braking radius, point clearance per boundary) goes into the context's candidate rows
    (``lk[6]``, row ``1 + s``)."""
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
        grow, top = _bounds_of(flags[s, BOUNDS] != 0.0, table[0], table[1])
        row = cur[s + 1]
        row[0] = r
        d = clearances_into(
            centres[s], ps.sphere_radii[s], ws, grow, top, boxes, spheres, pad, row[1:]
        )
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


@dataclass(frozen=True, eq=False)
class Boundaries:
    """What a supervisor keeps an arm at rest inside (its
    :class:`~miles_ros.safety.config.SafetyConfig`'s, :meth:`of`): the TCP's workspace box
    and keep-out zones, and the link spheres' boundaries (the link sets of the module
    docstring); :meth:`clearance` measures poses against them."""

    workspace: np.ndarray
    """[6] The TCP's box: min xyz, max xyz (m)."""
    boxes: np.ndarray
    """[m, 6] Keep-out boxes (:func:`~miles_ros.safety.zones.zone_arrays`)."""
    spheres: np.ndarray
    """[k, 4] Keep-out spheres."""
    flags: np.ndarray
    """[S, 2] :func:`link_flags`."""
    padding: float
    table_height: float
    workspace_margin: float

    @classmethod
    def of(cls, config: SafetyConfig) -> Boundaries:
        """The boundaries of ``config``'s supervisor (its base keep-out zones)."""
        boxes, spheres = zone_arrays(config.zones)
        return cls(
            np.concatenate(config.workspace),
            boxes,
            spheres,
            link_flags(config.link_checks),
            float(config.zone_padding),
            float(config.table_height),
            float(config.link_workspace_margin),
        )

    def clearance(
        self,
        positions: np.ndarray,
        line_to: np.ndarray | None = None,
        samples: int = 64,
        stop_below: float = -np.inf,
    ) -> np.ndarray:
        """Per arm pose of ``positions`` [k, 7], at rest: the smallest margin (m) of its
        TCP to the workspace walls and the keep-out zones (the supervisor's point
        clearance) and of its checked link spheres to their boundaries. Negative where
        the pose violates one.

        With ``line_to`` [7] (and one pose): the smallest margin over ``samples`` poses
        along the straight joint-space line from it to ``line_to`` (one value), looked at
        every eighth sample first and given up as soon as it is below ``stop_below``."""
        qs = np.ascontiguousarray(np.asarray(positions, dtype=np.float64).reshape(-1, 7))
        args = (ps.sphere_radii, self.flags, self.workspace, self.boxes, self.spheres)
        args += (self.padding, self.table_height, self.workspace_margin)
        if line_to is None:
            return _poses_clearance(qs, *args)
        b = np.asarray(line_to, dtype=np.float64)
        return np.array([_line_clearance(qs[0], b, samples, stop_below, *args)])


@njit(cache=True)
def _pose_clearance(q, frames, centres, radii, flags, ws, boxes, spheres, pad, table, ws_margin):
    d = clearance(panda.fk_tcp(q), 0.0, ws, boxes, spheres, pad)
    if flags[:, ENV].max() == 0.0:
        return d
    ps.sphere_centers_into(q, frames, centres)
    for s in range(radii.shape[0]):
        d = min(
            d, _checked(centres[s], s, radii, flags, ws, boxes, spheres, pad, table, ws_margin)
        )
    return d


@njit(cache=True)
def _poses_clearance(qs, radii, flags, ws, boxes, spheres, pad, table, ws_margin):
    frames, centres = np.empty((9, 4, 4)), np.empty((radii.shape[0], 3))
    out = np.empty(qs.shape[0])
    for k in range(qs.shape[0]):
        args = (radii, flags, ws, boxes, spheres, pad, table, ws_margin)
        out[k] = _pose_clearance(qs[k], frames, centres, *args)
    return out


@njit(cache=True)
def _line_clearance(a, b, samples, stop, radii, flags, ws, boxes, spheres, pad, table, ws_margin):
    frames, centres = np.empty((9, 4, 4)), np.empty((radii.shape[0], 3))
    worst = 1e300
    for sweep in range(2):  # every eighth sample, then the others
        for i in range(samples):
            if (i % 8 == 0) != (sweep == 0):
                continue
            q = a + (i / max(samples - 1, 1)) * (b - a)
            args = (radii, flags, ws, boxes, spheres, pad, table, ws_margin)
            worst = min(worst, _pose_clearance(q, frames, centres, *args))
            if worst < stop:
                return worst
    return worst


@njit(cache=True)
def _checked(c, s, radii, flags, ws, boxes, spheres, pad, table, ws_margin):
    """:func:`sphere_clearance` of sphere ``s`` at ``c`` by its link set (``flags``); inf
    for a sphere that is not checked."""
    if flags[s, ENV] == 0.0:
        return np.inf
    bounds = flags[s, BOUNDS] != 0.0
    return sphere_clearance(c, radii[s], bounds, ws, boxes, spheres, pad, table, ws_margin)


@njit(cache=True)
def _count(centres, radii, flags, ws, boxes, spheres, pad, table, ws_margin, tolerance):
    count = 0
    for k in range(centres.shape[0]):
        for s in range(radii.shape[0]):
            args = (radii, flags, ws, boxes, spheres, pad, table, ws_margin)
            if _checked(centres[k, s], s, *args) < -tolerance:
                count += 1
    return count
