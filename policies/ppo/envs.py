"""The envs a run trains and evaluates on: the task config with the run's episode length and
training noise, and the ``sims.make_env`` options of a motor filter.

A motor filter (a controller between the policy's targets and the motors, e.g. the safety
supervisor) is named in the config (``env.motor_filter``) and built by a factory the
caller injects (:data:`MotorFilterFactory`, keyed by that name): policies/ never imports
the layer that owns the controller. ``miles train`` (miles_ros) injects the supervisor's.

Where the training envs step (the env device, ``miles train --env-device``, by default the
run's ``--device``): numba on ``cuda``/``cuda:N`` is the GPU-resident env of
:mod:`policies.ppo.device_envs` (tensors in and out, no host copies), isaac takes the
device itself (Isaac Lab's ``device``), pybullet steps on the CPU only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import sims
from policies.ppo.config import TrainConfig, with_run_rewards
from policies.ppo.env_options import (
    check_plain_fraction,
    contact_randomization,
    levelling_fields,
    plain_arm_randomization,
    pose_error_randomization,
)

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
    """The task's TaskConfig with the run's episode length, goal distances
    (``env.goal_distance``), cube and goal areas (``env.object_region``, ``env.goal_region``),
    stacking and tower episodes (``env.stack_fraction``, ``env.tower_fraction``), tool
    levelling (``env.ik_tilt_gain``, ``env.ik_tilt_allowance_deg``) and reward weights
    (``env.rewards``, ``env.sparse_rewards``), no training noise."""
    task = sims.get_task(cfg.task)
    task_cfg = with_run_rewards(task.CONFIG, cfg.env, task.REWARD_TERMS)
    task_cfg = with_goal_distance(task_cfg, cfg.env.goal_distance)
    task_cfg = with_regions(task_cfg, cfg.env.object_region, cfg.env.goal_region)
    if cfg.env.episode_scale != 1.0:
        if not cfg.env.episode_scale > 0:
            raise ValueError(f"env.episode_scale must be > 0, got {cfg.env.episode_scale}")
        steps = max(1, round(task_cfg.episode_steps * cfg.env.episode_scale))
        task_cfg = dataclasses.replace(task_cfg, episode_steps=steps)
    if cfg.env.stack_fraction:
        if cfg.task != "pick_place" or not 0.0 <= cfg.env.stack_fraction <= 1.0:
            raise ValueError(
                "env.stack_fraction is a pick_place option in [0, 1], not "
                f"{cfg.env.stack_fraction!r} for {cfg.task}"
            )
        task_cfg = dataclasses.replace(task_cfg, stack_fraction=float(cfg.env.stack_fraction))
    if cfg.env.tower_fraction:
        if not cfg.env.stack_fraction or not 0.0 <= cfg.env.tower_fraction <= 1.0:
            raise ValueError(
                "env.tower_fraction is a share in [0, 1] of env.stack_fraction's episodes, "
                f"not {cfg.env.tower_fraction!r} with stack_fraction {cfg.env.stack_fraction!r}"
            )
        task_cfg = dataclasses.replace(task_cfg, tower_fraction=float(cfg.env.tower_fraction))
    levelling = levelling_fields(cfg.env, task_cfg)
    if levelling:
        task_cfg = dataclasses.replace(task_cfg, **levelling)
    return task_cfg


def with_goal_distance(task_cfg, goal_distance):
    """``task_cfg`` with ``goal_distance_range`` = ``goal_distance`` ([lo, hi] m; empty:
    unchanged). ValueError for a malformed range or a task without one (reach)."""
    if not goal_distance:
        return task_cfg
    from sims.tasks.push import check_distance_range
    from sims.tasks.registry import goal_task_names, places_goal

    if not places_goal(sims.get_task(task_cfg.name)):
        raise ValueError(
            f"env.goal_distance is a {goal_task_names()} option, not {task_cfg.name!r}'s"
        )
    try:
        lo_hi = check_distance_range(goal_distance)
    except ValueError as exc:
        raise ValueError(f"env.goal_distance: {exc}") from None
    return dataclasses.replace(task_cfg, goal_distance_range=lo_hi)


def with_regions(task_cfg, object_region=(), goal_region=()):
    """``task_cfg`` with ``object_xy_range`` = ``object_region`` and ``goal_xy_range`` =
    ``goal_region`` (each ``[[xlo, ylo], [xhi, yhi]]`` m; empty: unchanged). ValueError for
    a malformed region or a task that does not draw it (the registry's
    :func:`~sims.tasks.registry.places_object` and :func:`~sims.tasks.registry.places_goal`:
    reach has neither, turn no goal area)."""
    from sims.tasks import registry
    from sims.tasks.push import check_xy_region

    task = sims.get_task(task_cfg.name)
    changes = {}
    for flag, field, region, applies, tasks in (
        ("env.object_region", "object_xy_range", object_region,
         registry.places_object, registry.object_task_names),
        ("env.goal_region", "goal_xy_range", goal_region,
         registry.places_goal, registry.goal_task_names),
    ):  # fmt: skip
        if region is None or (isinstance(region, (tuple, list)) and not region):
            continue
        if not applies(task):
            raise ValueError(f"{flag} is a {tasks()} option, not {task_cfg.name!r}'s")
        changes[field] = check_xy_region(region, flag)
    return dataclasses.replace(task_cfg, **changes) if changes else task_cfg


def training_task_config(cfg: TrainConfig):
    """The task's TaskConfig with the run's training-backend noise, latency, contact
    randomization (``env.cube_size``, ``finger_friction_scale``, ``contact_stiffness``,
    ``finger_reading``), plain-arm episodes (``env.plain_arm_prob``) and cube-pose error
    model (``env.pose_error``)."""
    task_cfg = evaluation_task_config(cfg)
    rand = dataclasses.replace(
        task_cfg.randomization,
        observation_noise_std=cfg.env.observation_noise_std,
        action_latency_steps=cfg.env.action_latency_steps,
        **contact_randomization(cfg.env),
        **plain_arm_randomization(cfg.env),
        **pose_error_randomization(cfg.env),
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
    options = with_plain_envs(options, cfg.env.plain_fraction)
    if actuator != "none":  # never dropped: the backend refuses what it cannot combine
        options = {**options, "actuator": actuator}
    return options


def with_plain_envs(options: dict[str, Any], fraction: float) -> dict[str, Any]:
    """``options`` with the motor filters of the last ``round(fraction x num_envs)`` envs
    removed (None: those envs' motors take the targets; ``env.plain_fraction``)."""
    check_plain_fraction(fraction)
    filters = options.get("motor_filters")
    if not fraction or filters is None:
        return options
    plain = plain_envs(len(filters), fraction)
    return {
        **options,
        "motor_filters": [None if p else f for f, p in zip(filters, plain, strict=True)],
    }


def plain_envs(num_envs: int, fraction: float) -> np.ndarray:
    """[num_envs] bool: the envs ``env.plain_fraction`` takes off their motor filter, the
    last ``round(fraction x num_envs)``."""
    plain = np.zeros(num_envs, dtype=bool)
    plain[num_envs - round(fraction * num_envs) :] = True
    return plain


DEVICE_BACKENDS = ("numba", "isaac")
"""The backends that step on a GPU (the others step on the CPU only)."""


def resolve_env_device(
    backend: str, device: str | None, torch_device: str = "cpu", local_rank: int | None = None
) -> str:
    """Where ``backend``'s training envs step, as ``cpu`` or ``cuda:N``: ``device`` (cpu,
    cuda or cuda:N; ``cuda`` is ``cuda:LOCAL_RANK`` on a rank of a distributed run, else
    ``cuda:0``), or, None, the torch device for the :data:`DEVICE_BACKENDS` and the CPU for
    the others. ValueError for a malformed device or a GPU for a CPU-only backend."""
    from sims.backends.numba_backend import parse_device

    if device is None:
        device = str(torch_device) if backend in DEVICE_BACKENDS else "cpu"
    index = parse_device(device)
    if index is None:
        return "cpu"
    if backend not in DEVICE_BACKENDS:
        raise ValueError(
            f"the {backend} backend steps on the CPU: an env device {device!r} needs the "
            f"{' or '.join(DEVICE_BACKENDS)} backend"
        )
    if str(device).strip().lower() == "cuda" and local_rank is not None:
        index = local_rank
    return f"cuda:{index}"


def env_device_error(
    backend: str, env_device: str | None, device: str = "cpu", flag: str = "--env-device"
) -> str | None:
    """What is wrong with where ``backend``'s envs would step (``env_device``, default
    ``device``, as :func:`resolve_env_device`), else None: a check before any work;
    ``flag`` names the option in the message."""
    try:
        where = resolve_env_device(backend, env_device, device)
    except ValueError as exc:
        return f"{flag}: {exc}"
    if where == "cpu" or backend != "numba":
        return None  # isaac: Isaac Lab checks its device when it builds the env
    from sims.backends import numba_cuda

    if not numba_cuda.cuda_available():
        return f"{flag} {where} (numba envs): {numba_cuda.NO_GPU_MESSAGE}"
    return None


def make_env(
    cfg: TrainConfig,
    backend: str,
    num_envs: int,
    task_config,
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
    device: str = "cpu",
):
    """The run's env on ``backend`` on ``device`` (as :func:`resolve_env_device` returns it):
    :func:`env_options` passed to ``sims.make_env``, or, for numba on a GPU,
    :func:`policies.ppo.device_envs.make_device_envs` (a
    :class:`~policies.ppo.device_envs.TorchDeviceEnv`)."""
    options = env_options(cfg, backend, num_envs, task_config, motor_filters)
    device = resolve_env_device(backend, device)
    if backend == "numba" and device != "cpu":
        from policies.ppo.device_envs import make_device_envs

        return make_device_envs(
            cfg.task,
            num_envs,
            device=device,
            config=options["config"],
            dense_reward=cfg.env.dense_reward,
            check_actions=False,  # the runner checks the actions once per rollout
            buffers=2,  # the runner reads a step's observations until the next step
            actuator=options.get("actuator"),
        )
    if backend == "isaac":
        options["device"] = device
    return sims.make_env(
        cfg.task, backend, num_envs=num_envs, dense_reward=cfg.env.dense_reward, **options
    )
