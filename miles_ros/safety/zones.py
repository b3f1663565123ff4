"""Cartesian geometry of the supervisor's zones (no kinematics): the workspace box and the
keep-out zones (axis-aligned boxes, spheres) in the robot base frame, parsed from their
text specs, and the numba kernels that measure a ball's clearance to them and test a
straight TCP segment against them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in the robot base frame."""

    name: str
    """Zone name used in events and permission policies."""
    lower: tuple[float, float, float]
    """Minimum corner (m)."""
    upper: tuple[float, float, float]
    """Maximum corner (m)."""


@dataclass(frozen=True)
class Sphere:
    """A sphere in the robot base frame."""

    name: str
    """Zone name used in events and permission policies."""
    center: tuple[float, float, float]
    """Centre (m)."""
    radius: float
    """Radius (m)."""


Zone = Box | Sphere


def parse_zone(spec: str) -> tuple[Zone, frozenset[str]]:
    """Parse ``"NAME box XMIN YMIN ZMIN XMAX YMAX ZMAX [forbid=TAG,TAG]"`` or
    ``"NAME sphere X Y Z R [forbid=...]"``. Returns the zone and its forbidden tags."""
    tokens = spec.split()
    forbid: frozenset[str] = frozenset()
    if tokens and tokens[-1].startswith("forbid="):
        forbid = frozenset(t for t in tokens.pop()[len("forbid=") :].split(",") if t)
    if len(tokens) < 2:
        raise ValueError(f"zone {spec!r}: expected 'NAME box|sphere NUMBERS...'")
    name, shape, numbers = tokens[0], tokens[1].lower(), tokens[2:]
    try:
        values = [float(x) for x in numbers]
    except ValueError as exc:
        raise ValueError(f"zone {spec!r}: {exc}") from None
    if not all(math.isfinite(x) for x in values):
        raise ValueError(f"zone {spec!r}: non-finite number")
    if shape == "box":
        if len(values) != 6:
            raise ValueError(f"zone {spec!r}: a box needs 6 numbers (min xyz, max xyz)")
        lower, upper = tuple(values[:3]), tuple(values[3:])
        if any(lo >= hi for lo, hi in zip(lower, upper, strict=True)):
            raise ValueError(f"zone {spec!r}: every minimum must be below its maximum")
        return Box(name, lower, upper), forbid
    if shape == "sphere":
        if len(values) != 4 or values[3] <= 0.0:
            raise ValueError(f"zone {spec!r}: a sphere needs x y z and a positive radius")
        return Sphere(name, tuple(values[:3]), values[3]), forbid
    raise ValueError(f"zone {spec!r}: unknown shape {shape!r} (box or sphere)")


def zone_arrays(zones: list[Zone] | tuple[Zone, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Boxes [m, 6] (min xyz, max xyz) and spheres [k, 4] (centre, radius) for the kernels."""
    boxes = [list(z.lower) + list(z.upper) for z in zones if isinstance(z, Box)]
    spheres = [list(z.center) + [z.radius] for z in zones if isinstance(z, Sphere)]
    return (
        np.array(boxes, dtype=np.float64).reshape(-1, 6),
        np.array(spheres, dtype=np.float64).reshape(-1, 4),
    )


@njit(cache=True)
def _box_signed_distance(p, bx):
    """Signed distance from ``p`` to box ``bx`` (negative inside)."""
    out2 = 0.0
    inside = -1e300
    for k in range(3):
        lo = bx[k] - p[k]
        hi = p[k] - bx[k + 3]
        d = lo if lo > hi else hi
        if d > 0.0:
            out2 += d * d
        if d > inside:
            inside = d
    if out2 > 0.0:
        return math.sqrt(out2)
    return inside


NO_TABLE = -1e300
"""The ``table`` of :func:`clearances_into` for a body the table does not bound (the TCP:
its workspace floor says how low it may go)."""


@njit(cache=True)
def boundary_count(boxes, spheres):
    """Number of boundaries :func:`clearances_into` numbers: six walls, the zones, the
    table."""
    return 7 + boxes.shape[0] + spheres.shape[0]


@njit(cache=True)
def clearances_into(p, radius, ws, grow, table, boxes, spheres, padding, out):
    """The margin (m) of the ball ``(p, radius)`` to each boundary into ``out``
    [:func:`boundary_count`], negative in a violation: 0-2 the walls of the workspace
    ``ws`` grown by ``grow`` at its minimum x, y, z, 3-5 at its maximum, then each of
    the ``boxes``, then each of the ``spheres``, then the table's top at height
    ``table`` (:data:`NO_TABLE`: none); every one less ``padding``. Returns the
    smallest."""
    nb = boxes.shape[0]
    if out.shape[0] != 7 + nb + spheres.shape[0]:
        raise ValueError("clearances_into: one entry per boundary (boundary_count)")
    for k in range(3):
        out[k] = p[k] - (ws[k] - grow)
        out[k + 3] = ws[k + 3] + grow - p[k]
    for b in range(nb):
        out[6 + b] = _box_signed_distance(p, boxes[b])
    for s in range(spheres.shape[0]):
        dx = p[0] - spheres[s, 0]
        dy = p[1] - spheres[s, 1]
        dz = p[2] - spheres[s, 2]
        out[6 + nb + s] = math.sqrt(dx * dx + dy * dy + dz * dz) - spheres[s, 3]
    out[out.shape[0] - 1] = p[2] - table
    c = 1e300
    for k in range(out.shape[0]):
        out[k] = out[k] - radius - padding
        if out[k] < c:
            c = out[k]
    return c


@njit(cache=True)
def clearance(p, radius, ws, boxes, spheres, padding):
    """Smallest margin (m) of the ball ``(p, radius)`` to the workspace walls and zones;
    negative when the ball leaves the workspace or touches a zone."""
    out = np.empty(boundary_count(boxes, spheres))
    return clearances_into(p, radius, ws, 0.0, NO_TABLE, boxes, spheres, padding, out)


@njit(cache=True)
def _segment_hits_box(p0, p1, bx, pad):
    """True when the segment enters the padded box (slab test)."""
    t0 = 0.0
    t1 = 1.0
    for k in range(3):
        d = p1[k] - p0[k]
        lo = bx[k] - pad
        hi = bx[k + 3] + pad
        if abs(d) < 1e-300:
            if p0[k] < lo or p0[k] > hi:
                return False
        else:
            ta = (lo - p0[k]) / d
            tb = (hi - p0[k]) / d
            if ta > tb:
                ta, tb = tb, ta
            if ta > t0:
                t0 = ta
            if tb < t1:
                t1 = tb
            if t0 > t1:
                return False
    return True


@njit(cache=True)
def _segment_hits_sphere(p0, p1, sp, pad):
    """True when the segment comes closer to the centre than radius + padding."""
    dx = p1[0] - p0[0]
    dy = p1[1] - p0[1]
    dz = p1[2] - p0[2]
    fx = p0[0] - sp[0]
    fy = p0[1] - sp[1]
    fz = p0[2] - sp[2]
    dd = dx * dx + dy * dy + dz * dz
    t = 0.0
    if dd > 0.0:
        t = -(fx * dx + fy * dy + fz * dz) / dd
        t = min(max(t, 0.0), 1.0)
    cx = fx + t * dx
    cy = fy + t * dy
    cz = fz + t * dz
    r = sp[3] + pad
    return cx * cx + cy * cy + cz * cz < r * r


@njit(cache=True)
def segment_clear(p0, p1, boxes, spheres, padding):
    """True when the segment ``p0 -> p1`` enters no zone that ``p0`` is not already in."""
    for b in range(boxes.shape[0]):
        if _box_signed_distance(p0, boxes[b]) >= padding:
            if _segment_hits_box(p0, p1, boxes[b], padding):
                return False
    for s in range(spheres.shape[0]):
        sp = spheres[s]
        d0 = math.sqrt((p0[0] - sp[0]) ** 2 + (p0[1] - sp[1]) ** 2 + (p0[2] - sp[2]) ** 2)
        if d0 >= sp[3] + padding:
            if _segment_hits_sphere(p0, p1, sp, padding):
                return False
    return True
