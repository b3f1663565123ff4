"""``miles train`` for a staged config (``--config`` with ``stages:``, or ``--resume`` of a
staged run): checks before any work, then :func:`policies.ppo.stages.run_stages` and its
report. :mod:`policies.commands.train` calls :func:`staged_main` first."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import yaml

from policies.ppo.config import TrainConfig
from policies.ppo.stages import (
    STAGES_FILE,
    StageConfigError,
    StagedConfig,
    has_stages,
    parse_staged_config,
    run_stages,
)

DEFAULT_RECIPES = {
    "push": "config/train/push.yaml",
    "pick_place": "config/train/pick_place.yaml",
    "turn": "config/train/turn.yaml",
}
"""The staged config ``miles train TASK`` runs when given nothing else (the recipe of the
shipped skill; relative to the working directory, the repository root)."""


def default_recipe(args) -> Path | None:
    """The task's shipped recipe (:data:`DEFAULT_RECIPES`) when ``args`` name a task and no
    config, resume, source checkpoint, backend or budget (those keep the single-run
    defaults of :func:`policies.ppo.config.default_train_config`) and the file exists."""
    if args.resume or args.config or not args.task:
        return None
    if any(getattr(args, flag, None) is not None for flag in ("backend", "steps", "init_from")):
        return None
    path = DEFAULT_RECIPES.get(args.task)
    return Path(path) if path is not None and Path(path).exists() else None


def staged_main(args, prog: str, command: str, motor_filters: Mapping | None = None):
    """``miles train`` for staged configs: the exit code, or None when ``args`` name no
    staged config (``--config`` with ``stages``, or ``--resume`` of a staged run)."""
    from policies.provenance import add_resume, new_run_meta

    resume_dir = Path(args.resume) if args.resume else None
    recipe = default_recipe(args)
    if recipe is not None:
        print(f"{prog}: {args.task}: the shipped recipe {recipe}", file=sys.stderr)
        args.config = str(recipe)
    if resume_dir is not None and (resume_dir / STAGES_FILE).exists():
        data, where = yaml.safe_load((resume_dir / STAGES_FILE).read_text()), str(resume_dir)
    elif resume_dir is None and args.config:
        data, where = yaml.safe_load(Path(args.config).read_text()), args.config
        if not has_stages(data):
            return None
    else:
        return None
    try:
        if resume_dir is None:
            for flag in ("backend", "steps", "init_from"):
                if getattr(args, flag) is not None:
                    raise StageConfigError(
                        f"--{flag.replace('_', '-')} is set per stage in a staged config"
                    )
            if args.task:
                data = {**data, "task": args.task}
            staged = parse_staged_config(data, where, motor_filters)
            from policies.commands.train_args import apply_overrides

            base = TrainConfig.from_dict(staged.base)
            apply_overrides(base, args)
            staged = parse_staged_config(
                {**StagedConfig(base.to_dict(), staged.stages).to_dict()}, where, motor_filters
            )
        else:
            staged = parse_staged_config(data, where, motor_filters)
            if args.task and args.task != staged.base["task"]:
                raise StageConfigError(
                    f"{where} trains {staged.base['task']!r}, not {args.task!r}"
                )
    except StageConfigError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    task = staged.base["task"]
    if resume_dir is not None:
        run_dir = resume_dir
        meta = yaml.safe_load((run_dir / "meta.yaml").read_text()) or {}
        meta = add_resume(meta, command)
    else:
        run_dir = Path(args.out or f"runs/{task}-{time.strftime('%Y%m%d-%H%M%S')}")
        meta = new_run_meta(command, stages=[s.name for s in staged.stages])
    try:
        summary = run_stages(staged, run_dir, meta, motor_filters, resume=resume_dir is not None)
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted; continue with {prog} --resume {run_dir}", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"run: {run_dir}")
    for s in summary["stages"]:
        sel = s["selected"]
        score = f", success {sel['success']:.3f}" if sel.get("success") is not None else ""
        print(
            f"stage {s['name']} ({s['backend']}): {s['env_steps']} env steps, "
            f"{s['wall_time_s']:.1f} s; selected ({sel['rule']}) {Path(sel['checkpoint']).name}"
            + score
        )
    print(f"export: miles export {run_dir}")
    return 0
