"""A two-arm cell over real rclpy on loopback (config/scene_dual.yaml): sim_node, one
skill node and one arm agent per arm, and manager_node in its cell mode with a fixed
plan. "put the red cube on the left pad and the blue cube on the right pad" is announced
task by task, bid on, awarded to the two arms and run on both at once. No safety node:
each skill node publishes straight to its arm's command topic on the sim (tests only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

rclpy = pytest.importorskip("rclpy")

from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.agent.grounding import Step  # noqa: E402
from miles_ros.agent.registry import SkillRegistry  # noqa: E402
from miles_ros.interfaces import CELL_TOPICS  # noqa: E402
from miles_ros.ros.arm_agent_node import ArmAgentNode  # noqa: E402
from miles_ros.ros.graph import IN_PROCESS_SIM_OVERRIDES  # noqa: E402
from miles_ros.ros.manager_node import ManagerNode  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS  # noqa: E402
from miles_ros.ros.sim_node import SimNode  # noqa: E402
from miles_ros.ros.skill_node import SkillNode  # noqa: E402
from miles_ros.runtime.library import SkillLibrary  # noqa: E402
from tests.nodes.graph_harness import SIM, SKILL, Graph, overrides  # noqa: E402

DUAL = str(Path(__file__).resolve().parents[2] / "config" / "scene_dual.yaml")
ARMS = ("left_arm", "right_arm")
GOAL = "put the red cube on the left pad and the blue cube on the right pad"
NOT_ENDED = (None, "idle", "planning", "running")
"""Manager outcomes before a goal's end (the cell manager is idle until the goal)."""


class FixedPlan:
    """The plan of GOAL, as the planner gives it."""

    trace_id = "cell-trace"
    refused, valid, reason, errors, clarification = False, True, "", [], None
    steps = [
        Step("pick_place", {"object": "red_cube", "target": "left_pad"}),
        Step("pick_place", {"object": "blue_cube", "target": "right_pad"}),
    ]


class FixedPlanner:
    def __init__(self, _params):
        self.registry = SkillRegistry.load()

    def plan(self, goal, **_):
        assert goal == GOAL
        return FixedPlan()


def arm_agent(arm: str):
    """The factory of ``arm``'s agent in the DUAL scene."""
    params = {"scene_file": DUAL, "arm": arm}
    return lambda ctx: ArmAgentNode(context=ctx, parameter_overrides=overrides(params))


def cell_manager(**more):
    """The factory of manager_node in its cell mode (the DUAL scene, memory in RAM) with
    :class:`FixedPlanner`; ``more``: more of its parameters."""
    params = {"scene_file": DUAL, "memory_db": ":memory:", "memory_embedder": "hash", **more}
    return lambda ctx: ManagerNode(
        FixedPlanner, context=ctx, parameter_overrides=overrides(params)
    )


def goal_end(statuses: list[dict]) -> dict | None:
    """The first of the manager's ``statuses`` with the goal's outcome (None before it)."""
    return next((s for s in statuses if s.get("outcome") not in NOT_ENDED), None)


@pytest.mark.skipif(
    "pick_place" not in SkillLibrary.load().skills, reason="needs the shipped pick_place"
)
def test_two_arms_run_their_awarded_tasks_at_once():
    def skill(arm):
        params = {
            "scene_file": DUAL,
            "arm": arm,
            "timeout_scale": 4.0,  # a loaded box slows the real-time sim
            "skill_command_topic": SIM.joint_command_topic,  # straight to the sim: tests only
            "shape_commands": False,  # no supervisor in between to track trajectory points
            **IN_PROCESS_SIM_OVERRIDES["skills"],
        }
        return lambda ctx: SkillNode(context=ctx, parameter_overrides=overrides(params))

    graph = Graph(
        [
            lambda ctx: SimNode(context=ctx, parameter_overrides=overrides({"scene_file": DUAL})),
            skill("left_arm"),
            skill("right_arm"),
            arm_agent("left_arm"),
            arm_agent("right_arm"),
            # no safety nodes here: the arms may share the space
            cell_manager(cell_clearance=0.0),
        ]
    )
    try:
        probe = graph.probe
        events: list[tuple[str, dict]] = []
        statuses: list[dict] = []
        graph.keep_arms(events, ARMS, SKILL.status_topic)
        bids: list[dict] = []
        probe.create_subscription(
            String,
            CELL_TOPICS["bid"],
            graph._keep(bids, json.loads),
            COMMAND_QOS,
        )
        probe.create_subscription(
            String,
            interfaces.MANAGER_STATUS,
            graph._keep(statuses, json.loads),
            LATCHED_QOS,
        )
        for node in graph.nodes[1:3]:
            graph.wait(
                lambda n=node: n.skills.joints is not None and n.skills.objects, what="state"
            )
        goal = probe.create_publisher(String, interfaces.GOAL, COMMAND_QOS)
        graph.wait(lambda: probe.count_subscribers(interfaces.GOAL) > 0, what="the manager")
        goal.publish(String(data=GOAL))
        graph.wait(lambda: goal_end(statuses) is not None, timeout=180.0, what="the goal's end")
        final = goal_end(statuses)
        assert final["outcome"] == "succeeded", final.get("failure")
        assert final["trace_id"] == "cell-trace"
        # round 1 of the two tasks went to different arms (a failed run may add a round)
        assert {a["arm"] for a in final["awards"][:2]} == set(ARMS), (bids, final["awards"])
        assert {b["trace_id"] for b in bids} == {"cell-trace"} and len(bids) >= 4
        # both arms were running at once: each arm's first "running" came before the
        # other arm's final status
        order = [(arm, s["state"]) for arm, s in events]
        first_running = {arm: order.index((arm, "running")) for arm in ARMS}
        first_final = {
            arm: next(i for i, (a, st) in enumerate(order) if a == arm and st != "running")
            for arm in ARMS
        }
        assert first_running["left_arm"] < first_final["right_arm"]
        assert first_running["right_arm"] < first_final["left_arm"]
    finally:
        graph.close()
