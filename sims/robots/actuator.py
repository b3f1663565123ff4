"""The arm's command path as a model: what happens between a skill's joint targets and
the joints of a real Panda, for every training backend.

A real arm does not jump to each period's target. Between the skill and the joints:

1. **Latency**: the command arrives 0..k control periods late (network, executor,
   driver); each episode draws its delay (Isaac Lab's ``DelayedPDActuator`` does the
   same). This is the backends' action-delay line (``S_DELAY`` / the host history ring).
2. **Rate limiting**: at the controller rate (250 Hz, the safety supervisor's output
   rate) the command moves toward the target under the joint velocity, acceleration
   and jerk limits, braking so that it stops at the target, and never leaves the joint
   position band (limits minus the supervisor's margin): the shaping of
   :mod:`miles_ros.safety.shaping` and of libfranka's rate limiter, per joint (clamp
   mode, as libfranka). The maths is :mod:`sims.kernels.stopping`, shared with the
   supervisor; the per-period model is :mod:`sims.kernels.actuator`.
3. **Position-controller lag**: the joint follows the shaped command as a first-order
   lag with time constant ``lag_time_constant`` (the numba backend; PyBullet's and
   Newton's position drives are their own lag). By default PyBullet's: its position
   drives close ``PYBULLET_POSITION_GAIN`` (0.1, its default) of the gap every physics
   step of ``PYBULLET_PHYSICS_DT`` (2 ms), a lag of ``-0.002 / ln(0.9)`` = 19 ms; on the
   same command streams the numba joints then stay within 1e-3 rad of PyBullet's
   (``tests/sims/test_actuator.py``), against 0.1 rad for the task's ``tracking_gain``.

Numbers: the limits are the datasheet's (:mod:`sims.robots.panda`), scaled by the
deployment's ``velocity_scale`` / ``acceleration_scale`` / ``jerk_scale``, with its
``position_margin`` and ``rate_hz``, all read from the safety parameter file
(``config/safety.yaml``, ``safety_node: ros__parameters:``), so a user who narrows the
robot's limits there trains on them too.

Backends take it as ``make_env(..., actuator="panda" | "none" | ActuatorModel(...))``;
training configs as ``env.actuator``. Off by default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from sims import yaml_files
from sims.robots import panda

PYBULLET_POSITION_GAIN = 0.1
"""Fraction of the position error PyBullet's position drives close per physics step (its
default ``positionGain``, which the PyBullet backend keeps)."""
PYBULLET_PHYSICS_DT = 0.002
"""The PyBullet backend's default physics step (s)."""
PYBULLET_DRIVE_LAG = -PYBULLET_PHYSICS_DT / math.log(1.0 - PYBULLET_POSITION_GAIN)
"""The first-order time constant (s) of PyBullet's position drives (about 19 ms)."""
LIMIT_MODES = ("clamp", "scale")
"""How the shaping meets a limit: each joint on its own, or one factor on the velocity
vector (the supervisor's ``limit_mode``)."""
SAFETY_PARAMS_FILE = "safety.yaml"
"""The safety supervisor's ROS parameter file (in the config folder beside scene.yaml)."""
SAFETY_NODE = "safety_node"
"""Its node section."""
ACTUATOR_NAMES = ("none", "panda")
"""Names ``make_env(actuator=...)`` and ``env.actuator`` accept."""


def _limits(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


@dataclass(frozen=True)
class ActuatorModel:
    """Parameters of the command-path model (see the module docstring). Build the robot's
    with :meth:`panda`; ``dataclasses.replace`` changes single fields."""

    enabled: bool = True
    """False: the backend applies its plain tracking (bit-identical to no model)."""
    rate_hz: float = 250.0
    """Controller rate (Hz): the shaping runs ``control_dt * rate_hz`` times per control
    period (an integer)."""
    velocity_limits: tuple[float, ...] = field(
        default_factory=lambda: _limits(panda.joint_velocity_limits)
    )
    """Per-joint velocity limits (rad/s)."""
    acceleration_limits: tuple[float, ...] = field(
        default_factory=lambda: _limits(panda.joint_acceleration_limits)
    )
    """Per-joint acceleration limits (rad/s^2)."""
    jerk_limits: tuple[float, ...] = field(
        default_factory=lambda: _limits(panda.joint_jerk_limits)
    )
    """Per-joint jerk limits (rad/s^3)."""
    position_margin: float = 0.1
    """Distance (rad) the command keeps from the datasheet position limits."""
    limit_mode: str = "scale"
    """``scale``: one factor on the whole joint velocity vector keeps its direction when a
    joint is limited (the supervisor's default); ``clamp``: each joint on its own
    (libfranka's rate limiter)."""
    lag_time_constant: float = PYBULLET_DRIVE_LAG
    """First-order lag (s) of the joints behind the shaped command (numba backend; 0: none)."""
    latency_steps: int = 0
    """Max command latency k (control periods); each episode draws a delay in [0, k]. The
    same delay line as ``DomainRandomization.action_latency_steps`` (set one of them)."""

    # --- construction ---------------------------------------------------------------------
    @classmethod
    def panda(cls, safety_params: str | Path | None = None, **overrides) -> ActuatorModel:
        """The Panda's command path: datasheet limits (:mod:`sims.robots.panda`) with the
        scales, margin and rate of the safety parameter file (default
        ``config/safety.yaml``); ``overrides`` replace fields."""
        params = read_safety_params(safety_params)
        scales = {}
        for name in ("velocity_scale", "acceleration_scale", "jerk_scale"):
            scale = float(params.get(name, 1.0))
            if not 0.0 < scale <= 1.0:
                raise ValueError(f"{SAFETY_PARAMS_FILE}: {name} must be in (0, 1], got {scale}")
            scales[name] = scale
        model = cls(
            rate_hz=float(params.get("rate_hz", cls.rate_hz)),
            velocity_limits=_limits(panda.joint_velocity_limits * scales["velocity_scale"]),
            acceleration_limits=_limits(
                panda.joint_acceleration_limits * scales["acceleration_scale"]
            ),
            jerk_limits=_limits(panda.joint_jerk_limits * scales["jerk_scale"]),
            position_margin=float(params.get("position_margin", cls.position_margin)),
            limit_mode=str(params.get("limit_mode", cls.limit_mode)),
        )
        return replace(model, **overrides)

    # --- derived numbers --------------------------------------------------------------------
    def substeps(self, control_dt: float) -> int:
        """Controller periods per control period; ValueError unless a whole number."""
        n = control_dt * self.rate_hz
        if not (round(n) >= 1 and abs(n - round(n)) < 1e-6 * max(1.0, n)):
            raise ValueError(
                f"actuator: control_dt {control_dt} s x rate_hz {self.rate_hz} Hz = {n:g} "
                "controller periods per control period; it must be a whole number >= 1"
            )
        return int(round(n))

    def lag_alpha(self) -> float:
        """Fraction of the gap to the command the joints close per controller period."""
        tau = self.lag_time_constant
        return 1.0 if tau == 0.0 else 1.0 - math.exp(-1.0 / (self.rate_hz * tau))

    def position_band(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) [7]: the datasheet position limits shrunk by the margin."""
        return (
            panda.joint_position_min + self.position_margin,
            panda.joint_position_max - self.position_margin,
        )

    def limit_arrays(self) -> np.ndarray:
        """[6, 7]: velocity, acceleration, jerk limits, lower and upper position band, and
        the band reach of one period (rows ``LIM_*`` of :mod:`sims.kernels.actuator`)."""
        from sims.kernels.stopping import band_reach

        lo, hi = self.position_band()
        h = 1.0 / self.rate_hz
        reach = [
            band_reach(v, a, j, h)
            for v, a, j in zip(
                self.velocity_limits, self.acceleration_limits, self.jerk_limits, strict=True
            )
        ]
        return np.array(
            [self.velocity_limits, self.acceleration_limits, self.jerk_limits, lo, hi, reach],
            dtype=np.float64,
        )

    # --- checks -----------------------------------------------------------------------------
    def validate(self) -> None:
        """ValueError with a specific message for an unusable model."""
        if not (math.isfinite(self.rate_hz) and 1.0 <= self.rate_hz <= 10_000.0):
            raise ValueError(f"actuator.rate_hz must be in [1, 10000] Hz, got {self.rate_hz}")
        for name in ("velocity_limits", "acceleration_limits", "jerk_limits"):
            values = np.asarray(getattr(self, name), dtype=np.float64)
            if values.shape != (panda.NUM_JOINTS,):
                raise ValueError(f"actuator.{name}: need {panda.NUM_JOINTS} values")
            if not np.all(np.isfinite(values)) or np.any(values <= 0.0):
                raise ValueError(f"actuator.{name} must be positive and finite, got {values}")
        lo, hi = self.position_band()
        if not (math.isfinite(self.position_margin) and self.position_margin >= 0.0):
            raise ValueError(f"actuator.position_margin must be >= 0, got {self.position_margin}")
        if np.any(lo >= hi):
            raise ValueError(f"actuator.position_margin {self.position_margin} rad closes a band")
        if self.limit_mode not in LIMIT_MODES:
            raise ValueError(
                f"actuator.limit_mode must be one of {LIMIT_MODES}, got {self.limit_mode!r}"
            )
        tau = self.lag_time_constant
        if not (isinstance(tau, (int, float)) and math.isfinite(tau) and tau >= 0.0):
            raise ValueError(f"actuator.lag_time_constant must be a number >= 0 s, got {tau!r}")
        k = self.latency_steps
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"actuator.latency_steps must be an integer >= 0, got {k!r}")


def check_latency(latency_steps: int, episode_steps: int) -> None:
    """ValueError unless a delay of up to ``latency_steps`` periods leaves the episode
    (``episode_steps``) at least one step of its own actions."""
    if latency_steps >= episode_steps:
        raise ValueError(
            f"command latency of up to {latency_steps} control periods is not shorter than "
            f"the episode ({episode_steps} steps): no action would ever reach the arm"
        )


def resolve_actuator(spec) -> ActuatorModel | None:
    """The model a backend applies: ``None``, ``"none"`` or a disabled model -> None (off);
    ``"panda"`` -> :meth:`ActuatorModel.panda`; an :class:`ActuatorModel` as is. The model
    is validated; ValueError for anything else."""
    if spec is None or spec is False:
        return None
    if isinstance(spec, str):
        if spec == "none":
            return None
        if spec == "panda":
            spec = ActuatorModel.panda()
        else:
            raise ValueError(
                f"unknown actuator {spec!r}; choose one of {', '.join(ACTUATOR_NAMES)} or pass "
                "an ActuatorModel"
            )
    if not isinstance(spec, ActuatorModel):
        raise ValueError(f"actuator must be a name or an ActuatorModel, got {type(spec).__name__}")
    spec.validate()
    return spec if spec.enabled else None


def effective_latency(model: ActuatorModel | None, randomization_latency: int) -> int:
    """The max command delay k of an env: the model's or the task randomization's (they
    are one delay line; setting both to different values is an error)."""
    if model is None or model.latency_steps == 0:
        return int(randomization_latency)
    if randomization_latency not in (0, model.latency_steps):
        raise ValueError(
            f"actuator.latency_steps {model.latency_steps} and "
            f"randomization.action_latency_steps {randomization_latency} name the same delay "
            "line: set one of them"
        )
    return int(model.latency_steps)


def default_safety_params_path() -> Path:
    """``safety.yaml`` beside the default scene file (source tree or installed share)."""
    from sims.scene import default_scene_path

    return default_scene_path().with_name(SAFETY_PARAMS_FILE)


def read_safety_params(path: str | Path | None = None) -> dict:
    """The ``safety_node: ros__parameters:`` mapping of a safety parameter file."""
    path = Path(path) if path is not None else default_safety_params_path()
    if not path.is_file():
        raise ValueError(f"{path}: no such safety parameter file")
    with open(path, encoding="utf-8") as stream:
        data = yaml_files.safe_load(stream) or {}
    try:
        params = data[SAFETY_NODE]["ros__parameters"]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: no {SAFETY_NODE}: ros__parameters: section") from exc
    if not isinstance(params, dict):
        raise ValueError(f"{path}: {SAFETY_NODE}.ros__parameters must be a mapping")
    return params
