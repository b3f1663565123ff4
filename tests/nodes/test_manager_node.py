"""manager_node over real rclpy on loopback, each graph in its own context and ROS domain.

With a fake planner (a fake language model whose scores the test controls, injected
through ``planner_factory``) and a fake skill node answering ``/miles/skill/request`` with
scripted statuses: a goal becomes a plan and requests in order and ends ``succeeded``; an
injected failure triggers a replan with the failure as feedback; a latched e-stop ends
the goal ``estopped`` with no further requests (and later goals are refused); a request
nobody answers fails after the ack timeout. Then the whole graph (sim_node, safety_node,
skill_node with the shipped reach skill, manager_node) drives one goal to success.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

rclpy = pytest.importorskip("rclpy")

from rclpy.node import Node  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.agent.lm import FakeLanguageModel  # noqa: E402
from miles_ros.agent.memory import HashEmbedder, Memory  # noqa: E402
from miles_ros.agent.planner import Planner, PlannerConfig  # noqa: E402
from miles_ros.agent.registry import SkillRegistry  # noqa: E402
from miles_ros.agent.world import load_world  # noqa: E402
from miles_ros.params.manager import ManagerNodeParams  # noqa: E402
from miles_ros.ros.manager_node import ManagerNode  # noqa: E402
from tests.nodes.graph_harness import LATCHED, RELIABLE, Graph, overrides  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_SKILLS = ROOT / "tests" / "agent" / "fixtures" / "skills"
FAST = {"memory_db": ":memory:", "memory_embedder": "hash", "status_period_s": 0.0}
"""Manager parameters for tests: no files, no embedding model."""


# -- helpers shared with tests/test_goal_command.py ------------------------------------------
def scorer(wanted: list[str], after_failure: dict[str, list[str]] | None = None):
    """A fake LM score: the plan line wanted next scores 0, the rest -5, then ``done``.
    ``after_failure``: when the prompt holds that failure note, these lines instead (the
    executed steps are the plan so far in a replan prompt)."""

    def score(prompt: str, line: str) -> float:
        plan = prompt.rsplit("Plan:\n", 1)[1].splitlines()
        lines = wanted
        for note, instead in (after_failure or {}).items():
            if note in prompt:
                lines = instead
        target = lines[len(plan)] if len(plan) < len(lines) else "done"
        return 0.0 if line.strip() == target else -5.0

    return score


def fake_planner(score) -> Callable:
    """A planner factory over the fixture cards (the node attaches its memory)."""

    def factory(params: ManagerNodeParams) -> Planner:
        registry = SkillRegistry.load([FIXTURE_SKILLS], interface_cards=False)
        factory.lms.append(FakeLanguageModel(score))
        return Planner(registry, load_world(), factory.lms[-1], PlannerConfig())

    factory.lms = []  # the fake models made, to inspect their prompts
    return factory


class FakeSkillNode(Node):
    """Answers each skill request with ``running`` and then ``script(request)``:
    ``(state, reason)``, or None to stay running (until cancelled)."""

    def __init__(self, script: Callable[[dict], tuple[str, str] | None], **kwargs):
        super().__init__("fake_skill_node", **kwargs)
        self.script = script
        self.pub = self.create_publisher(String, interfaces.SKILL_STATUS, RELIABLE)
        self.create_subscription(String, interfaces.SKILL_REQUEST, self.on_request, RELIABLE)

    def send(self, request: dict, state: str, progress: float, reason: str = "") -> None:
        msg = {
            "id": request["id"],
            "skill": request.get("skill", ""),
            "state": state,
            "progress": progress,
            "reason": reason,
            "distance": 0.1,
            "elapsed_s": 0.5,
        }
        self.pub.publish(String(data=json.dumps(msg)))

    def on_request(self, msg: String) -> None:
        request = json.loads(msg.data)
        if request.get("cancel"):
            self.send(request, "aborted", 0.5, "cancelled")
            return
        self.send(request, "running", 0.5)
        final = self.script(request)
        if final is not None:
            self.send(request, final[0], 1.0 if final[0] == "succeeded" else 0.5, final[1])


def succeed(request: dict) -> tuple[str, str]:
    return "succeeded", ""


class ManagerGraph(Graph):
    """A Graph plus recorders for the manager's topics and publishers for goals and the
    safety state."""

    def __init__(self, factories: list[Callable]):
        super().__init__(factories)
        self.plans: list[dict] = []
        self.manager_status: list[dict] = []
        self.requests: list[dict] = []
        sub = self.probe.create_subscription
        sub(String, interfaces.PLAN, self._keep(self.plans, json.loads), LATCHED)
        sub(
            String,
            interfaces.MANAGER_STATUS,
            self._keep(self.manager_status, json.loads),
            QoSProfile(
                depth=200,
                reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL,
            ),
        )
        sub(String, interfaces.SKILL_REQUEST, self._keep(self.requests, json.loads), RELIABLE)
        self.pub_goal = self.probe.create_publisher(String, interfaces.GOAL, RELIABLE)
        self.pub_safety = self.probe.create_publisher(String, interfaces.SAFETY_STATE, LATCHED)

    @property
    def domain_id(self) -> int:
        return self.context.get_domain_id()

    @property
    def manager(self) -> ManagerNode:
        return next(n for n in self.nodes if isinstance(n, ManagerNode))

    def ready(self) -> None:
        """Wait for the planner and for the goal publisher to reach the manager."""
        self.wait(
            lambda: any(s.get("planner") == "ready" for s in self.manager_status),
            what="the planner loaded",
        )
        self.wait(lambda: self.pub_goal.get_subscription_count() > 0, what="goal matched")

    def send_goal(self, text: str) -> None:
        self.pub_goal.publish(String(data=text))

    def outcome(self, goal_seq: int, timeout: float = 30.0) -> dict:
        """The final manager status of goal number ``goal_seq``."""

        def final() -> dict | None:
            return next(
                (
                    s
                    for s in self.manager_status
                    if s.get("goal_seq") == goal_seq
                    and s.get("outcome") in ("succeeded", "failed", "estopped", "refused")
                ),
                None,
            )

        self.wait(lambda: final() is not None, timeout, f"goal {goal_seq} to end")
        return final()


def manager_factory(planner_factory, **params) -> Callable:
    return lambda ctx: ManagerNode(
        planner_factory=planner_factory,
        context=ctx,
        parameter_overrides=overrides({**FAST, **params}),
    )


@contextmanager
def fake_graph(planner_factory, script: Callable | None = succeed, **params):
    """The manager (``params`` over :data:`FAST`) with the fake planner of
    ``planner_factory`` and, with a ``script``, a fake skill node answering by it: ready
    for goals, closed on exit."""
    factories = [manager_factory(planner_factory, **params)]
    if script is not None:
        factories.append(lambda ctx: FakeSkillNode(script, context=ctx))
    graph = ManagerGraph(factories)
    try:
        graph.ready()
        yield graph
    finally:
        graph.close()


# -- the manager with a fake planner and a fake skill node -----------------------------------
def test_a_goal_becomes_a_plan_and_requests_in_order_and_succeeds(tmp_path):
    db = tmp_path / "memory.sqlite"
    planner = fake_planner(scorer(["reach red", "home"]))
    with fake_graph(planner, memory_db=str(db)) as graph:
        graph.send_goal("  move to the red cube,\n then go home ")
        final = graph.outcome(1)
        assert final["outcome"] == "succeeded" and final["replans"] == 0, final
        (plan,) = graph.plans
        trace = plan["trace_id"]
        assert plan["goal"] == "move to the red cube, then go home" and not plan["replan"]
        assert [s["skill"] for s in plan["steps"]] == ["reach", "home"]
        assert [(r["id"], r["skill"], r["params"], r["trace_id"]) for r in graph.requests] == [
            (f"{trace}:1", "reach", {"target": "red_cube"}, trace),
            (f"{trace}:2", "home", {}, trace),
        ]
        assert final["trace_id"] == trace
        assert [e["state"] for e in final["executed"]] == ["succeeded", "succeeded"]
        assert "worked: reach red_cube, home" in final["reflection"]
        assert final["metrics"]["steps_executed"] == 2
        assert len(graph.manager.driver.first_request_latency_s) == 1
        # the latched status is the final one (a late joiner sees the outcome)
        assert graph.manager_status[-1]["outcome"] == "succeeded"
    memory = Memory(db, embedder=HashEmbedder())  # reflected into memory, kept on disk
    (episode,) = memory.episodes()
    assert episode["outcome"] == "succeeded" and episode["trace_id"] == trace
    assert memory.count()["facts"] == 1
    memory.close()


def test_an_injected_failure_triggers_a_replan_with_the_failure_as_feedback():
    note = "push red_cube right_pad failed"
    plan_score = scorer(
        ["reach red", "push red right"], after_failure={note: ["reach red", "pick red right"]}
    )

    def script(request: dict):
        return ("failed", "the cube slipped") if request["skill"] == "push" else succeed(request)

    factory = fake_planner(plan_score)
    with fake_graph(factory, script) as graph:
        graph.send_goal("get the red cube to the right pad")
        final = graph.outcome(1)
        assert final["outcome"] == "succeeded" and final["replans"] == 1, final
        assert [r["skill"] for r in graph.requests] == ["reach", "push", "pick_place"]
        assert [p["replan"] for p in graph.plans] == [False, True]
        assert graph.plans[0]["trace_id"] == graph.plans[1]["trace_id"] == final["trace_id"]
        assert [s["skill"] for s in graph.plans[1]["steps"]] == ["pick_place"]
        prompts = factory.lms[0].prompts
        assert any(
            "push red_cube right_pad failed: the cube slipped (0.100 m from success)" in prompt
            for prompt in prompts
        )
        failed = [s for s in graph.manager_status if s.get("event") == "step_failed"]
        assert failed and failed[0]["reason"] == "the cube slipped"
        assert [e["state"] for e in final["executed"]] == ["succeeded", "failed", "succeeded"]


def test_a_refused_goal_moves_nothing_and_a_step_the_skill_node_refused_is_not_retried():
    def script(request: dict):
        if request["skill"] == "pick_place":
            return "failed", "refused: precondition: cube 0.36 m from the target"
        return succeed(request)

    with fake_graph(fake_planner(scorer(["pick red left"])), script) as graph:  # stubborn LM
        graph.send_goal("fly to the moon")
        final = graph.outcome(1)
        assert final["outcome"] == "refused" and "moon" in final["reason"], final
        assert graph.requests == [] and graph.plans[0]["refused"] is True
        graph.send_goal("put the red cube on the left pad")
        final = graph.outcome(2)
        sent = [(r["skill"], r["params"]) for r in graph.requests if not r.get("cancel")]
        pick = ("pick_place", {"object": "red_cube", "target": "left_pad"})
        assert sent.count(pick) == 1, sent  # refused by the skill node: never retried
        assert final["replans"] >= 1 and final["executed"][0]["reason"].startswith("refused:")


def test_a_latched_estop_stops_the_goal_and_refuses_later_goals():
    def script(request: dict):
        return None  # keeps running until the e-stop

    with fake_graph(fake_planner(scorer(["reach red", "home"])), script) as graph:
        graph.send_goal("move to the red cube, then go home")
        graph.wait(lambda: len(graph.requests) == 1, what="the first request")
        graph.wait(lambda: any(s["state"] == "running" for s in graph.statuses), what="running")
        estop = {"estop": True, "mode": "estop", "interventions": 1, "reason": "operator"}
        graph.pub_safety.publish(String(data=json.dumps(estop)))
        final = graph.outcome(1)
        assert final["outcome"] == "estopped" and final["estop"], final
        assert "e-stop" in final["reason"] and final["replans"] == 0
        graph.wait(lambda: len(graph.requests) == 2, what="the cancel")
        assert graph.requests[1] == {
            "id": graph.requests[0]["id"],
            "cancel": True,
            "reason": "estop",
        }
        graph.send_goal("go home")
        refused = graph.outcome(2)
        assert refused["outcome"] == "refused" and "e-stop latched" in refused["reason"]
        assert len(graph.requests) == 2  # nothing was sent after the e-stop
        # it never resets the e-stop: no service client, no publisher on the e-stop input
        assert list(graph.manager.clients) == []
        assert graph.probe.count_publishers(interfaces.ESTOP) == 0


def test_a_request_nobody_answers_fails_after_the_ack_timeout():
    planner = fake_planner(scorer(["reach red"]))
    with fake_graph(planner, None, ack_timeout_s=0.3, max_replans=0) as graph:  # no skill node
        graph.send_goal("move to the red cube")
        final = graph.outcome(1)
        assert final["outcome"] == "failed"
        assert "no status from a skill node within 0.3 s" in final["reason"]
        assert "no replans left" in final["reason"]
        assert graph.requests[-1] == {"id": graph.requests[0]["id"], "cancel": True}


def test_parameter_file_matches_the_declared_parameters():
    data = yaml.safe_load((ROOT / "config" / "manager.yaml").read_text())
    assert list(data) == ["manager_node"]
    values = data["manager_node"]["ros__parameters"]
    defaults = {f.name: f.default for f in dataclasses.fields(ManagerNodeParams)}
    assert values == defaults


# -- the whole graph ---------------------------------------------------------------------
def test_the_manager_drives_a_goal_to_success_on_the_pybullet_graph():
    """sim_node (PyBullet) + safety_node + skill_node (the shipped reach skill) +
    manager_node over real rclpy: "move to the red cube" ends ``succeeded`` with the arm
    at the cube. The planner is a fake language model that plans ``reach red_cube``: the
    real one (embedded Gemma 3 270M + the shipped adapter, built from the node's
    parameters) in manager_node on this graph is ``test_demo_graph``'s goal demo, which
    loads it once for both."""
    import numpy as np

    from miles_ros.ros.graph import IN_PROCESS_SIM_OVERRIDES
    from miles_ros.ros.safety_node import SafetyNode
    from miles_ros.ros.sim_node import SimNode
    from miles_ros.ros.skill_node import SkillNode
    from sims.robots import panda
    from tests.runtime.skill_fixtures import shipped_reach

    reach = shipped_reach()
    if reach is None:
        pytest.skip("no shipped reach skill in policies/skills/reach")
    graph = ManagerGraph(
        [
            lambda ctx: SimNode(context=ctx),
            lambda ctx: SafetyNode(
                context=ctx, parameter_overrides=overrides(IN_PROCESS_SIM_OVERRIDES["safety"])
            ),
            lambda ctx: SkillNode(
                context=ctx,
                parameter_overrides=overrides(
                    {"skill_library": str(reach.parent), **IN_PROCESS_SIM_OVERRIDES["skills"]}
                ),
            ),
            manager_factory(fake_planner(scorer(["reach red"])), skill_library=str(reach.parent)),
        ]
    )
    try:
        graph.wait(
            lambda: graph.objects and graph.nodes[2].skills.joints is not None, what="graph up"
        )
        graph.ready()
        graph.send_goal("move to the red cube")
        final = graph.outcome(1, timeout=90.0)
        assert final["outcome"] == "succeeded", final
        (plan,) = graph.plans
        assert plan["model"] == "fake"
        assert plan["steps"] == [{"skill": "reach", "params": {"target": "red_cube"}}]
        (request,) = graph.requests
        skill_final = graph.final(request["id"])
        assert skill_final["state"] == "succeeded"
        tcp = panda.fk_tcp(np.asarray(graph.joint_states[-1].position[:7]))
        cube = np.asarray(graph.objects[-1]["objects"]["red_cube"]["position"])
        assert np.linalg.norm(tcp - (cube + [0.0, 0.0, 0.10])) < 0.08
        print(
            f"goal -> first skill request: "
            f"{graph.manager.driver.first_request_latency_s[0]:.2f} s (fake planner)"
        )
    finally:
        graph.close()
