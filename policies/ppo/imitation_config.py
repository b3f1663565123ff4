"""The ``imitation:`` section of a training config: :class:`ImitationConfig` (every key an
imitation stage may set, DAgger in :mod:`policies.ppo.imitation`), its values' checks, and
the observation slices its state augmentation names. The other sections and the checks
across them are in :mod:`policies.ppo.config`, which reads this one."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

AUGMENT_GUARDS = ("buffer", "first_reset")
"""Values of ``imitation.augment_guard``."""
EXPERT_VIEWS = ("privileged", "seen")
"""Values of ``imitation.expert_view``."""


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
    expert_view: str = "privileged"
    """What the expert labels from (:data:`EXPERT_VIEWS`): ``privileged`` (default) the
    envs' privileged observation where they have one (the cube's true pose under
    ``env.pose_error``, the engine's own finger opening under ``env.finger_reading``),
    else what the student sees; ``seen``: always what the student sees."""
    expert_memory: bool = False
    """True: the rollout's labels come from the expert with its memory of the envs' past
    observations where its module keeps one (:func:`policies.experts.get_rollout_labeller`;
    pick_place: the finger reading's history, :class:`policies.experts.pick_place.GripWatch`,
    so the grip is the fingers stopped on the cube at whatever width they read it); the
    guard and ``label_augmented``'s relabelling, which see single states, use it without.
    False (default): every label from the state alone."""
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
    anchor_plain: float = 0.0
    """The share of the plain envs' states (``env.plain_fraction``; each state drawn with
    this probability) that the run's starting policy labels instead of the expert: its own
    deterministic action at the state as the student sees it in the regression
    (:func:`policies.finetune.parent_labels`, the rehearsal anchor of a fine-tune from
    logs), so a fine-tune from a skill (``--init-from``) keeps what that skill does without
    the supervisor while it learns the rest from the expert. The anchor is the model as the
    run starts (a resumed run refuses it: its start is not the anchor). 0: off."""


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


IMITATION_EXPERTS = ("", "scripted")
"""The values ``imitation.expert`` may take."""
IMITATION_LOSSES = ("mse", "relative")
"""The values ``imitation.loss`` may take."""


def imitation_from_dict(data: dict[str, Any]) -> ImitationConfig:
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
    if data.get("expert_view", "privileged") not in EXPERT_VIEWS:
        raise ValueError(
            f"imitation.expert_view must be one of {list(EXPERT_VIEWS)}, "
            f"got {data['expert_view']!r}"
        )
    if not isinstance(data.get("expert_memory", False), bool):
        raise ValueError(
            f"imitation.expert_memory must be true or false, got {data['expert_memory']!r}"
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
    if not (isinstance(cfg.anchor_plain, (int, float)) and 0.0 <= cfg.anchor_plain <= 1.0):
        raise ValueError(f"imitation.anchor_plain must lie in [0, 1], got {cfg.anchor_plain!r}")
    return cfg
