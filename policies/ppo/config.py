"""Typed training configs with per-task defaults.

Defaults are tuned for a 2-core laptop: few envs and many gradient steps win there (the
numba env is a small fraction of wall time; the update dominates). On a big machine pass
``--num-envs 4096`` and the rollout length stays the same.

One module (about 500 lines, most of them field docstrings): every key a training config
may set, in its section's dataclass, and the checks across sections, so a YAML key is
looked up in one file.
"""

from __future__ import annotations

import dataclasses
import math
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


AUGMENT_GUARDS = ("buffer", "first_reset")
"""Values of ``imitation.augment_guard``."""


@dataclass
class ImitationConfig:
    """An imitation stage (DAgger, :mod:`policies.ppo.imitation`): the student policy is
    rolled out, a scripted expert (:mod:`policies.experts`) labels every state it visits,
    and the actor regresses onto the labels of everything collected so far."""

    expert: str = ""
    """``scripted``: the task's scripted expert teaches (the run is an imitation run);
    '' (default): no imitation, PPO."""
    expert_settings: dict = field(default_factory=dict)
    """Settings of the task's scripted expert (name -> number, the names of its module's
    ``SETTINGS``, :func:`policies.experts.expert_settings`; turn: ``orbit_margin``, m);
    empty: its defaults."""
    beta_start: float = 1.0
    """Probability that the expert's action, not the student's, is executed at a step, at
    the start of the run (decays linearly to ``beta_end`` over ``beta_steps``)."""
    beta_end: float = 0.0
    """The same probability after ``beta_steps`` env steps."""
    beta_steps: int = 2_000_000
    """Env steps over which the mixing probability decays."""
    exploration_std: float = 0.1
    """Standard deviation of the Gaussian noise on the student's executed actions; also the
    policy's std when the run ends (where a PPO stage that follows starts exploring)."""
    buffer_size: int = 1_000_000
    """Labelled states kept (the oldest are dropped first)."""
    carry_states: int = 0
    """Labelled states of the previous imitation stage (a random subset of its buffer, saved
    as ``imitation_buffer.pt`` in its run directory) that start this stage's buffer, so a
    later stage keeps what the earlier ones taught (another backend's states); 0: none."""
    augment_fields: tuple[str, ...] = ()
    """Observation fields (names of the task's ``LAYOUT``, e.g. ``joint_vel``) the expert's
    labels do not depend on: at every gradient step each state's values of these fields are
    multiplied by one factor drawn uniformly in ``augment_scale``, so the student's actions
    do not hinge on how they are measured (PyBullet reports the joint velocity at the end of
    a period, ~0.3-0.5x the period's mean that the numba kernels and a 250 Hz supervisor
    give). The run refuses a field whose scaling changes the expert's labels."""
    augment_scale: tuple[float, float] = (0.0, 1.5)
    """``[lo, hi]``: the range of that factor."""
    label_augmented: bool = False
    """True: in the regression each augmented state is labelled by the expert run on it
    (the same factor applied to the expert's view of the state, the privileged one where
    the cube is observed through ``env.pose_error``), so a field the expert reads gets the
    label of what the student sees (pick_place's close gate reads ``joint_vel``: it closes
    only once the joints are slower than ``SETTLED_QD``); the augmented fields may then be
    fields the expert reads. False (default): the label of the unscaled state, and the run
    refuses a field whose scaling changes the expert's labels (checked on a sample of the
    buffer's states at every update)."""
    augment_guard: str = "buffer"
    """Where the run checks that the expert's labels ignore the ``augment_fields`` (without
    ``label_augmented``): ``buffer`` (default) on its first reset's states and on a sample
    of the buffer's states at every update; ``first_reset`` on the first reset's states
    only, the check the recipes of pick_place's versions 1 and 2 ran under (their expert's
    close gate reads ``joint_vel``, which only states near the cube show: those recipes
    say so to stay reproducible; docs/stacking.md, towers, parts 5 and 6)."""
    gradient_steps: int = 40
    """Gradient steps per update (each one minibatch from the whole buffer)."""
    minibatch_size: int = 4096
    """States per gradient step."""
    learning_rate: float = 1e-3
    """Adam step size of the actor (and of the critic's regression onto the returns) at the
    start of the run; it decays linearly to ``final_lr_fraction`` of it at ``total_steps``."""
    final_lr_fraction: float = 0.1
    """The step size at the end of the run, as a fraction of ``learning_rate``."""
    loss: str = "mse"
    """How the actor's regression weighs its errors (:data:`IMITATION_LOSSES`): ``mse``, the
    mean squared error, which the large actions dominate (an approach at full speed);
    ``relative``, each state's squared error over its label's squared norm (at least
    ``loss_floor``), so an error of a fine action (a slow push) weighs as much as the same
    fraction of a large one."""
    loss_floor: float = 0.1
    """``relative``: a label shorter than this (action units) counts as this long, so a
    near-zero label does not blow its error up."""
    focus_weight: float = 1.0
    """Each state the task's expert marks as in focus (``focus`` of its module,
    :func:`policies.experts.get_labeller`; turn: low beside the cube going around it) counts
    this many times in the regression; 1: every state alike."""
    still_weight: float = 1.0
    """Each state where the student holds still (its deterministic action at the state, as
    the rollout saw it, shorter than :data:`policies.evaluation.FROZEN`, the stall test of
    ``bench/turn_stalls.py`` and checkpoint selection's ``stall_steps``) while the expert's
    label is longer than ``still_label`` counts this many times in the regression (times
    ``focus_weight`` where both apply); 1: every state alike. Composed with
    ``clean_fraction``, whose rollouts are the ones that come to rest there."""
    still_label: float = 0.05
    """``still_weight``: the least label (action units; 0.05 ~ a 1 mm push) for a state held
    still to count as a still point the expert would leave."""
    action_floor: float = 0.0
    """A floor (action units; 0.05 ~ a 1 mm step) under the student's action along the
    expert's label, wherever that label is longer than the floor: a hinge term
    ``action_floor_weight x (relu(action_floor - a . l / |l|) / action_floor)^2`` per state
    (:func:`~policies.ppo.imitation_loss.action_floor_loss`), added to the regression's loss, so
    the student cannot hold still (nor move against the label) where the expert moves; the
    floor below the label keeps the label itself at no cost. 0: off."""
    action_floor_weight: float = 1.0
    """``action_floor``: the hinge's weight; at an action of 0 a state's term is this (a
    fully missed label under ``relative`` costs 1 / A, the action's A entries)."""
    clean_fraction: float = 0.0
    """The share of the envs (``round(clean_fraction x num_envs)``, spread evenly over the
    env indices, :func:`~policies.ppo.imitation.clean_envs`) whose rollouts act as ``miles
    eval`` does: the student's deterministic action, without the exploration noise and
    never the expert's, on observations without the env's white noise
    (``env.observation_noise_std``), so DAgger visits and labels the states where that
    student holds still (a noiseless still arm beside a still cube observes the same every
    step); the other envs roll as before. 0: none. A backend with noise must turn it off
    per env (the host backends: PyBullet, Isaac)."""


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
            imitation=_imitation_config(data.pop("imitation", {})),
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


def augment_field_slices(task: str, fields) -> list[slice]:
    """The observation slices of ``task``'s ``fields`` (names of its ``LAYOUT``);
    ValueError naming the task's fields for an unknown one (``imitation.augment_fields``)."""
    import sims

    slices = sims.get_task(task).LAYOUT.slices
    unknown = [f for f in fields if f not in slices]
    if unknown:
        raise ValueError(
            f"imitation.augment_fields {unknown}: not fields of {task}'s observation "
            f"({', '.join(slices)})"
        )
    return [slices[f] for f in fields]


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


IMITATION_EXPERTS = ("", "scripted")
"""The values ``imitation.expert`` may take."""
IMITATION_LOSSES = ("mse", "relative")
"""The values ``imitation.loss`` may take."""


def _imitation_config(data: dict[str, Any]) -> ImitationConfig:
    data = dict(data)
    if "augment_fields" in data:
        fields = data["augment_fields"] or ()
        if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
            raise ValueError(f"imitation.augment_fields must be a list of names, got {fields!r}")
        data["augment_fields"] = tuple(fields)
    if "augment_scale" in data:
        scale = data["augment_scale"]
        try:
            lo, hi = (float(v) for v in scale)
        except (TypeError, ValueError):
            raise ValueError(f"imitation.augment_scale must be [lo, hi], got {scale!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and 0.0 <= lo <= hi):
            raise ValueError(f"imitation.augment_scale needs finite 0 <= lo <= hi, got {scale!r}")
        data["augment_scale"] = (lo, hi)
    if not isinstance(data.get("label_augmented", False), bool):
        raise ValueError(
            f"imitation.label_augmented must be true or false, got {data['label_augmented']!r}"
        )
    if data.get("augment_guard", "buffer") not in AUGMENT_GUARDS:
        raise ValueError(
            f"imitation.augment_guard must be one of {list(AUGMENT_GUARDS)}, "
            f"got {data['augment_guard']!r}"
        )
    settings = data.get("expert_settings") or {}
    if not isinstance(settings, dict):
        raise ValueError(f"imitation.expert_settings must be a mapping, got {settings!r}")
    data["expert_settings"] = dict(settings)
    cfg = ImitationConfig(**data)
    if cfg.expert not in IMITATION_EXPERTS:
        raise ValueError(f"imitation.expert must be 'scripted' or '', got {cfg.expert!r}")
    if not (0.0 <= cfg.beta_end <= 1.0 and 0.0 <= cfg.beta_start <= 1.0):
        raise ValueError("imitation.beta_start and beta_end must lie in [0, 1]")
    if cfg.carry_states < 0 or cfg.carry_states > cfg.buffer_size:
        raise ValueError("imitation.carry_states must lie in [0, buffer_size]")
    if cfg.buffer_size < 1 or cfg.gradient_steps < 1 or cfg.minibatch_size < 1:
        raise ValueError("imitation.buffer_size, gradient_steps, minibatch_size must be >= 1")
    if not 0.0 < cfg.final_lr_fraction <= 1.0:
        raise ValueError("imitation.final_lr_fraction must lie in (0, 1]")
    if not cfg.exploration_std > 0:
        raise ValueError("imitation.exploration_std must be > 0")
    if cfg.loss not in IMITATION_LOSSES:
        raise ValueError(f"imitation.loss must be one of {IMITATION_LOSSES}, got {cfg.loss!r}")
    if not (math.isfinite(cfg.loss_floor) and cfg.loss_floor > 0):
        raise ValueError("imitation.loss_floor must be > 0")
    if not (math.isfinite(cfg.focus_weight) and cfg.focus_weight >= 1.0):
        raise ValueError("imitation.focus_weight must be >= 1")
    if not (math.isfinite(cfg.still_weight) and cfg.still_weight >= 1.0):
        raise ValueError("imitation.still_weight must be >= 1")
    if not (math.isfinite(cfg.still_label) and cfg.still_label >= 0.0):
        raise ValueError("imitation.still_label must be >= 0")
    if not (math.isfinite(cfg.action_floor) and cfg.action_floor >= 0.0):
        raise ValueError("imitation.action_floor must be >= 0")
    if not (math.isfinite(cfg.action_floor_weight) and cfg.action_floor_weight > 0.0):
        raise ValueError("imitation.action_floor_weight must be > 0")
    if not (isinstance(cfg.clean_fraction, (int, float)) and 0.0 <= cfg.clean_fraction <= 1.0):
        raise ValueError(
            f"imitation.clean_fraction must lie in [0, 1], got {cfg.clean_fraction!r}"
        )
    return cfg


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
