"""Property-based tests of the supervisor: for arbitrary request sequences (random,
adversarial, NaN/Inf, huge jumps, wrong lengths, reordered stamps, trajectory points with
arbitrary velocities, e-stops, resets, silences, irregular periods) no output violates a
limit, the workspace or a keep-out
zone; after a trigger the output only follows the stop and then holds; reset refuses
while the arm moves."""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safety_harness import HOME, NAMES, OBSTACLES, examples, make_run

from miles_ros.safety import SafetyConfig
from sims.robots import panda

CONFIG = SafetyConfig(keepout_zones=OBSTACLES, fault_violations=0)
STOP_TIME = float(
    np.max(panda.joint_velocity_limits / panda.joint_acceleration_limits)
    + np.max(2 * panda.joint_acceleration_limits / panda.joint_jerk_limits)
    + 0.05
)

offsets = st.lists(st.floats(-3.0, 3.0), min_size=7, max_size=7)
small = st.lists(st.floats(-0.02, 0.02), min_size=7, max_size=7)
op = st.one_of(
    st.tuples(st.just("jump"), offsets),
    st.tuples(st.just("stream"), small, st.integers(1, 40)),
    st.tuples(st.just("trajectory"), small, offsets, st.integers(1, 40), st.floats(0.0, 0.05)),
    st.tuples(
        st.just("bad"),
        st.sampled_from(
            ["nan", "inf", "short", "unknown", "missing", "nan_velocity", "short_velocity"]
        ),
    ),
    st.tuples(st.just("old_stamp"), st.floats(0.0005, 0.05)),
    st.tuples(st.just("trigger")),
    st.tuples(st.just("input"), st.booleans()),
    st.tuples(st.just("reset")),
    st.tuples(st.just("silence"), st.integers(1, 80)),
)
periods = st.lists(st.floats(0.0005, 0.02), min_size=1, max_size=8)


def _play(ops, dts):
    run = make_run(CONFIG)
    k = 0
    resets = []

    def tick():
        nonlocal k
        run.tick(dts[k % len(dts)], measured_still=False)
        k += 1

    tick()
    for item in ops:
        kind = item[0]
        if kind == "jump":
            run.request(HOME + np.array(item[1]))
            tick()
        elif kind == "stream":
            for _ in range(item[2]):
                run.request(run.positions[-1] + np.array(item[1]))
                tick()
        elif kind == "trajectory":  # points with arbitrary velocities (up to 3 rad/s)
            for _ in range(item[3]):
                target = run.positions[-1] + np.array(item[1])
                run.request(target, stamp_offset=item[4], velocities=item[2])
                tick()
        elif kind == "bad":
            target = list(HOME)
            names = NAMES
            velocities = None
            if item[1] == "nan_velocity":
                velocities = [0.1] * 6 + [math.nan]
            elif item[1] == "short_velocity":
                velocities = [0.1] * 5
            elif item[1] == "nan":
                target[3] = math.nan
            elif item[1] == "inf":
                target[5] = -math.inf
            elif item[1] == "short":
                target = target[:5]
            elif item[1] == "unknown":
                names = NAMES[:6] + ("wrist",)
            else:
                names, target = NAMES[1:], target[1:]
            assert not run.request(target, names=names, velocities=velocities)
            tick()
        elif kind == "old_stamp":
            run.request(HOME + 0.3, stamp_offset=-item[1])
            tick()
        elif kind == "trigger":
            run.sup.trigger_estop("test", run.t)
            tick()
        elif kind == "input":
            run.sup.set_estop_input(item[1], run.t)
            tick()
        elif kind == "reset":
            latched = run.sup.latched
            ok, _ = run.sup.reset_estop(run.t)
            resets.append((ok, latched, len(run.positions), run.sup.mode))
            tick()
        else:
            for _ in range(item[1]):
                tick()
    return run, resets


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=1, max_size=25), dts=periods)
def test_no_output_violates_any_limit(ops, dts):
    run, _ = _play(ops, dts)
    violations = run.violations()
    assert violations.total == 0, violations
    assert run.sup.stats["fallback_joints"] == 0


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=st.lists(op, min_size=1, max_size=8),
    after=st.lists(op, min_size=1, max_size=12),
    dts=periods,
)
def test_after_a_trigger_the_output_only_stops_then_holds(before, after, dts):
    # Any history, then a trigger, then anything but a reset.
    settle = int((STOP_TIME + 0.05) / min(dts)) + 2
    after = [item for item in after if item[0] != "reset"] + [("silence", settle)]
    run, _ = _play(before + [("trigger",)] + after, dts)
    latched = [m in ("stopping", "estop") for m in run.modes]
    # The latched period that lasts to the end began at the last unlatched -> latched edge.
    start = max(i for i in range(len(latched)) if latched[i] and (i == 0 or not latched[i - 1]))
    start = max(start - 1, 0)  # the state at the trigger
    vel = np.array(run.velocity[start:])
    acc = np.array(run.accel[start:])
    jerk = run.jerk_limits
    # The stop envelope (the extreme velocities still reachable under the jerk limit)
    # only shrinks: no output moves away from the stop trajectory.
    hi = np.maximum(vel + np.maximum(acc, 0) ** 2 / (2 * jerk), 0.0)
    lo = np.minimum(vel - np.minimum(acc, 0) ** 2 / (2 * jerk), 0.0)
    assert np.all(np.diff(hi, axis=0) <= 1e-9)
    assert np.all(np.diff(lo, axis=0) >= -1e-9)
    # Stopped within the stop time, then held exactly whatever was requested.
    stamps = np.array(run.stamps[start:])
    held = np.array(run.positions[start:])[stamps - stamps[0] > STOP_TIME]
    assert held.shape[0] > 0
    assert np.all(held == held[0])
    assert run.modes[-1] == "estop"


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=1, max_size=25), dts=periods)
def test_reset_only_succeeds_when_stopped_and_still(ops, dts):
    run, resets = _play(ops, dts)
    for ok, latched, index, mode_after in resets:
        if ok and latched:
            # The measured velocity fed to the supervisor echoes the last command.
            assert np.all(run.velocity[index - 1] == 0.0)
            assert mode_after in ("hold", "active")
