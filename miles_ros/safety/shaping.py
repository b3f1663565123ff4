"""Per-joint command shaping: the next output that respects position, velocity,
acceleration and jerk limits at once, with braking awareness (numba kernels).

Discrete model (the promise of ``/miles/joint_command``, checked by
:mod:`miles_ros.safety.checker`): output ``k`` has stamp ``t_k`` and positions ``q_k``;
with ``h_k = t_k - t_{k-1}`` (any positive value, stamps may be irregular)::

    v_k = (q_k - q_{k-1}) / h_k      a_k = (v_k - v_{k-1}) / h_k      j_k = (a_k - a_{k-1}) / h_k

The state carried between outputs is ``(q, v, a)`` of the last output, recomputed from the
rounded positions exactly as a checker would. One step chooses the new acceleration ``a'``
(so ``v' = v + a' h``, ``q' = q + v' h``); every limit is an interval of ``a'``:

* acceleration ``|a'| <= A`` and jerk ``|a' - a| <= J h``;
* velocity, approached so the jerk bound can always stop the acceleration in time:
  ``v' + max(a', 0)^2 / (2 J) <= v_max`` (and the mirror image for ``v_min``); the set is
  invariant under "move ``a`` toward 0 by ``J h``", so a velocity bound is never overshot;
* position with braking: ``q' + D+(v', a') <= hi`` and ``q' - D-(v', a') >= lo``, where
  ``D+`` is the forward travel of the time-optimal jerk-limited stop to rest from
  ``(v', a')`` (acceleration ramps to at most ``-A`` at jerk ``J`` and is released so the
  velocity reaches zero without reversing when that is possible). Near a limit the
  allowed velocity therefore shrinks so that stopping never needs more than ``A``.

All constraints are monotone in ``a'``, so their intersection is one interval; the
kernel picks the value closest to the requested one (clamp) or scales the whole
velocity vector (scale mode, see :func:`shape_step`; the search is
:func:`sims.kernels.scaling.velocity_scale`, shared with the arm's command-path model).
From every state the kernel itself produces the intersection is non-empty (verified by
the property tests over random and adversarial streams with irregular stamps). If it is
ever empty (a state not produced by this kernel, for example a joint measured outside its
band at start-up), the fallback keeps the acceleration and velocity limits, keeps jerk
when possible, and brakes as hard as they allow toward the position band; the joint is
then reported as ``INFEASIBLE``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from miles_ros.safety.stopping import (
    stop_envelope,
    stop_travel_forward,
)
from sims.kernels import stopping as _k
from sims.kernels.scaling import scaled_accel, velocity_scale
from sims.kernels.stopping import (  # noqa: F401 - the codes are part of this module's API
    ACCELERATION,
    CARTESIAN,
    CODE_NAMES,
    FREE,
    INFEASIBLE,
    JERK,
    POSITION,
    SCALED,
    TCP_SPEED,
    VELOCITY,
)

# Columns of the per-joint state array ``js`` [n, NCOL].
Q, V, A, LO, HI, VMAX, AMAX, JMAX, ENV_LO, ENV_HI, TARGET, LIP, TRACK, TVEL, TACC = range(15)
NCOL = 15
"""``LIP``: an upper bound on the distance from this joint's axis to the TCP (m).
``TRACK`` 1: ``TARGET`` is a trajectory's reference at this output, ``TVEL`` and ``TACC``
its velocity and acceleration (see :func:`shape_step`); 0: ``TARGET`` is a target."""

TRACK_BANDWIDTH = 0.25
"""Natural frequency of a trajectory's tracking, times the output period (critically
damped: about 10 Hz at 250 Hz)."""

# Columns of the per-joint output array ``out`` [n, 4].
OUT_Q, OUT_V, OUT_A, OUT_CODE = range(4)

INTERNAL_TIGHTENING = 1e-6
"""The kernel's limits are this fraction tighter than the published ones, which absorbs
the rounding of positions in the differences a checker recomputes (for steps >= 0.1 ms
at the datasheet jerk limits)."""


@njit(cache=True)
def joint_interval(q, v, a, h, lo_pos, hi_pos, vmin, vmax, amax, jmax, res):
    """Admissible interval of the next acceleration for one joint
    (:func:`sims.kernels.stopping.joint_interval`, the fallback described above).

    Writes ``res[0:2]`` = (lowest, highest) admissible ``a'`` and ``res[2:4]`` = the codes
    of the bounds that set them. Returns False when the constraints were inconsistent
    and the fallback interval was used instead.
    """
    return _k.joint_interval(q, v, a, h, lo_pos, hi_pos, vmin, vmax, amax, jmax, res, False, 0.0)


@njit(cache=True)
def _commit(js, i, a_new, h, out, exact_q):
    """Write joint ``i``'s output for acceleration ``a_new`` (or exact position)."""
    q = js[i, Q]
    if math.isnan(exact_q):
        q_new = q + (js[i, V] + a_new * h) * h
    else:
        q_new = exact_q
    v_new = (q_new - q) / h
    out[i, OUT_Q] = q_new
    out[i, OUT_V] = v_new
    out[i, OUT_A] = (v_new - js[i, V]) / h


@njit(cache=True)
def shape_step(js, h, stop_mode, scale_mode, out, work):
    """One output period for all joints. Returns the number of joints on the fallback.

    ``js``: per-joint state [n, NCOL] (``TARGET`` NaN = no target); ``stop_mode``: bring
    every joint to rest inside the stop envelope ``ENV_LO..ENV_HI`` and hold; otherwise
    move toward ``TARGET`` (exactly when every joint can reach it within one period).
    A trajectory's reference (``TRACK`` 1: position ``TARGET``, velocity ``TVEL``,
    acceleration ``TACC`` at this output) is tracked, not approached: the request is its
    acceleration plus a critically damped correction toward its position and velocity
    (:func:`track_accel`), so a joint follows a moving reference without the lag of
    stopping at each of its points. The admissible interval, and so every limit, is the
    same either way.
    ``scale_mode``: keep the direction of the preferred velocity vector by one common
    factor when possible; else (or in clamp mode) each joint is clamped on its own.
    ``out``: [n, 4] result; ``work``: scratch [n, 6].
    """
    n = js.shape[0]
    res = np.empty(4)
    n_fallback = 0
    all_exact = not stop_mode
    for i in range(n):
        q = js[i, Q]
        v = js[i, V]
        a = js[i, A]
        amax = js[i, AMAX]
        jmax = js[i, JMAX]
        if stop_mode:
            vmin = js[i, ENV_LO]
            vmax = js[i, ENV_HI]
        else:
            vmin = -js[i, VMAX]
            vmax = js[i, VMAX]
        if not joint_interval(q, v, a, h, js[i, LO], js[i, HI], vmin, vmax, amax, jmax, res):
            n_fallback += 1
        lo = res[0]
        hi = res[1]
        target = js[i, TARGET]
        if stop_mode or math.isnan(target):
            a_req = -v / h
            a_pref = a_req
            all_exact = False
        else:
            if js[i, TRACK] == 0.0:  # a target: the request, braking toward it out of reach
                a_req, a_pref = _k.preferred_accel(q, v, h, amax, jmax, lo, hi, target, 0.0)
                if a_req < lo or a_req > hi:
                    all_exact = False
            else:  # a trajectory's reference: its acceleration, corrected toward it
                a_req = track_accel(q, v, h, target, js[i, TVEL], js[i, TACC])
                a_pref = a_req
                all_exact = False
        work[i, 0] = lo
        work[i, 1] = hi
        work[i, 2] = res[2]
        work[i, 3] = res[3]
        work[i, 4] = a_req
        work[i, 5] = a_pref
    if all_exact:
        for i in range(n):
            _commit(js, i, work[i, 4], h, out, js[i, TARGET])
            out[i, OUT_CODE] = FREE
        return n_fallback
    scaled = False
    if scale_mode and not stop_mode:
        feasible, scale, binding = velocity_scale(js[:, V], work[:, 5], work[:, 0], work[:, 1], h)
        if feasible:
            scaled = True
            for i in range(n):
                a_new = scaled_accel(js[i, V], work[i, 5], work[i, 0], work[i, 1], h, scale)
                _commit(js, i, a_new, h, out, math.nan)
                if scale >= 1.0:
                    code = FREE if work[i, 5] == work[i, 4] else _bound_code(work, i)
                elif i == binding:
                    code = _bound_code(work, i)
                else:
                    code = SCALED
                out[i, OUT_CODE] = code
    if not scaled:
        for i in range(n):
            a_pref = work[i, 5]
            a_new = min(max(a_pref, work[i, 0]), work[i, 1])
            _commit(js, i, a_new, h, out, math.nan)
            if stop_mode or a_new == work[i, 4]:
                out[i, OUT_CODE] = FREE
            else:
                out[i, OUT_CODE] = _bound_code(work, i)
    return n_fallback


@njit(cache=True)
def track_accel(q, v, h, r, w, alpha):
    """The acceleration that moves a joint at ``(q, v)`` along a reference at ``(r, w,
    alpha)`` (position, velocity, acceleration at the end of this period ``h``): the
    reference's own plus a critically damped correction of the position error (against
    coasting through the period) and the velocity error (:data:`TRACK_BANDWIDTH`)."""
    wn = TRACK_BANDWIDTH / h
    return alpha + wn * wn * (r - q - v * h) + 2.0 * wn * (w - v)


@njit(cache=True)
def _bound_code(work, i):
    """Code of the bound that kept joint ``i`` from its request."""
    if work[i, 4] > work[i, 1]:
        return int(work[i, 3])
    if work[i, 4] < work[i, 0]:
        return int(work[i, 2])
    return POSITION  # within the interval but braking toward the target


@njit(cache=True)
def brake_step(js, h, out):
    """The stop-mode output for the current state (used as the safe end of a blend)."""
    n = js.shape[0]
    res = np.empty(4)
    env = np.empty(2)
    for i in range(n):
        v = js[i, V]
        a = js[i, A]
        stop_envelope(v, a, js[i, VMAX], js[i, JMAX], env)
        joint_interval(
            js[i, Q], v, a, h, js[i, LO], js[i, HI], env[0], env[1], js[i, AMAX], js[i, JMAX], res
        )
        a_new = min(max(-v / h, res[0]), res[1])
        _commit(js, i, a_new, h, out, math.nan)
        out[i, OUT_CODE] = FREE


# --- the per-joint state array's life outside the kernels ----------------------------------
def joint_state(limits, lipschitz: np.ndarray) -> np.ndarray:
    """A fresh ``js`` [n, NCOL] for ``limits`` (a :class:`~miles_ros.safety.limits.JointLimits`):
    the published limits tightened by :data:`INTERNAL_TIGHTENING`, no target, at rest at 0."""
    n = limits.lower.shape[0]
    tight = 1.0 - INTERNAL_TIGHTENING
    js = np.zeros((n, NCOL))
    js[:, LO] = limits.lower
    js[:, HI] = limits.upper
    js[:, VMAX] = limits.velocity * tight
    js[:, AMAX] = limits.acceleration * tight
    js[:, JMAX] = limits.jerk * tight
    js[:, TARGET] = np.nan
    js[:, TRACK] = 0.0
    js[:, TVEL] = 0.0
    js[:, TACC] = 0.0
    js[:, LIP] = lipschitz
    return js


def start_at(js: np.ndarray, q: np.ndarray, limits, v: np.ndarray | None = None) -> bool:
    """Put ``js`` at the measured ``q``, at rest or moving at ``v`` (clipped to the velocity
    limits, zero acceleration). A joint whose stop from there ends outside its band may
    not go further out than that stop (the band re-tightens as it moves in, see
    :func:`relax_band`); returns True when a band was widened."""
    js[:, Q] = q
    js[:, V] = 0.0 if v is None else np.clip(v, -js[:, VMAX], js[:, VMAX])
    js[:, A] = 0.0
    lo, hi = q.copy(), q.copy()
    for i in np.flatnonzero(js[:, V]):  # the stop's reach, with room for its discretisation
        vi, amax, jmax = js[i, V], js[i, AMAX], js[i, JMAX]
        hi[i] += 1.01 * stop_travel_forward(vi, 0.0, amax, jmax) + 1e-9
        lo[i] -= 1.01 * stop_travel_forward(-vi, 0.0, amax, jmax) + 1e-9
    js[:, LO] = np.minimum(limits.lower, lo)
    js[:, HI] = np.maximum(limits.upper, hi)
    return bool(np.any(js[:, LO] < limits.lower) or np.any(js[:, HI] > limits.upper))


def begin_stop(js: np.ndarray, env: np.ndarray) -> None:
    """Set every joint's stop envelope (``ENV_LO``, ``ENV_HI``) from its state (``env``
    [2]: scratch)."""
    for i in range(js.shape[0]):
        stop_envelope(js[i, V], js[i, A], js[i, VMAX], js[i, JMAX], env)
        js[i, ENV_LO], js[i, ENV_HI] = env


def relax_band(js: np.ndarray, limits) -> bool:
    """Tighten a widened band back toward the limits as far as the joint's stop allows;
    returns True while a band is still wider than the limits."""
    for i in np.flatnonzero(js[:, HI] > limits.upper):
        reach = js[i, Q] + stop_travel_forward(js[i, V], js[i, A], js[i, AMAX], js[i, JMAX])
        js[i, HI] = max(limits.upper[i], min(js[i, HI], reach))
    for i in np.flatnonzero(js[:, LO] < limits.lower):
        reach = js[i, Q] - stop_travel_forward(-js[i, V], -js[i, A], js[i, AMAX], js[i, JMAX])
        js[i, LO] = min(limits.lower[i], max(js[i, LO], reach))
    return bool(np.any(js[:, HI] > limits.upper) or np.any(js[:, LO] < limits.lower))
