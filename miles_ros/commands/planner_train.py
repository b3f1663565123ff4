"""`miles planner-train`: generate goal -> plan data from the skill registry, fit the LoRA
adapter of the planner's language model, write it with its card.

    miles planner-train [--out DIR] [--examples N] [--steps N] [--max-minutes M] [--tiny]
    miles planner-train --eval-only --out DIR      # (re)measure an adapter, update its card
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import subprocess
import sys
import time
from pathlib import Path

import yaml

from miles_ros.agent.models import ADAPTER_CARD

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "agent" / "adapters" / "default"


def _parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="adapter directory")
    p.add_argument("--examples", type=int, default=1600, help="generated training pairs")
    p.add_argument("--steps", type=int, default=400, help="optimizer steps")
    p.add_argument("--batch-size", type=int, default=4, help="examples per step (default 4)")
    p.add_argument("--lr", type=float, default=5e-4, help="learning rate (default 5e-4)")
    p.add_argument("--rank", type=int, default=16, help="LoRA rank")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument(
        "--refusal-fraction",
        type=float,
        default=0.15,
        help="share of infeasible goals (plan: refuse) in the generated data",
    )
    p.add_argument("--max-minutes", type=float, default=20.0, help="training time budget")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    p.add_argument(
        "--skills",
        type=Path,
        action="append",
        default=None,
        help="skill card directory (repeatable; default policies/skills)",
    )
    p.add_argument("--scene", type=Path, default=None, help="scene YAML (default config/)")
    p.add_argument("--cache-dir", type=Path, default=None, help="model cache (~/.cache/miles)")
    p.add_argument(
        "--tiny",
        action="store_true",
        help="smoke-test budget: 24 examples, 2 steps, rank 2, eval on 3 goals",
    )
    p.add_argument("--no-eval", action="store_true", help="skip the hand-written-set eval")
    p.add_argument(
        "--eval-only",
        action="store_true",
        help="only evaluate the adapter in --out and update its card",
    )
    p.add_argument("--eval-limit", type=int, default=0, help="evaluate on the first N goals")
    p.add_argument(
        "--init-adapter",
        type=Path,
        default=None,
        help="continue training this adapter (its card's history is kept)",
    )
    return p


def _git_commit() -> str | None:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _evaluate(args, registry, world, limit: int, lm=None) -> dict:
    """Grounded accuracy on the hand-written set, with ``lm`` (the adapted model still in
    memory) or the adapter in ``args.out`` loaded from disk."""
    from miles_ros.agent.evaluation import evaluate_goals, load_eval_goals
    from miles_ros.agent.planner import Planner

    if lm is None:
        planner = Planner.from_options(
            registry=registry,
            world=world,
            adapter=args.out,
            cache_dir=args.cache_dir,
            threads=args.threads or None,
        )
    else:
        planner = Planner(registry, world, lm)
    goals = load_eval_goals()
    if limit:
        goals = goals[:limit]
    result = evaluate_goals(planner, goals, mode="grounded")
    return {
        "set": "miles_ros/agent/eval_goals.yaml",
        "mode": "grounded",
        "n_goals": result["n_goals"],
        "accuracy": result["accuracy"],
        "validity": result["validity"],
        "latency_p50_s": result["latency_p50_s"],
        "by_category": result["by_category"],
        "misses": result["misses"][:20],
    }


def main(argv: list[str] | None = None, prog: str = "miles planner-train") -> int:
    args = _parser(prog).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from miles_ros.agent import models
    from miles_ros.agent.registry import SkillRegistry
    from miles_ros.agent.world import load_world

    registry = SkillRegistry.load(args.skills)
    world = load_world(args.scene)
    card_path = args.out / ADAPTER_CARD
    if args.eval_only:
        if not card_path.exists():
            print(f"{prog}: no adapter card at {card_path}", file=sys.stderr)
            return 2
        card = yaml.safe_load(card_path.read_text())
        card["evaluation"] = _evaluate(args, registry, world, args.eval_limit)
        card_path.write_text(yaml.safe_dump(card, sort_keys=False))
        print(json.dumps(card["evaluation"]))
        return 0

    from miles_ros.agent.lm import HFLanguageModel
    from miles_ros.agent.training import TrainConfig, train_adapter

    cfg = TrainConfig(
        examples=args.examples,
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        rank=args.rank,
        alpha=2 * args.rank,
        seed=args.seed,
        refusal_fraction=args.refusal_fraction,
        max_minutes=args.max_minutes,
        threads=args.threads,
    )
    eval_limit = args.eval_limit
    if args.tiny:
        cfg.examples, cfg.steps, cfg.batch_size, cfg.rank, cfg.alpha = 24, 2, 2, 2, 4
        cfg.warmup_steps = 1
        eval_limit = eval_limit or 3
    try:
        lm = HFLanguageModel(models.load_model(cache=args.cache_dir, threads=args.threads or None))
    except models.ModelUnavailable as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    started = time.time()

    def progress(step: int, loss: float, elapsed: float) -> None:
        if step == 1 or step % 10 == 0 or step == cfg.steps:
            print(f"step {step}/{cfg.steps} loss {loss:.4f} {elapsed:.0f}s", flush=True)

    previous = None
    if args.init_adapter is not None and (args.init_adapter / ADAPTER_CARD).exists():
        previous = yaml.safe_load((args.init_adapter / ADAPTER_CARD).read_text())
        previous.pop("evaluation", None)
    stats = train_adapter(
        lm, registry, world, cfg, args.out, progress=progress, init_adapter=args.init_adapter
    )
    adapted = HFLanguageModel(
        models.LoadedModel(stats.pop("model"), lm.tokenizer, lm.name + "+adapter", 0.0)
    )
    card = {
        "name": "miles-planner-adapter",
        "base_model": models.DEFAULT_MODEL,
        "kind": "LoRA (peft) on all attention and MLP projections",
        "created": datetime.datetime.fromtimestamp(started, datetime.UTC).isoformat(),
        "generator_version": stats.pop("generator_version"),
        "seed": cfg.seed,
        "skills": registry.names,
        "registry_signature": registry.signature(),
        "scene_names": world.names,
        **stats,
        "git_commit": _git_commit(),
        "command": " ".join(["miles", "planner-train", *(argv or [])]),
    }
    if previous is not None:
        card["continued_from"] = previous
        card["total_steps"] = stats["steps_done"] + previous.get(
            "total_steps", previous.get("steps_done", 0)
        )
        card["total_wall_time_s"] = round(
            stats["wall_time_s"]
            + previous.get("total_wall_time_s", previous.get("wall_time_s", 0.0)),
            1,
        )
    card_path.write_text(yaml.safe_dump(card, sort_keys=False))
    print(
        f"adapter written to {args.out} ({stats['steps_done']} steps, "
        f"{stats['wall_time_s']} s, final loss {stats['final_loss']})",
        flush=True,
    )
    if not args.no_eval:
        card["evaluation"] = _evaluate(args, registry, world, eval_limit, lm=adapted)
        card_path.write_text(yaml.safe_dump(card, sort_keys=False))
        print(json.dumps(card["evaluation"]), flush=True)
    return 0
