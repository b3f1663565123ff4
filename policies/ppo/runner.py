"""The on-policy runner: rollouts on a batched backend, PPO updates, logging, checkpoints,
resume and periodic evaluation in physics (PyBullet by default).

Run directory layout::

    RUN_DIR/config.yaml         the whole TrainConfig
    RUN_DIR/meta.yaml           command, git commit, start time, version
    RUN_DIR/checkpoints/model_000050.pt, ...   (and best.pt: the best physics evaluation)
    RUN_DIR/tb/                 TensorBoard scalars
    RUN_DIR/summary.json        wall time, env steps, time split, evaluations
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

import sims
from policies.evaluation import EvalResult, run_episodes
from policies.ppo.algorithm import PPO
from policies.ppo.config import TrainConfig
from policies.ppo.networks import ActorCritic
from policies.ppo.storage import RolloutStorage
from policies.provenance import seed_everything

logger = logging.getLogger(__name__)

CHECKPOINT_DIR = "checkpoints"


def training_task_config(cfg: TrainConfig):
    """The task's TaskConfig with the run's training-backend noise and episode length."""
    task_cfg = evaluation_task_config(cfg)
    rand = dataclasses.replace(
        task_cfg.randomization,
        observation_noise_std=cfg.env.observation_noise_std,
        action_latency_steps=cfg.env.action_latency_steps,
    )
    return dataclasses.replace(task_cfg, randomization=rand)


def evaluation_task_config(cfg: TrainConfig):
    """The task's TaskConfig with the run's episode length (no training noise)."""
    task_cfg = sims.get_task(cfg.task).CONFIG
    if cfg.env.episode_scale != 1.0:
        if not cfg.env.episode_scale > 0:
            raise ValueError(f"env.episode_scale must be > 0, got {cfg.env.episode_scale}")
        steps = max(1, round(task_cfg.episode_steps * cfg.env.episode_scale))
        task_cfg = dataclasses.replace(task_cfg, episode_steps=steps)
    return task_cfg


def env_options(cfg: TrainConfig, backend: str, num_envs: int, task_config) -> dict[str, Any]:
    """``sims.make_env`` keyword arguments: the task config, plus the run's motor filter
    (``cfg.env.motor_filter``) where it names one."""
    if not cfg.env.motor_filter:
        return {"config": task_config}
    if backend != "pybullet":
        raise ValueError(f"env.motor_filter runs on the pybullet backend, not {backend!r}")
    module, _, name = cfg.env.motor_filter.partition(":")
    try:
        factory = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"env.motor_filter {cfg.env.motor_filter!r}: {exc}") from exc
    return factory(cfg.task, num_envs, task_config)


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The checkpoint with the highest update count in ``RUN_DIR/checkpoints``."""
    ckpts = sorted(Path(run_dir, CHECKPOINT_DIR).glob("model_*.pt"))
    return ckpts[-1] if ckpts else None


def load_policy(checkpoint: str | Path) -> tuple[ActorCritic, dict[str, Any]]:
    """Actor-critic (eval mode) and the checkpoint dict from a checkpoint file."""
    data = torch.load(checkpoint, map_location="cpu", weights_only=False)
    cfg = TrainConfig.from_dict(data["config"])
    model = ActorCritic(data["obs_dim"], data["action_dim"], cfg.network)
    model.load_state_dict(data["model"])
    model.eval()
    return model, data


def torch_policy_fn(model: ActorCritic):
    """Deterministic numpy policy function of a torch actor-critic."""

    def policy(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return model.act_deterministic(torch.from_numpy(obs)).numpy()

    return policy


class OnPolicyRunner:
    """Trains ``cfg.task`` with PPO into ``run_dir``; see the module docstring."""

    def __init__(
        self, cfg: TrainConfig, run_dir: str | Path, env=None, meta: dict[str, Any] | None = None
    ):
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.meta = dict(meta or {})
        torch.set_num_threads(max(1, cfg.runner.torch_threads))
        seed_everything(cfg.seed)
        rc = cfg.runner
        self.env = (
            env
            if env is not None
            else sims.make_env(
                cfg.task,
                cfg.backend,
                num_envs=rc.num_envs,
                dense_reward=cfg.env.dense_reward,
                **env_options(cfg, cfg.backend, rc.num_envs, training_task_config(cfg)),
            )
        )
        self.obs_dim = int(self.env.single_observation_space.shape[0])
        self.action_dim = int(self.env.single_action_space.shape[0])
        self.model = ActorCritic(self.obs_dim, self.action_dim, cfg.network)
        self.ppo = PPO(self.model, cfg.ppo)
        self.storage = RolloutStorage(
            rc.rollout_steps, self.env.num_envs, self.obs_dim, self.action_dim
        )
        self.iteration = 0
        self.env_steps = 0
        self.wall_time_s = 0.0
        self.timing = {"env_s": 0.0, "policy_s": 0.0, "update_s": 0.0, "eval_s": 0.0}
        self.best_eval = -1.0
        self.evaluations: list[dict[str, Any]] = []
        self.solved: dict[str, Any] | None = None
        self._eval_env = None
        self._eval_disabled = False
        self._writer = None

    # ------------------------------------------------------------------ persistence
    def save_config(self) -> None:
        with open(self.run_dir / "config.yaml", "w") as f:
            yaml.safe_dump(self.cfg.to_dict(), f, sort_keys=False)
        if self.meta:
            with open(self.run_dir / "meta.yaml", "w") as f:
                yaml.safe_dump(self.meta, f, sort_keys=False)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "model": self.model.state_dict(),
            "optimizer": self.ppo.optimizer.state_dict(),
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": self.wall_time_s,
            "timing": dict(self.timing),
            "best_eval": self.best_eval,
            "evaluations": list(self.evaluations),
            "solved": self.solved,
            "config": self.cfg.to_dict(),
            "obs_dim": self.obs_dim,
            "action_dim": self.action_dim,
            "task": self.cfg.task,
            "torch_rng": torch.get_rng_state(),
            "numpy_rng": np.random.get_state(),
        }
        tmp = path.with_suffix(".tmp")
        torch.save(data, tmp)
        tmp.replace(path)
        return path

    def load(self, path: str | Path) -> None:
        """Restore model, optimizer, counters and RNG states from a checkpoint."""
        data = torch.load(path, map_location="cpu", weights_only=False)
        self.model.load_state_dict(data["model"])
        self.ppo.optimizer.load_state_dict(data["optimizer"])
        self.iteration = int(data["iteration"])
        self.env_steps = int(data["env_steps"])
        self.wall_time_s = float(data["wall_time_s"])
        self.timing.update(data.get("timing", {}))
        self.best_eval = float(data.get("best_eval", -1.0))
        self.evaluations = list(data.get("evaluations", []))
        self.solved = data.get("solved")
        torch.set_rng_state(data["torch_rng"])
        np.random.set_state(data["numpy_rng"])
        logger.info(
            "resumed from %s at update %d, %d env steps", path, self.iteration, self.env_steps
        )

    def checkpoint(self) -> Path:
        return self.save(self.run_dir / CHECKPOINT_DIR / f"model_{self.iteration:06d}.pt")

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, episodes: int) -> EvalResult | None:
        """Deterministic policy over the fixed seeded episode set in the eval backend."""
        rc = self.cfg.runner
        if self._eval_disabled or episodes <= 0:
            return None
        if self._eval_env is None:
            try:
                options = env_options(
                    self.cfg, rc.eval_backend, rc.eval_num_envs, evaluation_task_config(self.cfg)
                )
                self._eval_env = sims.make_env(
                    self.cfg.task,
                    rc.eval_backend,
                    num_envs=rc.eval_num_envs,
                    dense_reward=self.cfg.env.dense_reward,
                    **options,
                )
            except Exception as exc:  # noqa: BLE001 - a missing backend must not stop training
                logger.warning(
                    "physics evaluation disabled: cannot build the %s env (%s)",
                    rc.eval_backend,
                    exc,
                )
                self._eval_disabled = True
                return None
        start = time.perf_counter()
        self.model.eval()
        result = run_episodes(self._eval_env, torch_policy_fn(self.model), episodes, rc.eval_seed)
        result.backend = rc.eval_backend
        self.timing["eval_s"] += time.perf_counter() - start
        return result

    def close(self) -> None:
        if self._eval_env is not None:
            self._eval_env.close()
            self._eval_env = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    # ------------------------------------------------------------------ training
    def _scalar(self, tag: str, value: float) -> None:
        if self._writer is not None:
            self._writer.add_scalar(tag, value, self.env_steps)

    def _record_eval(self, result: EvalResult, kind: str) -> None:
        entry = {
            "kind": kind,
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": round(self.wall_time_s, 3),
            **result.to_dict(),
        }
        self.evaluations.append(entry)
        self._scalar(f"eval/{kind}_success_rate", result.success)
        self._scalar(f"eval/{kind}_mean_return", result.mean_return)
        self._scalar(f"eval/{kind}_episode_length", result.mean_length)
        logger.info(
            "%s eval (%s, %d episodes) at %d steps: success %.3f [%.3f, %.3f], return %.2f",
            kind,
            result.backend,
            result.episodes,
            self.env_steps,
            result.success,
            result.ci95[0],
            result.ci95[1],
            result.mean_return,
        )

    def learn(self) -> dict[str, Any]:
        """Train until ``total_steps`` (or the target, with ``stop_at_target``); returns the
        summary also written to ``summary.json``."""
        cfg, rc = self.cfg, self.cfg.runner
        self.save_config()
        if rc.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(log_dir=str(self.run_dir / "tb"))
        model, env, storage = self.model, self.env, self.storage
        num_envs = env.num_envs
        gamma = cfg.ppo.gamma
        obs_np, _ = env.reset(seed=cfg.seed + 7919 * self.iteration)
        obs = torch.from_numpy(np.asarray(obs_np, dtype=np.float32))
        ep_return = np.zeros(num_envs)
        ep_length = np.zeros(num_envs, dtype=np.int64)
        recent_success: deque[float] = deque(maxlen=rc.success_window)
        recent_return: deque[float] = deque(maxlen=rc.success_window)
        recent_length: deque[float] = deque(maxlen=rc.success_window)
        since_eval = 0
        trigger_cooldown = 3  # updates; doubles after each triggered eval physics refutes
        stopped_at_target = False
        bar = None
        if rc.progress:
            from tqdm import tqdm

            bar = tqdm(
                total=rc.total_steps,
                initial=min(self.env_steps, rc.total_steps),
                unit="step",
                unit_scale=True,
                dynamic_ncols=True,
                mininterval=0.5,
                desc=f"{cfg.task}/{cfg.backend}",
            )
        try:
            while self.env_steps < rc.total_steps and not stopped_at_target:
                if 0 < rc.time_limit_s <= self.wall_time_s:
                    logger.info(
                        "time limit of %.0f s reached at %d env steps",
                        rc.time_limit_s,
                        self.env_steps,
                    )
                    break
                iter_start = time.perf_counter()
                model.train()
                env_s = policy_s = 0.0
                with torch.no_grad():
                    for _ in range(rc.rollout_steps):
                        t0 = time.perf_counter()
                        actions, log_probs, values = model.act(obs)
                        t1 = time.perf_counter()
                        next_obs, reward, terminated, truncated, info = env.step(actions.numpy())
                        t2 = time.perf_counter()
                        reward = np.asarray(reward, dtype=np.float32)
                        terminated = np.asarray(terminated, dtype=bool)
                        truncated = np.asarray(truncated, dtype=bool)
                        ep_return += reward
                        ep_length += 1
                        bootstrap = truncated & ~terminated
                        if bootstrap.any():
                            final = torch.from_numpy(
                                np.asarray(info["final_obs"][bootstrap], dtype=np.float32)
                            )
                            reward = reward.copy()
                            reward[bootstrap] += gamma * model.value(final).numpy()
                        done = terminated | truncated
                        storage.add(obs, actions, log_probs, values, reward, done)
                        for i in np.flatnonzero(done):
                            recent_success.append(float(terminated[i]))
                            recent_return.append(float(ep_return[i]))
                            recent_length.append(float(ep_length[i]))
                        ep_return[done] = 0.0
                        ep_length[done] = 0
                        obs = torch.from_numpy(np.asarray(next_obs, dtype=np.float32))
                        policy_s += (t1 - t0) + (time.perf_counter() - t2)
                        env_s += t2 - t1
                    last_values = model.value(obs)
                t_update = time.perf_counter()
                storage.compute_returns(last_values, gamma, cfg.ppo.gae_lambda)
                if cfg.ppo.lr_schedule == "linear":
                    frac = min(1.0, self.env_steps / max(1, rc.total_steps))
                    self.ppo.set_learning_rate(cfg.ppo.learning_rate * (1.0 - 0.9 * frac))
                stats = self.ppo.update(storage)
                if model.normalizer is not None:
                    model.normalizer.update(storage.obs)
                storage.clear()
                update_s = time.perf_counter() - t_update
                steps = rc.rollout_steps * num_envs
                self.env_steps += steps
                self.iteration += 1
                since_eval += 1
                self.timing["env_s"] += env_s
                self.timing["policy_s"] += policy_s
                self.timing["update_s"] += update_s
                iter_s = time.perf_counter() - iter_start
                self.wall_time_s += iter_s
                train_success = float(np.mean(recent_success)) if recent_success else 0.0
                train_return = float(np.mean(recent_return)) if recent_return else 0.0
                # ---- logging
                for key, value in stats.items():
                    group = "loss" if key.endswith("loss") else "policy"
                    self._scalar(f"{group}/{key}", value)
                self._scalar("train/success_rate", train_success)
                self._scalar("train/episode_return", train_return)
                if recent_length:
                    self._scalar("train/episode_length", float(np.mean(recent_length)))
                self._scalar("perf/env_steps_per_s", steps / max(iter_s, 1e-9))
                self._scalar("perf/rollout_env_s", env_s)
                self._scalar("perf/rollout_policy_s", policy_s)
                self._scalar("perf/update_s", update_s)
                # ---- evaluation in physics
                periodic = rc.eval_every > 0 and self.iteration % rc.eval_every == 0
                # Training success at the target, and physics has not confirmed it yet:
                # evaluate now rather than at the next periodic evaluation.
                confirmed = bool(self.evaluations) and (
                    self.evaluations[-1]["success"] >= rc.target_success
                )
                triggered = (
                    rc.eval_on_train_success
                    and not confirmed
                    and self.env_steps >= num_envs * self.env.cfg.episode_steps
                    and train_success >= rc.target_success
                    and since_eval >= trigger_cooldown
                )
                if (periodic or triggered) and not self._eval_disabled:
                    t_eval = time.perf_counter()
                    result = self.evaluate(rc.eval_episodes)
                    self.wall_time_s += time.perf_counter() - t_eval
                    since_eval = 0
                    if result is not None:
                        self._record_eval(result, "periodic")
                        if triggered and result.success < rc.target_success:
                            trigger_cooldown = min(
                                2 * trigger_cooldown, max(3, rc.eval_every or 3)
                            )
                        if result.success >= self.best_eval:
                            self.best_eval = result.success
                            self.save(self.run_dir / CHECKPOINT_DIR / "best.pt")
                        if result.success >= rc.target_success and self.solved is None:
                            self.solved = {
                                "env_steps": self.env_steps,
                                "wall_time_s": round(self.wall_time_s, 3),
                                "iteration": self.iteration,
                                "success": result.success,
                                "episodes": result.episodes,
                            }
                        if rc.stop_at_target and result.success >= rc.target_success:
                            stopped_at_target = True
                if self.iteration % max(1, rc.checkpoint_every) == 0:
                    self.checkpoint()
                if bar is not None:
                    bar.update(min(steps, max(0, rc.total_steps - bar.n)))
                    postfix = {
                        "succ": f"{train_success:.3f}",
                        "ret": f"{train_return:.2f}",
                        "kl": f"{stats['approx_kl']:.4f}",
                    }
                    if self.evaluations:
                        postfix["eval"] = f"{self.evaluations[-1]['success']:.3f}"
                    bar.set_postfix(postfix, refresh=False)
        finally:
            if bar is not None:
                bar.close()
        self.checkpoint()
        final = None
        if rc.final_eval_episodes > 0:
            t_eval = time.perf_counter()
            final = self.evaluate(rc.final_eval_episodes)
            self.wall_time_s += time.perf_counter() - t_eval
            if final is not None:
                self._record_eval(final, "final")
                if final.episodes >= rc.eval_episodes and final.success >= self.best_eval:
                    self.best_eval = final.success
                    self.save(self.run_dir / CHECKPOINT_DIR / "best.pt")
        summary = {
            "task": cfg.task,
            "backend": cfg.backend,
            "seed": cfg.seed,
            "num_envs": num_envs,
            "iterations": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": round(self.wall_time_s, 3),
            "timing_s": {k: round(v, 3) for k, v in self.timing.items()},
            "train_success_rate": float(np.mean(recent_success)) if recent_success else None,
            "train_episode_return": float(np.mean(recent_return)) if recent_return else None,
            "stopped_at_target": stopped_at_target,
            "solved": self.solved,
            "final_eval": final.to_dict() if final is not None else None,
            "best_eval_success": self.best_eval if self.best_eval >= 0 else None,
            "evaluations": self.evaluations,
        }
        with open(self.run_dir / "summary.json", "w") as f:
            json.dump(summary, f, indent=2)
        if self._writer is not None:
            self._writer.flush()
        return summary
