"""Forward kinematics and the damped-least-squares IK step of the Panda, allocation-free,
with scalars only (specialised to its modified-DH table: alpha in {0, +-pi/2})."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.extending import register_jitable

from sims.kernels.jit import inlined
from sims.kernels.layout import ROW_DQ, ROW_JAC, ROW_TARGET, S_FAX, S_Q, S_TCP, SCRATCH_SHAPE
from sims.robots import panda

DH_A = panda.dh_a.copy()
DH_D = panda.dh_d.copy()
SIN_ALPHA = np.array([math.sin(a) for a in panda.dh_alpha])
# fk_row is specialised to the Panda's table: alpha_0 = alpha_7 = 0, the rest +-pi/2, a_0 = 0
assert panda.dh_alpha[0] == 0.0 and panda.dh_alpha[7] == 0.0 and panda.dh_a[0] == 0.0
assert np.all(np.abs(np.abs(panda.dh_alpha[1:7]) - math.pi / 2) < 1e-15)
assert panda.dh_a[7] == 0.0
Q_MIN = panda.joint_position_min.copy()
Q_MAX = panda.joint_position_max.copy()
V_MAX = panda.joint_velocity_limits.copy()
Q_HOME = panda.home_joint_positions.copy()
FLANGE_TO_TCP = panda.flange_to_tcp
TCP_REACH = float(DH_D[7] + FLANGE_TO_TCP)
"""Distance from joint 7's frame to the TCP along its z axis (flange, then the hand)."""
FINGER_AXIS_X = -math.sin(panda.hand_yaw)  # finger axis (TCP y) in flange coordinates
FINGER_AXIS_Y = math.cos(panda.hand_yaw)


@register_jitable
def clip(x, lo, hi):
    """``x`` limited to [lo, hi]."""
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@register_jitable
def sincos(x):
    """(sin x, cos x) for moderate |x| (joint angles): Cody-Waite reduction by pi/2 and
    fdlibm's kernel polynomials; within 2 ulp of libm, several times faster."""
    n = math.floor(x * 0.6366197723675814 + 0.5)
    r = (x - n * 1.5707963267341256) - n * 6.077100506506192e-11
    z = r * r
    s = r + r * z * (
        -1.66666666666666324348e-01
        + z
        * (
            8.33333333332248946124e-03
            + z
            * (
                -1.98412698298579493134e-04
                + z
                * (
                    2.75573137070700676789e-06
                    + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)
                )
            )
        )
    )
    c = (
        1.0
        - 0.5 * z
        + z
        * z
        * (
            4.16666666666666019037e-02
            + z
            * (
                -1.38888888888741095749e-03
                + z
                * (
                    2.48015872894767294178e-05
                    + z
                    * (
                        -2.75573143513906633035e-07
                        + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)
                    )
                )
            )
        )
    )
    quadrant = int(n)
    swap = (quadrant & 1) == 1  # branch-free selects, so loops over envs vectorize
    sin_sign = 1.0 - 2.0 * ((quadrant >> 1) & 1)
    cos_sign = 1.0 - 2.0 * (((quadrant + 1) >> 1) & 1)
    return sin_sign * (c if swap else s), cos_sign * (s if swap else c)


@register_jitable
def base_frame(q, k):
    """Joint 1's frame of ``q[k]`` (alpha 0, a 0, d 0.333 from the identity): the rotation
    r00, r01, r02, r10, ..., r22 by rows, then the origin px, py, pz (a 12-tuple)."""
    s1, c1 = sincos(q[k, 0])
    return c1, -s1, 0.0, s1, c1, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, DH_D[0]


@register_jitable
def joint_perp(frame, th, a, d, sa):
    """``frame`` (as :func:`base_frame`'s) with a modified-DH joint with alpha = +-pi/2
    appended (``sa`` = sin alpha = +-1)."""
    r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz = frame
    st, ct = sincos(th)
    px += a * r00 - sa * d * r01
    py += a * r10 - sa * d * r11
    pz += a * r20 - sa * d * r21
    sst = sa * st
    sct = sa * ct
    return (
        ct * r00 + sst * r02,
        -st * r00 + sct * r02,
        -sa * r01,
        ct * r10 + sst * r12,
        -st * r10 + sct * r12,
        -sa * r11,
        ct * r20 + sst * r22,
        -st * r20 + sct * r22,
        -sa * r21,
        px,
        py,
        pz,
    )


@register_jitable
def fk_row(q, k, scratch):
    """Forward kinematics of configuration ``q[k]`` with scalars only, specialised to the
    Panda's modified-DH table (alpha in {0, +-pi/2}); equals
    :func:`sims.robots.panda.fk_tcp` to ~1e-15 m.

    Returns (tcp x, y, z, finger axis x, y, z) in the base frame, and writes joint frame
    i's z axis into ``scratch[i, 0:3]`` and its origin into ``scratch[i, 3:6]`` (i = 0..6)
    for :func:`dls_step`.
    """
    frame = base_frame(q, k)
    for i in range(7):
        if i > 0:
            frame = joint_perp(frame, q[k, i], DH_A[i], DH_D[i], SIN_ALPHA[i])
        r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz = frame
        scratch[i, 0] = r02
        scratch[i, 1] = r12
        scratch[i, 2] = r22
        scratch[i, 3] = px
        scratch[i, 4] = py
        scratch[i, 5] = pz
    # flange (alpha 0, a 0, d 0.107, theta 0) and the TCP 0.105 m further along z
    reach = DH_D[7] + FLANGE_TO_TCP
    tx = px + reach * r02
    ty = py + reach * r12
    tz = pz + reach * r22
    fx = r00 * FINGER_AXIS_X + r01 * FINGER_AXIS_Y
    fy = r10 * FINGER_AXIS_X + r11 * FINGER_AXIS_Y
    fz = r20 * FINGER_AXIS_X + r21 * FINGER_AXIS_Y
    return tx, ty, tz, fx, fy, fz


@register_jitable
def dls_row(q, k, dx, dy, dz, damping, scratch):
    """One damped-least-squares IK step for ``q[k]``: writes into ``scratch[ROW_DQ, 0:7]``
    the joint delta that moves the TCP by (dx, dy, dz) (``scratch``: ``SCRATCH_SHAPE``):
    dq = J^T (J J^T + damping^2 I)^-1 dx. Joint limits are not applied here."""
    tx, ty, tz, _, _, _ = fk_row(q, k, scratch)
    dls_step(tx, ty, tz, dx, dy, dz, damping, scratch)


@njit(cache=True)
def dls_joint_step(q, delta_tcp, damping):
    """:func:`dls_row` for one configuration ``q`` [7]: the joint delta [7] that moves the
    TCP by ``delta_tcp`` [3] (the host callers' step, :func:`dls_ik_step`; one
    implementation for the kernels and the host)."""
    scratch = np.zeros(SCRATCH_SHAPE)
    rows = np.empty((1, 7))
    for i in range(7):
        rows[0, i] = q[i]
    dls_row(rows, 0, delta_tcp[0], delta_tcp[1], delta_tcp[2], damping, scratch)
    return scratch[ROW_DQ, 0:7].copy()


def dls_ik_step(q, delta_tcp, damping) -> np.ndarray:
    """One damped-least-squares step: joint delta [7] that moves the TCP by ``delta_tcp``.

    dq = J^T (J J^T + damping^2 I)^-1 dx. Joint limits are not applied here. The kernels'
    own step (:func:`dls_joint_step`), so the host and the simulators solve it one way (it
    lives here, not in :mod:`sims.robots.panda`: the robot model imports no kernel).
    """
    return dls_joint_step(
        np.asarray(q, dtype=np.float64), np.asarray(delta_tcp, dtype=np.float64), float(damping)
    )


@register_jitable
def dls_step(tx, ty, tz, dx, dy, dz, damping, scratch):
    """:func:`dls_row` after :func:`fk_row` has filled ``scratch`` and returned the TCP
    (tx, ty, tz)."""
    jr = ROW_JAC
    for i in range(7):
        zx = scratch[i, 0]
        zy = scratch[i, 1]
        zz = scratch[i, 2]
        rx = tx - scratch[i, 3]
        ry = ty - scratch[i, 4]
        rz = tz - scratch[i, 5]
        scratch[jr, i] = zy * rz - zz * ry
        scratch[jr + 1, i] = zz * rx - zx * rz
        scratch[jr + 2, i] = zx * ry - zy * rx
    y0, y1, y2 = _damped_solve(dx, dy, dz, damping, scratch)
    for i in range(7):
        scratch[ROW_DQ, i] = (
            scratch[jr, i] * y0 + scratch[jr + 1, i] * y1 + scratch[jr + 2, i] * y2
        )


@register_jitable
def _damped_solve(dx, dy, dz, damping, scratch):
    """y = (J J^T + damping^2 I)^-1 (dx, dy, dz) for the TCP Jacobian J in
    ``scratch[ROW_JAC:ROW_JAC + 3]``."""
    jr = ROW_JAC
    m00 = damping * damping
    m11 = m00
    m22 = m00
    m01 = 0.0
    m02 = 0.0
    m12 = 0.0
    for i in range(7):
        j0 = scratch[jr, i]
        j1 = scratch[jr + 1, i]
        j2 = scratch[jr + 2, i]
        m00 += j0 * j0
        m11 += j1 * j1
        m22 += j2 * j2
        m01 += j0 * j1
        m02 += j0 * j2
        m12 += j1 * j2
    # symmetric 3x3 solve by cofactors
    c00 = m11 * m22 - m12 * m12
    c01 = m02 * m12 - m01 * m22
    c02 = m01 * m12 - m02 * m11
    c11 = m00 * m22 - m02 * m02
    c12 = m01 * m02 - m00 * m12
    c22 = m00 * m11 - m01 * m01
    det = m00 * c00 + m01 * c01 + m02 * c02
    y0 = (c00 * dx + c01 * dy + c02 * dz) / det
    y1 = (c01 * dx + c11 * dy + c12 * dz) / det
    y2 = (c02 * dx + c12 * dy + c22 * dz) / det
    return y0, y1, y2


@register_jitable
def level_step(gain, sin_allowance, damping, scratch):
    """Add to :func:`dls_step`'s joint delta (``scratch[ROW_DQ]``) a step that turns the
    tool axis towards straight down, in the null space of the TCP step: ``v = gain *
    Jw^T e`` with ``e = u x (-z)`` (``u``: the tool axis, joint 7's; ``Jw``: the joint
    axes, the angular Jacobian), minus its TCP motion ``J^T (J J^T + damping^2 I)^-1 J
    v``. Tilt only: the tool's yaw about the vertical stays free. ``sin_allowance``: the
    sine of a tilt left alone; ``|e|`` (the tilt's sine) is shortened by it, so a tool
    tilted less than the allowance gets no step (0: every tilt is levelled). Uses
    ``scratch[ROW_TARGET]`` as scratch (the caller writes the targets afterwards)."""
    jr = ROW_JAC
    ux = scratch[6, 0]
    uy = scratch[6, 1]
    if sin_allowance > 0.0:
        s = math.sqrt(ux * ux + uy * uy)
        if s <= sin_allowance:
            return
        gain *= (s - sin_allowance) / s
    ex = -uy * gain
    ey = ux * gain
    b0 = 0.0
    b1 = 0.0
    b2 = 0.0
    for i in range(7):
        v = scratch[i, 0] * ex + scratch[i, 1] * ey
        scratch[ROW_TARGET, i] = v
        b0 += scratch[jr, i] * v
        b1 += scratch[jr + 1, i] * v
        b2 += scratch[jr + 2, i] * v
    y0, y1, y2 = _damped_solve(b0, b1, b2, damping, scratch)
    for i in range(7):
        scratch[ROW_DQ, i] += scratch[ROW_TARGET, i] - (
            scratch[jr, i] * y0 + scratch[jr + 1, i] * y1 + scratch[jr + 2, i] * y2
        )


@inlined
def tcp_row(q, k):
    """The TCP (x, y, z) of ``q[k]`` alone, bit-identical to :func:`fk_row`'s: the TCP lies
    on joint 7's axis, so its position does not depend on q7 (nor is the finger axis
    computed); the fast path of reach."""
    frame = base_frame(q, k)
    for i in range(1, 6):
        frame = joint_perp(frame, q[k, i], DH_A[i], DH_D[i], SIN_ALPHA[i])
    r00, r01, _, r10, r11, _, r20, r21, _, px, py, pz = frame
    a7 = DH_A[6]
    sd7 = SIN_ALPHA[6] * DH_D[6]
    px += a7 * r00 - sd7 * r01
    py += a7 * r10 - sd7 * r11
    pz += a7 * r20 - sd7 * r21
    tx = px + TCP_REACH * (-SIN_ALPHA[6] * r01)
    ty = py + TCP_REACH * (-SIN_ALPHA[6] * r11)
    tz = pz + TCP_REACH * (-SIN_ALPHA[6] * r21)
    return tx, ty, tz


@inlined
def store_tcp(k, st, tx, ty, tz, fx, fy, fz):
    """The TCP (tx, ty, tz) and finger axis (fx, fy, fz) into env ``k``'s state row."""
    st[k, S_TCP] = tx
    st[k, S_TCP + 1] = ty
    st[k, S_TCP + 2] = tz
    st[k, S_FAX] = fx
    st[k, S_FAX + 1] = fy
    st[k, S_FAX + 2] = fz


@register_jitable
def store_fk(k, st, scratch):
    """TCP and finger axis of env ``k`` from its joint positions, into its state row."""
    tx, ty, tz, fx, fy, fz = fk_row(st, k, scratch)
    store_tcp(k, st, tx, ty, tz, fx, fy, fz)


@register_jitable
def ik_move(k, st, dx, dy, dz, damping, gain, scratch):
    """Joint target q + DLS step for a TCP move (dx, dy, dz), clipped to the limits and
    tracked with ``gain`` (the lift of the fingertips off the table and cube tops)."""
    dls_row(st, k, dx, dy, dz, damping, scratch)
    for i in range(7):
        old = st[k, S_Q + i]
        target = clip(old + scratch[ROW_DQ, i], Q_MIN[i], Q_MAX[i])
        st[k, S_Q + i] = old + gain * (target - old)


@register_jitable(_nrt=False)
def arm_physics(k, fp, ip, st, scratch, a, cartesian, prev_x, prev_y, prev_z, prev_width):
    """The world of a task without a cube after the arm has moved: the TCP (Cartesian mode
    also the finger axis, with the frames the IK left in ``scratch``; joint mode leaves the
    axis stale: such a task never reads it). A task's ``KERNEL.physics``."""
    if cartesian:
        store_fk(k, st, scratch)
    else:
        tx, ty, tz = tcp_row(st, k)
        st[k, S_TCP] = tx
        st[k, S_TCP + 1] = ty
        st[k, S_TCP + 2] = tz
