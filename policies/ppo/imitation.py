"""Imitation of a scripted expert (DAgger, Ross et al. 2011) as a training stage.

A run whose config sets ``imitation.expert: scripted`` trains with :class:`DAggerRunner`
instead of PPO: the same envs, evaluations, checkpoints, logs and stage machinery as
:class:`~policies.ppo.runner.OnPolicyRunner`, another rollout and update.

- Rollout: at every step the task's expert (:func:`policies.experts.get_expert`) labels
  the observation the policy sees (where the envs observe the cube through
  ``env.pose_error`` or, PyBullet, a finger reading mapped by ``env.finger_reading``: the
  same observation with the cube's true pose and the engine's own reading, the envs'
  ``privileged_observation``; ``expert_view: seen``: the observation the policy sees
  there too; ``expert_memory``: the expert keeps each env's past observations,
  :func:`policies.experts.get_rollout_labeller`); with probability beta (``beta_start``
  decaying linearly to ``beta_end`` over ``beta_steps`` env steps) the env executes the
  expert's action, otherwise the student's deterministic action plus Gaussian noise
  (``exploration_std``). So the student meets the states its own mistakes lead to, and
  learns what the expert would do there. The ``clean_fraction`` envs (:func:`clean_envs`)
  instead always execute the student's deterministic action on observations without the
  env's white noise, as ``miles eval`` runs it, so the states where that student holds
  still are visited and labelled too.
- Update: every labelled state goes into an aggregate buffer (``buffer_size``, oldest
  dropped first); ``gradient_steps`` minibatches from it regress the actor's mean onto the
  labels (``loss``: the mean squared error, or each state's squared error relative to its
  label's norm, :func:`imitation_loss`, each state counted ``focus_weight`` times where
  the expert marks it in focus, :func:`policies.experts.get_labeller`, and ``still_weight``
  times where the student held still there and the expert asked it to move,
  :func:`still_points`; with ``action_floor`` a hinge on the action's component along
  each label longer than the floor, :func:`action_floor_loss`; Adam, its step
  size decaying linearly from ``learning_rate`` to ``final_lr_fraction`` of it over the
  run). The critic regresses onto the rollout's GAE returns (``ppo.gamma``,
  ``ppo.gae_lambda``), so a PPO stage that follows starts with a critic that knows the
  task. The observation normalizer is
  updated as in PPO. Observation fields the expert never reads (``augment_fields``, e.g.
  the joint velocities, which each engine estimates its own way) are scaled by a random
  factor per state in that regression, so the student learns to ignore them too; the run
  checks on its first observations, and at every update on a sample of the buffer's
  states (:data:`GUARD_STATES`), that the expert's labels indeed ignore them. With
  ``label_augmented`` the expert instead labels each augmented state as the student sees
  it (a field the expert reads, such as pick_place's ``joint_vel`` in its close gate, then
  gets the label that agrees with its scaled value), and nothing is refused. With
  ``anchor_plain`` a share of the plain envs' states is labelled in the regression by the
  run's starting policy (:meth:`DAggerRunner.anchor_labels`) instead of the expert.
- The policy's std is ``exploration_std`` throughout (a PPO stage that follows explores
  from there).

One process only (a distributed run is refused); the buffer is not checkpointed (a
resumed stage refills it from its own rollouts). At the end of a run a random subset of
the buffer is saved (:data:`BUFFER_FILE`); a later stage with ``imitation.carry_states``
starts from that many of those states, so the last stage still regresses onto what the
earlier stages' backends taught (DAgger's aggregate across stages).

It stays one module at about 500 lines: one runner whose rollout, regression and the
expert's labelling (views, memory, anchors, guards) share its buffer and configuration;
the settings live in ``imitation_config.py`` and the loss in ``imitation_loss.py``.
"""

from __future__ import annotations

import copy
import math
import time
from pathlib import Path

import numpy as np
import torch

from policies.ppo.config import TrainConfig
from policies.ppo.envs import plain_envs
from policies.ppo.imitation_config import augment_field_slices
from policies.ppo.imitation_loss import (
    action_floor_loss,
    floor_states,
    imitation_loss,
    state_weights,
    still_loss_share,
    still_points,
)
from policies.ppo.runner import OnPolicyRunner

BUFFER_FILE = "imitation_buffer.pt"
"""Where an imitation run leaves a subset of its labelled states (:meth:`DAggerRunner.
save_buffer`) for the next stage's ``imitation.carry_states``."""
BUFFER_FILE_STATES = 500_000
"""At most this many states go into :data:`BUFFER_FILE`."""
GUARD_STATES = 2048
"""States of the buffer drawn at every update for the ``augment_fields`` guard
(:meth:`DAggerRunner.check_buffer`): four expert calls on them, a few ms."""


def runner_class(cfg: TrainConfig) -> type[OnPolicyRunner]:
    """The runner a config trains with: :class:`DAggerRunner` for an imitation config,
    else :class:`~policies.ppo.runner.OnPolicyRunner` (PPO)."""
    return DAggerRunner if cfg.imitation.expert else OnPolicyRunner


class DAggerRunner(OnPolicyRunner):
    """Trains ``cfg.task``'s policy by DAgger from its scripted expert (module docstring);
    the constructor takes :class:`~policies.ppo.runner.OnPolicyRunner`'s arguments."""

    def __init__(self, cfg: TrainConfig, run_dir, **kwargs):
        from policies.experts import get_expert, get_labeller, get_rollout_labeller

        dist = kwargs.get("dist")
        if dist is not None and dist.world_size > 1:
            raise ValueError("an imitation run trains in one process (no torchrun)")
        # unknown task or setting: ValueError before any env
        self.expert = get_expert(cfg.task, cfg.imitation.expert_settings)
        self.labeller = get_labeller(cfg.task, cfg.imitation.expert_settings)
        self.rollout_labeller = (
            get_rollout_labeller(cfg.task, cfg.imitation.expert_settings)
            if cfg.imitation.expert_memory
            else None
        )
        """The rollout's labeller with the expert's memory under ``expert_memory``; None:
        :attr:`labeller` as it is when the rollout runs."""
        self.augment_columns = augment_columns(cfg.task, cfg.imitation.augment_fields)
        """Observation columns scaled per state in the regression (``augment_fields``)."""
        super().__init__(cfg, run_dir, **kwargs)
        ic, rc = cfg.imitation, cfg.runner
        self.task_config = self.env.cfg
        """The task config the expert reads (its Cartesian step, control period)."""
        self.labels = torch.zeros(rc.rollout_steps, self.env.num_envs, self.action_dim)
        self.focus = torch.zeros(rc.rollout_steps, self.env.num_envs, dtype=torch.bool)
        self.still = torch.zeros(rc.rollout_steps, self.env.num_envs, dtype=torch.bool)
        self.anchor = torch.zeros(rc.rollout_steps, self.env.num_envs, dtype=torch.bool)
        size = ic.buffer_size
        self.buffer_obs = torch.zeros(size, self.obs_dim)
        self.buffer_labels = torch.zeros(size, self.action_dim)
        self.buffer_focus = torch.zeros(size, dtype=torch.bool)
        self.buffer_still = torch.zeros(size, dtype=torch.bool)
        self.buffer_anchor = torch.zeros(size, dtype=torch.bool)
        self.views = self.buffer_view = None
        if ic.label_augmented:
            # the expert's view of each state, relabelled augmented in the regression
            self.views = torch.zeros(rc.rollout_steps, self.env.num_envs, self.obs_dim)
            self.buffer_view = torch.zeros(size, self.obs_dim)
        self.buffer_len = 0
        self.buffer_next = 0
        params = list(self.model.actor.parameters()) + list(self.model.critic.parameters())
        self.optimizer = torch.optim.Adam(params, lr=ic.learning_rate)
        self.generator = torch.Generator().manual_seed(int(cfg.seed))
        self.guard_generator = torch.Generator().manual_seed(int(cfg.seed) + 1)
        """Draws the guard's sample (its own: the training's draws stay as without it)."""
        clean = clean_envs(self.env.num_envs, ic.clean_fraction)
        if clean.any():
            try:
                self.env.set_quiet_envs(clean)
            except NotImplementedError as exc:
                self.close()
                raise ValueError(f"imitation.clean_fraction: {exc}") from None
        self.clean = torch.as_tensor(clean)
        """[N] bool: the envs rolled as ``miles eval`` runs the student (``clean_fraction``)."""
        self.anchored_envs = torch.as_tensor(plain_envs(self.env.num_envs, 0.0))
        """[N] bool: the envs whose states ``imitation.anchor_plain`` may anchor."""
        if ic.anchor_plain:
            self.anchored_envs = torch.as_tensor(
                plain_envs(self.env.num_envs, cfg.env.plain_fraction)
            )
            if not self.anchored_envs.any():
                self.close()
                raise ValueError("imitation.anchor_plain: no plain envs (env.plain_fraction)")
        self.anchor_generator = torch.Generator().manual_seed(int(cfg.seed) + 2)
        """Draws the anchored states (its own: the training's draws stay as without it)."""
        self.anchor_model = None
        """The run's starting policy (``anchor_plain``), taken at its first rollout."""

    def beta(self) -> float:
        """The probability of executing the expert's action at the current env step."""
        ic = self.cfg.imitation
        frac = min(1.0, self.env_steps / max(1, ic.beta_steps))
        return ic.beta_start + (ic.beta_end - ic.beta_start) * frac

    def learn(self):
        with torch.no_grad():
            self.model.log_std.fill_(math.log(self.cfg.imitation.exploration_std))
        summary = super().learn()
        self.save_buffer()
        return summary

    def save_buffer(self, max_states: int = BUFFER_FILE_STATES) -> Path | None:
        """A random subset (at most ``max_states``) of the labelled states into
        :data:`BUFFER_FILE` in the run directory, for a later stage's ``carry_states``."""
        if not self.is_main or self.buffer_len == 0:
            return None
        keep = torch.randperm(self.buffer_len, generator=self.generator)[:max_states]
        path = self.run_dir / BUFFER_FILE
        data = {
            "obs": self.buffer_obs[keep].clone(),
            "labels": self.buffer_labels[keep].clone(),
            "focus": self.buffer_focus[keep].clone(),
            "still": self.buffer_still[keep].clone(),
        }
        if self.buffer_view is not None:
            data["view"] = self.buffer_view[keep].clone()
        torch.save(data, path)
        return path

    def carry(self, path: str | Path) -> int:
        """Start the buffer with up to ``imitation.carry_states`` labelled states saved by an
        earlier stage (:meth:`save_buffer`); returns how many. ValueError when their
        dimensions are not this run's."""
        data = torch.load(path, map_location="cpu", weights_only=True)
        obs, labels = data["obs"], data["labels"]
        if obs.shape[1:] != (self.obs_dim,) or labels.shape[1:] != (self.action_dim,):
            raise ValueError(f"{path}: states of another observation or action size")
        n = min(self.cfg.imitation.carry_states, obs.shape[0])
        pick = torch.randperm(obs.shape[0], generator=self.generator)[:n]
        none = torch.zeros(obs.shape[0], dtype=torch.bool)
        focus, still = data.get("focus", none), data.get("still", none)  # older files
        view = data.get("view", obs)  # a stage without label_augmented: its own states
        self._aggregate(obs[pick], labels[pick], focus[pick], still[pick], view[pick])
        return n

    def _guarded(self) -> bool:
        """Whether the run checks that the expert ignores the ``augment_fields``: they are
        set and their scaled states are not relabelled (``label_augmented``)."""
        return len(self.augment_columns) > 0 and not self.cfg.imitation.label_augmented

    def _reset_envs(self) -> torch.Tensor:
        obs = super()._reset_envs()
        if self._guarded() and not getattr(self, "_augment_checked", False):
            self.check_expert_ignores(obs)
            self._augment_checked = True
        return obs

    def check_buffer(self, max_states: int = GUARD_STATES) -> None:
        """:meth:`check_expert_ignores` on a random sample (at most ``max_states``) of the
        buffer's states, where the states that matter are (an arm settled over the cube,
        which the first reset never shows); nothing to check without the guard."""
        if (
            not self._guarded()
            or self.cfg.imitation.augment_guard == "first_reset"
            or self.buffer_len == 0
        ):
            return
        n = min(max_states, self.buffer_len)
        pick = torch.randperm(self.buffer_len, generator=self.guard_generator)[:n]
        self.check_expert_ignores(self.buffer_obs[pick])

    def check_expert_ignores(self, obs: torch.Tensor) -> None:
        """ValueError unless the expert's labels of ``obs`` ignore the ``augment_fields``
        (:func:`expert_ignores`)."""
        ic = self.cfg.imitation
        base = obs.detach().cpu().float().numpy()
        if not expert_ignores(
            self.expert, self.task_config, base, self.augment_columns, ic.augment_scale
        ):
            raise ValueError(
                f"imitation.augment_fields {list(ic.augment_fields)}: the {self.cfg.task} "
                "expert's actions depend on them; augment only fields the expert does not read, "
                "or label the augmented states (imitation.label_augmented: true)"
            )

    def augment_factor(self, n: int) -> torch.Tensor:
        """[n, 1] factors, uniform in ``imitation.augment_scale`` (one per state)."""
        lo, hi = self.cfg.imitation.augment_scale
        return lo + (hi - lo) * torch.rand(n, 1, generator=self.generator)

    def augment(self, obs: torch.Tensor, factor: torch.Tensor | None = None) -> torch.Tensor:
        """``obs`` (a copy) with its ``augment_fields`` columns multiplied by one factor per
        state: ``factor`` [N, 1], or drawn (:meth:`augment_factor`)."""
        if not len(self.augment_columns):
            return obs
        if factor is None:
            factor = self.augment_factor(obs.shape[0])
        obs = obs.clone()
        obs[:, self.augment_columns] = obs[:, self.augment_columns] * factor
        return obs

    def regression_batch(self, i: torch.Tensor):
        """The buffer's states ``i`` as the regression sees them: (observations augmented,
        labels, focus). With ``label_augmented`` the labels and focus are the expert's on
        the augmented view of the same states (the same factor per state), else the
        buffer's own."""
        if self.buffer_view is None or not len(self.augment_columns):
            return self.augment(self.buffer_obs[i]), self.buffer_labels[i], self.buffer_focus[i]
        factor = self.augment_factor(len(i))
        labels, focus = self.label(self.augment(self.buffer_view[i], factor))
        return self.augment(self.buffer_obs[i], factor), labels.cpu(), focus

    def expert_view(self, obs: torch.Tensor) -> torch.Tensor:
        """What the expert labels the envs' current states from: their privileged
        observation where training observes the cube through ``env.pose_error`` or a
        finger reading mapped by ``env.finger_reading`` (PyBullet; the true pose and the
        engine's own reading: the student learns to act well on what it sees, not to copy
        the expert's reaction to a wrong pose or opening), else, or with
        ``imitation.expert_view: seen``, ``obs`` itself."""
        if self.cfg.imitation.expert_view == "seen":
            return obs
        privileged = self.env.privileged_observation()
        return obs if privileged is None else self.envs.to_torch(privileged)

    def label(self, obs: torch.Tensor, labeller=None) -> tuple[torch.Tensor, torch.Tensor]:
        """The expert's actions for observations ``obs`` (on the model's device) and which
        states it marks in focus ([N] bool, on the CPU); ``labeller``: default
        :attr:`labeller`, the expert on single states."""
        labeller = self.labeller if labeller is None else labeller
        actions, focus = labeller(obs.detach().cpu().numpy(), self.task_config)
        actions = np.clip(np.asarray(actions, dtype=np.float32), -1.0, 1.0)
        focus = torch.as_tensor(np.asarray(focus, dtype=bool))
        return torch.as_tensor(actions, device=self.device), focus

    def anchor_labels(self, obs: torch.Tensor) -> torch.Tensor:
        """[N, A] on the CPU: the run's starting policy's own deterministic actions at
        ``obs`` (as the student sees them), the labels of the anchored states."""
        from policies.finetune import parent_labels

        return torch.as_tensor(parent_labels(self.anchor_model, obs.detach().cpu().numpy()))

    def _take_anchor(self) -> None:
        """Keep the model as the run starts as the anchor (``anchor_plain``); ValueError in
        a resumed run, whose model is no longer the start."""
        if not self.cfg.imitation.anchor_plain or self.anchor_model is not None:
            return
        if self.env_steps > 0:
            raise ValueError("imitation.anchor_plain: a resumed run has lost its anchor")
        self.anchor_model = copy.deepcopy(self.model).eval()

    def _rollout(self, obs: torch.Tensor):
        """``rollout_steps`` steps of the mixed policy; labels into :attr:`labels`."""
        self._take_anchor()
        model, envs, storage = self.model, self.envs, self.storage
        anchor_share = self.cfg.imitation.anchor_plain
        steps, gamma = self.cfg.runner.rollout_steps, self.cfg.ppo.gamma
        beta, std = self.beta(), self.cfg.imitation.exploration_std
        n = self.env.num_envs
        env_s = policy_s = 0.0
        model.eval()
        with torch.no_grad():
            for t in range(steps):
                t0 = time.perf_counter()
                view = self.expert_view(obs)
                label, focus = self.label(view, self.rollout_labeller)
                student = model.act_deterministic(obs)
                self.still[t] = still_points(student, label, self.cfg.imitation.still_label)
                noise = torch.randn(student.shape, generator=self.generator) * std
                noise[self.clean] = 0.0  # drawn all the same: the other envs' draws stay
                student = student + noise.to(self.device)
                use_expert = torch.rand(n, generator=self.generator) < beta
                use_expert = (use_expert & ~self.clean).to(self.device)
                actions = torch.where(use_expert[:, None], label, student)
                values = model.value(obs)
                t1 = time.perf_counter()
                next_obs, reward, terminated, truncated, info = envs.env.step(envs.to_env(actions))
                t2 = time.perf_counter()
                reward, done = envs.outcome(
                    reward, terminated, truncated, info, self.episodes, model.value, gamma
                )
                storage.add(obs, actions, torch.zeros(n, device=self.device), values, reward, done)
                self.labels[t] = label.cpu()
                self.focus[t] = focus
                if anchor_share:
                    drawn = torch.rand(n, generator=self.anchor_generator) < anchor_share
                    self.anchor[t] = self.anchored_envs & drawn
                if self.views is not None:
                    self.views[t] = view.cpu()
                obs = envs.to_torch(next_obs)
                policy_s += (t1 - t0) + (time.perf_counter() - t2)
                env_s += t2 - t1
            last_values = model.value(obs)
        return obs, last_values, env_s, policy_s

    def _aggregate(
        self,
        obs: torch.Tensor,
        labels: torch.Tensor,
        focus: torch.Tensor,
        still: torch.Tensor | None = None,
        view: torch.Tensor | None = None,
        anchor: torch.Tensor | None = None,
    ) -> None:
        """Append labelled states (whether each is in focus, a still point and anchored,
        and with ``label_augmented`` the expert's ``view`` of each, ``obs`` where None) to
        the ring buffer."""
        size = self.buffer_obs.shape[0]
        none = torch.zeros(obs.shape[0], dtype=torch.bool)
        still = none if still is None else still
        anchor = none if anchor is None else anchor
        obs, labels, focus, still = obs[-size:], labels[-size:], focus[-size:], still[-size:]
        anchor = anchor[-size:]
        k = obs.shape[0]
        idx = (self.buffer_next + torch.arange(k)) % size
        self.buffer_obs[idx] = obs
        self.buffer_labels[idx] = labels
        self.buffer_focus[idx] = focus
        self.buffer_still[idx] = still
        self.buffer_anchor[idx] = anchor
        if self.buffer_view is not None:
            self.buffer_view[idx] = obs if view is None else view[-size:]
        self.buffer_next = int((self.buffer_next + k) % size)
        self.buffer_len = min(size, self.buffer_len + k)

    def _update(self, last_values: torch.Tensor) -> dict[str, float]:
        """Aggregate the rollout, regress the actor onto the labels and the critic onto the
        returns; returns the update's statistics."""
        ic, ppo_cfg = self.cfg.imitation, self.cfg.ppo
        storage = self.storage
        storage.compute_returns(last_values, ppo_cfg.gamma, ppo_cfg.gae_lambda)
        obs = storage.obs.reshape(-1, self.obs_dim).cpu()
        returns = storage.returns.reshape(-1).cpu()
        views = None if self.views is None else self.views.reshape(-1, self.obs_dim)
        self._aggregate(
            obs,
            self.labels.reshape(-1, self.action_dim),
            self.focus.reshape(-1),
            self.still.reshape(-1),
            views,
            self.anchor.reshape(-1),
        )
        self.check_buffer()
        if self.model.normalizer is not None:
            self.dist.merge_normalizer(self.model.normalizer, storage.obs)
        frac = min(1.0, self.env_steps / max(1, self.cfg.runner.total_steps))
        lr = ic.learning_rate * (1.0 - (1.0 - ic.final_lr_fraction) * frac)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.model.train()
        batch = min(ic.minibatch_size, self.buffer_len)
        actor_total = value_total = 0.0
        still_loss = np.zeros(2)  # the still points' share of the loss: weighted, unweighted
        floor_total = floor_held = 0.0  # imitation.action_floor's term, its states' share
        for _ in range(ic.gradient_steps):
            i = torch.randint(0, self.buffer_len, (batch,), generator=self.generator)
            j = torch.randint(0, obs.shape[0], (batch,), generator=self.generator)
            x, labels, focus = self.regression_batch(i)
            anchored = self.buffer_anchor[i]
            if anchored.any():
                labels = labels.clone()
                labels[anchored] = self.anchor_labels(x[anchored]).to(labels)
            x = self.model.normalize(x.to(self.device))
            weight = state_weights(focus, self.buffer_still[i], ic.focus_weight, ic.still_weight)
            weight = None if weight is None else weight.to(x)
            actor = self.model.actor(x)
            labels = labels.to(x)
            actor_loss = imitation_loss(actor, labels, ic.loss, ic.loss_floor, weight)
            if ic.action_floor > 0.0:
                hinge = action_floor_loss(
                    actor, labels, ic.action_floor, ic.action_floor_weight, weight
                )
                actor_loss = actor_loss + hinge
                floor_total += float(hinge.detach())
                floor_held += float(
                    floor_states(actor.detach(), labels, ic.action_floor).float().mean()
                )
            for n, w in enumerate((weight, None)):
                still_loss[n] += still_loss_share(
                    actor.detach(), labels, ic.loss, ic.loss_floor, w, self.buffer_still[i]
                )
            v = self.model.value(obs[j].to(self.device))
            value_loss = torch.mean((v - returns[j].to(v)) ** 2)
            loss = actor_loss + ppo_cfg.value_loss_coef * value_loss
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(
                [p for g in self.optimizer.param_groups for p in g["params"]],
                ppo_cfg.max_grad_norm,
            )
            self.optimizer.step()
            actor_total += float(actor_loss.detach())
            value_total += float(value_loss.detach())
        storage.clear()
        k = ic.gradient_steps
        return {
            "imitation_loss": actor_total / k,
            "value_loss": value_total / k,
            "beta": self.beta(),
            "buffer_states": float(self.buffer_len),
            "focus_share": float(self.focus.float().mean()),
            "still_share": float(self.still.float().mean()),
            "anchor_share": float(self.anchor.float().mean()),
            "still_buffer_share": float(self.buffer_still[: self.buffer_len].float().mean()),
            "still_loss_share": float(still_loss[0]) / k,
            "still_loss_share_unweighted": float(still_loss[1]) / k,
            "floor_loss": floor_total / k,
            "floor_share": floor_held / k,
            "learning_rate": lr,
        }


def clean_envs(num_envs: int, fraction: float) -> np.ndarray:
    """[num_envs] bool: ``round(fraction x num_envs)`` envs spread evenly over the indices
    (16 envs at 0.25: 0, 4, 8, 12; so both the supervised envs and the plain ones at the
    end, ``env.plain_fraction``, get some), ``imitation.clean_fraction``."""
    k = round(fraction * num_envs)
    clean = np.zeros(num_envs, dtype=bool)
    if k:
        clean[(np.arange(k) * num_envs) // k] = True
    return clean


def augment_columns(task: str, fields) -> torch.Tensor:
    """The observation columns of ``task``'s ``fields`` (names of its ``LAYOUT``), as an
    index tensor; ValueError naming the task's fields for an unknown one."""
    cols = [c for sl in augment_field_slices(task, fields) for c in range(sl.start, sl.stop)]
    return torch.tensor(sorted(set(cols)), dtype=torch.long)


def expert_ignores(expert, task_config, obs: np.ndarray, columns, scale, seed: int = 0) -> bool:
    """True when ``expert``'s actions for observations ``obs`` [N, D] stay the same (to
    1e-6) with the ``columns`` replaced by standard normal draws, and scaled by either end
    of ``scale``."""
    obs = np.asarray(obs, dtype=np.float64)
    cols = np.asarray(columns, dtype=np.int64)
    labels = np.asarray(expert(obs, task_config), dtype=np.float64)
    rng = np.random.default_rng(seed)
    trials = [rng.standard_normal((obs.shape[0], cols.size))] + [obs[:, cols] * f for f in scale]
    for values in trials:
        other = obs.copy()
        other[:, cols] = values
        if not np.allclose(np.asarray(expert(other, task_config)), labels, atol=1e-6):
            return False
    return True
