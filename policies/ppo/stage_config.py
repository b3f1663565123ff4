"""The ``stages:`` block of a training config: its format, its checks and the TrainConfig of
each stage (:func:`parse_staged_config`). Running the stages is :mod:`policies.ppo.stages`.

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
included; the highest success wins, ties to the later one; with ``stall_steps`` N > 0 the
fewest stalled episodes win first, an episode stalled when the deterministic student's
action stayed under :data:`policies.evaluation.FROZEN` for N consecutive steps on the
evaluation's noiseless observations, a still point it would not leave; then the highest
success, then the later one). Written in the config, so
the same command picks the same checkpoint.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sims
from policies.ppo.config import TrainConfig
from policies.ppo.env_options import (
    contact_randomization,
    plain_arm_randomization,
    pose_error_randomization,
)
from sims.tasks.base import unsupported_randomization

SELECT_RULES = ("last", "best_periodic", "best_eval_success")
"""The checkpoint-selection rules a stage may name (see the module docstring)."""
STAGE_KEYS = {"name", "backend", "steps", "overrides", "select"}
SELECT_KEYS = {"rule", "episodes", "seed", "last_n", "stall_steps"}
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
    stall_steps: int = 0
    """``best_eval_success``: > 0, the fewest episodes stalled this many steps win first
    (0: off; the module's doc)."""


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
            int(value.get("stall_steps", 0)),
        )
    except (TypeError, ValueError) as exc:
        raise StageConfigError(f"{where}: select: {exc}") from exc
    if sel.episodes < 1 or sel.last_n < 0 or sel.stall_steps < 0:
        raise StageConfigError(
            f"{where}: select needs episodes >= 1, last_n >= 0 and stall_steps >= 0"
        )
    if sel.stall_steps and sel.rule != "best_eval_success":
        raise StageConfigError(f"{where}: select's stall_steps is a best_eval_success option")
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
        if cfg.imitation.expert:
            from policies.experts import EXPERT_TASKS

            if cfg.task not in EXPERT_TASKS:
                raise StageConfigError(
                    f"{at}: imitation.expert: no scripted expert for {cfg.task}; experts "
                    f"exist for {', '.join(EXPERT_TASKS)}"
                )
        unsupported = unsupported_randomization(
            {
                **contact_randomization(cfg.env),
                **plain_arm_randomization(cfg.env),
                **pose_error_randomization(cfg.env),
            },
            cfg.backend,
        )
        if unsupported:
            names = ", ".join(f"env.{key}" for key in unsupported)
            raise StageConfigError(f"{at}: the {cfg.backend} backend cannot randomize {names}")
        if stage.select.rule != "last" and cfg.runner.eval_backend not in sims.BACKENDS:
            raise StageConfigError(f"{at}: unknown runner.eval_backend")
    return staged
