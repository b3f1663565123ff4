"""The sim node's PyBullet world with several arms (config/scene_dual.yaml, no ROS): each
Panda stands at its mount (its links where the robot model and the frame transform put
them), each arm follows only its own targets, reset restores all, and the camera process
renders the cell as the world does."""

from pathlib import Path

import numpy as np
import pybullet as p
import pytest

from miles_ros.runtime.frames import base_to_world
from miles_ros.runtime.scene_world import JOINT_NAMES, CameraProcess, SceneWorld
from sims.robots import panda
from sims.scene import load_scene

DUAL = Path(__file__).resolve().parents[2] / "config" / "scene_dual.yaml"


@pytest.fixture(scope="module")
def world():
    world = SceneWorld(load_scene(DUAL))
    yield world
    world.close()


def link_origins_world(world: SceneWorld, arm: str) -> np.ndarray:
    """World positions [7, 3] of the frames of joints 1..7, as PyBullet places them."""
    body = world.arms[arm].robot
    states = p.getLinkStates(
        body, world.world.arm_joints, computeForwardKinematics=True, physicsClientId=world.client
    )
    return np.array([s[4] for s in states])


def model_origins_world(world: SceneWorld, arm: str) -> np.ndarray:
    """The same from the robot model's kinematics in the base frame, moved to the world."""
    frames = np.empty((9, 4, 4))
    panda.fk_frames(np.asarray(world.joint_state(arm)[0][:7]), frames)
    return base_to_world(world.scene.arm(arm), frames[:7, :3, 3])


def test_each_arm_stands_at_its_mount(world):
    world.reset()
    assert world.arm_names == ("left_arm", "right_arm")
    for arm in world.arm_names:
        pos, vel, effort = world.joint_state(arm)
        assert len(pos) == len(vel) == len(effort) == len(JOINT_NAMES)
        np.testing.assert_allclose(pos[:7], panda.home_joint_positions, atol=1e-9)
        np.testing.assert_allclose(
            link_origins_world(world, arm), model_origins_world(world, arm), atol=1e-6
        )
    # both arms reach over the table towards each other: their hands are closer to the
    # table's centre than their bases
    for arm in world.arm_names:
        base = np.asarray(world.scene.arm(arm).base_position)
        hand = link_origins_world(world, arm)[-1]
        assert np.linalg.norm(hand[:2]) < np.linalg.norm(base[:2]) - 0.3


def test_a_command_moves_only_its_arm_and_reset_restores_both(world):
    world.reset()
    target = panda.home_joint_positions + np.array([0.4, 0.2, 0.0, 0.2, 0.0, -0.2, 0.3])
    world.set_targets(target, 0.0, robot="right_arm")
    world.step(400)
    right = np.array(world.joint_state("right_arm")[0])
    left = np.array(world.joint_state("left_arm")[0])
    np.testing.assert_allclose(right[:7], target, atol=0.01)
    assert right[7] < 0.005  # fingers closed
    np.testing.assert_allclose(left[:7], panda.home_joint_positions, atol=1e-3)
    assert left[7] == pytest.approx(panda.finger_position_max, abs=1e-3)
    np.testing.assert_allclose(
        link_origins_world(world, "right_arm"), model_origins_world(world, "right_arm"), atol=1e-6
    )
    np.testing.assert_allclose(world.arm_target, panda.home_joint_positions)  # the first arm's
    with pytest.raises(KeyError, match="left_arm"):
        world.set_targets(target, robot="middle_arm")
    world.reset()
    for arm in world.arm_names:
        pos = world.joint_state(arm)[0]
        np.testing.assert_allclose(pos[:7], panda.home_joint_positions, atol=1e-9)
        np.testing.assert_allclose(world.arms[arm].arm, panda.home_joint_positions)
    for name, pose in world.object_poses().items():
        np.testing.assert_allclose(pose.position, world.scene.objects[name].position, atol=1e-9)


def test_the_camera_process_renders_the_cell_as_the_world_does(world):
    world.reset()
    world.set_targets(panda.home_joint_positions + 0.3, robot="left_arm")
    world.step(100)
    joints = {arm: world.joint_state(arm)[0] for arm in world.arm_names}
    camera = CameraProcess(str(DUAL))
    try:
        image = camera.render(joints, world.object_poses(), 48, 32)
    finally:
        camera.close()
    assert image.shape == (32, 48, 3) and image.std() > 0
    np.testing.assert_array_equal(image, world.render(48, 32))
