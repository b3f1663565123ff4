"""What an outside client may check on ``/miles/joint_command``: the limits implied by the
stamps, with the finite differences of :mod:`miles_ros.safety.shaping`'s docstring.

Used by the tests and by ``bench/safety.py``; independent of the supervisor's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from miles_ros.safety.kinematics import tcp_position
from miles_ros.safety.limits import JointLimits
from miles_ros.safety.zones import Zone, clearance, zone_arrays

REL_TOL = 1e-9
"""Relative tolerance on every limit."""
ROUNDING_ULPS = 8.0
"""Differences of positions below this many ulps are rounding, not motion."""


@dataclass
class Violations:
    """Counts of violated bounds over a command sequence (one per joint and sample)."""

    position: int = 0
    """Positions outside the band (limits minus margin)."""
    velocity: int = 0
    """Finite-difference velocities above the limit."""
    acceleration: int = 0
    """Finite-difference accelerations above the limit."""
    jerk: int = 0
    """Finite-difference jerks above the limit."""
    workspace: int = 0
    """TCP positions outside the workspace box or inside a keep-out zone."""
    stamps: int = 0
    """Non-increasing stamps."""
    worst: dict[str, float] = field(default_factory=dict)
    """Largest ratio value/limit seen per kind."""

    @property
    def total(self) -> int:
        """All violations together."""
        return (
            self.position
            + self.velocity
            + self.acceleration
            + self.jerk
            + self.workspace
            + self.stamps
        )


def finite_differences(
    stamps: np.ndarray, positions: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Step lengths [k-1], velocities [k-1, n], accelerations [k-2, n], jerks [k-3, n].

    ``stamps``: [k] seconds (differences are what matters: pass integer nanoseconds
    differences scaled by 1e-9 to avoid rounding absolute times).
    """
    h = np.diff(stamps)
    vel = np.diff(positions, axis=0) / h[:, None]
    acc = np.diff(vel, axis=0) / h[1:, None]
    jerk = np.diff(acc, axis=0) / h[2:, None]
    return h, vel, acc, jerk


def check_commands(
    stamps: np.ndarray,
    positions: np.ndarray,
    limits: JointLimits,
    workspace: tuple[np.ndarray, np.ndarray] | None = None,
    zones: tuple[Zone, ...] = (),
    initial: tuple[np.ndarray, float] | None = None,
) -> Violations:
    """Count limit violations of a command sequence.

    ``initial``: optional (positions [n], stamp) of a state at rest before the first
    command (what the supervisor starts from); the first commands are then checked too.
    ``workspace``: (min [3], max [3]) of the TCP box; ``zones``: keep-out zones.
    """
    stamps = np.asarray(stamps, dtype=np.float64)
    positions = np.asarray(positions, dtype=np.float64)
    out = Violations()
    if positions.shape[0] == 0:
        return out
    first = 0
    if initial is not None:
        # At rest at q_prev up to t_prev: three equal virtual samples (v = a = 0 there).
        q_prev, t_prev = np.asarray(initial[0], dtype=np.float64), float(initial[1])
        positions = np.vstack([q_prev, q_prev, q_prev, positions])
        stamps = np.concatenate([[t_prev - 2.0, t_prev - 1.0, t_prev], stamps])
        first = 3
    lo = limits.position_min + limits.margin
    hi = limits.position_max - limits.margin
    tol_q = 1e-9
    bad = (positions[first:] < lo - tol_q) | (positions[first:] > hi + tol_q)
    out.position = int(bad.sum())
    if stamps.size > 1 and np.any(np.diff(stamps) <= 0.0):
        out.stamps = int((np.diff(stamps) <= 0.0).sum())
        return out
    h, vel, acc, jerk = finite_differences(stamps, positions)
    # What rounding alone can produce: a few ulps of the positions, divided by h^k.
    ulp = ROUNDING_ULPS * np.finfo(np.float64).eps * max(1.0, float(np.abs(positions).max()))
    for kind, values, lim, hk in (
        ("velocity", vel, limits.velocity, h[:, None]),
        ("acceleration", acc, limits.acceleration, h[1:, None] ** 2),
        ("jerk", jerk, limits.jerk, h[2:, None] ** 3),
    ):
        if values.size == 0:
            continue
        ratio = np.abs(values) / lim
        allowed = 1.0 + REL_TOL + ulp / (hk * lim)
        setattr(out, kind, int((ratio > allowed).sum()))
        out.worst[kind] = float(ratio.max())
    if positions.size:
        span = np.maximum(positions[first:] - hi, lo - positions[first:])
        out.worst["position"] = float(span.max())
    if workspace is not None or zones:
        if workspace is not None:
            ws = np.concatenate(workspace)
        else:
            ws = np.array([-1e9] * 3 + [1e9] * 3)
        boxes, spheres = zone_arrays(list(zones))
        worst = np.inf
        for q in positions[first:]:
            c = clearance(tcp_position(q), 0.0, ws, boxes, spheres, 0.0)
            worst = min(worst, c)
            if c < -1e-9:
                out.workspace += 1
        out.worst["clearance"] = float(worst)
    return out
