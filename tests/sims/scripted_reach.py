"""The scripted reach of the backend tests (PyBullet here, Isaac in tests_isaac/): the whole
goal offset as one damped-least-squares IK step per period, scaled down as a whole (its
direction kept) where a joint would exceed its action range."""

import numpy as np

from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda


def scripted_reach(state, cfg) -> np.ndarray:
    """Joint-delta actions [N, 7] in [-1, 1] toward each env's goal."""
    error = state.goal_pos - state.tcp_pos
    actions = np.zeros((len(error), 7))
    for i in range(len(error)):
        dq = dls_ik_step(state.joint_pos[i], error[i], cfg.ik_damping)
        a = dq / (cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt)
        actions[i] = a / max(1.0, np.abs(a).max())
    return actions
