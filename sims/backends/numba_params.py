"""The numba kernels' parameter vectors for a task: :func:`kernel_params` packs the task
module's numbers, its config, the contact model and the command-path model into the float
and int vectors of :mod:`sims.kernels.layout` (``P_*``, ``I_*``), checking them first.

The contact models here are the numbers of the cube model described in
:mod:`sims.backends.numba_backend`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.kernels import actuator as act
from sims.kernels import contact, layout
from sims.robots.actuator import ActuatorModel, check_latency, effective_latency
from sims.tasks.base import TaskConfig, check_backend_randomization
from sims.tasks.push import check_regions

MU_TABLE = 0.5
"""Nominal cube-table sliding friction (scaled per episode by the friction scale)."""


@dataclass(frozen=True)
class ContactModel:
    """How a task's fingers touch the cube, and which contact parameters vary."""

    pad_grid: bool
    """True: each finger is a 2 x 2 grid of circles (flat faces); False: one cylinder."""
    mu_finger: tuple[float, float]
    """Finger-cube friction coefficient, drawn per episode (uniform in this range)."""
    limit_surface: tuple[float, float]
    """Limit-surface radius over the cube's edge, drawn per episode: 0.383 is a uniform
    table pressure, 0.707 all of it at the corners (Bullet's four box-plane contacts)."""


CONTACT_MODELS = {
    # Push: fitting the model to random PyBullet push segments found no single friction
    # or limit surface that fits every push, so the policy learns under a range of them.
    "push": ContactModel(pad_grid=True, mu_finger=(0.25, 0.8), limit_surface=(0.3, 0.7)),
    # Pick and place: the shipped skill was trained with one cylinder per finger and the
    # nominal values; the push settings were tried and left its training stuck at ~60%.
    "pick_place": ContactModel(
        pad_grid=False,
        mu_finger=(0.5, 0.5),
        limit_surface=(contact.LIMIT_SURFACE_RATIO, contact.LIMIT_SURFACE_RATIO),
    ),
}
"""Contact model per task with a cube."""
KICK_RANGE = (1.1, 1.6)
"""Per-episode gain of the cube's velocity after a push over the fingers' (uniform). A
PyBullet cube struck at 0.4 m/s leaves the fingers about 1.25x faster than they move
and slides on ~3 cm; a quasi-static push alone would carry it ~1.6 cm."""

_KINDS = {
    "reach": layout.KIND_REACH,
    "push": layout.KIND_PUSH,
    "pick_place": layout.KIND_PICK_PLACE,
}


def kernel_params(
    task_module, cfg: TaskConfig, dense: bool, actuator: ActuatorModel | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' float and int parameter vectors, read from the task and its config
    (and the command-path model, when on)."""
    name = task_module.CONFIG.name
    if name not in _KINDS:
        raise ValueError(f"the numba backend has no kernel for task {name!r}")
    if cfg.action_mode not in ("joint", "cartesian"):
        raise ValueError(f"unknown action_mode {cfg.action_mode!r}; use joint or cartesian")
    kind = _KINDS[name]
    if kind == layout.KIND_PICK_PLACE and not cfg.has_gripper:
        raise ValueError("pick_place needs has_gripper=True")
    if kind != layout.KIND_PICK_PLACE and cfg.has_gripper:
        raise ValueError(f"{name} has no gripper in the numba backend")
    if cfg.control_dt <= 0 or cfg.episode_steps < 1:
        raise ValueError("control_dt must be > 0 and episode_steps >= 1")
    rnd = cfg.randomization
    if rnd.action_latency_steps < 0 or rnd.observation_noise_std < 0:
        raise ValueError("action_latency_steps and observation_noise_std must be >= 0")
    check_latency(effective_latency(actuator, rnd.action_latency_steps), cfg.episode_steps)
    check_backend_randomization(rnd, "numba", "its contacts are kinematic, without a stiffness")
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
    # without a command-path model every episode tracks plainly (and reports so)
    fp[layout.P_PLAIN_PROB] = rnd.plain_arm_prob if actuator is not None else 1.0
    fp[layout.P_FRICTION_LO], fp[layout.P_FRICTION_HI] = rnd.friction_scale
    fp[layout.P_MASS_LO], fp[layout.P_MASS_HI] = rnd.object_mass_scale
    fp[layout.P_MU_TABLE] = MU_TABLE
    fp[layout.P_KICK_LO], fp[layout.P_KICK_HI] = KICK_RANGE
    ip = np.zeros(layout.NUM_INT_PARAMS, dtype=np.int64)
    ip[layout.I_KIND] = kind
    ip[layout.I_EPISODE_STEPS] = cfg.episode_steps
    ip[layout.I_CARTESIAN] = 1 if cfg.action_mode == "cartesian" else 0
    ip[layout.I_HAS_GRIPPER] = 1 if cfg.has_gripper else 0
    ip[layout.I_DENSE] = 1 if dense else 0
    if actuator is not None:
        act.pack_params(actuator, cfg.control_dt, fp, ip)
    if kind == layout.KIND_REACH:
        lo, hi = task_module.GOAL_LOW, task_module.GOAL_HIGH
        fp[[layout.P_GOAL_X_LO, layout.P_GOAL_Y_LO, layout.P_GOAL_Z_LO]] = lo
        fp[[layout.P_GOAL_X_HI, layout.P_GOAL_Y_HI, layout.P_GOAL_Z_HI]] = hi
        return fp, ip
    contact = CONTACT_MODELS[name]
    scale_lo, scale_hi = rnd.finger_friction_scale
    fp[layout.P_MU_FINGER] = contact.mu_finger[0] * scale_lo
    fp[layout.P_MU_FINGER_HI] = contact.mu_finger[1] * scale_hi
    fp[layout.P_LSR_LO], fp[layout.P_LSR_HI] = contact.limit_surface
    ip[layout.I_PAD_GRID] = 1 if contact.pad_grid else 0
    fp[layout.P_REACH_WEIGHT] = task_module.REACH_WEIGHT
    lo, hi = rnd.cube_size if rnd.cube_size is not None else (task_module.CUBE_SIZE,) * 2
    fp[layout.P_CUBE_HALF], fp[layout.P_CUBE_HALF_HI] = lo / 2, hi / 2
    fp[layout.P_PAD_LO], fp[layout.P_PAD_HI] = rnd.finger_pad
    fp[layout.P_INIT_WIDTH] = task_module.INITIAL_FINGER_WIDTH
    check_regions(cfg)
    obj_lo, obj_hi = task_module.object_area(cfg)
    goal_lo, goal_hi = task_module.goal_area(cfg)
    fp[[layout.P_OBJ_X_LO, layout.P_OBJ_Y_LO]] = obj_lo
    fp[[layout.P_OBJ_X_HI, layout.P_OBJ_Y_HI]] = obj_hi
    fp[[layout.P_GOAL_X_LO, layout.P_GOAL_Y_LO]] = goal_lo
    fp[[layout.P_GOAL_X_HI, layout.P_GOAL_Y_HI]] = goal_hi
    fp[layout.P_GOAL_D_LO], fp[layout.P_GOAL_D_HI] = cfg.goal_distance_range
    fp[layout.P_GOAL_Z_LO], fp[layout.P_GOAL_Z_HI] = getattr(
        task_module, "GOAL_Z_RANGE", (task_module.CUBE_REST_Z, task_module.CUBE_REST_Z)
    )
    fp[layout.P_AIR_PROB] = getattr(task_module, "AIR_GOAL_PROBABILITY", 0.0)
    ip[layout.I_GOAL_TRIES] = task_module.GOAL_SAMPLE_TRIES
    return fp, ip
