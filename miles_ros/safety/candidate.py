"""Whether one candidate output passes the supervisor's Cartesian limits
(:func:`evaluate_candidate`): the TCP at the commanded pose and along its segment from the
previous output, its braking ball, the TCP speed cap, and the same rules for every link
sphere; with a continuous margin for the blend search of
:func:`miles_ros.safety.cartesian.cartesian_filter` (whose docstring describes the braking
ball and the blend).

Standoff and recovery, per body (the TCP, each link sphere) and per boundary (each
workspace wall, the table, each zone; :func:`miles_ros.safety.zones.clearances_into`):
commanded TCP points keep :data:`STANDOFF` from every boundary they are not already
closer to (clearance never below ``min(previous, STANDOFF)``), so an arm the supervisor
steers toward a boundary comes to rest about that far inside (a hard brake may drift
into the band), with room for the braking ball of its first step away. An arm in a
violation or in the band got there from outside the supervisor (moved by hand, a
simulator reset, a driver) or by such a drift. Where its braking ball already reaches
past a boundary, every first step of a move out grows the ball faster than it moves the
TCP (the Lipschitz radius is conservative), so the ball rule alone would wedge it. For
each boundary the previous output's ball is past (deeper than :data:`BALL_TOLERANCE`),
a candidate's point therefore only has to get no closer to that boundary, and its
ball must be no larger than the previous one's or at most :data:`RECOVERY_RADIUS`:
the arm moves out at a low speed and never deeper, and its ball comes back outside
once the point is farther out than the ball's radius. Every other boundary keeps the
ball rule (the ball no deeper than before, at most 0, and the point out of the band
unless it was closer): the ball stays out of it, so neither a step nor a stop can
carry the body into it. When the rule read only the nearest boundary's distance, the
point could come as close to any other boundary as it was to the nearest one: a TCP
23.4 mm past a workspace wall ended 18.6 mm past the next one, a hand sphere 13.3 mm
below the table 8.7 mm into a zone beside it
(``tests/safety/test_safety_corners.py``). The recovery rule holds until the ball is
back outside, out of the band too: with the ball rule there an arm that had just left
a zone with its ball still 5 mm in it could grow its ball with its clearance, meet the
same zone again on its way home and, braking hard, stop 0.31 mm inside (hypothesis
seed 3448775711 of ``tests/safety/test_safety_tracking.py``); now it brakes where that
zone starts to come closer and, its ball outside again, comes on under the ball rule.
A stop during a recovery step is bounded by the ball only for the boundaries the ball
is past, which the point is already in or moving away from. An arm in the band whose
ball is still outside keeps the ball rule: applied there, the exception let a link
sphere resting 1.6 mm from a zone grow its ball into the zone and stop 0.4 mm inside
it (found by ``tests/safety/test_safety_links.py``). Applied to any arm at a boundary
(no standoff), that exception let the adversarial stream of ``bench/safety.py`` find
387 workspace violations in 20 s; with the standoff it finds none.

Whole arm: the same rules apply to the link spheres of :mod:`miles_ros.safety.links`,
each with its own braking ball, against the boundaries its link set meets; the
geometric margin of a candidate is the smallest over the bodies and boundaries. The
TCP is also checked along its segment; the spheres at each output (a sphere moves less
in one period than its braking ball grows at any speed that matters). ``zone_padding``
grows every zone and shrinks the workspace.
"""

from __future__ import annotations

import math

from numba import njit

from miles_ros.safety.kinematics import braking_radius, tcp_position_into
from miles_ros.safety.links import link_clearance
from miles_ros.safety.shaping import CARTESIAN, TCP_SPEED
from miles_ros.safety.zones import NO_TABLE, clearances_into, segment_clear

RECOVERY_RADIUS = 0.01
"""Largest braking ball (m) of a recovery step (see the module docstring)."""
BALL_TOLERANCE = 1e-9
"""A braking ball counts as inside a boundary (so that the recovery step may apply) only
when it is deeper than this (m): the blend search leaves a ball it stopped at a boundary
up to 1e-12 m deep."""
STANDOFF = 0.005
"""The TCP point keeps this far (m) from every boundary it is not already closer to, so an
arm brought to rest against a boundary rests this far inside it, with room for the
braking ball of its first step away (see the module docstring)."""


@njit(cache=True)
def body_rows(js, q, v, a, ws, boxes, spheres, pad, p, lk):
    """The rows of the bodies at arm positions ``q`` moving at ``v``/``a`` into the link
    context's candidate rows (``lk[6]``: row 0 the TCP, then each checked link sphere;
    :func:`miles_ros.safety.links.link_context`), the TCP position into ``p``. Returns
    the TCP's (ball, point) clearance and the links' (ball, point) clearance (1e300 with
    no sphere checked)."""
    tcp_position_into(q, p)
    row = lk[6][0]
    row[0] = braking_radius(js, v, a)
    d = clearances_into(p, 0.0, ws, 0.0, NO_TABLE, boxes, spheres, pad, row[1:])
    lc, ld, _ = link_clearance(q, v, a, js, ws, boxes, spheres, pad, lk)
    return d - row[0], d, lc, ld


@njit(cache=True)
def evaluate_candidate(js, q_new, v_new, a_new, speed_cap, period):
    """Check one candidate (``q_new``, ``v_new``, ``a_new``) under the TCP speed cap
    ``speed_cap``. ``period`` holds what every candidate of one output period shares:
    ``(p_prev, h, ws, boxes, spheres, pad, p, lk, link_out)``, the previous TCP position,
    the period, the geometry, and the outputs: it writes its TCP position into ``p``, its
    bodies' rows into ``lk[6]`` (read against the previous output's, ``lk[5]``) and its
    links' (ball, point) clearance into ``link_out`` [2].

    Returns (code, margin, speed, clearance, point clearance, geometric margin): code 0 =
    acceptable; margin (m) >= 0 when both the TCP step (speed cap * h) and the geometric
    rule pass (per body and boundary, the ball rule or the recovery rule of the module
    docstring), a continuous quantity used to search the blend factor.
    """
    p_prev, h, ws, boxes, spheres, pad, p, lk, link_out = period
    c, d, lc, ld = body_rows(js, q_new, v_new, a_new, ws, boxes, spheres, pad, p, lk)
    link_out[0] = lc
    link_out[1] = ld
    prev, cur = lk[5], lk[6]
    geom = _geom(prev, cur, 0)
    if lc < 1e299:  # the same rules for every checked link sphere
        flags = lk[0]
        for s in range(flags.shape[0]):
            if flags[s, 0] != 0.0:
                geom = min(geom, _geom(prev, cur, s + 1))
    dx = p[0] - p_prev[0]
    dy = p[1] - p_prev[1]
    dz = p[2] - p_prev[2]
    step = math.sqrt(dx * dx + dy * dy + dz * dz)
    margin = min(speed_cap * h - step, geom)
    code = 0
    if geom < 0.0 or not segment_clear(p_prev, p, boxes, spheres, pad):
        code = CARTESIAN
        if margin >= 0.0:
            margin = -1e-9  # the segment test failed: infeasible, but no distance
    elif step > speed_cap * h:
        code = TCP_SPEED
    return code, margin, step / h, c, d, geom


@njit(cache=True)
def _geom(prev, cur, i):
    """The geometric margin of body ``i``'s braking ball: its candidate row ``cur[i]``
    against the previous output's ``prev[i]`` (braking radius, then the point clearance
    to each boundary). Per boundary: where the previous ball was past it (deeper than
    BALL_TOLERANCE), the point no closer; elsewhere the ball no deeper than before (at
    most 0, less 1e-12) and the point out of the standoff band unless it was already
    closer. Past any boundary, the ball no larger than before or RECOVERY_RADIUS."""
    r_prev, r = prev[i, 0], cur[i, 0]
    geom = 1e300
    past = False
    for k in range(1, cur.shape[1]):
        d_prev, d = prev[i, k], cur[i, k]
        c_floor = min(d_prev - r_prev, 0.0) - 1e-12
        if c_floor < -BALL_TOLERANCE:
            past = True
            geom = min(geom, d - d_prev + 1e-12)
        else:
            geom = min(geom, d - r - c_floor, d - min(d_prev, STANDOFF) + 1e-12)
    if past:
        geom = min(geom, max(r_prev + 1e-12, RECOVERY_RADIUS) - r)
    return geom
