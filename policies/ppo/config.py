"""Typed training configs with per-task defaults.

Defaults are tuned for a 2-core laptop: few envs and many gradient steps win there (the
numba env is a small fraction of wall time; the update dominates). On a big machine pass
``--num-envs 4096`` and the rollout length stays the same.

Every key a training config may set, in its section's dataclass (most lines are field
docstrings), and the checks across sections; the ``imitation:`` section is in
:mod:`policies.ppo.imitation_config`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from policies.ppo.env_options import (
    CONTACT_RANDOMIZATION,
    check_plain_fraction,
    contact_randomization,
    levelling_fields,
    plain_arm_randomization,
    pose_error_fields,
)
from policies.ppo.imitation_config import (
    ImitationConfig,
    augment_field_slices,
    imitation_from_dict,
)


@dataclass
class NetworkConfig:
    """Actor-critic architecture."""

    actor_hidden: tuple[int, ...] = (64, 64)
    """Hidden layer widths of the actor MLP."""
    critic_hidden: tuple[int, ...] = (64, 64)
    """Hidden layer widths of the (separate) critic MLP."""
    activation: str = "tanh"
    """Hidden activation: ``tanh``, ``elu`` or ``relu``."""
    init_log_std: float = -0.5
    """Initial log standard deviation of the Gaussian policy (state independent)."""
    normalize_observations: bool = True
    """Keep a running mean/var of observations inside the policy module."""


@dataclass
class PPOConfig:
    """The PPO update (clipped surrogate, clipped value loss, entropy bonus)."""

    learning_rate: float = 1e-3
    """Adam step size."""
    num_epochs: int = 5
    """Passes over each rollout."""
    num_minibatches: int = 4
    """Minibatches per epoch."""
    gamma: float = 0.98
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_ratio: float = 0.2
    """Surrogate clip range."""
    value_clip: float = 0.2
    """Clip range of the value update (0 disables clipping)."""
    value_loss_coef: float = 0.5
    """Weight of the value loss."""
    entropy_coef: float = 0.0
    """Weight of the entropy bonus."""
    max_grad_norm: float = 1.0
    """Gradient norm clip."""
    target_kl: float = 0.0
    """Stop the epoch loop early when the approximate KL exceeds this (0 disables)."""
    normalize_advantages: bool = True
    """Normalize advantages per minibatch."""
    lr_schedule: str = "constant"
    """``constant``, ``linear`` (decays to 10% at ``total_steps``) or ``adaptive`` (each
    gradient step: divided by 1.5 when the approximate KL exceeds ``2 * desired_kl``,
    multiplied by 1.5 below ``desired_kl / 2``, kept in [1e-5, 1e-2], as rsl_rl; in a
    distributed run the KL is averaged over ranks first, so every rank steps alike)."""
    desired_kl: float = 0.01
    """KL the ``adaptive`` schedule aims at."""


@dataclass
class RunnerConfig:
    """Rollouts, logging, checkpoints and physics evaluation."""

    num_envs: int = 256
    """Parallel environments in the training backend."""
    rollout_steps: int = 32
    """Steps per env between updates."""
    total_steps: int = 2_000_000
    """Budget in env steps (all envs together)."""
    checkpoint_every: int = 50
    """Save a checkpoint every this many updates (and at the end)."""
    eval_every: int = 25
    """Evaluate in physics every this many updates (0 disables periodic evaluation)."""
    eval_backend: str = "pybullet"
    """Backend of the periodic and final evaluation."""
    eval_episodes: int = 30
    """Episodes of each periodic evaluation (a fixed, seeded set)."""
    final_eval_episodes: int = 100
    """Episodes of the final evaluation (0 skips it)."""
    eval_seed: int = 1000
    """Seed of the evaluation episode set."""
    eval_num_envs: int = 1
    """Envs of the evaluation backend (PyBullet runs them in-process or in workers)."""
    target_success: float = 0.95
    """Success rate (physics evaluation) that counts as solved."""
    stop_at_target: bool = False
    """Stop training once the physics evaluation reaches ``target_success``."""
    eval_on_train_success: bool = True
    """Also evaluate when the training success rate first reaches ``target_success``
    since the last evaluation (so a solved task is noticed without waiting)."""
    success_window: int = 200
    """Episodes in the rolling training success rate and return."""
    time_limit_s: float = 0.0
    """Stop after this much training wall time (s, evaluations included); 0: no limit."""
    progress: bool = True
    """Show a tqdm progress bar."""
    tensorboard: bool = True
    """Write TensorBoard scalars to ``RUN_DIR/tb``."""
    torch_threads: int = 1
    """torch intra-op threads (small MLPs are fastest on one thread)."""


@dataclass
class EnvConfig:
    """Training-backend options: domain randomization and noise for transfer."""

    observation_noise_std: float = 0.0
    """Gaussian noise on position observations in the training backend (m or rad)."""
    action_latency_steps: int = 0
    """Max random action delay (control steps) in the training backend."""
    dense_reward: bool = True
    """Dense reward (negative distance) rather than sparse."""
    episode_scale: float = 1.0
    """Episode length in the task's episodes, in training and in the physics evaluations
    (more time for an arm slowed by a motor filter)."""
    motor_filter: str = ""
    """Name of a controller between the policy's targets and the PyBullet motors, in
    training and in the physics evaluations, whose factory the caller injects
    (:mod:`policies.ppo.envs`; ``miles train`` knows ``safety_supervisor``, the safety
    supervisor). '' = the motors take the targets."""
    plain_fraction: float = 0.0
    """With ``motor_filter``: this fraction of the PyBullet envs (the last
    ``round(plain_fraction x num_envs)``, in training and in the physics evaluations) run
    without the filter, on the plain arm (the motors take the targets), so one stage meets
    both arms; 0: every env behind the filter."""
    actuator: str = "none"
    """The arm's command path in the training and evaluation backends
    (:mod:`sims.robots.actuator`): ``panda`` (rate limits of config/safety.yaml at its
    controller rate, the drives' lag, ``action_latency_steps`` as its latency) or
    ``none`` (the backends' plain tracking)."""
    goal_distance: tuple[float, ...] = ()
    """push and pick_place: ``[lo, hi]`` (m), the cube-to-goal xy distance of the training
    and evaluation episodes (the exported card's envelope declares it); empty: the task's
    default (``GOAL_DISTANCE_RANGE``)."""
    object_region: tuple = ()
    """push and pick_place: ``[[xlo, ylo], [xhi, yhi]]`` (m, base frame), the area where the
    training and evaluation episodes' cubes start (the exported card's envelope declares
    it); empty: the task's default (``OBJECT_XY_LOW/HIGH``)."""
    goal_region: tuple = ()
    """push and pick_place: ``[[xlo, ylo], [xhi, yhi]]`` (m), the area where the episodes'
    goals lie (the card's envelope ``target_region``); empty: the task's default
    (``GOAL_XY_LOW/HIGH``)."""
    stack_fraction: float = 0.0
    """pick_place: fraction of training and evaluation episodes of the ``stack`` variant
    (the cube goes on a second cube; PyBullet runs them, other backends refuse)."""
    tower_fraction: float = 0.0
    """pick_place, with ``stack_fraction``: the fraction of the stacking episodes on a
    tower of two cubes (the cube goes to the third level, variant ``tower``); the rest on
    one cube. PyBullet only, as stacking."""
    ik_tilt_gain: float = 0.0
    """Cartesian tasks: gain of the IK's tool-levelling null-space step
    (``TaskConfig.ik_tilt_gain``) in training and the evaluations; the exported card
    records it and the skill node applies it. 0: the orientation is left to the
    position-only IK."""
    ik_tilt_allowance_deg: float = 0.0
    """With ``ik_tilt_gain``: the tool tilt (degrees from straight down) the levelling
    leaves alone (``TaskConfig.ik_tilt_allowance_deg``); it turns back only the tilt beyond
    it."""
    object_mass_scale: tuple[float, ...] = ()
    """push and pick_place: ``[lo, hi]``, multiplier on the cube's mass per training episode
    (``randomization.object_mass_scale``; numba's model does not depend on it); empty: the
    task's default range, x0.8-1.2."""
    friction_scale: tuple[float, ...] = ()
    """push and pick_place: ``[lo, hi]``, multiplier on the cube-table friction per training
    episode (``randomization.friction_scale``); empty: the task's default range, x0.7-1.3."""
    cube_size: tuple[float, ...] = ()
    """push and pick_place: ``[lo, hi]`` (m), the cube's edge drawn per training episode
    (``randomization.cube_size``; the evaluations keep the scene's cube); empty: the
    task's ``CUBE_SIZE``."""
    finger_friction_scale: tuple[float, ...] = ()
    """``[lo, hi]``: multiplier on the finger-cube friction per training episode
    (``randomization.finger_friction_scale``); empty: 1."""
    contact_stiffness: tuple[float, ...] = ()
    """PyBullet stages: ``[lo, hi]`` (N/m), the cube's contact stiffness per training
    episode, log-uniform (``randomization.contact_stiffness``); empty: rigid contacts."""
    finger_reading: tuple[float, ...] = ()
    """numba and PyBullet stages: ``[lo, hi]`` (m, within -0.005..0.02), how much wider
    than its edge a held cube reads, per training episode (``randomization.finger_reading``:
    numba's pads, PyBullet's reading map); empty: each engine's own reading. A run saved
    with ``finger_pad`` (per finger, 0..0.01) loads as ``finger_reading`` of twice that."""
    rewards: dict = field(default_factory=dict)
    """Weights of the dense reward's named terms (term -> weight, as Isaac Lab's
    ``RewardsCfg`` weights), over the task's ``CONFIG.rewards``: a term not named keeps its
    weight, 0 drops it; the task refuses a name not in its ``REWARD_TERMS``. The run's
    training and evaluations use them; each term is logged to TensorBoard."""
    sparse_rewards: dict = field(default_factory=dict)
    """The same for the sparse reward (``dense_reward: false``)."""
    plain_arm_prob: float = 0.0
    """numba stages with ``actuator: panda``: the fraction of training episodes (drawn per
    episode, ``randomization.plain_arm_prob``) that bypass the command-path model and run
    on the plain quick tracking, so the skill meets both arms; 0: none. A stage without
    a model runs every episode on the plain arm and ignores it."""
    pose_error: dict = field(default_factory=dict)
    """Tasks with a cube, numba and PyBullet stages: the error model of the cube pose the
    training envs observe (:class:`sims.tasks.base.CubePoseError`: ``bias_xy_m``,
    ``bias_yaw_deg``, ``noise_xy_m``, ``noise_yaw_deg``, ``hold_prob``), given as a preset's
    name (``camera``: the calibrated scene camera's, docs/perception.md) or those fields,
    stored as the fields' numbers (the card's ``provenance.training_noise`` records them);
    empty: exact poses. The evaluations observe exact poses."""


@dataclass
class TrainConfig:
    """Everything a run needs; saved as ``config.yaml`` in the run directory."""

    task: str = "reach"
    """Task name (``sims.TASKS``)."""
    backend: str = "numba"
    """Training backend."""
    seed: int = 0
    """Seeds numpy, torch, numba and the backend."""
    network: NetworkConfig = field(default_factory=NetworkConfig)
    """Actor-critic architecture."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """PPO update settings."""
    runner: RunnerConfig = field(default_factory=RunnerConfig)
    """Rollout, logging and evaluation settings."""
    env: EnvConfig = field(default_factory=EnvConfig)
    """Training-backend options."""
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    """Imitation of a scripted expert instead of PPO (``imitation.expert``; off by default)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain data (tuples as lists) for YAML."""
        return _plain(dataclasses.asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ``TypeError``."""
        data = dict(data)
        net = dict(data.pop("network", {}))
        for key in ("actor_hidden", "critic_hidden"):
            if key in net:
                net[key] = tuple(net[key])
        cfg = cls(
            network=NetworkConfig(**net),
            ppo=PPOConfig(**data.pop("ppo", {})),
            runner=RunnerConfig(**data.pop("runner", {})),
            env=_env_config(data.pop("env", {})),
            imitation=imitation_from_dict(data.pop("imitation", {})),
            **data,
        )
        _check_task_options(cfg)
        return cfg


def _env_config(data: dict[str, Any]) -> EnvConfig:
    data = dict(data)
    if "goal_distance" in data:
        data["goal_distance"] = tuple(data["goal_distance"] or ())
    for key in ("object_region", "goal_region"):  # [[xlo, ylo], [xhi, yhi]] m; empty: default
        if key in data:
            from sims.tasks.push import check_xy_region

            data[key] = check_xy_region(data[key], f"env.{key}") if data[key] else ()
    if "finger_pad" in data:  # runs saved before finger_reading: per finger, half of it
        pad = data.pop("finger_pad") or ()
        data.setdefault("finger_reading", [2.0 * float(v) for v in pad])
    for key in CONTACT_RANDOMIZATION:
        if key in data:
            data[key] = tuple(float(v) for v in data[key] or ())
    for key in ("rewards", "sparse_rewards"):
        if key in data:
            if not isinstance(data[key] or {}, dict):
                raise ValueError(f"env.{key}: a mapping of reward term -> weight")
            data[key] = dict(data[key] or {})
    if "pose_error" in data:
        data["pose_error"] = pose_error_fields(data["pose_error"])
    cfg = EnvConfig(**data)
    contact_randomization(cfg)  # ValueError now, before any work
    plain_arm_randomization(cfg)
    fraction = check_plain_fraction(cfg.plain_fraction)
    if fraction and not cfg.motor_filter:
        raise ValueError("env.plain_fraction takes envs off a motor filter: set env.motor_filter")
    return cfg


def _check_task_options(cfg: TrainConfig) -> None:
    """ValueError for an option the task cannot take: an ``imitation.augment_fields`` name
    that is not a field of its observation, an ``imitation.expert_settings`` name its expert
    does not have (:func:`policies.experts.expert_settings`), a contact randomization
    (``env.cube_size``, ...) on a task without a cube, a tool levelling
    (``env.ik_tilt_gain``) on a joint-space task or with a bad gain or allowance (no check
    for an unknown task: the runner names it)."""
    import sims

    try:
        task = sims.get_task(cfg.task)
    except (KeyError, ValueError):
        return
    if cfg.imitation.augment_fields:
        augment_field_slices(cfg.task, cfg.imitation.augment_fields)
    if cfg.imitation.expert_settings:
        from policies.experts import expert_settings

        try:
            expert_settings(cfg.task, cfg.imitation.expert_settings)
        except ValueError as exc:
            raise ValueError(f"imitation.expert_settings: {exc}") from None
    contact = [*contact_randomization(cfg.env), *(["pose_error"] if cfg.env.pose_error else [])]
    if contact and not task.CONFIG.has_object:
        names = ", ".join(f"env.{key}" for key in contact)
        raise ValueError(f"{names}: task {cfg.task!r} has no cube to randomize")
    levelling_fields(cfg.env, task.CONFIG)
    with_run_rewards(task.CONFIG, cfg.env, task.REWARD_TERMS)


def with_run_rewards(task_cfg, env: EnvConfig, terms):
    """``task_cfg`` with the run's reward weights (``env.rewards``, ``env.sparse_rewards``)
    over its own; ``terms``: the task's ``REWARD_TERMS``. ValueError naming the task's terms
    for a term it does not have."""
    from sims.tasks.base import with_reward_weights

    for weights, dense in ((env.rewards, True), (env.sparse_rewards, False)):
        if weights:
            task_cfg = with_reward_weights(task_cfg, tuple(terms), weights, dense)
    return task_cfg


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def default_train_config(task: str) -> TrainConfig:
    """Per-task defaults that work on 2 cores (see the module docstring)."""
    if task == "reach":
        return TrainConfig(
            task="reach",
            runner=RunnerConfig(
                num_envs=256,
                rollout_steps=32,
                total_steps=2_000_000,
                eval_every=25,
                eval_episodes=100,
                target_success=0.99,
            ),
            # On the arm the robot really is: the command-path model (the supervisor's
            # rate limits at 250 Hz, the drives' lag) and 0..2 periods of command latency;
            # 30% of the episodes on the plain quick arm (simulators, a quicker controller).
            env=EnvConfig(
                observation_noise_std=0.002,
                action_latency_steps=2,
                actuator="panda",
                plain_arm_prob=0.3,
            ),
        )
    if task == "push":
        return TrainConfig(
            task="push",
            ppo=PPOConfig(learning_rate=1e-3, gamma=0.98),
            runner=RunnerConfig(
                num_envs=256,
                rollout_steps=32,
                total_steps=20_000_000,
                eval_every=50,
                target_success=0.9,
            ),
            env=EnvConfig(observation_noise_std=0.002),
        )
    if task == "pick_place":
        return TrainConfig(
            task="pick_place",
            network=NetworkConfig(actor_hidden=(128, 64), critic_hidden=(128, 64)),
            ppo=PPOConfig(learning_rate=1e-3, gamma=0.98),
            runner=RunnerConfig(
                num_envs=256,
                rollout_steps=32,
                total_steps=30_000_000,
                eval_every=50,
                target_success=0.8,
            ),
            env=EnvConfig(observation_noise_std=0.002),
        )
    raise ValueError(f"no training defaults for task {task!r}")
