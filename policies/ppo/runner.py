"""The on-policy runner: rollouts on a batched backend, PPO updates, logging, checkpoints,
resume and periodic evaluation in physics (PyBullet by default).

Run directory layout::

    RUN_DIR/config.yaml         the whole TrainConfig
    RUN_DIR/meta.yaml           command, git commit, start time, version
    RUN_DIR/checkpoints/model_000050.pt, ...   (and best.pt: the best physics evaluation)
    RUN_DIR/tb/                 TensorBoard scalars
    RUN_DIR/summary.json        wall time, env steps, time split, evaluations (also
                                written, marked ``interrupted``, when Ctrl-C or an
                                error stops the run)

On several processes (``dist``, :mod:`policies.ppo.distributed`) the same loop runs on
every rank; the hooks marked "distributed" below share what must agree, and rank 0 alone
writes. ``device`` puts the model, the rollout storage, the update and the policy of the
rollouts there; ``env_device`` (default: ``device`` for numba and isaac,
:func:`policies.ppo.envs.resolve_env_device`) is where the envs step. numba on a GPU is the
GPU-resident env of :mod:`policies.ppo.device_envs`: observations, rewards and dones stay
tensors on the device through the rollout (:meth:`OnPolicyRunner._device_step`; the
episode statistics are read to the host once per update, the actions checked for
non-finite entries once per rollout). :meth:`OnPolicyRunner._to_torch` and
:meth:`OnPolicyRunner._to_env` convert between the torch device and the env's.

One class of ~590 lines: the loop, the evaluations and the persistence share the run's
counters (as rsl_rl's runner does); reporting lives in :mod:`policies.ppo.progress`, the
collectives in :mod:`policies.ppo.distributed`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from policies.evaluation import EvalResult, run_episodes
from policies.ppo.algorithm import PPO
from policies.ppo.config import TrainConfig
from policies.ppo.distributed import DistContext
from policies.ppo.envs import (
    MotorFilterFactory,
    evaluation_task_config,
    make_env,
    rank_seed,
    resolve_env_device,
    training_task_config,
)
from policies.ppo.networks import ActorCritic
from policies.ppo.progress import EpisodeStats, EvalSchedule, TrainingLog
from policies.ppo.storage import RolloutStorage
from policies.provenance import seed_everything

logger = logging.getLogger(__name__)

CHECKPOINT_DIR = "checkpoints"


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

    device = next(model.parameters()).device

    def policy(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            obs_t = torch.from_numpy(np.asarray(obs, dtype=np.float32)).to(device)
            return model.act_deterministic(obs_t).cpu().numpy()

    return policy


class OnPolicyRunner:
    """Trains ``cfg.task`` with PPO into ``run_dir``; see the module docstring.

    ``motor_filters``: the factories of the motor filters a config may name in
    ``env.motor_filter`` (see :mod:`policies.ppo.envs`), injected by the layer that owns
    them (``miles train``: the safety supervisor).

    ``dist``: this process's rank in a distributed run (None: one process); ``rc.num_envs``
    is then the total and each rank steps its share. ``device``: where the model and the
    update run (``dist.device`` in a distributed run). ``env_device``: where the envs step
    (see the module docstring; ``cuda`` on a rank is its ``cuda:LOCAL_RANK``)."""

    def __init__(
        self,
        cfg: TrainConfig,
        run_dir: str | Path,
        env=None,
        meta: dict[str, Any] | None = None,
        motor_filters: Mapping[str, MotorFilterFactory] | None = None,
        dist: DistContext | None = None,
        device: str | torch.device = "cpu",
        env_device: str | None = None,
    ):
        self.cfg = cfg
        self.dist = dist
        self.rank = dist.rank if dist is not None else 0
        self.world_size = dist.world_size if dist is not None else 1
        self.device = dist.device if dist is not None else torch.device(device)
        self.run_dir = Path(run_dir)
        if self.is_main:
            self.run_dir.mkdir(parents=True, exist_ok=True)
        self.meta = dict(meta or {})
        self.motor_filters = dict(motor_filters or {})
        torch.set_num_threads(max(1, cfg.runner.torch_threads))
        seed_everything(rank_seed(cfg.seed, self.rank))
        rc = cfg.runner
        local_rank = dist.local_rank if dist is not None else None
        self.env_device = resolve_env_device(cfg.backend, env_device, str(self.device), local_rank)
        if env is None:
            num_envs = dist.local_envs(rc.num_envs) if dist is not None else rc.num_envs
            env = make_env(
                cfg,
                cfg.backend,
                num_envs,
                training_task_config(cfg),
                self.motor_filters,
                self.env_device,
            )
        self.env = env
        self.obs_dim = int(self.env.single_observation_space.shape[0])
        self.action_dim = int(self.env.single_action_space.shape[0])
        self.model = ActorCritic(self.obs_dim, self.action_dim, cfg.network).to(self.device)
        hook = dist.average_gradients if dist is not None else None
        self.ppo = PPO(self.model, cfg.ppo, gradient_hook=hook)
        self.storage = RolloutStorage(
            rc.rollout_steps, self.env.num_envs, self.obs_dim, self.action_dim, self.device
        )
        self.iteration = 0
        self.env_steps = 0
        self.wall_time_s = 0.0
        self.timing = {"env_s": 0.0, "policy_s": 0.0, "update_s": 0.0, "eval_s": 0.0}
        self.best_eval = -1.0
        self.evaluations: list[dict[str, Any]] = []
        self.solved: dict[str, Any] | None = None
        self.stopped_at_target = False
        self.interrupted: dict[str, Any] | None = None
        """Set by an interrupted :meth:`learn`: ``reason`` and the ``checkpoint`` saved."""
        self.episodes = self._episode_stats()
        self.train_episodes = None
        """The latest training episode statistics the logs read (distributed: merged)."""
        log_rc = rc if self.is_main else dataclasses.replace(rc, progress=False, tensorboard=False)
        self.log = TrainingLog(log_rc, f"{cfg.task}/{cfg.backend}")
        self._eval_env = None
        self._eval_disabled = False

    @property
    def is_main(self) -> bool:
        """Whether this process writes (rank 0, or the only process)."""
        return self.rank == 0

    @property
    def device_envs(self) -> bool:
        """Whether the envs speak torch tensors (``device`` a torch device: GPU-resident,
        :class:`policies.ppo.device_envs.TorchDeviceEnv`)."""
        return isinstance(getattr(self.env, "device", None), torch.device)

    def _episode_stats(self) -> EpisodeStats:
        """Empty training episode statistics (on the envs' device for tensor envs)."""
        device = self.env.device if self.device_envs else None
        return EpisodeStats(self.env.num_envs, self.cfg.runner.success_window, device)

    @property
    def total_envs(self) -> int:
        """Envs over all ranks."""
        return self.env.num_envs * self.world_size

    # ------------------------------------------------------------------ training
    def learn(self) -> dict[str, Any]:
        """Train until ``total_steps`` (or the target, with ``stop_at_target``, or the time
        limit); returns the summary also written to ``summary.json``. Interrupted (Ctrl-C,
        an error), it saves a checkpoint and writes ``summary.json`` marked ``interrupted``
        before the exception goes on (:meth:`_write_interrupted`)."""
        rc = self.cfg.runner
        self.save_config()
        self.log.open(self.run_dir, self.env_steps)
        self.episodes = self._episode_stats()
        self.train_episodes = None
        schedule = EvalSchedule(rc, self.total_envs * self.env.cfg.episode_steps)
        self.stopped_at_target = False
        try:
            try:
                if self.dist is not None:  # distributed: rank 0's weights and normalizer
                    self.dist.broadcast_module(self.model)
                obs = self._reset_envs()
                while self.env_steps < rc.total_steps and not self.stopped_at_target:
                    if self._time_limit_reached():
                        break
                    obs = self._train_one_update(obs, schedule)
            finally:
                self.log.close_progress()
            self.checkpoint()
            final = self._final_evaluation()
        except BaseException as exc:  # Ctrl-C or an error: keep what was learnt
            self._write_interrupted(exc)
            raise
        return self._write_summary(final)

    def _train_one_update(self, obs: torch.Tensor, schedule: EvalSchedule) -> torch.Tensor:
        """One rollout and PPO update, its logs, a due evaluation and checkpoint; returns
        the next observations."""
        rc = self.cfg.runner
        iter_start = time.perf_counter()
        obs, last_values, env_s, policy_s = self._rollout(obs)
        t_update = time.perf_counter()
        stats = self._update(last_values)
        update_s = time.perf_counter() - t_update
        steps = self._count_update(env_s, policy_s, update_s)
        episodes = self.train_episodes = self._episode_view()
        iter_s = time.perf_counter() - iter_start
        self.wall_time_s += iter_s
        perf = {
            "env_steps_per_s": steps / max(iter_s, 1e-9),
            "rollout_env_s": env_s,
            "rollout_policy_s": policy_s,
            "update_s": update_s,
        }
        self.log.update(self.env_steps, stats, episodes, perf)
        self._evaluate_if_due(schedule, episodes.success_rate)
        if self.iteration % max(1, rc.checkpoint_every) == 0:
            self.checkpoint()
        self.log.progress(steps, stats, episodes, self._last_eval_success())
        return obs

    def _episode_view(self):
        """The training episode statistics the logs and the evaluation trigger read
        (distributed: merged over ranks)."""
        if self.dist is None:
            return self.episodes
        return self.dist.merge_episode_stats(self.episodes)

    def _reset_envs(self) -> torch.Tensor:
        """Reset every env (seeded by the run's seed, rank and update count)."""
        seed = rank_seed(self.cfg.seed, self.rank) + 7919 * self.iteration
        if self.device_envs:  # TorchDeviceEnv.reset returns the observations alone
            return self._to_torch(self.env.reset(seed=seed))
        obs, _ = self.env.reset(seed=seed)
        return self._to_torch(obs)

    def _to_torch(self, array) -> torch.Tensor:
        """An env's observations as a float32 tensor on :attr:`device` (the GPU-env hook:
        an array on the GPU exposing ``__cuda_array_interface__`` is taken without a host
        copy)."""
        return torch.as_tensor(array, dtype=torch.float32, device=self.device)

    def _to_env(self, actions: torch.Tensor):
        """Actions as the env takes them: a tensor on the env's device for an env whose
        ``device`` is a torch device (:attr:`device_envs`; no copy where that is
        :attr:`device`), else a host numpy array."""
        if self.device_envs:
            return actions.to(self.env.device)
        return actions.cpu().numpy()

    def _time_limit_reached(self) -> bool:
        if self.dist is not None:  # distributed: every rank reads rank 0's clock
            self.wall_time_s = self.dist.from_main(self.wall_time_s)
        limit = self.cfg.runner.time_limit_s
        if 0 < limit <= self.wall_time_s:
            logger.info("time limit of %.0f s reached at %d env steps", limit, self.env_steps)
            return True
        return False

    def _rollout(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, float, float]:
        """``rollout_steps`` steps of every env into the storage (time-outs bootstrapped with
        the value of the final observation). Returns the next observations, their values,
        and the seconds spent in the env and in the policy."""
        model, env, storage = self.model, self.env, self.storage
        model.train()
        env_s = policy_s = 0.0
        finite = torch.ones((), dtype=torch.bool, device=self.device)
        with torch.no_grad():
            for _ in range(self.cfg.runner.rollout_steps):
                t0 = time.perf_counter()
                actions, log_probs, values = model.act(obs)
                t1 = time.perf_counter()
                next_obs, reward, terminated, truncated, info = env.step(self._to_env(actions))
                t2 = time.perf_counter()
                if self.device_envs:
                    finite &= torch.isfinite(actions).all()
                    reward, done = self._device_step(reward, terminated, truncated, info)
                else:
                    reward, done = self._host_step(reward, terminated, truncated, info)
                storage.add(obs, actions, log_probs, values, reward, done)
                obs = self._to_torch(next_obs)
                policy_s += (t1 - t0) + (time.perf_counter() - t2)
                env_s += t2 - t1
            last_values = model.value(obs)
        if self.device_envs and not bool(finite):  # one read per rollout
            raise FloatingPointError("the policy produced non-finite actions in this rollout")
        return obs, last_values, env_s, policy_s

    def _host_step(self, reward, terminated, truncated, info) -> tuple[np.ndarray, np.ndarray]:
        """A host env's step outcome into the episode statistics; returns the rewards to
        store (time-outs bootstrapped with ``gamma * V(final obs)``) and the dones."""
        reward = np.asarray(reward, dtype=np.float32)
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        done = terminated | truncated
        self.episodes.step(reward, terminated, done)
        bootstrap = truncated & ~terminated
        if bootstrap.any():
            final = self._to_torch(np.asarray(info["final_obs"][bootstrap]))
            reward = reward.copy()
            reward[bootstrap] += self.cfg.ppo.gamma * self.model.value(final).cpu().numpy()
        return reward, done

    def _device_step(self, reward, terminated, truncated, info):
        """:meth:`_host_step` for tensor envs, without a host copy or synchronization: the
        bootstrap values are computed for every env and kept where an episode timed out."""
        reward = reward.to(torch.float32)
        done = terminated | truncated
        self.episodes.step(reward, terminated, done)
        bootstrap = (truncated & ~terminated).to(self.device)
        final_values = self.model.value(self._to_torch(info["final_obs"]))
        reward = self._to_torch(reward)
        reward = torch.where(bootstrap, reward + self.cfg.ppo.gamma * final_values, reward)
        return reward, done

    def _update(self, last_values: torch.Tensor) -> dict[str, float]:
        """Returns and advantages, the PPO update, the observation normalizer; the storage
        is emptied. Returns the update's statistics."""
        ppo_cfg, rc = self.cfg.ppo, self.cfg.runner
        self.storage.compute_returns(last_values, ppo_cfg.gamma, ppo_cfg.gae_lambda)
        if ppo_cfg.lr_schedule == "linear":
            frac = min(1.0, self.env_steps / max(1, rc.total_steps))
            self.ppo.set_learning_rate(ppo_cfg.learning_rate * (1.0 - 0.9 * frac))
        stats = self.ppo.update(self.storage)
        if self.model.normalizer is not None:
            if self.dist is not None:  # distributed: every rank's moments, merged alike
                self.dist.merge_normalizer(self.model.normalizer, self.storage.obs)
            else:
                self.model.normalizer.update(self.storage.obs)
        self.storage.clear()
        return stats

    def _count_update(self, env_s: float, policy_s: float, update_s: float) -> int:
        """Advance the counters and the time split by one update; returns its env steps."""
        steps = self.cfg.runner.rollout_steps * self.total_envs
        self.env_steps += steps
        self.iteration += 1
        self.timing["env_s"] += env_s
        self.timing["policy_s"] += policy_s
        self.timing["update_s"] += update_s
        return steps

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, episodes: int) -> EvalResult | None:
        """Deterministic policy over the fixed seeded episode set in the eval backend
        (distributed: each rank runs its share, every rank gets the merged result)."""
        rc = self.cfg.runner
        if self._eval_disabled or episodes <= 0:
            return None
        if self._eval_env is None:
            try:
                self._eval_env = make_env(
                    self.cfg,
                    rc.eval_backend,
                    rc.eval_num_envs,
                    evaluation_task_config(self.cfg),
                    self.motor_filters,
                )
            except Exception as exc:  # noqa: BLE001 - a missing backend must not stop training
                logger.warning(
                    "physics evaluation disabled: cannot build the %s env (%s)",
                    rc.eval_backend,
                    exc,
                )
                self._eval_disabled = True
            if self.dist is not None and not self.dist.all_true(not self._eval_disabled):
                self._eval_disabled = True  # distributed: off everywhere when off anywhere
            if self._eval_disabled:
                return None
        start = time.perf_counter()
        self.model.eval()
        policy = torch_policy_fn(self.model)
        if self.dist is None:
            result = run_episodes(self._eval_env, policy, episodes, rc.eval_seed)
        else:  # distributed: this rank's share, then every rank's outcomes
            share = self.dist.episode_share(episodes)
            seed = self.dist.eval_seed(rc.eval_seed)
            part = run_episodes(self._eval_env, policy, share, seed) if share else None
            result = self.dist.gather_eval(part, rc.eval_seed)
        result.backend = rc.eval_backend
        self.timing["eval_s"] += time.perf_counter() - start
        return result

    def _timed_evaluate(self, episodes: int) -> EvalResult | None:
        """:meth:`evaluate`, its time counted in the run's wall time."""
        start = time.perf_counter()
        result = self.evaluate(episodes)
        self.wall_time_s += time.perf_counter() - start
        return result

    def _evaluate_if_due(self, schedule: EvalSchedule, train_success: float | None) -> None:
        """The periodic (or ``train_success`` triggered) physics evaluation: recorded, kept
        as ``best.pt`` when best so far, and the run marked solved (and stopped, with
        ``stop_at_target``) at the target."""
        rc = self.cfg.runner
        last = self._last_eval_success()
        confirmed = last is not None and last >= rc.target_success
        train_success = train_success or 0.0
        periodic, triggered = schedule.due(
            self.iteration, self.env_steps, train_success, confirmed
        )
        if not (periodic or triggered) or self._eval_disabled:
            return
        result = self._timed_evaluate(rc.eval_episodes)
        schedule.evaluated(triggered, result)
        if result is None:
            return
        self._record_eval(result, "periodic")
        self._keep_if_best(result)
        if result.success >= rc.target_success:
            if self.solved is None:
                self.solved = {
                    "env_steps": self.env_steps,
                    "wall_time_s": round(self.wall_time_s, 3),
                    "iteration": self.iteration,
                    "success": result.success,
                    "episodes": result.episodes,
                }
            if rc.stop_at_target:
                self.stopped_at_target = True

    def _final_evaluation(self) -> EvalResult | None:
        """The final evaluation (``final_eval_episodes``), kept as best when it is at least
        as large as a periodic one and as good as the best."""
        rc = self.cfg.runner
        if rc.final_eval_episodes <= 0:
            return None
        final = self._timed_evaluate(rc.final_eval_episodes)
        if final is not None:
            self._record_eval(final, "final")
            if final.episodes >= rc.eval_episodes:
                self._keep_if_best(final)
        return final

    def _keep_if_best(self, result: EvalResult) -> None:
        if result.success >= self.best_eval:
            self.best_eval = result.success
            self.save(self.run_dir / CHECKPOINT_DIR / "best.pt")

    def _last_eval_success(self) -> float | None:
        return self.evaluations[-1]["success"] if self.evaluations else None

    def _record_eval(self, result: EvalResult, kind: str) -> None:
        entry = {
            "kind": kind,
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": round(self.wall_time_s, 3),
            **result.to_dict(),
        }
        self.evaluations.append(entry)
        self.log.evaluation(entry, result)

    # ------------------------------------------------------------------ persistence
    def save_config(self) -> None:
        if not self.is_main:
            return
        with open(self.run_dir / "config.yaml", "w") as f:
            yaml.safe_dump(self.cfg.to_dict(), f, sort_keys=False)
        if self.meta:
            with open(self.run_dir / "meta.yaml", "w") as f:
                yaml.safe_dump(self.meta, f, sort_keys=False)

    def save(self, path: str | Path) -> Path:
        """Write a checkpoint to ``path`` (distributed: rank 0 only; the path either way)."""
        path = Path(path)
        if not self.is_main:
            return path
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
        """Restore model, optimizer, counters and RNG states from a checkpoint (distributed:
        every rank loads the same file; ranks other than 0 then reseed their generators
        with their rank seed and the update count)."""
        data = torch.load(path, map_location="cpu", weights_only=False)
        self.model.load_state_dict(data["model"])
        self.ppo.optimizer.load_state_dict(data["optimizer"])
        self.ppo.set_learning_rate(self.ppo.optimizer.lr)
        self.iteration = int(data["iteration"])
        self.env_steps = int(data["env_steps"])
        self.wall_time_s = float(data["wall_time_s"])
        self.timing.update(data.get("timing", {}))
        self.best_eval = float(data.get("best_eval", -1.0))
        self.evaluations = list(data.get("evaluations", []))
        self.solved = data.get("solved")
        torch.set_rng_state(data["torch_rng"])
        np.random.set_state(data["numpy_rng"])
        if not self.is_main:
            seed_everything(rank_seed(self.cfg.seed, self.rank) + 7919 * self.iteration)
        logger.info(
            "resumed from %s at update %d, %d env steps", path, self.iteration, self.env_steps
        )

    def checkpoint(self) -> Path:
        return self.save(self.run_dir / CHECKPOINT_DIR / f"model_{self.iteration:06d}.pt")

    def _write_summary(
        self, final: EvalResult | None, interrupted: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Write ``summary.json`` and return it. ``interrupted``: None for a run that ended
        normally, else what stopped it (``reason``) and the checkpoint saved then."""
        cfg, episodes = self.cfg, self.train_episodes or self.episodes
        summary = {
            "task": cfg.task,
            "backend": cfg.backend,
            "seed": cfg.seed,
            "num_envs": self.total_envs,
            "ranks": self.world_size,
            "device": str(self.device),
            "env_device": self.env_device,
            "iterations": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": round(self.wall_time_s, 3),
            "timing_s": {k: round(v, 3) for k, v in self.timing.items()},
            "train_success_rate": episodes.success_rate,
            "train_episode_return": episodes.mean_return,
            "stopped_at_target": self.stopped_at_target,
            "solved": self.solved,
            "final_eval": final.to_dict() if final is not None else None,
            "best_eval_success": self.best_eval if self.best_eval >= 0 else None,
            "evaluations": self.evaluations,
            "interrupted": interrupted,
        }
        if self.is_main:
            with open(self.run_dir / "summary.json", "w") as f:
                json.dump(summary, f, indent=2)
        self.log.flush()
        return summary

    def _write_interrupted(self, exc: BaseException) -> None:
        """On the way out of an interrupted :meth:`learn`: the last checkpoint and
        ``summary.json`` with ``interrupted: {reason, checkpoint}`` (kept in
        :attr:`interrupted`). Never raises over ``exc``: a failure here is logged."""
        reason = "KeyboardInterrupt" if isinstance(exc, KeyboardInterrupt) else repr(exc)
        self.interrupted = {"reason": reason, "checkpoint": None}
        try:
            self.interrupted["checkpoint"] = str(self.checkpoint())
            self._write_summary(None, self.interrupted)
        except Exception:  # noqa: BLE001 - the original exception matters more
            logger.exception("could not save the interrupted run in %s", self.run_dir)

    def close(self) -> None:
        if self._eval_env is not None:
            self._eval_env.close()
            self._eval_env = None
        self.log.close()
