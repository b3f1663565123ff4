"""The env's side of the world rows (layouts in :mod:`sims.backends.pybullet.spec`).

Reset rows of new episodes are sampled here, in the parent process (the task's reset
distribution and the domain-randomization draws), so results do not depend on how the
worlds are spread over workers; state rows coming back are scattered into the batched
:class:`~sims.tasks.base.SimState`, with the TCP by forward kinematics.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sims.backends.pybullet.spec import (
    FINGER_LATERAL_FRICTION,
    RESET_CONTACT_STIFFNESS,
    RESET_CUBE_MASS,
    RESET_CUBE_POS,
    RESET_CUBE_SIZE,
    RESET_CUBE_YAW,
    RESET_DIM,
    RESET_FINGER,
    RESET_FINGER_FRICTION,
    RESET_GOAL,
    RESET_JOINT_POS,
    RESET_TABLE_FRICTION,
    RESET_TARGET_POS,
    STATE_CUBE_POS,
    STATE_CUBE_YAW,
    STATE_FINGER_CENTRE,
    STATE_FINGER_WIDTH,
    STATE_JOINT_POS,
    STATE_JOINT_VEL,
    TABLE_LATERAL_FRICTION,
)
from sims.robots import panda
from sims.tasks import pick_place
from sims.tasks.base import SimState, TaskConfig, cube_sizes


@njit(cache=True)
def _unpack_rows(
    rows,
    ids,
    has_object,
    joint_pos,
    joint_vel,
    finger_width,
    finger_centre,
    object_pos,
    object_yaw,
    tcp_pos,
):
    """Scatter world state rows into the batched state at ``ids``; TCP by forward kinematics."""
    for k in range(ids.shape[0]):
        i = ids[k]
        for j in range(7):
            joint_pos[i, j] = rows[k, STATE_JOINT_POS + j]
            joint_vel[i, j] = rows[k, STATE_JOINT_VEL + j]
        finger_width[i] = rows[k, STATE_FINGER_WIDTH]
        finger_centre[i] = rows[k, STATE_FINGER_CENTRE]
        if has_object:
            for j in range(3):
                object_pos[i, j] = rows[k, STATE_CUBE_POS + j]
            object_yaw[i] = rows[k, STATE_CUBE_YAW]
        tcp_pos[i] = panda.fk_tcp(joint_pos[i])


def unpack_state_rows(rows: np.ndarray, ids: np.ndarray, has_object: bool, state: SimState):
    """Write state rows [len(ids), STATE_DIM] into ``state`` (in place) at ``ids``."""
    _unpack_rows(
        rows,
        ids,
        has_object,
        state.joint_pos,
        state.joint_vel,
        state.finger_width,
        state.finger_centre,
        state.object_pos,
        state.object_yaw,
        state.tcp_pos,
    )


def sample_reset_rows(
    task, cfg: TaskConfig, rng: np.random.Generator, n: int, cube_mass: float, max_delay: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Reset rows [n, RESET_DIM], (friction, mass) scales [n, 2], action delays [n] (in
    0..``max_delay``) and target yaws [n] (tasks with a yaw goal, else None) of ``n`` new
    episodes of ``task``; ``cube_mass`` is the nominal mass.
    The target cube is parked (z < 0) except in pick_place stacking episodes
    (``cfg.stack_fraction``, :func:`sims.tasks.pick_place.sample_stack`). Where
    ``cfg.randomization`` turns them on, also the cube's edge (resting on the table), the
    finger pads' friction and the cube's contact stiffness (log-uniform)."""
    rows = np.zeros((n, RESET_DIM))
    rows[:, RESET_TARGET_POS] = pick_place.PARKED_TARGET
    goal_yaw = None
    if hasattr(task, "sample_reset"):
        q, pos, yaw, goal, *target_yaw = task.sample_reset(rng, n, cfg)
        goal_yaw = target_yaw[0] if target_yaw else None
        rows[:, RESET_CUBE_POS] = pos
        rows[:, RESET_CUBE_YAW] = yaw
        if cfg.stack_fraction > 0:
            _, rows[:, RESET_TARGET_POS], goal = task.sample_stack(rng, n, cfg, goal)
    else:
        q = task.reset_distribution(rng, n, cfg)
        goal = task.sample_goal(rng, n)
    rows[:, RESET_JOINT_POS] = q
    rows[:, RESET_FINGER] = getattr(task, "INITIAL_FINGER_WIDTH", 0.0) / 2.0
    rows[:, RESET_GOAL] = goal
    r = cfg.randomization
    mass_scale = rng.uniform(*r.object_mass_scale, size=n)
    friction_scale = rng.uniform(*r.friction_scale, size=n)
    rows[:, RESET_CUBE_MASS] = cube_mass * mass_scale
    rows[:, RESET_TABLE_FRICTION] = TABLE_LATERAL_FRICTION * friction_scale
    draws = np.stack([friction_scale, mass_scale], axis=1)
    delays = rng.integers(0, max_delay + 1, size=n)
    # contact randomization draws only where it is on, so episodes without it are unchanged
    if r.cube_size is not None and hasattr(task, "sample_reset"):
        size = rng.choice(np.array(cube_sizes(r, task.CUBE_SIZE)), size=n)
        rows[:, RESET_CUBE_SIZE] = size
        rows[:, RESET_CUBE_POS.start + 2] = size / 2  # resting on the table
    if tuple(r.finger_friction_scale) != (1.0, 1.0):
        rows[:, RESET_FINGER_FRICTION] = FINGER_LATERAL_FRICTION * rng.uniform(
            *r.finger_friction_scale, size=n
        )
    if r.contact_stiffness is not None:
        lo, hi = np.log(r.contact_stiffness)
        rows[:, RESET_CONTACT_STIFFNESS] = np.exp(rng.uniform(lo, hi, size=n))
    return rows, draws, delays, goal_yaw
