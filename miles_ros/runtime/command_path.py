"""A learned skill's command path in the skill runtime: the arm's command-path model the
policy was trained behind (:mod:`sims.robots.actuator`), run on the policy's targets before
they are published, so what goes to the safety supervisor is a trajectory the arm can follow.

Every learned skill was trained behind that model: its target for a control period is
shaped at the controller rate (250 Hz) under the joint velocity, acceleration and jerk
limits, braking so it stops at the target, and the arm follows the shaped command. A policy
therefore asks for more than the arm can do in one period and relies on the shaping: a
reach asks for the full step every period, from rest too. Sent as they are, such targets
are shaped by the supervisor instead, and each is an intervention (``make demo``: ~100 per
reach); its shaping also differs from the model's in what it does between two targets.

:class:`CommandPath` runs the model itself (:func:`sims.kernels.actuator.shape_periods`,
the training backends' kernel) on each period's targets and returns the shaped command at
the end of the period with its velocity: a trajectory point the supervisor tracks in time
(``/miles/skill_command`` with ``velocity``; see
:meth:`~miles_ros.safety.inputs.SupervisorInputs._reference`), within the limits it
checks. The model's state starts at the robot's command (the supervisor's output,
``/miles/joint_command``) and follows it again whenever the two part by more than
:data:`SYNC_TOLERANCE` (a supervisor that held or slowed the arm).

The limits are config/safety.yaml's (:meth:`ActuatorModel.panda`), the supervisor's own.
How often the model had to shape a target is counted (:attr:`CommandPath.shaped`), so the
demand the supervisor no longer sees stays on record.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sims.kernels.actuator import CMD_Q, CMD_V, shape_periods
from sims.robots import panda
from sims.robots.actuator import ActuatorModel

SYNC_TOLERANCE = 0.01
"""rad: when the robot's command (extrapolated to now) is further than this from the model's
state on some joint, the model restarts from the command."""
LIMIT_MARGIN = 0.8
"""The model shapes within this fraction of the supervisor's acceleration and jerk limits:
the supervisor tracks its points with room to correct the small errors of its
interpolation (at the limits themselves, every correction is an intervention)."""
SHAPE_COMMANDS = True
"""skill_node sends a learned skill's targets through this model by default (its
``shape_commands``)."""
VELOCITY_SCALE = 0.55
"""Default fraction of the supervisor's joint velocity limits the model allows
(skill_node's ``command_velocity_scale``). At full speed a reach swings the hand so fast
that its braking distance (the supervisor's braking ball of the finger spheres, ~0.2 m at
1.6 rad/s on joint 2) reaches the robot_base keep-out zone and the supervisor slows the arm
(ROS-free replay of make demo's plan: 57-70 Cartesian interventions per reach at 0.9, 64
in one of two at 0.7, none at 0.55); the reach itself takes 0.80 s instead of 0.72 s: it is
limited by acceleration, not speed."""
SHAPED_TOLERANCE = 1e-6
"""rad: a period's shaped command further than this from its target counts as shaped."""


COMMAND_FRESH_S = 0.05
"""The safety supervisor's latest output (``/miles/joint_command``, 250 Hz) older than this
(s) no longer tells where the command is."""


class RobotCommand:
    """The command the robot last received (``/miles/joint_command``, the safety
    supervisor's output): the arm's positions, their velocity (the difference to the
    previous command) and its time. It runs ahead of the measured joints by the drives'
    lag, so a home move or a command path starts from it."""

    def __init__(self) -> None:
        self.q: np.ndarray | None = None
        self.v: np.ndarray | None = None
        self.time = -np.inf

    def update(self, arm: np.ndarray, now: float) -> None:
        """A command's 7 arm positions at ``now``."""
        q = np.array(arm[: panda.NUM_JOINTS], dtype=np.float64)
        v = np.zeros_like(q)
        if self.q is not None and 0.0 < now - self.time <= COMMAND_FRESH_S:
            v = (q - self.q) / (now - self.time)
        self.q, self.v, self.time = q, v, now

    def at(self, now: float) -> tuple[np.ndarray, np.ndarray] | None:
        """(q, velocity) moved on to ``now`` at its velocity; None when the latest command
        is unknown or older than :data:`COMMAND_FRESH_S`."""
        if self.q is None or not 0.0 <= now - self.time <= COMMAND_FRESH_S:
            return None
        return self.q + self.v * (now - self.time), self.v

    def moving(self, now: float, speed: float) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`at` ``now`` when some joint moves faster than ``speed`` (rad/s); None
        when the command is at rest or not fresh."""
        fresh = self.at(now)
        return fresh if fresh is not None and float(np.max(np.abs(fresh[1]))) > speed else None


def actuator_of(config) -> ActuatorModel:
    """The command-path model of a safety supervisor's config (a
    :class:`~miles_ros.safety.config.SafetyConfig`): its limits, margin, rate and limit mode."""
    lim = config.limits
    return ActuatorModel(
        rate_hz=float(config.rate_hz),
        velocity_limits=tuple(float(v) for v in lim.velocity),
        acceleration_limits=tuple(float(v) for v in lim.acceleration),
        jerk_limits=tuple(float(v) for v in lim.jerk),
        position_margin=float(config.position_margin),
        limit_mode=str(config.limit_mode),
    )


class CommandPath:
    """The command-path model of one running skill (module docstring)."""

    def __init__(
        self,
        control_dt: float,
        model: ActuatorModel | None = None,
        velocity_scale: float = VELOCITY_SCALE,
    ) -> None:
        if not 0.0 < velocity_scale <= 1.0:
            raise ValueError(f"command velocity_scale must be in (0, 1], got {velocity_scale}")
        model = ActuatorModel.panda() if model is None else model
        self.model = replace(
            model,
            velocity_limits=tuple(velocity_scale * v for v in model.velocity_limits),
            acceleration_limits=tuple(LIMIT_MARGIN * a for a in model.acceleration_limits),
            jerk_limits=tuple(LIMIT_MARGIN * j for j in model.jerk_limits),
        )
        """The model it runs: ``model`` (default: config/safety.yaml's) with
        ``velocity_scale`` of its velocity limits and :data:`LIMIT_MARGIN` of the others."""
        self.model.validate()
        self.substeps = self.model.substeps(control_dt)
        self.h = 1.0 / self.model.rate_hz
        self.limits = self.model.limit_arrays().reshape(-1)
        self.scale_mode = self.model.limit_mode == "scale"
        self.state: np.ndarray | None = None
        """[1, 21]: the command's positions, velocities, accelerations (None: not started)."""
        self.periods = 0
        """Control periods shaped."""
        self.shaped = 0
        """Periods whose command ended short of the policy's target on some joint."""
        self.resyncs = 0
        """Times the model restarted from the robot's command."""
        self._out = np.empty((1, self.substeps, panda.NUM_JOINTS))

    def sync(self, q: np.ndarray, v: np.ndarray) -> None:
        """Start from the command at ``q`` moving at ``v`` (acceleration 0)."""
        self.state = np.zeros((1, 3 * panda.NUM_JOINTS))
        self.state[0, CMD_Q : CMD_Q + 7] = q
        self.state[0, CMD_V : CMD_V + 7] = v

    def follow(self, q: np.ndarray, v: np.ndarray) -> bool:
        """The robot's command now (``q``, ``v``): restart from it when the model is not
        started or has parted from it (:data:`SYNC_TOLERANCE`). True when it restarted."""
        if self.state is not None:
            gap = np.abs(self.state[0, CMD_Q : CMD_Q + 7] - q)
            if float(np.max(gap)) <= SYNC_TOLERANCE:
                return False
            self.resyncs += 1
        self.sync(q, v)
        return True

    def step(self, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One control period toward the arm ``target`` [7]: the command's position and
        velocity at its end (call :meth:`sync` or :meth:`follow` first)."""
        if self.state is None:
            raise RuntimeError("CommandPath.step before sync()")
        goal = np.ascontiguousarray(np.asarray(target, dtype=np.float64).reshape(1, 7))
        shape_periods(self.state, goal, self.limits, self.h, self.scale_mode, self._out)
        q = self.state[0, CMD_Q : CMD_Q + 7].copy()
        self.periods += 1
        if float(np.max(np.abs(q - goal[0]))) > SHAPED_TOLERANCE:
            self.shaped += 1
        return q, self.state[0, CMD_V : CMD_V + 7].copy()
