"""The runtime builds the training observation (compared against the PyBullet backend
itself) and maps actions exactly as every backend does (sims.control)."""

import numpy as np
import pytest

from miles_ros.runtime.actions import JointTargets, action_to_targets
from miles_ros.runtime.homing import path_duration, path_target
from miles_ros.runtime.observation import (
    JointReading,
    ObjectPose,
    parse_joint_state,
    parse_objects,
    sim_state,
)
from sims.backends.pybullet.env import make_pybullet_env
from sims.control import joint_targets
from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda
from sims.tasks import pick_place, push, reach

NAMES = list(panda.JOINT_NAMES) + list(panda.FINGER_JOINT_NAMES)


@pytest.mark.parametrize("task", [reach, push, pick_place])
def test_action_mapping_matches_the_backend_kernel(task):
    cfg = task.CONFIG
    rng = np.random.default_rng(3)
    for _ in range(20):
        q = panda.home_joint_positions + rng.uniform(-0.4, 0.4, 7)
        action = rng.uniform(-1.5, 1.5, cfg.action_dim)  # beyond [-1, 1]: clipped
        expected, _ = joint_targets(cfg, q[None], np.clip(action, -1, 1)[None])
        targets = action_to_targets(cfg, q, action)
        np.testing.assert_allclose(targets.arm, expected[0], atol=1e-12)
        if task is pick_place:
            assert targets.finger == (panda.finger_position_max if action[3] > 0 else 0.0)
        elif task is push:
            assert targets.finger == 0.0  # trained with the fingers closed
        else:
            assert targets.finger is None  # reach leaves the fingers alone


@pytest.mark.parametrize("task", [push, pick_place])
def test_cartesian_steps_never_command_the_tcp_below_the_floor(task):
    cfg = task.CONFIG
    q = panda.home_joint_positions.copy()
    low = np.array([0.5, 0.05, cfg.cartesian_z_min + 0.004])
    for _ in range(200):  # IK to a TCP 4 mm above the floor
        step = np.clip(low - panda.fk_tcp(q), -0.02, 0.02)
        q = q + dls_ik_step(q, step, 0.01)
    down = np.zeros(cfg.action_dim)
    down[2] = -1.0  # asks for 2 cm down
    target = action_to_targets(cfg, q, down).arm
    z = panda.fk_tcp(target)[2]
    assert z >= cfg.cartesian_z_min - 1e-3
    assert z < low[2] - 0.002  # it still went down to the floor
    expected, _ = joint_targets(cfg, q[None], down[None])
    np.testing.assert_allclose(target, expected[0], atol=1e-12)


def test_action_mapping_clips_to_the_datasheet_and_rejects_bad_input():
    cfg = reach.CONFIG
    q = panda.joint_position_max - 0.01
    assert np.all(action_to_targets(cfg, q, np.ones(7)).arm <= panda.joint_position_max)
    with pytest.raises(ValueError, match="non-finite"):
        action_to_targets(cfg, panda.home_joint_positions, np.array([np.nan] + [0.0] * 6))
    with pytest.raises(ValueError, match="expected 7 actions"):
        action_to_targets(cfg, panda.home_joint_positions, np.zeros(3))


def test_home_target_moves_at_the_speed_and_arrives_together():
    start = panda.home_joint_positions + np.array([0.5, -0.2, 0.1, 0.3, 0.0, -0.1, 0.2])
    home = panda.home_joint_positions
    line = np.stack([start, home])
    duration = path_duration(line, 0.5)
    assert duration == pytest.approx(1.875 * 0.5 / 0.5)  # minimum jerk: peak 1.875 x mean
    # every joint on the line, arriving together; halfway at half time (symmetric profile)
    half = path_target(line, max_speed=0.5, elapsed=duration / 2)
    np.testing.assert_allclose(half, start + 0.5 * (home - start))
    np.testing.assert_allclose(path_target(line, 0.5, 5.0), home)
    np.testing.assert_allclose(path_target(line, 0.5, 0.0), start)
    # at rest at both ends, the fastest joint at the set speed at the middle
    dt = 1e-4

    def speed(t):
        return np.max(np.abs(path_target(line, 0.5, t + dt) - path_target(line, 0.5, t))) / dt

    assert speed(0.0) < 1e-3 and speed(duration - dt) < 1e-3
    assert speed(duration / 2) == pytest.approx(0.5, rel=1e-3)


def test_parse_joint_state_reorders_by_name_and_names_what_is_missing():
    order = NAMES[::-1]
    positions = [float(NAMES.index(n)) * 0.1 for n in order]
    reading = parse_joint_state(order, positions, positions, stamp=1.0)
    np.testing.assert_allclose(reading.arm_pos, np.arange(7) * 0.1)
    assert reading.finger_width == pytest.approx(0.7 + 0.8)
    assert reading.finger_centre == pytest.approx((0.7 - 0.8) / 2)  # the first finger's less
    with pytest.raises(ValueError, match="panda_joint3"):
        parse_joint_state([n for n in NAMES if n != "panda_joint3"], [0.0] * 8, [], 0.0)
    with pytest.raises(ValueError, match="non-finite"):
        parse_joint_state(NAMES, [np.inf] + [0.0] * 8, [], 0.0)
    assert np.all(parse_joint_state(NAMES, [0.0] * 9, [], 0.0).arm_vel == 0.0)


def test_parse_objects_reads_the_sim_node_json_and_rejects_bad_poses():
    poses = parse_objects({"objects": {"red_cube": {"position": [0.4, 0.1, 0.02], "yaw": 0.3}}})
    assert poses["red_cube"].yaw == pytest.approx(0.3)
    with pytest.raises(ValueError, match="red_cube"):
        parse_objects({"objects": {"red_cube": {"position": [0.4, 0.1]}}})


@pytest.mark.parametrize("task", [reach, push, pick_place])
def test_observation_equals_the_pybullet_backend_observation(task):
    env = make_pybullet_env(task, 1, num_workers=0, autoreset=False)
    try:
        obs, _ = env.reset(seed=5)
        rng = np.random.default_rng(0)
        for _ in range(3):
            obs, *_ = env.step(rng.uniform(-1, 1, (1, task.CONFIG.action_dim)))
        s = env.get_state()
        half = s.finger_width[0] / 2
        reading = parse_joint_state(
            NAMES, [*s.joint_pos[0], half, half], [*s.joint_vel[0], 0.0, 0.0], stamp=0.0
        )
        obj = ObjectPose(s.object_pos[0], float(s.object_yaw[0])) if task is not reach else None
        ours = task.observe(sim_state(reading, s.goal_pos[0], obj))
        np.testing.assert_allclose(ours, obs, atol=1e-5)
    finally:
        env.close()


def test_sim_state_is_one_env_in_float64():
    reading = JointReading(panda.home_joint_positions.copy(), np.zeros(7), 0.02, 0.0)
    state = sim_state(reading, np.array([0.4, 0.0, 0.2]))
    assert state.joint_pos.shape == (1, 7) and state.joint_pos.dtype == np.float64
    np.testing.assert_allclose(state.tcp_pos[0], panda.fk_tcp(panda.home_joint_positions))
    assert state.finger_width[0] == pytest.approx(0.02)


def test_a_command_message_lists_the_arm_then_the_fingers():
    """A trajectory point's fingers get zero velocity; a target has no velocities; reach
    (finger None) names the arm joints only."""
    arm, v = np.linspace(-0.3, 0.3, 7), np.arange(7) * 0.1
    fingers = list(panda.FINGER_JOINT_NAMES)
    names, position, velocity = JointTargets(arm, 0.02, v).message(panda.JOINT_NAMES, fingers)
    assert names == NAMES
    np.testing.assert_allclose(position, list(arm) + [0.02, 0.02])
    np.testing.assert_allclose(velocity, list(v) + [0.0, 0.0])
    names, position, velocity = JointTargets(arm, None).message(panda.JOINT_NAMES, fingers)
    assert names == list(panda.JOINT_NAMES) and len(position) == 7 and velocity is None
