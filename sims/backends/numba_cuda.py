"""The reach step as a numba.cuda kernel (one GPU thread per env), plus a small wrapper.

It is the CPU kernel :func:`sims.backends.numba_kernels.reach_step_chunk` written for the
CUDA target: the same state layout (``S_*`` columns), parameter vectors, counter-based RNG,
forward kinematics, reward, SAME_STEP autoreset and observation, so a GPU rollout equals a
CPU rollout for the same seed and actions. The device functions below are deliberate
copies of the CPU helpers (a CUDA kernel cannot call CPU-compiled functions); a test runs
both under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) and compares them.

Importing this module needs no GPU: kernels compile on first launch.
:func:`cuda_available` says whether a launch can work here.

Usage::

    env = make_env("reach", "numba", 4096, seed=0)      # CPU env: parameters and reset
    gpu = CudaReachStepper.from_env(env)                 # state copied to the device
    obs, reward, terminated, truncated, info = gpu.step(actions)   # host arrays
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda

from sims.backends import numba_kernels as nk

THREADS_PER_BLOCK = 128

_DH_A = nk._DH_A
_DH_D = nk._DH_D
_SIN_ALPHA = nk._SIN_ALPHA
_Q_MIN = nk._Q_MIN
_Q_MAX = nk._Q_MAX
_V_MAX = nk._V_MAX
_Q_HOME = nk._Q_HOME
_TCP_REACH = float(nk._DH_D[7] + nk._FLANGE_TO_TCP)
_FINGER_AXIS_X = nk._FINGER_AXIS_X
_FINGER_AXIS_Y = nk._FINGER_AXIS_Y
_GOLDEN = nk._GOLDEN
_MIX1 = nk._MIX1
_MIX2 = nk._MIX2
_S30 = nk._S30
_S27 = nk._S27
_S31 = nk._S31
_S11 = nk._S11
_NOISE_BASE = nk.NOISE_COUNTER_BASE

S_Q, S_QD, S_TCP, S_FAX = nk.S_Q, nk.S_QD, nk.S_TCP, nk.S_FAX
S_GOAL, S_FRICTION, S_MASS, S_DELAY, S_RETURN = (
    nk.S_GOAL,
    nk.S_FRICTION,
    nk.S_MASS,
    nk.S_DELAY,
    nk.S_RETURN,
)
S_WIDTH = nk.S_WIDTH
S_KICK, S_MU_FINGER, S_LSR = nk.S_KICK, nk.S_MU_FINGER, nk.S_LSR
NUM_STATE = nk.NUM_STATE
C_STEPS, C_EPISODE = nk.C_STEPS, nk.C_EPISODE
R_REWARD, R_FINAL_RETURN, R_FINAL_LENGTH = nk.R_REWARD, nk.R_FINAL_RETURN, nk.R_FINAL_LENGTH
F_TERMINATED, F_TRUNCATED, F_SUCCESS, F_FINAL = (
    nk.F_TERMINATED,
    nk.F_TRUNCATED,
    nk.F_SUCCESS,
    nk.F_FINAL,
)
P_DT, P_JOINT_SCALE, P_GAIN, P_SUCCESS = nk.P_DT, nk.P_JOINT_SCALE, nk.P_GAIN, nk.P_SUCCESS
P_JOINT_NOISE, P_OBS_NOISE, P_INIT_WIDTH = nk.P_JOINT_NOISE, nk.P_OBS_NOISE, nk.P_INIT_WIDTH
P_FRICTION_LO, P_FRICTION_HI, P_MASS_LO, P_MASS_HI = (
    nk.P_FRICTION_LO,
    nk.P_FRICTION_HI,
    nk.P_MASS_LO,
    nk.P_MASS_HI,
)
P_KICK_LO, P_KICK_HI = nk.P_KICK_LO, nk.P_KICK_HI
P_MU_FINGER, P_MU_FINGER_HI, P_LSR_LO, P_LSR_HI = (
    nk.P_MU_FINGER,
    nk.P_MU_FINGER_HI,
    nk.P_LSR_LO,
    nk.P_LSR_HI,
)
P_GOAL_X_LO, P_GOAL_Y_LO, P_GOAL_Z_LO = nk.P_GOAL_X_LO, nk.P_GOAL_Y_LO, nk.P_GOAL_Z_LO
P_GOAL_X_HI, P_GOAL_Y_HI, P_GOAL_Z_HI = nk.P_GOAL_X_HI, nk.P_GOAL_Y_HI, nk.P_GOAL_Z_HI
I_DENSE, I_EPISODE_STEPS = nk.I_DENSE, nk.I_EPISODE_STEPS


def cuda_available() -> bool:
    """True where a CUDA device (or numba's CUDA simulator) can run the kernel."""
    try:
        return bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - a broken driver install must not break imports
        return False


# --- device copies of the CPU helpers ---------------------------------------------------------
@cuda.jit(device=True)
def _mix64(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@cuda.jit(device=True)
def _episode_key(seed, env, episode):
    h = _mix64(np.uint64(seed) + _GOLDEN)
    h = _mix64(h ^ np.uint64(env))
    return _mix64(h ^ np.uint64(episode))


@cuda.jit(device=True)
def _uniform01(key, counter):
    h = _mix64(key + np.uint64(counter + 1) * _GOLDEN)
    return float(h >> _S11) * (1.0 / 9007199254740992.0)


@cuda.jit(device=True)
def _normal01(key, counter):
    u1 = 1.0 - _uniform01(key, 2 * counter)
    u2 = _uniform01(key, 2 * counter + 1)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@cuda.jit(device=True)
def _clip(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit(device=True)
def _sincos(x):
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
    swap = (quadrant & 1) == 1
    sin_sign = 1.0 - 2.0 * ((quadrant >> 1) & 1)
    cos_sign = 1.0 - 2.0 * (((quadrant + 1) >> 1) & 1)
    return sin_sign * (c if swap else s), cos_sign * (s if swap else c)


@cuda.jit(device=True)
def _fk(st, k):
    """TCP (x, y, z) and finger axis (x, y, z) of env ``k``, as ``nk.fk_row``."""
    s1, c1 = _sincos(st[k, S_Q])
    r00, r01, r02 = c1, -s1, 0.0
    r10, r11, r12 = s1, c1, 0.0
    r20, r21, r22 = 0.0, 0.0, 1.0
    px, py, pz = 0.0, 0.0, _DH_D[0]
    for i in range(1, 7):
        a = _DH_A[i]
        d = _DH_D[i]
        sa = _SIN_ALPHA[i]
        st_, ct = _sincos(st[k, S_Q + i])
        px += a * r00 - sa * d * r01
        py += a * r10 - sa * d * r11
        pz += a * r20 - sa * d * r21
        sst = sa * st_
        sct = sa * ct
        r00, r01, r02 = ct * r00 + sst * r02, -st_ * r00 + sct * r02, -sa * r01
        r10, r11, r12 = ct * r10 + sst * r12, -st_ * r10 + sct * r12, -sa * r11
        r20, r21, r22 = ct * r20 + sst * r22, -st_ * r20 + sct * r22, -sa * r21
    return (
        px + _TCP_REACH * r02,
        py + _TCP_REACH * r12,
        pz + _TCP_REACH * r22,
        r00 * _FINGER_AXIS_X + r01 * _FINGER_AXIS_Y,
        r10 * _FINGER_AXIS_X + r11 * _FINGER_AXIS_Y,
        r20 * _FINGER_AXIS_X + r21 * _FINGER_AXIS_Y,
    )


@cuda.jit(device=True)
def _store_fk(st, k):
    tx, ty, tz, fx, fy, fz = _fk(st, k)
    st[k, S_TCP] = tx
    st[k, S_TCP + 1] = ty
    st[k, S_TCP + 2] = tz
    st[k, S_FAX] = fx
    st[k, S_FAX + 1] = fy
    st[k, S_FAX + 2] = fz


@cuda.jit(device=True)
def _reset_reach(k, fp, seed, st, cnt, abuf):
    """As ``nk.reset_env`` for reach."""
    key = _episode_key(seed, k, cnt[k, C_EPISODE])
    noise = fp[P_JOINT_NOISE]
    for i in range(NUM_STATE):
        st[k, i] = 0.0
    for i in range(7):
        lo = _Q_HOME[i] - noise
        hi = _Q_HOME[i] + noise
        st[k, S_Q + i] = _clip(lo + (hi - lo) * _uniform01(key, i), _Q_MIN[i], _Q_MAX[i])
    _store_fk(st, k)
    st[k, S_WIDTH] = fp[P_INIT_WIDTH]
    lo = fp[P_FRICTION_LO]
    st[k, S_FRICTION] = lo + (fp[P_FRICTION_HI] - lo) * _uniform01(key, 10)
    lo = fp[P_MASS_LO]
    st[k, S_MASS] = lo + (fp[P_MASS_HI] - lo) * _uniform01(key, 11)
    k1 = abuf.shape[1]
    st[k, S_DELAY] = float(min(int(math.floor(_uniform01(key, 12) * k1)), k1 - 1))
    lo = fp[P_KICK_LO]
    st[k, S_KICK] = lo + (fp[P_KICK_HI] - lo) * _uniform01(key, 18)
    lo = fp[P_MU_FINGER]
    st[k, S_MU_FINGER] = lo + (fp[P_MU_FINGER_HI] - lo) * _uniform01(key, 19)
    lo = fp[P_LSR_LO]
    st[k, S_LSR] = lo + (fp[P_LSR_HI] - lo) * _uniform01(key, 20)
    for s in range(k1):
        for j in range(abuf.shape[2]):
            abuf[k, s, j] = 0.0
    cnt[k, C_STEPS] = 0
    lo = fp[P_GOAL_X_LO]
    st[k, S_GOAL] = lo + (fp[P_GOAL_X_HI] - lo) * _uniform01(key, 15)
    lo = fp[P_GOAL_Y_LO]
    st[k, S_GOAL + 1] = lo + (fp[P_GOAL_Y_HI] - lo) * _uniform01(key, 16)
    lo = fp[P_GOAL_Z_LO]
    st[k, S_GOAL + 2] = lo + (fp[P_GOAL_Z_HI] - lo) * _uniform01(key, 17)


@cuda.jit(device=True)
def _write_obs_reach(k, st, obs, noise, seed, cnt, step):
    """As ``nk.write_obs`` for reach."""
    noisy = noise > 0.0
    key = _episode_key(seed, k, cnt[k, C_EPISODE])
    base = _NOISE_BASE + step * 32
    for i in range(7):
        v = st[k, S_Q + i]
        if noisy:
            v += noise * _normal01(key, base + i)
        obs[k, i] = v
        obs[k, 7 + i] = st[k, S_QD + i]
    tx = st[k, S_TCP]
    ty = st[k, S_TCP + 1]
    tz = st[k, S_TCP + 2]
    if noisy:
        tx += noise * _normal01(key, base + 7)
        ty += noise * _normal01(key, base + 8)
        tz += noise * _normal01(key, base + 9)
    gx = st[k, S_GOAL]
    gy = st[k, S_GOAL + 1]
    gz = st[k, S_GOAL + 2]
    obs[k, 14] = tx
    obs[k, 15] = ty
    obs[k, 16] = tz
    obs[k, 17] = gx
    obs[k, 18] = gy
    obs[k, 19] = gz
    obs[k, 20] = gx - tx
    obs[k, 21] = gy - ty
    obs[k, 22] = gz - tz


@cuda.jit
def reach_step_cuda(fp, ip, seed, actions, st, cnt, abuf, obs, fin_obs, res, flags):
    """One reach step (joint mode) for env ``cuda.grid(1)``; arguments as
    :func:`sims.backends.numba_kernels.reach_step_kernel` (without ``n_chunks``)."""
    k = cuda.grid(1)
    if k >= st.shape[0]:
        return
    dt = fp[P_DT]
    inv_dt = 1.0 / dt
    gain = fp[P_GAIN]
    joint_step = fp[P_JOINT_SCALE] * dt
    thr = fp[P_SUCCESS]
    noise = fp[P_OBS_NOISE]
    k1 = abuf.shape[1]
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
        target = _clip(old + abuf[k, aslot, i] * joint_step * _V_MAX[i], _Q_MIN[i], _Q_MAX[i])
        new = old + gain * (target - old)
        st[k, S_Q + i] = new
        st[k, S_QD + i] = (new - old) * inv_dt
    tx, ty, tz, _, _, _ = _fk(st, k)  # like the CPU reach step, the finger axis is left
    st[k, S_TCP] = tx
    st[k, S_TCP + 1] = ty
    st[k, S_TCP + 2] = tz
    dx = st[k, S_TCP] - st[k, S_GOAL]
    dy = st[k, S_TCP + 1] - st[k, S_GOAL + 1]
    dz = st[k, S_TCP + 2] - st[k, S_GOAL + 2]
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    ok = d < thr
    if ip[I_DENSE] != 0:
        r = -d
    else:
        r = -1.0 if d > thr else 0.0
    steps = cnt[k, C_STEPS] + 1
    cnt[k, C_STEPS] = steps
    st[k, S_RETURN] += r
    res[R_REWARD, k] = r
    flags[F_SUCCESS, k] = ok
    flags[F_TERMINATED, k] = ok
    done_by_time = steps >= ip[I_EPISODE_STEPS]
    flags[F_TRUNCATED, k] = done_by_time
    _write_obs_reach(k, st, obs, noise, seed, cnt, steps)
    dim = obs.shape[1]
    if ok or done_by_time:
        for j in range(dim):
            fin_obs[k, j] = obs[k, j]
        flags[F_FINAL, k] = True
        res[R_FINAL_RETURN, k] = st[k, S_RETURN]
        res[R_FINAL_LENGTH, k] = steps
        cnt[k, C_EPISODE] += 1
        _reset_reach(k, fp, seed, st, cnt, abuf)
        _write_obs_reach(k, st, obs, noise, seed, cnt, 0)
    else:
        for j in range(dim):
            fin_obs[k, j] = 0.0
        flags[F_FINAL, k] = False
        res[R_FINAL_RETURN, k] = 0.0
        res[R_FINAL_LENGTH, k] = 0.0


class CudaReachStepper:
    """Reach envs stepped on the GPU. The state lives on the device; :meth:`step` takes
    host actions and returns host arrays like :meth:`NumbaEnv.step`."""

    def __init__(self, fp, ip, seed, st, cnt, abuf, obs_dim: int):
        if int(ip[nk.I_KIND]) != nk.KIND_REACH or int(ip[nk.I_CARTESIAN]) != 0:
            raise ValueError("the CUDA kernel covers reach in joint mode only")
        if not cuda_available():
            raise RuntimeError(
                "no CUDA device: the CUDA reach kernel needs an NVIDIA GPU with a CUDA "
                "driver (or NUMBA_ENABLE_CUDASIM=1 for numba's simulator)"
            )
        self.num_envs = int(st.shape[0])
        self.obs_dim = int(obs_dim)
        self.action_dim = int(abuf.shape[2])
        self._seed = np.uint64(seed)
        self._fp = cuda.to_device(np.ascontiguousarray(fp))
        self._ip = cuda.to_device(np.ascontiguousarray(ip))
        self._st = cuda.to_device(np.ascontiguousarray(st))
        self._cnt = cuda.to_device(np.ascontiguousarray(cnt))
        self._abuf = cuda.to_device(np.ascontiguousarray(abuf))
        self._threads = min(THREADS_PER_BLOCK, self.num_envs)
        self._blocks = (self.num_envs + self._threads - 1) // self._threads

    @classmethod
    def from_env(cls, env) -> CudaReachStepper:
        """Copy a (reset) reach :class:`~sims.backends.numba_backend.NumbaEnv` to the GPU."""
        return cls(env._fp, env._ip, env._seed, env._st, env._cnt, env._abuf, env.obs_dim)

    def step(self, actions: np.ndarray):
        """One step of every env: ``(obs, reward, terminated, truncated, info)``."""
        actions = np.ascontiguousarray(actions, dtype=np.float64)
        if actions.shape != (self.num_envs, self.action_dim):
            raise ValueError(
                f"actions must have shape {(self.num_envs, self.action_dim)}, got {actions.shape}"
            )
        if not np.all(np.isfinite(actions)):
            raise ValueError("actions must be finite")
        n, dim = self.num_envs, self.obs_dim
        obs = cuda.device_array((n, dim), dtype=np.float32)
        fin_obs = cuda.device_array((n, dim), dtype=np.float32)
        res = cuda.device_array((3, n), dtype=np.float64)
        flags = cuda.device_array((4, n), dtype=np.bool_)
        reach_step_cuda[self._blocks, self._threads](
            self._fp,
            self._ip,
            self._seed,
            cuda.to_device(actions),
            self._st,
            self._cnt,
            self._abuf,
            obs,
            fin_obs,
            res,
            flags,
        )
        res_h, flags_h = res.copy_to_host(), flags.copy_to_host()
        info = {
            "success": flags_h[F_SUCCESS],
            "final_obs": fin_obs.copy_to_host(),
            "_final_obs": flags_h[F_FINAL],
            "episode_return": res_h[R_FINAL_RETURN],
            "episode_length": res_h[R_FINAL_LENGTH],
        }
        return (
            obs.copy_to_host(),
            res_h[R_REWARD],
            flags_h[F_TERMINATED],
            flags_h[F_TRUNCATED],
            info,
        )

    def state(self) -> np.ndarray:
        """The per-env state rows [N, NUM_STATE] copied to the host."""
        return self._st.copy_to_host()
