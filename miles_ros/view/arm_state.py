"""What the 3D view keeps of each arm between its ticks, ROS-free: the newest decoded joint
state and command and what was drawn of them (:class:`ArmState`), a joint state read by
joint name (:func:`joints_by_name`), and whether an arm moved enough to be drawn again
(:func:`still`, :func:`same_pose`: by :data:`STILL_RAD`, :data:`STILL_M`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sims.robots import panda

STILL_RAD = 1e-5
"""An arm that moved less than this on every joint (rad; under 0.01 mm at the TCP) since
it was last drawn is not drawn again."""
STILL_M = 1e-6
"""The same for the fingers (m)."""


@dataclass
class ArmState:
    """The newest decoded state of one arm, and what the view has logged of it."""

    q: np.ndarray | None = None
    fingers: tuple[float, float] | None = None
    t: float = 0.0
    fresh: bool = False
    command: np.ndarray | None = None
    command_t: float = 0.0
    command_fresh: bool = False
    bound: dict[str, float] = field(default_factory=dict)
    """Link (or ``TCP``) -> time until which it is drawn as the bound."""
    periods: list[float] = field(default_factory=list)
    estop: bool | None = None
    drawn: tuple | None = None
    """(q, fingers, bound links) as last drawn."""
    drawn_command: np.ndarray | None = None


def still(drawn: np.ndarray | None, q: np.ndarray) -> bool:
    """Whether ``q`` is within :data:`STILL_RAD` of ``drawn`` on every joint."""
    return drawn is not None and float(np.max(np.abs(q - drawn))) < STILL_RAD


def same_pose(drawn: tuple | None, q, fingers, bound: frozenset[str]) -> bool:
    """Whether an arm at ``q`` with ``fingers`` and ``bound`` looks as ``drawn``."""
    if drawn is None or not still(drawn[0], q) or drawn[2] != bound:
        return False
    if (drawn[1] is None) != (fingers is None):
        return False
    return fingers is None or float(np.max(np.abs(np.subtract(drawn[1], fingers)))) < STILL_M


def joints_by_name(names: Sequence[str], positions: Sequence[float]):
    """(arm joints [7] or None when one is missing, fingers (2) or None) by joint name."""
    index = {n: i for i, n in enumerate(names)}
    if len(positions) < len(names) or any(n not in index for n in panda.JOINT_NAMES):
        return None, None
    q = np.array([positions[index[n]] for n in panda.JOINT_NAMES], dtype=np.float64)
    if not np.all(np.isfinite(q)):
        return None, None
    fingers = None
    if all(n in index for n in panda.FINGER_JOINT_NAMES):
        fingers = tuple(float(positions[index[n]]) for n in panda.FINGER_JOINT_NAMES)
    return q, fingers
