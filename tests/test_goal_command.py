"""`miles goal`: the follower's printed lines from manager statuses (no ROS), and the
command against a manager running in the test (a fake planner and a fake skill node over
real rclpy on loopback): steps printed, exit 0 on success, 1 on a refusal, 2 with no
manager."""

from __future__ import annotations

import json

import pytest

from miles_ros.commands.goal import GoalFollower, main, topic


def status(seq: int, outcome: str, **extra) -> dict:
    return {
        "goal": "move to the red cube",
        "goal_seq": seq,
        "goals_received": seq,
        "outcome": outcome,
        **extra,
    }


def running(seq: int, step: dict, request: dict, executed: list, **extra) -> dict:
    """The status of goal ``seq`` (trace ``t``) running ``step``, its only step."""
    return status(
        seq,
        "running",
        trace_id="t",
        request=request,
        step=step,
        step_index=0,
        steps=1,
        executed=executed,
        **extra,
    )


def printing_follower(goal: str = "move to the red cube") -> tuple[GoalFollower, list[str]]:
    """A follower of ``goal`` and the lines it prints."""
    lines: list[str] = []
    return GoalFollower(goal, out=lines.append), lines


def test_follower_prints_plan_steps_and_outcome_of_its_own_goal_only():
    follower, lines = printing_follower("move  to the red cube")
    follower.on_status(status(3, "succeeded", trace_id="old"))  # the latched one: an old goal
    follower.sent()
    follower.on_status(status(3, "succeeded", trace_id="old"))  # again, still not ours
    assert follower.outcome is None and not lines
    plan = {
        "goal_seq": 4,
        "trace_id": "t",
        "replan": False,
        "mode": "grounded",
        "model": "fake",
        "latency_s": 0.5,
        "steps": [{"skill": "reach", "params": {"target": "red_cube"}}],
    }
    follower.on_plan(plan)  # before its status: kept until the goal is known to be ours
    request = {"id": "t:1", "skill": "reach", "state": "sent", "progress": 0.0}
    step = {"skill": "reach", "params": {"target": "red_cube"}}
    follower.on_status(running(4, step, request, []))
    follower.on_status(running(4, step, request, []))  # no duplicate line
    done = [
        {
            "skill": "reach",
            "params": {"target": "red_cube"},
            "state": "succeeded",
            "duration_s": 1.25,
            "reason": "",
        }
    ]
    follower.on_status(status(4, "succeeded", trace_id="t", replans=0, executed=done))
    assert follower.outcome == "succeeded" and follower.seq == 4
    assert lines == [
        "plan (grounded, fake, 0.50 s, trace t):",
        "  1. reach target=red_cube",
        "-> step 1/1: reach target=red_cube  [t:1]",
        "   <- reach target=red_cube: succeeded in 1.25 s",
        "goal succeeded (replans: 0, trace t)",
    ]


def test_follower_prints_a_replan_after_the_step_that_failed():
    follower, lines = printing_follower()
    follower.sent()
    info = {"mode": "grounded", "model": "fake", "latency_s": 0.25}
    push = {"skill": "push", "params": {"object": "red_cube", "target": "left_pad"}}
    pick = {"skill": "pick_place", "params": {"object": "red_cube", "target": "left_pad"}}
    request = {"id": "t:1", "skill": "push"}
    follower.on_status(running(1, push, request, [], replans=0, plan=[push], plan_info=info))
    follower.on_plan(
        {"goal_seq": 1, "trace_id": "t", "replans": 1, "replan": True, "steps": [pick], **info}
    )  # may come before the status: held back
    failed = {**push, "state": "failed", "reason": "slipped", "duration_s": 2.0}
    request = {"id": "t:2", "skill": "pick_place"}
    follower.on_status(running(1, pick, request, [failed], replans=1, plan=[pick], plan_info=info))
    assert lines == [
        "plan (grounded, fake, 0.25 s, trace t):",
        "  1. push object=red_cube target=left_pad",
        "-> step 1/1: push object=red_cube target=left_pad  [t:1]",
        "   <- push object=red_cube target=left_pad: failed in 2.00 s: slipped",
        "replanned (grounded, fake, 0.25 s, trace t):",
        "  1. pick_place object=red_cube target=left_pad",
        "-> step 1/1: pick_place object=red_cube target=left_pad  [t:2]",
    ]


def test_follower_reports_a_refusal_with_its_reason():
    follower, lines = printing_follower()
    follower.sent()
    follower.on_status(status(1, "refused", reason="e-stop latched"))
    assert follower.outcome == "refused" and lines == ["goal refused: e-stop latched"]


def test_topics_follow_the_namespace():
    assert topic("/miles", "/miles/goal") == "/miles/goal"
    assert topic("robot2", "/miles/manager/status") == "/robot2/manager/status"


# -- against a running manager ---------------------------------------------------------
@pytest.fixture
def manager_graph():
    pytest.importorskip("rclpy")
    from tests.nodes.test_manager_node import fake_graph, fake_planner, scorer

    with fake_graph(fake_planner(scorer(["reach red", "home"]))) as graph:
        yield graph


def goal_command(graph, goal: str, capsys, *more: str) -> tuple[int, str]:
    """``miles goal GOAL`` against ``graph``'s manager: its exit code and what it printed."""
    rc = main([goal, "--domain-id", str(graph.domain_id), "--timeout", "60", *more])
    return rc, capsys.readouterr().out


def test_goal_against_a_running_manager_prints_the_steps_and_exits_0(manager_graph, capsys):
    rc, out = goal_command(manager_graph, "move to the red cube, then go home", capsys, "--json")
    assert rc == 0, out
    lines = out.splitlines()
    trace = manager_graph.plans[0]["trace_id"]
    assert f"-> step 1/2: reach target=red_cube  [{trace}:1]" in lines
    assert f"-> step 2/2: home  [{trace}:2]" in lines
    assert "  1. reach target=red_cube" in lines and "  2. home" in lines
    assert f"goal succeeded (replans: 0, trace {trace})" in lines
    final = json.loads(lines[-1])
    assert final["outcome"] == "succeeded" and final["trace_id"] == trace
    assert [r["skill"] for r in manager_graph.requests] == ["reach", "home"]


def test_goal_refused_under_a_latched_estop_exits_1(manager_graph, capsys):
    from std_msgs.msg import String

    manager_graph.pub_safety.publish(String(data=json.dumps({"estop": True})))
    manager_graph.wait(
        lambda: any(s.get("estop") for s in manager_graph.manager_status),
        what="the manager saw the e-stop",
    )
    rc, out = goal_command(manager_graph, "go home", capsys)
    assert rc == 1
    assert "goal refused: e-stop latched (reset it first: miles estop --reset)" in out
    assert manager_graph.requests == []


def test_goal_without_a_manager_exits_2(capsys):
    pytest.importorskip("rclpy")
    from tests.ros_domains import domain_id

    rc = main(["go home", "--domain-id", str(domain_id()), "--wait", "0.5"])
    assert rc == 2
    assert "no manager on /miles/manager/status" in capsys.readouterr().err


def test_goal_the_planner_refuses_exits_3_with_the_reason(manager_graph, capsys):
    rc, out = goal_command(manager_graph, "put the purple cube on the left pad", capsys)
    assert rc == 3, out
    assert "goal refused: the scene has no purple object" in out
    assert manager_graph.requests == []


def test_a_goal_that_does_not_say_which_cube_exits_4_and_the_next_goal_answers(
    manager_graph, capsys
):
    from tests.nodes.test_monitor_node import wait_for

    rc, out = goal_command(manager_graph, "hover over the cube", capsys)
    assert rc == 4, out
    assert "goal needs_clarification: Which cube do you mean:" in out
    assert manager_graph.requests == []
    # /miles/plan reaches the graph's own reader on its executor, maybe after the status
    wait_for(lambda: len(manager_graph.plans) == 1, "the plan that asks back")
    asked = manager_graph.plans[-1]
    assert asked["steps"] == [] and asked["clarify"].startswith("Which cube")
    assert set(asked["options"]) == {"red_cube", "green_cube", "blue_cube"}
    rc, out = goal_command(manager_graph, "the red one", capsys)
    assert rc == 0, out
    wait_for(lambda: len(manager_graph.plans) == 2, "the answered goal's plan")
    assert manager_graph.plans[-1]["goal"] == "hover over the red cube"
    assert [r["skill"] for r in manager_graph.requests] == ["reach", "home"]
