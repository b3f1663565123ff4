"""The names and looks of the 3D view's Rerun recording, defined once (the tests read
recordings back by these paths): its application id and timeline, the entity paths of
the cell and of each arm, the colours it draws in, and how a pose and a scene colour
become Rerun's. :class:`~miles_ros.view.cell_view.CellView` logs under them."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import rerun as rr

TIMELINE = "ros_time"
"""The timeline every log is stamped on (seconds)."""
APPLICATION_ID = "miles"
"""Rerun application id of the view's recordings."""
ROOT = "cell"
"""Entity path of the world frame."""
SINGLE_ARM_PATH = "arm"
"""Entity name of the single arm of a scene without ``arms:`` (its name is "")."""

ARM_COLOR = (235, 235, 235, 255)
HAND_COLOR = (90, 90, 90, 255)
SPHERE_COLOR = (120, 170, 255, 40)
BOUND_COLOR = (255, 30, 30, 200)
WORKSPACE_COLOR = (80, 200, 120, 255)
KEEPOUT_COLOR = (255, 140, 0, 120)
PERMISSION_COLOR = (200, 80, 255, 120)
MEASURED_COLOR = (40, 200, 255, 255)
COMMANDED_COLOR = (255, 200, 0, 255)


def arm_path(arm: str) -> str:
    """The entity path of ``arm`` ("" = the single arm)."""
    return f"{ROOT}/{arm or SINGLE_ARM_PATH}"


def mount_matrix(position: Sequence[float], yaw: float) -> np.ndarray:
    """[4, 4] pose of an arm's base frame in the world frame."""
    out = np.eye(4)
    c, s = math.cos(yaw), math.sin(yaw)
    out[:2, :2] = [[c, -s], [s, c]]
    out[:3, 3] = position
    return out


def transform3d(pose: np.ndarray) -> rr.Transform3D:
    """A [4, 4] pose as Rerun's transform."""
    return rr.Transform3D(translation=pose[:3, 3], mat3x3=pose[:3, :3])


def rgba(color: Sequence[float]) -> tuple[int, ...]:
    """RGBA in [0, 1] (the scene's) as bytes."""
    return tuple(int(round(255 * max(0.0, min(1.0, float(c))))) for c in color)
