"""The fingers' command behind the supervisor: requested targets clipped to the gripper's
travel (a finger not given keeps its command, or its measured position), then followed at
the gripper's speed and held while the arm stops."""

from __future__ import annotations

import numpy as np

from sims.robots import panda

FINGER_SPEED = 0.5 * panda.gripper_speed_max
"""m/s per finger (the datasheet's gripper speed, shared by the two fingers)."""


class FingerCommand:
    """Measured finger positions, the latest accepted target and the command following it."""

    def __init__(self) -> None:
        self.measured: np.ndarray | None = None
        """Latest finite measured finger positions (m)."""
        self.target: np.ndarray | None = None
        """Latest accepted target (m), within the gripper's travel."""
        self.command: np.ndarray | None = None
        """What the fingers are commanded (None before the first target)."""

    def accept(self, fingers: np.ndarray) -> list[tuple[int, float, float]]:
        """Take a requested target (NaN = not given). Returns (finger, requested, allowed)
        of each finger clipped into the gripper's travel."""
        current = self.command if self.command is not None else self.measured
        merged = np.where(np.isnan(fingers), current if current is not None else fingers, fingers)
        clipped = np.clip(merged, panda.finger_position_min, panda.finger_position_max)
        changed = [
            (int(i), float(merged[i]), float(clipped[i]))
            for i in np.flatnonzero(np.abs(clipped - merged) > 0.0)
        ]
        if np.any(np.isnan(clipped)):  # one finger given, the other never known
            clipped = np.where(np.isnan(clipped), clipped[~np.isnan(clipped)][0], clipped)
        self.target = clipped
        if self.command is None:
            self.command = self.measured.copy() if self.measured is not None else clipped.copy()
        return changed

    def step(self, h: float, stop: bool) -> np.ndarray | None:
        """The command of an output period of ``h`` seconds (held when ``stop``); None
        before the first target."""
        if self.command is not None and self.target is not None and not stop:
            step = FINGER_SPEED * h
            delta = np.clip(self.target - self.command, -step, step)
            self.command = self.command + delta
        return self.command
