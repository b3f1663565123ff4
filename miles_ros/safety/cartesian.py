"""Cartesian limits through forward kinematics: TCP workspace box, keep-out zones (boxes,
spheres) and a TCP speed cap; and :func:`supervise_step`, the supervisor's whole check of
one output period (joint shaping, then these limits). The geometry is in
:mod:`miles_ros.safety.zones`, the TCP and braking radius in :mod:`miles_ros.safety.kinematics`.

A candidate output is checked at the commanded pose, along the straight segment from the
previous TCP position to it, and for its *braking ball*: the TCP cannot leave the ball
of radius ``sum_i LIP_i * stop_travel_i`` around the commanded pose while every joint
stops (``LIP_i`` bounds the distance from joint ``i``'s axis to the TCP, so it is a
Lipschitz constant of the TCP position in ``q_i``). The ball must stay inside the
workspace and outside every zone; a state that already violates this (a robot started
inside a zone, or re-seeded there by a tracking reset) may only move so that neither the
ball's nor the TCP point's violation grows. Under braking the
new ball lies inside the old one (up to discretisation, exercised by the property
tests), so the fully braking command is acceptable: when the shaped command fails, the
output is the largest blend ``brake + s (shaped - brake)`` found to pass (a
false-position search on a continuous margin, started from the exact crossing of the
speed cap along the TCP chord when only the cap bound; every blend respects the joint
limits because each joint's admissible set is an interval).

The acceptance rules of one candidate (standoff, recovery, link spheres) are
:mod:`miles_ros.safety.candidate`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from miles_ros.safety.candidate import (
    RECOVERY_RADIUS,
    STANDOFF,
    body_rows,
    evaluate_candidate,
)
from miles_ros.safety.shaping import (
    ENV_HI,
    ENV_LO,
    JMAX,
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
)
from miles_ros.safety.stopping import stop_envelope
from miles_ros.safety.zones import parse_zone

__all__ = [
    "RECOVERY_RADIUS",
    "STANDOFF",
    "cartesian_filter",
    "parse_zone",
    "supervise_step",
]
"""``parse_zone``, ``RECOVERY_RADIUS`` and ``STANDOFF`` stay importable here for the callers
written before the splits."""

_BLEND_ITERS = 10
_BLEND_TOL = 0.02
"""The blend search stops when the margin is within this fraction of the step allowed
by the speed cap (the output is then at most 2 % slower than it could be)."""


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
def _record(res, s, c, p, d, link_c, link_d, prev_rows, rows):
    """The chosen output into ``res``: blend factor ``s``, the ball's clearance ``c``, the
    TCP ``p``, its point clearance ``d`` and the links' (ball, point) clearances; its
    bodies' rows ``rows`` become the previous output's (``prev_rows``, ``lk[5]``)."""
    res[0] = s
    res[1] = c
    res[2:5] = p
    res[7] = d
    res[8] = link_c
    res[9] = link_d
    prev_rows[:] = rows


@njit(cache=True)
def cartesian_filter(js, h, out, brake, p_prev, speed_cap, ws, boxes, spheres, pad, res, lk):
    """Accept ``out`` or replace it by the largest acceptable blend toward the braking output.

    ``brake`` [n, 4] is scratch for the braking output of the same state (computed here
    only when ``out`` fails). The blend factor is searched by false position (Illinois)
    on the continuous margin, keeping the best acceptable factor found. ``res`` [10]
    receives (blend factor s, clearance, px, py, pz) of the chosen output in
    ``res[0:5]``, its point clearance in ``res[7]`` and its links' (ball, point)
    clearance in ``res[8:10]``; ``lk``: the link context
    (:func:`miles_ros.safety.links.link_context`), whose previous rows (``lk[5]``, the
    previous output's per body and boundary) the rules read and the chosen output's
    replace. Returns the code of the check that bound (0 when ``out`` passed
    unchanged).
    """
    n = js.shape[0]
    p = np.empty(3)
    link_out = np.empty(2)
    prev_rows, cur_rows, best_rows = lk[5], lk[6], lk[7]
    period = (p_prev, h, ws, boxes, spheres, pad, p, lk, link_out)
    code, m_hi, speed, c, d, _ = evaluate_candidate(
        js, out[:, OUT_Q], out[:, OUT_V], out[:, OUT_A], speed_cap, period
    )
    if code == 0:
        _record(res, 1.0, c, p, d, link_out[0], link_out[1], prev_rows, cur_rows)
        return 0
    first_code = code
    p_cand = p.copy()
    brake_step(js, h, brake)
    # The braking output is always kept (it cannot make a clear state unclear); the speed
    # cap is relaxed to its speed when the arm already moves faster than the cap.
    _, _, bspeed, bc, bd, bgeom = evaluate_candidate(
        js, brake[:, OUT_Q], brake[:, OUT_V], brake[:, OUT_A], 1e300, period
    )
    best_p = p.copy()
    best_l = link_out.copy()
    best_rows[:] = cur_rows
    cap = max(speed_cap, bspeed)
    qv = np.empty(n)
    vv = np.empty(n)
    av = np.empty(n)
    m_lo = min((cap - bspeed) * h, bgeom)
    best_s = 0.0
    best_c = bc
    best_d = bd
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
        code, m, speed, c, d, _ = evaluate_candidate(js, qv, vv, av, cap, period)
        if code == 0:
            best_s, best_c, best_d = s, c, d
            best_p[:] = p
            best_l[:] = link_out
            best_rows[:] = cur_rows
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
    _record(res, best_s, best_c, best_p, best_d, best_l[0], best_l[1], prev_rows, best_rows)
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
    speed_cap,
    ws,
    boxes,
    spheres,
    pad,
    res,
    lk,
):
    """One complete check: shape every joint, apply the Cartesian limits (unless stopping),
    then advance the state in ``js`` to the new output (and its stop envelope).

    ``res`` [10] receives (blend factor, clearance, px, py, pz, fallback joints, still,
    point clearance, links' ball clearance, links' point clearance); ``lk``: the link
    context, holding the previous output's rows (per body and boundary) on entry and
    this output's on return. Returns the Cartesian code (0 when the Cartesian checks did
    not intervene).
    """
    n_fallback = shape_step(js, h, stop_mode, scale_mode, out, work)
    code = 0
    if stop_mode:
        p = np.empty(3)
        c, d, lc, ld = body_rows(
            js, out[:, OUT_Q], out[:, OUT_V], out[:, OUT_A], ws, boxes, spheres, pad, p, lk
        )
        _record(res, 1.0, c, p, d, lc, ld, lk[5], lk[6])
    else:
        code = cartesian_filter(
            js, h, out, scratch, p_prev, speed_cap, ws, boxes, spheres, pad, res, lk
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
