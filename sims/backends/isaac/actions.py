"""Actions -> joint targets for the Isaac env: ONE wrapper around the mapping every backend
shares, so that it can be repointed in one line.

:func:`joint_targets` calls ``sims.control.joint_targets`` where that module exists (the
one mapping of issue 11), else the PyBullet backend's ``_arm_targets``. pybullet has no
wheel for Python 3.12, so in ``.venv-isaac`` ``sims.backends.pybullet.env`` cannot be
imported; then :func:`_arm_targets_py` runs the same maths on :mod:`sims.robots.panda`
(``dls_ik_step``, ``fk_tcp``, the datasheet clip) until ``sims.control`` lands.
"""

from __future__ import annotations

import numpy as np

from sims.robots import panda
from sims.tasks.base import TaskConfig

_mapping = None


def joint_targets(cfg: TaskConfig, q: np.ndarray, actions: np.ndarray, arm_out: np.ndarray):
    """THE action -> joint target mapping (arm targets [N, 7] into ``arm_out``; finger
    targets [N] or None), the one every backend uses: ``sims.control.joint_targets`` where
    it exists, else the PyBullet backend's ``_arm_targets``. Resolved once."""
    global _mapping
    if _mapping is None:
        try:
            from sims.control import joint_targets as _mapping
        except ImportError:
            _mapping = _pybullet_arm_targets
    return _mapping(cfg, q, actions, arm_out)


def _pybullet_arm_targets(cfg, q, actions, arm_out):
    _arm_targets(
        q,
        actions,
        cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt,
        cfg.cartesian_step_max,
        cfg.ik_damping,
        cfg.action_mode == "cartesian",
        cfg.cartesian_z_min,
        arm_out,
    )
    if cfg.has_gripper:
        return arm_out, np.where(actions[:, 3] > 0.0, panda.finger_position_max, 0.0)
    return arm_out, (np.zeros(q.shape[0]) if cfg.has_object else None)


def _arm_targets_py(q, actions, joint_step, cartesian_step, damping, cartesian, z_min, out):
    for k in range(q.shape[0]):
        if cartesian:
            dx = actions[k, :3] * cartesian_step
            dx[2] = max(dx[2], z_min - panda.fk_tcp(q[k])[2])
            out[k] = q[k] + panda.dls_ik_step(q[k], dx, damping)
        else:
            out[k] = q[k] + actions[k, :7] * joint_step
    np.clip(out, panda.joint_position_min, panda.joint_position_max, out=out)


try:  # pybullet (imported by sims.backends.pybullet.env) has no wheel for Python 3.12
    from sims.backends.pybullet.env import _arm_targets
except ImportError:
    _arm_targets = _arm_targets_py
