"""What a training run keeps in its run directory, and how it is read back: checkpoint
files (written atomically), ``config.yaml`` and ``meta.yaml``, ``summary.json``; and the
policy of a checkpoint (:func:`load_policy`, :func:`torch_policy_fn`). The runner
(:class:`policies.ppo.runner.OnPolicyRunner`) decides when; this module knows the files.

Run directory layout::

    RUN_DIR/config.yaml         the whole TrainConfig
    RUN_DIR/meta.yaml           command, git commit, start time, version
    RUN_DIR/checkpoints/model_000050.pt, ...   (and best.pt: the best physics evaluation)
    RUN_DIR/tb/                 TensorBoard scalars (:mod:`policies.ppo.progress`)
    RUN_DIR/summary.json        wall time, env steps, time split, evaluations (also
                                written, marked ``interrupted``, when Ctrl-C or an
                                error stops the run)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from policies.ppo.config import TrainConfig
from policies.ppo.networks import ActorCritic

CHECKPOINT_DIR = "checkpoints"
BEST_CHECKPOINT = "best.pt"
"""The checkpoint of the best physics evaluation, in :data:`CHECKPOINT_DIR`."""


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The checkpoint with the highest update count in ``RUN_DIR/checkpoints``."""
    ckpts = sorted(Path(run_dir, CHECKPOINT_DIR).glob("model_*.pt"))
    return ckpts[-1] if ckpts else None


def checkpoint_path(run_dir: str | Path, iteration: int) -> Path:
    """The checkpoint file of update ``iteration``."""
    return Path(run_dir, CHECKPOINT_DIR, f"model_{iteration:06d}.pt")


def best_checkpoint_path(run_dir: str | Path) -> Path:
    """The best physics evaluation's checkpoint file (``best.pt``)."""
    return Path(run_dir, CHECKPOINT_DIR, BEST_CHECKPOINT)


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint's dict (tensors on the CPU)."""
    return torch.load(path, map_location="cpu", weights_only=False)


def write_checkpoint(path: str | Path, data: dict[str, Any]) -> Path:
    """Write ``data`` to ``path`` through a temporary file (never a half-written
    checkpoint); returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save(data, tmp)
    tmp.replace(path)
    return path


def rng_states() -> dict[str, Any]:
    """The torch and numpy generator states a checkpoint keeps (``torch_rng``,
    ``numpy_rng``)."""
    return {"torch_rng": torch.get_rng_state(), "numpy_rng": np.random.get_state()}


def restore_rng_states(data: dict[str, Any]) -> None:
    """Set the generators to a checkpoint's :func:`rng_states`."""
    torch.set_rng_state(data["torch_rng"])
    np.random.set_state(data["numpy_rng"])


def load_policy(checkpoint: str | Path) -> tuple[ActorCritic, dict[str, Any]]:
    """Actor-critic (eval mode) and the checkpoint dict from a checkpoint file."""
    data = read_checkpoint(checkpoint)
    cfg = TrainConfig.from_dict(data["config"])
    model = ActorCritic(data["obs_dim"], data["action_dim"], cfg.network)
    model.load_state_dict(data["model"])
    model.eval()
    return model, data


def torch_policy_fn(model: ActorCritic):
    """Deterministic numpy policy function of a torch actor-critic."""

    device = next(model.parameters()).device

    def policy(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            obs_t = torch.from_numpy(np.asarray(obs, dtype=np.float32)).to(device)
            return model.act_deterministic(obs_t).cpu().numpy()

    return policy


def write_run_config(run_dir: Path, cfg: TrainConfig, meta: dict[str, Any]) -> None:
    """``config.yaml`` (the whole config) and, when there is any, ``meta.yaml``."""
    with open(run_dir / "config.yaml", "w") as f:
        yaml.safe_dump(cfg.to_dict(), f, sort_keys=False)
    if meta:
        with open(run_dir / "meta.yaml", "w") as f:
            yaml.safe_dump(meta, f, sort_keys=False)


def write_summary(run_dir: Path, summary: dict[str, Any]) -> None:
    """``summary.json``."""
    with open(run_dir / "summary.json", "w") as f:
        json.dump(summary, f, indent=2)


def save_runner(runner, path: str | Path) -> Path:
    """Checkpoint an :class:`~policies.ppo.runner.OnPolicyRunner`: model, optimizer, its
    :class:`~policies.ppo.record.RunRecord`, config, dimensions, generator states."""
    data = {
        "model": runner.model.state_dict(),
        "optimizer": runner.ppo.optimizer.state_dict(),
        **runner.record.state(),
        "config": runner.cfg.to_dict(),
        "obs_dim": runner.obs_dim,
        "action_dim": runner.action_dim,
        "task": runner.cfg.task,
        **rng_states(),
    }
    return write_checkpoint(path, data)


def restore_runner(runner, data: dict[str, Any]) -> None:
    """Back to a :func:`save_runner` checkpoint's state (its learning rate included)."""
    runner.model.load_state_dict(data["model"])
    runner.ppo.optimizer.load_state_dict(data["optimizer"])
    runner.ppo.set_learning_rate(runner.ppo.optimizer.lr)
    runner.record.restore(data)
    restore_rng_states(data)


def run_summary(runner, final, interrupted: dict[str, Any] | None) -> dict[str, Any]:
    """An :class:`~policies.ppo.runner.OnPolicyRunner`'s ``summary.json`` (``final``: the
    final evaluation's EvalResult or None)."""
    cfg, record = runner.cfg, runner.record
    episodes = runner.train_episodes or runner.episodes
    return {
        "task": cfg.task,
        "backend": cfg.backend,
        "seed": cfg.seed,
        "num_envs": runner.total_envs,
        "ranks": runner.dist.world_size,
        "device": str(runner.device),
        "env_device": runner.env_device,
        **record.summary(),
        "train_success_rate": episodes.success_rate,
        "train_episode_return": episodes.mean_return,
        "stopped_at_target": runner.stopped_at_target,
        "solved": record.solved,
        "final_eval": final.to_dict() if final is not None else None,
        "best_eval_success": record.best_eval if record.best_eval >= 0 else None,
        "evaluations": record.evaluations,
        "interrupted": interrupted,
    }
