"""The console's view of a cell (:class:`miles_ros.console.state.CellState`): steps from
the plan and the skill statuses, a replan, a refusal, a cell's tasks, waits."""

from __future__ import annotations

import threading

from miles_ros.console.state import PENDING, CellState


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def plan(trace: str, *skills: str, **more) -> dict:
    return {"trace_id": trace, "steps": [{"skill": s, "params": {}} for s in skills], **more}


def test_steps_follow_the_requests_of_the_plans_trace_in_order():
    clock = Clock()
    state = CellState(clock=clock)
    state.on_plan(plan("t1", "reach", "home"))
    state.on_skill_status("", {"id": "other:1", "skill": "reach", "state": "running"})
    assert [s["state"] for s in state.snapshot()["plan"]["steps"]] == [PENDING, PENDING]
    state.on_skill_status("", {"id": "t1:1", "skill": "reach", "state": "running"})
    clock.now += 2.0
    state.on_skill_status("", {"id": "t1:1", "skill": "reach", "state": "succeeded"})
    state.on_skill_status("", {"id": "t1:2", "skill": "home", "state": "running"})
    steps = state.snapshot()["plan"]["steps"]
    assert [s["state"] for s in steps] == ["succeeded", "running"]
    assert steps[0]["started"] == 100.0 and steps[0]["duration_s"] == 2.0
    # a replan keeps the ended step in front of the new plan's steps
    state.on_skill_status("", {"id": "t1:2", "skill": "home", "state": "failed", "reason": "x"})
    state.on_plan(plan("t1", "push", replan=True, replans=1))
    steps = state.snapshot()["plan"]["steps"]
    assert [(s["skill"], s["state"]) for s in steps] == [
        ("reach", "succeeded"),
        ("home", "failed"),
        ("push", PENDING),
    ]
    state.on_skill_status("", {"id": "t1:3", "skill": "push", "state": "running"})
    assert state.snapshot()["plan"]["steps"][2]["state"] == "running"


def test_a_refusal_shows_its_reason_and_a_new_goal_clears_it():
    state = CellState()
    state.on_plan({"trace_id": "t1", "steps": [], "refused": True, "reason": "no such cube"})
    assert state.snapshot()["plan"] == {
        "trace_id": "t1",
        "refused": True,
        "reason": "no such cube",
        "replans": 0,
        "steps": [],
    }
    state.on_plan(plan("t2", "home"))
    assert state.snapshot()["plan"]["refused"] is False


def test_a_cells_steps_are_its_managers_tasks():
    clock = Clock()
    state = CellState(("left_arm", "right_arm"), clock=clock)
    task = {"task_id": "t1/t0", "skill": "pick_place", "params": {}, "arm": "", "state": "bidding"}
    state.on_manager_status({"trace_id": "t1", "outcome": "running", "tasks": [task]})
    clock.now += 1.0
    running = {**task, "arm": "left_arm", "state": "running"}
    state.on_manager_status({"trace_id": "t1", "outcome": "running", "tasks": [running]})
    clock.now += 3.0
    done = {**running, "state": "succeeded"}
    state.on_manager_status({"trace_id": "t1", "outcome": "succeeded", "tasks": [done]})
    (step,) = state.snapshot()["plan"]["steps"]
    assert (step["arm"], step["state"], step["duration_s"]) == ("left_arm", "succeeded", 3.0)
    refused = {"trace_id": "t2", "outcome": "refused", "failure": "no blue cube"}
    state.on_manager_status(refused)
    assert state.snapshot()["plan"]["refused"] is True
    assert state.snapshot()["plan"]["reason"] == "no blue cube"


def test_latched_means_every_arm_heard_from_and_waits_wake_on_change():
    state = CellState(("a", "b"))
    assert not state.latched()
    state.on_safety("a", {"estop": True})
    state.on_safety("b", {"estop": False})
    assert not state.latched() and state.snapshot()["estop"] is True
    version = state.snapshot()["version"]
    threading.Timer(0.05, state.on_safety, ("b", {"estop": True})).start()
    assert state.wait_until(state.latched, timeout=10.0)
    assert state.wait_newer(version, timeout=10.0)["version"] > version
    assert state.wait_newer(state.snapshot()["version"], timeout=0.01) is None
