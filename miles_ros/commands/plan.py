"""`miles plan`: plan a goal offline (no robot) and print the plan the manager would run.

    miles plan "put the red cube on the left pad" [--json] [--scene FILE]
               [--mode grounded|generate] [--model PATH] [--adapter PATH|none]
               [--endpoint URL] [--memory FILE] [--fallback]
    miles plan --batch goals.txt --json      # one goal per line, one JSON object per line

With ``--json`` each plan is one object ``{"goal", "steps": [{"skill", "params"}],
"mode", "model", "latency_s", "fallback_used"}`` (plus ``errors`` when no valid plan
was found). A goal the planner refuses (it names something the scene lacks, asks for a
relation no skill offers, contradicts itself, is blank or names nothing to act on) prints
``{"goal", "steps": [], "refused": true, "reason", "mode", "model", "latency_s",
"fallback_used"}``; a goal that asks for no motion ("do nothing") is a valid empty plan.
A scene with ``arms:`` (config/scene_dual.yaml) is planned as the cell's manager plans
it: in the world frame, without the cards' envelopes (each arm's bid judges those in its
own base frame). Exit status: 0 when every plan is valid, 1 when one has errors, else 3
when one was refused, else 4 when one asks back which thing the goal means
(``"clarify"``, ``"options"``); 2 on usage errors or a missing model.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from miles_ros.commands import doc_parser
from miles_ros.interfaces import EXIT_CLARIFY, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, EXIT_USAGE


def _parser(prog: str) -> argparse.ArgumentParser:
    p = doc_parser(prog, __doc__)
    p.add_argument("goal", nargs="?", help="the goal in words")
    p.add_argument("--batch", type=Path, help="file with one goal per line")
    p.add_argument("--json", action="store_true", help="print JSON (one object per goal)")
    p.add_argument("--scene", type=Path, help="scene YAML (default config/scene.yaml)")
    p.add_argument(
        "--mode",
        choices=("grounded", "generate"),
        default="grounded",
        help="grounded: score the skill candidates (default); generate: write the plan",
    )
    p.add_argument("--model", help="local Hugging Face model directory (default: embedded)")
    p.add_argument(
        "--adapter",
        default="default",
        help="LoRA adapter directory, 'default' (shipped) or 'none'",
    )
    p.add_argument("--endpoint", help="OpenAI-compatible server URL (vLLM, llama.cpp, Ollama)")
    p.add_argument("--endpoint-model", default="default", help="model name at the endpoint")
    p.add_argument(
        "--skills",
        type=Path,
        action="append",
        help="skill card directory (repeatable; default policies/skills)",
    )
    p.add_argument("--memory", type=Path, help="SQLite memory file to retrieve notes from")
    p.add_argument(
        "--fallback",
        action="store_true",
        help="allow the rule-based fallback (labelled in the output)",
    )
    p.add_argument(
        "--affordance-weight",
        type=float,
        default=1.0,
        help="weight of log(affordance) against the LM log-likelihood (default 1)",
    )
    p.add_argument("--cache-dir", type=Path, help="model cache (default ~/.cache/miles)")
    p.add_argument("--threads", type=int, help="torch threads (default: $MILES_THREADS/auto)")
    p.add_argument("-v", "--verbose", action="store_true", help="log and show step scores")
    return p


def _print_plan(plan, verbose: bool) -> None:
    how = "cached" if plan.cached else f"{plan.latency_s:.2f} s"
    label = " [RULE-BASED FALLBACK, not the language model]" if plan.fallback_used else ""
    print(f"goal: {plan.goal}")
    print(f"plan ({plan.mode}, {plan.model}, {how}){label}:")
    for i, step in enumerate(plan.steps, 1):
        params = " ".join(f"{k}={v}" for k, v in step.params.items())
        print(f"  {i}. {step.skill} {params}".rstrip())
    if plan.refused:
        print(f"  refused: {plan.reason}")
    elif plan.clarification is not None:
        print(f"  asks: {plan.clarification.question}")
    elif plan.nothing:
        print("  (nothing to do: the goal asks for no motion)")
    for error in plan.errors:
        print(f"  error: {error}")
    if verbose:
        for i, entry in enumerate(plan.scores, 1):
            top = ", ".join(
                f"{t['step']['skill']} {list(t['step']['params'].values())} "
                f"lm={t['lm']} aff={t['affordance']}"
                for t in entry["top"]
            )
            print(f"  scores {i}: {top}")


def main(argv: list[str] | None = None, prog: str = "miles plan") -> int:
    parser = _parser(prog)
    args = parser.parse_args(argv)
    if bool(args.goal) == bool(args.batch):
        parser.error("give a goal or --batch FILE (one of the two)")
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    from miles_ros.agent.models import ModelUnavailable
    from miles_ros.agent.planner import Planner, PlannerConfig
    from miles_ros.agent.registry import SkillRegistry
    from miles_ros.agent.world import load_world
    from miles_ros.manager.cell import cell_registry
    from sims.scene import load_scene

    goals = (
        [args.goal]
        if args.goal
        else [
            line.strip()
            for line in args.batch.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
    )
    memory = None
    if args.memory:
        from miles_ros.agent.memory import Memory

        memory = Memory(args.memory)
    config = PlannerConfig(
        mode=args.mode, fallback=args.fallback, affordance_weight=args.affordance_weight
    )
    adapter = None if args.adapter == "none" else args.adapter
    try:
        registry = SkillRegistry.load(args.skills)
        if args.scene is not None and load_scene(args.scene).multi_arm:
            # as the cell's manager plans: in the world frame, each arm's bid judges
            # whether the call lies inside the card's envelope in its own base frame
            registry = cell_registry(registry)
        planner = Planner.from_options(
            registry=registry,
            world=load_world(args.scene),
            model=args.model,
            adapter=adapter,
            endpoint=args.endpoint,
            endpoint_model=args.endpoint_model,
            cache_dir=args.cache_dir,
            threads=args.threads,
            config=config,
            memory=memory,
        )
    except (ModelUnavailable, OSError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    invalid = refused = asks = False
    for goal in goals:
        plan = planner.plan(goal)
        refused |= plan.refused
        asks |= plan.clarification is not None
        invalid |= bool(plan.errors)
        if args.json:
            print(json.dumps(plan.to_json()), flush=True)
        else:
            _print_plan(plan, args.verbose)
    if invalid:
        return EXIT_FAILED
    return EXIT_REFUSED if refused else (EXIT_CLARIFY if asks else EXIT_OK)
