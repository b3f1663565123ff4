"""Reset and step of one env, and the batched ``@njit`` kernels over all envs, built for
a task from its scalar terms.

:func:`task_kernels` builds, once per task (its ``KERNEL``, a
:class:`sims.tasks.registry.TaskKernel`), the per-env reset and step and the CPU kernels
around them: each is a closure over the task's functions, which numba compiles as
constants (the task is no runtime branch, and no ``kind`` is passed around). The CPU
kernels run the step over chunks of envs (``parallel=True``, ``cache=True``: a closure's
cache entry is keyed by the functions it holds and by
:func:`~sims.kernels.cache_keys.task_stamp`, so each task has its own, and an edit of a
task's module recompiles it); the CUDA kernels of :mod:`sims.backends.numba_cuda_kernels`
run the same chunk step (``step_envs``) over one env per thread. The
action becomes joint targets through :func:`sims.control.arm_targets_row` (the mapping of
every backend); the arm covers ``tracking_gain`` of the way to them, or, with the
command-path model on (``ip[I_ACT_SUBSTEPS] > 0``), follows them through
:func:`~sims.kernels.actuator.command_path_period` (rate limits at the controller rate and
a lag); then the task's ``physics`` moves the world, its ``evaluate`` gives the reward
terms (weighted by ``fp[P_REWARD_W + i]``, summed from 0.0 in the task's order, each
written to ``res[R_TERMS + i]``) and success, and its ``observe`` the observation.
Autoresets (SAME_STEP) happen inside. The whole-batch reset kernel (``reset(seed=...)``)
is serial: a few ms for 4096 envs, and it compiles faster.

Speed: the CPU step is generated source (:mod:`sims.kernels.inline_source`): the chunk loop
(``step_envs``) with the per-env ``finish_env`` and ``observe_env``, the task's
``observe``, ``evaluate`` and ``physics`` and the kernel helpers marked ``pasted`` (the
contact model's ``object_step``) pasted in, one function that numba types once
(``task_kernels(...).step_chunk_source`` is its text), the action mode read from ``ip``.
For a task with ``joint_fast_path`` (reach) the step is pasted twice, the mode a constant
in each (joint mode is the hot training path: the compiler drops the IK), and the chunk
calls one or the other. The task's terms as calls cost 5-16% per env-step (array arguments
passed as structs, no constant joint mode in the physics); numba's ``inline="always"`` of
them compiles each on its own and re-types its caller at every site and level (a cold
compile 2-4.5x slower); the pasted source compiles no slower than the calls did. The
per-env functions stay numba inlines for the CUDA kernels and the reset kernels. The
generated loop is compiled without numba's reference counting (``_nrt=False``; it allocates
nothing, its scratch comes from the parallel kernel): each array view or copy of an array
variable (the action row) would be an ``NRT_incref``/``NRT_decref`` call (an atomic update)
that its pruning pass cannot remove across the step's branches, ~20 per env and step with
numba's inlining, which made reach 30% slower. The chunk step is an ``njit`` function of its
own (:func:`~sims.kernels.cache_keys.compiled_once`): as a ``register_jitable`` one it was
compiled twice, for the kernel's typing and for its parallel loop's body. Small helpers
with branches (:func:`~sims.kernels.episode.action_slots`) are left to LLVM's inliner, and
``1 / dt`` is computed once per chunk. Measured with ``bench/step_kernel.py`` (4096 envs,
one thread, the kernel alone, best of 300-call runs, back to back with the terms as calls
and with the commit before the task registry): reach 114 ns per env-step (calls 132,
before the registry 114), push 348 (371, 349), pick_place 353 (377, 352).

The kernels of a task are closures of its functions, built together by :func:`_build`
(one compiled set per task, one numba cache key); the task-independent parts of an
episode they call are in :mod:`sims.kernels.episode`, and how they are keyed in numba's
cache in :mod:`sims.kernels.cache_keys`.
"""

from __future__ import annotations

import linecache
import math
import re
import sys
from types import SimpleNamespace

import numpy as np
from numba import njit, prange
from numba.extending import register_jitable

from sims.control import arm_targets_row
from sims.kernels.actuator import command_path_period
from sims.kernels.cache_keys import compiled_once, task_stamp
from sims.kernels.episode import action_slots, noise_key, reset_arm
from sims.kernels.inline_source import inline_source
from sims.kernels.jit import inlined
from sims.kernels.kinematics import clip, store_fk
from sims.kernels.layout import (
    C_EPISODE,
    C_STEPS,
    F_FINAL,
    F_SUCCESS,
    F_TERMINATED,
    F_TRUNCATED,
    I_ACT_SUBSTEPS,
    I_CARTESIAN,
    I_EPISODE_STEPS,
    NOISE_COUNTER_BASE,
    P_CART_STEP,
    P_DT,
    P_GAIN,
    P_IK_DAMPING,
    P_JOINT_SCALE,
    P_OBS_NOISE,
    P_REWARD_W,
    P_TILT_GAIN,
    P_TILT_SIN_ALLOW,
    P_Z_MIN,
    R_FINAL_LENGTH,
    R_FINAL_RETURN,
    R_REWARD,
    R_TERMS,
    ROW_Q_OLD,
    ROW_TARGET,
    S_DELAY,
    S_OBJ,
    S_PLAIN,
    S_Q,
    S_QD,
    S_RETURN,
    S_SEEN,
    S_TCP,
    S_WIDTH,
    S_YAW,
    SCRATCH_SHAPE,
)
from sims.kernels.observe import perceive_cube

_BUILT: dict = {}


def _has_cube(observe) -> bool:
    """Whether the task whose kernel ``observe`` is has a cube (its module's
    ``CONFIG.has_object``; True for a task defined elsewhere, which then pays the copy of
    the observed pose)."""
    config = getattr(sys.modules.get(observe.__module__), "CONFIG", None)
    return bool(getattr(config, "has_object", True))


def task_kernels(task_kernel) -> SimpleNamespace:
    """The per-env functions (``reset_env``, ``observe_env``), the chunk step ``step_envs``
    (the CPU step's source, a CUDA thread's step) and the CPU
    kernels (``step_kernel``, ``reset_kernel``, ``refresh_kernel``,
    ``true_pose_observe_kernel``) of a task, from its
    ``KERNEL`` (:class:`sims.tasks.registry.TaskKernel`), and ``step_chunk_source``, the
    generated source of the CPU step (to read: ``print(task_kernels(task.KERNEL)
    .step_chunk_source)``); built once per task."""
    if task_kernel not in _BUILT:
        _BUILT[task_kernel] = _build(task_kernel)
    return _BUILT[task_kernel]


def _build(task_kernel) -> SimpleNamespace:
    observe = task_kernel.observe
    evaluate = task_kernel.evaluate
    task_reset = task_kernel.reset
    physics = task_kernel.physics
    stamp = task_stamp(task_kernel)
    tag = re.sub(r"\W", "_", f"{observe.__module__}.{observe.__qualname__}")

    def named(fn):
        """``fn`` under a name of this task's: numba names a compiled function (and its
        cache file) after its qualified name and a per-process counter, so the closures
        of two tasks, loaded from the cache into one process, would share symbols."""
        fn.__qualname__ = f"{tag}.{fn.__name__}"
        return fn

    sees_cube = _has_cube(observe)

    @inlined
    @named
    def observe_env(k, fp, seed, st, cnt, obs, steps):
        """Observation row ``obs[k]`` after ``steps`` steps of the episode (the observed
        cube pose, for a task with a cube, and the noise keyed by the episode and step)."""
        noise = fp[P_OBS_NOISE]
        episode = cnt[k, C_EPISODE]
        base = NOISE_COUNTER_BASE + steps * 32
        if sees_cube:  # a constant of the closure: numba drops the branch for reach
            perceive_cube(k, fp, seed, st, episode, steps, base)
        key = noise_key(seed, k, episode, noise)
        observe(k, st, obs, noise, key, base)

    @register_jitable
    @named
    def reset_env(k, fp, ip, seed, st, cnt, abuf, scratch):
        """Start a new episode for env ``k``: the arm's draws, then the task's."""
        key = reset_arm(k, fp, ip, seed, st, cnt, abuf, scratch)
        task_reset(k, fp, ip, key, st)

    @inlined
    @named
    def finish_env(k, fp, ip, seed, st, cnt, abuf, obs, fin_obs, res, flags, scratch):
        """Reward (its terms), success, counters and observation of env ``k`` after its
        physics step; SAME_STEP autoreset when the episode ends."""
        terms, ok = evaluate(k, fp, st)
        r = 0.0
        for i in range(len(terms)):
            term = fp[P_REWARD_W + i] * terms[i]
            res[R_TERMS + i, k] = term
            r += term
        steps = cnt[k, C_STEPS] + 1
        cnt[k, C_STEPS] = steps
        st[k, S_RETURN] += r
        res[R_REWARD, k] = r
        flags[F_SUCCESS, k] = ok
        flags[F_TERMINATED, k] = ok
        done_by_time = steps >= ip[I_EPISODE_STEPS]
        flags[F_TRUNCATED, k] = done_by_time
        observe_env(k, fp, seed, st, cnt, obs, steps)
        if ok or done_by_time:
            for j in range(obs.shape[1]):
                fin_obs[k, j] = obs[k, j]
            flags[F_FINAL, k] = True
            res[R_FINAL_RETURN, k] = st[k, S_RETURN]
            res[R_FINAL_LENGTH, k] = steps
            cnt[k, C_EPISODE] += 1
            reset_env(k, fp, ip, seed, st, cnt, abuf, scratch)
            observe_env(k, fp, seed, st, cnt, obs, cnt[k, C_STEPS])
        else:
            for j in range(obs.shape[1]):
                fin_obs[k, j] = 0.0
            flags[F_FINAL, k] = False
            res[R_FINAL_RETURN, k] = 0.0
            res[R_FINAL_LENGTH, k] = 0.0

    @inlined
    @named
    def step_envs(
        lo, hi, cartesian, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, scratch
    ):
        """One control step of envs ``lo..hi-1``: the source the generated CPU steps are
        pasted from, ``cartesian`` bound (:func:`generated`), and a CUDA thread's step (of
        its one env). ``cartesian``: ``ip[I_CARTESIAN] != 0``, passed so that a caller can
        make it a constant; ``1 / dt`` is computed once (a division per env costs ~4 ns of
        a reach step's ~115)."""
        inv_dt = 1.0 / fp[P_DT]
        for k in range(lo, hi):
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
            if substeps > 0 and st[k, S_PLAIN] == 0.0:  # the command path (sims.robots.actuator)
                command_path_period(k, fp, ip, st, scratch, substeps)
            else:
                for i in range(7):
                    old = st[k, S_Q + i]
                    scratch[ROW_Q_OLD, i] = old
                    st[k, S_Q + i] = old + gain * (scratch[ROW_TARGET, i] - old)
            # the world after the arm has moved (a call: compiled once, not inlined twice)
            physics(k, fp, ip, st, scratch, a, cartesian, prev_x, prev_y, prev_z, prev_width)
            for i in range(7):
                st[k, S_QD + i] = (st[k, S_Q + i] - scratch[ROW_Q_OLD, i]) * inv_dt
            finish_env(k, fp, ip, seed, st, cnt, abuf, obs, fin_obs, res, flags, scratch)

    def generated(name, cartesian):
        """(``name``, its source): :func:`step_envs` with ``cartesian`` bound to the source
        ``cartesian``, the step and the task's terms pasted in (see the module docstring),
        compiled without reference counting."""
        namespace: dict = {}
        source = inline_source(
            step_envs,
            (finish_env, observe_env, observe, evaluate, physics),
            namespace,
            name=name,
            bound={"cartesian": cartesian},
        )
        filename = f"<generated {name} of {tag}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
        return register_jitable(_nrt=False)(named(namespace[name])), source

    if task_kernel.joint_fast_path:
        in_joint, joint_source = generated("in_joint", "False")
        in_cartesian, cartesian_source = generated("in_cartesian", "True")
        source = joint_source + "\n\n" + cartesian_source

        @named
        def step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, w):
            """One control step of envs ``lo..hi-1``, the action mode compiled as a
            constant in each branch."""
            if ip[I_CARTESIAN] == 0:
                in_joint(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, w)
            else:
                in_cartesian(
                    lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, w
                )

    else:
        step_chunk, source = generated("step_chunk", "ip[I_CARTESIAN] != 0")
    step_chunk = compiled_once(step_chunk, source)

    @njit(cache=True, parallel=True)
    @named
    def step_kernel(fp, ip, seed, n_chunks, actions, st, cnt, abuf, obs, fin_obs, res, flags):
        """One control step of every env, with SAME_STEP autoreset (see the backend).

        ``actions`` [N, A] must be finite (the backend checks); they are clipped to [-1, 1]
        here. Writes observations ``obs`` and ``fin_obs`` [N, D] (float32), ``res``
        [R_TERMS + terms, N] (reward, final return, final length, the weighted reward terms)
        and ``flags`` [4, N] (terminated, truncated, success, has final observation). The
        envs are split into ``n_chunks`` chunks run in parallel (a thin parallel loop over a
        plain function compiles much faster).
        """
        _ = stamp  # in the cache key: see cache_keys.task_stamp
        n = st.shape[0]
        chunk = (n + n_chunks - 1) // n_chunks
        for c in prange(n_chunks):
            lo = c * chunk
            hi = min(n, lo + chunk)
            w = np.empty(SCRATCH_SHAPE)
            step_chunk(lo, hi, fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags, w)

    @njit(cache=True)
    @named
    def reset_kernel(fp, ip, seed, mask, bump, st, cnt, abuf, obs):
        """Start a new episode in every env where ``mask``; ``bump`` advances its episode
        counter first (a reset without a new seed draws a new episode)."""
        _ = stamp
        scratch = np.empty(SCRATCH_SHAPE)
        for k in range(st.shape[0]):
            if not mask[k]:
                continue
            if bump:
                cnt[k, C_EPISODE] += 1
            reset_env(k, fp, ip, seed, st, cnt, abuf, scratch)
            observe_env(k, fp, seed, st, cnt, obs, cnt[k, C_STEPS])

    @njit(cache=True)
    @named
    def refresh_kernel(fp, ip, seed, st, cnt, obs):
        """Recompute the TCP from the joint positions, and the observations (after
        ``set_state``)."""
        _ = stamp
        scratch = np.empty(SCRATCH_SHAPE)
        for k in range(st.shape[0]):
            store_fk(k, st, scratch)
            observe_env(k, fp, seed, st, cnt, obs, cnt[k, C_STEPS])

    @njit(cache=True)
    @named
    def true_pose_observe_kernel(fp, seed, st, cnt, obs):
        """The observation of every env as it is now, but with the cube's true pose in
        place of the observed one (:func:`~sims.kernels.observe.perceive_cube`'s error
        model left out) and the same observation noise: what a privileged expert labels
        (:meth:`sims.backends.numba_backend.NumbaEnv.privileged_observation`). A task with
        a cube only; the state is left as it was."""
        _ = stamp
        noise = fp[P_OBS_NOISE]
        for k in range(st.shape[0]):
            seen_x = st[k, S_SEEN]
            seen_y = st[k, S_SEEN + 1]
            seen_yaw = st[k, S_SEEN + 2]
            st[k, S_SEEN] = st[k, S_OBJ]
            st[k, S_SEEN + 1] = st[k, S_OBJ + 1]
            st[k, S_SEEN + 2] = st[k, S_YAW]
            key = noise_key(seed, k, cnt[k, C_EPISODE], noise)
            observe(k, st, obs, noise, key, NOISE_COUNTER_BASE + cnt[k, C_STEPS] * 32)
            st[k, S_SEEN] = seen_x
            st[k, S_SEEN + 1] = seen_y
            st[k, S_SEEN + 2] = seen_yaw

    return SimpleNamespace(
        observe_env=observe_env,
        reset_env=reset_env,
        step_envs=step_envs,
        step_kernel=step_kernel,
        reset_kernel=reset_kernel,
        refresh_kernel=refresh_kernel,
        true_pose_observe_kernel=true_pose_observe_kernel,
        step_chunk_source=source,
    )


@njit(cache=True)
def first_non_finite(actions):
    """Flat index of the first non-finite entry of ``actions`` [N, A], or -1."""
    flat = actions.reshape(-1)
    for i in range(flat.size):
        if not math.isfinite(flat[i]):
            return i
    return -1
