"""The step loop shared by the physics backends whose state lives on the host (PyBullet,
Isaac/Newton): validated settings, per-episode bookkeeping, the action-latency ring,
the task's own reward terms / success / observe (``info["reward/<term>"]``: each term,
weighted), the cube-pose error model, observation noise and SAME_STEP autoreset.

A backend subclasses :class:`HostPhysicsEnv` and implements the physics:
:meth:`~HostPhysicsEnv._advance` (arm targets of this period -> physics -> ``self._state``)
and :meth:`~HostPhysicsEnv._reset_envs` (new episodes for some envs, their draws in
``self._episode_draws`` and ``self._delay``). Actions become targets through
:func:`sims.control.joint_targets`, the mapping of every backend.

The arm's command path (:mod:`sims.robots.actuator`, ``actuator=`` of the backend): the
history ring is its latency, and :meth:`HostPhysicsEnv._shape_commands` its rate limiting
(the numba kernels' :func:`~sims.kernels.actuator.shape_joint`, batched), which turns a
period's targets into one command per controller period for the drives; the drives'
own tracking is the lag.
"""

from __future__ import annotations

import math

import numpy as np

from sims.backends.base import BatchedEnv
from sims.control import LiftGate
from sims.kernels.actuator import CMD_Q, shape_periods
from sims.robots.actuator import check_latency, effective_latency, resolve_actuator
from sims.tasks.base import SimState, TaskConfig, reported_finger_width, weighted_reward
from sims.tasks.registry import has_goal_yaw


def control_substeps(cfg: TaskConfig, physics_dt, substeps) -> tuple[float, int]:
    """``(physics_dt, substeps)`` checked against the task's control period (``substeps``
    None: as many physics steps as fit in one control period)."""
    if not (isinstance(physics_dt, (int, float)) and math.isfinite(physics_dt) and physics_dt > 0):
        raise ValueError(f"physics_dt must be a positive number of seconds, got {physics_dt!r}")
    if substeps is None:
        substeps = max(1, round(cfg.control_dt / physics_dt))
    if not isinstance(substeps, (int, np.integer)) or substeps < 1:
        raise ValueError(f"substeps must be an integer >= 1, got {substeps!r}")
    if abs(substeps * physics_dt - cfg.control_dt) > 1e-6 * cfg.control_dt + 1e-12:
        raise ValueError(
            f"substeps * physics_dt = {substeps} * {physics_dt} s does not equal the "
            f"task's control period {cfg.control_dt} s; change one of them"
        )
    return float(physics_dt), int(substeps)


class HostPhysicsEnv(BatchedEnv):
    """:class:`BatchedEnv` with the step loop of the host-state physics backends."""

    closed: bool
    observation_filter = None
    """What the policy is told instead of the measured state, or None: ``f(env, state,
    ids, started) -> state`` on a copy of the measured state of the envs ``ids`` (a
    SimState of those rows), before the observation noise; ``started``: they have just
    begun an episode (the reset), else they have just stepped one control period (every
    env steps at once). A
    perception model, say, replaces the cube's pose by the one it perceives (``miles eval
    --perception``); reward and success stay on the true state."""

    def _init_host_state(self, dense_reward: bool, autoreset: bool, actuator=None) -> None:
        """Settings and zeroed per-env state (call from ``__init__`` after ``super``);
        ``actuator``: the command-path model (:func:`sims.robots.actuator.resolve_actuator`)."""
        cfg, n = self.cfg, self.num_envs
        if cfg.action_mode not in ("joint", "cartesian"):
            raise ValueError(f"unknown action_mode {cfg.action_mode!r} in the task config")
        self.dense_reward = bool(dense_reward)
        self.autoreset = bool(autoreset)
        self.actuator = resolve_actuator(actuator)
        self._latency = effective_latency(self.actuator, cfg.randomization.action_latency_steps)
        if self._latency < 0:
            raise ValueError("randomization.action_latency_steps must be >= 0")
        check_latency(self._latency, cfg.episode_steps)
        if self.actuator is not None:
            m = self.actuator.substeps(cfg.control_dt)
            self._command = np.zeros((n, 21))
            self._command_limits = self.actuator.limit_arrays().reshape(-1)
            self._command_period = 1.0 / self.actuator.rate_hz
            self._command_schedule = np.zeros((n, m, 7))
        self._lift_gate = LiftGate.from_config(cfg, n)  # None where it is off
        self._noise_std = float(cfg.randomization.observation_noise_std)
        self._quiet = np.zeros(n, dtype=bool)  # observed without that noise (set_quiet_envs)
        pose_error = cfg.randomization.pose_error
        if pose_error.on and not cfg.has_object:
            raise ValueError(f"randomization.pose_error: task {cfg.name!r} has no cube")
        self._pose_error = pose_error if pose_error.on else None
        self._pose_bias = np.zeros((n, 3))  # this episode's bias: x, y, yaw
        self._seen_pose = np.zeros((n, 3))  # the pose observed last: x, y, yaw
        self._privileged_obs = np.zeros((n, self.obs_dim), dtype=np.float32)
        reading_on = tuple(cfg.randomization.finger_reading) != (0.0, 0.0)
        self._reading_offset = np.zeros(n) if reading_on else None
        self._state = SimState(
            joint_pos=np.zeros((n, 7)),
            joint_vel=np.zeros((n, 7)),
            tcp_pos=np.zeros((n, 3)),
            finger_width=np.zeros(n),
            object_pos=np.zeros((n, 3)),
            object_yaw=np.zeros(n),
            goal_pos=np.zeros((n, 3)),
            stack=np.zeros(n, dtype=bool),
            goal_yaw=np.zeros(n) if has_goal_yaw(self.task) else None,
            finger_centre=np.zeros(n),
        )
        self._arm_target = np.zeros((n, 7))
        self._steps = np.zeros(n, dtype=np.int64)
        self._returns = np.zeros(n)
        self._delay = np.zeros(n, dtype=np.int64)
        self._episode_draws = np.ones((n, 2))  # friction scale, mass scale
        self._history = np.zeros((n, self._latency + 1, self.action_dim))
        self._rng: np.random.Generator | None = None
        self._noise_rng: np.random.Generator | None = None
        self._needs_reset = True

    # --- what a backend implements -------------------------------------------------------
    def _advance(self, actions: np.ndarray) -> None:
        """Apply this period's (delayed) actions [N, A] and update ``self._state``."""
        raise NotImplementedError

    def _reset_envs(self, ids: np.ndarray) -> None:
        """Start new episodes for ``ids`` (state, goal, draws, ``_steps``/``_returns``)."""
        raise NotImplementedError

    def _draw_finger_reading(self, ids: np.ndarray) -> None:
        """The finger reading offset of new episodes ``ids`` (``randomization.finger_reading``,
        uniform; no draw where it is off, so episodes without it are unchanged)."""
        if self._reading_offset is not None:
            lo, hi = self.cfg.randomization.finger_reading
            self._reading_offset[ids] = self._rng.uniform(lo, hi, size=len(ids))

    # --- the command path ------------------------------------------------------------------
    def _shape_commands(self, arm_target: np.ndarray) -> np.ndarray:
        """The command of every controller period of this control period [N, m, 7] toward
        ``arm_target`` [N, 7] (the command state advances)."""
        shape_periods(
            self._command,
            arm_target,
            self._command_limits,
            self._command_period,
            self.actuator.limit_mode == "scale",
            self._command_schedule,
        )
        return self._command_schedule

    def _reset_commands(self, ids: np.ndarray) -> None:
        """The command path of envs ``ids`` at rest at their measured joint positions."""
        if self.actuator is not None:
            self._command[ids] = 0.0
            self._command[ids, CMD_Q : CMD_Q + 7] = self._state.joint_pos[ids]

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError(f"this {self.backend_name} env is closed")

    # --- gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Reset every env; ``seed`` reseeds all sampling (episodes, noise)."""
        self._check_open()
        if options:
            raise ValueError(f"reset options are not supported, got {sorted(options)}")
        if seed is not None or self._rng is None:
            streams = np.random.SeedSequence(seed).spawn(2)
            self._rng, self._noise_rng = (np.random.default_rng(s) for s in streams)
        self._reset_envs(np.arange(self.num_envs))
        if self._lift_gate is not None:
            self._lift_gate.reset()
        self._needs_reset = False
        return self._observe(started=True), {}

    def step(self, actions):
        """One control period for every env (see the backend's docstring for the physics)."""
        actions = self.check_actions(actions)
        self._check_open()
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        if self._latency:
            hist = self._history
            hist[:, 1:] = hist[:, :-1]
            hist[:, 0] = actions
            actions = hist[np.arange(self.num_envs), self._delay]
        if self._lift_gate is not None:  # the lift held until the fingers stop
            actions = self._lift_gate(actions, self._state.finger_width)
        self._advance(actions)

        state, cfg = self._state, self.cfg
        reward, terms = weighted_reward(self.task.reward_terms(state, cfg), cfg, self.dense_reward)
        success = np.asarray(self.task.success(state, cfg), dtype=bool)
        self._steps += 1
        self._returns += reward
        terminated = success.copy()
        truncated = self._steps >= cfg.episode_steps
        obs = self._observe()
        done = terminated | truncated
        info = {
            "success": success,
            "final_obs": np.zeros(obs.shape, dtype=np.float32),
            "_final_obs": np.zeros(self.num_envs, dtype=bool),
            "episode_return": np.zeros(self.num_envs),
            "episode_length": np.zeros(self.num_envs),
            **{f"reward/{name}": value for name, value in terms.items()},
        }
        if self.autoreset and done.any():
            ids = np.flatnonzero(done)
            info["final_obs"][ids] = obs[ids]
            info["_final_obs"][ids] = True
            info["episode_return"][ids] = self._returns[ids]
            info["episode_length"][ids] = self._steps[ids]
            self._reset_envs(ids)
            if self._lift_gate is not None:
                self._lift_gate.reset(ids)
            obs[ids] = self._observe(ids, started=True)
        return obs, reward, terminated, truncated, info

    # --- extras for tests, scripts and the ROS sim node ----------------------------------
    def get_state(self) -> SimState:
        """A copy of the current batched state (measured, without observation noise)."""
        return SimState(*(None if a is None else a.copy() for a in self._state))

    def set_goal(self, goal_pos, goal_yaw=None) -> None:
        """Replace the goals ([3] for every env or [N, 3]) and, for a task with a yaw goal,
        the cube's target yaws (``goal_yaw``, rad: a number or [N]; None: kept) without
        resetting anything."""
        self._check_open()
        goal = np.broadcast_to(np.asarray(goal_pos, dtype=np.float64), (self.num_envs, 3))
        if not np.all(np.isfinite(goal)):
            raise ValueError("goal_pos must be finite")
        if goal_yaw is not None:
            if self._state.goal_yaw is None:
                raise ValueError(f"{self.cfg.name} has no yaw goal")
            yaw = np.broadcast_to(np.asarray(goal_yaw, dtype=np.float64), (self.num_envs,))
            if not np.all(np.isfinite(yaw)):
                raise ValueError("goal_yaw must be finite")
            self._state.goal_yaw[:] = yaw
        self._state.goal_pos[:] = goal

    def randomization_state(self) -> dict[str, np.ndarray]:
        """This episode's draws per env: friction scale, mass scale, action delay and,
        where it is randomized, the finger reading offset (m)."""
        draws = {
            "friction_scale": self._episode_draws[:, 0].copy(),
            "mass_scale": self._episode_draws[:, 1].copy(),
            "action_delay": self._delay.copy(),
        }
        if self._reading_offset is not None:
            draws["finger_reading"] = self._reading_offset.copy()
        return draws

    # --- observation ---------------------------------------------------------------------
    def _observe(self, ids=None, started: bool = False) -> np.ndarray:
        s = self._state
        plain = (
            self._noise_std == 0.0 and self._reading_offset is None and self._pose_error is None
        )
        if ids is None and plain and self.observation_filter is None:
            return self.task.observe(s)
        if ids is not None:
            s = SimState(*(None if a is None else a[ids] for a in s))
        measured_width = s.finger_width  # the engine's own reading, before the map
        if self._reading_offset is not None:  # what the gripper reports of its opening
            offset = self._reading_offset if ids is None else self._reading_offset[ids]
            s = s._replace(finger_width=reported_finger_width(s.finger_width, offset))
        if self.observation_filter is not None:
            rows = np.arange(self.num_envs) if ids is None else np.asarray(ids)
            copy = SimState(*(None if a is None else a.copy() for a in s))
            s = self.observation_filter(self, copy, rows, started)
        true = s
        if self._pose_error is not None:
            s = self._perceive_cube(s, ids, started)
        noise = self._noise_draws(s, ids) if self._noise_std > 0.0 else {}
        obs = self.task.observe(_plus(s, noise))
        if self._pose_error is not None or self._reading_offset is not None:
            if self._reading_offset is not None:  # the engine's reading, not the map's
                true = true._replace(finger_width=measured_width)
            rows = slice(None) if ids is None else ids  # the same noise on the truth
            self._privileged_obs[rows] = self.task.observe(_plus(true, noise))
        return obs

    def privileged_observation(self) -> np.ndarray | None:
        """The current observation [N, D] with the cube's true pose in place of the one
        observed through ``randomization.pose_error`` and the engine's own finger opening
        in place of the one ``randomization.finger_reading`` maps it to (the same
        observation noise), for an expert that labels from the truth; None where both are
        off (the observation is the truth already)."""
        if self._pose_error is None and self._reading_offset is None:
            return None
        return self._privileged_obs.copy()

    def _perceive_cube(self, s: SimState, ids, started: bool) -> SimState:
        """``s`` (the rows ``ids``; None: all) with the cube pose observed through the
        error model (:class:`sims.tasks.base.CubePoseError`, the numba kernels'
        :func:`~sims.kernels.observe.perceive_cube`): a new episode (``started``) draws its
        bias and publishes; a step publishes with probability 1 - ``hold_prob``, else the
        last pose stays. Published: the true x, y and yaw plus the bias and this step's
        noise (normal, per axis)."""
        pe, rng = self._pose_error, self._noise_rng
        rows = np.arange(self.num_envs) if ids is None else np.asarray(ids)
        n = len(rows)
        yaw_bias, yaw_noise = math.radians(pe.bias_yaw_deg), math.radians(pe.noise_yaw_deg)
        if started:
            bias_std = np.array([pe.bias_xy_m, pe.bias_xy_m, yaw_bias])
            self._pose_bias[rows] = rng.normal(0.0, 1.0, (n, 3)) * bias_std
            publish = np.ones(n, dtype=bool)
        else:
            publish = rng.random(n) >= pe.hold_prob
        noise_std = np.array([pe.noise_xy_m, pe.noise_xy_m, yaw_noise])
        true = np.column_stack([s.object_pos[:, 0], s.object_pos[:, 1], s.object_yaw])
        fresh = true + self._pose_bias[rows] + rng.normal(0.0, 1.0, (n, 3)) * noise_std
        seen = self._seen_pose[rows]
        seen[publish] = fresh[publish]
        self._seen_pose[rows] = seen
        pos = s.object_pos.copy()
        pos[:, :2] = seen[:, :2]
        return s._replace(object_pos=pos, object_yaw=seen[:, 2].copy())

    def _noise_draws(self, s: SimState, ids=None) -> dict[str, np.ndarray]:
        """This observation's white noise, per noisy field of ``s`` (the rows ``ids``; None:
        all) (normal, ``observation_noise_std``; zero in the quiet envs, whose draws are
        still made, so the other envs' noise is what it was)."""
        names = ("joint_pos", "tcp_pos") + (
            ("object_pos", "object_yaw") if self.cfg.has_object else ()
        )
        rng, std = self._noise_rng, self._noise_std
        draws = {name: rng.normal(0.0, std, getattr(s, name).shape) for name in names}
        quiet = self._quiet if ids is None else self._quiet[ids]
        for value in draws.values():
            value[quiet] = 0.0
        return draws

    def set_quiet_envs(self, quiet) -> None:
        """See :meth:`BatchedEnv.set_quiet_envs`; ValueError for a wrong shape."""
        quiet = np.asarray(quiet, dtype=bool)
        if quiet.shape != (self.num_envs,):
            raise ValueError(f"quiet must have shape ({self.num_envs},), got {quiet.shape}")
        self._quiet = quiet.copy()


def _plus(s: SimState, noise: dict[str, np.ndarray]) -> SimState:
    """``s`` with ``noise`` added to its fields of those names."""
    return s._replace(**{name: getattr(s, name) + value for name, value in noise.items()})
