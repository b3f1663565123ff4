"""The sim node's PyBullet world (no ROS): built from the scene file alone, the same
world as the PyBullet backend's, and pictures from the camera subprocess."""

import numpy as np
import pytest

from miles_ros.runtime.scene_world import JOINT_NAMES, CameraProcess, SceneWorld
from sims.backends.pybullet.env import make_pybullet_env
from sims.robots import panda
from sims.scene import load_scene
from sims.tasks import pick_place


@pytest.fixture(scope="module")
def world():
    world = SceneWorld()
    yield world
    world.close()


def test_the_world_holds_the_scene_files_cubes_and_pads(world):
    scene = load_scene()
    assert world.world.spec.table_size == scene.table.size
    assert world.world.spec.cube_mass == scene.cube_mass
    assert set(world.world.decor) == {*scene.objects, *scene.places}
    poses = world.object_poses()
    assert list(poses) == list(scene.objects)
    for name, obj in scene.objects.items():
        np.testing.assert_allclose(poses[name].position, obj.position, atol=1e-9)
        assert poses[name].yaw == pytest.approx(0.0)


def test_the_same_world_as_the_backends_with_the_scene_objects(world):
    env = make_pybullet_env(pick_place, 1, num_workers=0, scene_objects=True)
    try:
        backend_spec = env._worlds.group.worlds[0].spec
    finally:
        env.close()
    spec = world.world.spec
    different = {"has_object", "physics_dt", "substeps"}
    for field in spec.__dataclass_fields__:
        if field not in different:
            assert getattr(spec, field) == getattr(backend_spec, field), field


def test_targets_move_the_arm_and_reset_restores_the_scene(world):
    world.reset()
    pos, vel, effort = world.joint_state()
    assert len(pos) == len(vel) == len(effort) == len(JOINT_NAMES) == 9
    np.testing.assert_allclose(pos[:7], panda.home_joint_positions, atol=1e-9)
    target = panda.home_joint_positions + 0.1
    world.set_targets(arm=target, finger=0.0)
    world.step(250)
    assert world.time == pytest.approx(250 * world.physics_dt)
    pos, _, _ = world.joint_state()
    np.testing.assert_allclose(pos[:7], target, atol=0.01)
    assert pos[7] < 0.005 and pos[8] < 0.005  # fingers closed
    world.reset()
    pos, _, _ = world.joint_state()
    np.testing.assert_allclose(pos[:7], panda.home_joint_positions, atol=1e-9)
    assert world.steps == 0


def test_the_camera_process_renders_what_the_world_renders(world):
    world.reset()
    joints, _, _ = world.joint_state()
    poses = world.object_poses()
    camera = CameraProcess()
    try:
        image = camera.render(joints, poses, 48, 32)
    finally:
        camera.close()
    assert image.shape == (32, 48, 3) and image.dtype == np.uint8
    np.testing.assert_array_equal(image, world.render(48, 32))
    assert image.std() > 0  # not a blank frame


def test_a_cell_change_sets_the_masses_and_frictions_and_outlives_a_reset():
    from pybullet import getDynamicsInfo

    from miles_ros.runtime.scene_world import CellChange
    from sims.backends.pybullet.spec import FINGER_LATERAL_FRICTION, TABLE_LATERAL_FRICTION

    scene = load_scene()
    world = SceneWorld(scene)
    try:
        change = CellChange(
            cube_mass_scale=3.0, table_friction_scale=0.5, finger_friction_scale=0.25
        )
        world.set_change(change)
        world.reset()
        cid, bullet = world.client, world.world
        for body in world.cubes.values():
            assert getDynamicsInfo(body, -1, physicsClientId=cid)[0] == pytest.approx(
                3.0 * scene.cube_mass
            )
        table = getDynamicsInfo(bullet.table, -1, physicsClientId=cid)[1]
        assert table == pytest.approx(0.5 * TABLE_LATERAL_FRICTION)
        for j in bullet.finger_joints:
            finger = getDynamicsInfo(bullet.robot, j, physicsClientId=cid)[1]
            assert finger == pytest.approx(0.25 * FINGER_LATERAL_FRICTION)
        world.set_change(CellChange())  # and back to the nominal cell
        for body in world.cubes.values():
            mass = getDynamicsInfo(body, -1, physicsClientId=cid)[0]
            assert mass == pytest.approx(scene.cube_mass)
    finally:
        world.close()


def test_a_cell_change_out_of_range_is_refused():
    from miles_ros.runtime.scene_world import CellChange

    with pytest.raises(ValueError, match="cube_mass_scale"):
        CellChange(cube_mass_scale=0.0)
    with pytest.raises(ValueError, match="finger_reading"):
        CellChange(finger_reading=0.05)


def test_the_reported_finger_positions_sum_to_the_reported_width():
    from miles_ros.runtime.scene_world import reported_finger_positions
    from sims.tasks.base import reported_finger_width

    held = [0.02, 0.021]  # a 4.1 cm opening: a held cube
    shifted = reported_finger_positions(held, 0.009)
    assert sum(shifted) == pytest.approx(float(reported_finger_width(sum(held), 0.009)))
    assert sum(shifted) == pytest.approx(sum(held) + 0.009)
    assert shifted[0] - shifted[1] == pytest.approx(held[0] - held[1])  # split evenly
    open_ = [panda.finger_position_max] * 2  # the open gripper reads its full opening
    assert reported_finger_positions(open_, 0.009) == pytest.approx(open_)
    assert reported_finger_positions(held, 0.0) == held


def test_a_cube_is_placed_at_rest_where_asked(world):
    world.place_object("red_cube", (0.5, -0.05, 0.02), yaw=0.3)
    world.step(50)
    pose = world.object_poses()["red_cube"]
    np.testing.assert_allclose(pose.position, (0.5, -0.05, 0.02), atol=2e-3)
    assert pose.yaw == pytest.approx(0.3, abs=1e-2)
    with pytest.raises(KeyError, match="purple_cube"):
        world.place_object("purple_cube", (0.5, 0.0, 0.02))
    world.reset()
