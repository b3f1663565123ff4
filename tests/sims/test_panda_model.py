"""The robot model against PyBullet's own forward kinematics and against the datasheet."""

import numpy as np
import pybullet as p
import pybullet_data
import pytest

from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda


@pytest.fixture(scope="module")
def bullet_panda():
    client = p.connect(p.DIRECT)
    robot = p.loadURDF(
        pybullet_data.getDataPath() + "/franka_panda/panda.urdf",
        useFixedBase=True,
        physicsClientId=client,
    )
    tcp_link = next(
        j
        for j in range(p.getNumJoints(robot, physicsClientId=client))
        if p.getJointInfo(robot, j, physicsClientId=client)[12] == b"panda_grasptarget"
    )
    yield client, robot, tcp_link
    p.disconnect(client)


def test_fk_matches_pybullet_tcp_over_1000_configurations(bullet_panda):
    client, robot, tcp_link = bullet_panda
    rng = np.random.default_rng(0)
    qs = rng.uniform(panda.joint_position_min, panda.joint_position_max, size=(1000, 7))
    ours = panda.fk_tcp_batch(qs)
    errors = []
    for q, mine in zip(qs, ours, strict=True):
        for j in range(7):
            p.resetJointState(robot, j, q[j], physicsClientId=client)
        state = p.getLinkState(
            robot, tcp_link, computeForwardKinematics=True, physicsClientId=client
        )
        errors.append(np.linalg.norm(np.asarray(state[4]) - mine))
    assert max(errors) < 1e-4


def test_tcp_jacobian_matches_finite_differences():
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = rng.uniform(panda.joint_position_min, panda.joint_position_max)
        p0, jac = panda.tcp_jacobian(q)
        eps = 1e-6
        numeric = np.stack(
            [(panda.fk_tcp(q + eps * np.eye(7)[i]) - p0) / eps for i in range(7)], axis=1
        )
        np.testing.assert_allclose(jac, numeric, atol=1e-5)


def test_dls_ik_step_moves_tcp_toward_target():
    q = panda.home_joint_positions.copy()
    start = panda.fk_tcp(q)
    delta = np.array([0.01, -0.01, 0.005])
    moved = panda.fk_tcp(q + dls_ik_step(q, delta, 0.01)) - start
    assert np.linalg.norm(moved - delta) < 0.1 * np.linalg.norm(delta)


def test_datasheet_limits_are_inside_urdf_limits(bullet_panda):
    """The URDF is wider than the datasheet; the model must carry the narrower numbers."""
    client, robot, _ = bullet_panda
    for j in range(7):
        info = p.getJointInfo(robot, j, physicsClientId=client)
        assert info[8] <= panda.joint_position_min[j] < panda.joint_position_max[j] <= info[9]
    assert panda.joint_position_min[3] == -3.0718 and panda.joint_position_max[5] == 3.7525
    assert np.all(panda.home_joint_positions > panda.joint_position_min)
    assert np.all(panda.home_joint_positions < panda.joint_position_max)


def test_home_pose_tcp_is_in_front_of_and_above_the_base():
    x, y, z = panda.fk_tcp(panda.home_joint_positions)
    assert 0.25 < x < 0.4 and abs(y) < 1e-6 and 0.4 < z < 0.6
