"""Jerk-limited shaping maths of one joint, written once for the safety supervisor and the
arm's command-path model: the time-optimal jerk-limited stop to rest, the velocity bounds
that the jerk limit can always honour, and the admissible interval of the next
acceleration (scalar ``register_jitable`` functions, compiled by the supervisor's
``@njit`` kernels in :mod:`miles_ros.safety`, by the numba backend's CPU kernels and by
its CUDA kernel).

The stop (see :mod:`miles_ros.safety.shaping`'s docstring for the discrete model):
acceleration ramps at jerk ``J`` to at most ``-A`` and is released so that the velocity
reaches zero without reversing when that is possible. The supervisor's position limits,
its braking envelope and the robot limits' stopping distances are all built on it; so is
the command-path model of :mod:`sims.kernels.actuator`.
"""

from __future__ import annotations

import math

from numba.extending import register_jitable

_BISECT_ITERS = 60
"""Bisection steps of the acceleration searches (to the last bit of a double)."""

# What bound a joint's output (codes of :func:`joint_interval` and the supervisor's reports).
FREE = 0
POSITION = 1
VELOCITY = 2
ACCELERATION = 3
JERK = 4
CARTESIAN = 5
TCP_SPEED = 6
INFEASIBLE = 7
SCALED = 8
CODE_NAMES = (
    "none",
    "position_limit",
    "velocity_limit",
    "acceleration_limit",
    "jerk_limit",
    "cartesian",
    "tcp_speed",
    "infeasible",
    "scaled",
)


@register_jitable
def stop_to_rest(v, a, amax, jmax):
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


@register_jitable
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
        return stop_to_rest(0.0, math.sqrt(disc), amax, jmax)
    if a < 0.0 and 2.0 * jmax * v < a * a:
        disc = a * a - 2.0 * jmax * v
        t0 = (-a - math.sqrt(disc)) / jmax
        return v * t0 + 0.5 * a * t0 * t0 + jmax * t0 * t0 * t0 / 6.0
    return stop_to_rest(v, a, amax, jmax)


@register_jitable
def stop_travel(v, a, amax, jmax):
    """Distance (either direction) the stop-to-rest policy may still travel."""
    fwd = stop_travel_forward(v, a, amax, jmax)
    bwd = stop_travel_forward(-v, -a, amax, jmax)
    return fwd if fwd > bwd else bwd


@register_jitable
def reach_hi(q, v, a1, h, amax, jmax):
    """Furthest forward position if ``a1`` is commanded now and the joint then stops."""
    v1 = v + a1 * h
    return q + v1 * h + stop_travel_forward(v1, a1, amax, jmax)


@register_jitable
def reach_lo(q, v, a1, h, amax, jmax):
    """Furthest backward position if ``a1`` is commanded now and the joint then stops."""
    v1 = v + a1 * h
    return q + v1 * h - stop_travel_forward(-v1, -a1, amax, jmax)


@register_jitable
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


@register_jitable
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


@register_jitable
def largest_accel_below_within(q, v, h, amax, jmax, lo, hi, bound, tol):
    """:func:`largest_accel_below` to a tolerance, in fewer evaluations: the stop of the
    ``a'`` returned stays ``<= bound`` and, with status 1, ends within ``tol`` of it
    (regula falsi with the Illinois modification on the bracket ``[lo, hi]``)."""
    f_hi = reach_hi(q, v, hi, h, amax, jmax) - bound
    if f_hi <= 0.0:
        return hi, 0
    f_lo = reach_hi(q, v, lo, h, amax, jmax) - bound
    if f_lo > 0.0:
        return lo, 2
    side = 0
    for _ in range(_BISECT_ITERS):
        if f_lo >= -tol:
            break
        mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        if not lo < mid < hi:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
        f = reach_hi(q, v, mid, h, amax, jmax) - bound
        if f <= 0.0:
            lo = mid
            f_lo = f
            if side == -1:
                f_hi *= 0.5
            side = -1
        else:
            hi = mid
            f_hi = f
            if side == 1:
                f_lo *= 0.5
            side = 1
    return lo, 1


@register_jitable
def smallest_accel_above_within(q, v, h, amax, jmax, lo, hi, bound, tol):
    """Mirror image of :func:`largest_accel_below_within` for a lower position bound."""
    x, status = largest_accel_below_within(-q, -v, h, amax, jmax, -hi, -lo, -bound, tol)
    return -x, status


@register_jitable
def largest_accel_below_to(q, v, h, amax, jmax, lo, hi, bound, tol):
    """:func:`largest_accel_below` (``tol`` 0: to the last bit) or
    :func:`largest_accel_below_within` (the stop ends within ``tol`` of ``bound``)."""
    if tol > 0.0:
        return largest_accel_below_within(q, v, h, amax, jmax, lo, hi, bound, tol)
    return largest_accel_below(q, v, h, amax, jmax, lo, hi, bound)


@register_jitable
def smallest_accel_above_to(q, v, h, amax, jmax, lo, hi, bound, tol):
    """Mirror image of :func:`largest_accel_below_to` for a lower position bound."""
    if tol > 0.0:
        return smallest_accel_above_within(q, v, h, amax, jmax, lo, hi, bound, tol)
    return smallest_accel_above(q, v, h, amax, jmax, lo, hi, bound)


@register_jitable
def stop_envelope(v, a, vabs, jmax, env):
    """Velocity envelope ``env[0:2]`` of a stop from ``(v, a)``: the extreme velocities the
    jerk limit makes inevitable, widened to include zero and capped at ``+-vabs``."""
    lo = v - (min(a, 0.0) ** 2) / (2.0 * jmax)
    hi = v + (max(a, 0.0) ** 2) / (2.0 * jmax)
    env[0] = max(min(lo, 0.0), -vabs)
    env[1] = min(max(hi, 0.0), vabs)


@register_jitable
def upper_accel_for_velocity(v, vmax, h, jmax):
    """Largest ``a'`` with ``v + a' h + max(a', 0)^2 / (2 J) <= vmax``."""
    if v <= vmax:
        # = J (-h + sqrt(h^2 + 2 (vmax - v) / J)), written without cancellation.
        room = 2.0 * (vmax - v)
        return room / (h + math.sqrt(h * h + room / jmax))
    return (vmax - v) / h


@register_jitable
def lower_accel_for_velocity(v, vmin, h, jmax):
    """Smallest ``a'`` with ``v + a' h - min(a', 0)^2 / (2 J) >= vmin``."""
    if v >= vmin:
        room = 2.0 * (v - vmin)
        return -room / (h + math.sqrt(h * h + room / jmax))
    return (vmin - v) / h


def band_reach(vmax, amax, jmax, h):
    """How far (rad) a joint inside the velocity bound can get in one period ``h`` plus
    its stop: ``vmax h + stop_travel_forward(vmax, amax)`` (the stop's travel grows with
    velocity and acceleration), with room for rounding. A joint further than this from both
    edges of its band has ``band_clear`` in :func:`joint_interval`."""
    return (vmax * h + stop_travel_forward(vmax, amax, amax, jmax)) * (1.0 + 1e-6) + 1e-9


@register_jitable
def _position_cut(x, status, end, code):
    """(feasible, end, code) of an end of the interval after a position bound's search
    returned ``(x, status)``: status 1, the bound cut the interval at ``x``; 2, not even
    the other end keeps the stop inside it; 0, the end stays."""
    if status == 1:
        return True, x, POSITION
    return status != 2, end, code


@register_jitable
def joint_interval(q, v, a, h, lo_pos, hi_pos, vmin, vmax, amax, jmax, res, band_clear, tol):
    """Admissible interval of the next acceleration for one joint.

    Writes ``res[0:2]`` = (lowest, highest) admissible ``a'`` and ``res[2:4]`` = the codes
    of the bounds that set them. Returns False when the constraints were inconsistent
    and the fallback interval (see :mod:`miles_ros.safety.shaping`) was used instead.
    ``band_clear``: the caller knows that no admissible ``a'`` can bring the joint's stop
    to the position band's edges (:func:`band_reach`), so their searches are skipped;
    ``tol``: 0 finds the band's bounds to the last bit, else the stops they allow end
    within ``tol`` (rad) of the edges (never beyond them).
    """
    lo = -amax
    hi = amax
    code_lo = ACCELERATION
    code_hi = ACCELERATION
    x = a - jmax * h
    if x > lo:
        lo = x
        code_lo = JERK
    x = a + jmax * h
    if x < hi:
        hi = x
        code_hi = JERK
    x = upper_accel_for_velocity(v, vmax, h, jmax)
    if x < hi:
        hi = x
        code_hi = VELOCITY
    x = lower_accel_for_velocity(v, vmin, h, jmax)
    if x > lo:
        lo = x
        code_lo = VELOCITY
    ok = lo <= hi
    if ok and not band_clear:
        x, status = largest_accel_below_to(q, v, h, amax, jmax, lo, hi, hi_pos, tol)
        ok, hi, code_hi = _position_cut(x, status, hi, code_hi)
    if ok and not band_clear:
        x, status = smallest_accel_above_to(q, v, h, amax, jmax, lo, hi, lo_pos, tol)
        ok, lo, code_lo = _position_cut(x, status, lo, code_lo)
    if ok:
        res[0] = lo
        res[1] = hi
        res[2] = code_lo
        res[3] = code_hi
        return True
    # Fallback: acceleration and plain velocity bounds first, jerk when it fits.
    vabs = vmax if vmax > -vmin else -vmin
    lo = max(-amax, (-vabs - v) / h)
    hi = min(amax, (vabs - v) / h)
    if lo > hi:  # |v| beyond the velocity bound: decelerate as hard as allowed.
        lo = -amax if v > 0.0 else amax
        hi = lo
    jl = a - jmax * h
    ju = a + jmax * h
    if max(lo, jl) <= min(hi, ju):
        lo = max(lo, jl)
        hi = min(hi, ju)
    if reach_hi(q, v, lo, h, amax, jmax) > hi_pos:
        hi = lo
    elif reach_lo(q, v, hi, h, amax, jmax) < lo_pos:
        lo = hi
    else:
        x, _ = largest_accel_below(q, v, h, amax, jmax, lo, hi, hi_pos)
        hi = x
        x, _ = smallest_accel_above(q, v, h, amax, jmax, lo, hi, lo_pos)
        lo = x
    res[0] = lo
    res[1] = hi
    res[2] = INFEASIBLE
    res[3] = INFEASIBLE
    return False


@register_jitable
def preferred_accel(q, v, h, amax, jmax, lo, hi, target, tol):
    """``(a_req, a_pref)`` toward ``target``: the acceleration that lands on it exactly in
    one period, and the preferred one: ``a_req``, or, when that lies outside ``[lo, hi]``,
    the one that brakes so the stop ends at the target (to the last bit when ``tol`` is
    0, else so the stop ends within ``tol`` of it)."""
    a_req = (target - q - v * h) / (h * h)
    a_pref = a_req
    if a_req > hi:
        x, status = largest_accel_below_to(q, v, h, amax, jmax, lo, hi, target, tol)
        if status == 1:
            a_pref = x
    elif a_req < lo:
        x, status = smallest_accel_above_to(q, v, h, amax, jmax, lo, hi, target, tol)
        if status == 1:
            a_pref = x
    return a_req, a_pref
