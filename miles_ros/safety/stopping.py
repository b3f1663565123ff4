"""The jerk-limited stop to rest of one joint (numba kernels): how far the time-optimal
stop from a velocity and acceleration travels, the velocity envelope it cannot avoid, and
the largest (smallest) next acceleration whose stop stays below (above) a position bound.

The maths is written once in :mod:`sims.kernels.stopping` (shared with the simulated
arm's command path, :mod:`sims.kernels.actuator`); these are its ``@njit`` entry points
for the supervisor. The stop (see :mod:`miles_ros.safety.shaping`'s docstring):
acceleration ramps at jerk ``J`` to at most ``-A`` and is released so that the velocity
reaches zero without reversing when that is possible. The supervisor's position limits,
its braking envelope (:mod:`miles_ros.safety.cartesian`) and the robot limits' stopping
distances (:mod:`miles_ros.safety.limits`) are all built on it.
"""

from __future__ import annotations

from numba import njit

from sims.kernels import stopping as _k


@njit(cache=True)
def stop_travel_forward(v, a, amax, jmax):
    """Largest forward (positive) displacement of the stop-to-rest policy from ``(v, a)``
    (:func:`sims.kernels.stopping.stop_travel_forward`)."""
    return _k.stop_travel_forward(v, a, amax, jmax)


@njit(cache=True)
def stop_travel(v, a, amax, jmax):
    """Distance (either direction) the stop-to-rest policy may still travel."""
    return _k.stop_travel(v, a, amax, jmax)


@njit(cache=True)
def reach_hi(q, v, a1, h, amax, jmax):
    """Furthest forward position if ``a1`` is commanded now and the joint then stops."""
    return _k.reach_hi(q, v, a1, h, amax, jmax)


@njit(cache=True)
def reach_lo(q, v, a1, h, amax, jmax):
    """Furthest backward position if ``a1`` is commanded now and the joint then stops."""
    return _k.reach_lo(q, v, a1, h, amax, jmax)


@njit(cache=True)
def largest_accel_below(q, v, h, amax, jmax, lo, hi, bound):
    """Largest ``a'`` in ``[lo, hi]`` whose stop stays ``<= bound``: ``(a', status)``
    (:func:`sims.kernels.stopping.largest_accel_below`)."""
    return _k.largest_accel_below(q, v, h, amax, jmax, lo, hi, bound)


@njit(cache=True)
def smallest_accel_above(q, v, h, amax, jmax, lo, hi, bound):
    """Mirror image of :func:`largest_accel_below` for a lower position bound."""
    return _k.smallest_accel_above(q, v, h, amax, jmax, lo, hi, bound)


@njit(cache=True)
def stop_envelope(v, a, vabs, jmax, env):
    """Velocity envelope ``env[0:2]`` of a stop from ``(v, a)``
    (:func:`sims.kernels.stopping.stop_envelope`)."""
    _k.stop_envelope(v, a, vabs, jmax, env)
