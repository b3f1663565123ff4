"""A plan and how it was made (:class:`Plan`), what a plan must respect besides the
registry (:class:`PlanContext`: the goal's reading, failed plans, refused steps), and the
planner's LRU plan cache keyed by the normalised goal (:func:`normalize_goal`)."""

from __future__ import annotations

import re
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field

from miles_ros.agent.grounding import DONE, REFUSE, Step
from miles_ros.agent.reading import GoalReading
from miles_ros.agent.reference_scene import Clarification
from miles_ros.agent.registry import SkillRegistry


@dataclass
class Plan:
    """A plan and how it was made."""

    goal: str
    """The goal in words."""
    steps: list[Step]
    """Skill calls, in order (``done`` not included)."""
    mode: str
    """``grounded``, ``generate`` or ``fallback``."""
    model: str
    """The language model that made it."""
    latency_s: float
    """Planning time (s); for a cached plan, the lookup time."""
    fallback_used: bool = False
    """True when the rule-based fallback, not the language model, produced the plan."""
    trace_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    """Trace id carried on skill requests, statuses and safety events of this goal."""
    cached: bool = False
    """True when served from the plan cache."""
    errors: list[str] = field(default_factory=list)
    """Validation errors (a plan with errors must not run)."""
    notes: list[str] = field(default_factory=list)
    """Memories and feedback that were in the prompt."""
    scores: list[dict] = field(default_factory=list)
    """Grounded mode: per step, the best candidates with LM score and affordance."""
    refused: bool = False
    """True when the planner answers that the goal cannot be done (no steps)."""
    reason: str = ""
    """Why the goal was refused, naming what is missing."""
    clarification: Clarification | None = None
    """The question back when the goal does not say which thing it means (no steps)."""

    @property
    def valid(self) -> bool:
        """True when the plan may run: no errors, not refused, and steps, or none because
        the goal asks for no motion (``nothing``)."""
        return self.nothing or (bool(self.steps) and not self.errors and not self.refused)

    @property
    def nothing(self) -> bool:
        """True for the empty plan of a goal that asks for no motion ("do nothing")."""
        return not self.steps and not self.errors and not self.refused and not self.clarification

    def cached_copy(self, goal: str, trace_id: str, latency_s: float) -> Plan:
        """This (cached) plan answering ``goal`` again, under its own trace id."""
        return Plan(
            goal,
            list(self.steps),
            self.mode,
            self.model,
            latency_s,
            self.fallback_used,
            trace_id=trace_id,
            cached=True,
            errors=list(self.errors),
            notes=list(self.notes),
            refused=self.refused,
            reason=self.reason,
        )

    def to_json(self) -> dict:
        """``{"goal", "steps": [{"skill", "params"}], "mode", "model", "latency_s",
        "fallback_used"}`` (plus ``errors`` when invalid; ``"refused": true`` and
        ``reason`` after ``steps`` when refused; ``clarify`` (the question) and ``options``
        (names) when it asks back)."""
        out = {
            "goal": self.goal,
            "steps": [s.to_dict() for s in self.steps],
            **({"refused": True, "reason": self.reason} if self.refused else {}),
            **(self._question() if self.clarification else {}),
            "mode": self.mode,
            "model": self.model,
            "latency_s": round(self.latency_s, 6),
            "fallback_used": self.fallback_used,
        }
        if self.errors:
            out["errors"] = list(self.errors)
        return out

    def _question(self) -> dict:
        asked = self.clarification
        return {"clarify": asked.question, "options": list(asked.options)}

    def to_message(self) -> dict:
        """The ``/miles/plan`` message: the JSON form plus the trace id."""
        return {**self.to_json(), "trace_id": self.trace_id, "cached": self.cached}


def normalize_goal(goal: str) -> str:
    """Lower case, punctuation dropped (numbers kept), single spaces: the cache key."""
    text = goal.lower()
    text = re.sub(r"(?<!\d)[.](?!\d)|[^\w\s.\-]", " ", text)
    return " ".join(text.split())


class PlanCache:
    """LRU cache of plans keyed by (normalised goal, world, registry, model, mode)."""

    def __init__(self, size: int = 256):
        self.size = size
        self.entries: OrderedDict[tuple, Plan] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple) -> Plan | None:
        plan = self.entries.get(key)
        if plan is None:
            self.misses += 1
            return None
        self.entries.move_to_end(key)
        self.hits += 1
        return plan

    def put(self, key: tuple, plan: Plan) -> None:
        self.entries[key] = plan
        self.entries.move_to_end(key)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)

    def invalidate(self, goal: str) -> int:
        """Drop every entry for a goal (after it failed); returns how many."""
        norm = normalize_goal(goal)
        keys = [k for k in self.entries if k[0] == norm]
        for k in keys:
            del self.entries[k]
        return len(keys)


@dataclass
class PlanContext:
    """What a plan must respect beyond the registry: the goal's reading, the plans that
    failed, the steps the skill node refused, the steps already executed."""

    reading: GoalReading
    """The goal's symbolic reading (its manner constraints mask steps)."""
    failed: list[list[Step]]
    """Plans (the steps from the failed one on) that were tried and failed."""
    banned: list[Step]
    """Steps the skill node refused; a step without params bans its whole skill."""
    done: list[Step]
    """Steps already executed (the plan so far)."""
    first_banned: list[Step] = field(default_factory=list)
    """Steps that may not come first (the first step of the plan that just failed)."""

    def reject(self, step: Step, registry: SkillRegistry, first: bool = False) -> str | None:
        """Why ``step`` may not be chosen (None: it may)."""
        if step.skill in (DONE, REFUSE):
            return None
        for bad in self.banned:
            if bad.skill == step.skill and (not bad.params or bad.params == step.params):
                return "the skill node refused this step"
        if first and any(step.key() == bad.key() for bad in self.first_banned):
            return "this step just failed"
        return self.reading.violation(step, registry)


def same_steps(a: list[Step], b: list[Step]) -> bool:
    """Same skills with the same parameters, in the same order."""
    return [s.key() for s in a] == [s.key() for s in b]


def tried_text(failed: list[list[Step]]) -> str:
    """The refusal reason of a replan that found nothing new."""
    tried = "; ".join(", ".join(s.key() for s in plan) or "(empty)" for plan in failed)
    return f"no plan different from those that failed ({tried})"
