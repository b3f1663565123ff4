"""The planner: a goal in words -> a validated sequence of skill calls.

Modes:

- ``grounded`` (default): at each step every grounded candidate (skill x scene
  parameters, plus ``done``) is scored by the language model given the goal and the steps
  so far; ``total = log p_LM + weight * log(affordance)``; the best one is taken, the
  planner's world is advanced by the skill's declared effects, and ``done`` ends the plan.
- ``generate``: the model writes a JSON plan under a grammar derived from the registry's
  schema (local models) or the server's JSON-schema response format (endpoints); the
  plan is validated and, when invalid, retried with the errors in the prompt.

Refusal is a plan too (``Plan.refused`` with a ``reason``): the symbolic reading of the
goal (:func:`miles_ros.agent.reading.read_goal`: unknown colours, objects and places,
relations no skill's schema accepts, verbs no skill does, contradictions, blank goals,
goals naming nothing) refuses before the model is asked; otherwise the model may choose
``refuse`` (when its adapter was trained on infeasible goals, see
``PlannerConfig.lm_refusal``) or ``done`` as the first step, which is a refusal unless
the goal asks for no motion ("do nothing": the empty, valid plan). The reading's manner
constraints ("without lifting it" forbids grasping skills for that cube, "tap"/"poke"
forbid contact skills) mask the candidates and are checked on every plan. Under the reading,
a net (:func:`miles_ros.agent.net.cast`) reads what its parse may miss: a way of moving ruled
out in any frame ("hold off on any shoving", "lifting is not allowed") forbids the skills the
cards word with it, and a verb no skill does said as a participle or a noun ("I'd like the
red cube weighed", "give it a quick clean") is refused. Before
anything else, :func:`~miles_ros.agent.scope.read_scope` takes the goal's
prohibitions out of it ("don't touch the red cube", "every cube except the blue one"):
the model plans the positive part, a step the goal forbids is masked, a plan holding one
is refused, and so is a goal whose model's first choice is a forbidden step on a cube its
positive part names. A goal that asks to turn a cube is refused when its plan has no turn
step (another skill would not do what it asks; :mod:`miles_ros.agent.turns`), and its turn
steps follow its turn clauses in order, each with its clause's cube and angle
(:func:`~miles_ros.agent.turns.turn_sequence`).

Replanning (``failed``: the plans already tried that failed; ``banned``: steps the skill
node refused) never returns a plan identical to one that failed: the failed plan's first
step is masked at the first position and the model chooses again; failing that, ``home``
is put before the failed plan; failing that, the replan is a refusal naming what was tried.

Every plan is validated against the registry and the scene before it is returned. A
rule-based fallback (:mod:`miles_ros.agent.fallback`) exists (``fallback=True``), off
by default, and a plan it produced is always labelled ``fallback_used``. The plan record,
the plan context and the plan cache are in :mod:`miles_ros.agent.plans`, the settings in
:mod:`miles_ros.agent.planner_config`, why the grounded search refuses its model's first
choice in :mod:`miles_ros.agent.outside`. Over 400 lines: one :class:`Planner` whose two
modes, refusal and replanning share its scoring state.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from pathlib import Path

import numpy as np

from miles_ros.agent.constrained import PlanGrammar
from miles_ros.agent.fallback import rule_based_plan
from miles_ros.agent.grounding import (
    DONE,
    OUTSIDE_ENVELOPE,
    REFUSE,
    Affordance,
    Step,
    ground_candidates,
)
from miles_ros.agent.models import refusal_trained
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.net import cast
from miles_ros.agent.outside import Outside, asked_outside
from miles_ros.agent.planner_config import PlannerConfig
from miles_ros.agent.plans import (
    Plan,
    PlanCache,
    PlanContext,
    normalize_goal,
    same_steps,
    tried_text,
)
from miles_ros.agent.prompts import PlanText
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.turns import TURN, off_sequence, only_turns, turn_sequence
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
        self.world = world
        self.lm = lm
        self.config = config or PlannerConfig()
        self.memory = memory
        self.adapted = adapted
        self.registry = registry  # the affordance, the cache and the grammars follow it
        self.refusal_trained = False
        """True when the adapter was trained on infeasible goals (set by from_options)."""

    @property
    def registry(self) -> SkillRegistry:
        """The skills the planner plans with. Setting it (the cell manager drops the
        cards' envelopes: :func:`miles_ros.manager.cell.cell_registry`) also renews
        what was derived from the old one: the affordance (whose envelope check is a hard
        mask: a stale one kept the old envelopes, and in the cell's world frame every
        pick_place and push was masked, leaving ``home``), the generate mode's grammars
        and the plan cache (its key holds the registry's names and schemas, not the
        envelopes)."""
        return self._registry

    @registry.setter
    def registry(self, registry: SkillRegistry) -> None:
        self._registry = registry
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
        dtype: str | None = None,
    ) -> Planner:
        """A planner over the default registry and scene unless given, with the embedded
        model + shipped adapter (``adapter="default"``), a local HF dir (``model``), or
        an OpenAI-compatible server (``endpoint``). ``adapter=None``: no adapter.
        ``process``: run a local model in a child process
        (:class:`~miles_ros.agent.lm_process.ProcessLanguageModel`; what a process that
        also runs busy ROS nodes needs). ``dtype``: a local model's weights
        (:data:`~miles_ros.agent.models.PLANNING_DTYPE` unless given)."""
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
        dtype = dtype or models.PLANNING_DTYPE
        if process:
            from miles_ros.agent.lm_process import ProcessLanguageModel

            lm = ProcessLanguageModel(
                model, adapter=adapter, cache=cache_dir, threads=threads, dtype=dtype
            )
            planner = cls(registry, world, lm, config, memory, adapted=adapter is not None)
            planner.refusal_trained = refusal_trained(adapter)
            return planner
        loaded = models.load_model(
            model, adapter=adapter, cache=cache_dir, threads=threads, dtype=dtype
        )
        planner = cls(
            registry, world, HFLanguageModel(loaded), config, memory, adapted=adapter is not None
        )
        planner.refusal_trained = refusal_trained(adapter)
        return planner

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
        failed: list[list[Step]] | None = None,
        banned: list[Step] | None = None,
    ) -> Plan:
        """Plan ``goal`` from ``world`` (default: the planner's scene).

        ``feedback``: lines about what went wrong (replanning); ``done_steps``: steps
        already executed (their effects are in ``world``), shown to the model as the plan
        so far; ``failed``: plans (remaining steps) that were tried and failed, none of
        which is returned again; ``banned``: steps the skill node refused, never planned
        (a banned ``Step(skill)`` without params bans the skill). Plans without feedback
        are cached.
        """
        t0 = time.perf_counter()
        mode = mode or self.config.mode
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        world = world or self.world
        trace_id = trace_id or uuid.uuid4().hex[:16]
        retry = bool(feedback or done_steps or failed or banned)
        cacheable = use_cache and not retry
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
                return hit.cached_copy(goal, trace_id, time.perf_counter() - t0)
        # only valid plans are cached, and the reading depends on the key alone
        said = goal
        goal, reading, asks = read_in_scope(goal, self.registry, world)
        goal, reading = cast(said, goal, reading, self.registry)  # what the parse did not read
        asks = None if reading.refusal else asks
        if reading.refusal or reading.nothing or asks:
            plan = Plan(goal, [], mode, self.lm.name, 0.0, trace_id=trace_id, clarification=asks)
            plan.refused, plan.reason = bool(reading.refusal), reading.refusal or ""
            plan.latency_s = time.perf_counter() - t0
            return plan
        notes = self._recall(goal) + list(feedback or [])
        context = PlanContext(
            reading, [*(failed or [])], list(banned or []), list(done_steps or [])
        )
        plan = Plan(goal, [], mode, self.lm.name, 0.0, trace_id=trace_id, notes=notes)
        if mode == "grounded":
            self._grounded_different(plan, world, context)
        else:
            plan.steps, plan.errors = self._generate(goal, world, notes, context)
            outside = [e for e in plan.errors if OUTSIDE_ENVELOPE in e]
            if outside:
                plan.steps, plan.errors, plan.refused, plan.reason = [], [], True, outside[0]
            if context.failed and any(same_steps(plan.steps, f) for f in context.failed):
                plan.steps, plan.errors = [], []
                plan.refused, plan.reason = True, tried_text(context.failed)
        if plan.errors and self.config.fallback:
            fallback = rule_based_plan(goal, self.registry, world)
            if (
                fallback
                and not validate_plan(fallback, self.registry, world, self.config.max_steps)
                and not any(context.reject(s, self.registry) for s in fallback)
            ):
                plan.steps, plan.errors, plan.fallback_used = fallback, [], True
                plan.mode, plan.model = "fallback", "rules"
        why = reading.plan_violation(plan.steps, self.registry)
        if why:  # never a step the goal forbids nor one that leaves out its turn, whatever path
            plan.steps, plan.errors, plan.refused, plan.reason = [], [], True, why
        plan.latency_s = time.perf_counter() - t0
        if cacheable and plan.valid:
            self.cache.put(key, plan)
        return plan

    # -- grounded -----------------------------------------------------------------------
    def _few_shot(self) -> bool:
        return (not self.adapted) if self.config.few_shot is None else self.config.few_shot

    def _lm_refusal(self) -> bool:
        flag = self.config.lm_refusal
        return self.refusal_trained if flag is None else flag

    def _grounded_different(self, plan: Plan, world: World, context: PlanContext) -> None:
        """Grounded planning whose result differs from every failed plan (see the module
        docstring); fills ``plan``."""
        steps, plan.scores, plan.errors, answer = self._grounded(
            plan.goal, world, plan.notes, context
        )
        if not context.failed or not any(same_steps(steps, f) for f in context.failed):
            return self._settle(plan, steps, answer)
        first = context.failed[-1][0] if context.failed[-1] else None
        if first is not None:
            context.first_banned.append(first)
            steps, plan.scores, plan.errors, answer = self._grounded(
                plan.goal, world, plan.notes, context
            )
            if steps and not any(same_steps(steps, f) for f in context.failed):
                return self._settle(plan, steps, answer)
        last = context.failed[-1]
        if "home" in self.registry and last and last[0].skill != "home":
            retry = [Step("home"), *last][: self.config.max_steps]
            if not any(same_steps(retry, f) for f in context.failed):
                plan.errors = validate_plan(retry, self.registry, world, self.config.max_steps)
                return self._settle(plan, retry, None)
        plan.steps, plan.errors, plan.refused, plan.reason = (
            [],
            [],
            True,
            tried_text(context.failed),
        )

    def _settle(self, plan: Plan, steps: list[Step], answer: str | Outside | None) -> None:
        if isinstance(answer, Outside):
            plan.steps, plan.errors, plan.refused, plan.reason = [], [], True, answer.reason
            return
        plan.steps = steps
        if steps or plan.errors:
            return
        plan.refused = True
        plan.reason = (
            "the planner's model judged the goal infeasible with the skills "
            + ", ".join(self.registry.names)
            if answer == REFUSE
            else "the planner found no skill step for this goal (skills: "
            + ", ".join(self.registry.names)
            + ")"
        )

    def _grounded(self, goal: str, world: World, notes: list[str], context: PlanContext):
        text = PlanText(self.registry, world.names)
        work = world.copy()
        steps: list[Step] = []
        scores: list[dict] = []
        weight = self.config.affordance_weight
        done = context.done
        answer = None
        sequence = turn_sequence(goal, world)  # each turn clause's cube and angle, in order
        only = only_turns(goal) and not (context.failed or context.banned)  # a first plan
        for _ in range(self.config.max_steps + 1):
            cands = ground_candidates(self.registry, work, goal)
            if not steps and self._lm_refusal():
                cands.append(Step(REFUSE))
            affordances = self.affordance.batch([c for c in cands if c.skill != REFUSE], work)
            affordances = np.append(affordances, [1.0] * (len(cands) - len(affordances)))
            turned = sum(s.skill == TURN for s in done + steps)
            rejected = np.array(
                [
                    bool(context.reject(c, self.registry, first=not steps))
                    or self._repeats(c, steps, work)
                    or off_sequence(c, sequence, turned, only)
                    or (only and turned >= len(sequence) and c.skill not in (DONE, REFUSE))
                    for c in cands
                ]
            )
            affordances[rejected] = 0.0
            with np.errstate(divide="ignore"):
                penalty = np.log(np.where(affordances > 0, affordances, 1.0))
            penalty = np.where(affordances > 0, weight * penalty, -np.inf)
            lm_scores = self.lm.score(
                text.segments(goal, done + steps, notes, self._few_shot()),
                [text.line(c) for c in cands],
                None if self.config.exact_scores else penalty,
            )
            outside = asked_outside(
                cands, lm_scores, affordances, rejected, work, context.reading, self.registry
            )
            if outside is not None:
                answer = Outside(f"step {len(steps) + 1}: {outside}")
                break
            total = np.asarray(lm_scores, dtype=np.float64) + penalty
            best = int(np.argmax(total))
            # "lm" of a candidate the scoring pruned is an upper bound (lm.py, _prune); the
            # chosen step and every candidate totalling above it are exact
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
            if not math.isfinite(total[best]) or cands[best].skill in (DONE, REFUSE):
                answer = cands[best].skill if math.isfinite(total[best]) else None
                break
            chosen = cands[best]
            steps.append(chosen)
            work.apply(self.registry[chosen.skill].effects_machine, chosen.params)
            if len(steps) >= self.config.max_steps:
                break
        errors = validate_plan(steps, self.registry, world, self.config.max_steps) if steps else []
        return steps, scores, errors, answer

    def _repeats(self, cand: Step, steps: list[Step], work: World) -> bool:
        """True when ``cand`` is the step just chosen again and what it does already holds:
        a plan never moves to the same end state twice in a row, however the prompt's
        remembered notes lean (a turn by an angle declares no end state and may repeat)."""
        if not steps or cand.key() != steps[-1].key():
            return False
        return work.holds(self.registry[cand.skill].effects_machine, cand.params)

    # -- generate -----------------------------------------------------------------------
    def grammar(self, world: World) -> PlanGrammar:
        """The JSON plan grammar for a world's names (cached)."""
        key = tuple(world.names)
        if key not in self._grammars:
            self._grammars[key] = PlanGrammar(
                self.registry, world.names, self.config.max_steps, prefix=" "
            )
        return self._grammars[key]

    def _generate(self, goal: str, world: World, notes: list[str], context: PlanContext):
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
                errors += [
                    f"steps[{i}] {s.skill}: {why}"
                    for i, s in enumerate(steps)
                    if (why := context.reject(s, self.registry, first=i == 0))
                ]
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
