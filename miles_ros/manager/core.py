"""The manager: one goal from words to outcome, without ROS.

A thin node (``manager_node``) drives it: :meth:`Manager.start` plans a goal and returns
the first skill request; each ``/miles/skill/status`` in a final state goes to
:meth:`Manager.on_step_result`, which returns what to do next (dispatch the next request,
replan and dispatch, or finish); :meth:`Manager.reflect` writes the episode and a
reflection to memory. Working memory (goal, plan, current step, outcomes) is in
:meth:`Manager.status`.

A goal the planner refuses ends ``refused`` with the planner's reason and moves nothing;
a goal that asks for no motion ("do nothing") ends ``succeeded`` with no step. After a
failed step the replan gets the failure, every plan tried so far (it never returns one of
them again) and the steps the skill node refused (reason ``refused: ...``, other than a
transient e-stop or missing robot state), which are never planned again; a replan the
planner answers with a refusal ends the goal ``failed`` with that reason.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from miles_ros.agent.grounding import Step, step_text
from miles_ros.agent.planner import Plan, Planner
from miles_ros.agent.reference_scene import Clarification
from miles_ros.agent.references import follow_up
from miles_ros.agent.world import World
from miles_ros.interfaces import (
    ESTOPPED,
    FAILED,
    IDLE,
    NEEDS_CLARIFICATION,
    REFUSED,
    REFUSED_PREFIX,
    RUNNING,
    SUCCEEDED,
)

log = logging.getLogger(__name__)

TRANSIENT_REFUSALS = ("e-stop", "estop", "no robot state")
"""Skill-node refusals about the moment, not the step: such a step may be tried again."""


@dataclass
class StepResult:
    """The final status of one skill request (``/miles/skill/status``)."""

    id: str
    """Request id (``<trace_id>:<n>``)."""
    state: str
    """``succeeded``, ``failed``, ``aborted`` or ``estopped``."""
    reason: str = ""
    """Why it failed, in words."""
    distance_m: float | None = None
    """Measured distance to success when it ended (m), when the skill reports it."""
    duration_s: float = 0.0
    """How long the skill ran."""


@dataclass
class Action:
    """What the manager asks its driver to do next."""

    kind: str
    """``dispatch`` (send ``request``), ``succeeded``, ``failed``, ``estopped``,
    ``refused`` (the planner refused the goal; nothing moved) or ``needs_clarification``
    (the planner asks which thing the goal means: ``reason`` is the question)."""
    request: dict | None = None
    """``{"id", "skill", "params", "trace_id"}`` for ``dispatch``."""
    replanned: bool = False
    """True when this dispatch follows a replan."""
    reason: str = ""
    """Why the goal ended, for the final kinds."""


@dataclass
class Metrics:
    """Per-goal metrics (stored with the episode)."""

    success: bool = False
    replans: int = 0
    planning_latency_s: float = 0.0
    skill_time_s: float = 0.0
    safety_interventions: int = 0
    steps_executed: int = 0


@dataclass
class _Working:
    goal: str
    trace_id: str
    plan: Plan
    world: World
    index: int = 0
    counter: int = 0
    executed: list[dict] = field(default_factory=list)
    outcome: str = RUNNING
    failure: str | None = None
    metrics: Metrics = field(default_factory=Metrics)
    current: dict | None = None
    failed_plans: list[list[Step]] = field(default_factory=list)
    banned: list[Step] = field(default_factory=list)


class Manager:
    """Plans, dispatches, replans and reflects for one goal at a time."""

    def __init__(self, planner: Planner, memory=None, max_replans: int = 2):
        self.planner = planner
        self.memory = memory if memory is not None else planner.memory
        self.max_replans = max_replans
        self.work: _Working | None = None
        self.question: Clarification | None = None
        """The question the last goal ended with; the next goal may answer it."""

    # -- lifecycle ----------------------------------------------------------------------
    def start(self, goal: str, world: World | None = None) -> tuple[Plan, Action]:
        """Plan ``goal`` (new trace id) and return the plan and the first action. When the
        last goal ended with a question and ``goal`` picks one of its options ("the red
        one"), the asked goal is planned with that choice."""
        question, self.question = self.question, None
        if question is not None:
            goal = follow_up(question, goal, world or self.planner.world) or goal
        plan = self.planner.plan(goal, world=world)
        self.work = _Working(goal, plan.trace_id, plan, (world or self.planner.world).copy())
        self.work.metrics.planning_latency_s += plan.latency_s
        if plan.refused:
            return plan, self._finish(REFUSED, plan.reason)
        if plan.clarification is not None:
            self.question = plan.clarification
            return plan, self._finish(NEEDS_CLARIFICATION, plan.clarification.question)
        if not plan.valid:
            return plan, self._finish(FAILED, "no valid plan: " + "; ".join(plan.errors))
        if not plan.steps:
            return plan, self._finish(SUCCEEDED, "nothing to do: the goal asks for no motion")
        return plan, self._dispatch()

    def on_step_result(self, result: StepResult) -> Action:
        """Advance after a skill request ended."""
        w = self._require()
        if w.current is None or result.id != w.current["id"]:
            raise ValueError(
                f"unexpected result for {result.id!r}; waiting for "
                f"{w.current and w.current['id']!r}"
            )
        step = w.plan.steps[w.index]
        w.metrics.skill_time_s += result.duration_s
        w.executed.append(
            {
                **w.current,
                "state": result.state,
                "reason": result.reason,
                "distance_m": result.distance_m,
                "duration_s": result.duration_s,
            }
        )
        w.current = None
        if result.state == SUCCEEDED:
            w.metrics.steps_executed += 1
            w.world.apply(self.planner.registry[step.skill].effects_machine, step.params)
            w.index += 1
            if w.index >= len(w.plan.steps):
                return self._finish(SUCCEEDED, "")
            return self._dispatch()
        if result.state == ESTOPPED:
            return self._finish(ESTOPPED, result.reason or "e-stop")
        feedback = failure_feedback(step, result)
        w.failed_plans.append(list(w.plan.steps[w.index :]))
        if skill_refused(result.reason):
            unknown = "unknown skill" in result.reason
            w.banned.append(Step(step.skill) if unknown else step)
        if w.metrics.replans >= self.max_replans:
            return self._finish(FAILED, f"{feedback}; no replans left")
        w.metrics.replans += 1
        done = [Step(e["skill"], e["params"]) for e in w.executed if e["state"] == SUCCEEDED]
        tried = "; ".join(" then ".join(step_text(s) for s in p) for p in w.failed_plans)
        plan = self.planner.plan(
            w.goal,
            world=w.world,
            feedback=[feedback, f"plans that failed: {tried}"],
            done_steps=done,
            trace_id=w.trace_id,
            failed=w.failed_plans,
            banned=w.banned,
        )
        w.metrics.planning_latency_s += plan.latency_s
        if plan.refused:
            return self._finish(FAILED, f"{feedback}; replanning gave up: {plan.reason}")
        if not plan.valid or not plan.steps:
            return self._finish(
                FAILED, f"{feedback}; replanning gave no valid plan: " + "; ".join(plan.errors)
            )
        w.plan, w.index = plan, 0
        action = self._dispatch()
        action.replanned = True
        return action

    def on_safety_event(self, event: dict | None = None) -> None:
        """Count a safety intervention during this goal: the event itself plus the events of
        its kind the supervisor's throttle left out of the stream (``suppressed``)."""
        if self.work is not None:
            suppressed = (event or {}).get("suppressed", 0)
            extra = suppressed if isinstance(suppressed, int) and suppressed > 0 else 0
            self.work.metrics.safety_interventions += 1 + extra

    def reflect(self) -> str:
        """Write the episode and a one-line reflection to memory; returns the reflection."""
        w = self._require()
        text = reflection(w.goal, w.outcome, w.executed, w.failure, w.metrics.replans)
        if self.memory is not None:
            self.memory.add_episode(
                w.trace_id,
                w.goal,
                [s.to_dict() for s in w.plan.steps],
                w.executed,
                w.outcome,
                w.failure,
                vars(w.metrics),
            )
            self.memory.add_fact(text, kind="reflection", trace_id=w.trace_id)
        if w.outcome != SUCCEEDED:
            self.planner.cache.invalidate(w.goal)
        return text

    def status(self) -> dict:
        """Working memory as the ``/miles/manager/status`` message."""
        if self.work is None:
            return {"goal": None, "step": None, "outcome": IDLE, "replans": 0, "trace_id": None}
        w = self.work
        step = w.plan.steps[w.index].to_dict() if w.index < len(w.plan.steps) else None
        return {
            "goal": w.goal,
            "trace_id": w.trace_id,
            "outcome": w.outcome,
            "step": step,
            "step_index": w.index,
            "steps": len(w.plan.steps),
            "replans": w.metrics.replans,
            "failure": w.failure,
            "plan": [s.to_dict() for s in w.plan.steps],
            "metrics": vars(w.metrics),
        }

    # -- internals ----------------------------------------------------------------------
    def _require(self) -> _Working:
        if self.work is None:
            raise RuntimeError("no goal started")
        return self.work

    def _dispatch(self) -> Action:
        w = self._require()
        step = w.plan.steps[w.index]
        w.counter += 1
        w.current = {
            "id": f"{w.trace_id}:{w.counter}",
            "skill": step.skill,
            "params": dict(step.params),
            "trace_id": w.trace_id,
            "started": time.time(),
        }
        request = {k: w.current[k] for k in ("id", "skill", "params", "trace_id")}
        return Action("dispatch", request)

    def _finish(self, outcome: str, reason: str) -> Action:
        w = self._require()
        w.outcome, w.failure = outcome, (reason or None)
        w.metrics.success = outcome == SUCCEEDED
        return Action(outcome, reason=reason)


def skill_refused(reason: str) -> bool:
    """True when the skill node refused the step itself (unknown skill, schema or
    precondition failure): the step is not to be tried again."""
    reason = reason or ""
    return reason.startswith(REFUSED_PREFIX) and not any(t in reason for t in TRANSIENT_REFUSALS)


def failure_feedback(step: Step, result: StepResult) -> str:
    """The replanning note for a failed step: which skill, why, how far from success."""
    text = f"{step_text(step)} {result.state}"
    if result.reason:
        text += f": {result.reason}"
    if result.distance_m is not None:
        text += f" ({result.distance_m:.3f} m from success)"
    return text


def reflection(
    goal: str, outcome: str, executed: list[dict], failure: str | None, replans: int
) -> str:
    """One line on what worked, what failed and why."""
    ok = [step_text(Step(e["skill"], e["params"])) for e in executed if e["state"] == SUCCEEDED]
    bad = [
        f"{step_text(Step(e['skill'], e['params']))} ({e['reason'] or e['state']})"
        for e in executed
        if e["state"] != SUCCEEDED
    ]
    parts = [f"goal '{' '.join(goal.split())}' {outcome}"]
    if ok:
        parts.append("worked: " + ", ".join(ok))
    if bad:
        parts.append("failed: " + ", ".join(bad))
    if replans:
        parts.append(f"{replans} replan(s)")
    if failure and outcome != SUCCEEDED:
        parts.append("reason: " + failure)
    return "; ".join(parts)
