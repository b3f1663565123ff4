"""Intervention accounting (:mod:`miles_ros.safety.schedule`): a request the supervisor only
approaches (its target is still reachable by its stamp within the limits) is not counted;
one it cannot meet on schedule is; the commands are bit-identical to the old accounting's.

The smooth stream below (0.05 rad cosine strokes on every joint at 0.5 Hz, 3 s, 25 Hz
requests stamped one period ahead, like skill_node's) counted 525 interventions under the
old rule (every tick whose acceleration differed from the one-period deadbeat one) and
counts 0 now. With 0.15 rad strokes (0.28 rad/s on joint 2) it still counts 93 (old: 525):
the shaping brakes toward each target as if it were the last, so such a stream falls
behind its stamps, and those requests really are late."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safety_harness import HOME, NAMES, PERIOD, examples

from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor
from miles_ros.safety.audit import NOT_INTERVENTIONS

SKILL_PERIOD = 0.04
CONFIG = SafetyConfig(fault_violations=0, audit_throttle=0.0)


class OldRule(SafetySupervisor):
    """The accounting before :mod:`~miles_ros.safety.schedule`: nothing is on schedule."""

    def _on_schedule(self, now, h, out):
        return np.zeros(out.shape[0], dtype=bool)


class Silent(SafetySupervisor):
    """No classification at all: the commands alone."""

    def _report_step(self, now, h, out, n_fallback, spheres):
        self._new_request = False


def drive(sup, plan, dts):
    """Step ``sup`` through ``plan`` [(time, target, stamp) or (time, None, None)] at the
    output periods ``dts`` (cycled); the arm is where the last command put it. Returns the
    commands [k, 7] and the counted events (time, kind, joint)."""
    events = []
    sup.audit.listeners.append(
        lambda e, line: (
            events.append((e.time, e.kind, e.joint)) if e.kind not in NOT_INTERVENTIONS else None
        )
    )
    t, q = 0.0, HOME.copy()
    sup.update_robot_state(NAMES, q, np.zeros(7), t)
    out, k, j = [], 0, 0
    while j < len(plan):
        t += dts[k % len(dts)]
        k += 1
        while j < len(plan) and plan[j][0] <= t:
            _, target, stamp = plan[j]
            if target is not None:
                sup.submit(JointRequest(NAMES, list(target), stamp), t)
            j += 1
        sup.update_robot_state(NAMES, q, [], t)
        cmd = sup.step(t)
        q = cmd.positions[:7].copy()
        out.append(q)
    return np.array(out), events


def smooth_plan(amplitude=0.05, freq=0.5, seconds=3.0):
    """Skill-like requests: ``HOME + a (1 - cos 2 pi f t)`` sampled at 25 Hz, each stamped
    one skill period ahead and sent at its tick."""
    plan = []
    for k in range(int(seconds / SKILL_PERIOD)):
        tick = k * SKILL_PERIOD + 1e-4
        stamp = tick + SKILL_PERIOD
        target = HOME + amplitude * (1.0 - np.cos(2 * np.pi * freq * stamp)) * np.sign(
            np.arange(7) % 2 - 0.5
        )
        plan.append((tick, target, stamp))
    return plan


def test_smooth_stream_on_schedule_is_free():
    """A feasible stream stamped one period ahead: zero interventions now (the old rule:
    hundreds, see the assertion), the same commands."""
    plan = smooth_plan()
    new_out, new_events = drive(SafetySupervisor(CONFIG), plan, [PERIOD])
    old_out, old_events = drive(OldRule(CONFIG), plan, [PERIOD])
    assert np.array_equal(new_out, old_out)
    assert new_events == []
    assert len(old_events) > 100, len(old_events)  # the old rule counted the lead


def test_request_beyond_the_limits_counts():
    """A target 0.5 rad away due in one skill period asks for ~600 rad/s^2: counted (as an
    acceleration or velocity limit) on that joint under both rules alike; the joints
    already at their targets are no longer counted as scaled."""
    target = HOME.copy()
    target[1] += 0.5
    plan = [(1e-4 + k * SKILL_PERIOD, target, 1e-4 + (k + 1) * SKILL_PERIOD) for k in range(5)]
    _, events = drive(SafetySupervisor(CONFIG), plan, [PERIOD])
    kinds = {kind for _, kind, joint in events if joint == NAMES[1]}
    assert kinds & {"acceleration_limit", "velocity_limit", "jerk_limit"}, events
    _, old = drive(OldRule(CONFIG), plan, [PERIOD])
    assert [e for e in events if e[2] == NAMES[1]] == [e for e in old if e[2] == NAMES[1]]
    assert set(events) < set(old)


def test_late_request_counts_as_before():
    """A request stamped now (no lead) that one period cannot reach is counted as before."""
    target = HOME + 0.01
    _, events = drive(SafetySupervisor(CONFIG), [(1e-4, target, 1e-4)], [PERIOD])
    _, old = drive(OldRule(CONFIG), [(1e-4, target, 1e-4)], [PERIOD])
    assert events and events == old


steps = st.lists(
    st.tuples(
        st.floats(0.002, 0.06),  # time to the next request
        st.lists(st.floats(-0.3, 0.3), min_size=7, max_size=7),  # offset from home
        st.floats(-0.02, 0.1),  # stamp lead (negative: late)
        st.booleans(),  # silence instead of a request
    ),
    min_size=1,
    max_size=30,
)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(steps, st.lists(st.floats(0.001, 0.01), min_size=1, max_size=4))
def test_commands_identical_and_only_approach_is_freed(ops, dts):
    """Adversarial streams (jumps, late and early stamps, silences, irregular periods):
    the commands are bit-identical with the new accounting, the old one and none at all,
    and every event the new rule counts the old rule counted too."""
    plan, t = [], 0.0
    for gap, offset, lead, silent in ops:
        t += gap
        plan.append((t, None, None) if silent else (t, HOME + np.array(offset), t + lead))
    plan.append((t + 0.3, None, None))  # let the watchdog end it
    new_out, new_events = drive(SafetySupervisor(CONFIG), plan, dts)
    old_out, old_events = drive(OldRule(CONFIG), plan, dts)
    bare_out, _ = drive(Silent(CONFIG), plan, dts)
    assert np.array_equal(new_out, old_out)
    assert np.array_equal(new_out, bare_out)
    assert set(new_events) <= set(old_events)
    assert len(new_events) <= len(old_events)
