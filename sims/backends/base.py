"""The batched interface every backend implements (gymnasium's vector API).

``reset(seed=...) -> (obs [N, D], info)``; ``step(actions [N, A]) -> (obs, reward,
terminated, truncated, info)``. Autoreset is gymnasium's SAME_STEP mode: an env that
ends in a step is reset inside that step, the returned ``obs`` row is the new episode's
first observation and ``info["final_obs"]`` holds the last one.

``info`` keys (arrays with leading dim N):
- ``success`` bool: the task's success predicate after this step (before any reset);
- ``final_obs`` float32 [N, D] and ``_final_obs`` bool: last observation of ended envs;
- ``episode_return`` / ``episode_length`` float: valid where ``_final_obs`` is set.
``terminated`` is success (the episode ends when the task is done); ``truncated`` is the
step count reaching ``episode_steps``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from sims.tasks import pick_place, push
from sims.tasks.base import TaskConfig


class BatchedEnv(VectorEnv):
    """Common plumbing: spaces, input validation, seeding. Backends implement the rest."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
    backend_name = "base"
    supports_stacking = False
    """Runs pick_place stacking episodes (``TaskConfig.stack_fraction`` > 0): PyBullet."""

    def __init__(self, task_module, num_envs: int, config: TaskConfig | None = None):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        self.task = task_module
        self.cfg: TaskConfig = config if config is not None else task_module.CONFIG
        pick_place.check_backend(
            task_module.CONFIG.name, self.cfg, self.supports_stacking, self.backend_name
        )
        push.check_regions(self.cfg)  # the cube and goal areas, before any world is built
        self.num_envs = int(num_envs)
        self.obs_dim = task_module.LAYOUT.dim
        self.action_dim = self.cfg.action_dim
        self.single_observation_space = spaces.Box(
            -np.inf, np.inf, shape=(self.obs_dim,), dtype=np.float32
        )
        self.single_action_space = spaces.Box(
            -1.0, 1.0, shape=(self.action_dim,), dtype=np.float32
        )
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(self.num_envs, self.obs_dim), dtype=np.float32
        )
        self.action_space = spaces.Box(
            -1.0, 1.0, shape=(self.num_envs, self.action_dim), dtype=np.float32
        )

    def privileged_observation(self) -> np.ndarray | None:
        """The current observation [N, D] with the cube's true pose in place of the one
        observed through ``randomization.pose_error`` (and, PyBullet, the engine's own
        finger opening in place of ``randomization.finger_reading``'s map), for an expert
        that labels from the truth; None where that error model is off. Backends that model
        the error implement it (numba, PyBullet)."""
        if self.cfg.randomization.pose_error.on:
            raise NotImplementedError(f"{self.backend_name}: no privileged observation")
        return None

    def set_quiet_envs(self, quiet) -> None:
        """Observe the envs where ``quiet`` ([N] bool) is True without the white observation
        noise (``randomization.observation_noise_std``), the others as before. Backends
        that draw that noise on the host implement it (PyBullet, Isaac); the others accept
        it only when the noise is off."""
        if self.cfg.randomization.observation_noise_std > 0 and np.any(quiet):
            raise NotImplementedError(
                f"{self.backend_name}: no per-env switch for the observation noise"
            )

    def check_actions(self, actions) -> np.ndarray:
        """Actions as float64 [N, A], clipped to [-1, 1]; ValueError for a wrong shape or
        non-finite values (never passed on to a kernel)."""
        actions = np.asarray(actions, dtype=np.float64)
        expected = (self.num_envs, self.action_dim)
        if actions.shape != expected:
            raise ValueError(
                f"{self.task.CONFIG.name}: actions must have shape {expected} "
                f"(num_envs, action_dim), got {actions.shape}"
            )
        if not np.all(np.isfinite(actions)):
            bad = np.argwhere(~np.isfinite(actions))[0]
            raise ValueError(
                f"{self.task.CONFIG.name}: non-finite action at env {bad[0]}, dim {bad[1]}"
            )
        return np.clip(actions, -1.0, 1.0)
