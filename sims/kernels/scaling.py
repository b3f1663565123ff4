"""The scale mode of the jerk-limited shaping, written once for the safety supervisor
(:func:`miles_ros.safety.shaping.shape_step`) and the arm's command-path model
(:func:`sims.kernels.actuator.shape_arm_step`): when some joint cannot take its preferred
acceleration, the whole preferred velocity vector is scaled by one factor, so the arm
keeps its direction, instead of clamping each joint on its own.

Each joint's admissible accelerations form one interval ``[a_lo, a_hi]``
(:func:`sims.kernels.stopping.joint_interval`), so its admissible next velocities
``v + a' h`` form one too, and the factors ``s`` that put ``s * v_pref`` inside it form
an interval of ``s``; the search intersects them over the joints with ``[0, 1]``.
Scalar ``register_jitable`` functions over 1-D arrays (views of the callers' state and
scratch), compiled by the supervisor's ``@njit`` kernels, the numba backend's CPU kernels
and its CUDA kernel. :func:`velocity_scale` is inlined into its callers by numba
(``inline="always"``): as a call, building its four views cost the supervisor's
``shape_step`` about 5 ns (0.5 %) per period against the search written in place.
"""

from __future__ import annotations

from numba.extending import register_jitable

from sims.kernels.jit import inlined


@inlined
def velocity_scale(v, a_pref, a_lo, a_hi, h):
    """Largest ``s`` in ``[0, 1]`` with ``s * (v + a_pref h)`` inside every joint's
    admissible velocity interval ``[v + a_lo h, v + a_hi h]``.

    ``v``, ``a_pref``, ``a_lo``, ``a_hi``: per joint [n]; ``h``: the period (s). Returns
    ``(feasible, s, binding)``: ``feasible`` False when no such ``s`` exists (``s`` is
    then meaningless), ``binding`` the joint whose upper end of ``s`` set it (-1 when no
    joint bounds ``s`` below 1).
    """
    s_lo = 0.0
    s_hi = 1.0
    binding = -1
    for i in range(v.shape[0]):
        vi = v[i]
        vp = vi + a_pref[i] * h
        vl = vi + a_lo[i] * h
        vu = vi + a_hi[i] * h
        if vp > 0.0:
            lo_s = vl / vp
            hi_s = vu / vp
        elif vp < 0.0:
            lo_s = vu / vp
            hi_s = vl / vp
        else:
            if vl > 0.0 or vu < 0.0:
                s_lo = 2.0  # infeasible: zero velocity not admissible for this joint
            continue
        if lo_s > s_lo:
            s_lo = lo_s
        if hi_s < s_hi:
            s_hi = hi_s
            binding = i
    return s_lo <= s_hi, s_hi, binding


@register_jitable
def scaled_accel(v, a_pref, a_lo, a_hi, h, s):
    """One joint's acceleration for the velocity ``s * (v + a_pref h)`` (the factor of
    :func:`velocity_scale`), kept inside ``[a_lo, a_hi]`` against rounding."""
    a_new = (s * (v + a_pref * h) - v) / h
    return min(max(a_new, a_lo), a_hi)
