"""The supervisor follows the measured arm: a measured state that leaves the commanded
trajectory (a teleported, reset or hand-guided arm) is never chased, the e-stop hold is
the measured stopped pose; and recovery: from outside the workspace, off a boundary or
beyond the position band, a target whose path reduces the violation is followed back."""

import numpy as np
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from safety_harness import (
    HOME,
    NAMES,
    PERIOD,
    boundary_clearances,
    deepest_entry,
    examples,
    make_run,
)

from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor, check_commands
from miles_ros.safety import shaping as sh
from miles_ros.safety.cartesian import RECOVERY_RADIUS, STANDOFF
from miles_ros.safety.kinematics import tcp_position
from miles_ros.safety.zones import clearance
from sims.robots import panda

CONFIG = SafetyConfig(fault_violations=0)
TCP_ONLY = SafetyConfig(fault_violations=0, link_checks=False)
TOL = CONFIG.tracking_tolerance
VMAX = CONFIG.limits.velocity

offsets = st.lists(st.floats(-2.0, 2.0), min_size=7, max_size=7)
small = st.lists(st.floats(-0.02, 0.02), min_size=7, max_size=7)
op = st.one_of(
    st.tuples(st.just("jump"), offsets),
    st.tuples(st.just("stream"), small, st.integers(1, 40)),
    st.tuples(st.just("silence"), st.integers(1, 60)),
    st.tuples(st.just("trigger")),
    st.tuples(st.just("reset")),
    # The measured arm jumps (some joints, by up to 2 rad; beyond the band too) and
    # reports no velocity, zero, or the velocity it had.
    st.tuples(
        st.just("teleport"),
        offsets,
        st.lists(st.booleans(), min_size=7, max_size=7),
        st.sampled_from(["none", "zero", "moving"]),
    ),
)
periods = st.lists(st.floats(0.001, 0.01), min_size=1, max_size=6)


class Driver:
    """A position-controlled arm: each period it is where the last command put it (or
    where it was teleported), and reports that to the supervisor before the next step."""

    def __init__(self, dts):
        self.sup = SafetySupervisor(CONFIG)
        self.q = HOME.copy()
        self.v = np.zeros(7)
        self.t = 0.0
        self.dts, self.k = dts, 0
        self.velocity_mode = "moving"
        self.sup.update_robot_state(NAMES, self.q, self.v, self.t)
        self.records = []  # (h, measured, previous command, command)
        self.segments = [[]]  # (stamp, command) between tracking resets
        self.resets = 0
        self.sup.audit.listeners.append(self._on_event)

    def _on_event(self, event, line):
        if event.kind == "tracking_reset":
            self.resets += 1
            self.segments.append([])

    def tick(self):
        h = self.dts[self.k % len(self.dts)]
        self.k += 1
        self.t += h
        previous = self.sup._js[:, sh.Q].copy()
        velocities = {"none": [], "zero": [0.0] * 7, "moving": list(self.v)}[self.velocity_mode]
        self.sup.update_robot_state(NAMES, self.q, velocities, self.t)
        resets = self.resets
        cmd = self.sup.step(self.t)
        assert cmd is not None and resets == self.resets  # only a measurement re-seeds
        self.records.append((h, self.q.copy(), previous, cmd.positions[:7].copy()))
        self.segments[-1].append((cmd.stamp, cmd.positions[:7].copy()))
        self.v = (cmd.positions[:7] - self.q) / h
        self.q = cmd.positions[:7].copy()
        self.velocity_mode = "moving"

    def request(self, target):
        self.sup.submit(JointRequest(NAMES, list(target), self.t), self.t)


def _play(ops, dts):
    d = Driver(dts)
    d.tick()
    for item in ops:
        kind = item[0]
        if kind == "jump":
            d.request(HOME + np.array(item[1]))
            d.tick()
        elif kind == "stream":
            for _ in range(item[2]):
                d.request(d.q + np.array(item[1]))
                d.tick()
        elif kind == "silence":
            for _ in range(item[1]):
                d.tick()
        elif kind == "trigger":
            d.sup.trigger_estop("test", d.t)
            d.tick()
        elif kind == "reset":
            d.sup.reset_estop(d.t)
            d.tick()
        else:
            _, jump, mask, velocity = item
            q = d.q + np.where(mask, jump, 0.0)
            d.q = np.clip(q, panda.joint_position_min, panda.joint_position_max)
            d.velocity_mode = velocity
            d.tick()
            for _ in range(5):  # a few periods at the new pose before anything else
                d.tick()
    return d


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=1, max_size=20), dts=periods)
def test_a_teleported_arm_never_gets_a_command_beyond_the_velocity_limit(ops, dts):
    d = _play(ops, dts)
    slack = 1e-9
    for h, measured, previous, command in d.records:
        off = np.abs(measured - previous)
        if off.max() > TOL:
            # Left the commanded trajectory: the command follows the measured arm and
            # implies at most the velocity limit from it (no jump back).
            assert np.all(np.abs(command - measured) <= VMAX * h * (1 + 1e-6) + slack)
        else:
            # Tracking: the command keeps its own limits (one period at the velocity
            # limit from the previous command), so it is never further from the measured
            # arm than the tolerance plus that.
            assert np.all(np.abs(command - previous) <= VMAX * h * (1 + 1e-6) + slack)
            assert np.all(np.abs(command - measured) <= TOL + VMAX * h * (1 + 1e-6) + slack)
    # Between tracking resets the command stream keeps every joint limit.
    for segment in d.segments:
        if len(segment) > 1:
            stamps = np.array([s for s, _ in segment])
            positions = np.array([p for _, p in segment])
            v = check_commands(stamps, positions, d.sup.limits)
            assert v.velocity == v.acceleration == v.jerk == 0, v


def test_sim_reset_while_holding_away_from_home_holds_the_measured_home():
    """/miles/sim/reset in one period: the arm is at home, the command held elsewhere."""
    away = HOME + np.array([0.6, -0.4, 0.3, 0.5, -0.2, 0.4, 0.3])
    run = make_run(CONFIG, q0=away)
    events = []
    run.sup.audit.listeners.append(lambda event, line: events.append(event))
    for _ in range(10):
        run.tick()
    run.q0 = HOME.copy()
    run.positions.clear()  # the fake robot now reports home (its echo restarts there)
    for _ in range(50):
        run.tick()
    assert [e.kind for e in events].count("tracking_reset") == 1
    assert all(np.array_equal(p, HOME) for p in run.positions)
    assert run.sup.mode == "hold"


def test_estop_hold_is_the_measured_stopped_pose():
    run = make_run(CONFIG)
    run.tick()
    run.sup.trigger_estop("test", run.t)
    for _ in range(20):
        run.tick()
    assert run.sup.mode == "estop"
    moved = HOME + np.array([0.0, 0.3, 0.0, -0.3, 0.0, 0.0, 0.0])  # pushed by hand
    run.positions.append(moved)
    for _ in range(20):
        run.tick()
    assert run.sup.mode == "estop" and run.sup.latched
    assert np.array_equal(run.positions[-1], moved)
    ok, why = run.sup.reset_estop(run.t)
    assert ok, why


def test_normal_tracking_lag_is_not_a_reset():
    """A robot three periods behind the command at full speed (about the lag measured
    through the in-process ROS graph) never triggers a tracking reset."""
    sup = SafetySupervisor(CONFIG)
    t, q_robot = 0.0, HOME.copy()
    sup.update_robot_state(NAMES, q_robot, np.zeros(7), t)
    history = [HOME.copy()] * 4
    target = HOME + np.array([2.0, 1.0, -2.0, 1.5, 2.0, -1.0, 2.0])
    kinds = []
    sup.audit.listeners.append(lambda event, line: kinds.append(event.kind))
    lag = 0.0
    for k in range(500):
        t += PERIOD
        sup.submit(JointRequest(NAMES, list(target if k < 250 else HOME), t), t)
        sup.update_robot_state(NAMES, history[-4], [], t)
        lag = max(lag, np.abs(history[-1] - history[-4]).max())
        history.append(sup.step(t).positions[:7].copy())
    assert "tracking_reset" not in kinds
    assert 0.02 < lag < TOL  # the arm did move at speed


def _point_clearance(sup, q):
    p = tcp_position(np.asarray(q, dtype=float))
    return clearance(p, 0.0, sup._ws, sup._boxes, sup._spheres, sup.config.zone_padding)


def _assert_no_intrusion(run):
    """The TCP point never enters a boundary it was out of: once outside a zone (or inside
    a workspace wall), every later output stays there."""
    tcp, _ = boundary_clearances(run.sup.config, np.array([run.q0, *run.positions]))
    assert deepest_entry(tcp) >= -1e-9, deepest_entry(tcp)


def _recovers(q0, target, seconds, config=CONFIG):
    run = make_run(config, q0=q0)
    run.tick()
    points = []
    for _ in range(int(seconds / PERIOD)):
        run.request(target)
        run.tick()
        points.append(_point_clearance(run.sup, run.positions[-1]))
        if np.array_equal(run.positions[-1], target):
            break
    return run, np.array(points)


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    direction=st.lists(st.floats(-1.0, 1.0), min_size=7, max_size=7),
    depth=st.floats(-0.1, 0.02),
)
# below the workspace's floor and inside the keep-out box at once: the way home leaves the
# floor's violation but goes deeper into the box first, so the arm is rightly held
@example(direction=[0.0, 0.75, 0.0, 0.0, 0.25, 0.0625, 0.0], depth=-0.0625)
def test_home_brings_the_arm_back_from_outside_the_workspace_or_the_band(direction, depth):
    """Start where a straight joint path from home first reaches ``depth`` of point
    clearance (outside the workspace, in a zone, on a boundary; beyond the band where the
    path gets there), when the way back reduces the violation: the TCP point never enters
    a boundary it was not in nor goes deeper into one; and when the way home stays clear
    once clear (it may pass through the keep-out box: then the arm rightly holds outside
    it) and goes deeper into none of the boundaries the start is inside, home is
    reached."""
    direction = np.array(direction)
    assume(np.abs(direction).max() > 0.1)
    probe = make_run(CONFIG).sup
    lo, hi = panda.joint_position_min, panda.joint_position_max
    path, walked, q0 = [], [], None
    for lam in np.linspace(0.0, 3.0, 601):
        q = HOME + lam * direction
        if np.any(q < lo) or np.any(q > hi):
            break
        walked.append(q)
        path.append(_point_clearance(probe, q))
        if path[-1] < depth:
            q0 = q
            break
    assume(q0 is not None)
    back = np.array(path[::-1])
    clear_at = int(np.argmax(back > 2 * RECOVERY_RADIUS))
    until_clear = back[: clear_at + 1]
    assume(np.all(np.diff(until_clear) > 0.0))
    # ... also within the last sampled interval, at the supervisor's step scale: where two
    # faces of a zone are about equally near, the way back can first go deeper (e.g. -9.84
    # -> -10.12 mm), and the recovery rule rightly keeps such an arm where it is
    first = [_point_clearance(probe, q0 - e * direction) for e in np.linspace(0.0, 0.005, 11)]
    assume(np.all(np.diff(first) > 0.0))
    # The TCP point's recovery (the start may put a link sphere deep in a zone, where
    # the way home first goes deeper: the link rule keeps such an arm where it is). At
    # rest in the band with its ball outside, the ball rule lets it creep: from 0.19 mm
    # (direction [0.5, 0.5, 1, 0, 0.5, 0, 0], the CI profile's draw) home takes 9.6 s.
    run, points = _recovers(q0, HOME, 12.0, TCP_ONLY)
    _assert_no_intrusion(run)
    assert points.min() >= min(path[-1], 0.0) - 1e-9
    assert run.sup.stats["fallback_joints"] == 0
    # each boundary the start is inside, along the way home until it is left: a start in
    # two (below the floor and in the keep-out box) may leave one only deeper into the other
    each = boundary_clearances(CONFIG, np.array(walked[::-1]))[0]
    inside = [col[: int(np.argmax(col >= 0.0))] if col.max() >= 0.0 else col for col in each.T]
    no_deeper = all(np.all(np.diff(col) >= 0.0) for col in inside if len(col) and col[0] < 0.0)
    if back[clear_at:].min() > 2 * RECOVERY_RADIUS and no_deeper:
        assert np.max(np.abs(run.positions[-1] - HOME)) < 1e-6


def test_a_recovering_arm_holds_outside_the_zone_on_its_way_home():
    """The counterexample of hypothesis seed 3448775711: the TCP 62.7 mm inside the
    keep-out box, home's straight way leaving the box and passing through it again. The
    arm leaves the standoff band with its braking ball still in the box; it must not carry
    that ball back into the box (it stopped 0.31 mm inside when the ball rule only kept
    the ball no deeper than it was at the exit)."""
    q0 = HOME + 2.885 * np.array([1.0, -0.125, 1.0, 0.0, 0.0, 0.0, 0.0])
    run = make_run(TCP_ONLY, q0=q0)
    start = boundary_clearances(TCP_ONLY, q0)[0][0]
    assert start[:6].min() > 0.0 and start[7] < -0.06  # in the workspace, in the box
    run.tick()
    run.stream(HOME, int(1.5 / PERIOD))
    _assert_no_intrusion(run)
    assert boundary_clearances(TCP_ONLY, run.positions[-1])[0][0, 7] > 0.0  # it got out


def test_home_from_behind_the_workspace_and_beyond_the_band():
    """Deterministic cases: the TCP outside the workspace (starts the braking-ball rule
    alone left wedged: no move was accepted), and joint 6 beyond its band."""
    for q0 in (
        [1.17, 0.18, -0.06, -3.07, 0.91, 2.84, 0.08],
        [0.18, -1.42, -0.26, -1.4, 0.38, 2.95, 0.39],
    ):
        q0 = np.array(q0)
        start = _point_clearance(make_run(CONFIG, q0=q0).sup, q0)
        assert start < 0.0
        run, points = _recovers(q0, HOME, 4.0)
        assert np.max(np.abs(run.positions[-1] - HOME)) < 1e-6
        assert points.min() >= start - 1e-9
    beyond = HOME.copy()
    beyond[5] = panda.joint_position_max[5] - 0.02
    run, _ = _recovers(beyond, HOME, 4.0)
    assert np.max(np.abs(run.positions[-1] - HOME)) < 1e-6


def test_an_arm_driven_against_the_workspace_rests_the_standoff_inside_and_leaves_it():
    """Targets beyond the workspace from home: the supervisor stops the TCP point about
    STANDOFF inside (never outside: no recovery exception is used for an arm it moved),
    and home is reached from there (the wedge of an arm resting on a boundary)."""
    probe = make_run(CONFIG).sup
    for direction in (
        [0.125, 0.0, 0.5, -1.0, 0.75, 0.0, 0.0],
        [1.0, 0.0, 0.0, -0.25, 0.0, 0.0, 0.0],
    ):
        target = None
        for lam in np.linspace(0.0, 3.0, 601):
            q = HOME + lam * np.array(direction)
            if np.any(q < panda.joint_position_min) or np.any(q > panda.joint_position_max):
                break
            if _point_clearance(probe, q) < -0.01:
                target = q
                break
        assert target is not None
        # The TCP point's rule alone: with link checks the tilted hand meets the table
        # first (tests/safety/test_safety_links.py).
        run, points = _recovers(HOME, target, 4.0, TCP_ONLY)
        assert points.min() >= 0.5 * STANDOFF, points.min()
        assert _point_clearance(run.sup, run.positions[-1]) < 2 * STANDOFF  # it got there
        back, _ = _recovers(np.asarray(run.positions[-1]), HOME, 4.0, TCP_ONLY)
        assert np.max(np.abs(back.positions[-1] - HOME)) < 1e-6
