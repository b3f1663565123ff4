"""The two-arm cell over real rclpy on loopback with every safety node in the loop:
sim_node, a safety node, a skill node and an arm agent per arm, manager_node in its cell
mode with a fixed plan. "put the red cube on the left pad and the blue cube on the right
pad" runs behind the supervisors (and succeeds, or fails only by the learned
pick_place's own timeout or stall, about 1 run in 5), which exchange occupancy (with
reach radii) on ``/miles/safety/occupancy``, with both arms moving at once (the two
tasks' cubes and pads lie beyond the dispatcher's clearance, so both pick_places run
together; in a tighter layout the first arm would go home while the second arm's
pick_place runs). The arms' link spheres, at their commanded positions, never come
closer than the separation margin."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.interfaces import CELL_TOPICS, arm_scoped  # noqa: E402
from miles_ros.ros.graph import cell_factories  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS  # noqa: E402
from miles_ros.runtime.frames import base_to_world  # noqa: E402
from miles_ros.runtime.library import SkillLibrary  # noqa: E402
from miles_ros.safety import SafetyConfig  # noqa: E402
from sims.robots import panda_spheres as ps  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import SAFETY, SKILL, Graph  # noqa: E402
from tests.nodes.test_cell_graph import (  # noqa: E402
    ARMS,
    DUAL,
    GOAL,
    arm_agent,
    cell_manager,
    goal_end,
)

MARGIN = SafetyConfig().separation_margin
PAIRED = 0.006
"""Two arms' commands at most this far apart (s) count as one moment: the supervisors
keep their commands apart at every output period, and an arm moves a few millimetres
in 6 ms, hence the 1 cm slack below."""


class Commands:
    """Each arm's commanded joints (the safety nodes' output), kept with their stamps; the
    two arms' commands are paired by stamp once the run is over, so a callback that runs
    late under load (or out of order with the other arm's) still pairs."""

    def __init__(self) -> None:
        scene = load_scene(DUAL)
        self.mounts = {arm: scene.arm(arm) for arm in ARMS}
        self.sent: dict[str, list[tuple[float, np.ndarray]]] = {arm: [] for arm in ARMS}
        self.lock = threading.Lock()

    def callback(self, arm: str):
        def on_command(msg: JointState) -> None:
            q = np.asarray(msg.position[:7], dtype=np.float64)
            stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            with self.lock:
                self.sent[arm].append((stamp, q))

        return on_command

    def closest(self) -> tuple[float, int]:
        """The smallest separation between the two arms' link spheres over every pair of
        commands at most ``PAIRED`` apart (each left command with the right command
        nearest in stamp), and the number of such pairs."""
        with self.lock:
            left, right = (sorted(self.sent[arm], key=lambda c: c[0]) for arm in ARMS)
        if not left or not right:
            return np.inf, 0
        stamps = np.array([t for t, _ in right])
        closest, pairs = np.inf, 0
        r = ps.sphere_radii
        for t, q in left:
            i = int(np.searchsorted(stamps, t))
            j = min(
                (k for k in (i - 1, i) if 0 <= k < len(stamps)), key=lambda k: abs(stamps[k] - t)
            )
            if abs(stamps[j] - t) > PAIRED:
                continue
            a = base_to_world(self.mounts[ARMS[0]], ps.link_spheres(q)[0])
            b = base_to_world(self.mounts[ARMS[1]], ps.link_spheres(right[j][1])[0])
            d = np.linalg.norm(a[:, None] - b[None], axis=2) - r[:, None] - r[None]
            closest = min(closest, float(d.min()))
            pairs += 1
        return closest, pairs


@pytest.mark.skipif(
    "pick_place" not in SkillLibrary.load().skills, reason="needs the shipped pick_place"
)
def test_two_arms_behind_their_safety_nodes_run_the_goal_at_once():
    factories = cell_factories(
        DUAL,
        ["sim", "safety", "skills"],
        overrides={"skills": {"timeout_scale": 4.0}},  # a loaded box slows the sim
    )

    labels = [label for label, _ in factories]
    graph = Graph(
        [make for _, make in factories] + [arm_agent(arm) for arm in ARMS] + [cell_manager()]
    )
    try:
        probe = graph.probe
        commands = Commands()
        events: list[tuple[str, dict]] = []
        statuses: list[dict] = []
        safety_events: list[tuple[str, dict]] = []
        graph.keep_arms(events, ARMS, SKILL.status_topic)
        graph.keep_arms(safety_events, ARMS, SAFETY.events_topic)
        for arm in ARMS:
            probe.create_subscription(
                JointState,
                arm_scoped(arm, SAFETY.joint_command_topic),
                commands.callback(arm),
                COMMAND_QOS,
            )
        probe.create_subscription(
            String, interfaces.MANAGER_STATUS, graph._keep(statuses, json.loads), LATCHED_QOS
        )
        skills = [graph.nodes[labels.index(f"skills/{arm}")] for arm in ARMS]
        for node in skills:
            graph.wait(
                lambda n=node: n.skills.joints is not None and n.skills.objects, what="state"
            )
        goal = probe.create_publisher(String, interfaces.GOAL, COMMAND_QOS)
        graph.wait(lambda: probe.count_subscribers(interfaces.GOAL) > 0, what="the manager")
        graph.wait(
            lambda: probe.count_subscribers(CELL_TOPICS["announce"]) >= 2, what="the agents"
        )

        goal.publish(String(data=GOAL))
        graph.wait(lambda: goal_end(statuses) is not None, timeout=300.0, what="the goal's end")
        final = goal_end(statuses)
        # The learned pick_place sometimes hovers with the cube near the pad (about 1 run
        # in 5 here), and the cube is then too near the pad for a retry inside the card's
        # envelope. Such a run may fail the goal, by the skill's own end only (its timeout,
        # or the skill node's stall check, which since it came ends a hover early and
        # fails it 'stalled' after one home-and-restart): never by a safety stop. The
        # contract net then gives up when no arm bids for the task again ("nobody can
        # do"), or when the task's rounds are spent ("no rounds left").
        own_ends = [
            s
            for _, s in events
            if s["state"] == "failed" and s["reason"].startswith(("timeout", "stalled"))
        ]
        gave_up = ("nobody can do", "no rounds left")
        assert final["outcome"] == "succeeded" or (
            final["outcome"] == "failed"
            and own_ends
            and any(words in final["failure"] for words in gave_up)
        ), final.get("failure")
        assert final["trace_id"] == "cell-trace"
        assert {a["arm"] for a in final["awards"]} == set(ARMS), final["awards"]
        # Both arms moved at once: one arm's request ran while the other's did.
        succeeded = final["outcome"] == "succeeded"
        order = [(arm, s["id"], s["state"]) for arm, s in events]
        spans = {}
        for i, (arm, rid, state) in enumerate(order):
            start, end = spans.get((arm, rid), (i, None))
            spans[(arm, rid)] = (start, i if state != "running" else end)
        left = [s for (arm, _), s in spans.items() if arm == "left_arm"]
        right = [s for (arm, _), s in spans.items() if arm == "right_arm"]
        assert not succeeded or any(
            a0 < (b1 if b1 is not None else len(order)) and b0 < (a1 or len(order))
            for a0, a1 in left
            for b0, b1 in right
        ), order
        # The supervisors were in the loop and kept the arms apart.
        assert not any(e.get("kind") == "estop" for _, e in safety_events)
        closest, pairs = commands.closest()
        assert pairs > 100, pairs
        assert closest >= MARGIN - 0.01, closest  # pairs up to PAIRED apart: 1 cm slack
    finally:
        graph.close()
