"""The camera model (sims/camera.py): projection and back-projection are inverses, the
rendered depth is metric and lands where the model says, and the scene's camera section is
checked."""

import math

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sims.camera import (
    CameraIntrinsics,
    CameraNoise,
    CameraPose,
    add_noise,
    back_project,
    project,
    rotation_angle_deg,
    to_camera,
    to_scene,
)
from sims.scene import default_scene_path, load_scene, parse_scene

CAM = CameraIntrinsics.from_fov(640, 480, 42.0)
POSE = CameraPose.look_at((1.0, 0.0, 0.8), (0.45, 0.0, 0.0))

coord = st.floats(-0.4, 0.4, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(coord, coord, st.floats(0.0, 0.3, allow_nan=False))
def test_back_projection_inverts_projection(dx, dy, z):
    point = np.array([[0.45 + dx, dy, z]])
    uv, depth = project(point, CAM, POSE)
    assert depth[0] > 0
    back = to_scene(back_project(uv[:, 0], uv[:, 1], depth, CAM), POSE)
    assert np.allclose(back, point, atol=1e-9)


def test_look_at_puts_the_target_on_the_optical_axis_with_the_image_upright():
    c = to_camera([[0.45, 0.0, 0.0], [0.45, 0.0, 0.3]], POSE)
    assert c[0, :2] == pytest.approx([0.0, 0.0], abs=1e-12) and c[0, 2] > 0
    assert c[1, 1] < 0  # a point above the target is higher in the image (v smaller)
    uv, _ = project(np.array([[0.45, 0.1, 0.0]]), CAM, POSE)
    assert uv[0, 0] > CAM.cx  # +y (the robot's left) is on the image's right, seen from +x


def test_perturbed_pose_moves_by_about_the_asked_amount():
    rng = np.random.default_rng(0)
    moved = [POSE.perturbed(rng, 0.003, 0.3) for _ in range(400)]
    offsets = np.array([m.t - POSE.t for m in moved])
    angles = np.array([rotation_angle_deg(m.R, POSE.R) for m in moved])
    assert offsets.std() == pytest.approx(0.003, rel=0.15)
    # the angle of a rotation vector with 3 N(0, s) components: Maxwell, mean 2s*sqrt(2/pi)
    assert angles.mean() == pytest.approx(0.3 * 2 * math.sqrt(2 / math.pi), rel=0.15)


def test_noise_grows_with_distance_and_blanks_edges():
    rng = np.random.default_rng(1)
    depth = np.full((100, 200), 0.5, dtype=np.float32)
    depth[:, 100:] = 2.0
    rgb = np.full((100, 200, 3), 128, np.uint8)
    noisy_rgb, noisy = add_noise(rgb, depth, CameraNoise(invalid_fraction=0.0), rng)
    near, far = noisy[:, 2:98], noisy[:, 102:]
    assert np.all(near > 0) and np.all(far > 0)
    assert far.std() / near.std() == pytest.approx(16.0, rel=0.2)  # z^2
    assert np.all(noisy[:, 99:101] == 0)  # the step between 0.5 and 2 m has no depth
    assert noisy_rgb.dtype == np.uint8 and 0 < np.abs(noisy_rgb.astype(int) - 128).mean() < 4
    _, clean = add_noise(rgb, depth, CameraNoise.none(), rng)
    assert np.array_equal(clean, depth)


@pytest.mark.parametrize("std", [0.5, 2.0, 6.0])
def test_colour_noise_has_the_asked_spread_and_no_bias(std):
    rgb = np.full((200, 300, 3), 128, np.uint8)
    depth = np.ones((200, 300), np.float32)
    noisy, _ = add_noise(rgb, depth, CameraNoise(rgb_std=std), np.random.default_rng(2))
    steps = noisy.astype(int) - 128
    # whole levels, as an 8-bit image holds them: rounding adds 1/12 of a level's variance
    assert steps.std() == pytest.approx(math.sqrt(std**2 + 1 / 12), rel=0.1)
    assert abs(steps.mean()) < 0.02 and abs(np.median(steps)) <= 0.5
    # each channel of each pixel draws its own
    assert abs(np.corrcoef(steps[..., 0].ravel(), steps[..., 1].ravel())[0, 1]) < 0.02


def test_speckle_blanks_the_asked_share_of_pixels():
    depth = np.ones((300, 300), np.float32)
    noise = CameraNoise(invalid_fraction=0.05, rgb_std=0.0)
    _, noisy = add_noise(np.zeros((300, 300, 3), np.uint8), depth, noise, np.random.default_rng(3))
    assert (noisy == 0).mean() == pytest.approx(0.05, abs=0.005)


def test_rendered_depth_is_metric_and_lands_where_the_model_projects():
    from miles_ros.runtime.scene_world import SceneWorld

    scene = load_scene()
    world = SceneWorld(scene)
    try:
        rgb, depth, seg = world.world.render_rgbd(scene.camera.intrinsics, scene.camera.pose, True)
    finally:
        world.close()
    cam, pose = scene.camera.intrinsics, scene.camera.pose
    assert rgb.shape == (cam.height, cam.width, 3) and depth.shape == rgb.shape[:2]
    v, u = np.mgrid[0 : cam.height, 0 : cam.width]
    points = to_scene(back_project(u, v, depth, cam), pose).reshape(cam.height, cam.width, 3)
    half = scene.cube_size / 2
    for name, obj in scene.objects.items():
        body = world.world.decor[name]
        inside = points[seg == body]
        assert len(inside) > 200, name
        # every pixel of the cube back-projects into the cube (within a millimetre)
        assert np.all(np.abs(inside - obj.position) <= half + 1e-3), name
    table = points[seg == world.world.table]
    assert np.abs(table[:, 2]).max() < 1e-3


def test_an_arm_drawn_with_its_hulls_hides_what_the_detailed_arm_hides():
    """The live camera draws the arm with its collision hulls (camera_process.ARM_MESHES):
    seen from the scene's camera, reaching over the table, they cover the detailed arm's
    pixels and little more."""
    import pybullet as p

    from miles_ros.runtime.scene_world import SceneWorld

    scene = load_scene()
    masks = {}
    for meshes in ("visual", "collision"):
        world = SceneWorld(scene, arm_meshes=meshes)
        try:
            robot, client = world.world.robot, world.client
            hand = p.getNumJoints(robot, physicsClientId=client) - 1
            down = p.getQuaternionFromEuler([math.pi, 0.0, 0.0])
            q = p.calculateInverseKinematics(
                robot, hand, [0.5, 0.05, 0.15], down, maxNumIterations=200, physicsClientId=client
            )
            world.mirror([*q[:7], 0.04, 0.04], {})
            _, _, seg = world.world.render_rgbd(scene.camera.intrinsics, scene.camera.pose, True)
            masks[meshes] = seg == robot
        finally:
            world.close()
    detailed, hulls = masks["visual"], masks["collision"]
    assert detailed.sum() > 5000  # the arm is well in view
    assert (detailed & hulls).sum() / detailed.sum() > 0.99
    assert (detailed & hulls).sum() / (detailed | hulls).sum() > 0.9
    with pytest.raises(ValueError, match="meshes"):
        SceneWorld(scene, arm_meshes="wire")


def test_scene_camera_section_is_checked():
    data = yaml.safe_load(default_scene_path().read_text())
    assert parse_scene(data).camera.intrinsics.width == 640
    assert parse_scene({k: v for k, v in data.items() if k != "camera"}).camera is None
    for bad, words in [
        ({"resolution": [640]}, "resolution"),
        ({"vfov_deg": 0.0}, "vfov_deg"),
        ({"look_at": data["camera"]["position"]}, "same point"),
        ({"noise": {"depth_std": 0.1}}, "noise"),
        ({"noise": {"rgb_std": -1.0}}, ">= 0"),
        ({"zoom": 2}, "unknown keys"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_scene({**data, "camera": {**data["camera"], **bad}})
