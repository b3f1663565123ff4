"""Reset and step of one env, and the batched ``@njit`` kernels over all envs.

:func:`step_env` is the one step of every task and mode, on every target: the CPU
kernels below run it over chunks of envs (``parallel=True``, ``cache=True``), the CUDA
kernel of :mod:`sims.backends.numba_cuda` once per thread. The action becomes joint
targets through :func:`sims.control.arm_targets_row` (the mapping of every backend); the
arm covers ``tracking_gain`` of the way to them, or, with the command-path model on
(``ip[I_ACT_SUBSTEPS] > 0``), follows them through
:func:`~sims.kernels.actuator.command_path_period` (rate limits at the controller rate
and a lag). Autoresets (SAME_STEP) happen inside.
The whole-batch :func:`reset_kernel` (``reset(seed=...)``) is serial: a few ms for 4096
envs, and it compiles faster.

Speed: :func:`step_env` is inlined into the chunk loop (``inline="always"``) twice: once
with the task kind and mode as compile-time constants for reach in joint mode (the hot
training path: the compiler drops the contact model and the IK, and only the TCP is
computed, :func:`~sims.kernels.kinematics.tcp_row`), once generic. :func:`step_chunk` is
compiled without numba's reference counting (``_nrt=False``; it allocates nothing, its
scratch comes from :func:`step_kernel`): numba inlining copies every array argument of an
inlined function into a new variable, and with reference counting each copy is an
``NRT_incref``/``NRT_decref`` call (an atomic update) that its pruning pass cannot remove
across the step's branches, ~20 per env and step, which made reach 30% slower than the
hand-inlined reach step this replaced. Small helpers with branches (:func:`action_slots`)
are left to LLVM's inliner, which compiles them better than numba's, and ``1 / dt`` is
computed once per chunk. Measured (4096 envs, one thread, the kernel alone, best of 400
calls, same session): reach 154 -> 115 ns per env-step (the hand-inlined copy: 109), push
400 -> 345, pick_place 395 -> 345 (before the split: 385-390). A little over 400 lines:
the step, the resets and the kernels over them share these compile-time choices.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange
from numba.extending import register_jitable

from sims.control import arm_targets_row
from sims.kernels.actuator import command_path_period
from sims.kernels.contact import object_step
from sims.kernels.kinematics import Q_HOME, Q_MAX, Q_MIN, clip, store_fk, tcp_row
from sims.kernels.layout import (
    C_EPISODE,
    C_STEPS,
    F_FINAL,
    F_SUCCESS,
    F_TERMINATED,
    F_TRUNCATED,
    I_ACT_SUBSTEPS,
    I_CARTESIAN,
    I_DENSE,
    I_EPISODE_STEPS,
    I_GOAL_TRIES,
    I_HAS_GRIPPER,
    I_KIND,
    KIND_REACH,
    NUM_STATE,
    P_AIR_PROB,
    P_CART_STEP,
    P_CUBE_HALF,
    P_CUBE_HALF_HI,
    P_DT,
    P_FRICTION_HI,
    P_FRICTION_LO,
    P_GAIN,
    P_GOAL_D_HI,
    P_GOAL_D_LO,
    P_GOAL_X_HI,
    P_GOAL_X_LO,
    P_GOAL_Y_HI,
    P_GOAL_Y_LO,
    P_GOAL_Z_HI,
    P_GOAL_Z_LO,
    P_IK_DAMPING,
    P_INIT_WIDTH,
    P_JOINT_NOISE,
    P_JOINT_SCALE,
    P_KICK_HI,
    P_KICK_LO,
    P_LSR_HI,
    P_LSR_LO,
    P_MASS_HI,
    P_MASS_LO,
    P_MU_FINGER,
    P_MU_FINGER_HI,
    P_OBJ_X_HI,
    P_OBJ_X_LO,
    P_OBJ_Y_HI,
    P_OBJ_Y_LO,
    P_OBS_NOISE,
    P_PAD_HI,
    P_PAD_LO,
    P_PLAIN_PROB,
    P_TILT_GAIN,
    P_TILT_SIN_ALLOW,
    P_Z_MIN,
    R_FINAL_LENGTH,
    R_FINAL_RETURN,
    R_REWARD,
    ROW_Q_OLD,
    ROW_TARGET,
    S_ACT_Q,
    S_CUBE_HALF,
    S_DELAY,
    S_FRICTION,
    S_GOAL,
    S_KICK,
    S_LSR,
    S_MASS,
    S_MU_FINGER,
    S_OBJ,
    S_PAD,
    S_PLAIN,
    S_Q,
    S_QD,
    S_RETURN,
    S_TCP,
    S_WIDTH,
    S_YAW,
    SCRATCH_SHAPE,
)
from sims.kernels.observe import reward_success, write_obs
from sims.kernels.rng import episode_key, uniform, uniform01


@register_jitable
def noise_key(seed, env, episode, noise):
    """The episode key of the observation noise (0 without noise: no hashing)."""
    if noise > 0.0:
        return episode_key(seed, env, episode)
    return np.uint64(0)


@register_jitable
def gripper_command(a, has_gripper):
    """The gripper entry of the applied action; -1 (closed) for tasks without a gripper."""
    if has_gripper != 0:
        return a[3]
    return -1.0


@register_jitable
def action_slots(steps, delay, slots):
    """(slot this step's action goes to, slot of the action applied now) in an action ring
    buffer of ``slots`` entries, for an action delay of ``delay`` steps."""
    if slots == 1:
        return 0, 0
    return steps % slots, (steps - int(delay) + slots) % slots


@register_jitable
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
    if ip[I_KIND] == KIND_REACH:
        st[k, S_GOAL] = uniform(key, d + 15, fp[P_GOAL_X_LO], fp[P_GOAL_X_HI])
        st[k, S_GOAL + 1] = uniform(key, d + 16, fp[P_GOAL_Y_LO], fp[P_GOAL_Y_HI])
        st[k, S_GOAL + 2] = uniform(key, d + 17, fp[P_GOAL_Z_LO], fp[P_GOAL_Z_HI])
        return
    # the cube's half edge: drawn past every other reset draw (goal tries use 20 + 2t)
    half = uniform(key, d + 200, fp[P_CUBE_HALF], fp[P_CUBE_HALF_HI])
    st[k, S_CUBE_HALF] = half
    st[k, S_PAD] = uniform(key, d + 201, fp[P_PAD_LO], fp[P_PAD_HI])
    ox = uniform(key, d + 7, fp[P_OBJ_X_LO], fp[P_OBJ_X_HI])
    oy = uniform(key, d + 8, fp[P_OBJ_Y_LO], fp[P_OBJ_Y_HI])
    st[k, S_OBJ] = ox
    st[k, S_OBJ + 1] = oy
    st[k, S_OBJ + 2] = half
    st[k, S_YAW] = uniform(key, d + 9, -0.25 * math.pi, 0.25 * math.pi)
    gx = ox
    gy = oy
    for t in range(ip[I_GOAL_TRIES]):
        dist = uniform(key, 20 + 2 * t, fp[P_GOAL_D_LO], fp[P_GOAL_D_HI])
        ang = uniform(key, 21 + 2 * t, -math.pi, math.pi)
        gx = ox + dist * math.cos(ang)
        gy = oy + dist * math.sin(ang)
        if fp[P_GOAL_X_LO] <= gx <= fp[P_GOAL_X_HI] and fp[P_GOAL_Y_LO] <= gy <= fp[P_GOAL_Y_HI]:
            break
    st[k, S_GOAL] = clip(gx, fp[P_GOAL_X_LO], fp[P_GOAL_X_HI])
    st[k, S_GOAL + 1] = clip(gy, fp[P_GOAL_Y_LO], fp[P_GOAL_Y_HI])
    if uniform01(key, d + 13) < fp[P_AIR_PROB]:
        st[k, S_GOAL + 2] = uniform(key, d + 14, fp[P_GOAL_Z_LO], fp[P_GOAL_Z_HI])
    else:
        st[k, S_GOAL + 2] = half


@register_jitable(inline="always")
def finish_env(k, kind, fp, ip, seed, st, cnt, abuf, obs, fin_obs, res, flags, scratch):
    """Reward, success, counters and observation of env ``k`` after its physics step;
    SAME_STEP autoreset when the episode ends."""
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
    key = noise_key(seed, k, cnt[k, C_EPISODE], noise)
    write_obs(kind, k, st, obs, noise, key, steps)
    if ok or done_by_time:
        for j in range(obs.shape[1]):
            fin_obs[k, j] = obs[k, j]
        flags[F_FINAL, k] = True
        res[R_FINAL_RETURN, k] = st[k, S_RETURN]
        res[R_FINAL_LENGTH, k] = steps
        cnt[k, C_EPISODE] += 1
        reset_env(k, fp, ip, seed, st, cnt, abuf, scratch)
        key = noise_key(seed, k, cnt[k, C_EPISODE], noise)
        write_obs(kind, k, st, obs, noise, key, cnt[k, C_STEPS])
    else:
        for j in range(obs.shape[1]):
            fin_obs[k, j] = 0.0
        flags[F_FINAL, k] = False
        res[R_FINAL_RETURN, k] = 0.0
        res[R_FINAL_LENGTH, k] = 0.0


@register_jitable(inline="always")
def step_env(
    k,
    kind,
    cartesian,
    inv_dt,
    fp,
    ip,
    seed,
    actions,
    st,
    cnt,
    abuf,
    obs,
    fin_obs,
    res,
    flags,
    scratch,
):
    """One control step of env ``k`` (``kind`` and ``cartesian``: ``ip[I_KIND]`` and
    ``ip[I_CARTESIAN] != 0``, passed so that a caller can make them constants; ``inv_dt``:
    ``1.0 / fp[P_DT]``, computed once by the caller: a division per env costs ~4 ns of a
    reach step's ~115)."""
    dt = fp[P_DT]
    gain = fp[P_GAIN]
    # action ring buffer: store this step's action, apply the one from d steps ago
    slot, aslot = action_slots(cnt[k, C_STEPS], st[k, S_DELAY], abuf.shape[1])
    for j in range(actions.shape[1]):
        abuf[k, slot, j] = clip(actions[k, j], -1.0, 1.0)
    a = abuf[k, aslot]
    prev_x = st[k, S_TCP]
    prev_y = st[k, S_TCP + 1]
    prev_z = st[k, S_TCP + 2]
    prev_width = st[k, S_WIDTH]
    arm_targets_row(
        st,
        k,
        a,
        cartesian,
        fp[P_JOINT_SCALE] * dt,
        fp[P_CART_STEP],
        fp[P_IK_DAMPING],
        fp[P_Z_MIN],
        fp[P_TILT_GAIN],
        fp[P_TILT_SIN_ALLOW],
        scratch,
    )
    substeps = ip[I_ACT_SUBSTEPS]
    if substeps > 0 and st[k, S_PLAIN] == 0.0:  # the arm's command path (sims.robots.actuator)
        command_path_period(k, fp, ip, st, scratch, substeps)
    else:
        for i in range(7):
            old = st[k, S_Q + i]
            scratch[ROW_Q_OLD, i] = old
            st[k, S_Q + i] = old + gain * (scratch[ROW_TARGET, i] - old)
    if kind == KIND_REACH:
        if cartesian:
            store_fk(k, st, scratch)
        else:  # the finger axis is left stale: reach never reads it
            tx, ty, tz = tcp_row(st, k)
            st[k, S_TCP] = tx
            st[k, S_TCP + 1] = ty
            st[k, S_TCP + 2] = tz
    else:
        a_grip = gripper_command(a, ip[I_HAS_GRIPPER])
        object_step(k, fp, ip, st, scratch, prev_x, prev_y, prev_z, prev_width, a_grip)
    for i in range(7):
        st[k, S_QD + i] = (st[k, S_Q + i] - scratch[ROW_Q_OLD, i]) * inv_dt
    finish_env(k, kind, fp, ip, seed, st, cnt, abuf, obs, fin_obs, res, flags, scratch)


# ======================================================================================
# Batched kernels (CPU)
# ======================================================================================
@njit(cache=True, _nrt=False)
def step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, scratch):
    """One control step of envs ``lo..hi-1`` (see :func:`step_kernel`; ``scratch``:
    ``SCRATCH_SHAPE``). No reference counting: see the module docstring."""
    kind = ip[I_KIND]
    cartesian = ip[I_CARTESIAN] != 0
    inv_dt = 1.0 / fp[P_DT]
    if kind == KIND_REACH and not cartesian:
        for k in range(lo, hi):
            step_env(
                k,
                KIND_REACH,
                False,
                inv_dt,
                fp,
                ip,
                seed,
                actions,
                st,
                cnt,
                abuf,
                obs,
                fin_obs,
                res,
                flags,
                scratch,
            )
    else:
        for k in range(lo, hi):
            step_env(
                k,
                kind,
                cartesian,
                inv_dt,
                fp,
                ip,
                seed,
                actions,
                st,
                cnt,
                abuf,
                obs,
                fin_obs,
                res,
                flags,
                scratch,
            )


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
        scratch = np.empty(SCRATCH_SHAPE)
        step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, scratch)


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
        key = noise_key(seed, k, cnt[k, C_EPISODE], noise)
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
        key = noise_key(seed, k, cnt[k, C_EPISODE], noise)
        write_obs(kind, k, st, obs, noise, key, cnt[k, C_STEPS])


@njit(cache=True)
def first_non_finite(actions):
    """Flat index of the first non-finite entry of ``actions`` [N, A], or -1."""
    flat = actions.reshape(-1)
    for i in range(flat.size):
        if not math.isfinite(flat[i]):
            return i
    return -1
