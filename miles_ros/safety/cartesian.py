"""Cartesian limits through forward kinematics: TCP workspace box, keep-out zones (boxes,
spheres) and a TCP speed cap.

A candidate output is checked at the commanded pose, along the straight segment from the
previous TCP position to it, and for its *braking ball*: the TCP cannot leave the ball
of radius ``sum_i LIP_i * stop_travel_i`` around the commanded pose while every joint
stops (``LIP_i`` bounds the distance from joint ``i``'s axis to the TCP, so it is a
Lipschitz constant of the TCP position in ``q_i``). The ball must stay inside the
workspace and outside every zone; a state that already violates this (a robot started
inside a zone) may only move so that the violation does not grow. Under braking the
new ball lies inside the old one (up to discretisation, exercised by the property
tests), so the fully braking command is acceptable: when the shaped command fails, the
output is the largest blend ``brake + s (shaped - brake)`` found to pass (a
false-position search on a continuous margin, started from the exact crossing of the
speed cap along the TCP chord when only the cap bound; every blend respects the joint
limits because each joint's admissible set is an interval).

Only the TCP point is checked (not the links or the hand's volume); ``zone_padding``
grows every zone and shrinks the workspace to leave room for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from miles_ros.safety.shaping import (
    AMAX,
    CARTESIAN,
    ENV_HI,
    ENV_LO,
    JMAX,
    LIP,
    OUT_A,
    OUT_CODE,
    OUT_Q,
    OUT_V,
    TCP_SPEED,
    VMAX,
    A,
    Q,
    V,
    brake_step,
    shape_step,
    stop_envelope,
    stop_travel,
)
from sims.robots import panda

_BLEND_ITERS = 10
_BLEND_TOL = 0.02
"""The blend search stops when the margin is within this fraction of the step allowed
by the speed cap (the output is then at most 2 % slower than it could be)."""


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


def lipschitz_radii() -> np.ndarray:
    """Per-joint upper bound [7] on the distance from the joint's axis to the TCP (m).

    Frame ``i`` lies on joint ``i``'s axis; the TCP is reached from it by the translations
    of the later frames (``a`` then ``d``, perpendicular) and the flange-to-TCP offset.
    """
    seg = np.hypot(panda.dh_a, panda.dh_d)
    return np.array(
        [seg[i + 1 :].sum() + panda.flange_to_tcp for i in range(panda.NUM_JOINTS)],
        dtype=np.float64,
    )


_COS_ALPHA = np.cos(panda.dh_alpha)
_SIN_ALPHA = np.sin(panda.dh_alpha)


@njit(cache=True)
def tcp_position_into(q, out):
    """TCP position of arm positions ``q`` [7] written into ``out`` [3], without
    temporaries: the robot model's modified DH chain (``panda.dh_*``) composed in scalars;
    equal to ``panda.fk_tcp`` (tested)."""
    r00, r01, r02 = 1.0, 0.0, 0.0
    r10, r11, r12 = 0.0, 1.0, 0.0
    r20, r21, r22 = 0.0, 0.0, 1.0
    px, py, pz = 0.0, 0.0, 0.0
    for i in range(8):
        theta = q[i] if i < 7 else 0.0
        ct, st = math.cos(theta), math.sin(theta)
        ca, sa = _COS_ALPHA[i], _SIN_ALPHA[i]
        a, d = panda.dh_a[i], panda.dh_d[i]
        # T = [[ct, -st, 0, a], [st ca, ct ca, -sa, -sa d], [st sa, ct sa, ca, ca d]]
        tx, ty, tz = a, -sa * d, ca * d
        px, py, pz = (
            px + r00 * tx + r01 * ty + r02 * tz,
            py + r10 * tx + r11 * ty + r12 * tz,
            pz + r20 * tx + r21 * ty + r22 * tz,
        )
        m10, m11, m12 = st * ca, ct * ca, -sa
        m20, m21 = st * sa, ct * sa
        r00, r01, r02 = (
            r00 * ct + r01 * m10 + r02 * m20,
            -r00 * st + r01 * m11 + r02 * m21,
            r01 * m12 + r02 * ca,
        )
        r10, r11, r12 = (
            r10 * ct + r11 * m10 + r12 * m20,
            -r10 * st + r11 * m11 + r12 * m21,
            r11 * m12 + r12 * ca,
        )
        r20, r21, r22 = (
            r20 * ct + r21 * m10 + r22 * m20,
            -r20 * st + r21 * m11 + r22 * m21,
            r21 * m12 + r22 * ca,
        )
    # Flange -> TCP: a rotation about z (hand yaw) and flange_to_tcp along z.
    out[0] = px + r02 * panda.flange_to_tcp
    out[1] = py + r12 * panda.flange_to_tcp
    out[2] = pz + r22 * panda.flange_to_tcp


@njit(cache=True)
def tcp_position(q):
    """TCP position [3] for arm positions ``q`` [7]."""
    out = np.empty(3)
    tcp_position_into(q, out)
    return out


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


@njit(cache=True)
def clearance(p, radius, ws, boxes, spheres, padding):
    """Smallest margin (m) of the ball ``(p, radius)`` to the workspace walls and zones;
    negative when the ball leaves the workspace or touches a zone."""
    c = 1e300
    for k in range(3):
        d = min(p[k] - ws[k], ws[k + 3] - p[k])
        if d < c:
            c = d
    for b in range(boxes.shape[0]):
        d = _box_signed_distance(p, boxes[b])
        if d < c:
            c = d
    for s in range(spheres.shape[0]):
        dx = p[0] - spheres[s, 0]
        dy = p[1] - spheres[s, 1]
        dz = p[2] - spheres[s, 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz) - spheres[s, 3]
        if d < c:
            c = d
    return c - radius - padding


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


@njit(cache=True)
def braking_radius(js, vel, acc):
    """Radius of the braking ball for joint velocities/accelerations ``vel``/``acc``."""
    r = 0.0
    for i in range(js.shape[0]):
        r += js[i, LIP] * stop_travel(vel[i], acc[i], js[i, AMAX], js[i, JMAX])
    return r


@njit(cache=True)
def _evaluate(js, q_new, v_new, a_new, p_prev, c_floor, h, speed_cap, ws, boxes, spheres, pad, p):
    """Check one candidate; writes its TCP position into ``p``.

    Returns (code, margin, speed, clearance): code 0 = acceptable; margin (m) >= 0 when
    both the TCP step (speed cap * h) and the braking-ball clearance pass, a continuous
    quantity used to search the blend factor.
    """
    tcp_position_into(q_new, p)
    c = clearance(p, braking_radius(js, v_new, a_new), ws, boxes, spheres, pad)
    dx = p[0] - p_prev[0]
    dy = p[1] - p_prev[1]
    dz = p[2] - p_prev[2]
    step = math.sqrt(dx * dx + dy * dy + dz * dz)
    margin = min(speed_cap * h - step, c - c_floor)
    code = 0
    if c < c_floor or not segment_clear(p_prev, p, boxes, spheres, pad):
        code = CARTESIAN
        if margin >= 0.0:
            margin = -1e-9  # the segment test failed: infeasible, but no distance
    elif step > speed_cap * h:
        code = TCP_SPEED
    return code, margin, step / h, c


@njit(cache=True)
def _cap_crossing(p_brake, p_cand, p_prev, step):
    """s in [0, 1] where the chord p_brake -> p_cand is ``step`` away from ``p_prev``."""
    ux, uy, uz = p_brake[0] - p_prev[0], p_brake[1] - p_prev[1], p_brake[2] - p_prev[2]
    dx, dy, dz = p_cand[0] - p_brake[0], p_cand[1] - p_brake[1], p_cand[2] - p_brake[2]
    qa = dx * dx + dy * dy + dz * dz
    qb = 2.0 * (ux * dx + uy * dy + uz * dz)
    qc = ux * ux + uy * uy + uz * uz - step * step
    disc = qb * qb - 4.0 * qa * qc
    if qa <= 0.0 or disc < 0.0:
        return -1.0
    return (-qb + math.sqrt(disc)) / (2.0 * qa)


@njit(cache=True)
def _blend(js, h, out, brake, s, qv, vv, av):
    for i in range(js.shape[0]):
        acc = brake[i, OUT_A] + s * (out[i, OUT_A] - brake[i, OUT_A])
        vel = js[i, V] + acc * h
        qv[i] = js[i, Q] + vel * h
        vv[i] = vel
        av[i] = acc


@njit(cache=True)
def cartesian_filter(js, h, out, brake, p_prev, c_prev, speed_cap, ws, boxes, spheres, pad, res):
    """Accept ``out`` or replace it by the largest acceptable blend toward the braking output.

    ``brake`` [n, 4] is scratch for the braking output of the same state (computed here
    only when ``out`` fails). The blend factor is searched by false position (Illinois)
    on the continuous margin, keeping the best acceptable factor found. ``res`` [5]
    receives (blend factor s, clearance, px, py, pz) of the chosen output. Returns the
    code of the check that bound (0 when ``out`` passed unchanged).
    """
    n = js.shape[0]
    c_floor = min(c_prev, 0.0) - 1e-12
    p = np.empty(3)
    code, m_hi, speed, c = _evaluate(
        js,
        out[:, OUT_Q],
        out[:, OUT_V],
        out[:, OUT_A],
        p_prev,
        c_floor,
        h,
        speed_cap,
        ws,
        boxes,
        spheres,
        pad,
        p,
    )
    if code == 0:
        res[0] = 1.0
        res[1] = c
        res[2:5] = p
        return 0
    first_code = code
    p_cand = p.copy()
    brake_step(js, h, brake)
    # The braking output is always kept (it cannot make a clear state unclear); the speed
    # cap is relaxed to its speed when the arm already moves faster than the cap.
    _, _, bspeed, bc = _evaluate(
        js,
        brake[:, OUT_Q],
        brake[:, OUT_V],
        brake[:, OUT_A],
        p_prev,
        c_floor,
        h,
        1e300,
        ws,
        boxes,
        spheres,
        pad,
        p,
    )
    best_p = p.copy()
    cap = max(speed_cap, bspeed)
    qv = np.empty(n)
    vv = np.empty(n)
    av = np.empty(n)
    m_lo = min((cap - bspeed) * h, bc - c_floor)
    best_s = 0.0
    best_c = bc
    s_lo, s_hi = 0.0, 1.0
    m_lo = max(m_lo, 0.0)
    side = 0
    # When only the speed cap bound, the TCP path over one period is nearly linear in s:
    # the first guess solves |p_b - p_prev + s (p_c - p_b)| = cap h, a little inside.
    guess = -1.0
    if first_code == TCP_SPEED:
        guess = _cap_crossing(best_p, p_cand, p_prev, cap * h * (1.0 - 0.5 * _BLEND_TOL))
    for it in range(_BLEND_ITERS):
        if it == 0 and 0.0 < guess < 1.0:
            s = guess
        elif m_lo - m_hi > 0.0:
            s = s_lo + (s_hi - s_lo) * m_lo / (m_lo - m_hi)
        else:
            s = 0.5 * (s_lo + s_hi)
        s = min(max(s, s_lo + 1e-3 * (s_hi - s_lo)), s_hi - 1e-3 * (s_hi - s_lo))
        _blend(js, h, out, brake, s, qv, vv, av)
        code, m, speed, c = _evaluate(
            js, qv, vv, av, p_prev, c_floor, h, cap, ws, boxes, spheres, pad, p
        )
        if code == 0:
            best_s, best_c = s, c
            best_p[:] = p
            s_lo, m_lo = s, m
            if side == 1:
                m_hi *= 0.5  # Illinois: keep the other end from stalling the secant
            side = 1
            if m <= _BLEND_TOL * (cap * h + 1e-9):
                break
        else:
            s_hi, m_hi = s, min(m, -1e-12)
            if side == -1:
                m_lo *= 0.5
            side = -1
        if s_hi - s_lo < 1e-4:
            break
    _blend(js, h, out, brake, best_s, qv, vv, av)
    for i in range(n):
        q_new = qv[i]
        v_new = (q_new - js[i, Q]) / h
        out[i, OUT_Q] = q_new
        out[i, OUT_A] = (v_new - js[i, V]) / h
        out[i, OUT_V] = v_new
        out[i, OUT_CODE] = first_code
    res[0] = best_s
    res[1] = best_c
    res[2:5] = best_p
    return first_code


@njit(cache=True)
def supervise_step(
    js,
    h,
    stop_mode,
    scale_mode,
    out,
    scratch,
    work,
    p_prev,
    c_prev,
    speed_cap,
    ws,
    boxes,
    spheres,
    pad,
    res,
):
    """One complete check: shape every joint, apply the Cartesian limits (unless stopping),
    then advance the state in ``js`` to the new output (and its stop envelope).

    ``res`` [7] receives (blend factor, clearance, px, py, pz, fallback joints, still).
    Returns the Cartesian code (0 when the Cartesian checks did not intervene).
    """
    n_fallback = shape_step(js, h, stop_mode, scale_mode, out, work)
    code = 0
    if stop_mode:
        p = np.empty(3)
        tcp_position_into(out[:, OUT_Q], p)
        res[0] = 1.0
        res[1] = clearance(
            p, braking_radius(js, out[:, OUT_V], out[:, OUT_A]), ws, boxes, spheres, pad
        )
        res[2:5] = p
    else:
        code = cartesian_filter(
            js, h, out, scratch, p_prev, c_prev, speed_cap, ws, boxes, spheres, pad, res
        )
    still = 1.0
    env = np.empty(2)
    for i in range(js.shape[0]):
        js[i, Q] = out[i, OUT_Q]
        js[i, V] = out[i, OUT_V]
        js[i, A] = out[i, OUT_A]
        if js[i, V] != 0.0 or js[i, A] != 0.0:
            still = 0.0
        if stop_mode:
            # The new state's own envelope: inside the previous one by construction (the
            # velocity bounds keep it there); recomputing it rather than intersecting
            # keeps rounding from leaving the state a hair outside its own envelope.
            stop_envelope(js[i, V], js[i, A], js[i, VMAX], js[i, JMAX], env)
            js[i, ENV_LO] = env[0]
            js[i, ENV_HI] = env[1]
    res[5] = n_fallback
    res[6] = still
    return code
