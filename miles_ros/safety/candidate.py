"""Whether one candidate output passes the supervisor's Cartesian limits
(:func:`evaluate_candidate`): the TCP at the commanded pose and along its segment from the
previous output, its braking ball, the TCP speed cap, and the same rules for every link
sphere; with a continuous margin for the blend search of
:func:`miles_ros.safety.cartesian.cartesian_filter` (whose docstring describes the braking
ball and the blend).

Standoff and recovery: commanded TCP points keep :data:`STANDOFF` from every boundary they
are not already closer to (clearance never below ``min(previous, STANDOFF)``), so an arm
the supervisor steers toward a boundary comes to rest about that far inside (a hard
brake may drift into the band), with room for the braking ball of its first step away.
An arm in a violation or in the band got there from outside the supervisor (moved by
hand, a simulator reset, a driver) or by such a drift. Where its braking ball already
reaches past the boundary, every first step of a move out grows the ball faster than it
moves the TCP (the Lipschitz radius is conservative), so the ball rule alone would wedge
it. While the previous output's ball is past a boundary (deeper than
:data:`BALL_TOLERANCE`), a candidate is therefore accepted when its TCP point gets no
closer to the nearest boundary and its braking ball is no larger than the previous one's
or at most :data:`RECOVERY_RADIUS`: the arm moves out at a low speed and never deeper,
and its ball comes back outside once the point is farther out than the ball's radius.
The rule holds until then, out of the band too: with the ball rule there (the ball no
deeper than before, the point out of the band) an arm that had just left a zone with
its ball still 5 mm in it could grow its ball with its clearance, meet the same zone
again on its way home and, braking hard, stop 0.31 mm inside (hypothesis seed 3448775711
of ``tests/safety/test_safety_tracking.py``); now it brakes where the nearest boundary
starts to come closer and, its ball outside again, comes on under the ball rule. The
price: a stop during such a step is bounded by the ball, not by the boundary, so it
could end up to the ball's radius past a boundary within that radius of the point. An
arm in the band whose ball is still outside keeps the ball rule: applied there, the
exception let a link sphere resting 1.6 mm from a zone grow its ball into the zone and
stop 0.4 mm inside it (found by ``tests/safety/test_safety_links.py``). Applied to any
arm at a boundary (no standoff), that exception let the adversarial stream of
``bench/safety.py`` find 387 workspace violations in 20 s; with the standoff it finds
none.

Whole arm: the same rules (the ball no deeper than before, the point standoff, the
recovery step) apply to the link spheres of :mod:`miles_ros.safety.links`, each with
its own braking ball; the geometric margin of a candidate is the smaller of the TCP's
and the worst sphere's. The TCP is also checked along its segment; the spheres at each
output (a sphere moves less in one period than its braking ball grows at any speed that
matters). ``zone_padding`` grows every zone and shrinks the workspace.
"""

from __future__ import annotations

import math

from numba import njit

from miles_ros.safety.kinematics import braking_radius, tcp_position_into
from miles_ros.safety.links import link_clearance
from miles_ros.safety.shaping import CARTESIAN, TCP_SPEED
from miles_ros.safety.zones import clearance, segment_clear

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
def evaluate_candidate(js, q_new, v_new, a_new, speed_cap, period):
    """Check one candidate (``q_new``, ``v_new``, ``a_new``) under the TCP speed cap
    ``speed_cap``. ``period`` holds what every candidate of one output period shares:
    ``(p_prev, c_floor, d_prev, h, ws, boxes, spheres, pad, p, lk, link_out)``, the
    previous TCP position, ball clearance floor and point clearance, the period, the
    geometry, and the outputs: it writes its TCP position into ``p`` and its links'
    (ball, point) clearance into ``link_out`` [2] (each sphere's rows into ``lk``).

    Returns (code, margin, speed, clearance, point clearance, geometric margin): code 0 =
    acceptable; margin (m) >= 0 when both the TCP step (speed cap * h) and the geometric
    rule pass (the ball rule, or the recovery rule of the module docstring), a continuous
    quantity used to search the blend factor.
    """
    p_prev, c_floor, d_prev, h, ws, boxes, spheres, pad, p, lk, link_out = period
    tcp_position_into(q_new, p)
    r = braking_radius(js, v_new, a_new)
    d = clearance(p, 0.0, ws, boxes, spheres, pad)
    c = d - r
    # The ball outside every boundary: the ball no deeper (outside) and the point out of
    # the standoff band unless it was already closer. The ball past a boundary (the point
    # in a violation or in the band, put there from outside the supervisor or by a hard
    # brake's drift, or just out of the band after a recovery step): the point no closer
    # to the nearest boundary and the ball no larger than before or at most
    # RECOVERY_RADIUS, until the ball is back outside.
    geom = _geom(c, d, r, c_floor, d_prev)
    # The same rules for every link sphere, each against its own previous clearances.
    lc, ld, _ = link_clearance(q_new, v_new, a_new, js, ws, boxes, spheres, pad, lk)
    link_out[0] = lc
    link_out[1] = ld
    if lc < 1e299:
        geom = min(geom, _link_geom(lk))
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
def _link_geom(lk):
    """The geometric margin of the link spheres (the candidate's rows of ``lk`` against
    the previous output's): per sphere, its ball no deeper than before and its point out
    of the standoff band, or, for a sphere whose point was in the band or a violation, a
    recovery step (small ball, point no closer); the worst sphere's."""
    flags, prev, cur = lk[0], lk[5], lk[6]
    geom = 1e300
    for s in range(flags.shape[0]):
        if flags[s, 0] == 0.0:
            continue
        c, d, r = cur[s, 0], cur[s, 1], cur[s, 2]
        c_floor = min(prev[s, 0], 0.0) - 1e-12
        geom = min(geom, _geom(c, d, r, c_floor, prev[s, 1]))
    return geom


@njit(cache=True)
def _geom(c, d, r, c_floor, d_prev):
    """The geometric margin of one ball (clearance ``c``, point clearance ``d``, radius
    ``r``) against the previous output's ball clearance floor ``c_floor`` (its clearance,
    at most 0, less 1e-12) and point clearance ``d_prev``: the rules of the module
    docstring."""
    if c_floor < -BALL_TOLERANCE:
        # The ball past a boundary: the point no closer to the nearest boundary, the ball
        # no larger than before (d_prev - c_floor) or at most RECOVERY_RADIUS.
        return min(d - d_prev + 1e-12, max(d_prev - c_floor, RECOVERY_RADIUS) - r)
    return min(c - c_floor, d - min(d_prev, STANDOFF) + 1e-12)
