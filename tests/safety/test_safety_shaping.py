"""Per-joint shaping kernels: braking distance, admissible intervals, fallback."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from safety_harness import examples

from miles_ros.safety import shaping as sh
from miles_ros.safety import stopping
from miles_ros.safety.checker import check_commands
from miles_ros.safety.limits import JointLimits

A, J = 7.5, 3750.0  # joint 2's datasheet numbers


def _simulate_stop(v, a, amax, jmax, dt=1e-6):
    """Fine-step simulation of the continuous stop policy (reference for the closed form)."""
    x = 0.0
    peak = 0.0
    for _ in range(10_000_000):
        if abs(v) < 1e-9 and abs(a) < 1e-6:
            break
        # Jerk -J while the remaining no-reversal stop needs more deceleration, else +J.
        release_loss = (min(a, 0.0) ** 2) / (2 * jmax)
        if v > release_loss + 1e-12 and a > -amax:
            a = max(a - jmax * dt, -amax)
        elif v > release_loss + 1e-12:
            a = -amax
        else:
            a = min(a + jmax * dt, 0.0)
        v += a * dt
        x += v * dt
        peak = max(peak, x)
        if v < 0 and a >= 0:
            break
    return peak


def test_stop_travel_hand_values():
    # At rest, nothing to travel; pure constant-deceleration limit for a huge jerk.
    assert stopping.stop_travel_forward(0.0, 0.0, A, J) == 0.0
    assert stopping.stop_travel_forward(-1.0, 0.0, A, J) == 0.0
    assert math.isclose(
        stopping.stop_travel_forward(2.0, 0.0, A, 1e12), 4.0 / (2 * A), rel_tol=1e-4
    )
    # Pure release from the curve v = a^2 / (2J): travel |a|^3 / (6 J^2).
    a = -5.0
    v = a * a / (2 * J)
    assert math.isclose(
        stopping.stop_travel_forward(v, a, A, J), 125.0 / (6 * J * J), rel_tol=1e-9
    )


def test_stop_travel_matches_fine_simulation():
    for v, a in ((2.0, 0.0), (1.0, 5.0), (0.5, -7.0), (2.175, 7.5), (0.01, -2.0)):
        ref = _simulate_stop(v, a, A, J)
        assert math.isclose(
            stopping.stop_travel_forward(v, a, A, J), ref, rel_tol=2e-3, abs_tol=1e-6
        )


@settings(max_examples=examples(200), deadline=None)
@given(
    v=st.floats(-3.0, 3.0),
    a=st.floats(-A, A),
    dv=st.floats(0.0, 0.5),
    da=st.floats(0.0, 2.0),
)
def test_stop_travel_is_monotone_in_velocity_and_acceleration(v, a, dv, da):
    base = stopping.stop_travel_forward(v, a, A, J)
    assert stopping.stop_travel_forward(v + dv, a, A, J) >= base - 1e-12
    assert stopping.stop_travel_forward(v, min(a + da, A), A, J) >= base - 1e-12


def test_fallback_brakes_hardest_when_the_stop_cannot_fit():
    # Inconsistent state (not produced by the kernel): 1 mrad from the limit at 2 rad/s.
    res = np.empty(4)
    ok = sh.joint_interval(1.0, 2.0, 0.0, 0.004, -1.0, 1.001, -2.175, 2.175, A, J, res)
    assert not ok
    assert res[2] == sh.INFEASIBLE and res[0] == res[1]
    assert math.isclose(res[0], -A)  # full deceleration, inside the acceleration limit


def test_fallback_keeps_jerk_when_it_can():
    res = np.empty(4)
    # Accelerating toward the limit with a small step: jerk limits the braking.
    ok = sh.joint_interval(1.0, 1.0, 2.0, 0.001, -1.0, 1.002, -2.175, 2.175, A, J, res)
    assert not ok
    assert res[0] >= 2.0 - J * 0.001 - 1e-9  # no faster than the jerk limit allows
    assert res[0] >= -A


def _joint_state(q, limits, target):
    n = q.size
    js = np.zeros((n, sh.NCOL))
    js[:, sh.Q] = q
    js[:, sh.LO] = limits.lower
    js[:, sh.HI] = limits.upper
    k = 1.0 - sh.INTERNAL_TIGHTENING
    js[:, sh.VMAX] = limits.velocity * k
    js[:, sh.AMAX] = limits.acceleration * k
    js[:, sh.JMAX] = limits.jerk * k
    js[:, sh.TARGET] = target
    return js


def test_reachable_target_passes_exactly():
    limits = JointLimits.from_robot()
    q = np.zeros(7) + np.array([0, 0, 0, -1.5, 0, 1.5, 0])
    target = q + 1e-5
    js = _joint_state(q, limits, target)
    out = np.zeros((7, 4))
    assert sh.shape_step(js, 0.004, False, True, out, np.zeros((7, 6))) == 0
    np.testing.assert_array_equal(out[:, sh.OUT_Q], target)
    assert np.all(out[:, sh.OUT_CODE] == sh.FREE)


def test_far_target_is_shaped_and_reported():
    limits = JointLimits.from_robot()
    q = np.array([0, 0, 0, -1.5, 0, 1.5, 0], dtype=float)
    js = _joint_state(q, limits, q + 1.0)
    out = np.zeros((7, 4))
    sh.shape_step(js, 0.004, False, False, out, np.zeros((7, 6)))
    assert np.all(out[:, sh.OUT_Q] < q + 1.0)
    assert np.all(out[:, sh.OUT_CODE] == sh.ACCELERATION)  # from rest, acceleration binds


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**31 - 1), jerk_scale=st.sampled_from([1.0, 0.1, 0.01]))
def test_random_streams_with_irregular_steps_never_violate_or_fall_back(seed, jerk_scale):
    """Adversarial targets, stop-mode toggles and steps from 0.2 ms to 50 ms."""
    rng = np.random.default_rng(seed)
    limits = JointLimits.from_robot(jerk_scale=jerk_scale)
    q0 = rng.uniform(limits.lower, limits.upper)
    js = _joint_state(q0, limits, np.nan)
    out, work, env = np.zeros((7, 4)), np.zeros((7, 6)), np.zeros(2)
    t_ns, stamps, positions, fallbacks, stop = 0, [], [], 0, False
    for _ in range(600):
        t_prev = t_ns
        t_ns += int(np.exp(rng.uniform(np.log(2e5), np.log(5e7))))
        h = t_ns * 1e-9 - t_prev * 1e-9
        r = rng.random()
        if r < 0.05:
            js[:, sh.TARGET] = rng.uniform(limits.position_min - 1, limits.position_max + 1)
        elif r < 0.08:
            js[:, sh.TARGET] = np.where(rng.random(7) < 0.5, -10.0, 10.0)
        if rng.random() < 0.02:
            stop = not stop
            for i in range(7):
                sh.stop_envelope(js[i, sh.V], js[i, sh.A], js[i, sh.VMAX], js[i, sh.JMAX], env)
                js[i, sh.ENV_LO], js[i, sh.ENV_HI] = env
        fallbacks += sh.shape_step(js, h, stop, bool(seed % 2), out, work)
        js[:, sh.Q], js[:, sh.V], js[:, sh.A] = out[:, 0], out[:, 1], out[:, 2]
        if stop:
            for i in range(7):
                sh.stop_envelope(js[i, sh.V], js[i, sh.A], js[i, sh.VMAX], js[i, sh.JMAX], env)
                js[i, sh.ENV_LO], js[i, sh.ENV_HI] = env
        stamps.append(t_ns * 1e-9)
        positions.append(out[:, sh.OUT_Q].copy())
    violations = check_commands(np.array(stamps), np.array(positions), limits, initial=(q0, 0.0))
    assert violations.total == 0, violations
    assert fallbacks == 0
