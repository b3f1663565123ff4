"""Intervention accounting for tracking: was a request overridden, or only approached?

The shaping kernel (:func:`miles_ros.safety.shaping.shape_step`) asks, per joint, for the
*deadbeat* acceleration that lands on the target within one output period, and marks
every joint whose chosen acceleration differs from it (``ACCELERATION``, ``JERK``,
``VELOCITY``, ``POSITION``, ``SCALED``). A skill that stamps its 25 Hz targets one period
ahead (:data:`miles_ros.runtime.actions` ``target_lead``) asks for a target 40 ms away,
not 4 ms away: approaching it at the limits is what it asked for, not an override. The
kernel's choices are unchanged; only what is *counted* changes, here.

**On schedule.** With the output of this period ``(q', v', a')`` at time ``now``, the
request's target ``x`` and the time left to its stamp ``R = stamp - now`` (a stream past
its stamp: the end of its extrapolation, ``x + u P`` at ``stamp + P``, as
:meth:`~miles_ros.safety.inputs.SupervisorInputs._stream_target` moves it), a joint is on
schedule when ``R > 0`` and the discrete constant-acceleration profile that reaches ``x``
after ``N = max(R, h) / h`` more periods of length ``h`` stays inside the limits::

    a_s = 2 (x - q' - v' T) / (T (T + h)),   T = max(R, h)

    |a_s| <= A,   |a_s - a'| <= J h            (one period of jerk, then constant)
    |v' + a_s T| + a_s^2 / (2 J) <= v_max      (velocity is monotone along the profile,
                                                the kernel's own approach rule at the end)
    lo <= x <= hi, the turning point (if any) inside [lo, hi], and the jerk-limited stop
    from (v' + a_s T, a_s) at x ends inside [lo, hi]  (the position band with braking)

with the kernel's (tightened) limits. This is sufficient, not necessary (the profile is
one of many; stamps are taken as regular), so a request it calls on schedule could
really be met from this very output. Since it tests the *output* state, a joint slowed
below its schedule by another joint's limit (scale mode) still counts as ``SCALED``.

A joint's tracking code becomes ``FREE`` (not recorded, not counted) when that joint is
on schedule; otherwise it keeps the kernel's code. Every other code (the
Cartesian/zone/link checks, ``TCP_SPEED``, ``INFEASIBLE``) and every other event (stops,
e-stop, peers, refusals, position clipping of requests) counts exactly as before.
"""

from __future__ import annotations

import numpy as np

from miles_ros.safety import shaping as sh
from miles_ros.safety.stopping import stop_travel_forward

TRACKING_CODES = frozenset({sh.ACCELERATION, sh.JERK, sh.VELOCITY, sh.POSITION, sh.SCALED})
"""Codes the tracking rule sets; only these may be reclassified as on schedule."""


def joint_on_schedule(q, v, a, x, rest, h, lo, hi, vmax, amax, jmax) -> bool:
    """True when one joint at output state ``(q, v, a)`` can still reach ``x`` within
    ``rest`` seconds (``rest > 0``; at least one period ``h``) inside the limits (the
    module docstring's test)."""
    if not rest > 0.0 or not lo <= x <= hi:
        return False
    t = max(rest, h)
    a_s = 2.0 * (x - q - v * t) / (t * (t + h))
    if abs(a_s) > amax or abs(a_s - a) > jmax * h:
        return False
    v_end = v + a_s * t
    if abs(v_end) + a_s * a_s / (2.0 * jmax) > vmax:
        return False
    if v * v_end < 0.0 and a_s != 0.0:  # the profile turns: its extreme position
        turn = q - v * v / (2.0 * a_s)
        if not lo <= turn <= hi:
            return False
    if x + stop_travel_forward(v_end, a_s, amax, jmax) > hi:
        return False
    return x - stop_travel_forward(-v_end, -a_s, amax, jmax) >= lo


def on_schedule(
    js: np.ndarray, out: np.ndarray, x: np.ndarray, rest: float, h: float
) -> np.ndarray:
    """Per joint [n] bool: its output (``out`` [n, 4]) keeps target ``x`` [n] on schedule
    ``rest`` seconds ahead, with limits from ``js`` (:mod:`~miles_ros.safety.shaping`)."""
    ok = np.zeros(js.shape[0], dtype=bool)
    for i in range(js.shape[0]):
        ok[i] = joint_on_schedule(
            float(out[i, sh.OUT_Q]),
            float(out[i, sh.OUT_V]),
            float(out[i, sh.OUT_A]),
            float(x[i]),
            rest,
            h,
            float(js[i, sh.LO]),
            float(js[i, sh.HI]),
            float(js[i, sh.VMAX]),
            float(js[i, sh.AMAX]),
            float(js[i, sh.JMAX]),
        )
    return ok


def schedule_target(
    target: np.ndarray,
    stamp: float,
    velocity: np.ndarray | None,
    period: float,
    now: float,
    lo: np.ndarray,
    hi: np.ndarray,
) -> tuple[np.ndarray, float]:
    """``(x, rest)``: the point the request asks for and the time left to it at ``now``
    (a stream past its stamp: the end of its extrapolation, one ``period`` later)."""
    rest = stamp - now
    if rest > 0.0 or velocity is None:
        return target, rest
    return np.clip(target + velocity * period, lo, hi), stamp + period - now
