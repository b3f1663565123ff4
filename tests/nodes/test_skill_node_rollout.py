"""Shadow and canary through skill_node over real rclpy on loopback, in the full graph
(sim_node -> safety_node -> skill_node): a mirrored shadow candidate never moves the arm
(the skill reaches its goal, the final status carries the shadow's record), and a
mirrored canary candidate's request falls back to the active version and succeeds."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("rclpy")

from miles_ros.interfaces import SKILL_CANARY, SKILL_SHADOW  # noqa: E402
from tests.nodes.graph_harness import skill_graph  # noqa: E402
from tests.nodes.test_skill_node import NEAR, tcp  # noqa: E402
from tests.runtime.skill_fixtures import linear_reach_skill  # noqa: E402


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """A library with the linear reach (it reaches NEAR from home)."""
    root = tmp_path_factory.mktemp("skills")
    linear_reach_skill(root)
    return root


@pytest.fixture(scope="module")
def mirrored(tmp_path_factory):
    """The linear reach with its gain negated: every action points away from the goal."""
    return linear_reach_skill(tmp_path_factory.mktemp("mirrored"), gain=-0.5)


def test_a_mirrored_shadow_never_reaches_the_command_topic(library, mirrored):
    graph = skill_graph(
        library, {"timeout_scale": 4.0, "shadow": json.dumps({"reach": str(mirrored)})}
    )
    try:
        graph.request("s1", "reach", target=NEAR)
        final = graph.final("s1")
        assert final["state"] == "succeeded", final
        assert np.linalg.norm(tcp(graph) - np.array(NEAR)) < 0.05
        record = final[SKILL_SHADOW]
        assert record["periods"] >= 3 and record["action_l2_mean"] > 0.0
        assert record["candidate"] == str(mirrored)
    finally:
        graph.close()


def test_a_mirrored_canary_request_falls_back_and_succeeds(library, mirrored):
    canary = {"reach": {"candidate": str(mirrored), "share": 1.0, "baseline": 0.95}}
    params = {"timeout_scale": 4.0, "stall_window_s": 0.5, "stall_restarts": 0}
    graph = skill_graph(library, {**params, "canary": json.dumps(canary)})
    try:
        graph.request("c1", "reach", target=NEAR)
        final = graph.final("c1", timeout=60.0)
        assert final["state"] == "succeeded", final
        assert final[SKILL_CANARY]["version"] == "active"
        assert final[SKILL_CANARY]["fallback"]
        decisions = graph.nodes[2].skills.rollout.decisions()
        assert decisions and decisions[-1]["failures"] == 1
    finally:
        graph.close()
