"""The envs a run trains and evaluates on: the task config with the run's episode length and
training noise, and the ``sims.make_env`` options of a motor filter.

A motor filter (a controller between the policy's targets and the motors, e.g. the safety
supervisor) is named in the config (``env.motor_filter``) and built by a factory the
caller injects (:data:`MotorFilterFactory`, keyed by that name): policies/ never imports
the layer that owns the controller. ``miles train`` (miles_ros) injects the supervisor's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import sims
from policies.ppo.config import TrainConfig

RANK_SEED_STRIDE = 1_000_003
"""Seed offset between the ranks of a distributed run (a prime: the runner's per-update
reset seeds, ``seed + 7919 * update``, of one rank never equal another rank's)."""


def rank_seed(seed: int, rank: int) -> int:
    """The seed of rank ``rank``'s envs and generators in a run seeded ``seed``; rank 0 (and
    a run on one process) uses ``seed`` itself."""
    if rank < 0:
        raise ValueError(f"rank must be >= 0, got {rank}")
    return seed + RANK_SEED_STRIDE * rank


MotorFilterFactory = Callable[[str, int, Any], dict[str, Any]]
"""``factory(task, num_envs, task_config) -> sims.make_env keyword arguments`` (the task
config included) that put a motor filter into each of ``num_envs`` PyBullet envs."""


def evaluation_task_config(cfg: TrainConfig):
    """The task's TaskConfig with the run's episode length (no training noise)."""
    task_cfg = sims.get_task(cfg.task).CONFIG
    if cfg.env.episode_scale != 1.0:
        if not cfg.env.episode_scale > 0:
            raise ValueError(f"env.episode_scale must be > 0, got {cfg.env.episode_scale}")
        steps = max(1, round(task_cfg.episode_steps * cfg.env.episode_scale))
        task_cfg = dataclasses.replace(task_cfg, episode_steps=steps)
    return task_cfg


def training_task_config(cfg: TrainConfig):
    """The task's TaskConfig with the run's training-backend noise and episode length."""
    task_cfg = evaluation_task_config(cfg)
    rand = dataclasses.replace(
        task_cfg.randomization,
        observation_noise_std=cfg.env.observation_noise_std,
        action_latency_steps=cfg.env.action_latency_steps,
    )
    return dataclasses.replace(task_cfg, randomization=rand)


def env_options(
    cfg: TrainConfig,
    backend: str,
    num_envs: int,
    task_config,
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
) -> dict[str, Any]:
    """``sims.make_env`` keyword arguments: the task config, plus the run's motor filter
    (``cfg.env.motor_filter``, built by its factory in ``motor_filters``) where it names
    one. Raises ValueError when the name has no factory there."""
    name = cfg.env.motor_filter
    actuator = cfg.env.actuator
    if not name:
        if actuator == "none":  # the backends' default: no keyword for the ones without it
            return {"config": task_config}
        return {"config": task_config, "actuator": actuator}
    if backend != "pybullet":
        raise ValueError(f"env.motor_filter runs on the pybullet backend, not {backend!r}")
    factory = (motor_filters or {}).get(name)
    if factory is None:
        known = ", ".join(sorted(motor_filters or {})) or "none"
        raise ValueError(
            f"env.motor_filter {name!r}: no factory for it was given (known here: {known}); "
            "a motor filter is composed by the layer that owns it: train through "
            "`miles train`, or pass motor_filters={name: factory} to OnPolicyRunner"
        )
    options = factory(cfg.task, num_envs, task_config)
    if actuator != "none":  # never dropped: the backend refuses what it cannot combine
        options = {**options, "actuator": actuator}
    return options


def make_env(
    cfg: TrainConfig,
    backend: str,
    num_envs: int,
    task_config,
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
):
    """The run's env on ``backend``: :func:`env_options` passed to ``sims.make_env``."""
    options = env_options(cfg, backend, num_envs, task_config, motor_filters)
    return sims.make_env(
        cfg.task, backend, num_envs=num_envs, dense_reward=cfg.env.dense_reward, **options
    )
