"""The cell manager's status (no ROS): idle at start (before any goal, as the single-arm
manager), every goal numbered (``goal_seq``), and ``miles goal``'s follower following a
cell goal from these statuses: its plan, each task's arm and end, the outcome."""

from __future__ import annotations

import json

from miles_ros.agent.arm_agent import ArmAgent, cards_from_registry
from miles_ros.agent.contract_net import to_json
from miles_ros.agent.grounding import Step
from miles_ros.agent.registry import SkillRegistry
from miles_ros.commands.goal import GoalFollower
from miles_ros.manager.cell import CellDriver
from sims.scene import load_scene
from tests.manager.test_cell import FakePlan, FakePlanner

SCENE = load_scene("config/scene_dual.yaml")
GOAL = "put the red cube on the left pad and the blue cube on the right pad"
STEPS = [
    Step("pick_place", {"object": "red_cube", "target": "left_pad"}),
    Step("pick_place", {"object": "blue_cube", "target": "right_pad"}),
]


def cell(plan: FakePlan):
    """A driver whose announcements the scene's two arm agents answer at once."""
    cards = cards_from_registry(SkillRegistry.load())
    places = {k: p.position for k, p in SCENE.places.items()}
    agents = [ArmAgent(m.name, m, cards, places) for m in SCENE.arms]
    for agent in agents:
        agent.on_objects({k: o.position for k, o in SCENE.objects.items()})
    sent, statuses, clock = [], [], [0.0]

    def send(message):
        sent.append(message)
        for agent in agents:
            if message.kind == "announce":
                driver.on_bid(to_json(agent.on_announce(message.payload, clock[0])))
            elif message.kind == "award":
                agent.on_award(message.payload, clock[0])

    arms = [m.name for m in SCENE.arms]
    driver = CellDriver(arms, tuple(SCENE.objects), FakePlanner(plan), send, statuses.append)
    driver.clock = lambda: clock[0]
    return driver, sent, statuses, clock


def test_the_cell_manager_is_idle_at_start_and_numbers_its_goals():
    driver, sent, statuses, _ = cell(FakePlan(STEPS))
    assert statuses == []  # nothing before start (the node calls it once it is built)
    driver.start()
    (idle,) = statuses
    assert idle["outcome"] == "idle" and idle["planner"] == "ready"
    assert idle["goal_seq"] == 0 and idle["goals_received"] == 0 and idle["goal"] is None
    assert idle["mode"] == "cell" and idle["arms"] == ["left_arm", "right_arm"]
    assert driver.on_goal(f"  {GOAL} ")
    driver.close()
    assert statuses[1]["outcome"] == "planning" and statuses[1]["goal"] == GOAL
    assert {s["goal_seq"] for s in statuses[1:]} == {1}
    assert all(s["goals_received"] == 1 for s in statuses[1:])


def test_miles_goal_follows_a_cell_goal_to_its_end():
    driver, sent, statuses, clock = cell(FakePlan(STEPS))
    lines: list[str] = []
    follower = GoalFollower(GOAL, out=lines.append)
    driver.start()
    follower.on_status(statuses[-1])  # what `miles goal` sees first: the latched idle
    follower.sent()
    seen = len(statuses)
    assert driver.on_goal(GOAL)
    driver.close()
    clock[0] = 0.2
    driver.tick()
    requests = {m.arm: json.loads(m.payload) for m in sent if m.kind == "request"}
    driver.on_skill_status("left_arm", {"id": requests["left_arm"]["id"], "state": "failed"})
    clock[0] = 1.0
    driver.tick()  # re-announced and awarded again
    for _ in range(3):
        requests = {m.arm: json.loads(m.payload) for m in sent if m.kind == "request"}
        for arm, request in requests.items():
            driver.on_skill_status(arm, {"id": request["id"], "state": "succeeded"})
        clock[0] += 0.5
        driver.tick()
    for status in statuses[seen:]:
        follower.on_status(status)
    assert follower.seq == 1 and follower.outcome == "succeeded", lines
    text = "\n".join(lines)
    assert "plan (cell of left_arm, right_arm" in text
    assert "  1. pick_place object=red_cube target=left_pad" in text
    assert "-> task 1: pick_place object=red_cube target=left_pad on left_arm (round 1" in text
    assert "-> task 2: pick_place object=blue_cube target=right_pad on right_arm" in text
    assert "<- task 1: pick_place object=red_cube target=left_pad on left_arm: failed" in text
    assert "(round 2" in text and ": succeeded" in text
    assert lines[-1].startswith("goal succeeded")
