"""The task-independent per-env pieces of an episode, compiled into every task's kernels
(:func:`sims.kernels.step.task_kernels`, and the CUDA kernels through them): its start
(:func:`reset_arm`: the arm's draws and the episode's randomization), the key of its
observation noise (:func:`noise_key`) and its action ring buffer (:func:`action_slots`).
"""

from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

from sims.kernels.kinematics import Q_HOME, Q_MAX, Q_MIN, clip, store_fk
from sims.kernels.layout import (
    C_EPISODE,
    C_STEPS,
    I_HAS_GRIPPER,
    NUM_STATE,
    P_FRICTION_HI,
    P_FRICTION_LO,
    P_INIT_WIDTH,
    P_JOINT_NOISE,
    P_KICK_HI,
    P_KICK_LO,
    P_LSR_HI,
    P_LSR_LO,
    P_MASS_HI,
    P_MASS_LO,
    P_MU_FINGER,
    P_MU_FINGER_HI,
    P_PLAIN_PROB,
    S_ACT_Q,
    S_DELAY,
    S_FRICTION,
    S_KICK,
    S_LSR,
    S_MASS,
    S_MU_FINGER,
    S_PLAIN,
    S_Q,
    S_WIDTH,
)
from sims.kernels.rng import episode_key, uniform, uniform01


@register_jitable
def noise_key(seed, env, episode, noise):
    """The episode key of the observation noise (0 without noise: no hashing)."""
    if noise > 0.0:
        return episode_key(seed, env, episode)
    return np.uint64(0)


@register_jitable
def action_slots(steps, delay, slots):
    """(slot this step's action goes to, slot of the action applied now) in an action ring
    buffer of ``slots`` entries, for an action delay of ``delay`` steps."""
    if slots == 1:
        return 0, 0
    return steps % slots, (steps - int(delay) + slots) % slots


@register_jitable
def reset_arm(k, fp, ip, seed, st, cnt, abuf, scratch):
    """The task-independent part of a new episode of env ``k``, drawn from its episode key
    (``cnt[k, 1]``): the state zeroed, the arm at home plus noise (draws 0-6), the finger
    opening, the episode's randomization (draws 10-12, 18-20, 202) and an empty action
    ring; returns the key for the task's draws."""
    key = episode_key(seed, k, cnt[k, C_EPISODE])
    # draw numbers as int64 values, not literals: numba would compile a specialization of
    # the RNG helpers for every literal
    d = np.int64(0)
    noise = fp[P_JOINT_NOISE]
    for i in range(NUM_STATE):
        st[k, i] = 0.0
    for i in range(7):
        st[k, S_Q + i] = clip(
            uniform(key, i, Q_HOME[i] - noise, Q_HOME[i] + noise), Q_MIN[i], Q_MAX[i]
        )
        st[k, S_ACT_Q + i] = st[k, S_Q + i]  # the command path starts at rest at q
    store_fk(k, st, scratch)
    st[k, S_WIDTH] = fp[P_INIT_WIDTH]
    st[k, S_FRICTION] = uniform(key, d + 10, fp[P_FRICTION_LO], fp[P_FRICTION_HI])
    st[k, S_MASS] = uniform(key, d + 11, fp[P_MASS_LO], fp[P_MASS_HI])
    k1 = abuf.shape[1]
    st[k, S_DELAY] = float(min(int(math.floor(uniform01(key, d + 12) * k1)), k1 - 1))
    st[k, S_KICK] = uniform(key, d + 18, fp[P_KICK_LO], fp[P_KICK_HI])
    st[k, S_MU_FINGER] = uniform(key, d + 19, fp[P_MU_FINGER], fp[P_MU_FINGER_HI])
    st[k, S_LSR] = uniform(key, d + 20, fp[P_LSR_LO], fp[P_LSR_HI])
    # the command-path model's plain episodes: a draw of its own (past every other), so a
    # probability of 0 leaves every other draw and trajectory as they were
    if uniform01(key, d + 202) < fp[P_PLAIN_PROB]:
        st[k, S_PLAIN] = 1.0
    has_gripper = ip[I_HAS_GRIPPER] != 0
    for s in range(k1):
        for j in range(abuf.shape[2]):
            abuf[k, s, j] = 0.0
        if has_gripper:
            abuf[k, s, 3] = 1.0  # a delayed gripper command keeps the fingers open
    cnt[k, C_STEPS] = 0
    return key
