"""The cell's manager over real rclpy on loopback: its idle status is latched from the
start, so ``miles goal`` (which waits for a status) reaches it before any goal, and
follows a cell goal to its end. No arm agents here: nobody bids, and the goal fails with
every arm's reason."""

from __future__ import annotations

import pytest

pytest.importorskip("rclpy")

from miles_ros.commands.goal import main as goal_main  # noqa: E402
from miles_ros.ros.manager_node import ManagerNode  # noqa: E402
from tests.nodes.graph_harness import Graph, overrides  # noqa: E402
from tests.nodes.test_cell_graph import DUAL, GOAL, FixedPlanner  # noqa: E402


def test_miles_goal_reaches_an_idle_cell_manager_and_follows_its_goal(capsys):
    params = {"scene_file": DUAL, "memory_db": ":memory:", "memory_embedder": "hash"}
    graph = Graph(
        [lambda ctx: ManagerNode(FixedPlanner, context=ctx, parameter_overrides=overrides(params))]
    )
    try:
        domain = str(graph.graph.domain_id)
        code = goal_main([GOAL, "--domain-id", domain, "--wait", "20", "--timeout", "60"])
    finally:
        graph.close()
    out = capsys.readouterr()
    assert code == 1, out.out + out.err  # reached (2 would be "no manager"), then failed
    assert "plan (cell of left_arm, right_arm" in out.out
    assert "  1. pick_place object=red_cube target=left_pad" in out.out
    assert "goal failed: nobody can do pick_place" in out.out
    assert "left_arm" in out.out.splitlines()[-1] and "right_arm" in out.out.splitlines()[-1]
