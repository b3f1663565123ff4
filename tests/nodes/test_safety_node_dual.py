"""Two arms' safety nodes over real rclpy on loopback (config/scene_dual.yaml): the graph
of ``miles up --scene`` in this process (sim_node, a safety and a skill node per arm,
:func:`miles_ros.ros.graph.cell_factories`). Each safety node publishes its arm's
occupancy in the world frame on the shared ``/miles/safety/occupancy``; a stale peer
stops the other arm until it is fresh; commands that would drive the arms into each
other are limited so that the measured spheres stay apart by the margin; malformed
occupancy is refused. One graph for the module (building it loads every shipped skill
twice); the tests run in file order and the last one leaves the arms near each other.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

rclpy = pytest.importorskip("rclpy")

from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros.interfaces import arm_scoped  # noqa: E402
from miles_ros.ros.graph import cell_factories  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS, OCCUPANCY_QOS, SENSOR_QOS  # noqa: E402
from miles_ros.runtime.frames import base_to_world  # noqa: E402
from miles_ros.safety import Occupancy, SafetyConfig  # noqa: E402
from miles_ros.safety.separation import separation  # noqa: E402
from sims.kernels.kinematics import dls_ik_step  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.robots import panda_spheres as ps  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import SAFETY, SIM, Graph  # noqa: E402

DUAL = str(Path(__file__).resolve().parents[2] / "config" / "scene_dual.yaml")
SCENE = load_scene(DUAL)
ARMS = ("left_arm", "right_arm")
MARGIN = SafetyConfig().separation_margin


def measured_occupancy(arm: str, q) -> Occupancy:
    """An arm's link spheres (no braking radius) in the world frame at joint state q."""
    centres, radii = ps.link_spheres(np.asarray(q, dtype=np.float64))
    world = base_to_world(SCENE.arm(arm), centres.reshape(-1, 3))
    return Occupancy(arm, 0.0, world, np.asarray(radii, dtype=np.float64).reshape(-1))


def reach_ik(goal) -> np.ndarray:
    """Joint positions whose TCP is at ``goal`` (base frame), by damped least squares."""
    q = panda.home_joint_positions.copy()
    lo, hi = panda.joint_position_min + 0.15, panda.joint_position_max - 0.15
    for _ in range(300):
        q = np.clip(q + dls_ik_step(q, goal - panda.fk_tcp(q), 0.05), lo, hi)
    assert np.linalg.norm(panda.fk_tcp(q) - goal) < 1e-3
    return q


def _parsed(text: str) -> Occupancy | None:
    try:
        return Occupancy.from_json(text)
    except ValueError:
        return None  # the malformed ones this test publishes itself


class Cell(Graph):
    """The dual-arm graph plus what the probe records per arm."""

    def __init__(self) -> None:
        factories = cell_factories(DUAL, ["sim", "safety", "skills"])
        self.labels = [label for label, _ in factories]
        super().__init__([make for _, make in factories])
        self.safety_nodes = {arm: self.nodes[self.labels.index(f"safety/{arm}")] for arm in ARMS}
        probe = self.probe
        self.occupancy: list[Occupancy | None] = []
        self.states = {arm: [] for arm in ARMS}
        self.safety_state = {arm: [] for arm in ARMS}
        self.events = {arm: [] for arm in ARMS}
        self.measured: list[tuple[str, np.ndarray]] = []
        """(arm, its measured q) in arrival order."""
        sub = probe.create_subscription
        sub(String, SAFETY.occupancy_topic, self._keep(self.occupancy, _parsed), OCCUPANCY_QOS)
        for arm in ARMS:
            sub(JointState, arm_scoped(arm, SIM.joint_states_topic), self._joints(arm),
                SENSOR_QOS)  # fmt: skip
            sub(String, arm_scoped(arm, SAFETY.state_topic),
                self._keep(self.safety_state[arm], json.loads), LATCHED_QOS)  # fmt: skip
            sub(String, arm_scoped(arm, SAFETY.events_topic),
                self._keep(self.events[arm], json.loads), COMMAND_QOS)  # fmt: skip
        self.pub_occupancy = probe.create_publisher(String, SAFETY.occupancy_topic, OCCUPANCY_QOS)
        self.pub_command = {
            arm: probe.create_publisher(
                JointState, arm_scoped(arm, SAFETY.skill_command_topic), COMMAND_QOS
            )
            for arm in ARMS
        }
        self.targets: dict[str, np.ndarray] = {}
        self.stream_lock = threading.Lock()
        probe.create_timer(0.02, self._stream)

    def _joints(self, arm: str):
        keep = self._keep(self.states[arm])

        def callback(msg):
            with self.cond:
                self.measured.append((arm, np.asarray(msg.position[:7])))
            keep(msg)

        return callback

    def _stream(self) -> None:
        """A skill's stream: each arm's target, stamped now, at 50 Hz."""
        with self.stream_lock:
            targets = dict(self.targets)
        ns = self.probe.get_clock().now().nanoseconds
        for arm, q in targets.items():
            msg = JointState(name=list(panda.JOINT_NAMES), position=q.tolist())
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
            self.pub_command[arm].publish(msg)

    def stream(self, **targets) -> None:
        with self.stream_lock:
            self.targets = {arm: np.asarray(q, dtype=np.float64) for arm, q in targets.items()}

    def mode(self, arm: str) -> dict:
        states = self.safety_state[arm]
        return states[-1] if states else {}


@pytest.fixture(scope="module")
def cell():
    c = Cell()
    yield c
    c.close()


def test_both_arms_publish_their_occupancy_in_the_world_frame(cell):
    def heard(arm):
        return [o for o in cell.occupancy if o is not None and o.arm == arm]

    cell.wait(lambda: all(len(heard(arm)) >= 5 for arm in ARMS), what="both arms' occupancy")
    cell.wait(lambda: all(cell.states[arm] for arm in ARMS), what="joint states")
    now = cell.probe.get_clock().now().nanoseconds * 1e-9
    for arm in ARMS:
        occ = heard(arm)[-1]
        assert abs(now - occ.stamp) < 5.0  # seconds of the ROS clock, not of a node
        q = np.asarray(cell.states[arm][-1].position[:7])
        at_rest = measured_occupancy(arm, q)
        assert occ.centres.shape == at_rest.centres.shape
        np.testing.assert_allclose(occ.centres, at_rest.centres, atol=0.01)
        assert np.all(occ.radii >= at_rest.radii - 1e-6)
        assert cell.safety_nodes[arm].occupancy_published >= 5
    # the two arms face each other: their bases' spheres lie on either side of y = 0
    left, right = (heard(arm)[-1].centres[0] for arm in ARMS)
    assert left[1] > 0.4 and right[1] < -0.4
    # every other name of the node lives under its arm
    topics = dict(cell.probe.get_topic_names_and_types())
    assert "/left_arm/miles/joint_command" in topics and "/right_arm/miles/safety/state" in topics
    assert "/left_arm/miles/safety/occupancy" not in topics


def test_malformed_occupancy_is_refused_and_never_used(cell):
    node = cell.safety_nodes["left_arm"]
    cell.wait(lambda: "right_arm" in node.supervisor.peers.latest, what="right's occupancy")
    before = node.supervisor.peers.refused

    def bad() -> list[str]:
        now = cell.probe.get_clock().now().nanoseconds * 1e-9
        far = {"arm": "right_arm", "centres": [[9.0, 9.0, 9.0]], "radii": [0.1]}
        return [
            "not json",
            json.dumps({"arm": "right_arm"}),
            json.dumps({**far, "stamp": now, "centres": [[float("nan"), 0.0, 0.0]]}),
            json.dumps({**far, "stamp": now, "radii": [-1.0]}),
            json.dumps({**far, "stamp": now + 60.0}),  # from the future
            json.dumps({**far, "stamp": now, "arm": "middle_arm"}),  # not a peer
        ]

    # best effort, and the reader keeps one message per writer (the newest): the right
    # arm's own occupancy at 250 Hz can replace a bad one before it is read, so each bad
    # message is sent on its own until the refusal count shows that it landed
    for i in range(6):
        count = node.supervisor.peers.refused
        for _ in range(100):
            cell.pub_occupancy.publish(String(data=bad()[i]))
            with cell.cond:
                if cell.cond.wait_for(lambda c=count: node.supervisor.peers.refused > c, 0.2):
                    break
        assert node.supervisor.peers.refused > count, f"bad occupancy {i} never refused"
    assert node.supervisor.peers.refused >= before + 6
    latest = node.supervisor.peers.latest
    assert set(latest) == {"right_arm"}
    held = latest["right_arm"]
    assert held.centres.shape == (ps.sphere_radii.shape[0], 3)
    assert np.all(np.isfinite(held.centres)) and np.all(np.abs(held.centres) < 2.0)
    assert node.supervisor.state()["estop"] is False


def test_a_stale_peer_stops_the_arm_until_it_is_fresh(cell):
    home = panda.home_joint_positions
    cell.stream(left_arm=home)
    cell.wait(lambda: cell.mode("left_arm").get("mode") == "active", what="left arm active")
    right = cell.safety_nodes["right_arm"]
    # The right arm's occupancy falls silent, the rest of its node running on. (Taking the
    # node off the executor silences it too, but for however long the left arm takes to
    # stop, which on a loaded machine can pass the graph's state_timeout: the frozen node
    # then rightly latches its own e-stop for the robot state it did not read.)
    right.publish_occupancy = lambda ns, t: None
    try:
        cell.wait(
            lambda: (
                cell.mode("left_arm").get("mode") == "hold"
                and "right_arm" in cell.mode("left_arm").get("reason", "")
            ),
            what="left arm stopped by the silent peer",
        )
        assert any(e.get("kind") == "peer_stop" for e in cell.events["left_arm"])
        assert cell.mode("left_arm")["estop"] is False  # a controlled stop, not a latch
    finally:
        del right.publish_occupancy  # the class's method again
    cell.wait(
        lambda: any(e.get("kind") == "peer_fresh" for e in cell.events["left_arm"]),
        what="the peer fresh again",
    )
    cell.wait(lambda: cell.mode("left_arm").get("mode") == "active", what="left arm resumed")
    assert cell.mode("right_arm").get("estop") is False
    cell.stream()


def test_commands_into_each_other_are_limited_and_the_arms_stay_apart(cell):
    target = reach_ik(np.array([0.72, 0.0, 0.30]))  # each arm's TCP past the other's
    overlap = separation(
        measured_occupancy("left_arm", target), measured_occupancy("right_arm", target)
    )
    assert overlap < -MARGIN  # what the commands ask for would put the arms into each other
    with cell.cond:
        start = len(cell.measured)
        n_events = {arm: len(cell.events[arm]) for arm in ARMS}
    cell.stream(left_arm=target, right_arm=target)

    cell.wait(
        lambda: all(
            any(e.get("kind") == "cartesian" for e in cell.events[arm][n_events[arm] :])
            for arm in ARMS
        ),
        what="both arms' commands limited",
    )
    # then a few seconds more of streaming (counted in joint-state messages, not slept)
    cell.wait(lambda: len(cell.measured) > start + 2000, timeout=60.0, what="more states")
    cell.stream()
    with cell.cond:
        measured = list(cell.measured[start:])
    latest: dict[str, np.ndarray] = {}
    closest = np.inf
    for arm, q in measured:
        latest[arm] = q
        if len(latest) == 2:
            closest = min(
                closest,
                separation(
                    measured_occupancy("left_arm", latest["left_arm"]),
                    measured_occupancy("right_arm", latest["right_arm"]),
                ),
            )
    assert closest >= MARGIN, closest
    print(f"closest measured separation {closest:.3f} m (margin {MARGIN} m)")
    for arm in ARMS:  # limited: neither arm got where it was sent
        q = np.asarray(cell.states[arm][-1].position[:7])
        assert np.linalg.norm(panda.fk_tcp(q) - panda.fk_tcp(target)) > 0.05
        assert cell.mode(arm)["estop"] is False


def test_the_arm_and_its_peers_come_from_the_scene():
    from miles_ros.ros.safety_node import separation_config

    assert separation_config(SafetyConfig()) is None  # one arm, no scene read
    left = separation_config(SafetyConfig(arm="left_arm", scene_file=DUAL))
    assert left.arm == "left_arm" and left.peers == ("right_arm",)
    assert left.margin == MARGIN and left.max_age == SafetyConfig().peer_max_age
    with pytest.raises(ValueError, match="set the arm parameter"):
        separation_config(SafetyConfig(scene_file=DUAL))
    with pytest.raises(ValueError, match="no arm named 'middle_arm'"):
        separation_config(SafetyConfig(arm="middle_arm", scene_file=DUAL))
    with pytest.raises(ValueError, match="the scene lists no arms"):
        separation_config(SafetyConfig(arm="left_arm"))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0), min_size=7, max_size=7), st.sampled_from(ARMS))
def test_occupancy_is_placed_by_the_scenes_base_pose(fractions, arm):
    """The supervisor's cell frame is frames.base_to_world for the arm's mount."""
    from miles_ros.ros.safety_node import separation_config
    from miles_ros.safety.kinematics import lipschitz_radii
    from miles_ros.safety.separation import occupancy
    from miles_ros.safety.shaping import joint_state

    mid = (panda.joint_position_min + panda.joint_position_max) / 2
    half = (panda.joint_position_max - panda.joint_position_min) / 2
    q = mid + half * np.asarray(fractions)
    config = separation_config(SafetyConfig(arm=arm, scene_file=DUAL))
    js = joint_state(SafetyConfig().limits, lipschitz_radii())
    zero = np.zeros(7)
    occ = occupancy(config, 0.0, js, q, zero, zero)
    np.testing.assert_allclose(occ.centres, measured_occupancy(arm, q).centres, atol=1e-9)
    np.testing.assert_allclose(occ.radii, measured_occupancy(arm, q).radii, atol=1e-9)
