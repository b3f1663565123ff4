"""Scalar building blocks of the tasks' kernel terms (:mod:`sims.tasks.registry`'s
``TaskKernel``): observation fields with their noise, and distances over the state row.

A task's ``observe`` writes its row at its own ``LAYOUT``'s offsets from these, with the
same arithmetic as its numpy ``observe``, the cube's centre and yaw from the pose
:func:`perceive_cube` observed (the true one without the cube-pose error model); its
``evaluate`` computes its reward terms and success from the distances here.
``tests/sims/test_tasks.py`` and ``tests/sims/test_numba_backend.py`` check the scalar and
numpy terms agree on every task.
"""

from __future__ import annotations

import math

from numba.extending import register_jitable

from sims.kernels.jit import inlined
from sims.kernels.layout import (
    P_POSE_BIAS_XY,
    P_POSE_BIAS_YAW,
    P_POSE_HOLD,
    P_POSE_NOISE_XY,
    P_POSE_NOISE_YAW,
    S_GOAL,
    S_OBJ,
    S_Q,
    S_QD,
    S_SEEN,
    S_TCP,
    S_YAW,
)
from sims.kernels.rng import episode_key, normal01, uniform01

POSE_BIAS_DRAW = 300
"""The cube-pose error's per-episode bias: episode draws 300 (x), 301 (y), 302 (yaw), past
every reset draw."""
POSE_HOLD_DRAW = 16
"""Its per-step draws, after the observation noise's (``base + 0..13``): ``base + 16`` the
dropout, ``base + 17..19`` the noise on x, y and yaw."""


@register_jitable(_nrt=False)
def obs_noise(noise_std, key, counter):
    """``noise_std`` times the standard normal draw ``counter`` under ``key``; 0 without
    noise (no draw)."""
    if noise_std > 0.0:
        return noise_std * normal01(key, counter)
    return 0.0


@inlined
def perceive_cube(k, fp, seed, st, episode, steps, base):
    """The cube pose env ``k`` observes at step ``steps`` of its episode, into ``st[k,
    S_SEEN:S_SEEN + 3]`` (x, y, yaw): the true pose without the error model
    (:class:`sims.tasks.base.CubePoseError`, ``fp[P_POSE_*]``), else the last one with
    probability ``fp[P_POSE_HOLD]`` (never at step 0), or the true pose plus the episode's
    bias (fixed episode draws) and this step's noise (draws ``base + 17..19``)."""
    bias_xy = fp[P_POSE_BIAS_XY]
    bias_yaw = fp[P_POSE_BIAS_YAW]
    noise_xy = fp[P_POSE_NOISE_XY]
    noise_yaw = fp[P_POSE_NOISE_YAW]
    hold = fp[P_POSE_HOLD]
    if bias_xy + bias_yaw + noise_xy + noise_yaw + hold == 0.0:
        st[k, S_SEEN] = st[k, S_OBJ]
        st[k, S_SEEN + 1] = st[k, S_OBJ + 1]
        st[k, S_SEEN + 2] = st[k, S_YAW]
        return
    key = episode_key(seed, k, episode)
    d = POSE_BIAS_DRAW
    b = base + POSE_HOLD_DRAW
    if steps > 0 and hold > 0.0 and uniform01(key, b) < hold:
        return
    st[k, S_SEEN] = st[k, S_OBJ] + obs_noise(bias_xy, key, d) + obs_noise(noise_xy, key, b + 1)
    st[k, S_SEEN + 1] = (
        st[k, S_OBJ + 1] + obs_noise(bias_xy, key, d + 1) + obs_noise(noise_xy, key, b + 2)
    )
    st[k, S_SEEN + 2] = (
        st[k, S_YAW] + obs_noise(bias_yaw, key, d + 2) + obs_noise(noise_yaw, key, b + 3)
    )


@inlined
def observe_arm(k, st, out, o_q, o_qd, o_tcp, o_goal, noise_std, key, base):
    """Joint positions and velocities, TCP and goal of env ``k`` into ``out[k]`` at the
    offsets ``o_*``, with noise on the joint positions (draws ``base + 0..6``) and the TCP
    (``base + 7..9``); returns the noisy TCP and the goal ``(tx, ty, tz, gx, gy, gz)``."""
    for i in range(7):
        out[k, o_q + i] = st[k, S_Q + i] + obs_noise(noise_std, key, base + i)
        out[k, o_qd + i] = st[k, S_QD + i]
    tx = st[k, S_TCP] + obs_noise(noise_std, key, base + 7)
    ty = st[k, S_TCP + 1] + obs_noise(noise_std, key, base + 8)
    tz = st[k, S_TCP + 2] + obs_noise(noise_std, key, base + 9)
    out[k, o_tcp] = tx
    out[k, o_tcp + 1] = ty
    out[k, o_tcp + 2] = tz
    gx = st[k, S_GOAL]
    gy = st[k, S_GOAL + 1]
    gz = st[k, S_GOAL + 2]
    out[k, o_goal] = gx
    out[k, o_goal + 1] = gy
    out[k, o_goal + 2] = gz
    return tx, ty, tz, gx, gy, gz


@inlined
def write_difference(out, k, j, ax, ay, az, bx, by, bz):
    """``out[k, j:j + 3] = a - b``."""
    out[k, j] = ax - bx
    out[k, j + 1] = ay - by
    out[k, j + 2] = az - bz


@inlined
def observe_cube(k, st, out, o_obj, o_yaw, o_obj_rel, o_goal_rel, arm, noise_std, key, base):
    """The cube's fields of env ``k`` at the offsets ``o_*``: its centre, sin and cos of 4 x
    its yaw, cube - TCP and goal - cube, from the observed pose (:func:`perceive_cube`'s x,
    y and yaw, the true z), with noise on the centre (draws ``base + 10..12``) and the yaw
    (``base + 13``); ``arm``: :func:`observe_arm`'s result."""
    tx, ty, tz, gx, gy, gz = arm
    ox = st[k, S_SEEN] + obs_noise(noise_std, key, base + 10)
    oy = st[k, S_SEEN + 1] + obs_noise(noise_std, key, base + 11)
    oz = st[k, S_OBJ + 2] + obs_noise(noise_std, key, base + 12)
    yaw = st[k, S_SEEN + 2] + obs_noise(noise_std, key, base + 13)
    write_difference(out, k, o_goal_rel, gx, gy, gz, ox, oy, oz)
    out[k, o_obj] = ox
    out[k, o_obj + 1] = oy
    out[k, o_obj + 2] = oz
    out[k, o_yaw] = math.sin(4.0 * yaw)
    out[k, o_yaw + 1] = math.cos(4.0 * yaw)
    write_difference(out, k, o_obj_rel, ox, oy, oz, tx, ty, tz)


@register_jitable(_nrt=False)
def distance3(st, k, a, b):
    """Euclidean distance between the 3-vectors at columns ``a`` and ``b`` of row ``k``."""
    dx = st[k, a] - st[k, b]
    dy = st[k, a + 1] - st[k, b + 1]
    dz = st[k, a + 2] - st[k, b + 2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


@register_jitable(_nrt=False)
def distance2(st, k, a, b):
    """Distance in x and y between the vectors at columns ``a`` and ``b`` of row ``k``."""
    dx = st[k, a] - st[k, b]
    dy = st[k, a + 1] - st[k, b + 1]
    return math.sqrt(dx * dx + dy * dy)
