"""The numba contact model against PyBullet on scripted pushes and grasps.

A skill trained in the numba backend is only worth its PyBullet success rate, so the
contact model is checked against PyBullet itself: the same start state and the same
Cartesian actions in both backends must move the cube to about the same place.
"""

import numpy as np
import pytest

from sims.backends.numba_backend import NumbaEnv
from sims.backends.pybullet import spec
from sims.backends.pybullet.env import PyBulletEnv
from sims.backends.pybullet.rows import unpack_state_rows
from sims.kernels import contact as nk
from sims.kernels import layout
from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda
from sims.tasks import pick_place, push

CUBE = np.array([0.50, 0.0, push.CUBE_REST_Z])
GOAL = np.array([0.70, 0.0, push.CUBE_REST_Z])


def joints_for_tcp(target):
    """Joint positions that put the TCP at ``target`` (DLS iterations from home)."""
    q = panda.home_joint_positions.copy()
    for _ in range(300):
        step = np.clip(target - panda.fk_tcp(q), -0.02, 0.02)
        q = q + dls_ik_step(q, step, 0.01)
        q = np.clip(q, panda.joint_position_min, panda.joint_position_max)
    assert np.linalg.norm(panda.fk_tcp(q) - target) < 1e-4
    return q


@pytest.fixture(scope="module")
def push_envs():
    pb = PyBulletEnv(push, 1, num_workers=0, autoreset=False)
    nb = NumbaEnv(push, 1)
    yield pb, nb
    pb.close()


def start_both(pb, nb, q, cube, yaw, finger_width=0.0):
    """Put both envs in the same state (table friction scale 1)."""
    pb.reset(seed=0)
    row = np.zeros(spec.RESET_DIM)  # no contact randomization: its columns stay 0
    row[spec.RESET_JOINT_POS] = q
    row[spec.RESET_FINGER] = finger_width / 2
    row[spec.RESET_CUBE_POS] = cube
    row[spec.RESET_CUBE_YAW] = yaw
    row[spec.RESET_GOAL] = GOAL
    row[spec.RESET_CUBE_MASS] = pb.scene.cube_mass
    row[spec.RESET_TABLE_FRICTION] = 1.0
    ids = np.array([0])
    unpack_state_rows(pb._worlds.reset(ids, row[None]), ids, pb.cfg.has_object, pb._state)
    nb.reset(seed=0)
    nb.set_state(
        joint_pos=q[None],
        object_pos=cube[None],
        object_yaw=np.array([yaw]),
        goal_pos=GOAL[None],
        finger_width=np.array([finger_width]),
    )
    nb._st[:, layout.S_FRICTION] = 1.0


@pytest.mark.parametrize("lateral", [0.0, 0.012])
@pytest.mark.parametrize("height", [0.015, 0.03])
def test_straight_pushes_end_where_pybullet_puts_the_cube(push_envs, lateral, height):
    pb, nb = push_envs
    q = joints_for_tcp(np.array([CUBE[0] - 0.055, lateral, height]))
    start_both(pb, nb, q, CUBE, 0.0)
    for action in [[0.5, 0.0, 0.0]] * 15 + [[0.0, 0.0, 0.0]] * 10:
        pb.step(np.array([action]))
        nb.step(np.array([action]))
    a, b = pb.get_state(), nb.get_state()
    moved = a.object_pos[0, 0] - CUBE[0]
    assert moved > 0.08  # the push did happen in PyBullet
    assert np.linalg.norm(a.object_pos[0, :2] - b.object_pos[0, :2]) < 0.02
    # closed fingers push with a flat pad: the cube does not spin away in either
    assert abs(b.object_yaw[0]) < 0.25
    assert abs(a.object_yaw[0] - b.object_yaw[0]) < 0.3


def test_a_grazing_fingertip_does_not_push(push_envs):
    """Fingertips within CONTACT_TOP_BAND of the cube's top do not move it (in PyBullet
    such contacts ride over or tip the cube; the model gives no credit for them)."""
    pb, nb = push_envs
    tip = CUBE[2] + push.CUBE_SIZE / 2 - nk.CONTACT_TOP_BAND / 2
    q = joints_for_tcp(np.array([CUBE[0] - 0.055, 0.0, tip + nk.FINGERTIP_BELOW_TCP]))
    start_both(pb, nb, q, CUBE, 0.0)
    for _ in range(10):
        nb.step(np.array([[0.5, 0.0, 0.0]]))
    s = nb.get_state()
    assert s.tcp_pos[0, 0] > CUBE[0]  # the fingers passed over the cube's centre
    np.testing.assert_allclose(s.object_pos[0], CUBE)


def test_closing_while_coming_down_does_not_grasp():
    """Fingers that start closing above the cube close above it in PyBullet: the numba
    grasp needs the pads at the cube's height when the step starts."""
    env = NumbaEnv(pick_place, 1)

    def open_over_the_cube(height: float) -> None:  # the TCP this high over its centre
        env.reset(seed=0)
        env.set_state(
            joint_pos=joints_for_tcp(CUBE + [0.0, 0.0, height])[None],
            object_pos=CUBE[None],
            object_yaw=np.zeros(1),
            goal_pos=GOAL[None],
            finger_width=np.array([panda.gripper_width_max]),
        )

    open_over_the_cube(0.035)
    env.step(np.array([[0.0, 0.0, -1.0, -1.0]]))  # down 2 cm and close at once
    assert not env.grasped()[0]
    # the same close with the pads already around the cube grasps it
    open_over_the_cube(0.005)
    env.step(np.array([[0.0, 0.0, 0.0, -1.0]]))
    assert env.grasped()[0]
