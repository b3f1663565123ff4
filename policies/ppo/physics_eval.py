"""The runner's evaluation in physics: the deterministic policy over the fixed seeded episode
set of ``runner.eval_seed`` in the evaluation backend (PyBullet by default), its env built
on first use. A backend that cannot be built turns evaluation off (on every rank of a
distributed run) with a warning instead of stopping training. On several ranks each runs
its share of the episodes and every rank gets the merged result
(:mod:`policies.ppo.distributed`). When to evaluate is :class:`policies.ppo.progress.
EvalSchedule`'s call; what the runner keeps of a result is the runner's.

A run that trains a share of its episodes on the plain arm (``env.plain_arm_prob``, past
its command-path model) is evaluated on both arms in that proportion: the same share of
the episodes runs in a second env without the model, so its checkpoints are ranked by
the arms they were trained for.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping

from policies.evaluation import EvalResult, merge_results, run_episodes
from policies.ppo.checkpoints import torch_policy_fn
from policies.ppo.config import TrainConfig
from policies.ppo.env_options import plain_arm_randomization
from policies.ppo.envs import MotorFilterFactory, evaluation_task_config, make_env
from policies.ppo.networks import ActorCritic

logger = logging.getLogger(__name__)


class PhysicsEvaluator:
    """Evaluates a training run's policy (see the module docstring). ``dist``: a
    :class:`~policies.ppo.distributed.DistContext` or
    :class:`~policies.ppo.distributed.SingleProcess`."""

    def __init__(
        self, cfg: TrainConfig, motor_filters: Mapping[str, MotorFilterFactory], dist
    ) -> None:
        self.cfg = cfg
        self.motor_filters = motor_filters
        self.dist = dist
        self.env = None
        """The evaluation env (built by the first :meth:`ready`)."""
        self.plain_env = None
        """With ``env.plain_arm_prob``: the evaluation env without the command-path model."""
        self.disabled = False
        """Whether evaluation is off (its env could not be built)."""

    def ready(self) -> bool:
        """Whether an evaluation can run: builds the env the first time (distributed: off
        everywhere when it is off anywhere)."""
        if self.disabled:
            return False
        if self.env is None:
            rc = self.cfg.runner
            try:
                self.env = make_env(
                    self.cfg,
                    rc.eval_backend,
                    rc.eval_num_envs,
                    evaluation_task_config(self.cfg),
                    self.motor_filters,
                )
                if plain_arm_randomization(self.cfg.env):  # a model that episodes bypass
                    plain = dataclasses.replace(
                        self.cfg,
                        env=dataclasses.replace(self.cfg.env, actuator="none", plain_arm_prob=0.0),
                    )
                    self.plain_env = make_env(
                        plain,
                        rc.eval_backend,
                        rc.eval_num_envs,
                        evaluation_task_config(plain),
                        self.motor_filters,
                    )
            except Exception as exc:  # noqa: BLE001 - a missing backend must not stop training
                logger.warning(
                    "physics evaluation disabled: cannot build the %s env (%s)",
                    rc.eval_backend,
                    exc,
                )
                self.disabled = True
            if not self.dist.all_true(not self.disabled):
                self.disabled = True
        return not self.disabled

    def evaluate(
        self, model: ActorCritic, episodes: int, timing: dict[str, float]
    ) -> EvalResult | None:
        """:meth:`run` when evaluation is on and ``episodes`` > 0 (its seconds added to
        ``timing["eval_s"]``), else None."""
        if episodes <= 0 or not self.ready():
            return None
        start = time.perf_counter()
        result = self.run(model, episodes)
        timing["eval_s"] += time.perf_counter() - start
        return result

    def run(self, model: ActorCritic, episodes: int) -> EvalResult:
        """``episodes`` episodes of ``model``'s deterministic policy (after :meth:`ready`;
        distributed: this rank's share, merged with every rank's outcomes)."""
        rc = self.cfg.runner
        model.eval()
        policy = torch_policy_fn(model)
        share = self.dist.episode_share(episodes)
        seed = self.dist.eval_seed(rc.eval_seed)
        plain = round(share * self.cfg.env.plain_arm_prob) if self.plain_env is not None else 0
        parts = [
            run_episodes(env, policy, n, seed) if n else None
            for env, n in ((self.env, share - plain), (self.plain_env, plain))
        ]
        part = merge_results(parts, seed, parallel=False) if share else None
        result = self.dist.gather_eval(part, rc.eval_seed)
        result.backend = rc.eval_backend
        return result

    def close(self) -> None:
        for env in (self.env, self.plain_env):
            if env is not None:
                env.close()
        self.env = self.plain_env = None
