"""Observation rows and reward/success of one env, as the task modules compute them.

The observation is written at the offsets of the task's own ``LAYOUT``
(:data:`sims.kernels.layout.OBS_OFFSETS`), with the same arithmetic as its ``observe``.

Reward and success are retyped here from each task's ``reward`` and ``success``: those are
batched numpy terms over a :class:`~sims.tasks.base.SimState` (norms over whole arrays),
and a scalar rewrite shared with the kernels would change their arithmetic (and with it the
PyBullet and Isaac rewards) bit for bit; ``tests/sims/test_tasks.py`` and
``tests/sims/test_numba_backend.py`` check that the two agree on every task, dense and
sparse.
"""

from __future__ import annotations

import math

from numba.extending import register_jitable

from sims.kernels.layout import (
    KIND_PUSH,
    KIND_REACH,
    NOISE_COUNTER_BASE,
    O_GOAL,
    O_GOAL_REL,
    O_JOINT_POS,
    O_JOINT_VEL,
    O_OBJ,
    O_OBJ_REL,
    O_TCP,
    O_WIDTH,
    O_YAW,
    OBS_OFFSETS,
    P_REACH_WEIGHT,
    P_SUCCESS,
    S_GOAL,
    S_OBJ,
    S_Q,
    S_QD,
    S_TCP,
    S_WIDTH,
    S_YAW,
)
from sims.kernels.rng import normal01


@register_jitable
def obs_noise(noise_std, key, counter):
    """``noise_std`` times the standard normal draw ``counter`` under ``key``; 0 without
    noise (no draw)."""
    if noise_std > 0.0:
        return noise_std * normal01(key, counter)
    return 0.0


@register_jitable(inline="always")
def write_obs(kind, k, st, out, noise_std, key, step):
    """Observation row ``out[k]`` for the task ``kind``, the same layout and arithmetic as
    the task module's ``observe``; with ``noise_std`` > 0, Gaussian noise on joint, TCP
    and object positions and the cube yaw (derived fields use the noisy values)."""
    base = NOISE_COUNTER_BASE + step * 32
    o_q = OBS_OFFSETS[kind, O_JOINT_POS]
    o_qd = OBS_OFFSETS[kind, O_JOINT_VEL]
    for i in range(7):
        out[k, o_q + i] = st[k, S_Q + i] + obs_noise(noise_std, key, base + i)
        out[k, o_qd + i] = st[k, S_QD + i]
    tx = st[k, S_TCP] + obs_noise(noise_std, key, base + 7)
    ty = st[k, S_TCP + 1] + obs_noise(noise_std, key, base + 8)
    tz = st[k, S_TCP + 2] + obs_noise(noise_std, key, base + 9)
    j = OBS_OFFSETS[kind, O_TCP]
    out[k, j] = tx
    out[k, j + 1] = ty
    out[k, j + 2] = tz
    gx = st[k, S_GOAL]
    gy = st[k, S_GOAL + 1]
    gz = st[k, S_GOAL + 2]
    j = OBS_OFFSETS[kind, O_GOAL]
    out[k, j] = gx
    out[k, j + 1] = gy
    out[k, j + 2] = gz
    j = OBS_OFFSETS[kind, O_GOAL_REL]
    if kind == KIND_REACH:
        out[k, j] = gx - tx
        out[k, j + 1] = gy - ty
        out[k, j + 2] = gz - tz
        return
    j_width = OBS_OFFSETS[kind, O_WIDTH]
    if j_width >= 0:
        out[k, j_width] = st[k, S_WIDTH]
    ox = st[k, S_OBJ] + obs_noise(noise_std, key, base + 10)
    oy = st[k, S_OBJ + 1] + obs_noise(noise_std, key, base + 11)
    oz = st[k, S_OBJ + 2] + obs_noise(noise_std, key, base + 12)
    yaw = st[k, S_YAW] + obs_noise(noise_std, key, base + 13)
    out[k, j] = gx - ox
    out[k, j + 1] = gy - oy
    out[k, j + 2] = gz - oz
    j = OBS_OFFSETS[kind, O_OBJ]
    out[k, j] = ox
    out[k, j + 1] = oy
    out[k, j + 2] = oz
    j = OBS_OFFSETS[kind, O_YAW]
    out[k, j] = math.sin(4.0 * yaw)
    out[k, j + 1] = math.cos(4.0 * yaw)
    j = OBS_OFFSETS[kind, O_OBJ_REL]
    out[k, j] = ox - tx
    out[k, j + 1] = oy - ty
    out[k, j + 2] = oz - tz


@register_jitable
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
