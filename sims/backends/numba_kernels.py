"""Numba kernels of the numba backend: inlined kinematics, a counter-based RNG, the contact
model, and the fused batched step and reset over all envs.

Every kernel is ``@njit(cache=True)``. The step kernels (:func:`step_kernel` for every
task, :func:`reach_step_kernel`, the same for reach in joint mode written as one loop body
for speed) are ``parallel=True`` over chunks of envs and allocate only a few small scratch
arrays per chunk, never per env; autoresets happen inside them. The whole-batch
:func:`reset_kernel` (``reset(seed=...)``) is serial: a few ms for 4096 envs, and it
compiles faster. Each env's state is one float64 row (``S_*`` columns).
All tasks share one specialization of each kernel: the task is an integer (``KIND_*``) and
its numbers travel in a float64 parameter vector (``P_*`` indices) and an int64 one
(``I_*``), built by the backend from the task module, so the task module stays the single
source of truth. Numba does not inline calls between compiled functions, and a call with
many array arguments costs ~100 ns per env: hence the reach kernel written as one loop
body, and ``inline="always"`` on the two per-env helpers of the generic chunk loop.

Randomness is counter-based: every draw is ``splitmix64`` of (seed, env index, episode
counter, draw counter), so rollouts are bit-identical for a seed whatever the number of
threads or the chunking.

Contact model (push, pick_place); see :mod:`sims.backends.numba_backend` for the full
description. Fingers are two vertical prisms beside the TCP along the hand's finger axis
(each a 2 x 2 grid of ``PAD_RADIUS`` circles in cube contacts; one ``FINGER_RADIUS``
circle when landing on a cube's top); the cube is a yawed box that slides quasi-statically
on the table: a finger's penetration is resolved along the contact normal and the resulting
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
P_KICK_LO = 30
P_KICK_HI = 31
P_Z_MIN = 32
P_MU_FINGER_HI = 33  # P_MU_FINGER is the low end of the finger friction range
P_LSR_LO = 34
P_LSR_HI = 35
NUM_FLOAT_PARAMS = 36

# --- int parameter vector ---------------------------------------------------------------
I_KIND = 0
I_EPISODE_STEPS = 1
I_CARTESIAN = 2
I_HAS_GRIPPER = 3
I_DENSE = 4
I_GOAL_TRIES = 5
I_PAD_GRID = 6  # 1: fingers touch the cube as 2 x 2 circle grids; 0: as one cylinder each
NUM_INT_PARAMS = 7

# --- contact model geometry (m) ---------------------------------------------------------
FINGER_RADIUS = 0.0135
"""Radius of each finger cylinder: PyBullet's Panda finger has a footprint of about
0.029 m across the finger axis by 0.026 m along it."""
FINGERTIP_BELOW_TCP = 0.01
"""How far the fingertips reach below the TCP (PyBullet's panda_grasptarget)."""
FINGER_LENGTH = 0.05
"""Height of the finger cylinders above the fingertips (the hand starts above)."""
PAD_RADIUS = 0.009
"""Radius of the four circles that make up a finger's footprint in cube contacts: a 2 x 2
grid, so the finger's faces are flat between rounded corners."""
PAD_ACROSS = FINGER_RADIUS - PAD_RADIUS + 0.001
"""Offset of the pad circles across the finger axis (footprint 0.029 m across)."""
PAD_NEAR = PAD_RADIUS
"""Offset of the inner pad circles along the finger axis beyond the finger's inner face."""
PAD_FAR = 2.0 * FINGER_RADIUS - PAD_RADIUS
"""Offset of the outer pad circles (footprint 0.027 m along the axis)."""
CONTACT_TOP_BAND = 0.006
"""A finger whose tip is less than this below a cube's top face does not push it: in
PyBullet such a grazing contact rides over the edge or tips the cube instead of sliding
it, so the model gives the policy no credit for it."""
CONTACT_SUBSTEPS = 4
"""The fingers' motion in one control step is resolved against the cube in this many
equal parts (a 2 cm step would otherwise sink a finger 1.6 cm into the cube at once)."""
CONTACT_PASSES = 2
"""Gauss-Seidel passes over the two finger contacts per substep (alternating fingers, so
that two fingers on one face leave it flush with both instead of turning the cube)."""
LIMIT_SURFACE_RATIO = 0.3826
"""Mean distance of a square's points from its centre over its edge: the cube's
limit-surface radius c = ratio * edge (uniform table pressure)."""
GRAVITY = 9.81
GRASP_RELEASE_SLACK = 0.002
"""Fingers opened this much wider than the cube release it (m)."""

_DH_A = panda.dh_a.copy()
_DH_D = panda.dh_d.copy()
_SIN_ALPHA = np.array([math.sin(a) for a in panda.dh_alpha])
# fk_row is specialised to the Panda's table: alpha_0 = alpha_7 = 0, the rest +-pi/2, a_0 = 0
assert panda.dh_alpha[0] == 0.0 and panda.dh_alpha[7] == 0.0 and panda.dh_a[0] == 0.0
assert np.all(np.abs(np.abs(panda.dh_alpha[1:7]) - math.pi / 2) < 1e-15)
assert panda.dh_a[7] == 0.0
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


@njit(cache=True)
def _joint_perp(r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz, th, a, d, sa):
    """Append a modified-DH joint with alpha = +-pi/2 (``sa`` = sin alpha = +-1)."""
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


SCRATCH_SHAPE = (11, 7)
"""Per-chunk scratch of the kinematics: rows 0-6 joint frames (z axis, origin), rows 7-9
the Jacobian, row 10 the IK step. One C-contiguous array type everywhere keeps the number
of compiled specializations down."""
_ROW_JAC = 7
_ROW_DQ = 10


@njit(cache=True)
def fk_row(q, k, scratch):
    """Forward kinematics of configuration ``q[k]`` with scalars only, specialised to the
    Panda's modified-DH table (alpha in {0, +-pi/2}); equals
    :func:`sims.robots.panda.fk_tcp` to ~1e-15 m.

    Returns (tcp x, y, z, finger axis x, y, z) in the base frame, and writes joint frame
    i's z axis into ``scratch[i, 0:3]`` and its origin into ``scratch[i, 3:6]`` (i = 0..6)
    for :func:`dls_row`.
    """
    s1, c1 = sincos(q[k, 0])
    # joint 1: alpha 0, a 0, d 0.333 from the identity
    r00, r01, r02 = c1, -s1, 0.0
    r10, r11, r12 = s1, c1, 0.0
    r20, r21, r22 = 0.0, 0.0, 1.0
    px, py, pz = 0.0, 0.0, _DH_D[0]
    for i in range(7):
        if i > 0:
            r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz = _joint_perp(
                r00,
                r01,
                r02,
                r10,
                r11,
                r12,
                r20,
                r21,
                r22,
                px,
                py,
                pz,
                q[k, i],
                _DH_A[i],
                _DH_D[i],
                _SIN_ALPHA[i],
            )
        scratch[i, 0] = r02
        scratch[i, 1] = r12
        scratch[i, 2] = r22
        scratch[i, 3] = px
        scratch[i, 4] = py
        scratch[i, 5] = pz
    # flange (alpha 0, a 0, d 0.107, theta 0) and the TCP 0.105 m further along z
    reach = _DH_D[7] + _FLANGE_TO_TCP
    tx = px + reach * r02
    ty = py + reach * r12
    tz = pz + reach * r22
    fx = r00 * _FINGER_AXIS_X + r01 * _FINGER_AXIS_Y
    fy = r10 * _FINGER_AXIS_X + r11 * _FINGER_AXIS_Y
    fz = r20 * _FINGER_AXIS_X + r21 * _FINGER_AXIS_Y
    return tx, ty, tz, fx, fy, fz


@njit(cache=True)
def dls_row(q, k, dx, dy, dz, damping, scratch):
    """One damped-least-squares IK step for ``q[k]``: writes into ``scratch[10, 0:7]`` the
    joint delta that moves the TCP by (dx, dy, dz) (``scratch``: ``SCRATCH_SHAPE``).
    Same formula as :func:`sims.robots.panda.dls_ik_step`."""
    tx, ty, tz, _, _, _ = fk_row(q, k, scratch)
    jr = _ROW_JAC
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
    for i in range(7):
        scratch[_ROW_DQ, i] = (
            scratch[jr, i] * y0 + scratch[jr + 1, i] * y1 + scratch[jr + 2, i] * y2
        )


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
def push_cube(cx, cy, cyaw, px, py, mx, my, radius, half, mu, ls_ratio):
    """Resolve a vertical finger cylinder (centre (px, py), radius ``radius``, moved by
    (mx, my) this step) against the cube (centre (cx, cy), yaw ``cyaw``, half edge
    ``half``), quasi-statically.

    The penetration depth along the contact normal plus the finger's tangential motion is
    the displacement asked of the cube's contact point. The cube's twist follows an
    ellipsoidal limit surface: displacement v = F, rotation w = (r x F) / c^2 for a
    contact force F at contact point r (c = ``ls_ratio`` * edge; ``LIMIT_SURFACE_RATIO``
    for a uniform pressure), so the contact point moves by (I + p p^T / c^2) F with
    p = z x r. F sticks when inside the friction cone of coefficient ``mu``, else slides
    on its edge. Returns the new (cx, cy, cyaw) and whether the finger touched the cube.
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
    rc = ls_ratio * 2.0 * half
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
# Per-env state: one float64 row per env (columns below), plus int64 counters
# ======================================================================================
S_Q = 0  # 7 joint positions (must stay at column 0: fk_row reads st[k, 0:7])
S_QD = 7  # 7 joint velocities
S_TCP = 14  # 3 TCP position
S_FAX = 17  # 3 finger axis (TCP y) in the base frame (reach steps leave it stale)
S_WIDTH = 20  # finger opening
S_GRASPED = 21  # 1.0 while the cube is held
S_OBJ = 22  # 3 cube centre
S_YAW = 25  # cube yaw
S_VEL = 26  # 3 cube velocity (sliding x, y; falling z)
S_GOF = 29  # 4 grasp offset: cube - TCP (3), cube yaw - hand yaw
S_GOAL = 33  # 3 goal
S_FRICTION = 36  # friction scale of this episode
S_MASS = 37  # mass scale of this episode
S_DELAY = 38  # action delay (steps) of this episode
S_RETURN = 39  # return so far
S_KICK = 40  # velocity gain of the cube after a push, this episode
S_MU_FINGER = 41  # finger-cube friction of this episode
S_LSR = 42  # limit-surface ratio of this episode
NUM_STATE = 43

C_STEPS = 0  # steps in this episode
C_EPISODE = 1  # episode counter (keys the RNG)

R_REWARD = 0  # rows of the float results [3, N]
R_FINAL_RETURN = 1
R_FINAL_LENGTH = 2
F_TERMINATED = 0  # rows of the bool results [4, N]
F_TRUNCATED = 1
F_SUCCESS = 2
F_FINAL = 3


@njit(cache=True)
def write_obs(kind, k, st, out, noise_std, key, step):
    """Observation row ``out[k]`` for the task ``kind``, the same layout and arithmetic as
    the task module's ``observe``; with ``noise_std`` > 0, Gaussian noise on joint, TCP
    and object positions and the cube yaw (derived fields use the noisy values)."""
    base = NOISE_COUNTER_BASE + step * 32
    noisy = noise_std > 0.0
    for i in range(7):
        v = st[k, S_Q + i]
        if noisy:
            v += noise_std * normal01(key, base + i)
        out[k, i] = v
        out[k, 7 + i] = st[k, S_QD + i]
    tx = st[k, S_TCP]
    ty = st[k, S_TCP + 1]
    tz = st[k, S_TCP + 2]
    if noisy:
        tx += noise_std * normal01(key, base + 7)
        ty += noise_std * normal01(key, base + 8)
        tz += noise_std * normal01(key, base + 9)
    out[k, 14] = tx
    out[k, 15] = ty
    out[k, 16] = tz
    gx = st[k, S_GOAL]
    gy = st[k, S_GOAL + 1]
    gz = st[k, S_GOAL + 2]
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
        out[k, j] = st[k, S_WIDTH]
        j += 1
    ox = st[k, S_OBJ]
    oy = st[k, S_OBJ + 1]
    oz = st[k, S_OBJ + 2]
    yaw = st[k, S_YAW]
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
def reward_success(kind, dense, k, fp, st):
    """(reward, success) of env ``k``: the task module's ``reward`` and ``success``."""
    thr = fp[P_SUCCESS]
    if kind == KIND_REACH:
        dx = st[k, S_TCP] - st[k, S_GOAL]
        dy = st[k, S_TCP + 1] - st[k, S_GOAL + 1]
        dz = st[k, S_TCP + 2] - st[k, S_GOAL + 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        if dense:
            return -d, d < thr
        return -1.0 if d > thr else 0.0, d < thr
    dx = st[k, S_OBJ] - st[k, S_GOAL]
    dy = st[k, S_OBJ + 1] - st[k, S_GOAL + 1]
    if kind == KIND_PUSH:
        d = math.sqrt(dx * dx + dy * dy)
    else:
        dz = st[k, S_OBJ + 2] - st[k, S_GOAL + 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
    if not dense:
        return -1.0 if d >= thr else 0.0, d < thr
    ex = st[k, S_TCP] - st[k, S_OBJ]
    ey = st[k, S_TCP + 1] - st[k, S_OBJ + 1]
    ez = st[k, S_TCP + 2] - st[k, S_OBJ + 2]
    reach = math.sqrt(ex * ex + ey * ey + ez * ez)
    return -d - fp[P_REACH_WEIGHT] * reach, d < thr


@njit(cache=True)
def store_fk(k, st, scratch):
    """TCP and finger axis of env ``k`` from its joint positions."""
    tx, ty, tz, fx, fy, fz = fk_row(st, k, scratch)
    st[k, S_TCP] = tx
    st[k, S_TCP + 1] = ty
    st[k, S_TCP + 2] = tz
    st[k, S_FAX] = fx
    st[k, S_FAX + 1] = fy
    st[k, S_FAX + 2] = fz


@njit(cache=True)
def _uniform(key, counter, lo, hi):
    return lo + (hi - lo) * uniform01(key, counter)


@njit(cache=True)
def reset_env(k, fp, ip, seed, st, cnt, abuf, scratch):
    """Start a new episode for env ``k``, drawn from its episode key (``cnt[k, 1]``)."""
    key = episode_key(seed, k, cnt[k, C_EPISODE])
    # draw numbers as int64 values, not literals: numba would compile a specialization of
    # the RNG helpers for every literal
    d = np.int64(0)
    noise = fp[P_JOINT_NOISE]
    for i in range(NUM_STATE):
        st[k, i] = 0.0
    for i in range(7):
        st[k, S_Q + i] = _clip(
            _uniform(key, i, _Q_HOME[i] - noise, _Q_HOME[i] + noise), _Q_MIN[i], _Q_MAX[i]
        )
    store_fk(k, st, scratch)
    st[k, S_WIDTH] = fp[P_INIT_WIDTH]
    st[k, S_FRICTION] = _uniform(key, d + 10, fp[P_FRICTION_LO], fp[P_FRICTION_HI])
    st[k, S_MASS] = _uniform(key, d + 11, fp[P_MASS_LO], fp[P_MASS_HI])
    k1 = abuf.shape[1]
    st[k, S_DELAY] = float(min(int(math.floor(uniform01(key, d + 12) * k1)), k1 - 1))
    st[k, S_KICK] = _uniform(key, d + 18, fp[P_KICK_LO], fp[P_KICK_HI])
    st[k, S_MU_FINGER] = _uniform(key, d + 19, fp[P_MU_FINGER], fp[P_MU_FINGER_HI])
    st[k, S_LSR] = _uniform(key, d + 20, fp[P_LSR_LO], fp[P_LSR_HI])
    has_gripper = ip[I_HAS_GRIPPER] != 0
    for s in range(k1):
        for j in range(abuf.shape[2]):
            abuf[k, s, j] = 0.0
        if has_gripper:
            abuf[k, s, 3] = 1.0  # a delayed gripper command keeps the fingers open
    cnt[k, C_STEPS] = 0
    if ip[I_KIND] == KIND_REACH:
        st[k, S_GOAL] = _uniform(key, d + 15, fp[P_GOAL_X_LO], fp[P_GOAL_X_HI])
        st[k, S_GOAL + 1] = _uniform(key, d + 16, fp[P_GOAL_Y_LO], fp[P_GOAL_Y_HI])
        st[k, S_GOAL + 2] = _uniform(key, d + 17, fp[P_GOAL_Z_LO], fp[P_GOAL_Z_HI])
        return
    half = fp[P_CUBE_HALF]
    ox = _uniform(key, d + 7, fp[P_OBJ_X_LO], fp[P_OBJ_X_HI])
    oy = _uniform(key, d + 8, fp[P_OBJ_Y_LO], fp[P_OBJ_Y_HI])
    st[k, S_OBJ] = ox
    st[k, S_OBJ + 1] = oy
    st[k, S_OBJ + 2] = half
    st[k, S_YAW] = _uniform(key, d + 9, -0.25 * math.pi, 0.25 * math.pi)
    gx = ox
    gy = oy
    for t in range(ip[I_GOAL_TRIES]):
        dist = _uniform(key, 20 + 2 * t, fp[P_GOAL_D_LO], fp[P_GOAL_D_HI])
        ang = _uniform(key, 21 + 2 * t, -math.pi, math.pi)
        gx = ox + dist * math.cos(ang)
        gy = oy + dist * math.sin(ang)
        if fp[P_GOAL_X_LO] <= gx <= fp[P_GOAL_X_HI] and fp[P_GOAL_Y_LO] <= gy <= fp[P_GOAL_Y_HI]:
            break
    st[k, S_GOAL] = _clip(gx, fp[P_GOAL_X_LO], fp[P_GOAL_X_HI])
    st[k, S_GOAL + 1] = _clip(gy, fp[P_GOAL_Y_LO], fp[P_GOAL_Y_HI])
    if uniform01(key, d + 13) < fp[P_AIR_PROB]:
        st[k, S_GOAL + 2] = _uniform(key, d + 14, fp[P_GOAL_Z_LO], fp[P_GOAL_Z_HI])
    else:
        st[k, S_GOAL + 2] = half


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
def _ik_move(k, st, dx, dy, dz, damping, gain, scratch):
    """Cartesian mode: joint target q + DLS step, clipped, tracked with ``gain``."""
    dls_row(st, k, dx, dy, dz, damping, scratch)
    for i in range(7):
        old = st[k, S_Q + i]
        target = _clip(old + scratch[_ROW_DQ, i], _Q_MIN[i], _Q_MAX[i])
        st[k, S_Q + i] = old + gain * (target - old)


@njit(cache=True, inline="always")
def _object_step(k, fp, ip, st, scratch, prev_x, prev_y, prev_z, prev_width, a_grip):
    """Table/cube floor for the fingers, gripper and grasp, and the cube's motion, after
    the arm has moved to its new joint positions."""
    dt = fp[P_DT]
    half = fp[P_CUBE_HALF]
    radius = FINGER_RADIUS
    tx, ty, tz, fx, fy, fz = fk_row(st, k, scratch)
    hx, hy = _horizontal_axis(fx, fy)
    width = st[k, S_WIDTH]
    grasped = st[k, S_GRASPED] > 0.5
    ox = st[k, S_OBJ]
    oy = st[k, S_OBJ + 1]
    oz = st[k, S_OBJ + 2]
    oyaw = st[k, S_YAW]
    # --- floor: fingertips stay above the table and on top of a cube they land on ----
    floor = FINGERTIP_BELOW_TCP
    if grasped:
        floor = max(floor, half - st[k, S_GOF + 2])
    elif prev_z - FINGERTIP_BELOW_TCP >= oz + half - 1e-3:
        off = 0.5 * width + radius
        for side in (-1.0, 1.0):
            fcx = tx + side * off * hx
            fcy = ty + side * off * hy
            if _finger_overlaps_cube(fcx, fcy, ox, oy, oyaw, half, radius):
                floor = max(floor, oz + half + FINGERTIP_BELOW_TCP)
    if tz < floor:
        _ik_move(k, st, 0.0, 0.0, floor - tz, fp[P_IK_DAMPING], 1.0, scratch)
        tx, ty, tz, fx, fy, fz = fk_row(st, k, scratch)
        hx, hy = _horizontal_axis(fx, fy)
    st[k, S_TCP] = tx
    st[k, S_TCP + 1] = ty
    st[k, S_TCP + 2] = tz
    st[k, S_FAX] = fx
    st[k, S_FAX + 1] = fy
    st[k, S_FAX + 2] = fz
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
                    st[k, S_VEL] = 0.0
                    st[k, S_VEL + 1] = 0.0
                    st[k, S_VEL + 2] = 0.0
        else:
            target = _WIDTH_MAX if opening else 0.0
            new_width = width + gain * (target - width)
            if not opening:
                rx = ox - tx
                ry = oy - ty
                along = rx * hx + ry * hy
                across = -rx * hy + ry * hx
                # the pads must already be at the cube's height when the step starts: in
                # PyBullet fingers that close while still coming down close above the cube
                between = (
                    abs(across) < half
                    and abs(oz - tz) < half
                    and abs(oz - prev_z) < half
                    and abs(along) < 0.5 * width
                )
                if between and new_width <= 2.0 * half:
                    grasped = True
                    new_width = 2.0 * half
                    # the closing fingers centre the cube and square it to the pads
                    ox = tx - across * hy
                    oy = ty + across * hx
                    oyaw = hand_yaw + wrap_quarter(oyaw - hand_yaw)
                    st[k, S_GOF] = ox - tx
                    st[k, S_GOF + 1] = oy - ty
                    st[k, S_GOF + 2] = oz - tz
                    st[k, S_GOF + 3] = oyaw - hand_yaw
            width = new_width
        st[k, S_WIDTH] = width
        st[k, S_GRASPED] = 1.0 if grasped else 0.0
    # --- the cube ----------------------------------------------------------------------
    if grasped:
        ox = tx + st[k, S_GOF]
        oy = ty + st[k, S_GOF + 1]
        oz = tz + st[k, S_GOF + 2]
        if oz < half:
            oz = half
            st[k, S_GOF + 2] = oz - tz
        oyaw = hand_yaw + st[k, S_GOF + 3]
        st[k, S_VEL] = 0.0
        st[k, S_VEL + 1] = 0.0
        st[k, S_VEL + 2] = 0.0
    else:
        start_x = ox
        start_y = oy
        vx = st[k, S_VEL]
        vy = st[k, S_VEL + 1]
        vz = st[k, S_VEL + 2]
        if oz > half or vz != 0.0:  # released: falls to the table
            vz -= GRAVITY * dt
            oz += vz * dt
            if oz <= half:
                oz = half
                vz = 0.0
        speed = math.sqrt(vx * vx + vy * vy)
        if speed > 0.0:  # sliding on after a push, Coulomb deceleration mu g (exact)
            decel = fp[P_MU_TABLE] * st[k, S_FRICTION] * GRAVITY
            slowed = max(0.0, speed - decel * dt)
            if slowed > 0.0:
                travel = (speed + slowed) * 0.5 * dt
            else:
                travel = speed * speed / (2.0 * decel)
            ox += vx / speed * travel
            oy += vy / speed * travel
            vx *= slowed / speed
            vy *= slowed / speed
        tip = tz - FINGERTIP_BELOW_TCP
        touched = False
        if tip < oz + half - CONTACT_TOP_BAND and tip + FINGER_LENGTH > oz - half:
            # the fingers sweep from their previous to their new place in substeps; in
            # each, their tangential motion drags the cube once (the first contact that
            # touches), not once per finger and pass
            # each finger touches the cube as a 2 x 2 grid of PAD_RADIUS circles (flat faces
            # push as faces) or as one FINGER_RADIUS cylinder
            grid = ip[I_PAD_GRID] != 0
            pads = 4 if grid else 1
            pad_radius = PAD_RADIUS if grid else radius
            off = 0.5 * width + radius
            prev_off = 0.5 * prev_width + radius
            for sub in range(CONTACT_SUBSTEPS):
                f1 = (sub + 1.0) / CONTACT_SUBSTEPS
                f0 = sub / CONTACT_SUBSTEPS
                bx = prev_x + f1 * (tx - prev_x)
                by = prev_y + f1 * (ty - prev_y)
                b0x = prev_x + f0 * (tx - prev_x)
                b0y = prev_y + f0 * (ty - prev_y)
                w1 = 0.5 * (prev_width + f1 * (width - prev_width))
                w0 = 0.5 * (prev_width + f0 * (width - prev_width))
                off1 = prev_off + f1 * (off - prev_off)
                off0 = prev_off + f0 * (off - prev_off)
                dragged = False
                for _ in range(CONTACT_PASSES):
                    for c in range(2 * pads):
                        side = -1.0 if c < pads else 1.0
                        across = 0.0
                        if grid:
                            along = PAD_NEAR if (c & 2) == 0 else PAD_FAR
                            across = -PAD_ACROSS if (c & 1) == 0 else PAD_ACROSS
                            a1 = side * (w1 + along)
                            a0 = side * (w0 + along)
                        else:
                            a1 = side * off1
                            a0 = side * off0
                        fcx = bx + a1 * hx - across * hy
                        fcy = by + a1 * hy + across * hx
                        mx = 0.0
                        my = 0.0
                        if not dragged:
                            mx = fcx - (b0x + a0 * hx - across * hy)
                            my = fcy - (b0y + a0 * hy + across * hx)
                        ox, oy, oyaw, hit = push_cube(
                            ox,
                            oy,
                            oyaw,
                            fcx,
                            fcy,
                            mx,
                            my,
                            pad_radius,
                            half,
                            st[k, S_MU_FINGER],
                            st[k, S_LSR],
                        )
                        if hit:
                            touched = True
                            dragged = True
        if touched:
            kick = st[k, S_KICK] / dt
            vx = (ox - start_x) * kick
            vy = (oy - start_y) * kick
        st[k, S_VEL] = vx
        st[k, S_VEL + 1] = vy
        st[k, S_VEL + 2] = vz
    st[k, S_OBJ] = ox
    st[k, S_OBJ + 1] = oy
    st[k, S_OBJ + 2] = oz
    st[k, S_YAW] = oyaw


@njit(cache=True, inline="always")
def _finish_env(k, fp, ip, seed, st, cnt, abuf, obs, fin_obs, res, flags, scratch):
    """Reward, success, counters and observation of env ``k`` after its physics step;
    SAME_STEP autoreset when the episode ends."""
    kind = ip[I_KIND]
    r, ok = reward_success(kind, ip[I_DENSE] != 0, k, fp, st)
    steps = cnt[k, C_STEPS] + 1
    cnt[k, C_STEPS] = steps
    st[k, S_RETURN] += r
    res[R_REWARD, k] = r
    flags[F_SUCCESS, k] = ok
    flags[F_TERMINATED, k] = ok
    done_by_time = steps >= ip[I_EPISODE_STEPS]
    flags[F_TRUNCATED, k] = done_by_time
    noise = fp[P_OBS_NOISE]
    key = episode_key(seed, k, cnt[k, C_EPISODE]) if noise > 0.0 else np.uint64(0)
    write_obs(kind, k, st, obs, noise, key, steps)
    if ok or done_by_time:
        for j in range(obs.shape[1]):
            fin_obs[k, j] = obs[k, j]
        flags[F_FINAL, k] = True
        res[R_FINAL_RETURN, k] = st[k, S_RETURN]
        res[R_FINAL_LENGTH, k] = steps
        cnt[k, C_EPISODE] += 1
        reset_env(k, fp, ip, seed, st, cnt, abuf, scratch)
        key = episode_key(seed, k, cnt[k, C_EPISODE]) if noise > 0.0 else np.uint64(0)
        write_obs(kind, k, st, obs, noise, key, cnt[k, C_STEPS])
    else:
        for j in range(obs.shape[1]):
            fin_obs[k, j] = 0.0
        flags[F_FINAL, k] = False
        res[R_FINAL_RETURN, k] = 0.0
        res[R_FINAL_LENGTH, k] = 0.0


# ======================================================================================
# Batched kernels
# ======================================================================================
@njit(cache=True)
def step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags):
    """One control step of envs ``lo..hi-1`` (see :func:`step_kernel`)."""
    kind = ip[I_KIND]
    cartesian = ip[I_CARTESIAN] != 0
    has_gripper = ip[I_HAS_GRIPPER] != 0
    dt = fp[P_DT]
    inv_dt = 1.0 / dt
    gain = fp[P_GAIN]
    joint_step = fp[P_JOINT_SCALE] * dt
    cart_step = fp[P_CART_STEP]
    damping = fp[P_IK_DAMPING]
    k1 = abuf.shape[1]
    n_act = actions.shape[1]
    scratch = np.empty(SCRATCH_SHAPE)
    q_old = np.empty(7)
    if True:
        for k in range(lo, hi):
            # action ring buffer: store this step's action, apply the one from d steps ago
            slot = 0
            aslot = 0
            if k1 > 1:
                steps = cnt[k, C_STEPS]
                slot = steps % k1
                aslot = (steps - int(st[k, S_DELAY]) + k1) % k1
            for j in range(n_act):
                abuf[k, slot, j] = _clip(actions[k, j], -1.0, 1.0)
            prev_x = st[k, S_TCP]
            prev_y = st[k, S_TCP + 1]
            prev_z = st[k, S_TCP + 2]
            prev_width = st[k, S_WIDTH]
            for i in range(7):
                q_old[i] = st[k, S_Q + i]
            if cartesian:
                dz = max(abuf[k, aslot, 2] * cart_step, fp[P_Z_MIN] - prev_z)
                _ik_move(
                    k,
                    st,
                    abuf[k, aslot, 0] * cart_step,
                    abuf[k, aslot, 1] * cart_step,
                    dz,
                    damping,
                    gain,
                    scratch,
                )
            else:
                for i in range(7):
                    old = q_old[i]
                    step = abuf[k, aslot, i] * joint_step * _V_MAX[i]
                    target = _clip(old + step, _Q_MIN[i], _Q_MAX[i])
                    st[k, S_Q + i] = old + gain * (target - old)
            if kind == KIND_REACH:
                store_fk(k, st, scratch)
            else:
                a_grip = abuf[k, aslot, 3] if has_gripper else -1.0
                _object_step(k, fp, ip, st, scratch, prev_x, prev_y, prev_z, prev_width, a_grip)
            for i in range(7):
                st[k, S_QD + i] = (st[k, S_Q + i] - q_old[i]) * inv_dt
            _finish_env(k, fp, ip, seed, st, cnt, abuf, obs, fin_obs, res, flags, scratch)


@njit(cache=True, parallel=True)
def step_kernel(fp, ip, seed, n_chunks, actions, st, cnt, abuf, obs, fin_obs, res, flags):
    """One control step of every env, with SAME_STEP autoreset (see the backend).

    ``actions`` [N, A] must be finite (the backend checks); they are clipped to [-1, 1]
    here. Writes observations ``obs`` and ``fin_obs`` [N, D] (float32), ``res`` [3, N]
    (reward, final return, final length) and ``flags`` [4, N] (terminated, truncated,
    success, has final observation). The envs are split into ``n_chunks`` chunks run in
    parallel (a thin parallel loop over a plain function compiles much faster).
    """
    n = st.shape[0]
    chunk = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        lo = c * chunk
        hi = min(n, lo + chunk)
        step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags)


@njit(cache=True)
def reach_step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags):
    """:func:`step_chunk` for reach in joint mode, written as one loop body (no calls on
    the hot path but the inlined scalar helpers), for speed. Same results."""
    dt = fp[P_DT]
    inv_dt = 1.0 / dt
    gain = fp[P_GAIN]
    joint_step = fp[P_JOINT_SCALE] * dt
    thr = fp[P_SUCCESS]
    noise = fp[P_OBS_NOISE]
    dense = ip[I_DENSE] != 0
    episode_steps = ip[I_EPISODE_STEPS]
    k1 = abuf.shape[1]
    dim = obs.shape[1]
    reach = _DH_D[7] + _FLANGE_TO_TCP
    scratch = np.empty(SCRATCH_SHAPE)
    if True:
        for k in range(lo, hi):
            slot = 0
            aslot = 0
            if k1 > 1:
                steps = cnt[k, C_STEPS]
                slot = steps % k1
                aslot = (steps - int(st[k, S_DELAY]) + k1) % k1
            for j in range(7):
                abuf[k, slot, j] = _clip(actions[k, j], -1.0, 1.0)
            for i in range(7):
                old = st[k, S_Q + i]
                step = abuf[k, aslot, i] * joint_step * _V_MAX[i]
                target = _clip(old + step, _Q_MIN[i], _Q_MAX[i])
                new = old + gain * (target - old)
                st[k, S_Q + i] = new
                st[k, S_QD + i] = (new - old) * inv_dt
            # forward kinematics, as fk_row; the TCP lies on joint 7's axis, so its
            # position does not depend on q7 (the finger axis, unused by reach, does)
            s1, c1 = sincos(st[k, S_Q])
            r00, r01, r02 = c1, -s1, 0.0
            r10, r11, r12 = s1, c1, 0.0
            r20, r21, r22 = 0.0, 0.0, 1.0
            px, py, pz = 0.0, 0.0, _DH_D[0]
            for i in range(1, 6):
                r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz = _joint_perp(
                    r00,
                    r01,
                    r02,
                    r10,
                    r11,
                    r12,
                    r20,
                    r21,
                    r22,
                    px,
                    py,
                    pz,
                    st[k, S_Q + i],
                    _DH_A[i],
                    _DH_D[i],
                    _SIN_ALPHA[i],
                )
            a7 = _DH_A[6]
            sd7 = _SIN_ALPHA[6] * _DH_D[6]
            px += a7 * r00 - sd7 * r01
            py += a7 * r10 - sd7 * r11
            pz += a7 * r20 - sd7 * r21
            tx = px + reach * (-_SIN_ALPHA[6] * r01)
            ty = py + reach * (-_SIN_ALPHA[6] * r11)
            tz = pz + reach * (-_SIN_ALPHA[6] * r21)
            st[k, S_TCP] = tx
            st[k, S_TCP + 1] = ty
            st[k, S_TCP + 2] = tz
            # reward and success, as reward_success
            gx = st[k, S_GOAL]
            gy = st[k, S_GOAL + 1]
            gz = st[k, S_GOAL + 2]
            dx = tx - gx
            dy = ty - gy
            dz = tz - gz
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
            ok = d < thr
            if dense:
                r = -d
            else:
                r = -1.0 if d > thr else 0.0
            steps = cnt[k, C_STEPS] + 1
            cnt[k, C_STEPS] = steps
            st[k, S_RETURN] += r
            res[R_REWARD, k] = r
            flags[F_SUCCESS, k] = ok
            flags[F_TERMINATED, k] = ok
            done_by_time = steps >= episode_steps
            flags[F_TRUNCATED, k] = done_by_time
            # observation, as write_obs
            if noise > 0.0:
                write_obs(
                    ip[I_KIND], k, st, obs, noise, episode_key(seed, k, cnt[k, C_EPISODE]), steps
                )
            else:
                for i in range(7):
                    obs[k, i] = st[k, S_Q + i]
                    obs[k, 7 + i] = st[k, S_QD + i]
                obs[k, 14] = tx
                obs[k, 15] = ty
                obs[k, 16] = tz
                obs[k, 17] = gx
                obs[k, 18] = gy
                obs[k, 19] = gz
                obs[k, 20] = gx - tx
                obs[k, 21] = gy - ty
                obs[k, 22] = gz - tz
            if ok or done_by_time:
                for j in range(dim):
                    fin_obs[k, j] = obs[k, j]
                flags[F_FINAL, k] = True
                res[R_FINAL_RETURN, k] = st[k, S_RETURN]
                res[R_FINAL_LENGTH, k] = steps
                cnt[k, C_EPISODE] += 1
                reset_env(k, fp, ip, seed, st, cnt, abuf, scratch)
                key = episode_key(seed, k, cnt[k, C_EPISODE]) if noise > 0.0 else np.uint64(0)
                write_obs(ip[I_KIND], k, st, obs, noise, key, cnt[k, C_STEPS])
            else:
                for j in range(dim):
                    fin_obs[k, j] = 0.0
                flags[F_FINAL, k] = False
                res[R_FINAL_RETURN, k] = 0.0
                res[R_FINAL_LENGTH, k] = 0.0


@njit(cache=True, parallel=True)
def reach_step_kernel(fp, ip, seed, n_chunks, actions, st, cnt, abuf, obs, fin_obs, res, flags):
    """:func:`step_kernel` for reach in joint mode (same arguments and results)."""
    n = st.shape[0]
    chunk = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        lo = c * chunk
        hi = min(n, lo + chunk)
        reach_step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags)


@njit(cache=True)
def reset_kernel(fp, ip, seed, mask, bump, st, cnt, abuf, obs):
    """Start a new episode in every env where ``mask``; ``bump`` advances its episode
    counter first (a reset without a new seed draws a new episode)."""
    kind = ip[I_KIND]
    noise = fp[P_OBS_NOISE]
    scratch = np.empty(SCRATCH_SHAPE)
    for k in range(st.shape[0]):
        if not mask[k]:
            continue
        if bump:
            cnt[k, C_EPISODE] += 1
        reset_env(k, fp, ip, seed, st, cnt, abuf, scratch)
        key = episode_key(seed, k, cnt[k, C_EPISODE]) if noise > 0.0 else np.uint64(0)
        write_obs(kind, k, st, obs, noise, key, cnt[k, C_STEPS])


@njit(cache=True)
def refresh_kernel(fp, ip, seed, st, cnt, obs):
    """Recompute the TCP from the joint positions, and the observations (after
    ``set_state``)."""
    kind = ip[I_KIND]
    noise = fp[P_OBS_NOISE]
    scratch = np.empty(SCRATCH_SHAPE)
    for k in range(st.shape[0]):
        store_fk(k, st, scratch)
        key = episode_key(seed, k, cnt[k, C_EPISODE]) if noise > 0.0 else np.uint64(0)
        write_obs(kind, k, st, obs, noise, key, cnt[k, C_STEPS])


@njit(cache=True)
def first_non_finite(actions):
    """Flat index of the first non-finite entry of ``actions`` [N, A], or -1."""
    flat = actions.reshape(-1)
    for i in range(flat.size):
        if not math.isfinite(flat[i]):
            return i
    return -1
