"""The planner: a goal in words -> a validated sequence of skill calls.

Modes:

- ``grounded`` (default): at each step every grounded candidate (skill x scene
  parameters, plus ``done``) is scored by the language model given the goal and the steps
  so far; ``total = log p_LM + weight * log(affordance)``; the best one is taken, the
  planner's world is advanced by the skill's declared effects, and ``done`` ends the plan.
- ``generate``: the model writes a JSON plan under a grammar derived from the registry's
  schema (local models) or the server's JSON-schema response format (endpoints); the
  plan is validated and, when invalid, retried with the errors in the prompt.

Every plan is validated against the registry and the scene before it is returned. A
rule-based fallback (:mod:`miles_ros.agent.fallback`) exists (``fallback=True``), off
by default, and a plan it produced is always labelled ``fallback_used``. The plan record
and the plan cache are in :mod:`miles_ros.agent.plans`.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from miles_ros.agent.constrained import PlanGrammar
from miles_ros.agent.fallback import rule_based_plan
from miles_ros.agent.grounding import DONE, Affordance, Step, ground_candidates
from miles_ros.agent.plans import Plan, PlanCache, normalize_goal
from miles_ros.agent.prompts import PlanText
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.validation import PlanError, parse_plan_json, validate_plan
from miles_ros.agent.world import World, load_world

__all__ = [
    "DEFAULT_ADAPTER",
    "MODES",
    "Plan",
    "PlanCache",
    "Planner",
    "PlannerConfig",
    "normalize_goal",
    "rule_based_plan",
]

log = logging.getLogger(__name__)

MODES = ("grounded", "generate")
DEFAULT_ADAPTER = Path(__file__).resolve().parent / "adapters" / "default"


@dataclass
class PlannerConfig:
    """Planner settings."""

    mode: str = "grounded"
    """``grounded`` or ``generate``."""
    affordance_weight: float = 1.0
    """Weight of ``log(affordance)`` against the LM log-likelihood (SayCan's product at 1)."""
    max_steps: int = 6
    """Longest plan."""
    retries: int = 2
    """Generate mode: retries of an invalid plan, with the errors in the prompt."""
    fallback: bool = False
    """Use the rule-based fallback when the model gives no valid plan (labelled)."""
    memory_k: int = 2
    """Memories retrieved into the prompt."""
    memory_min_score: float = 0.55
    """Cosine similarity a memory needs to be retrieved."""
    cache_size: int = 256
    """Plans kept in the cache."""
    few_shot: bool | None = None
    """Put worked examples in the prompt; None: only when no adapter is loaded."""
    seed: int | None = None
    """Generate mode: sampling seed (None with temperature 0 is greedy)."""
    temperature: float = 0.0
    """Generate mode: sampling temperature (0: greedy)."""


class Planner:
    """Plans goals against a registry and a world with a language model."""

    def __init__(
        self,
        registry: SkillRegistry,
        world: World,
        lm,
        config: PlannerConfig | None = None,
        memory=None,
        adapted: bool = True,
    ):
        self.registry = registry
        self.world = world
        self.lm = lm
        self.config = config or PlannerConfig()
        self.memory = memory
        self.adapted = adapted
        self.affordance = Affordance(registry)
        self.cache = PlanCache(self.config.cache_size)
        self._grammars: dict[tuple, PlanGrammar] = {}

    @classmethod
    def from_options(
        cls,
        registry: SkillRegistry | None = None,
        world: World | None = None,
        model: str | None = None,
        adapter: str | Path | None = "default",
        endpoint: str | None = None,
        endpoint_model: str = "default",
        cache_dir: str | Path | None = None,
        threads: int | None = None,
        config: PlannerConfig | None = None,
        memory=None,
        process: bool = False,
    ) -> Planner:
        """A planner over the default registry and scene unless given, with the embedded
        model + shipped adapter (``adapter="default"``), a local HF dir (``model``), or
        an OpenAI-compatible server (``endpoint``). ``adapter=None``: no adapter.
        ``process``: run a local model in a child process
        (:class:`~miles_ros.agent.lm_process.ProcessLanguageModel`; what a process that
        also runs busy ROS nodes needs)."""
        from miles_ros.agent import models
        from miles_ros.agent.lm import EndpointLanguageModel, HFLanguageModel

        registry = registry or SkillRegistry.load()
        world = world or load_world()
        if endpoint:
            lm = EndpointLanguageModel(endpoint, endpoint_model)
            return cls(registry, world, lm, config, memory, adapted=True)
        if adapter == "default":
            adapter = DEFAULT_ADAPTER if model in (None, models.DEFAULT_MODEL) else None
            if adapter is not None and not (Path(adapter) / "adapter_config.json").exists():
                log.warning("no shipped adapter at %s; planning with the base model", adapter)
                adapter = None
        threads = threads or models.default_threads()
        if process:
            from miles_ros.agent.lm_process import ProcessLanguageModel

            lm = ProcessLanguageModel(model, adapter=adapter, cache=cache_dir, threads=threads)
            return cls(registry, world, lm, config, memory, adapted=adapter is not None)
        loaded = models.load_model(model, adapter=adapter, cache=cache_dir, threads=threads)
        return cls(
            registry, world, HFLanguageModel(loaded), config, memory, adapted=adapter is not None
        )

    # -- public -------------------------------------------------------------------------
    def plan(
        self,
        goal: str,
        world: World | None = None,
        mode: str | None = None,
        feedback: list[str] | None = None,
        done_steps: list[Step] | None = None,
        trace_id: str | None = None,
        use_cache: bool = True,
    ) -> Plan:
        """Plan ``goal`` from ``world`` (default: the planner's scene).

        ``feedback``: lines about what went wrong (replanning); ``done_steps``: steps
        already executed (their effects are in ``world``), shown to the model as the plan
        so far. Plans without feedback are cached.
        """
        t0 = time.perf_counter()
        mode = mode or self.config.mode
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        world = world or self.world
        cacheable = use_cache and not feedback and not done_steps
        key = (
            normalize_goal(goal),
            world.signature(),
            self.registry.signature(),
            self.lm.name,
            mode,
        )
        if cacheable:
            hit = self.cache.get(key)
            if hit is not None:
                return Plan(
                    goal,
                    list(hit.steps),
                    hit.mode,
                    hit.model,
                    time.perf_counter() - t0,
                    hit.fallback_used,
                    trace_id=trace_id or uuid.uuid4().hex[:16],
                    cached=True,
                    errors=list(hit.errors),
                    notes=list(hit.notes),
                )
        notes = self._recall(goal) + list(feedback or [])
        if mode == "grounded":
            steps, scores, errors = self._grounded(goal, world, notes, list(done_steps or []))
        else:
            steps, errors = self._generate(goal, world, notes)
            scores = []
        plan = Plan(
            goal,
            steps,
            mode,
            self.lm.name,
            0.0,
            trace_id=trace_id or uuid.uuid4().hex[:16],
            errors=errors,
            notes=notes,
            scores=scores,
        )
        if plan.errors and self.config.fallback:
            fallback = rule_based_plan(goal, self.registry, world)
            if fallback and not validate_plan(
                fallback, self.registry, world, self.config.max_steps
            ):
                plan.steps, plan.errors, plan.fallback_used = fallback, [], True
                plan.mode, plan.model = "fallback", "rules"
        plan.latency_s = time.perf_counter() - t0
        if cacheable and plan.valid:
            self.cache.put(key, plan)
        return plan

    # -- grounded -----------------------------------------------------------------------
    def _few_shot(self) -> bool:
        return (not self.adapted) if self.config.few_shot is None else self.config.few_shot

    def _grounded(self, goal: str, world: World, notes: list[str], done: list[Step]):
        text = PlanText(self.registry, world.names)
        work = world.copy()
        steps: list[Step] = []
        scores: list[dict] = []
        weight = self.config.affordance_weight
        for _ in range(self.config.max_steps + 1):
            cands = ground_candidates(self.registry, work, goal)
            if not steps and not done:
                cands = [c for c in cands if c.skill != DONE]  # a plan does something
            lm_scores = self.lm.score(
                text.segments(goal, done + steps, notes, self._few_shot()),
                [text.line(c) for c in cands],
            )
            affordances = self.affordance.batch(cands, work)
            with np.errstate(divide="ignore"):
                penalty = np.log(np.where(affordances > 0, affordances, 1.0))
            total = np.asarray(lm_scores, dtype=np.float64) + weight * penalty
            total[affordances <= 0] = -np.inf
            best = int(np.argmax(total))
            order = np.argsort(-total)[:3]
            scores.append(
                {
                    "chosen": cands[best].to_dict(),
                    "top": [
                        {
                            "step": cands[i].to_dict(),
                            "lm": round(float(lm_scores[i]), 4),
                            "affordance": round(float(affordances[i]), 4),
                        }
                        for i in order
                    ],
                }
            )
            if not math.isfinite(total[best]) or cands[best].skill == DONE:
                break
            chosen = cands[best]
            steps.append(chosen)
            work.apply(self.registry[chosen.skill].effects_machine, chosen.params)
            if len(steps) >= self.config.max_steps:
                break
        errors = validate_plan(steps, self.registry, world, self.config.max_steps)
        return steps, scores, errors

    # -- generate -----------------------------------------------------------------------
    def grammar(self, world: World) -> PlanGrammar:
        """The JSON plan grammar for a world's names (cached)."""
        key = tuple(world.names)
        if key not in self._grammars:
            self._grammars[key] = PlanGrammar(
                self.registry, world.names, self.config.max_steps, prefix=" "
            )
        return self._grammars[key]

    def _generate(self, goal: str, world: World, notes: list[str]):
        text = PlanText(self.registry, world.names)
        grammar = self.grammar(world)
        feedback: list[str] = []
        steps: list[Step] = []
        errors = ["no attempt"]
        for attempt in range(1 + self.config.retries):
            prompt = text.json_prompt(goal, notes + feedback, self._few_shot())
            seed = None if self.config.seed is None else self.config.seed + attempt
            temperature = self.config.temperature
            if attempt:  # a retry must be able to differ from a greedy first answer
                seed, temperature = (self.config.seed or 0) + attempt, max(temperature, 0.7)
            try:
                raw = self.lm.generate_json(prompt, grammar, seed=seed, temperature=temperature)
                steps = parse_plan_json(raw.strip())
                errors = validate_plan(steps, self.registry, world, self.config.max_steps)
            except PlanError as exc:
                steps, errors = [], exc.errors
            except RuntimeError as exc:  # endpoint or decoding failure
                steps, errors = [], [str(exc)]
            if not errors:
                break
            log.info("plan attempt %d invalid: %s", attempt + 1, errors)
            feedback = [f"the previous plan was invalid: {'; '.join(errors)[:300]}"]
        return steps, errors

    # -- memory -------------------------------------------------------------------------
    def _recall(self, goal: str) -> list[str]:
        if self.memory is None or self.config.memory_k <= 0:
            return []
        facts = self.memory.search(
            goal, k=self.config.memory_k, min_score=self.config.memory_min_score
        )
        return [f.text for f in facts]
