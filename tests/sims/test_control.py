"""sims.control, the one action -> joint target mapping, against the mappings it replaced:
PyBullet's ``_arm_targets`` and the skill node's ``action_to_targets`` (numpy, through
:mod:`sims.robots.panda`), and the numba kernels' inlined step (their own multiplication
order), on random inputs in joint and Cartesian mode, including the z floor and the limits.
"""

import dataclasses

import numpy as np
import pytest

from sims import control
from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda
from sims.tasks import pick_place, push, reach


def previous_pybullet_targets(cfg, q, actions):
    """The PyBullet backend's ``_arm_targets`` (and the skill node's mapping) before
    sims.control, with its finger rule."""
    a = np.clip(actions, -1.0, 1.0)
    out = np.empty_like(q)
    joint_step = cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt
    for k in range(q.shape[0]):
        if cfg.action_mode == "cartesian":
            dx = a[k, :3] * cfg.cartesian_step_max
            dx[2] = max(dx[2], cfg.cartesian_z_min - panda.fk_tcp(q[k])[2])
            out[k] = q[k] + dls_ik_step(q[k], dx, cfg.ik_damping)
        else:
            out[k] = q[k] + a[k, :7] * joint_step
        out[k] = np.clip(out[k], panda.joint_position_min, panda.joint_position_max)
    finger = np.where(a[:, -1] > 0.0, panda.finger_position_max, 0.0) if cfg.has_gripper else None
    return out, finger


def previous_numba_joint_targets(cfg, q, actions):
    """The numba kernels' joint-mode target, in their multiplication order."""
    a = np.clip(actions, -1.0, 1.0)
    step = a[:, :7] * (cfg.joint_action_scale * cfg.control_dt) * panda.joint_velocity_limits
    return np.clip(q + step, panda.joint_position_min, panda.joint_position_max)


def random_inputs(cfg, n, seed):
    rng = np.random.default_rng(seed)
    # wide enough that many targets hit the datasheet limits
    q = rng.uniform(panda.joint_position_min - 0.05, panda.joint_position_max + 0.05, (n, 7))
    q = np.clip(q, panda.joint_position_min, panda.joint_position_max)
    return q, rng.uniform(-1.6, 1.6, (n, cfg.action_dim))


@pytest.mark.parametrize("task", [reach, push, pick_place])
def test_matches_the_previous_backend_mappings(task):
    cfg = task.CONFIG
    q, actions = random_inputs(cfg, 500, seed=1)
    arm, finger = control.joint_targets(cfg, q, actions)
    expected, expected_finger = previous_pybullet_targets(cfg, q, actions)
    np.testing.assert_allclose(arm, expected, rtol=0, atol=1e-12)
    assert np.all(arm >= panda.joint_position_min) and np.all(arm <= panda.joint_position_max)
    at_limit = np.isclose(arm, panda.joint_position_min) | np.isclose(
        arm, panda.joint_position_max
    )
    assert at_limit.any()  # the limits were exercised
    if cfg.action_mode == "joint":
        np.testing.assert_array_equal(arm, previous_numba_joint_targets(cfg, q, actions))
    if task is reach:
        assert finger is None
    elif task is push:
        np.testing.assert_array_equal(finger, 0.0)
    else:
        np.testing.assert_array_equal(finger, expected_finger)


@pytest.mark.parametrize("task", [push, pick_place])
def test_cartesian_mode_of_every_task_and_the_z_floor(task):
    cfg = task.CONFIG
    # arms with the TCP just above the floor, asked to go down (and sideways)
    q = np.tile(panda.home_joint_positions, (40, 1))
    low = np.array([0.5, 0.05, cfg.cartesian_z_min + 0.004])
    for _ in range(200):
        step = np.clip(low - panda.fk_tcp_batch(q), -0.02, 0.02)
        q = q + np.stack([dls_ik_step(qk, sk, 0.01) for qk, sk in zip(q, step, strict=True)])
    rng = np.random.default_rng(4)
    q = q + rng.normal(scale=0.01, size=q.shape)
    actions = rng.uniform(-1.0, 1.0, (40, cfg.action_dim))
    actions[:, 2] = -1.0
    arm, _ = control.joint_targets(cfg, q, actions)
    expected, _ = previous_pybullet_targets(cfg, q, actions)
    np.testing.assert_allclose(arm, expected, rtol=0, atol=1e-12)
    z = panda.fk_tcp_batch(arm)[:, 2]
    assert np.all(z >= cfg.cartesian_z_min - 1e-3)
    # and reach in Cartesian mode (a config the numba backend supports)
    cart = reach.CONFIG.__class__(**{**reach.CONFIG.__dict__, "action_mode": "cartesian"})
    q2, a2 = random_inputs(cart, 200, seed=5)
    np.testing.assert_allclose(
        control.joint_targets(cart, q2, a2)[0],
        previous_pybullet_targets(cart, q2, a2)[0],
        rtol=0,
        atol=1e-12,
    )


def test_unknown_action_mode_is_refused():
    bad = reach.CONFIG.__class__(**{**reach.CONFIG.__dict__, "action_mode": "torque"})
    with pytest.raises(ValueError, match="action_mode"):
        control.ControlParams.from_config(bad)


def _tilt_deg(q):
    """Angle (deg) between the tool axis and straight down."""
    _, rot = panda.fk_tcp_pose(np.ascontiguousarray(q))
    return float(np.degrees(np.arccos(np.clip(-rot[2, 2], -1.0, 1.0))))


def _drive(cfg, target, steps=120):
    """Steer the TCP from home to ``target`` with Cartesian actions (the arm covers 80 % of
    each step, as the numba backend's tracking); the final q."""
    q = panda.home_joint_positions.copy()
    for _ in range(steps):
        error = (np.asarray(target) - panda.fk_tcp(q)) / cfg.cartesian_step_max
        action = error * min(1.0, 0.8 / max(np.linalg.norm(error), 1e-9))
        arm, _ = control.joint_targets(cfg, q[None], action[None])
        q = q + 0.8 * (arm[0] - q)
    return q


@pytest.mark.parametrize("target", [(0.31, -0.24, 0.03), (0.30, 0.0, 0.02), (0.60, 0.30, 0.02)])
def test_tilt_gain_keeps_the_tool_level_and_the_tcp_on_its_path(target):
    """Position-only IK tilts the hand on the way to the table (12-37 deg; the hand's link
    spheres then meet the table near the base); the null-space levelling step keeps it within
    a few degrees and the TCP still arrives."""
    free = _drive(push.CONFIG, target)
    level = _drive(dataclasses.replace(push.CONFIG, ik_tilt_gain=0.2), target)
    assert _tilt_deg(free) > 10.0
    assert _tilt_deg(level) < 3.0
    np.testing.assert_allclose(panda.fk_tcp(level), target, atol=1e-3)


def test_the_levelling_step_is_in_the_null_space_of_the_tcp_step():
    """From a level arm, one step with and without levelling moves the TCP alike (to the
    IK's damping and second order); from a tilted one, a zero action only turns the tool."""
    rng = np.random.default_rng(7)
    cfg = dataclasses.replace(push.CONFIG, ik_tilt_gain=0.2)
    q = np.tile(_drive(push.CONFIG, (0.45, 0.1, 0.12)), (30, 1))  # above the z floor
    q = q + rng.normal(scale=0.05, size=q.shape)
    assert panda.fk_tcp_batch(q)[:, 2].min() > 0.05
    actions = rng.uniform(-1.0, 1.0, (30, 3))
    free, _ = control.joint_targets(push.CONFIG, q, actions)
    level, _ = control.joint_targets(cfg, q, actions)
    assert np.abs(level - free).max() > 1e-3  # the levelling did move the joints
    tcp_free = panda.fk_tcp_batch(free)
    tcp_level = panda.fk_tcp_batch(level)
    assert np.abs(tcp_level - tcp_free).max() < 2e-3
    still, _ = control.joint_targets(cfg, q, np.zeros((30, 3)))
    assert np.abs(panda.fk_tcp_batch(still) - panda.fk_tcp_batch(q)).max() < 2e-3
    assert all(_tilt_deg(a) < _tilt_deg(b) for a, b in zip(still, q, strict=True))


@pytest.mark.parametrize("target", [(0.31, -0.24, 0.03), (0.30, 0.0, 0.02), (0.60, 0.30, 0.02)])
def test_the_tilt_allowance_levels_only_the_tilt_beyond_it(target):
    """With ``ik_tilt_allowance_deg`` the levelling turns the tool back to the allowance, not
    to straight down; a move that stays within it is the plain IK's, bit for bit."""
    free = _drive(push.CONFIG, target)
    cfg = dataclasses.replace(push.CONFIG, ik_tilt_gain=0.2, ik_tilt_allowance_deg=15.0)
    allowed = _drive(cfg, target)
    np.testing.assert_allclose(panda.fk_tcp(allowed), target, atol=1e-3)
    if _tilt_deg(free) > 15.0:
        assert 14.0 < _tilt_deg(allowed) < 16.5
    else:  # no state on the way tilts past the allowance
        np.testing.assert_array_equal(allowed, free)


def test_a_tool_within_the_allowance_gets_the_plain_step():
    rng = np.random.default_rng(5)
    cfg = dataclasses.replace(push.CONFIG, ik_tilt_gain=0.5, ik_tilt_allowance_deg=20.0)
    q = panda.home_joint_positions + rng.normal(scale=0.15, size=(400, 7))
    tilt = np.array([_tilt_deg(row) for row in q])
    within = tilt < 19.9
    assert 50 < within.sum() < 350  # both kinds of arm are drawn
    actions = rng.uniform(-1.0, 1.0, (400, 3))
    allowed, _ = control.joint_targets(cfg, q, actions)
    plain, _ = control.joint_targets(push.CONFIG, q, actions)
    np.testing.assert_array_equal(allowed[within], plain[within])
    beyond = tilt > 20.5
    assert np.abs(allowed[beyond] - plain[beyond]).max(axis=1).min() > 0.0


def test_a_zero_tilt_gain_is_the_plain_ik():
    cfg = dataclasses.replace(push.CONFIG, ik_tilt_gain=0.0)
    q, actions = random_inputs(cfg, 200, seed=3)
    arm, _ = control.joint_targets(cfg, q, actions)
    expected, _ = previous_pybullet_targets(cfg, q, actions)
    np.testing.assert_allclose(arm, expected, rtol=0, atol=1e-12)


def test_the_numba_kernels_apply_the_tilt_gain():
    """The kernels read ``ik_tilt_gain`` from their parameter vector: steered down to the
    table near the base at full speed, a levelled arm tilts a third as much (the levelling
    lags a moving arm: the host test above ends at rest)."""
    from sims.backends.numba_backend import NumbaEnv

    layout = push.LAYOUT.slices
    target = np.array([0.31, -0.24, 0.03])
    tilts = {}
    for gain in (0.0, 0.3):
        cfg = dataclasses.replace(push.CONFIG, ik_tilt_gain=gain)
        env = NumbaEnv(push, 4, cfg)
        obs = env.reset(seed=0)[0]
        for _ in range(40):
            error = (target - obs[:, layout["tcp_pos"]]) / cfg.cartesian_step_max
            norm = np.maximum(np.linalg.norm(error, axis=1, keepdims=True), 1e-9)
            obs = env.step((error * np.minimum(1.0, 0.8 / norm)).astype(np.float32))[0]
        assert np.abs(obs[:, layout["tcp_pos"]] - target).max() < 0.03  # a cube may be in the way
        tilts[gain] = max(_tilt_deg(q.astype(np.float64)) for q in obs[:, layout["joint_pos"]])
    assert tilts[0.0] > 25.0
    assert tilts[0.3] < tilts[0.0] / 3.0


def test_the_levelling_never_takes_the_tcp_below_the_floor():
    """A tilted arm just above the floor, asked down and sideways: its levelled targets keep
    the TCP above ``cartesian_z_min`` (or the plain step's height where that is lower), on
    the host and in the kernel's own arithmetic alike."""
    rng = np.random.default_rng(11)
    cfg = dataclasses.replace(push.CONFIG, ik_tilt_gain=1.0)
    tilted = np.array([-0.28, 0.75, -0.28, -1.94, 0.02, 1.63, 0.78])  # 60 deg, TCP z 3 cm
    # ~0.3 % of these go below the floor without the fallback to the plain step
    q = tilted + rng.normal(scale=0.05, size=(3000, 7))
    actions = rng.uniform(-1.0, 1.0, (3000, 3))
    actions[:, 2] = -1.0
    level, _ = control.joint_targets(cfg, q, actions)
    plain, _ = control.joint_targets(push.CONFIG, q, actions)
    floor = np.minimum(cfg.cartesian_z_min, panda.fk_tcp_batch(plain)[:, 2])
    assert np.all(panda.fk_tcp_batch(level)[:, 2] >= floor - control.FLOOR_SLACK - 1e-9)
    assert np.abs(level - plain).max() > 1e-2  # the levelling did act on most of them
