"""Reach's scripted expert: one damped-least-squares IK step toward the goal per period,
as a joint-delta action (the reach task's joint-space action; see :mod:`sims.tasks.reach`).

Memoryless: the joint positions and the goal-minus-TCP vector of the observation decide the
action. The Cartesian step is the goal offset times :data:`GAIN`, at most
:data:`STEP_MAX` long, so the arm slows into the goal rather than oscillating about it.
"""

from __future__ import annotations

import numpy as np

from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda
from sims.tasks import reach

GAIN = 0.5
"""Fraction of the remaining goal offset commanded per control period."""
STEP_MAX = 0.03
"""Longest Cartesian step (m) commanded per control period."""
IK_DAMPING = 0.05
"""Damping (m) of the IK step."""


def act(obs: np.ndarray, cfg=reach.CONFIG) -> np.ndarray:
    """Joint-delta actions [N, 7] in [-1, 1] for observations [N, 23]."""
    obs = np.asarray(obs, dtype=np.float64)
    q = obs[:, reach.LAYOUT.slices["joint_pos"]]
    offset = GAIN * obs[:, reach.LAYOUT.slices["goal_rel_tcp"]]
    length = np.linalg.norm(offset, axis=1, keepdims=True)
    offset *= np.minimum(1.0, STEP_MAX / np.maximum(length, 1e-9))
    scale = cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt
    out = np.empty((obs.shape[0], 7))
    for k in range(obs.shape[0]):
        out[k] = dls_ik_step(np.ascontiguousarray(q[k]), offset[k], IK_DAMPING)
    return np.clip(out / scale, -1.0, 1.0)
