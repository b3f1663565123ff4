"""The supervisor's shaping against the arm's command-path model, and the scale search
they share (:mod:`sims.kernels.scaling`).

The model (:func:`sims.kernels.actuator.shape_arm_step`) is the supervisor's
:func:`~miles_ros.safety.shaping.shape_step` without the Cartesian checks, except that
its braking searches stop within :data:`~sims.kernels.actuator.SEARCH_TOLERANCE` of the
target instead of at the last bit. So on the same limits, state and target the two agree
to that tolerance, and exactly whenever the target is reachable in one period. Where they
are not meant to agree: a joint resting on its band's edge with a target beyond it (the
supervisor's exact search leaves it a sliver of the band, ~1e-11 rad/s^2, so the scale
factor collapses to ~0 and the whole arm holds; the model's tolerance leaves it none, the
scale is infeasible and each joint is clamped); the streams here keep targets inside the
band.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from safety_harness import examples

from miles_ros.safety import shaping as sh
from sims.kernels import actuator as ka
from sims.kernels.scaling import scaled_accel, velocity_scale
from sims.robots.actuator import ActuatorModel

MODEL = ActuatorModel.panda()
LIMITS = MODEL.limit_arrays()
H = 1.0 / MODEL.rate_hz
INSIDE = 0.05
"""rad: targets and starts stay this far inside the position band."""


@njit(cache=True)
def _velocity_scale(v, a_pref, a_lo, a_hi, h):
    """The compiled search (as the kernels run it: a tiny ``vp`` divides to inf, silently)."""
    return velocity_scale(v, a_pref, a_lo, a_hi, h)


@njit(cache=True)
def _scaled_accel(v, a_pref, a_lo, a_hi, h, s):
    return scaled_accel(v, a_pref, a_lo, a_hi, h, s)


def _supervisor_state(q: np.ndarray) -> np.ndarray:
    """The supervisor's per-joint state on the model's limits (no tightening), at rest."""
    js = np.zeros((7, sh.NCOL))
    js[:, sh.LO], js[:, sh.HI] = LIMITS[ka.LIM_LO], LIMITS[ka.LIM_HI]
    js[:, sh.VMAX] = LIMITS[ka.LIM_VEL]
    js[:, sh.AMAX] = LIMITS[ka.LIM_ACC]
    js[:, sh.JMAX] = LIMITS[ka.LIM_JERK]
    js[:, sh.Q] = q
    return js


@settings(max_examples=examples(20), deadline=None)
@given(seed=st.integers(0, 2**31 - 1), scale_mode=st.booleans())
def test_the_model_shapes_like_the_supervisor_on_the_same_streams(seed, scale_mode):
    rng = np.random.default_rng(seed)
    lo, hi = LIMITS[ka.LIM_LO] + INSIDE, LIMITS[ka.LIM_HI] - INSIDE
    js = _supervisor_state(rng.uniform(lo, hi))
    out, work = np.zeros((7, 4)), np.zeros((7, 6))
    command, shaped = np.zeros((1, 21)), np.zeros((1, 1, 7))
    limits = LIMITS.reshape(-1).copy()
    target, exact, moved = js[:, sh.Q].copy(), 0, 0.0
    for t in range(300):
        if t % 60 == 0:  # far targets, and small steps the arm reaches in one period
            far = t == 0 or rng.random() < 0.7
            target = rng.uniform(lo, hi) if far else js[:, sh.Q] + rng.normal(0.0, 1e-3, 7)
            target = np.clip(target, lo, hi)
        # Both from the supervisor's state: the model's command row is (q, v, a).
        command[0] = np.concatenate([js[:, sh.Q], js[:, sh.V], js[:, sh.A]])
        js[:, sh.TARGET] = target
        assert sh.shape_step(js, H, False, scale_mode, out, work) == 0
        ka.shape_periods(command, target[None], limits, H, scale_mode, shaped)
        np.testing.assert_allclose(
            command[0, ka.CMD_Q : ka.CMD_Q + 7], out[:, sh.OUT_Q], rtol=0, atol=ka.SEARCH_TOLERANCE
        )
        if np.array_equal(out[:, sh.OUT_Q], target):  # reachable: no search, same bits
            np.testing.assert_array_equal(command[0], out[:, :3].T.reshape(-1))
            exact += 1
        moved = max(moved, float(np.abs(out[:, sh.OUT_Q] - js[:, sh.Q]).max()))
        js[:, sh.Q], js[:, sh.V], js[:, sh.A] = out[:, 0], out[:, 1], out[:, 2]
    assert moved > 1e-4  # the stream did move the arm (0.1 mrad in a period, 25 mrad/s)


@st.composite
def _intervals(draw):
    """Per-joint (v, a_pref, a_lo, a_hi) as the shaping produces them, edge cases
    included: a zero preferred velocity, a joint whose interval excludes zero velocity,
    a preferred acceleration on an interval's end."""
    n = draw(st.integers(1, 7))
    h = draw(st.sampled_from([0.004, 0.001, 0.02]))
    f = st.floats(-20.0, 20.0, allow_nan=False)
    rows = []
    for _ in range(n):
        v = draw(st.sampled_from([0.0, 0.5, -0.5]) | st.floats(-2.0, 2.0))
        a, b = sorted((draw(f), draw(f)))
        kind = draw(st.sampled_from(["free", "zero", "lo", "hi"]))
        pref = {"free": draw(f), "zero": -v / h, "lo": a, "hi": b}[kind]
        rows.append((v, pref, a, b))
    v, pref, a_lo, a_hi = (np.array(c) for c in zip(*rows, strict=True))
    return v, pref, a_lo, a_hi, h


@settings(max_examples=examples(200), deadline=None)
@given(case=_intervals())
def test_the_scale_is_the_largest_admissible_factor(case):
    v, pref, a_lo, a_hi, h = case
    feasible, s, binding = _velocity_scale(v, pref, a_lo, a_hi, h)
    vp, vl, vu = v + pref * h, v + a_lo * h, v + a_hi * h

    def fits(x: float, tol: float) -> np.ndarray:
        return (vl - tol <= x * vp) & (x * vp <= vu + tol)

    if not feasible:  # no factor in [0, 1] fits every joint (checked on a fine grid)
        assert not any(fits(x, 0.0).all() for x in np.linspace(0.0, 1.0, 2001))
        return
    assert 0.0 <= s <= 1.0
    assert fits(s, 1e-12).all()
    if s < 1.0:  # the binding joint's velocity is on its interval's end: s is the largest
        assert 0 <= binding < v.size
        end = vu[binding] if vp[binding] > 0.0 else vl[binding]
        assert abs(s * vp[binding] - end) <= 1e-12 * max(1.0, abs(end))
    for i in range(v.size):
        a_new = _scaled_accel(v[i], pref[i], a_lo[i], a_hi[i], h, s)
        assert a_lo[i] <= a_new <= a_hi[i]
