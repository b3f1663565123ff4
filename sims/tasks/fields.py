"""The observation fields the tasks share: each group as ``(name, size, meaning)`` rows for a
task's ``LAYOUT`` (:class:`~sims.tasks.base.ObservationLayout`), with the arrays of a
:class:`~sims.tasks.base.SimState` that fill them in a task's numpy ``observe`` (the numba
kernels write the same fields with :mod:`sims.kernels.observe`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sims.tasks.base import SimState

ARM = (
    ("joint_pos", 7, "joint positions (rad)"),
    ("joint_vel", 7, "joint velocities (rad/s)"),
    ("tcp_pos", 3, "TCP position in the base frame (m)"),
)
"""The arm's fields, first in every task's layout (:func:`arm`)."""
GOAL_POS = ("goal_pos", 3, "goal position in the base frame (m)")
"""The goal's position (every task)."""
CUBE = (
    ("object_pos", 3, "cube centre in the base frame (m)"),
    ("object_yaw_sincos", 2, "sin(4 yaw), cos(4 yaw) of the cube (90 deg symmetric)"),
    ("object_rel_tcp", 3, "cube centre minus TCP (m)"),
)
"""The cube's fields (push, pick_place: :func:`cube`)."""
CUBE_GOAL = (GOAL_POS, ("goal_rel_object", 3, "goal minus cube centre (m)"))
"""The goal's fields of a task with a cube (push, pick_place: :func:`cube_goal`)."""


def arm(state: SimState) -> list[np.ndarray]:
    """The :data:`ARM` fields of ``state``, [N, size] each."""
    return [state.joint_pos, state.joint_vel, state.tcp_pos]


def yaw_sincos(yaw: np.ndarray) -> np.ndarray:
    """[N, 2]: sin(4 yaw), cos(4 yaw), the cube's yaw modulo its 90 deg symmetry."""
    return np.stack([np.sin(4.0 * yaw), np.cos(4.0 * yaw)], axis=1)


def cube(state: SimState) -> list[np.ndarray]:
    """The :data:`CUBE` fields of ``state``, [N, size] each."""
    return [state.object_pos, yaw_sincos(state.object_yaw), state.object_pos - state.tcp_pos]


def cube_goal(state: SimState) -> list[np.ndarray]:
    """The :data:`CUBE_GOAL` fields of ``state``, [N, size] each."""
    return [state.goal_pos, state.goal_pos - state.object_pos]
