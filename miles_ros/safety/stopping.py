"""The jerk-limited stop to rest of one joint (numba kernels): how far the time-optimal
stop from a velocity and acceleration travels, the velocity envelope it cannot avoid, and
the largest (smallest) next acceleration whose stop stays below (above) a position bound.

The stop (see :mod:`miles_ros.safety.shaping`'s docstring): acceleration ramps at jerk
``J`` to at most ``-A`` and is released so that the velocity reaches zero without
reversing when that is possible. The supervisor's position limits, its braking envelope
(:mod:`miles_ros.safety.cartesian`) and the robot limits' stopping distances
(:mod:`miles_ros.safety.limits`) are all built on it.
"""

from __future__ import annotations

import math

from numba import njit

_BISECT_ITERS = 60
"""Bisection steps of the acceleration searches (to the last bit of a double)."""


@njit(cache=True)
def _stop_to_rest(v, a, amax, jmax):
    """Travel of the time-optimal jerk-limited stop from ``v >= (a^-)^2/(2J)``, ``v >= 0``.

    Profile: jerk ``-J`` down to the peak deceleration ``a_p`` (at most ``A``), hold it,
    jerk ``+J`` back to zero acceleration exactly when the velocity reaches zero.
    """
    ap = -math.sqrt(0.5 * (a * a + 2.0 * jmax * v))
    t2 = 0.0
    if ap < -amax:
        ap = -amax
        t2 = (v + (a * a - 2.0 * amax * amax) / (2.0 * jmax)) / amax
        if t2 < 0.0:
            t2 = 0.0
    t1 = (a - ap) / jmax
    if t1 < 0.0:
        t1 = 0.0
    t3 = -ap / jmax
    x1 = v * t1 + 0.5 * a * t1 * t1 - jmax * t1 * t1 * t1 / 6.0
    v1 = v + a * t1 - 0.5 * jmax * t1 * t1
    x2 = v1 * t2 + 0.5 * ap * t2 * t2
    v2 = v1 + ap * t2
    x3 = v2 * t3 + 0.5 * ap * t3 * t3 + jmax * t3 * t3 * t3 / 6.0
    return x1 + x2 + x3


@njit(cache=True)
def stop_travel_forward(v, a, amax, jmax):
    """Largest forward (positive) displacement of the stop-to-rest policy from ``(v, a)``.

    Zero when the joint moves backward and will not come forward again. When a reversal
    is unavoidable under the jerk limit (small velocity, strong opposite acceleration)
    the policy releases the acceleration at once and the forward part is integrated.
    """
    if v < 0.0 or (v == 0.0 and a <= 0.0):
        if a <= 0.0:
            return 0.0
        disc = a * a + 2.0 * jmax * v
        if disc <= 0.0:
            return 0.0
        # Backward stop overshoots into forward motion: zero crossing with accel sqrt(disc).
        return _stop_to_rest(0.0, math.sqrt(disc), amax, jmax)
    if a < 0.0 and 2.0 * jmax * v < a * a:
        disc = a * a - 2.0 * jmax * v
        t0 = (-a - math.sqrt(disc)) / jmax
        return v * t0 + 0.5 * a * t0 * t0 + jmax * t0 * t0 * t0 / 6.0
    return _stop_to_rest(v, a, amax, jmax)


@njit(cache=True)
def stop_travel(v, a, amax, jmax):
    """Distance (either direction) the stop-to-rest policy may still travel."""
    fwd = stop_travel_forward(v, a, amax, jmax)
    bwd = stop_travel_forward(-v, -a, amax, jmax)
    return fwd if fwd > bwd else bwd


@njit(cache=True)
def reach_hi(q, v, a1, h, amax, jmax):
    """Furthest forward position if ``a1`` is commanded now and the joint then stops."""
    v1 = v + a1 * h
    return q + v1 * h + stop_travel_forward(v1, a1, amax, jmax)


@njit(cache=True)
def reach_lo(q, v, a1, h, amax, jmax):
    """Furthest backward position if ``a1`` is commanded now and the joint then stops."""
    v1 = v + a1 * h
    return q + v1 * h - stop_travel_forward(-v1, -a1, amax, jmax)


@njit(cache=True)
def largest_accel_below(q, v, h, amax, jmax, lo, hi, bound):
    """Largest ``a'`` in ``[lo, hi]`` whose stop stays ``<= bound``.

    Returns ``(a', status)``: status 0 when ``hi`` is fine, 1 when the bound cut the
    interval, 2 when even ``lo`` overshoots (``lo`` is returned: the hardest braking).
    """
    if reach_hi(q, v, hi, h, amax, jmax) <= bound:
        return hi, 0
    if reach_hi(q, v, lo, h, amax, jmax) > bound:
        return lo, 2
    for _ in range(_BISECT_ITERS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if reach_hi(q, v, mid, h, amax, jmax) <= bound:
            lo = mid
        else:
            hi = mid
    return lo, 1


@njit(cache=True)
def smallest_accel_above(q, v, h, amax, jmax, lo, hi, bound):
    """Mirror image of :func:`largest_accel_below` for a lower position bound."""
    if reach_lo(q, v, lo, h, amax, jmax) >= bound:
        return lo, 0
    if reach_lo(q, v, hi, h, amax, jmax) < bound:
        return hi, 2
    for _ in range(_BISECT_ITERS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if reach_lo(q, v, mid, h, amax, jmax) >= bound:
            hi = mid
        else:
            lo = mid
    return hi, 1


@njit(cache=True)
def stop_envelope(v, a, vabs, jmax, env):
    """Velocity envelope ``env[0:2]`` of a stop from ``(v, a)``: the extreme velocities the
    jerk limit makes inevitable, widened to include zero and capped at ``+-vabs``."""
    lo = v - (min(a, 0.0) ** 2) / (2.0 * jmax)
    hi = v + (max(a, 0.0) ** 2) / (2.0 * jmax)
    env[0] = max(min(lo, 0.0), -vabs)
    env[1] = min(max(hi, 0.0), vabs)
