"""Numba kernels of the numba backend: inlined kinematics, a counter-based RNG, the contact
model, and the fused batched step and reset over all envs.

Every kernel is ``@njit(cache=True)``; the two batched ones (:func:`step_kernel`,
:func:`reset_kernel`) are ``parallel=True`` over chunks of envs and allocate only a few
small scratch arrays per chunk, never per env. All tasks share one specialization of each
kernel: the task is an integer (``KIND_*``) and its numbers travel in a float64 parameter
vector (``P_*`` indices) and an int64 one (``I_*``), built by the backend from the task
module, so the task module stays the single source of truth.

Randomness is counter-based: every draw is ``splitmix64`` of (seed, env index, episode
counter, draw counter), so rollouts are bit-identical for a seed whatever the number of
threads or the chunking.

Contact model (push, pick_place); see :mod:`sims.backends.numba_backend` for the full
description. Fingers are two vertical cylinders of radius ``FINGER_RADIUS`` beside the TCP
along the hand's finger axis; the cube is a yawed box that slides quasi-statically on the
table: a finger's penetration is resolved along the contact normal and the resulting
contact force moves the cube through an ellipsoidal limit surface (translation plus a
rotation for off-centre pushes), with Coulomb friction at the finger contact.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from sims.robots import panda

KIND_REACH = 0
KIND_PUSH = 1
KIND_PICK_PLACE = 2

# --- float parameter vector -------------------------------------------------------------
P_DT = 0
P_JOINT_SCALE = 1
P_CART_STEP = 2
P_IK_DAMPING = 3
P_GAIN = 4
P_SUCCESS = 5
P_JOINT_NOISE = 6
P_OBS_NOISE = 7
P_FRICTION_LO = 8
P_FRICTION_HI = 9
P_MASS_LO = 10
P_MASS_HI = 11
P_REACH_WEIGHT = 12
P_CUBE_HALF = 13
P_INIT_WIDTH = 14
P_OBJ_X_LO = 15
P_OBJ_Y_LO = 16
P_OBJ_X_HI = 17
P_OBJ_Y_HI = 18
P_GOAL_X_LO = 19
P_GOAL_Y_LO = 20
P_GOAL_Z_LO = 21
P_GOAL_X_HI = 22
P_GOAL_Y_HI = 23
P_GOAL_Z_HI = 24
P_GOAL_D_LO = 25
P_GOAL_D_HI = 26
P_AIR_PROB = 27
P_MU_TABLE = 28
P_MU_FINGER = 29
NUM_FLOAT_PARAMS = 30

# --- int parameter vector ---------------------------------------------------------------
I_KIND = 0
I_EPISODE_STEPS = 1
I_CARTESIAN = 2
I_HAS_GRIPPER = 3
I_DENSE = 4
I_GOAL_TRIES = 5
NUM_INT_PARAMS = 6

# --- contact model geometry (m) ---------------------------------------------------------
FINGER_RADIUS = 0.011
"""Radius of each finger cylinder (a Panda finger pad is about 0.02 m wide)."""
FINGERTIP_BELOW_TCP = 0.01
"""How far the fingertips reach below the TCP (PyBullet's panda_grasptarget)."""
FINGER_LENGTH = 0.05
"""Height of the finger cylinders above the fingertips (the hand starts above)."""
LIMIT_SURFACE_RATIO = 0.3826
"""Mean distance of a square's points from its centre over its edge: the cube's
limit-surface radius c = ratio * edge (uniform table pressure)."""
GRAVITY = 9.81
GRASP_RELEASE_SLACK = 0.002
"""Fingers opened this much wider than the cube release it (m)."""

_DH_A = panda.dh_a.copy()
_DH_D = panda.dh_d.copy()
_COS_ALPHA = np.array([math.cos(a) for a in panda.dh_alpha])
_SIN_ALPHA = np.array([math.sin(a) for a in panda.dh_alpha])
_Q_MIN = panda.joint_position_min.copy()
_Q_MAX = panda.joint_position_max.copy()
_V_MAX = panda.joint_velocity_limits.copy()
_Q_HOME = panda.home_joint_positions.copy()
_FLANGE_TO_TCP = panda.flange_to_tcp
_FINGER_AXIS_X = -math.sin(panda.hand_yaw)  # finger axis (TCP y) in flange coordinates
_FINGER_AXIS_Y = math.cos(panda.hand_yaw)
_WIDTH_MAX = panda.gripper_width_max

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
NOISE_COUNTER_BASE = 1 << 20
"""Draw counters below this are reset draws; observation noise uses counters above."""


# ======================================================================================
# Counter-based RNG
# ======================================================================================
@njit(cache=True)
def mix64(z):
    """splitmix64's finalizer: a bijective avalanche hash of a uint64."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def episode_key(seed, env, episode):
    """The key of one env's episode: hash of (seed, env index, episode counter)."""
    h = mix64(np.uint64(seed) + _GOLDEN)
    h = mix64(h ^ np.uint64(env))
    return mix64(h ^ np.uint64(episode))


@njit(cache=True)
def uniform01(key, counter):
    """Uniform double in [0, 1) for draw ``counter`` under ``key``."""
    h = mix64(key + np.uint64(counter + 1) * _GOLDEN)
    return float(h >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def normal01(key, counter):
    """Standard normal (Box-Muller) from draws ``2 counter`` and ``2 counter + 1``."""
    u1 = 1.0 - uniform01(key, 2 * counter)
    u2 = uniform01(key, 2 * counter + 1)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


# ======================================================================================
# Kinematics (allocation-free)
# ======================================================================================
@njit(cache=True)
def fk_row(q, k, store, frames):
    """Forward kinematics of configuration ``q[k]`` with scalars only.

    Returns (tcp x, y, z, finger axis x, y, z) in the base frame. With ``store`` it also
    writes joint frame i's z axis into ``frames[i, 0:3]`` and its origin into
    ``frames[i, 3:6]`` (i = 0..6), for :func:`dls_row`.
    """
    r00 = 1.0
    r01 = 0.0
    r02 = 0.0
    r10 = 0.0
    r11 = 1.0
    r12 = 0.0
    r20 = 0.0
    r21 = 0.0
    r22 = 1.0
    px = 0.0
    py = 0.0
    pz = 0.0
    for i in range(8):
        ca = _COS_ALPHA[i]
        sa = _SIN_ALPHA[i]
        a = _DH_A[i]
        d = _DH_D[i]
        if i < 7:
            th = q[k, i]
            ct = math.cos(th)
            st = math.sin(th)
        else:
            ct = 1.0
            st = 0.0
        t1 = -sa * d
        t2 = ca * d
        px = px + r00 * a + r01 * t1 + r02 * t2
        py = py + r10 * a + r11 * t1 + r12 * t2
        pz = pz + r20 * a + r21 * t1 + r22 * t2
        c0y = st * ca
        c0z = st * sa
        c1y = ct * ca
        c1z = ct * sa
        n00 = r00 * ct + r01 * c0y + r02 * c0z
        n10 = r10 * ct + r11 * c0y + r12 * c0z
        n20 = r20 * ct + r21 * c0y + r22 * c0z
        n01 = -r00 * st + r01 * c1y + r02 * c1z
        n11 = -r10 * st + r11 * c1y + r12 * c1z
        n21 = -r20 * st + r21 * c1y + r22 * c1z
        n02 = -r01 * sa + r02 * ca
        n12 = -r11 * sa + r12 * ca
        n22 = -r21 * sa + r22 * ca
        r00, r10, r20 = n00, n10, n20
        r01, r11, r21 = n01, n11, n21
        r02, r12, r22 = n02, n12, n22
        if store and i < 7:
            frames[i, 0] = r02
            frames[i, 1] = r12
            frames[i, 2] = r22
            frames[i, 3] = px
            frames[i, 4] = py
            frames[i, 5] = pz
    tx = px + _FLANGE_TO_TCP * r02
    ty = py + _FLANGE_TO_TCP * r12
    tz = pz + _FLANGE_TO_TCP * r22
    fx = r00 * _FINGER_AXIS_X + r01 * _FINGER_AXIS_Y
    fy = r10 * _FINGER_AXIS_X + r11 * _FINGER_AXIS_Y
    fz = r20 * _FINGER_AXIS_X + r21 * _FINGER_AXIS_Y
    return tx, ty, tz, fx, fy, fz


@njit(cache=True)
def dls_row(q, k, dx, dy, dz, damping, frames, jac, dq):
    """One damped-least-squares IK step for ``q[k]``: writes into ``dq`` [7] the joint delta
    that moves the TCP by (dx, dy, dz); ``frames`` [7, 6] and ``jac`` [3, 7] are scratch.
    Same formula as :func:`sims.robots.panda.dls_ik_step`."""
    tx, ty, tz, _, _, _ = fk_row(q, k, True, frames)
    for i in range(7):
        zx = frames[i, 0]
        zy = frames[i, 1]
        zz = frames[i, 2]
        rx = tx - frames[i, 3]
        ry = ty - frames[i, 4]
        rz = tz - frames[i, 5]
        jac[0, i] = zy * rz - zz * ry
        jac[1, i] = zz * rx - zx * rz
        jac[2, i] = zx * ry - zy * rx
    m00 = damping * damping
    m11 = m00
    m22 = m00
    m01 = 0.0
    m02 = 0.0
    m12 = 0.0
    for i in range(7):
        j0 = jac[0, i]
        j1 = jac[1, i]
        j2 = jac[2, i]
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
    for i in range(7):
        dq[i] = jac[0, i] * y0 + jac[1, i] * y1 + jac[2, i] * y2


@njit(cache=True)
def _clip(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


# ======================================================================================
# Contact model
# ======================================================================================
@njit(cache=True)
def push_cube(cx, cy, cyaw, px, py, mx, my, radius, half, mu):
    """Resolve a vertical finger cylinder (centre (px, py), radius ``radius``, moved by
    (mx, my) this step) against the cube (centre (cx, cy), yaw ``cyaw``, half edge
    ``half``), quasi-statically.

    The penetration depth along the contact normal plus the finger's tangential motion is
    the displacement asked of the cube's contact point. The cube's twist follows an
    ellipsoidal limit surface: displacement v = F, rotation w = (r x F) / c^2 for a
    contact force F at contact point r (c = ``LIMIT_SURFACE_RATIO`` * edge), so the
    contact point moves by (I + p p^T / c^2) F with p = z x r. F sticks when inside the
    friction cone of coefficient ``mu``, else slides on its edge. Returns the new
    (cx, cy, cyaw) and whether the finger touched the cube.
    """
    c = math.cos(cyaw)
    s = math.sin(cyaw)
    ox = px - cx
    oy = py - cy
    lx = c * ox + s * oy
    ly = -s * ox + c * oy
    qx = _clip(lx, -half, half)
    qy = _clip(ly, -half, half)
    dx = lx - qx
    dy = ly - qy
    dist = math.sqrt(dx * dx + dy * dy)
    if dist >= radius:
        return cx, cy, cyaw, False
    if dist > 1e-12:
        nx = -dx / dist
        ny = -dy / dist
        depth = radius - dist
    else:  # finger centre inside the square: leave through the nearest face
        gap_x = half - abs(lx)
        gap_y = half - abs(ly)
        if gap_x < gap_y:
            sx = 1.0 if lx >= 0.0 else -1.0
            nx = -sx
            ny = 0.0
            qx = sx * half
            depth = radius + gap_x
        else:
            sy = 1.0 if ly >= 0.0 else -1.0
            nx = 0.0
            ny = -sy
            qy = sy * half
            depth = radius + gap_y
    tx = -ny
    ty = nx
    # finger motion in the cube frame, tangential part
    mlx = c * mx + s * my
    mly = -s * mx + c * my
    slide_t = mlx * tx + mly * ty
    rc = LIMIT_SURFACE_RATIO * 2.0 * half
    rc2 = rc * rc
    pxl = -qy
    pyl = qx
    pn = pxl * nx + pyl * ny
    pt = pxl * tx + pyl * ty
    # sticking: solve (I + p p^T / c^2) F = depth n + slide_t t (Sherman-Morrison)
    bx = depth * nx + slide_t * tx
    by = depth * ny + slide_t * ty
    pb = pxl * bx + pyl * by
    scale = pb / (rc2 + pxl * pxl + pyl * pyl)
    fx = bx - pxl * scale
    fy = by - pyl * scale
    f_n = fx * nx + fy * ny
    f_t = fx * tx + fy * ty
    if f_n <= 0.0 or abs(f_t) > mu * f_n:
        # sliding: F = f (n + mu sgn t) with the normal condition n . A F = depth
        sgn = 1.0 if f_t >= 0.0 else -1.0
        denom = 1.0 + (pn * pn + mu * sgn * pn * pt) / rc2
        if denom < 0.25:  # near jamming: drop the friction
            sgn = 0.0
            denom = 1.0 + pn * pn / rc2
        f = depth / denom
        fx = f * (nx + mu * sgn * tx)
        fy = f * (ny + mu * sgn * ty)
    omega = (pxl * fx + pyl * fy) / rc2
    cx += c * fx - s * fy
    cy += s * fx + c * fy
    return cx, cy, cyaw + omega, True


@njit(cache=True)
def wrap_quarter(angle):
    """``angle`` wrapped into [-pi/4, pi/4) (the cube's 90 deg symmetry)."""
    quarter = 0.5 * math.pi
    return angle - quarter * math.floor(angle / quarter + 0.5)


# ======================================================================================
# Observation, reward, reset, step for one env
# ======================================================================================
@njit(cache=True)
def write_obs(kind, k, out, q, qd, tcp, grip, obj, goal, noise_std, key, step):
    """Observation row ``out[k]`` for the task ``kind``, the same layout and arithmetic as
    the task module's ``observe``; with ``noise_std`` > 0, Gaussian noise on joint, TCP
    and object positions and the object yaw (derived fields use the noisy values)."""
    base = NOISE_COUNTER_BASE + step * 32
    noisy = noise_std > 0.0
    for i in range(7):
        v = q[k, i]
        if noisy:
            v += noise_std * normal01(key, base + i)
        out[k, i] = v
        out[k, 7 + i] = qd[k, i]
    tx = tcp[k, 0]
    ty = tcp[k, 1]
    tz = tcp[k, 2]
    if noisy:
        tx += noise_std * normal01(key, base + 7)
        ty += noise_std * normal01(key, base + 8)
        tz += noise_std * normal01(key, base + 9)
    out[k, 14] = tx
    out[k, 15] = ty
    out[k, 16] = tz
    gx = goal[k, 0]
    gy = goal[k, 1]
    gz = goal[k, 2]
    if kind == KIND_REACH:
        out[k, 17] = gx
        out[k, 18] = gy
        out[k, 19] = gz
        out[k, 20] = gx - tx
        out[k, 21] = gy - ty
        out[k, 22] = gz - tz
        return
    j = 17
    if kind == KIND_PICK_PLACE:
        out[k, j] = grip[k, 0]
        j += 1
    ox = obj[k, 0]
    oy = obj[k, 1]
    oz = obj[k, 2]
    yaw = obj[k, 3]
    if noisy:
        ox += noise_std * normal01(key, base + 10)
        oy += noise_std * normal01(key, base + 11)
        oz += noise_std * normal01(key, base + 12)
        yaw += noise_std * normal01(key, base + 13)
    out[k, j] = ox
    out[k, j + 1] = oy
    out[k, j + 2] = oz
    out[k, j + 3] = math.sin(4.0 * yaw)
    out[k, j + 4] = math.cos(4.0 * yaw)
    out[k, j + 5] = ox - tx
    out[k, j + 6] = oy - ty
    out[k, j + 7] = oz - tz
    out[k, j + 8] = gx
    out[k, j + 9] = gy
    out[k, j + 10] = gz
    out[k, j + 11] = gx - ox
    out[k, j + 12] = gy - oy
    out[k, j + 13] = gz - oz


@njit(cache=True)
def reward_success(kind, dense, k, fp, tcp, obj, goal):
    """(reward, success) of env ``k``: the task module's ``reward`` and ``success``."""
    thr = fp[P_SUCCESS]
    if kind == KIND_REACH:
        dx = tcp[k, 0] - goal[k, 0]
        dy = tcp[k, 1] - goal[k, 1]
        dz = tcp[k, 2] - goal[k, 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        if dense:
            return -d, d < thr
        return -1.0 if d > thr else 0.0, d < thr
    dx = obj[k, 0] - goal[k, 0]
    dy = obj[k, 1] - goal[k, 1]
    if kind == KIND_PUSH:
        d = math.sqrt(dx * dx + dy * dy)
    else:
        dz = obj[k, 2] - goal[k, 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
    if not dense:
        return -1.0 if d >= thr else 0.0, d < thr
    ex = tcp[k, 0] - obj[k, 0]
    ey = tcp[k, 1] - obj[k, 1]
    ez = tcp[k, 2] - obj[k, 2]
    reach = math.sqrt(ex * ex + ey * ey + ez * ez)
    return -d - fp[P_REACH_WEIGHT] * reach, d < thr


@njit(cache=True)
def reset_env(k, fp, ip, seed, q, qd, tcp, grip, obj, gof, goal, dr, counters, ep_ret, abuf,
              frames):
    """Start a new episode for env ``k`` from its episode key (``counters[k, 1]``)."""
    kind = ip[I_KIND]
    key = episode_key(seed, k, counters[k, 1])
    noise = fp[P_JOINT_NOISE]
    for i in range(7):
        v = _Q_HOME[i] + noise * (2.0 * uniform01(key, i) - 1.0)
        q[k, i] = _clip(v, _Q_MIN[i], _Q_MAX[i])
        qd[k, i] = 0.0
    tx, ty, tz, fx, fy, fz = fk_row(q, k, False, frames)
    tcp[k, 0] = tx
    tcp[k, 1] = ty
    tcp[k, 2] = tz
    tcp[k, 3] = fx
    tcp[k, 4] = fy
    tcp[k, 5] = fz
    grip[k, 0] = fp[P_INIT_WIDTH]
    grip[k, 1] = 0.0
    for i in range(8):
        obj[k, i] = 0.0
    for i in range(4):
        gof[k, i] = 0.0
    u = uniform01(key, 10)
    dr[k, 0] = fp[P_FRICTION_LO] + (fp[P_FRICTION_HI] - fp[P_FRICTION_LO]) * u
    u = uniform01(key, 11)
    dr[k, 1] = fp[P_MASS_LO] + (fp[P_MASS_HI] - fp[P_MASS_LO]) * u
    k1 = abuf.shape[1]
    delay = int(math.floor(uniform01(key, 12) * k1))
    dr[k, 2] = float(min(delay, k1 - 1))
    has_gripper = ip[I_HAS_GRIPPER] != 0
    for s in range(k1):
        for j in range(abuf.shape[2]):
            abuf[k, s, j] = 0.0
        if has_gripper:
            abuf[k, s, 3] = 1.0  # a delayed gripper command keeps the fingers open
    counters[k, 0] = 0
    ep_ret[k] = 0.0
    if kind == KIND_REACH:
        goal[k, 0] = fp[P_GOAL_X_LO] + (fp[P_GOAL_X_HI] - fp[P_GOAL_X_LO]) * uniform01(key, 15)
        goal[k, 1] = fp[P_GOAL_Y_LO] + (fp[P_GOAL_Y_HI] - fp[P_GOAL_Y_LO]) * uniform01(key, 16)
        goal[k, 2] = fp[P_GOAL_Z_LO] + (fp[P_GOAL_Z_HI] - fp[P_GOAL_Z_LO]) * uniform01(key, 17)
        return
    half = fp[P_CUBE_HALF]
    ox = fp[P_OBJ_X_LO] + (fp[P_OBJ_X_HI] - fp[P_OBJ_X_LO]) * uniform01(key, 7)
    oy = fp[P_OBJ_Y_LO] + (fp[P_OBJ_Y_HI] - fp[P_OBJ_Y_LO]) * uniform01(key, 8)
    obj[k, 0] = ox
    obj[k, 1] = oy
    obj[k, 2] = half
    obj[k, 3] = 0.5 * math.pi * (uniform01(key, 9) - 0.5)
    gx = ox
    gy = oy
    for t in range(ip[I_GOAL_TRIES]):
        dist = fp[P_GOAL_D_LO] + (fp[P_GOAL_D_HI] - fp[P_GOAL_D_LO]) * uniform01(key, 20 + 2 * t)
        ang = math.pi * (2.0 * uniform01(key, 21 + 2 * t) - 1.0)
        gx = ox + dist * math.cos(ang)
        gy = oy + dist * math.sin(ang)
        if (
            fp[P_GOAL_X_LO] <= gx <= fp[P_GOAL_X_HI]
            and fp[P_GOAL_Y_LO] <= gy <= fp[P_GOAL_Y_HI]
        ):
            break
    goal[k, 0] = _clip(gx, fp[P_GOAL_X_LO], fp[P_GOAL_X_HI])
    goal[k, 1] = _clip(gy, fp[P_GOAL_Y_LO], fp[P_GOAL_Y_HI])
    if uniform01(key, 13) < fp[P_AIR_PROB]:
        goal[k, 2] = fp[P_GOAL_Z_LO] + (fp[P_GOAL_Z_HI] - fp[P_GOAL_Z_LO]) * uniform01(key, 14)
    else:
        goal[k, 2] = half


@njit(cache=True)
def _finger_overlaps_cube(fcx, fcy, ox, oy, yaw, half, radius):
    c = math.cos(yaw)
    s = math.sin(yaw)
    lx = c * (fcx - ox) + s * (fcy - oy)
    ly = -s * (fcx - ox) + c * (fcy - oy)
    dx = lx - _clip(lx, -half, half)
    dy = ly - _clip(ly, -half, half)
    return dx * dx + dy * dy < radius * radius


@njit(cache=True)
def _horizontal_axis(fx, fy):
    norm = math.sqrt(fx * fx + fy * fy)
    if norm < 1e-9:
        return 0.0, 1.0
    return fx / norm, fy / norm


@njit(cache=True)
def _move_arm(k, fp, ip, q, a0, a1, a2, abuf, aslot, q_old, frames, jac, dq):
    """Joint target from the action, clipped to the limits, tracked with the gain."""
    dt = fp[P_DT]
    if ip[I_CARTESIAN] != 0:
        cs = fp[P_CART_STEP]
        dls_row(q, k, a0 * cs, a1 * cs, a2 * cs, fp[P_IK_DAMPING], frames, jac, dq)
    else:
        scale = fp[P_JOINT_SCALE] * dt
        for i in range(7):
            dq[i] = abuf[k, aslot, i] * scale * _V_MAX[i]
    gain = fp[P_GAIN]
    for i in range(7):
        q_old[i] = q[k, i]
        target = _clip(q_old[i] + dq[i], _Q_MIN[i], _Q_MAX[i])
        q[k, i] = q_old[i] + gain * (target - q_old[i])


@njit(cache=True)
def _object_step(k, fp, ip, q, tcp, grip, obj, gof, dr, prev, frames, jac, dq, a_grip):
    """Table/cube floor for the fingers, gripper and grasp, and the cube's motion, after
    the arm has moved to ``q[k]`` (``prev``: TCP x, y, z and finger width before)."""
    dt = fp[P_DT]
    half = fp[P_CUBE_HALF]
    radius = FINGER_RADIUS
    tx, ty, tz, fx, fy, fz = fk_row(q, k, False, frames)
    hx, hy = _horizontal_axis(fx, fy)
    width = grip[k, 0]
    grasped = grip[k, 1] > 0.5
    ox = obj[k, 0]
    oy = obj[k, 1]
    oz = obj[k, 2]
    oyaw = obj[k, 3]
    # --- floor: fingertips stay above the table and on top of a cube they land on ----
    floor = FINGERTIP_BELOW_TCP
    if grasped:
        floor = max(floor, half - gof[k, 2])
    elif prev[2] - FINGERTIP_BELOW_TCP >= oz + half - 1e-3:
        off = 0.5 * width + radius
        for side in (-1.0, 1.0):
            if _finger_overlaps_cube(tx + side * off * hx, ty + side * off * hy, ox, oy, oyaw,
                                     half, radius):
                floor = max(floor, oz + half + FINGERTIP_BELOW_TCP)
    if tz < floor:
        dls_row(q, k, 0.0, 0.0, floor - tz, fp[P_IK_DAMPING], frames, jac, dq)
        for i in range(7):
            q[k, i] = _clip(q[k, i] + dq[i], _Q_MIN[i], _Q_MAX[i])
        tx, ty, tz, fx, fy, fz = fk_row(q, k, False, frames)
        hx, hy = _horizontal_axis(fx, fy)
    tcp[k, 0] = tx
    tcp[k, 1] = ty
    tcp[k, 2] = tz
    tcp[k, 3] = fx
    tcp[k, 4] = fy
    tcp[k, 5] = fz
    gain = fp[P_GAIN]
    hand_yaw = math.atan2(hy, hx)
    # --- gripper and grasp -----------------------------------------------------------
    if ip[I_HAS_GRIPPER] != 0:
        opening = a_grip > 0.0
        if grasped:
            if opening:
                width = width + gain * (_WIDTH_MAX - width)
                if width > 2.0 * half + GRASP_RELEASE_SLACK:
                    grasped = False
                    obj[k, 4] = 0.0
                    obj[k, 5] = 0.0
                    obj[k, 6] = 0.0
        else:
            target = _WIDTH_MAX if opening else 0.0
            new_width = width + gain * (target - width)
            if not opening:
                rx = ox - tx
                ry = oy - ty
                along = rx * hx + ry * hy
                across = -rx * hy + ry * hx
                between = (
                    abs(across) < half
                    and abs(oz - tz) < half
                    and abs(along) < 0.5 * width
                )
                if between and new_width <= 2.0 * half:
                    grasped = True
                    new_width = 2.0 * half
                    # the closing fingers centre the cube and square it to the pads
                    ox = tx - across * hy
                    oy = ty + across * hx
                    oyaw = hand_yaw + wrap_quarter(oyaw - hand_yaw)
                    gof[k, 0] = ox - tx
                    gof[k, 1] = oy - ty
                    gof[k, 2] = oz - tz
                    gof[k, 3] = oyaw - hand_yaw
            width = new_width
        grip[k, 0] = width
        grip[k, 1] = 1.0 if grasped else 0.0
    # --- the cube ----------------------------------------------------------------------
    if grasped:
        ox = tx + gof[k, 0]
        oy = ty + gof[k, 1]
        oz = tz + gof[k, 2]
        if oz < half:
            oz = half
            gof[k, 2] = oz - tz
        oyaw = hand_yaw + gof[k, 3]
        obj[k, 4] = 0.0
        obj[k, 5] = 0.0
        obj[k, 6] = 0.0
    else:
        start_x = ox
        start_y = oy
        vx = obj[k, 4]
        vy = obj[k, 5]
        vz = obj[k, 6]
        if oz > half or vz != 0.0:  # released: falls to the table
            vz -= GRAVITY * dt
            oz += vz * dt
            if oz <= half:
                oz = half
                vz = 0.0
        speed = math.sqrt(vx * vx + vy * vy)
        if speed > 0.0:  # sliding on after a push, Coulomb deceleration mu g
            slowed = max(0.0, speed - fp[P_MU_TABLE] * dr[k, 0] * GRAVITY * dt)
            vx *= slowed / speed
            vy *= slowed / speed
            ox += vx * dt
            oy += vy * dt
        tip = tz - FINGERTIP_BELOW_TCP
        touched = False
        if tip < oz + half and tip + FINGER_LENGTH > oz - half:
            off = 0.5 * width + radius
            prev_off = 0.5 * prev[3] + radius
            for side in (-1.0, 1.0):
                fcx = tx + side * off * hx
                fcy = ty + side * off * hy
                mx = fcx - (prev[0] + side * prev_off * hx)
                my = fcy - (prev[1] + side * prev_off * hy)
                for it in range(2):
                    ox, oy, oyaw, hit = push_cube(ox, oy, oyaw, fcx, fcy, mx, my, radius, half,
                                                  fp[P_MU_FINGER])
                    touched = touched or hit
                    mx = 0.0
                    my = 0.0
        if touched:
            vx = (ox - start_x) / dt
            vy = (oy - start_y) / dt
        obj[k, 4] = vx
        obj[k, 5] = vy
        obj[k, 6] = vz
    obj[k, 0] = ox
    obj[k, 1] = oy
    obj[k, 2] = oz
    obj[k, 3] = oyaw


# ======================================================================================
# Batched kernels
# ======================================================================================
@njit(cache=True, parallel=True)
def step_kernel(fp, ip, seed, n_chunks, actions, q, qd, tcp, grip, obj, gof, goal, dr,
                counters, ep_ret, abuf, obs, rew, term, trunc, succ, fin_obs, has_fin,
                fin_ret, fin_len):
    """One control step of every env, with SAME_STEP autoreset (see the backend)."""
    n = q.shape[0]
    kind = ip[I_KIND]
    dense = ip[I_DENSE] != 0
    dt = fp[P_DT]
    k1 = abuf.shape[1]
    dim = obs.shape[1]
    chunk = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        frames = np.empty((7, 6))
        jac = np.empty((3, 7))
        dq = np.empty(7)
        q_old = np.empty(7)
        prev = np.empty(4)
        lo = c * chunk
        hi = min(n, lo + chunk)
        for k in range(lo, hi):
            steps = counters[k, 0]
            slot = steps % k1
            for j in range(actions.shape[1]):
                abuf[k, slot, j] = actions[k, j]
            aslot = (steps - int(dr[k, 2]) + k1) % k1
            prev[0] = tcp[k, 0]
            prev[1] = tcp[k, 1]
            prev[2] = tcp[k, 2]
            prev[3] = grip[k, 0]
            _move_arm(k, fp, ip, q, abuf[k, aslot, 0], abuf[k, aslot, 1], abuf[k, aslot, 2],
                      abuf, aslot, q_old, frames, jac, dq)
            if kind == KIND_REACH:
                tx, ty, tz, fx, fy, fz = fk_row(q, k, False, frames)
                tcp[k, 0] = tx
                tcp[k, 1] = ty
                tcp[k, 2] = tz
                tcp[k, 3] = fx
                tcp[k, 4] = fy
                tcp[k, 5] = fz
            else:
                a_grip = abuf[k, aslot, 3] if ip[I_HAS_GRIPPER] != 0 else -1.0
                _object_step(k, fp, ip, q, tcp, grip, obj, gof, dr, prev, frames, jac, dq,
                             a_grip)
            for i in range(7):
                qd[k, i] = (q[k, i] - q_old[i]) / dt
            r, ok = reward_success(kind, dense, k, fp, tcp, obj, goal)
            steps += 1
            counters[k, 0] = steps
            ep_ret[k] += r
            rew[k] = r
            succ[k] = ok
            term[k] = ok
            trunc[k] = steps >= ip[I_EPISODE_STEPS]
            key = episode_key(seed, k, counters[k, 1])
            write_obs(kind, k, obs, q, qd, tcp, grip, obj, goal, fp[P_OBS_NOISE], key, steps)
            if term[k] or trunc[k]:
                for j in range(dim):
                    fin_obs[k, j] = obs[k, j]
                has_fin[k] = True
                fin_ret[k] = ep_ret[k]
                fin_len[k] = steps
                counters[k, 1] += 1
                reset_env(k, fp, ip, seed, q, qd, tcp, grip, obj, gof, goal, dr, counters,
                          ep_ret, abuf, frames)
                key = episode_key(seed, k, counters[k, 1])
                write_obs(kind, k, obs, q, qd, tcp, grip, obj, goal, fp[P_OBS_NOISE], key, 0)
            else:
                for j in range(dim):
                    fin_obs[k, j] = 0.0
                has_fin[k] = False
                fin_ret[k] = 0.0
                fin_len[k] = 0.0


@njit(cache=True, parallel=True)
def reset_kernel(fp, ip, seed, n_chunks, mask, bump, q, qd, tcp, grip, obj, gof, goal, dr,
                 counters, ep_ret, abuf, obs):
    """Start a new episode in every env where ``mask``; ``bump`` advances its episode
    counter first (a reset without a new seed draws a new episode)."""
    n = q.shape[0]
    kind = ip[I_KIND]
    chunk = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        frames = np.empty((7, 6))
        lo = c * chunk
        hi = min(n, lo + chunk)
        for k in range(lo, hi):
            if not mask[k]:
                continue
            if bump:
                counters[k, 1] += 1
            reset_env(k, fp, ip, seed, q, qd, tcp, grip, obj, gof, goal, dr, counters,
                      ep_ret, abuf, frames)
            key = episode_key(seed, k, counters[k, 1])
            write_obs(kind, k, obs, q, qd, tcp, grip, obj, goal, fp[P_OBS_NOISE], key, 0)


@njit(cache=True, parallel=True)
def refresh_kernel(fp, ip, seed, n_chunks, q, tcp, grip, obj, goal, qd, counters, obs):
    """Recompute the TCP from ``q`` and the observations (after ``set_state``)."""
    n = q.shape[0]
    kind = ip[I_KIND]
    chunk = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        frames = np.empty((7, 6))
        lo = c * chunk
        hi = min(n, lo + chunk)
        for k in range(lo, hi):
            tx, ty, tz, fx, fy, fz = fk_row(q, k, False, frames)
            tcp[k, 0] = tx
            tcp[k, 1] = ty
            tcp[k, 2] = tz
            tcp[k, 3] = fx
            tcp[k, 4] = fy
            tcp[k, 5] = fz
            key = episode_key(seed, k, counters[k, 1])
            write_obs(kind, k, obs, q, qd, tcp, grip, obj, goal, fp[P_OBS_NOISE], key,
                      counters[k, 0])
