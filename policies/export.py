"""Export a trained run to a skill: ONNX actor + ONNX critic + skill card.

The wrappers bake the observation normalizer in and give the actor a deterministic head
(``clamp(mean, -1, 1)``); inputs and outputs are named (``obs`` -> ``actions``, ``obs``
-> ``value``), the batch axis is dynamic, the opset is fixed, and each file is
self-contained (weights inside, no external data).
"""

from __future__ import annotations

import json
import logging
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import torch
import yaml
from torch import nn

from policies.card_content import build_card
from policies.cards import SkillCard, sha256_file, write_card
from policies.ppo.networks import ActorCritic

if TYPE_CHECKING:
    from policies.ppo.envs import MotorFilterFactory

logger = logging.getLogger(__name__)

ONNX_OPSET = 17
EVAL_NUM_ENVS = 1
"""Envs of export's evaluation. The seeded episode set depends on (seed, num_envs, episodes)
(the backends draw every episode from one stream, in the order envs reset), so
``miles eval SKILL --num-envs 1`` runs the card's ``evaluation`` episodes; other
``--num-envs`` run another sample of the same distribution."""


class _Normalized(nn.Module):
    """The observation normalizer of a trained model, baked into an exported network."""

    def __init__(self, model: ActorCritic):
        super().__init__()
        self.normalizer = model.normalizer

    def normalize(self, obs: torch.Tensor) -> torch.Tensor:
        return self.normalizer(obs) if self.normalizer is not None else obs


class ExportedActor(_Normalized):
    """obs [B, D] -> deterministic actions [B, A] in [-1, 1] (normalizer inside)."""

    def __init__(self, model: ActorCritic):
        super().__init__(model)
        self.actor = model.actor

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.clamp(self.actor(self.normalize(obs)), -1.0, 1.0)


class ExportedCritic(_Normalized):
    """obs [B, D] -> value [B] (normalizer inside)."""

    def __init__(self, model: ActorCritic):
        super().__init__(model)
        self.critic = model.critic

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.normalize(obs)).squeeze(-1)


def export_onnx(model: ActorCritic, out_dir: str | Path) -> dict[str, Path]:
    """Write ``actor.onnx`` and ``critic.onnx`` into ``out_dir``; returns their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model = model.eval()
    dummy = torch.zeros(1, model.obs_dim)
    paths = {}
    for role, wrapper, output in (
        ("actor", ExportedActor(model), "actions"),
        ("critic", ExportedCritic(model), "value"),
    ):
        path = out_dir / f"{role}.onnx"
        with torch.no_grad(), warnings.catch_warnings():
            # The TorchScript exporter is chosen on purpose (dynamo=False): small MLPs,
            # one self-contained file, a fixed opset. Its deprecation notice is noise here.
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(
                wrapper.eval(),
                (dummy,),
                str(path),
                input_names=["obs"],
                output_names=[output],
                dynamic_axes={"obs": {0: "batch"}, output: {0: "batch"}},
                opset_version=ONNX_OPSET,
                dynamo=False,
                do_constant_folding=True,
                export_params=True,
            )
        paths[role] = path
    return paths


def resolve_checkpoint(run_dir: str | Path, which: str = "best") -> Path:
    """``best`` (the best physics evaluation; the latest when there is none), ``last``,
    or a path to a checkpoint file."""
    from policies.ppo.runner import CHECKPOINT_DIR, latest_checkpoint

    if which not in ("best", "last"):
        path = Path(which)
        if not path.exists():
            raise FileNotFoundError(f"no checkpoint {path}")
        return path
    best = Path(run_dir, CHECKPOINT_DIR, "best.pt")
    if which == "best" and best.exists():
        return best
    last = latest_checkpoint(run_dir)
    if last is None:
        raise FileNotFoundError(f"no checkpoints in {Path(run_dir, CHECKPOINT_DIR)}")
    return last


MAX_LINEAGE = 8
"""How many ``--init-from`` generations a card lists."""


def _weights_source(init: dict, depth: int = 0) -> dict:
    """A run's ``init_from`` record with the source run's own commands, and, where that
    run was itself started from another one, its ``init_from`` in turn (the lineage)."""
    init = dict(init)
    src_meta = Path(init["checkpoint"]).resolve().parents[1] / "meta.yaml"
    if src_meta.exists():
        src = yaml.safe_load(src_meta.read_text()) or {}
        init["command"] = src.get("command", "")
        init["git_commit"] = src.get("git_commit", "unknown")
        resumed = [r.get("command", "") for r in src.get("resumed", [])]
        if resumed:
            init["resumed"] = resumed
        if src.get("init_from") and depth + 1 < MAX_LINEAGE:
            init["init_from"] = _weights_source(src["init_from"], depth + 1)
    return init


def export_run(
    run_dir: str | Path,
    out_dir: str | Path,
    name: str | None = None,
    checkpoint: str = "best",
    eval_episodes: int = 200,
    eval_seed: int = 1000,
    eval_backend: str = "pybullet",
    command: str = "",
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
    calibration: dict | None = None,
) -> SkillCard:
    """Export a run's checkpoint into a skill directory and evaluate the exported actor
    (through onnxruntime, so the card's success rate is the shipped file's; with the
    card's observation ``calibration``, :mod:`policies.calibration`, where one is given).

    Returns the card it wrote. With ``eval_episodes=0`` the card copies the run's final evaluation.
    ``motor_filters``: the factories of the motor filters a run's config may name (injected
    by the layer that owns them, as for training); :func:`_affordance_center` needs them to
    evaluate a filtered run that recorded no evaluation of its own.
    """
    import sims
    from policies.ppo.env_options import levelling_fields
    from policies.ppo.runner import load_policy
    from policies.provenance import git_commit, miles_version

    run_dir, out_dir = Path(run_dir), Path(out_dir)
    ckpt_path = resolve_checkpoint(run_dir, checkpoint)
    model, data = load_policy(ckpt_path)
    task = data["task"]
    export_commit = git_commit()  # before writing: overwriting a shipped skill dirties the tree
    paths = export_onnx(model, out_dir)
    sha = {role: sha256_file(p) for role, p in paths.items()}
    train_cfg = data["config"]
    meta_path = run_dir / "meta.yaml"
    meta = yaml.safe_load(meta_path.read_text()) if meta_path.exists() else {}
    provenance = {
        "task": task,
        "backend": train_cfg["backend"],
        "seed": train_cfg["seed"],
        "steps": int(data["env_steps"]),
        "updates": int(data["iteration"]),
        "num_envs": train_cfg["runner"]["num_envs"],
        "wall_time_s": round(float(data["wall_time_s"]), 2),
        "git_commit": meta.get("git_commit", "unknown"),
        "command": meta.get("command", ""),
        "resumed": [r.get("command", "") for r in meta.get("resumed", [])],
        "checkpoint": ckpt_path.name,
        "export_command": command,
        "export_git_commit": export_commit,
        "miles_version": miles_version(),
        "exported": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "training_noise": dict(train_cfg.get("env", {})),
    }
    if not provenance["resumed"]:
        provenance.pop("resumed")
    provenance.update(staged_provenance(run_dir))
    if meta.get("init_from"):
        provenance["init_from"] = _weights_source(meta["init_from"])
    goal_distance = train_cfg.get("env", {}).get("goal_distance") or None
    regions = {
        k: train_cfg.get("env", {}).get(k) or None for k in ("object_region", "goal_region")
    }
    levelling = levelling_fields(train_cfg.get("env", {}), sims.get_task(task).CONFIG)
    if eval_episodes > 0:
        from policies.evaluation import evaluate
        from policies.runtime import SkillPolicy

        # A provisional card so the runtime can load and hash-check the new files.
        write_card(
            build_card(
                name or task,
                task,
                sha,
                provenance,
                {},
                goal_distance=goal_distance,
                levelling=levelling,
                calibration=calibration,
                **regions,
            ),
            out_dir,
        )
        policy = SkillPolicy(out_dir)
        result = evaluate(
            policy.act,
            task,
            backend=eval_backend,
            episodes=eval_episodes,
            seed=eval_seed,
            num_envs=EVAL_NUM_ENVS,
            **_envelope_config(task, goal_distance, levelling=levelling, **regions),
        )
        evaluation = {
            "backend": eval_backend,
            "episodes": result.episodes,
            "seed": eval_seed,
            "num_envs": EVAL_NUM_ENVS,
            "success_rate": round(result.success, 4),
            "ci95": [round(result.ci95[0], 4), round(result.ci95[1], 4)],
            "mean_return": round(result.mean_return, 4),
            "mean_episode_length": round(result.mean_length, 2),
            **({"grasp": dict(result.grasp)} if result.grasp is not None else {}),
            "policy": "actor.onnx (onnxruntime)",
        }
    else:
        finals = [e for e in data.get("evaluations", []) if e["kind"] == "final"]
        ev = finals[-1] if finals else (data.get("evaluations") or [{}])[-1]
        evaluation = {
            "backend": ev.get("backend", eval_backend),
            "episodes": ev.get("episodes", 0),
            "seed": ev.get("seed", eval_seed),
            "success_rate": ev.get("success"),
            "ci95": ev.get("ci95"),
            "mean_return": ev.get("mean_return"),
            "mean_episode_length": ev.get("mean_length"),
            "policy": "training checkpoint (torch)",
        }
    affordance = _affordance_center(
        train_cfg, data, lambda: evaluate_at_export(model, train_cfg, data, motor_filters)
    )
    card = build_card(
        name or task,
        task,
        sha,
        provenance,
        evaluation,
        affordance=affordance,
        goal_distance=goal_distance,
        levelling=levelling,
        calibration=calibration,
        **regions,
    )
    write_card(card, out_dir)
    return card


def staged_provenance(run_dir: str | Path) -> dict:
    """For a staged run (``summary.json`` with ``staged``): every stage's name, backend,
    env steps and training wall time, and the totals (``total_steps``,
    ``total_wall_time_s``: the whole run from scratch); an empty dict for other runs.
    ``steps`` and ``wall_time_s`` of a card stay the last stage's (its checkpoint's)."""
    path = Path(run_dir) / "summary.json"
    summary = json.loads(path.read_text()) if path.exists() else {}
    if not summary.get("staged"):
        return {}
    stages = [
        {
            "name": st.get("name"),
            "backend": st.get("backend"),
            "env_steps": int(st.get("env_steps", 0)),
            "wall_time_s": round(float(st.get("wall_time_s", 0.0)), 2),
        }
        for st in summary.get("stages", [])
    ]
    return {
        "stages": stages,
        "total_steps": sum(st["env_steps"] for st in stages),
        "total_wall_time_s": round(sum(st["wall_time_s"] for st in stages), 2),
    }


def _envelope_config(
    task: str, goal_distance, object_region=None, goal_region=None, levelling=None
) -> dict:
    """``evaluate`` keyword arguments for episodes over the trained cube-goal distances and
    cube and goal areas, with the trained tool levelling (none set: the task's default
    episodes)."""
    if not (goal_distance or object_region or goal_region or levelling):
        return {}
    import dataclasses

    import sims
    from policies.ppo.envs import with_goal_distance, with_regions

    cfg = with_goal_distance(sims.get_task(task).CONFIG, goal_distance)
    cfg = dataclasses.replace(cfg, **(levelling or {}))
    return {"config": with_regions(cfg, object_region or (), goal_region or ())}


def _affordance_center(
    train_cfg: dict, data: dict, evaluate: Callable[[], dict | None] | None = None
) -> dict | None:
    """Where the planner's critic squashing is centred, for a run whose critic learned
    returns of other episodes than the card's plain evaluation (a motor filter such as
    the safety supervisor, or longer episodes): the mean return of the run's own physics
    evaluation at the checkpoint (its latest recorded one; a run that recorded none, such
    as an imitation run (:mod:`policies.ppo.imitation`, no periodic or final evaluations):
    ``evaluate()``'s entry, e.g. :func:`evaluate_at_export`). None otherwise (the planner
    then uses the card's evaluation.mean_return)."""
    env = train_cfg.get("env", {})
    if not env.get("motor_filter") and float(env.get("episode_scale", 1.0)) == 1.0:
        return None
    evals = [e for e in data.get("evaluations") or [] if e.get("mean_return") is not None]
    ev = evals[-1] if evals else (evaluate() if evaluate is not None else None)
    if ev is None or ev.get("mean_return") is None:
        return None
    return {
        "center": round(float(ev["mean_return"]), 4),
        "source": f"the run's {ev.get('kind', '')} evaluation at {ev.get('env_steps')} steps "
        f"({ev.get('episodes')} episodes, seed {ev.get('seed')}) with its motor filter "
        f"{env.get('motor_filter') or 'none'} and episode_scale {env.get('episode_scale', 1.0)}",
    }


def evaluate_at_export(
    model: ActorCritic,
    train_cfg: dict,
    data: dict,
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
) -> dict | None:
    """The checkpoint's physics evaluation as its run's periodic ones ran it (the runner's
    :class:`~policies.ppo.physics_eval.PhysicsEvaluator`: ``runner.eval_backend``, the
    run's motor filter, episode scale and envelope, ``runner.eval_episodes`` episodes of
    ``runner.eval_seed``), as an evaluation entry of kind ``export``; None, with a warning,
    where that env cannot be built here (e.g. a motor filter nobody injected)."""
    from policies.ppo.config import TrainConfig
    from policies.ppo.distributed import SingleProcess
    from policies.ppo.physics_eval import PhysicsEvaluator

    cfg = TrainConfig.from_dict(train_cfg)
    evaluator = PhysicsEvaluator(cfg, motor_filters or {}, SingleProcess(torch.device("cpu")))
    timing = {"eval_s": 0.0}
    try:
        result = evaluator.evaluate(model, cfg.runner.eval_episodes, timing)
    finally:
        evaluator.close()
    if result is None:
        logger.warning(
            "no affordance.center: the run recorded no evaluation and its evaluation env "
            "(motor filter %r) cannot be built here",
            cfg.env.motor_filter or "none",
        )
        return None
    logger.info("affordance.center: %s evaluation at export, %.1f s", cfg.task, timing["eval_s"])
    return {
        "kind": "export",
        "env_steps": int(data.get("env_steps", 0)),
        "episodes": result.episodes,
        "seed": cfg.runner.eval_seed,
        "mean_return": result.mean_return,
    }
