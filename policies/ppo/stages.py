"""Staged training: one ``miles train`` runs every stage a config declares, in order, each
starting from the checkpoint the previous stage's selection rule picked. The ``stages:``
format and its checks are :mod:`policies.ppo.stage_config` (its names are re-exported
here); the ``miles train`` entry for staged configs is :mod:`policies.commands.train_staged`.

Run directory: ``stages.yaml`` (the staged config as run), ``meta.yaml``, one ordinary
run directory per stage (``stage_1_numba/``, ...), ``summary.json`` with one entry per
stage (status, env steps, wall time, final evaluation, the selected checkpoint and its
evaluation), and, when every stage is done, ``config.yaml`` plus
``checkpoints/best.pt`` (the last stage's selected checkpoint), so ``miles export
RUN_DIR`` exports it. ``miles train --resume RUN_DIR`` skips finished stages and resumes
the current one from its latest checkpoint.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from policies.ppo.stage_config import (  # noqa: F401 - re-exported: the public import path
    SELECT_KEYS,
    SELECT_RULES,
    STAGE_KEYS,
    SelectRule,
    Stage,
    StageConfigError,
    StagedConfig,
    has_stages,
    parse_staged_config,
)

logger = logging.getLogger(__name__)

STAGES_FILE = "stages.yaml"
"""The staged config as run, in the run directory (its presence marks a staged run)."""


def run_stages(
    staged: StagedConfig,
    run_dir: str | Path,
    meta: dict | None = None,
    motor_filters: Mapping | None = None,
    resume: bool = False,
) -> dict[str, Any]:
    """Run every stage into ``run_dir`` (see the module docstring); returns the summary
    also written to ``summary.json``. ``resume``: skip the stages ``summary.json`` marks
    done and resume the first unfinished one from its latest checkpoint."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / STAGES_FILE, "w") as f:
        yaml.safe_dump(staged.to_dict(), f, sort_keys=False)
    if meta is not None:
        with open(run_dir / "meta.yaml", "w") as f:
            yaml.safe_dump(meta, f, sort_keys=False)
    summary = _read_summary(run_dir) if resume else {}
    records = {r["name"]: r for r in summary.get("stages", []) if r.get("status") == "done"}
    summary = {"task": staged.base["task"], "staged": True, "stages": [], "interrupted": None}
    start = time.perf_counter()
    init_ckpt: Path | None = None
    for i, stage in enumerate(staged.stages):
        done = records.get(stage.name)
        if done is not None:  # its pick, found in this run directory wherever it now is
            picked = Path(done["selected"]["checkpoint"]).name
            picked = staged.stage_dir(run_dir, i) / "checkpoints" / picked
            if picked.exists():
                logger.info("stage %d (%s): done, skipped", i + 1, stage.name)
                summary["stages"].append(done)
                init_ckpt = picked
                continue
        try:
            record = _run_stage(staged, i, run_dir, init_ckpt, motor_filters, resume, meta)
        except BaseException as exc:
            summary["stages"].append({"name": stage.name, "status": "interrupted"})
            summary["interrupted"] = {"stage": stage.name, "reason": repr(exc)}
            _write_summary(run_dir, summary, start)
            raise
        summary["stages"].append(record)
        _write_summary(run_dir, summary, start)
        init_ckpt = Path(record["selected"]["checkpoint"])
    last = len(staged.stages) - 1
    shutil.copyfile(staged.stage_dir(run_dir, last) / "config.yaml", run_dir / "config.yaml")
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    shutil.copyfile(init_ckpt, run_dir / "checkpoints" / "best.pt")
    summary["selected_checkpoint"] = str(init_ckpt)
    last_meta = yaml.safe_load((staged.stage_dir(run_dir, last) / "meta.yaml").read_text())
    if meta is not None and last_meta.get("init_from"):  # the lineage export puts in the card
        with open(run_dir / "meta.yaml", "w") as f:
            yaml.safe_dump({**meta, "init_from": last_meta["init_from"]}, f, sort_keys=False)
    return _write_summary(run_dir, summary, start)


def _read_summary(run_dir: Path) -> dict:
    path = run_dir / "summary.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _write_summary(run_dir: Path, summary: dict, start: float) -> dict:
    stages = summary["stages"]
    summary["env_steps"] = sum(int(s.get("env_steps", 0)) for s in stages)
    summary["wall_time_s"] = round(sum(float(s.get("wall_time_s", 0.0)) for s in stages), 3)
    summary["session_wall_time_s"] = round(time.perf_counter() - start, 3)
    with open(run_dir / "summary.json", "w") as f:
        json.dump(summary, f, indent=2)
    return summary


def _run_stage(
    staged: StagedConfig,
    index: int,
    run_dir: Path,
    init_ckpt: Path | None,
    motor_filters: Mapping | None,
    resume: bool,
    run_meta: dict | None = None,
) -> dict[str, Any]:
    """Train one stage (resumed from its latest checkpoint where it has one) and select
    its checkpoint; returns its summary entry."""
    import torch

    from policies.ppo.imitation import runner_class
    from policies.ppo.runner import latest_checkpoint

    stage = staged.stages[index]
    cfg = staged.stage_config(index)
    stage_dir = staged.stage_dir(run_dir, index)
    latest = latest_checkpoint(stage_dir) if resume else None
    meta: dict[str, Any] = {
        "command": (run_meta or {}).get("command", ""),
        "git_commit": (run_meta or {}).get("git_commit", "unknown"),
        "stage": stage.name,
        "staged_run": str(run_dir),
    }
    if init_ckpt is not None:
        data = torch.load(init_ckpt, map_location="cpu", weights_only=False)
        meta["init_from"] = {
            "checkpoint": str(init_ckpt),
            "env_steps": int(data["env_steps"]),
            "backend": data["config"]["backend"],
        }
    runner = runner_class(cfg)(cfg, stage_dir, meta=meta, motor_filters=motor_filters)
    try:
        if latest is not None:
            logger.info("stage %d (%s): resuming from %s", index + 1, stage.name, latest)
            runner.load(latest)
        elif init_ckpt is not None:
            runner.model.load_state_dict(data["model"])
        _carry_states(runner, cfg, init_ckpt)
        logger.info(
            "stage %d (%s): %s, %d env steps", index + 1, stage.name, cfg.backend, stage.steps
        )
        if runner.env_steps < cfg.runner.total_steps:
            result = runner.learn()
        else:  # trained before the crash; only the selection was left
            result = _read_summary(stage_dir) or {"env_steps": runner.env_steps}
        selected = select_checkpoint(runner, stage.select)
    finally:
        runner.close()
    return {
        "name": stage.name,
        "status": "done",
        "backend": stage.backend,
        "run_dir": str(stage_dir),
        "env_steps": int(result.get("env_steps", runner.env_steps)),
        "wall_time_s": float(result.get("wall_time_s", runner.wall_time_s)),
        "final_eval": result.get("final_eval"),
        "best_eval_success": result.get("best_eval_success"),
        "selected": selected,
    }


def _carry_states(runner, cfg, init_ckpt: Path | None) -> None:
    """An imitation stage with ``imitation.carry_states`` starts its buffer from the states
    the previous stage saved beside its checkpoints (none saved: nothing carried)."""
    if not (cfg.imitation.expert and cfg.imitation.carry_states and init_ckpt is not None):
        return
    from policies.ppo.imitation import BUFFER_FILE

    path = init_ckpt.parent.parent / BUFFER_FILE
    if path.exists():
        logger.info("carried %d labelled states from %s", runner.carry(path), path)
    else:
        logger.warning("imitation.carry_states: %s saved no labelled states", path.parent)


def select_checkpoint(runner, rule: SelectRule) -> dict[str, Any]:
    """Apply ``rule`` to the checkpoints of ``runner``'s run directory; returns
    ``{"rule", "checkpoint", ...}`` (with ``evaluations`` for ``best_eval_success``)."""
    from policies.evaluation import StallCounter, run_episodes
    from policies.ppo.checkpoints import (
        CHECKPOINT_DIR,
        latest_checkpoint,
        load_policy,
        torch_policy_fn,
    )
    from policies.ppo.envs import evaluation_task_config, make_env

    ckpt_dir = runner.run_dir / CHECKPOINT_DIR
    last = latest_checkpoint(runner.run_dir)
    if last is None:
        raise RuntimeError(f"{runner.run_dir}: the stage saved no checkpoint")
    if rule.rule == "last":
        return {"rule": "last", "checkpoint": str(last)}
    if rule.rule == "best_periodic":
        best = ckpt_dir / "best.pt"
        return {
            "rule": "best_periodic",
            "checkpoint": str(best if best.exists() else last),
            "success": runner.best_eval if runner.best_eval >= 0 else None,
        }
    candidates = sorted(ckpt_dir.glob("model_*.pt"))
    if rule.last_n:
        candidates = candidates[-rule.last_n :]
    cfg, rc = runner.cfg, runner.cfg.runner
    env = make_env(
        cfg, rc.eval_backend, rc.eval_num_envs, evaluation_task_config(cfg), runner.motor_filters
    )
    results = []
    try:
        for path in candidates:
            model, _ = load_policy(path)
            stalls = StallCounter(env.num_envs, rule.stall_steps) if rule.stall_steps else None
            result = run_episodes(
                env, torch_policy_fn(model), rule.episodes, rule.seed, stalls=stalls
            )
            row = {"checkpoint": str(path), **result.to_dict()}
            if stalls is not None:
                row["stalled"] = stalls.stalled
            logger.info(
                "selection: %s success %.3f stalled %s",
                path.name,
                result.success,
                row.get("stalled", "-"),
            )
            results.append(row)
    finally:
        env.close()

    def rank(k: int) -> tuple:
        return (-results[k].get("stalled", 0), results[k]["success"], k)

    best = max(range(len(results)), key=rank)
    extra = (
        {"stall_steps": rule.stall_steps, "stalled": results[best]["stalled"]} if stalls else {}
    )
    return {
        "rule": "best_eval_success",
        "checkpoint": results[best]["checkpoint"],
        "success": results[best]["success"],
        "ci95": results[best]["ci95"],
        "episodes": rule.episodes,
        "seed": rule.seed,
        "backend": rc.eval_backend,
        **extra,
        "evaluations": [
            {
                "checkpoint": Path(r["checkpoint"]).name,
                "success": r["success"],
                **({"stalled": r["stalled"]} if "stalled" in r else {}),
            }
            for r in results
        ],
    }
