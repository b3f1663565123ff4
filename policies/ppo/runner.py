"""The on-policy runner: rollouts on a batched backend, PPO updates, periodic evaluation in
physics (PyBullet by default), checkpoints, resume and the run's summary, as rsl_rl's
``OnPolicyRunner``. :meth:`OnPolicyRunner.learn` reads top to bottom; the parts it calls
live beside it:

- :mod:`policies.ppo.rollout`: one rollout, on a host env (numpy) or a tensor env on the
  torch device (``env_device``; :mod:`policies.ppo.device_envs`);
- :mod:`policies.ppo.algorithm` and :mod:`policies.ppo.storage`: the update and its buffer;
- :mod:`policies.ppo.physics_eval`: the evaluation env and its episodes;
  :class:`policies.ppo.progress.EvalSchedule`: when to evaluate;
- :mod:`policies.ppo.progress`: episode statistics, TensorBoard, the progress bar;
- :mod:`policies.ppo.record`: the run's counters and evaluations, which checkpoints keep;
- :mod:`policies.ppo.checkpoints`: the run directory's files (layout there);
- :mod:`policies.ppo.distributed`: what several processes share (``dist``); one process
  uses :class:`~policies.ppo.distributed.SingleProcess`, which shares nothing, so the
  runner has no branch of its own for it. Rank 0 alone writes.

``device`` is where the model, the storage and the update run; ``env_device`` (default:
``device`` for numba and isaac, :func:`policies.ppo.envs.resolve_env_device`) where the
envs step.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from policies.evaluation import EvalResult
from policies.ppo import checkpoints
from policies.ppo.algorithm import PPO
from policies.ppo.checkpoints import (  # noqa: F401 - re-exported: the public import path
    CHECKPOINT_DIR,
    latest_checkpoint,
    load_policy,
    torch_policy_fn,
)
from policies.ppo.config import TrainConfig
from policies.ppo.distributed import DistContext, SingleProcess
from policies.ppo.envs import (
    MotorFilterFactory,
    make_env,
    rank_seed,
    resolve_env_device,
    training_task_config,
)
from policies.ppo.networks import ActorCritic
from policies.ppo.physics_eval import PhysicsEvaluator
from policies.ppo.progress import EpisodeStats, EvalSchedule, TrainingLog
from policies.ppo.record import RunRecord
from policies.ppo.rollout import EnvBridge, collect_rollout
from policies.ppo.storage import RolloutStorage
from policies.provenance import seed_everything

logger = logging.getLogger(__name__)

RESET_SEED_STRIDE = 7919
"""Env reset seed = rank seed + this * update count (a resumed run reseeds alike)."""


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
        self.dist = dist if dist is not None else SingleProcess(torch.device(device))
        self.device = self.dist.device
        self.run_dir = Path(run_dir)
        if self.is_main:
            self.run_dir.mkdir(parents=True, exist_ok=True)
        self.meta = dict(meta or {})
        self.motor_filters = dict(motor_filters or {})
        torch.set_num_threads(max(1, cfg.runner.torch_threads))
        seed_everything(rank_seed(cfg.seed, self.dist.rank))
        rc = cfg.runner
        self.env_device = resolve_env_device(
            cfg.backend, env_device, str(self.device), self.dist.local_rank
        )
        if env is None:
            task_cfg = training_task_config(cfg)
            num_envs = self.dist.local_envs(rc.num_envs)
            env = make_env(
                cfg, cfg.backend, num_envs, task_cfg, self.motor_filters, self.env_device
            )
        self.env = env
        self.envs = EnvBridge(env, self.device)
        self.obs_dim = int(env.single_observation_space.shape[0])
        self.action_dim = int(env.single_action_space.shape[0])
        self.model = ActorCritic(self.obs_dim, self.action_dim, cfg.network).to(self.device)
        self.ppo = PPO(self.model, cfg.ppo, gradient_hook=self.dist.gradient_hook)
        self.storage = RolloutStorage(
            rc.rollout_steps, env.num_envs, self.obs_dim, self.action_dim, self.device
        )
        self.record = RunRecord()
        """Counters, time split and evaluations (checkpointed)."""
        self.stopped_at_target = False
        self.interrupted: dict[str, Any] | None = None
        """Set by an interrupted :meth:`learn`: ``reason`` and the ``checkpoint`` saved."""
        self.episodes = self._episode_stats()
        self.train_episodes = None
        """The latest training episode statistics the logs read (distributed: merged)."""
        log_rc = rc if self.is_main else dataclasses.replace(rc, progress=False, tensorboard=False)
        self.log = TrainingLog(log_rc, f"{cfg.task}/{cfg.backend}")
        self.evaluator = PhysicsEvaluator(cfg, self.motor_filters, self.dist)

    @property
    def iteration(self) -> int:
        return self.record.iteration

    @property
    def env_steps(self) -> int:
        return self.record.env_steps

    @property
    def wall_time_s(self) -> float:
        return self.record.wall_time_s

    @property
    def best_eval(self) -> float:
        return self.record.best_eval

    @property
    def is_main(self) -> bool:
        """Whether this process writes (rank 0, or the only process)."""
        return self.dist.rank == 0

    @property
    def device_envs(self) -> bool:
        """Whether the envs speak torch tensors (see :mod:`policies.ppo.rollout`)."""
        return self.envs.on_device

    @property
    def total_envs(self) -> int:
        """Envs over all ranks."""
        return self.env.num_envs * self.dist.world_size

    def _episode_stats(self) -> EpisodeStats:
        """Empty training episode statistics (on the envs' device for tensor envs)."""
        device = self.env.device if self.device_envs else None
        return EpisodeStats(self.env.num_envs, self.cfg.runner.success_window, device)

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
                self.dist.broadcast_module(self.model)  # rank 0's weights and normalizer
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
        iter_start = time.perf_counter()
        obs, last_values, env_s, policy_s = self._rollout(obs)
        t_update = time.perf_counter()
        stats = self._update(last_values)
        update_s = time.perf_counter() - t_update
        steps = self.cfg.runner.rollout_steps * self.total_envs
        self.record.count_update(steps, env_s, policy_s, update_s)
        episodes = self.train_episodes = self.dist.merge_episode_stats(self.episodes)
        iter_s = time.perf_counter() - iter_start
        self.record.wall_time_s += iter_s
        perf = {
            "env_steps_per_s": steps / max(iter_s, 1e-9),
            "rollout_env_s": env_s,
            "rollout_policy_s": policy_s,
            "update_s": update_s,
        }
        # the reward terms of this rank's envs (rank 0's are logged)
        terms = self.episodes.take_term_means()
        self.log.update(self.env_steps, stats, episodes, perf, terms)
        self._evaluate_if_due(schedule, episodes.success_rate)
        if self.iteration % max(1, self.cfg.runner.checkpoint_every) == 0:
            self.checkpoint()
        self.log.progress(steps, stats, episodes, self.record.last_success)
        return obs

    def _reset_envs(self) -> torch.Tensor:
        """Reset every env (seeded by the run's seed, rank and update count)."""
        return self.envs.reset(self._update_seed())

    def _update_seed(self) -> int:
        """The seed of the envs' reset (and of a resumed rank's generators) at this update."""
        return rank_seed(self.cfg.seed, self.dist.rank) + RESET_SEED_STRIDE * self.iteration

    def _time_limit_reached(self) -> bool:
        self.record.wall_time_s = self.dist.from_main(self.wall_time_s)  # rank 0's clock
        limit = self.cfg.runner.time_limit_s
        if 0 < limit <= self.wall_time_s:
            logger.info("time limit of %.0f s reached at %d env steps", limit, self.env_steps)
            return True
        return False

    def _rollout(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, float, float]:
        """:func:`policies.ppo.rollout.collect_rollout` of ``rollout_steps`` steps."""
        steps, gamma = self.cfg.runner.rollout_steps, self.cfg.ppo.gamma
        return collect_rollout(
            self.model, self.envs, self.storage, self.episodes, steps, gamma, obs
        )

    def _update(self, last_values: torch.Tensor) -> dict[str, float]:
        """Returns and advantages, the PPO update, the observation normalizer (distributed:
        every rank's moments, merged alike); the storage is emptied. Returns the update's
        statistics."""
        ppo_cfg, rc = self.cfg.ppo, self.cfg.runner
        self.storage.compute_returns(last_values, ppo_cfg.gamma, ppo_cfg.gae_lambda)
        if ppo_cfg.lr_schedule == "linear":
            frac = min(1.0, self.env_steps / max(1, rc.total_steps))
            self.ppo.set_learning_rate(ppo_cfg.learning_rate * (1.0 - 0.9 * frac))
        stats = self.ppo.update(self.storage)
        if self.model.normalizer is not None:
            self.dist.merge_normalizer(self.model.normalizer, self.storage.obs)
        self.storage.clear()
        return stats

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, episodes: int) -> EvalResult | None:
        """Deterministic policy over the fixed seeded episode set in the eval backend
        (:class:`~policies.ppo.physics_eval.PhysicsEvaluator`); None when evaluation is off."""
        return self.evaluator.evaluate(self.model, episodes, self.record.timing)

    def _timed_evaluate(self, episodes: int) -> EvalResult | None:
        """:meth:`evaluate`, its time counted in the run's wall time."""
        start = time.perf_counter()
        result = self.evaluate(episodes)
        self.record.wall_time_s += time.perf_counter() - start
        return result

    def _evaluate_if_due(self, schedule: EvalSchedule, train_success: float | None) -> None:
        """The periodic (or ``train_success`` triggered) physics evaluation: recorded, kept
        as ``best.pt`` when best so far, and the run marked solved (and stopped, with
        ``stop_at_target``) at the target."""
        rc = self.cfg.runner
        last = self.record.last_success
        confirmed = last is not None and last >= rc.target_success
        due = schedule.due(self.iteration, self.env_steps, train_success or 0.0, confirmed)
        periodic, triggered = due
        if not (periodic or triggered) or self.evaluator.disabled:
            return
        result = self._timed_evaluate(rc.eval_episodes)
        schedule.evaluated(triggered, result)
        if result is None:
            return
        self._record_eval(result, "periodic")
        self._keep_if_best(result)
        if result.success >= rc.target_success:
            self.record.mark_solved(result)
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
        if self.record.improves(result):
            self.save(checkpoints.best_checkpoint_path(self.run_dir))

    def _record_eval(self, result: EvalResult, kind: str) -> None:
        self.log.evaluation(self.record.add_evaluation(result, kind), result)

    # ------------------------------------------------------------------ persistence
    def save_config(self) -> None:
        """``config.yaml`` and ``meta.yaml`` (rank 0)."""
        if self.is_main:
            checkpoints.write_run_config(self.run_dir, self.cfg, self.meta)

    def save(self, path: str | Path) -> Path:
        """Write a checkpoint to ``path`` (distributed: rank 0 only; the path either way)."""
        return checkpoints.save_runner(self, path) if self.is_main else Path(path)

    def load(self, path: str | Path) -> None:
        """Restore model, optimizer, counters and RNG states from a checkpoint (distributed:
        every rank loads the same file; ranks other than 0 then reseed their generators
        with their rank seed and the update count)."""
        checkpoints.restore_runner(self, checkpoints.read_checkpoint(path))
        if not self.is_main:
            seed_everything(self._update_seed())
        logger.info(
            "resumed from %s at update %d, %d env steps", path, self.iteration, self.env_steps
        )

    def checkpoint(self) -> Path:
        return self.save(checkpoints.checkpoint_path(self.run_dir, self.iteration))

    def _write_summary(
        self, final: EvalResult | None, interrupted: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Write ``summary.json`` (:func:`policies.ppo.checkpoints.run_summary`) and return
        it. ``interrupted``: None for a run that ended normally, else what stopped it
        (``reason``) and the checkpoint saved then."""
        summary = checkpoints.run_summary(self, final, interrupted)
        if self.is_main:
            checkpoints.write_summary(self.run_dir, summary)
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
        self.evaluator.close()
        self.log.close()
