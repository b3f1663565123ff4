"""Staged training: one ``miles train`` runs every stage a config declares, in order, each
starting from the checkpoint the previous stage's selection rule picked.

A training config (``--config FILE``, the keys of :class:`~policies.ppo.config.TrainConfig`)
may add ``stages:``; the rest of the file is the base config every stage starts from::

    stages:
      - name: numba                # a folder name: letters, digits, - and _
        backend: numba             # numba | pybullet | isaac
        steps: 15_600_000          # the stage's budget in env steps (default: the base's)
        overrides: {runner: {num_envs: 256}}   # TrainConfig keys, merged over the base
        select: last               # which checkpoint the next stage starts from
      - name: pybullet
        backend: pybullet
        steps: 400_000
        overrides: {env: {motor_filter: safety_supervisor}, runner: {num_envs: 16}}
        select: {rule: best_eval_success, episodes: 100, seed: 2000, last_n: 5}

Selection rules (:data:`SELECT_RULES`): ``last`` (the stage's final checkpoint),
``best_periodic`` (the runner's ``best.pt``: its best periodic evaluation) and
``best_eval_success`` (every checkpoint of the stage, or its ``last_n`` latest,
re-evaluated on ``episodes`` seeded episodes of the stage's evaluation env, motor filter
included; the highest success wins, ties to the later one). Written in the config, so
the same command picks the same checkpoint.

Run directory: ``stages.yaml`` (the staged config as run), ``meta.yaml``, one ordinary
run directory per stage (``stage_1_numba/``, ...), ``summary.json`` with one entry per
stage (status, env steps, wall time, final evaluation, the selected checkpoint and its
evaluation), and, when every stage is done, ``config.yaml`` plus
``checkpoints/best.pt`` (the last stage's selected checkpoint), so ``miles export
RUN_DIR`` exports it. ``miles train --resume RUN_DIR`` skips finished stages and resumes
the current one from its latest checkpoint.

Over 400 lines: the checks of a ``stages`` block, the stage loop with its selection and
resume, and the ``miles train`` entry for staged configs (:func:`staged_main`, hooked into
:mod:`policies.commands.train`) stay in one module, the one place that knows a staged run.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import sims
from policies.ppo.config import TrainConfig

logger = logging.getLogger(__name__)

STAGES_FILE = "stages.yaml"
SELECT_RULES = ("last", "best_periodic", "best_eval_success")
"""The checkpoint-selection rules a stage may name (see the module docstring)."""
STAGE_KEYS = {"name", "backend", "steps", "overrides", "select"}
SELECT_KEYS = {"rule", "episodes", "seed", "last_n"}
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


class StageConfigError(ValueError):
    """A ``stages:`` block that cannot run (raised before any work starts)."""


@dataclass(frozen=True)
class SelectRule:
    """How a stage's checkpoint is chosen for the next stage (and the run's result)."""

    rule: str = "last"
    """One of :data:`SELECT_RULES`."""
    episodes: int = 100
    """``best_eval_success``: seeded episodes per checkpoint."""
    seed: int = 2000
    """``best_eval_success``: seed of that episode set (not the card's 1000)."""
    last_n: int = 0
    """``best_eval_success``: only the ``last_n`` latest checkpoints (0: all)."""


@dataclass(frozen=True)
class Stage:
    """One stage: a backend, a budget, config overrides and a selection rule."""

    name: str
    """Stage name (its folder is ``stage_<i>_<name>``)."""
    backend: str
    """Training backend (``sims.BACKENDS``)."""
    steps: int
    """Budget in env steps."""
    overrides: dict = field(default_factory=dict)
    """TrainConfig keys merged over the base config (nested mappings merge)."""
    select: SelectRule = field(default_factory=SelectRule)
    """Checkpoint selection."""


@dataclass(frozen=True)
class StagedConfig:
    """A base TrainConfig (as plain data) and its stages."""

    base: dict
    """The base config (``TrainConfig.to_dict()``)."""
    stages: tuple[Stage, ...]
    """The stages, in order."""

    def stage_config(self, index: int) -> TrainConfig:
        """The TrainConfig of stage ``index``: base, overrides, backend and budget."""
        stage = self.stages[index]
        data = _merge(copy.deepcopy(self.base), stage.overrides)
        data["backend"] = stage.backend
        data.setdefault("runner", {})["total_steps"] = stage.steps
        return TrainConfig.from_dict(data)

    def stage_dir(self, run_dir: Path, index: int) -> Path:
        return Path(run_dir) / f"stage_{index + 1}_{self.stages[index].name}"

    def to_dict(self) -> dict:
        stages = [
            {
                "name": s.name,
                "backend": s.backend,
                "steps": s.steps,
                "overrides": copy.deepcopy(s.overrides),
                "select": vars(s.select).copy(),
            }
            for s in self.stages
        ]
        return {**copy.deepcopy(self.base), "stages": stages}


def has_stages(data: Any) -> bool:
    """Whether a loaded config mapping declares ``stages``."""
    return isinstance(data, Mapping) and "stages" in data


def _merge(base: dict, over: Mapping) -> dict:
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def _select_rule(value: Any, where: str) -> SelectRule:
    if value is None:
        return SelectRule()
    if isinstance(value, str):
        value = {"rule": value}
    if not isinstance(value, Mapping):
        raise StageConfigError(f"{where}: select must be a rule name or a mapping")
    unknown = set(value) - SELECT_KEYS
    if unknown:
        raise StageConfigError(f"{where}: unknown select keys {', '.join(sorted(unknown))}")
    rule = value.get("rule", "last")
    if rule not in SELECT_RULES:
        raise StageConfigError(
            f"{where}: unknown select rule {rule!r}; choose one of {', '.join(SELECT_RULES)}"
        )
    try:
        sel = SelectRule(
            rule,
            int(value.get("episodes", 100)),
            int(value.get("seed", 2000)),
            int(value.get("last_n", 0)),
        )
    except (TypeError, ValueError) as exc:
        raise StageConfigError(f"{where}: select: {exc}") from exc
    if sel.episodes < 1 or sel.last_n < 0:
        raise StageConfigError(f"{where}: select needs episodes >= 1 and last_n >= 0")
    return sel


def parse_staged_config(
    data: Mapping, where: str = "config", motor_filters: Mapping | None = None
) -> StagedConfig:
    """Check a config with ``stages`` and build every stage's TrainConfig once, so a bad
    stage fails here, before any work (:class:`StageConfigError` says what and where).
    ``motor_filters``: the factories the caller can inject (a stage naming another fails)."""
    data = dict(data)
    stages_data = data.pop("stages")
    if not isinstance(stages_data, list) or not stages_data:
        raise StageConfigError(f"{where}: stages must be a non-empty list of stages")
    try:
        base = TrainConfig.from_dict(data).to_dict()
    except (TypeError, ValueError) as exc:
        raise StageConfigError(f"{where}: base config: {exc}") from exc
    stages, names = [], set()
    for i, raw in enumerate(stages_data):
        at = f"{where}: stage {i + 1}"
        if not isinstance(raw, Mapping):
            raise StageConfigError(f"{at}: a stage must be a mapping")
        unknown = set(raw) - STAGE_KEYS
        if unknown:
            raise StageConfigError(f"{at}: unknown keys {', '.join(sorted(unknown))}")
        name = str(raw.get("name", ""))
        if not _NAME.match(name) or name in names:
            raise StageConfigError(f"{at}: name {name!r} must be unique ([A-Za-z0-9_-]+)")
        names.add(name)
        backend = raw.get("backend")
        if backend not in sims.BACKENDS:
            raise StageConfigError(
                f"{at} ({name}): unknown backend {backend!r}; choose one of "
                f"{', '.join(sims.BACKENDS)}"
            )
        steps = raw.get("steps", base["runner"]["total_steps"])
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
            raise StageConfigError(f"{at} ({name}): steps must be an integer >= 1")
        overrides = raw.get("overrides") or {}
        if not isinstance(overrides, Mapping):
            raise StageConfigError(f"{at} ({name}): overrides must be a mapping")
        stage = Stage(name, backend, steps, dict(overrides), _select_rule(raw.get("select"), at))
        stages.append(stage)
    staged = StagedConfig(base, tuple(stages))
    for i, stage in enumerate(staged.stages):
        at = f"{where}: stage {i + 1} ({stage.name})"
        try:
            cfg = staged.stage_config(i)
        except (TypeError, ValueError) as exc:
            raise StageConfigError(f"{at}: overrides: {exc}") from exc
        if cfg.task != staged.base["task"]:
            raise StageConfigError(f"{at}: a stage cannot change the task")
        if cfg.env.motor_filter and cfg.env.motor_filter not in (motor_filters or {}):
            raise StageConfigError(
                f"{at}: env.motor_filter {cfg.env.motor_filter!r} has no factory here "
                "(train through `miles train`)"
            )
        if stage.select.rule != "last" and cfg.runner.eval_backend not in sims.BACKENDS:
            raise StageConfigError(f"{at}: unknown runner.eval_backend")
    return staged


# ---------------------------------------------------------------------- running
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

    from policies.ppo.runner import OnPolicyRunner, latest_checkpoint

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
    runner = OnPolicyRunner(cfg, stage_dir, meta=meta, motor_filters=motor_filters)
    try:
        if latest is not None:
            logger.info("stage %d (%s): resuming from %s", index + 1, stage.name, latest)
            runner.load(latest)
        elif init_ckpt is not None:
            runner.model.load_state_dict(data["model"])
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


def select_checkpoint(runner, rule: SelectRule) -> dict[str, Any]:
    """Apply ``rule`` to the checkpoints of ``runner``'s run directory; returns
    ``{"rule", "checkpoint", ...}`` (with ``evaluations`` for ``best_eval_success``)."""
    from policies.evaluation import run_episodes
    from policies.ppo.envs import evaluation_task_config, make_env
    from policies.ppo.runner import CHECKPOINT_DIR, latest_checkpoint, load_policy, torch_policy_fn

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
            result = run_episodes(env, torch_policy_fn(model), rule.episodes, rule.seed)
            logger.info("selection: %s success %.3f", path.name, result.success)
            results.append({"checkpoint": str(path), **result.to_dict()})
    finally:
        env.close()
    best = max(range(len(results)), key=lambda k: (results[k]["success"], k))
    return {
        "rule": "best_eval_success",
        "checkpoint": results[best]["checkpoint"],
        "success": results[best]["success"],
        "ci95": results[best]["ci95"],
        "episodes": rule.episodes,
        "seed": rule.seed,
        "backend": rc.eval_backend,
        "evaluations": [
            {"checkpoint": Path(r["checkpoint"]).name, "success": r["success"]} for r in results
        ],
    }


# ---------------------------------------------------------------------- the command
def staged_main(args, prog: str, command: str, motor_filters: Mapping | None = None):
    """``miles train`` for staged configs: the exit code, or None when ``args`` name no
    staged config (``--config`` with ``stages``, or ``--resume`` of a staged run)."""
    import sys

    from policies.provenance import git_commit, miles_version

    resume_dir = Path(args.resume) if args.resume else None
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
            from policies.commands.train import _apply_overrides

            base = TrainConfig.from_dict(staged.base)
            _apply_overrides(base, args)
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
        meta.setdefault("resumed", []).append(
            {"command": command, "git_commit": git_commit(), "time": time.strftime("%FT%T")}
        )
    else:
        run_dir = Path(args.out or f"runs/{task}-{time.strftime('%Y%m%d-%H%M%S')}")
        meta = {
            "command": command,
            "git_commit": git_commit(),
            "miles_version": miles_version(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "stages": [s.name for s in staged.stages],
        }
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
