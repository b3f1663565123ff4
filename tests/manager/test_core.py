"""The manager: trace ids, replanning after an injected failure, reflection, metrics."""

from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.memory import HashEmbedder, Memory
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.manager.core import Manager, StepResult


def scorer(prompt: str, line: str) -> float:
    """Pushes first; after a push failure is in the prompt, picks instead, then home."""
    plan = prompt.rsplit("Plan:\n", 1)[1].splitlines()
    failed = "push red_cube right_pad failed" in prompt
    wanted = (
        ["reach red", "pick red right", "home"]
        if failed
        else ["reach red", "push red right", "home"]
    )
    target = wanted[len(plan)] if len(plan) < len(wanted) else "done"
    return 0.0 if line.strip() == target else -5.0


def make_manager(registry, world, memory=None, max_replans=2):
    lm = FakeLanguageModel(scorer)
    planner = Planner(registry, world, lm, PlannerConfig(), memory=memory)
    return Manager(planner, memory=memory, max_replans=max_replans), lm


def test_replans_after_an_injected_failure_with_the_failure_as_feedback(registry, world):
    manager, lm = make_manager(registry, world)
    plan, action = manager.start("get the red cube to the right pad, then go home")
    assert [s.key() for s in plan.steps] == ["reach red_cube", "push red_cube right_pad", "home"]
    assert action.kind == "dispatch" and action.request["trace_id"] == plan.trace_id
    assert action.request["id"] == f"{plan.trace_id}:1"
    action = manager.on_step_result(StepResult(action.request["id"], "succeeded", duration_s=1.5))
    assert action.request["skill"] == "push"
    action = manager.on_step_result(
        StepResult(
            action.request["id"],
            "failed",
            reason="the cube slipped",
            distance_m=0.12,
            duration_s=4.0,
        )
    )
    assert action.kind == "dispatch" and action.replanned
    assert action.request["skill"] == "pick_place"  # the replan chose another skill
    assert action.request["trace_id"] == plan.trace_id  # same goal, same trace
    replan_prompt = lm.prompts[-2]
    assert (
        "Note: push red_cube right_pad failed: the cube slipped (0.120 m from success)"
        in replan_prompt
    )
    assert "Plan:\nreach red\n" in replan_prompt  # the executed step is the plan so far
    action = manager.on_step_result(StepResult(action.request["id"], "succeeded"))
    assert action.request["skill"] == "home"
    action = manager.on_step_result(StepResult(action.request["id"], "succeeded"))
    assert action.kind == "succeeded"
    status = manager.status()
    assert status["outcome"] == "succeeded" and status["replans"] == 1
    metrics = status["metrics"]
    assert metrics["success"] and metrics["replans"] == 1 and metrics["steps_executed"] == 3
    assert metrics["skill_time_s"] == 5.5 and metrics["planning_latency_s"] > 0


def test_gives_up_after_max_replans_and_invalidates_the_cache(registry, world):
    manager, _ = make_manager(registry, world, max_replans=0)
    plan, action = manager.start("get the red cube to the right pad, then go home")
    key_count = len(manager.planner.cache.entries)
    assert key_count == 1
    action = manager.on_step_result(StepResult(action.request["id"], "failed", reason="ik"))
    assert action.kind == "failed" and "no replans left" in action.reason
    text = manager.reflect()
    assert "failed" in text and "reach red_cube (ik)" in text
    assert len(manager.planner.cache.entries) == 0


def test_estop_ends_the_goal_without_replanning(registry, world):
    manager, lm = make_manager(registry, world)
    _, action = manager.start("get the red cube to the right pad")
    calls = len(lm.prompts)
    manager.on_safety_event({"kind": "estop"})
    action = manager.on_step_result(
        StepResult(action.request["id"], "estopped", reason="e-stop pressed")
    )
    assert action.kind == "estopped" and len(lm.prompts) == calls
    assert manager.status()["metrics"]["safety_interventions"] == 1


def test_throttled_safety_events_count_what_they_stand_for(registry, world):
    """The supervisor publishes one event per kind per throttle window with the number it
    left out in ``suppressed``: the goal's metric counts them all."""
    manager, _ = make_manager(registry, world)
    manager.start("get the red cube to the right pad")
    manager.on_safety_event({"kind": "velocity_limit", "suppressed": 0})
    manager.on_safety_event({"kind": "velocity_limit", "suppressed": 24})
    manager.on_safety_event({"kind": "cartesian"})
    assert manager.status()["metrics"]["safety_interventions"] == 27


def test_reflection_goes_to_memory_and_comes_back_for_the_next_goal(registry, world, tmp_path):
    memory = Memory(tmp_path / "memory.sqlite", embedder=HashEmbedder())
    manager, lm = make_manager(registry, world, memory=memory)
    _, action = manager.start("get the red cube to the right pad")
    while action.kind == "dispatch":
        state = "failed" if action.request["skill"] == "push" else "succeeded"
        action = manager.on_step_result(StepResult(action.request["id"], state, reason="slipped"))
    text = manager.reflect()
    assert "worked: reach red_cube, pick_place red_cube right_pad" in text
    episode = memory.episodes()[0]
    assert episode["outcome"] == "succeeded" and episode["metrics"]["replans"] == 1
    assert [s["state"] for s in episode["steps"]] == [
        "succeeded",
        "failed",
        "succeeded",
        "succeeded",
    ]
    memory.close()
    # restart: a new memory object on the same file, a new manager
    memory = Memory(tmp_path / "memory.sqlite", embedder=HashEmbedder())
    manager, lm = make_manager(registry, world, memory=memory)
    manager.planner.config.memory_min_score = 0.3
    manager.start("get the red cube to the right pad")
    assert "Note: goal 'get the red cube to the right pad' succeeded" in lm.prompts[0]


def test_unexpected_result_id_is_rejected(registry, world):
    import pytest

    manager, _ = make_manager(registry, world)
    manager.start("get the red cube to the right pad")
    with pytest.raises(ValueError, match="unexpected result"):
        manager.on_step_result(StepResult("other:1", "succeeded"))
