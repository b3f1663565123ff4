"""The TCP through forward kinematics for the supervisor's kernels (numba): the TCP
position of arm positions (the robot model's DH chain, in scalars), per-joint Lipschitz
radii of the TCP, and the radius of the braking ball (how far the TCP can still move while
every joint stops)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from miles_ros.safety.shaping import AMAX, JMAX, LIP
from miles_ros.safety.stopping import stop_travel
from sims.robots import panda


def lipschitz_radii() -> np.ndarray:
    """Per-joint upper bound [7] on the distance from the joint's axis to the TCP (m).

    Frame ``i`` lies on joint ``i``'s axis; the TCP is reached from it by the translations
    of the later frames (``a`` then ``d``, perpendicular) and the flange-to-TCP offset.
    """
    seg = np.hypot(panda.dh_a, panda.dh_d)
    return np.array(
        [seg[i + 1 :].sum() + panda.flange_to_tcp for i in range(panda.NUM_JOINTS)],
        dtype=np.float64,
    )


_COS_ALPHA = np.cos(panda.dh_alpha)
_SIN_ALPHA = np.sin(panda.dh_alpha)


@njit(cache=True)
def tcp_position_into(q, out):
    """TCP position of arm positions ``q`` [7] written into ``out`` [3], without
    temporaries: the robot model's modified DH chain (``panda.dh_*``) composed in scalars;
    equal to ``panda.fk_tcp`` (tested)."""
    r00, r01, r02 = 1.0, 0.0, 0.0
    r10, r11, r12 = 0.0, 1.0, 0.0
    r20, r21, r22 = 0.0, 0.0, 1.0
    px, py, pz = 0.0, 0.0, 0.0
    for i in range(8):
        theta = q[i] if i < 7 else 0.0
        ct, st = math.cos(theta), math.sin(theta)
        ca, sa = _COS_ALPHA[i], _SIN_ALPHA[i]
        a, d = panda.dh_a[i], panda.dh_d[i]
        # T = [[ct, -st, 0, a], [st ca, ct ca, -sa, -sa d], [st sa, ct sa, ca, ca d]]
        tx, ty, tz = a, -sa * d, ca * d
        px, py, pz = (
            px + r00 * tx + r01 * ty + r02 * tz,
            py + r10 * tx + r11 * ty + r12 * tz,
            pz + r20 * tx + r21 * ty + r22 * tz,
        )
        m10, m11, m12 = st * ca, ct * ca, -sa
        m20, m21 = st * sa, ct * sa
        r00, r01, r02 = (
            r00 * ct + r01 * m10 + r02 * m20,
            -r00 * st + r01 * m11 + r02 * m21,
            r01 * m12 + r02 * ca,
        )
        r10, r11, r12 = (
            r10 * ct + r11 * m10 + r12 * m20,
            -r10 * st + r11 * m11 + r12 * m21,
            r11 * m12 + r12 * ca,
        )
        r20, r21, r22 = (
            r20 * ct + r21 * m10 + r22 * m20,
            -r20 * st + r21 * m11 + r22 * m21,
            r21 * m12 + r22 * ca,
        )
    # Flange -> TCP: a rotation about z (hand yaw) and flange_to_tcp along z.
    out[0] = px + r02 * panda.flange_to_tcp
    out[1] = py + r12 * panda.flange_to_tcp
    out[2] = pz + r22 * panda.flange_to_tcp


@njit(cache=True)
def tcp_position(q):
    """TCP position [3] for arm positions ``q`` [7]."""
    out = np.empty(3)
    tcp_position_into(q, out)
    return out


@njit(cache=True)
def braking_radius(js, vel, acc):
    """Radius of the braking ball for joint velocities/accelerations ``vel``/``acc``."""
    r = 0.0
    for i in range(js.shape[0]):
        r += js[i, LIP] * stop_travel(vel[i], acc[i], js[i, AMAX], js[i, JMAX])
    return r
