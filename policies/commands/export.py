"""``miles export RUN_DIR --out DIR``: ONNX actor + critic + skill card.

A versioned skill (a folder with ``active.yaml``, :mod:`policies.library`, as every
shipped skill is) is never written into: export to another folder and add it as a new
version with ``miles skills add NAME DIR``. A plain skill directory in
``policies/skills`` (:data:`policies.cards.SHIPPED_LIBRARY`) is only replaced with
``--force``. The default ``--out`` is ``policies/skills/NAME`` (from the repository root).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from policies.ppo.config import RunnerConfig


def build_parser(prog: str = "miles export") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Export a training run to a skill directory: actor.onnx, critic.onnx "
        "and skill.yaml (evaluated in PyBullet through onnxruntime).",
    )
    p.add_argument("run_dir", help="a run directory written by `miles train`")
    p.add_argument("--out", default=None, help="skill directory (default policies/skills/TASK)")
    p.add_argument("--name", default=None, help="skill name (default: the task name)")
    p.add_argument(
        "--checkpoint", default="best", help="best (best physics eval), last, or a checkpoint path"
    )
    p.add_argument(
        "--episodes",
        type=int,
        default=200,
        help="PyBullet evaluation episodes for the card (0: copy the run's)",
    )
    p.add_argument(
        "--seed", type=int, default=RunnerConfig.eval_seed, help="seed of the evaluation episodes"
    )
    p.add_argument("--backend", default="pybullet", help="evaluation backend")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace a plain skill directory of policies/skills (a versioned skill is "
        "never replaced: add a new version with `miles skills add`)",
    )
    return p


def shipped_skill(out: Path) -> Path | None:
    """The shipped skill folder that ``out`` is (an existing, non-empty folder of
    policies/skills), or None."""
    from policies.cards import SHIPPED_LIBRARY

    out = out.resolve()
    library = SHIPPED_LIBRARY.resolve()
    if out.parent != library or not out.is_dir() or not any(out.iterdir()):
        return None
    return out


def main(argv: list[str] | None = None, prog: str = "miles export", motor_filters=None) -> int:
    """``motor_filters``: the factories of the motor filters a run's config may name
    (miles_ros's ``miles export`` injects the safety supervisor's), so the affordance
    centre of a filtered run without evaluations is measured in its own env."""
    args = build_parser(prog).parse_args(argv)
    from policies.commands._common import setup_logging

    setup_logging()
    import yaml

    from policies.export import export_run
    from policies.library import is_versioned
    from policies.provenance import command_line

    run_dir = Path(args.run_dir)
    if not (run_dir / "config.yaml").exists():
        print(f"{prog}: {run_dir} is not a training run (no config.yaml)", file=sys.stderr)
        return 2
    task = yaml.safe_load((run_dir / "config.yaml").read_text())["task"]
    out = Path(args.out or f"policies/skills/{args.name or task}")
    if is_versioned(out):
        print(
            f"{prog}: {out} is a versioned skill and versions are never overwritten; export "
            f"to another folder (--out {run_dir / 'skill'}), then add it as the next version: "
            f"miles skills add {out.name} {run_dir / 'skill'}",
            file=sys.stderr,
        )
        return 2
    if not args.force and shipped_skill(out) is not None:
        print(
            f"{prog}: {out} is a shipped skill; export to another folder "
            f"(--out {run_dir / 'skill'}) or give --force to replace it",
            file=sys.stderr,
        )
        return 2
    try:
        card = export_run(
            run_dir,
            out,
            name=args.name,
            checkpoint=args.checkpoint,
            eval_episodes=args.episodes,
            eval_seed=args.seed,
            eval_backend=args.backend,
            command=command_line(argv, prog),
            motor_filters=motor_filters,
        )
    except FileNotFoundError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    ev = card.evaluation
    print(f"skill {card.name!r} -> {out}/ (actor.onnx, critic.onnx, skill.yaml)")
    if ev.get("success_rate") is not None:
        print(
            f"{ev['backend']} success {ev['success_rate']:.3f} over {ev['episodes']} episodes "
            f"(95% CI {ev['ci95'][0]:.3f}-{ev['ci95'][1]:.3f})"
        )
    return 0
