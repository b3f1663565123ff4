"""Franka Emika Panda: the single source of truth for its numbers.

Kinematics follow Franka's documented modified Denavit-Hartenberg (Craig) parameters;
limits are the datasheet's (libfranka "Robot and interface specifications"), not the
wider ones in pybullet_data's URDF. Backends, tasks and the safety supervisor import
these arrays; nothing retypes them.

Frames: everything is expressed in the robot base frame (``*_base``), x forward, z up.
The tool centre point (TCP) is pybullet's ``panda_grasptarget`` link: 0.107 m flange
offset, then 0.105 m along the hand's z axis, hand rotated -45 deg about z.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

NUM_JOINTS = 7

JOINT_NAMES: tuple[str, ...] = tuple(f"panda_joint{i}" for i in range(1, NUM_JOINTS + 1))
FINGER_JOINT_NAMES: tuple[str, ...] = ("panda_finger_joint1", "panda_finger_joint2")

# --- Datasheet limits (rad, rad/s, rad/s^2, rad/s^3, N m) -------------------------------
joint_position_min = np.array(
    [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973], dtype=np.float64
)
joint_position_max = np.array(
    [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973], dtype=np.float64
)
joint_velocity_limits = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61], dtype=np.float64)
joint_acceleration_limits = np.array([15.0, 7.5, 10.0, 12.5, 15.0, 20.0, 20.0], dtype=np.float64)
joint_jerk_limits = np.array(
    [7500.0, 3750.0, 5000.0, 6250.0, 7500.0, 10000.0, 10000.0], dtype=np.float64
)
joint_torque_limits = np.array([87.0, 87.0, 87.0, 87.0, 12.0, 12.0, 12.0], dtype=np.float64)

# --- Gripper (Franka Hand) ---------------------------------------------------------------
finger_position_min = 0.0
"""Each finger's travel (m); the opening between the fingers is twice this."""
finger_position_max = 0.04
gripper_width_max = 2.0 * finger_position_max
gripper_speed_max = 0.1  # m/s, opening speed (datasheet: 0.05 m/s per finger)
gripper_force_continuous = 70.0  # N

# --- Poses -------------------------------------------------------------------------------
home_joint_positions = np.array(
    [0.0, -math.pi / 4, 0.0, -3 * math.pi / 4, 0.0, math.pi / 2, math.pi / 4], dtype=np.float64
)
"""The 'ready' pose of Franka's examples: TCP about 0.31 m ahead of the base, 0.49 m up."""

# --- Kinematics: modified DH (a_{i-1}, d_i, alpha_{i-1}) for joints 1..7, then flange ----
dh_a = np.array([0.0, 0.0, 0.0, 0.0825, -0.0825, 0.0, 0.088, 0.0], dtype=np.float64)
dh_d = np.array([0.333, 0.0, 0.316, 0.0, 0.384, 0.0, 0.0, 0.107], dtype=np.float64)
dh_alpha = np.array(
    [0.0, -math.pi / 2, math.pi / 2, math.pi / 2, -math.pi / 2, math.pi / 2, math.pi / 2, 0.0],
    dtype=np.float64,
)
flange_to_tcp = 0.105
"""Distance (m) from the flange to the TCP along the flange z axis (pybullet's grasptarget)."""
hand_yaw = -math.pi / 4
"""Rotation of the hand about the flange z axis."""


@njit(cache=True, fastmath=False)
def _mdh(a, d, alpha, theta, out):
    ca, sa = math.cos(alpha), math.sin(alpha)
    ct, st = math.cos(theta), math.sin(theta)
    out[0, 0] = ct
    out[0, 1] = -st
    out[0, 2] = 0.0
    out[0, 3] = a
    out[1, 0] = st * ca
    out[1, 1] = ct * ca
    out[1, 2] = -sa
    out[1, 3] = -sa * d
    out[2, 0] = st * sa
    out[2, 1] = ct * sa
    out[2, 2] = ca
    out[2, 3] = ca * d
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@njit(cache=True)
def _matmul4(a, b, out):
    for i in range(4):
        for j in range(4):
            acc = 0.0
            for k in range(4):
                acc += a[i, k] * b[k, j]
            out[i, j] = acc


@njit(cache=True)
def fk_frames(q, frames):
    """Homogeneous transforms of joint frames 1..7, the flange and the TCP.

    ``q``: [7]; ``frames``: [9, 4, 4] output (index 7 = flange, 8 = TCP incl. hand yaw).
    Frame i's z axis is joint i+1's rotation axis and its origin lies on that axis.
    """
    step = np.empty((4, 4))
    _mdh(dh_a[0], dh_d[0], dh_alpha[0], q[0], frames[0])
    for i in range(1, 8):
        theta = q[i] if i < 7 else 0.0
        _mdh(dh_a[i], dh_d[i], dh_alpha[i], theta, step)
        _matmul4(frames[i - 1], step, frames[i])
    _mdh(0.0, flange_to_tcp, 0.0, hand_yaw, step)
    _matmul4(frames[7], step, frames[8])


@njit(cache=True)
def fk_tcp(q):
    """TCP position [3] in the base frame for one configuration ``q`` [7]."""
    frames = np.empty((9, 4, 4))
    fk_frames(q, frames)
    return frames[8, :3, 3].copy()


@njit(cache=True)
def fk_tcp_pose(q):
    """TCP position [3] and rotation matrix [3, 3] for one configuration."""
    frames = np.empty((9, 4, 4))
    fk_frames(q, frames)
    return frames[8, :3, 3].copy(), frames[8, :3, :3].copy()


@njit(cache=True, parallel=True)
def fk_tcp_batch(q):
    """TCP positions [N, 3] for configurations ``q`` [N, 7]."""
    n = q.shape[0]
    out = np.empty((n, 3))
    for k in prange(n):
        out[k] = fk_tcp(q[k])
    return out


@njit(cache=True)
def tcp_jacobian(q):
    """TCP position [3] and its positional Jacobian [3, 7] (revolute joints about local z)."""
    frames = np.empty((9, 4, 4))
    fk_frames(q, frames)
    p_tcp = frames[8, :3, 3]
    jac = np.empty((3, 7))
    for i in range(7):
        z = frames[i, :3, 2]
        r = p_tcp - frames[i, :3, 3]
        jac[0, i] = z[1] * r[2] - z[2] * r[1]
        jac[1, i] = z[2] * r[0] - z[0] * r[2]
        jac[2, i] = z[0] * r[1] - z[1] * r[0]
    return p_tcp.copy(), jac


@njit(cache=True)
def clip_joint_positions(q, margin):
    """``q`` clipped into the datasheet position limits shrunk by ``margin`` (rad), in place."""
    for i in range(7):
        lo = joint_position_min[i] + margin
        hi = joint_position_max[i] - margin
        if q[i] < lo:
            q[i] = lo
        elif q[i] > hi:
            q[i] = hi
    return q


def limits_dict() -> dict[str, list[float]]:
    """The datasheet limits as plain lists (for YAML configs and skill cards)."""
    return {
        "joint_names": list(JOINT_NAMES),
        "position_min": joint_position_min.tolist(),
        "position_max": joint_position_max.tolist(),
        "velocity": joint_velocity_limits.tolist(),
        "acceleration": joint_acceleration_limits.tolist(),
        "jerk": joint_jerk_limits.tolist(),
        "torque": joint_torque_limits.tolist(),
    }
