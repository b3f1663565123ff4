"""The cell manager without ROS: a goal planned (fake planner), announced, bid on by the
arms' agents, awarded and requested on each arm's topic; the planner's cards lose their
envelopes (the arms judge reachability)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from miles_ros.agent.arm_agent import ArmAgent, cards_from_registry
from miles_ros.agent.contract_net import to_json
from miles_ros.agent.grounding import Step
from miles_ros.agent.reference_scene import Clarification
from miles_ros.agent.registry import SkillRegistry
from miles_ros.interfaces import NEEDS_CLARIFICATION
from miles_ros.manager.cell import CellDriver, cell_registry
from sims.scene import load_scene

SCENE = load_scene("config/scene_dual.yaml")


@dataclass
class FakePlan:
    steps: list
    trace_id: str = "trace-cell"
    refused: bool = False
    valid: bool = True
    reason: str = ""
    errors: list = field(default_factory=list)
    clarification: object = None


class FakePlanner:
    def __init__(self, plan):
        self._plan = plan

    def plan(self, goal, **_):
        return self._plan


def test_cell_registry_drops_envelopes_only():
    registry = SkillRegistry.load()
    cell = cell_registry(registry)
    assert cell.names == registry.names
    assert all(s.card.envelope is None for s in cell)
    assert any(s.card.envelope is not None for s in registry)


def test_a_goal_runs_on_both_arms_with_the_trace_id():
    cards = cards_from_registry(SkillRegistry.load())
    places = {k: p.position for k, p in SCENE.places.items()}
    agents = {m.name: ArmAgent(m.name, m, cards, places) for m in SCENE.arms}
    for agent in agents.values():
        agent.on_objects({k: o.position for k, o in SCENE.objects.items()})
    sent, statuses = [], []
    clock = [0.0]
    driver: CellDriver

    def send(message):
        sent.append(message)
        if message.kind == "announce":
            for agent in agents.values():
                bid = agent.on_announce(message.payload, clock[0])
                driver.on_bid(to_json(bid))
        elif message.kind == "award":
            for agent in agents.values():
                agent.on_award(message.payload, clock[0])

    plan = FakePlan(
        [
            Step("pick_place", {"object": "red_cube", "target": "left_pad"}),
            Step("pick_place", {"object": "blue_cube", "target": "right_pad"}),
        ]
    )
    driver = CellDriver(
        [m.name for m in SCENE.arms],
        tuple(SCENE.objects),
        FakePlanner(plan),
        send,
        statuses.append,
        clock=lambda: clock[0],
    )
    assert driver.on_goal("put the red cube on the left pad and the blue cube on the right pad")
    driver.close()
    # the next announcement waits award_gap after an award (topics are not ordered)
    assert [m.kind for m in sent] == ["announce", "award", "request"]
    clock[0] = 0.2
    driver.tick()
    requests = {m.arm: json.loads(m.payload) for m in sent if m.kind == "request"}
    assert set(requests) == {"left_arm", "right_arm"}  # both arms at once
    assert all(r["trace_id"] == "trace-cell" for r in requests.values())
    assert not driver.on_goal("another goal")  # busy
    refusal, running = statuses[-2], statuses[-1]
    assert {k: refusal[k] for k in ("goal", "outcome", "failure", "goal_seq")} == {
        "goal": "another goal",
        "outcome": "refused",
        "failure": "busy",
        "goal_seq": 2,  # its own number, so `miles goal` matches the refusal
    }
    assert "busy with goal" in refusal["reason"]
    assert running["goal_seq"] == 1 and running["outcome"] == "running"  # stays the latest
    for arm, request in requests.items():
        driver.on_skill_status(arm, {"id": request["id"], "state": "succeeded"})
    final = statuses[-1]
    assert final["outcome"] == "succeeded" and final["trace_id"] == "trace-cell"
    assert [a["arm"] for a in final["awards"]] == ["left_arm", "right_arm"]


def test_a_refused_plan_announces_nothing():
    sent, statuses = [], []
    plan = FakePlan([], refused=True, valid=False, reason="no such cube")
    driver = CellDriver(["a", "b"], (), FakePlanner(plan), sent.append, statuses.append)
    driver.on_goal("fly")
    driver.close()
    assert sent == [] and statuses[-1]["outcome"] == "refused"
    assert statuses[-1]["failure"] == "no such cube"


def test_a_question_back_announces_nothing_and_ends_the_goal_with_it():
    sent, statuses = [], []
    question = Clarification("put the cube on the left pad", "the cube", "Which cube?", ("a",))
    plan = FakePlan([], valid=False, clarification=question)
    driver = CellDriver(["a", "b"], (), FakePlanner(plan), sent.append, statuses.append)
    driver.on_goal("put the cube on the left pad")
    driver.close()
    assert sent == [] and statuses[-1]["outcome"] == NEEDS_CLARIFICATION
    assert statuses[-1]["failure"] == "Which cube?"


def test_a_plan_that_cannot_be_dispatched_fails_the_goal_and_frees_the_cell(monkeypatch):
    """A dispatcher that raises (a bug, a step it cannot announce) must end the goal with
    a final status: before, the status stayed "planning" and every later goal was busy."""
    import miles_ros.manager.cell as cell_module

    def broken(*args, **kwargs):
        raise ValueError("no arm can reach it")

    sent, statuses = [], []
    plan = FakePlan([Step("reach", {"target": "red_cube"})])
    driver = CellDriver(["a", "b"], (), FakePlanner(plan), sent.append, statuses.append)
    monkeypatch.setattr(cell_module, "Dispatcher", broken)
    driver.on_goal("move to the red cube")
    driver.close()
    assert sent == [] and statuses[-1]["outcome"] == "failed"
    assert "dispatch failed: no arm can reach it" in statuses[-1]["failure"]
    assert not driver.planning
    monkeypatch.undo()
    assert driver.on_goal("move to the red cube")  # not busy: the cell takes the next goal
    driver.close()
