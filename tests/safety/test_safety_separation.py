"""Separation between arms: two supervisors facing each other across the table, each fed
adversarial command streams and the other's occupancy with a delay, never bring their
link spheres closer than the margin nor a link into a keep-out zone; an arm's braking
envelope stays inside the reach it published for every age; a missing or stale peer
stops the arm (controlled, not latched) until fresh, and fresh occupancy clears the
stop's reason; malformed or forged occupancy is refused."""

import json
import math
from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safety_harness import HOME, NAMES, PERIOD, examples

from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor
from miles_ros.safety.links import link_violations
from miles_ros.safety.separation import (
    HORIZONS,
    Occupancy,
    PeerMonitor,
    SeparationConfig,
    decide,
    separation,
)
from miles_ros.safety.stopping import stop_travel
from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda
from sims.robots import panda_spheres as ps

LEFT = SeparationConfig("left", ("right",), (0.0, 0.55, 0.0), -math.pi / 2)
RIGHT = SeparationConfig("right", ("left",), (0.0, -0.55, 0.0), math.pi / 2)
LUNGE = np.array([0.0, 1.3, 0.0, -0.9, 0.0, 2.2, 0.785])
"""Reaches about 0.8 m ahead, low: two arms lunging at once would meet mid-table."""


def _reach(goal):
    q = HOME.copy()
    for _ in range(300):
        q = q + dls_ik_step(q, np.asarray(goal) - panda.fk_tcp(q), 0.05)
    return q


REACH = _reach([0.45, 0.0, 0.3])
"""The TCP 0.45 m ahead (0.1 m from the cell's midline): clear of the other arm at home,
not of the other arm doing the same."""


class Cell:
    """Two supervisors, their clock and the occupancy messages between them."""

    def __init__(self, delay: int = 1, config: SafetyConfig | None = None) -> None:
        config = config or SafetyConfig(fault_violations=0)
        self.config = config
        self.path = {"left": [HOME.copy()], "right": [HOME.copy()]}
        self.sup = {
            "left": SafetySupervisor(config, separation=LEFT),
            "right": SafetySupervisor(config, separation=RIGHT),
        }
        self.q = {arm: HOME.copy() for arm in self.sup}
        self.target: dict[str, np.ndarray | None] = {"left": None, "right": None}
        self.muted = {"left": 0, "right": 0}
        self.delay = delay
        self.inbox: deque = deque()
        self.t = 0.0
        self.closest = math.inf
        for arm, sup in self.sup.items():
            sup.update_robot_state(NAMES, HOME, np.zeros(7), 0.0)
            self._publish(arm)

    def _publish(self, arm: str) -> None:
        if self.muted[arm] > 0:
            self.muted[arm] -= 1
            return
        occ = self.sup[arm].occupancy(self.t)
        self.inbox.append((self.t + self.delay * PERIOD - 1e-9, arm, occ.to_json()))

    def tick(self) -> None:
        self.t += PERIOD
        while self.inbox and self.inbox[0][0] <= self.t:
            _, sender, text = self.inbox.popleft()
            other = "right" if sender == "left" else "left"
            self.sup[other].update_peer_occupancy(text, self.t)
        for arm, sup in self.sup.items():
            sup.update_robot_state(NAMES, self.q[arm], np.zeros(7), self.t)
            if self.target[arm] is not None:
                sup.submit(JointRequest(NAMES, list(self.target[arm]), self.t), self.t)
            cmd = sup.step(self.t)
            if cmd is not None:
                self.q[arm] = cmd.positions[:7].copy()
                self.path[arm].append(self.q[arm])
        for arm in self.sup:
            self._publish(arm)
        self.closest = min(self.closest, self.gap())

    def spheres(self, arm: str) -> Occupancy:
        config = LEFT if arm == "left" else RIGHT
        rot, trans = config.base_to_cell()
        centres, radii = ps.link_spheres(self.q[arm])
        return Occupancy(arm, self.t, centres @ rot.T + trans, radii)

    def gap(self) -> float:
        return separation(self.spheres("left"), self.spheres("right"))

    def zone_violations(self) -> int:
        """Outputs that put a checked link sphere into a keep-out zone (or out of the
        workspace, below the table), over both arms' paths."""
        cfg = self.config
        return sum(
            link_violations(
                np.array(path),
                cfg.workspace,
                cfg.zones,
                cfg.table_height,
                cfg.link_workspace_margin,
                cfg.zone_padding,
            )
            for path in self.path.values()
        )


offsets = st.lists(st.floats(-2.5, 2.5), min_size=7, max_size=7)
arm = st.sampled_from(["left", "right"])
op = st.one_of(
    st.tuples(st.just("jump"), arm, offsets),
    st.tuples(st.just("lunge"), arm),
    st.tuples(st.just("idle"), arm),
    st.tuples(st.just("mute"), arm, st.integers(1, 40)),
    st.tuples(st.just("delay"), st.integers(0, 5)),
    st.tuples(st.just("run"), st.integers(1, 150)),
)


ZONED = SafetyConfig(
    keepout_zones=SafetyConfig().keepout_zones + ("fixture sphere 0.42 0.12 0.15 0.06",),
    fault_violations=0,
)
"""A fixture beside each arm's lunge toward the middle (each arm's own base frame)."""


# At most 40 examples in CI (4x would be 120): each runs two supervisors for up to ~2,400
# ticks (2.3-4 s), and 240 of them took 8 of `make test`'s 20 minutes on 2 cores, 80 of
# them 5.4 minutes on the CI rehearsal of 2026-12-03.
@pytest.mark.slow  # 10-15 s: up to ~2,400 ticks of two supervisors per example
@settings(
    max_examples=min(examples(30), 40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(ops=st.lists(op, min_size=1, max_size=14))
def test_two_supervisors_never_bring_their_spheres_closer_than_the_margin(ops):
    cell = Cell(config=ZONED)
    lo, hi = panda.joint_position_min, panda.joint_position_max
    for item in ops + [("lunge", "left"), ("lunge", "right"), ("run", 300)]:
        kind = item[0]
        if kind == "jump":
            cell.target[item[1]] = np.clip(HOME + np.array(item[2]), lo, hi)
        elif kind == "lunge":
            cell.target[item[1]] = LUNGE
        elif kind == "idle":
            cell.target[item[1]] = None
        elif kind == "mute":
            cell.muted[item[1]] = item[2]
        elif kind == "delay":
            cell.delay = item[1]
        else:
            for _ in range(item[1]):
                cell.tick()
        cell.tick()
    assert cell.closest >= LEFT.margin - 1e-9, cell.closest
    assert cell.zone_violations() == 0
    assert not any(sup.latched for sup in cell.sup.values())


def test_both_arms_reaching_stop_apart_and_one_alone_reaches():
    assert np.allclose(panda.fk_tcp(REACH), [0.45, 0.0, 0.3], atol=1e-4)
    cell = Cell()
    cell.target = {"left": REACH, "right": REACH}
    for _ in range(700):
        cell.tick()
    assert cell.closest >= LEFT.margin
    assert cell.gap() < LEFT.margin + 0.15  # they came close: limited, not refused far apart
    assert not np.allclose(cell.q["left"], REACH, atol=1e-3)
    assert not np.allclose(cell.q["right"], REACH, atol=1e-3)
    # The right arm goes home: the left one may now complete its reach.
    cell.target["right"] = HOME
    for _ in range(900):
        cell.tick()
    assert np.allclose(cell.q["left"], REACH, atol=1e-6)
    assert np.allclose(cell.q["right"], HOME, atol=1e-6)
    assert cell.closest >= LEFT.margin


def test_a_missing_or_stale_peer_stops_the_arm_until_it_is_fresh():
    cell = Cell()
    sup = cell.sup["left"]
    target = HOME + np.array([0.8, 0.0, 0.0, 0.3, 0.0, 0.0, 0.0])
    cell.target["left"] = target
    for _ in range(40):
        cell.tick()
    assert sup.mode == "active"
    cell.muted["right"] = 10**6  # the right arm falls silent
    modes = []
    for _ in range(150):
        cell.tick()
        modes.append(sup.mode)
    assert modes[-1] == "hold" and not sup.latched
    assert "old" in sup.state()["reason"]
    held = cell.q["left"].copy()
    for _ in range(20):
        cell.tick()
    assert np.array_equal(cell.q["left"], held)  # requests keep coming, nothing moves
    cell.muted["right"] = 0
    for _ in range(400):
        cell.tick()
    assert sup.mode == "active" or np.allclose(cell.q["left"], target, atol=1e-6)
    assert np.allclose(cell.q["left"], target, atol=1e-6)


def test_an_arm_never_heard_from_its_peer_does_not_move():
    config = SafetyConfig(fault_violations=0)
    sup = SafetySupervisor(config, separation=LEFT)
    sup.update_robot_state(NAMES, HOME, np.zeros(7), 0.0)
    t = 0.0
    for _ in range(50):
        t += PERIOD
        sup.update_robot_state(NAMES, HOME, np.zeros(7), t)
        sup.submit(JointRequest(NAMES, list(HOME + 0.3), t), t)
        cmd = sup.step(t)
    assert np.array_equal(cmd.positions[:7], HOME)
    assert "no occupancy" in sup.state()["reason"] and not sup.latched


def _valid(arm="right", stamp=1.0):
    occ = Occupancy(arm, stamp, np.zeros((3, 3)), np.full(3, 0.1))
    return json.loads(occ.to_json())


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "not JSON"),
        (json.dumps({**_valid(), "extra": 1}), "exactly"),
        (json.dumps({**_valid(), "centres": [[0, 0]] * 3}), "centres"),
        (json.dumps({**_valid(), "radii": [-0.1, 0.1, 0.1]}), "negative"),
        (json.dumps({**_valid(), "stamp": "soon"}), "stamp"),
        (json.dumps(_valid(arm="intruder")), "not a peer"),
        (json.dumps(_valid(stamp=5.0)), "ahead"),
    ],
)
def test_malformed_or_forged_occupancy_is_refused_and_logged(text, why, caplog):
    monitor = PeerMonitor(LEFT)
    assert not monitor.offer(text, now=1.0)
    assert why in caplog.text
    assert monitor.latest == {} and monitor.refused == 1
    assert monitor.keepout(1.0)[1]  # still no usable peer: stop


def test_out_of_order_occupancy_is_refused():
    monitor = PeerMonitor(LEFT)
    assert monitor.offer(json.dumps(_valid(stamp=1.0)), now=1.0)
    assert not monitor.offer(json.dumps(_valid(stamp=0.99)), now=1.0)
    assert monitor.latest["right"].stamp == 1.0


def test_keepout_grows_with_age_and_decide_classifies():
    monitor = PeerMonitor(LEFT)
    occ = Occupancy("right", 1.0, np.array([[0.0, 0.0, 0.5]]), np.array([0.1]))
    assert monitor.offer(occ, now=1.0)
    fresh, why = monitor.keepout(1.0)
    older, _ = monitor.keepout(1.02)
    assert why == "" and older[0, 3] - fresh[0, 3] == pytest.approx(0.02 * LEFT.growth)
    assert fresh[0, 3] == pytest.approx(0.1 + LEFT.margin)
    # The keep-out sphere in the left arm's base frame: cell (0, 0, 0.5) is 0.55 ahead.
    np.testing.assert_allclose(fresh[0, :3], [0.55, 0.0, 0.5], atol=1e-12)
    assert monitor.keepout(1.0 + LEFT.max_age + 0.01)[1]  # stale
    n = ps.NUM_SPHERES
    far = Occupancy("left", 1.0, np.tile([[5.0, 0.0, 0.5]], (n, 1)), np.full(n, 0.05))
    near = Occupancy("left", 1.0, np.tile([[0.6, 0.0, 0.5]], (n, 1)), np.full(n, 0.05))
    assert decide(far, far, fresh, "") == "allowed"
    assert decide(near, far, fresh, "") == "limited"
    assert decide(near, near, fresh, "") == "stop"
    assert decide(far, far, fresh, "stale") == "stop"


def test_separation_config_is_validated():
    with pytest.raises(ValueError):
        PeerMonitor(SeparationConfig("left", ("left",)))
    with pytest.raises(ValueError):
        PeerMonitor(SeparationConfig("left", ("right",), margin=-1.0))


@settings(max_examples=examples(200), deadline=None)
@given(
    speed=st.floats(0.0, 2.5),
    fraction=st.floats(0.0, 1.0),
    accel=st.floats(-1.0, 1.0),
    joint=st.integers(0, 6),
)
def test_the_stop_from_the_top_speed_at_full_acceleration_travels_furthest(
    speed, fraction, accel, joint
):
    """What :func:`reach_radii` relies on: no state with ``|v| <= speed`` and
    ``|a| <= A`` stops further than ``speed`` at ``+A``."""
    amax = panda.joint_acceleration_limits[joint]
    jmax = panda.joint_jerk_limits[joint]
    worst = stop_travel(speed, amax, amax, jmax)
    for sign in (1.0, -1.0):
        assert stop_travel(sign * fraction * speed, accel * amax, amax, jmax) <= worst + 1e-12


def _reach_run(ops):
    """One supervisor (an arm of the cell with no peers) driven by ``ops``; each output
    period's occupancy, with reach radii for :data:`HORIZONS`."""
    sup = SafetySupervisor(
        SafetyConfig(fault_violations=0), separation=SeparationConfig("left", (), LEFT.base_xyz)
    )
    t, q = 0.0, HOME.copy()
    sup.update_robot_state(NAMES, HOME, np.zeros(7), t)
    out = []
    lo, hi = panda.joint_position_min, panda.joint_position_max
    for offsets_, periods, dt in ops:
        target = np.clip(HOME + np.array(offsets_), lo, hi)
        for _ in range(periods):
            t += dt
            sup.update_robot_state(NAMES, q, np.zeros(7), t)
            sup.submit(JointRequest(NAMES, list(target), t), t)
            cmd = sup.step(t)
            q = cmd.positions[:7].copy()
            out.append(sup.occupancy(t))
    return out


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.tuples(
            st.lists(st.floats(-2.5, 2.5), min_size=7, max_size=7),
            st.integers(1, 60),
            st.floats(0.001, 0.01),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_an_arm_never_leaves_the_reach_it_published(ops):
    """Every later output period's envelope (centres and radii) lies inside every earlier
    occupancy's reach for the age between them: what a peer relies on."""
    occs = _reach_run(ops)
    worst = -np.inf
    for i, then in enumerate(occs):
        assert then.horizons == HORIZONS
        for later in occs[i + 1 :]:
            age = later.stamp - then.stamp
            k = int(np.searchsorted(HORIZONS, age))  # first horizon >= age
            if k == len(HORIZONS):
                break
            moved = np.linalg.norm(later.centres - then.centres, axis=1)
            worst = max(worst, float(np.max(moved + later.radii - then.reach[k])))
    assert worst <= 1e-9, worst


def test_reach_follows_the_speed_and_round_trips_through_json():
    occs = _reach_run([([1.5, -1.0, 0.5, 1.0, 0.0, 1.0, 0.0], 60, PERIOD)])
    rest, moving = occs[0], occs[30]  # at the first period nearly at rest, then moving
    assert np.all(np.diff(moving.reach, axis=0) >= 0.0)
    assert np.all(moving.reach[0] >= moving.radii)
    # At rest the 4 ms bound is millimetres; the datasheet rate would add 8 cm.
    assert float(np.max(rest.reach[1] - rest.radii)) < 0.01 < 0.004 * LEFT.growth
    assert float(np.max(moving.reach[1] - moving.radii)) > float(
        np.max(rest.reach[1] - rest.radii)
    )
    back = Occupancy.from_json(moving.to_json())
    assert back.horizons == moving.horizons
    assert np.all(back.reach >= moving.reach) and np.all(back.reach <= moving.reach + 3e-6)
    # A peer reads the first horizon at or above the age.
    monitor = PeerMonitor(RIGHT)
    assert monitor.offer(back, now=back.stamp)
    spheres, why = monitor.keepout(back.stamp + 0.005)
    assert why == ""
    np.testing.assert_allclose(spheres[:, 3], back.reach[HORIZONS.index(0.006)] + RIGHT.margin)
    assert "past its horizon" in monitor.keepout(back.stamp + HORIZONS[-1] + 1e-3)[1] or (
        RIGHT.max_age < HORIZONS[-1]
    )


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"horizons": [0.004, 0.002]}, "increasing"),
        ({"horizons": [0.002, "x"]}, "numbers"),
        ({"reach_um": [[110000] * 3]}, "reach"),
        ({"reach_um": [[50000] * 3, [200000] * 3]}, "below"),
        ({"reach_um": [[300000] * 3, [200000] * 3]}, "shrinking"),
        ({"reach": [[110000] * 3, [200000] * 3]}, "exactly"),
    ],
)
def test_malformed_reach_is_refused(change, why, caplog):
    good = {**_valid(), "horizons": [0.002, 0.004], "reach_um": [[110000] * 3, [200000] * 3]}
    monitor = PeerMonitor(LEFT)
    assert monitor.offer(json.dumps(good), now=1.0)
    bad = {**good, **change, "stamp": 1.001}
    if "reach" in change:
        del bad["reach_um"]
    assert not monitor.offer(json.dumps(bad), now=1.001)
    assert why in caplog.text


def _stale_then_fresh(request_live: bool):
    """The left arm stopped by a silent peer, then the peer's occupancy fresh again."""
    sup = SafetySupervisor(SafetyConfig(fault_violations=0), separation=LEFT)
    peer = SafetySupervisor(SafetyConfig(fault_violations=0), separation=RIGHT)
    sup.kinds = []
    sup.audit.listeners.append(lambda event, _: sup.kinds.append(event.kind))
    t = 0.0
    for s in (sup, peer):
        s.update_robot_state(NAMES, HOME, np.zeros(7), t)
    target = list(HOME + 0.2)
    for _ in range(30):  # fresh peer, streaming: active
        t += PERIOD
        sup.update_peer_occupancy(peer.occupancy(t), t)
        sup.update_robot_state(NAMES, HOME, np.zeros(7), t)
        sup.submit(JointRequest(NAMES, target, t), t)
        sup.step(t)
    assert sup.mode == "active"
    for _ in range(int(LEFT.max_age / PERIOD) + 5):  # the peer falls silent
        t += PERIOD
        sup.update_robot_state(NAMES, HOME, np.zeros(7), t)
        sup.submit(JointRequest(NAMES, target, t), t)
        sup.step(t)
    assert sup.mode == "hold" and "old" in sup.state()["reason"]
    t += PERIOD
    if request_live:  # a request within the watchdog period, then none
        sup.submit(JointRequest(NAMES, target, t), t)
    else:
        t += SafetyConfig().watchdog_period
    sup.update_peer_occupancy(peer.occupancy(t), t)  # fresh again
    sup.update_robot_state(NAMES, HOME, np.zeros(7), t)
    sup.step(t)
    return sup


def test_fresh_occupancy_clears_the_stale_reason_and_a_live_request_resumes():
    live = _stale_then_fresh(request_live=True)
    assert live.mode == "active" and live.state()["reason"] == ""
    fresh = live.kinds.index("peer_fresh")
    assert live.kinds[fresh + 1] == "resume"
    idle = _stale_then_fresh(request_live=False)
    assert idle.mode == "hold" and idle.state()["reason"] == "no fresh request"
