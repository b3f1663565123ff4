"""The numba kernels' parameter vectors for a task: :func:`kernel_params` packs the
config, the table's contact numbers, the command-path model, the cube-pose error model, the
reward terms' weights and (through the task's ``KERNEL.pack``) the task's own numbers into
the float and int vectors of :mod:`sims.kernels.layout` (``P_*``, ``I_*``), checking them
first.

The contact numbers here and the tasks' ``CONTACT_MODEL`` are the numbers of the cube model
described in :mod:`sims.backends.numba_backend`.
"""

from __future__ import annotations

import math

import numpy as np

from sims.kernels import actuator as act
from sims.kernels import layout
from sims.kernels.contact import ContactModel
from sims.robots.actuator import ActuatorModel, check_latency, effective_latency
from sims.tasks import registry
from sims.tasks.base import TaskConfig, check_backend_randomization, term_weights

__all__ = ["CONTACT_MODELS", "KICK_RANGE", "MU_TABLE", "ContactModel", "kernel_params"]

MU_TABLE = 0.5
"""Nominal cube-table sliding friction (scaled per episode by the friction scale)."""

KICK_RANGE = (1.1, 1.6)
"""Per-episode gain of the cube's velocity after a push over the fingers' (uniform). A
PyBullet cube struck at 0.4 m/s leaves the fingers about 1.25x faster than they move
and slides on ~3 cm; a quasi-static push alone would carry it ~1.6 cm."""


CONTACT_MODELS = {
    task.CONFIG.name: task.CONTACT_MODEL
    for task in map(registry.get, registry.BUILTIN_TASKS)
    if hasattr(task, "CONTACT_MODEL")
}
"""The built-in tasks' contact models (each task's ``CONTACT_MODEL``), by task name."""


def kernel_params(
    task_module, cfg: TaskConfig, dense: bool, actuator: ActuatorModel | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' float and int parameter vectors, read from the task and its config
    (and the command-path model, when on)."""
    kernel = getattr(task_module, "KERNEL", None)
    if kernel is None:
        raise ValueError(f"the numba backend has no kernel for task {task_module.CONFIG.name!r}")
    if cfg.action_mode not in ("joint", "cartesian"):
        raise ValueError(f"unknown action_mode {cfg.action_mode!r}; use joint or cartesian")
    if cfg.control_dt <= 0 or cfg.episode_steps < 1:
        raise ValueError("control_dt must be > 0 and episode_steps >= 1")
    rnd = cfg.randomization
    if rnd.action_latency_steps < 0 or rnd.observation_noise_std < 0:
        raise ValueError("action_latency_steps and observation_noise_std must be >= 0")
    check_latency(effective_latency(actuator, rnd.action_latency_steps), cfg.episode_steps)
    check_backend_randomization(rnd, "numba", "its contacts are kinematic, without a stiffness")
    if cfg.lift_after_grip_threshold_m:
        raise ValueError(
            "lift_after_grip_threshold_m: the numba backend's kernels have no lift gate "
            "(sims.control.LiftGate runs in PyBullet, Isaac Lab and the skill node)"
        )
    fp = np.zeros(layout.NUM_FLOAT_PARAMS)
    fp[layout.P_DT] = cfg.control_dt
    fp[layout.P_JOINT_SCALE] = cfg.joint_action_scale
    fp[layout.P_CART_STEP] = cfg.cartesian_step_max
    fp[layout.P_IK_DAMPING] = cfg.ik_damping
    fp[layout.P_TILT_GAIN] = cfg.ik_tilt_gain
    fp[layout.P_TILT_SIN_ALLOW] = cfg.ik_tilt_sin_allowance
    fp[layout.P_Z_MIN] = cfg.cartesian_z_min
    fp[layout.P_GAIN] = cfg.tracking_gain
    fp[layout.P_SUCCESS] = cfg.success_threshold
    fp[layout.P_JOINT_NOISE] = rnd.initial_joint_noise
    fp[layout.P_OBS_NOISE] = rnd.observation_noise_std
    pose = rnd.pose_error
    if pose.on and not cfg.has_object:
        raise ValueError(f"randomization.pose_error: task {cfg.name!r} has no cube")
    fp[layout.P_POSE_BIAS_XY] = pose.bias_xy_m
    fp[layout.P_POSE_BIAS_YAW] = math.radians(pose.bias_yaw_deg)
    fp[layout.P_POSE_NOISE_XY] = pose.noise_xy_m
    fp[layout.P_POSE_NOISE_YAW] = math.radians(pose.noise_yaw_deg)
    fp[layout.P_POSE_HOLD] = pose.hold_prob
    # without a command-path model every episode tracks plainly (and reports so)
    fp[layout.P_PLAIN_PROB] = rnd.plain_arm_prob if actuator is not None else 1.0
    fp[layout.P_FRICTION_LO], fp[layout.P_FRICTION_HI] = rnd.friction_scale
    fp[layout.P_MASS_LO], fp[layout.P_MASS_HI] = rnd.object_mass_scale
    fp[layout.P_MU_TABLE] = MU_TABLE
    fp[layout.P_KICK_LO], fp[layout.P_KICK_HI] = KICK_RANGE
    ip = np.zeros(layout.NUM_INT_PARAMS, dtype=np.int64)
    ip[layout.I_EPISODE_STEPS] = cfg.episode_steps
    ip[layout.I_CARTESIAN] = 1 if cfg.action_mode == "cartesian" else 0
    ip[layout.I_HAS_GRIPPER] = 1 if cfg.has_gripper else 0
    if actuator is not None:
        act.pack_params(actuator, cfg.control_dt, fp, ip)
    weights = term_weights(tuple(task_module.REWARD_TERMS), cfg, dense)
    fp[layout.P_REWARD_W : layout.P_REWARD_W + len(weights)] = weights
    kernel.pack(cfg, fp, ip)
    return fp, ip
