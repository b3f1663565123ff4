"""Joint limits for the supervisor, read from the robot model (datasheet numbers).

Deployments may only *reduce* limits (scale factors in ``(0, 1]``) and choose the
position margin; the numbers themselves come from :mod:`sims.robots.panda`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from miles_ros.safety.stopping import stop_travel
from sims.robots import panda


@dataclass(frozen=True)
class JointLimits:
    """Per-joint limits [n] in the order of the arm joint names."""

    position_min: np.ndarray
    """Lower position limits (rad), before the margin."""
    position_max: np.ndarray
    """Upper position limits (rad), before the margin."""
    velocity: np.ndarray
    """Velocity limits (rad/s)."""
    acceleration: np.ndarray
    """Acceleration limits (rad/s^2)."""
    jerk: np.ndarray
    """Jerk limits (rad/s^3)."""
    margin: float = 0.1
    """Distance (rad) kept from each position limit (MoveIt Servo's default 0.1 rad)."""

    @classmethod
    def from_robot(
        cls,
        margin: float = 0.1,
        velocity_scale: float = 1.0,
        acceleration_scale: float = 1.0,
        jerk_scale: float = 1.0,
    ) -> JointLimits:
        """The Panda's datasheet limits, optionally scaled down."""
        for name, scale in (
            ("velocity_scale", velocity_scale),
            ("acceleration_scale", acceleration_scale),
            ("jerk_scale", jerk_scale),
        ):
            if not 0.0 < scale <= 1.0:
                raise ValueError(f"{name} must be in (0, 1], got {scale}")
        return cls(
            position_min=panda.joint_position_min.copy(),
            position_max=panda.joint_position_max.copy(),
            velocity=panda.joint_velocity_limits * velocity_scale,
            acceleration=panda.joint_acceleration_limits * acceleration_scale,
            jerk=panda.joint_jerk_limits * jerk_scale,
            margin=margin,
        )

    @property
    def lower(self) -> np.ndarray:
        """The band's lower edge: position_min + margin."""
        return self.position_min + self.margin

    @property
    def upper(self) -> np.ndarray:
        """The band's upper edge: position_max - margin."""
        return self.position_max - self.margin

    def validate(self) -> None:
        """Raise ValueError unless the band is wide enough to stop from full speed on
        either side (the precondition of the braking argument in ``shaping``)."""
        if not 0.0 <= self.margin < 1.0:
            raise ValueError(f"position margin must be in [0, 1) rad, got {self.margin}")
        for name in ("velocity", "acceleration", "jerk"):
            values = getattr(self, name)
            if not np.all(np.isfinite(values)) or np.any(values <= 0.0):
                raise ValueError(f"{name} limits must be positive and finite")
        width = self.upper - self.lower
        for i in range(width.size):
            stop = stop_travel(
                float(self.velocity[i]),
                float(self.acceleration[i]),
                float(self.acceleration[i]),
                float(self.jerk[i]),
            )
            if width[i] <= 2.0 * stop:
                raise ValueError(
                    f"joint {i + 1}: band {width[i]:.3f} rad is too narrow to stop from full "
                    f"speed on both sides ({stop:.3f} rad each); reduce the margin"
                )
