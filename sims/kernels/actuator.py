"""The arm's command path (:mod:`sims.robots.actuator`) as scalar kernels: at the
controller rate the command moves toward the period's targets under velocity,
acceleration and jerk limits inside the position band, and the joints follow the command
through a first-order lag.

The shaping is the safety supervisor's (:func:`miles_ros.safety.shaping.shape_step`
without its Cartesian checks): per joint, the admissible interval of the next
acceleration (:func:`sims.kernels.stopping.joint_interval`) and the preferred one
(:func:`~sims.kernels.stopping.preferred_accel`, braking so the stop ends at the target);
then either every joint lands on its target, or the whole velocity vector is scaled by one
factor to keep its direction (scale mode, :mod:`sims.kernels.scaling`, the supervisor's
search), or each joint is clamped on its own (clamp mode, as libfranka's rate limiter
does).

The command state of an env is 21 numbers in one row of a 2-D array, from column ``c0``:
positions, velocities, accelerations (7 each); the limits are 42 numbers of a 1-D array
from ``l0``: rows ``LIM_*`` of 7. The numba backend keeps them in its state rows and
parameter vector (:func:`command_path_period`, compiled by the CPU kernels and the CUDA
kernel); the host-state backends (PyBullet) in their own arrays (:func:`shape_periods`),
their drives being the lag.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.extending import register_jitable

from sims.kernels.jit import inlined
from sims.kernels.layout import (
    I_ACT_SCALE,
    I_ACT_SUBSTEPS,
    P_ACT_ALPHA,
    P_ACT_H,
    P_ACT_LIM,
    ROW_ACT,
    ROW_Q_OLD,
    ROW_TARGET,
    S_ACT_Q,
    S_Q,
)
from sims.kernels.scaling import scaled_accel, velocity_scale
from sims.kernels.stopping import joint_interval, preferred_accel

LIM_VEL, LIM_ACC, LIM_JERK, LIM_LO, LIM_HI, LIM_REACH = range(6)
"""Rows of the limits (:meth:`sims.robots.actuator.ActuatorModel.limit_arrays`)."""
CMD_Q, CMD_V, CMD_A = 0, 7, 14
"""Offsets of positions, velocities and accelerations in a command state row."""
W_LO, W_HI, W_REQ, W_PREF, W_RES = (ROW_ACT + i for i in range(5))
"""Scratch rows: admissible interval, requested and preferred acceleration per joint, and
:func:`~sims.kernels.stopping.joint_interval`'s result."""
NUM_WORK_ROWS = 5
SEARCH_TOLERANCE = 1e-9
"""rad: how close to a target or a band edge a braking stop must end (the supervisor's
own searches go to the last bit; these stop earlier, on the safe side, in a few
evaluations)."""


@register_jitable
def _commit(cs, k, c0, i, a_new, h, exact):
    """Joint ``i``'s new command for acceleration ``a_new`` (or the position ``exact``
    when not NaN); velocity and acceleration as differences of the positions."""
    c = cs[k, c0 + CMD_Q + i]
    v = cs[k, c0 + CMD_V + i]
    if exact == exact:
        c_new = exact
    else:
        c_new = c + (v + a_new * h) * h
    v_new = (c_new - c) / h
    cs[k, c0 + CMD_Q + i] = c_new
    cs[k, c0 + CMD_V + i] = v_new
    cs[k, c0 + CMD_A + i] = (v_new - v) / h


@register_jitable
def shape_arm_step(cs, k, c0, lim, l0, targets, h, scale_mode, work, res):
    """One controller period ``h`` of the command ``cs[k, c0:c0+21]`` toward ``targets``
    [7], within the limits ``lim[l0:l0+42]``; ``work``: scratch with the ``W_*`` rows,
    ``res``: its ``W_RES`` row."""
    all_exact = True
    for i in range(7):
        c = cs[k, c0 + CMD_Q + i]
        v = cs[k, c0 + CMD_V + i]
        a = cs[k, c0 + CMD_A + i]
        vmax = lim[l0 + 7 * LIM_VEL + i]
        amax = lim[l0 + 7 * LIM_ACC + i]
        jmax = lim[l0 + 7 * LIM_JERK + i]
        lo_pos = lim[l0 + 7 * LIM_LO + i]
        hi_pos = lim[l0 + 7 * LIM_HI + i]
        reach = lim[l0 + 7 * LIM_REACH + i]
        clear = lo_pos + reach < c < hi_pos - reach
        joint_interval(
            c, v, a, h, lo_pos, hi_pos, -vmax, vmax, amax, jmax, res, clear, SEARCH_TOLERANCE
        )
        lo = res[0]
        hi = res[1]
        a_req, a_pref = preferred_accel(c, v, h, amax, jmax, lo, hi, targets[i], SEARCH_TOLERANCE)
        if a_req < lo or a_req > hi:
            all_exact = False
        work[W_LO, i] = lo
        work[W_HI, i] = hi
        work[W_REQ, i] = a_req
        work[W_PREF, i] = a_pref
    if all_exact:
        for i in range(7):
            _commit(cs, k, c0, i, work[W_REQ, i], h, targets[i])
        return
    if scale_mode:
        v = cs[k, c0 + CMD_V : c0 + CMD_V + 7]
        feasible, scale, _ = velocity_scale(v, work[W_PREF], work[W_LO], work[W_HI], h)
        if feasible:
            for i in range(7):
                a_new = scaled_accel(v[i], work[W_PREF, i], work[W_LO, i], work[W_HI, i], h, scale)
                _commit(cs, k, c0, i, a_new, h, math.nan)
            return
    for i in range(7):
        a_new = min(max(work[W_PREF, i], work[W_LO, i]), work[W_HI, i])
        _commit(cs, k, c0, i, a_new, h, math.nan)


@inlined
def command_path_period(k, fp, ip, st, scratch, substeps):
    """One control period of env ``k``'s arm (numba backend): ``substeps`` controller
    periods of shaping toward ``scratch[ROW_TARGET]``, the joints ``st[k, S_Q:S_Q+7]``
    lagging behind the command; the old joint positions go to ``scratch[ROW_Q_OLD]``."""
    h = fp[P_ACT_H]
    alpha = fp[P_ACT_ALPHA]
    scale_mode = ip[I_ACT_SCALE] != 0
    targets = scratch[ROW_TARGET]
    res = scratch[W_RES]
    for i in range(7):
        scratch[ROW_Q_OLD, i] = st[k, S_Q + i]
    for _ in range(substeps):
        shape_arm_step(st, k, S_ACT_Q, fp, P_ACT_LIM, targets, h, scale_mode, scratch, res)
        for i in range(7):
            q = st[k, S_Q + i]
            st[k, S_Q + i] = q + alpha * (st[k, S_ACT_Q + CMD_Q + i] - q)


@njit(cache=True)
def shape_periods(command, targets, limits, h, scale_mode, out):
    """:func:`shape_arm_step` batched over envs: ``command`` [N, 21] (command state rows,
    updated in place), ``targets`` [N, 7], ``limits`` [42]; writes the command positions
    at the end of each of the ``out.shape[1]`` controller periods into ``out`` [N, m, 7]."""
    work = np.empty((ROW_ACT + NUM_WORK_ROWS, 7))
    res = work[W_RES]
    for k in range(command.shape[0]):
        for s in range(out.shape[1]):
            shape_arm_step(command, k, 0, limits, 0, targets[k], h, scale_mode, work, res)
            for i in range(7):
                out[k, s, i] = command[k, CMD_Q + i]


def pack_params(model, control_dt: float, fp: np.ndarray, ip: np.ndarray) -> None:
    """Write ``model``'s numbers into the numba backend's parameter vectors."""
    ip[I_ACT_SUBSTEPS] = model.substeps(control_dt)
    ip[I_ACT_SCALE] = 1 if model.limit_mode == "scale" else 0
    fp[P_ACT_H] = 1.0 / model.rate_hz
    fp[P_ACT_ALPHA] = model.lag_alpha()
    fp[P_ACT_LIM : P_ACT_LIM + 42] = model.limit_arrays().reshape(-1)
