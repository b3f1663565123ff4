"""Planner quality and speed on the hand-written goal sets, adapter vs base model, new
path vs old.

    .venv/bin/python bench/planner.py --json [--limit N] [--no-base] [--modes grounded]
        [--adapter DIR] [--sets-only] [--no-peer]
        [--sets dev,heldout,heldout2,...,heldoutN]

Prints one JSON object::

    {"sets": {"dtype": "bfloat16", "peer": "float32 weights, every candidate scored exactly",
              "dev": {"all": tally, "by_category": {"everyday": tally, ...},
                      "targets": {"everyday_exact", "harder_exact", "infeasible_refused",
                                  "feasible_wrongly_refused", "ambiguous_asked",
                                  "latency_p50_s", "latency_p99_s"},
                      "misses": [...], "peer": {same, old path}, "same_answers_as_peer": n},
              "heldout": {...}, "heldout2": {...}, ... (each set --sets names)},
     "n_goals": 36, "unsupported": [goals the skills cannot express],
     "skills": {"reach": "card", ...}, "model": "embedded:gemma3-270m+adapter", "load_s": ..,
     "cache_hit_ms": .., "threads": 1, "fallback": false,
     "grounded": {"accuracy", "validity", "latency_p50_s", "latency_p95_s",
                  "by_category": {"everyday": {"n", "accuracy", "validity"}, ...},
                  "refusal": {"precision", "recall", "n_refuse", "n_plan", "nothing_ok",
                              "by_category": {"repertoire": "12/12", ...}}},
     "generate": {...},
     "base": {"model": "embedded:gemma3-270m", "load_s": .., "grounded": {...},
              "generate": {...}},
     "misses": {"grounded": [...], "generate": [...]}}

The peer in the same run is the same embedded model without the adapter (with worked
examples in its prompt, as the planner does for an unadapted model), so the adapter's
gain is visible. Accuracy = exact skill sequence and parameters
(miles_ros/agent/eval_goals.yaml, written by hand, not by the data generator); validity =
plans that pass the registry's validation; the rule-based fallback is off. Latency is
per goal after the model is loaded, with the plan cache bypassed; ``cache_hit_ms`` is
the median time of a repeated goal served from the cache; ``load_s`` includes one
warm-up plan (critic sessions). Goals whose expected plan the registry cannot express
(e.g. stacking, when the trained cards accept pads only, or a push / pick_place between a
cube and a pad farther apart than the card's envelope allows) are listed under
``unsupported`` and not counted in accuracy. ``refusal``: precision and recall of refusals
on the labelled set (miles_ros/agent/eval_refusals.yaml: infeasible goals written by hand,
none of their words in the training generator, plus no-motion goals; the feasible goals
above are the negatives and their unsupported goals count as goals to refuse);
``misses`` lists the refusal set's wrong answers under ``refusal_<mode>``.
``by_category``: the same per category of the sets (``category:`` in the YAML files:
eval goals ``everyday`` (unnamed), ``negation`` (a cube the goal forbids touching or
moving, "every cube except ...") and ``tower`` (cubes stacked up to three high); refusal
goals ``infeasible`` and ``nothing`` (unnamed), ``negation`` (the only plan is forbidden),
``repertoire`` (a verb no skill does) and ``tower`` (a fourth level)); a goal's
``objects:`` stands cubes where it finds them (the planner's scene otherwise); for
refusals, the goals answered right (refused or not, as labelled) out of the category's.
``sets`` (grounded mode, the planner as ``miles plan`` runs it): the development set
(eval_goals + eval_refusals + eval_scene_dev + eval_wording_dev + eval_reading_dev,
written beside the reading's rules) and the
held-out set
(miles_ros/agent/eval_heldout.yaml: written before anything was tuned on it, never produced
by the training generator, cubes moved where the category needs it), each goal answered
by the new path and by the old one (``peer``: float32 weights, every candidate scored) in
turn, so both meet the same machine load. ``--sets heldoutN`` (N from 2 to
:data:`miles_ros.agent.evaluation.LATEST_HELD_OUT`) also answers the Nth held-out set
(miles_ros/agent/eval_heldoutN.yaml, in the held-out set's form), which no default run
answers: its misses stay out of planner tuning. A tally
(:func:`miles_ros.agent.evaluation.summarize`): ``exact`` (the expected plan, refusal or
question), ``valid`` (of the goals with a plan to give), refusal and clarification
precision/recall, latency p50/p99; a plan from the rule-based fallback is a failure.
``--sets-only`` stops there.
``--adapter DIR`` benches another adapter than the shipped one. ``--registry interface``
uses only the skills declared in docs/interfaces.md (any scene name as target, no critics).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miles_ros.agent import models  # noqa: E402
from miles_ros.agent.evaluation import (  # noqa: E402
    HELD_OUT_SETS,
    answer,
    dev_set,
    evaluate_goals,
    evaluate_refusals,
    load_eval_goals,
    load_eval_refusals,
    load_eval_set,
    summarize,
)
from miles_ros.agent.planner import DEFAULT_ADAPTER, Planner, PlannerConfig  # noqa: E402
from miles_ros.agent.registry import SkillRegistry  # noqa: E402


def run_model(adapter, goals, modes, threads, registry) -> tuple[dict, Planner]:
    t0 = time.perf_counter()
    planner = Planner.from_options(
        registry=registry, adapter=adapter, threads=threads, config=PlannerConfig(fallback=False)
    )
    planner.plan("go home", use_cache=False)  # warm-up: critic sessions, first allocations
    out: dict = {"model": planner.lm.name, "load_s": round(time.perf_counter() - t0, 2)}
    misses = {}
    refusals = load_eval_refusals()
    for mode in modes:
        result = evaluate_goals(planner, goals, mode=mode)
        misses[mode] = result.pop("misses")
        out["n_goals"] = result.pop("n_goals")
        out["unsupported"] = result.pop("unsupported")
        refusal = evaluate_refusals(planner, refusals, goals, mode=mode)
        misses[f"refusal_{mode}"] = refusal.pop("wrong")
        out[mode] = {**result, "refusal": refusal}
    out["misses"] = misses
    return out, planner


def cache_hit_ms(planner: Planner, goals: list[str]) -> float | None:
    """Median time of a repeated goal served from the cache (the first goal with a valid
    plan: refusals are not cached); None when no goal had one."""
    goal = next((g for g in goals if planner.plan(g).valid), None)
    if goal is None:
        return None
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        plan = planner.plan(goal)
        times.append(time.perf_counter() - t0)
        assert plan.cached
    return round(statistics.median(times) * 1000, 4)


SETS = ("dev", *HELD_OUT_SETS)
"""The categorised sets ``--sets`` chooses from."""
DEFAULT_SETS = ("dev", "heldout")
"""The sets answered when ``--sets`` is not given (no later held-out set: kept unseen)."""
PEER = "float32 weights, every candidate scored exactly"
"""The old path the sets are compared against in the same run."""


def run_sets(adapter, threads, registry, peer: bool, names=DEFAULT_SETS) -> dict:
    """The development set (eval_goals + eval_refusals + eval_scene_dev +
    eval_wording_dev + eval_reading_dev), the held-out set (now read, so development too),
    the second and
    the third held-out sets (``names``: which of them), per category, grounded mode; with ``peer``,
    the old path on the same goals, goal by goal in turn with the new one (the same
    machine load for both)."""
    config = PlannerConfig(fallback=False)
    planners = {
        "new": Planner.from_options(
            registry=registry, adapter=adapter, threads=threads, config=config
        )
    }
    if peer:
        planners["peer"] = Planner.from_options(
            registry=registry,
            adapter=adapter,
            threads=threads,
            dtype="float32",
            config=PlannerConfig(fallback=False, exact_scores=True),
        )
    for planner in planners.values():
        planner.plan("go home", use_cache=False)  # warm-up
    out: dict = {"dtype": models.PLANNING_DTYPE, **({"peer": PEER} if peer else {})}
    loaders = {
        "dev": lambda: dev_set(registry, planners["new"].world),
        **{name: (lambda path=path: load_eval_set(path)) for name, path in HELD_OUT_SETS.items()},
    }
    for name in names:
        items = loaders[name]()
        rows: dict[str, list] = {who: [] for who in planners}
        for item in items:
            for who, planner in planners.items():
                rows[who].append(answer(planner, item))
        out[name] = summarize(rows["new"])
        if peer:
            old = summarize(rows["peer"])
            old.pop("misses")
            out[name]["peer"] = old
            out[name]["same_answers_as_peer"] = sum(
                a["got"] == b["got"] and a["steps"] == b["steps"]
                for a, b in zip(rows["new"], rows["peer"], strict=True)
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument("--limit", type=int, default=0, help="first N goals only")
    parser.add_argument("--modes", default="grounded,generate")
    parser.add_argument("--no-base", action="store_true", help="skip the base-model peer")
    parser.add_argument(
        "--sets-only",
        action="store_true",
        help="only the categorised dev and held-out sets (grounded; no modes, no base)",
    )
    parser.add_argument("--no-peer", action="store_true", help="sets without the old path")
    parser.add_argument(
        "--sets",
        default=",".join(DEFAULT_SETS),
        help=f"the categorised sets to answer, of {', '.join(SETS)} "
        f"(default: {','.join(DEFAULT_SETS)})",
    )
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--adapter", type=Path, default=None, help="adapter (default: shipped)")
    parser.add_argument(
        "--registry",
        choices=("cards", "interface"),
        default="cards",
        help="skills: trained cards where present (as `miles plan`), or "
        "only the interface cards declared in docs/interfaces.md",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    goals = load_eval_goals()
    if args.limit:
        goals = goals[: args.limit]
    modes = [m for m in args.modes.split(",") if m]
    threads = args.threads or models.default_threads()
    adapter = DEFAULT_ADAPTER if (DEFAULT_ADAPTER / "adapter_config.json").exists() else None
    adapter = args.adapter or adapter
    if args.registry == "interface":
        registry = SkillRegistry.load([])
    else:
        registry = SkillRegistry.load()
    names = [n for n in args.sets.split(",") if n]
    unknown = sorted(set(names) - set(SETS))
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose of {', '.join(SETS)}")
    sets = run_sets(adapter, threads, registry, peer=not args.no_peer, names=names)
    if args.sets_only:
        print(json.dumps({"threads": threads, "fallback": False, "sets": sets}))
        return 0
    result, planner = run_model(adapter, goals, modes, threads, registry)
    report = {
        "n_goals": result["n_goals"],
        "unsupported": result["unsupported"],
        "skills": {s.name: s.source for s in registry},
        "model": result["model"],
        "load_s": result["load_s"],
        "cache_hit_ms": cache_hit_ms(planner, [g["goal"] for g in goals]),
        "threads": threads,
        "fallback": False,
    }
    report["sets"] = sets
    for mode in modes:
        report[mode] = result[mode]
    report["misses"] = result["misses"]
    del planner
    if not args.no_base:
        base, _ = run_model(None, goals, modes, threads, registry)
        for key in ("misses", "n_goals", "unsupported"):
            base.pop(key)
        report["base"] = base
    if not args.json:
        for mode in modes:
            refusal = report[mode]["refusal"]
            line = (
                f"{mode}: adapter {report[mode]['accuracy']:.1%}, refusal precision "
                f"{refusal['precision']:.1%} recall {refusal['recall']:.1%}"
            )
            if "base" in report:
                line += f" vs base {report['base'][mode]['accuracy']:.1%}"
            print(line, file=sys.stderr)
            for name, cat in report[mode]["by_category"].items():
                print(f"  {name}: {cat['accuracy']:.1%} of {cat['n']}", file=sys.stderr)
            for name, right in refusal["by_category"].items():
                print(f"  refusal {name}: {right} right", file=sys.stderr)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
