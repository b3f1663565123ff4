"""Cubes found and fitted in RGB-D frames with known answers (ray-cast and rendered), and
every frame that cannot say where a cube is says why instead."""

import math

import cv2
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from miles_ros.perception import CubeDetector, DetectConfig, yaw_difference
from sims.camera import CameraIntrinsics, CameraPose
from sims.scene import load_scene
from tests.perception.synthetic import HAND_OVER, cast

SCENE = load_scene()
CAM = SCENE.camera
RED = tuple(int(round(c * 255)) for c in SCENE.objects["red_cube"].color[:3])
BLUE = tuple(int(round(c * 255)) for c in SCENE.objects["blue_cube"].color[:3])


YAW_BOUND_DEG = 4.0
"""The worst yaw error of a ray-cast cube: a cube turned 3-6 deg reads up to 3.5 deg off
(a 1,200-frame grid over x 0.33-0.62 m, y -0.28-0.28 m and yaws near 0; 5 frames over 3
deg), the top face's principal axis being ill-defined near a square's symmetry
(docs/perception.md, "Not done yet")."""


def detect(rgb, depth, intrinsics=CAM.intrinsics, pose=CAM.pose):
    return CubeDetector(SCENE, pose).detect(rgb, depth, intrinsics)


@settings(max_examples=25, deadline=None)
@given(
    # from 0.33 m: nearer the camera a cube turned 4-5 deg can read ~0 deg (4.5 deg off at
    # x = 0.32; docs/perception.md, "Not done yet")
    st.floats(0.33, 0.62),
    st.floats(-0.28, 0.28),
    st.floats(-math.pi, math.pi),
)
@example(0.5553496855594298, 0.0, 0.046875)  # 3.15 deg off: a small yaw, see YAW_BOUND_DEG
def test_a_ray_cast_cube_is_found_where_it_stands(x, y, yaw):
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [((x, y), yaw, RED)])
    found, reasons = detect(rgb, depth)
    assert set(found) == {"red_cube"}
    assert set(reasons) == {"green_cube", "blue_cube"}
    d = found["red_cube"]
    assert np.linalg.norm(d.position[:2] - (x, y)) < 0.0015  # a pixel is ~1.5 mm here
    assert d.position[2] == pytest.approx(SCENE.cube_size / 2, abs=0.0015)
    assert math.degrees(yaw_difference(d.yaw, yaw)) < YAW_BOUND_DEG
    assert d.coverage > 0.8


def test_a_lens_with_distortion_is_undone_before_back_projection():
    k = CAM.intrinsics
    distorted = CameraIntrinsics(
        k.width, k.height, k.fx, k.fy, k.cx, k.cy, (-0.35, 0.12, 0.001, -0.001, 0.0)
    )
    cubes = [((0.62, -0.3), 0.3, RED), ((0.33, 0.3), -0.2, BLUE)]  # near the corners
    rgb, depth = cast(distorted, CAM.pose, cubes)
    found, _ = detect(rgb, depth, distorted)
    for name, ((x, y), _, _) in zip(("red_cube", "blue_cube"), cubes, strict=True):
        assert np.linalg.norm(found[name].position[:2] - (x, y)) < 0.0015, name
    # read as if undistorted, the same pixels land centimetres away: the test has teeth
    wrong, _ = detect(rgb, depth, k)
    assert np.linalg.norm(wrong["red_cube"].position[:2] - (0.62, -0.3)) > 0.004


def test_a_rendered_cube_gives_its_yaw_at_known_angles():
    from miles_ros.runtime.scene_world import BodyPose, SceneWorld

    world = SceneWorld(SCENE)
    try:
        for degrees in (0.0, 10.0, 20.0, 30.0, 40.0, -25.0):
            yaw = math.radians(degrees)
            poses = dict(world.object_poses())
            poses["red_cube"] = BodyPose(
                (0.5, -0.05, 0.02), (0, 0, math.sin(yaw / 2), math.cos(yaw / 2))
            )
            world.mirror(world.joint_state()[0], poses)
            rgb, depth = world.world.render_rgbd(CAM.intrinsics, CAM.pose)
            found, _ = detect(rgb, depth)
            d = found["red_cube"]
            assert math.degrees(yaw_difference(d.yaw, yaw)) < 2.0, degrees
            assert np.linalg.norm(d.position - (0.5, -0.05, 0.02)) < 0.002, degrees
    finally:
        world.close()


def test_a_cube_outside_the_view_is_not_seen_and_says_so():
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [((0.45, 0.0), 0.0, RED), ((3.0, 2.0), 0.0, BLUE)])
    found, reasons = detect(rgb, depth)
    assert "red_cube" in found and "blue_cube" not in found
    assert "blue_cube not seen" in reasons["blue_cube"]


def test_two_blobs_of_one_colour_are_refused_not_averaged():
    rgb, depth = cast(
        CAM.intrinsics, CAM.pose, [((0.4, -0.15), 0.0, RED), ((0.55, 0.1), 0.0, RED)]
    )
    found, reasons = detect(rgb, depth)
    assert "red_cube" not in found
    assert "two red blobs" in reasons["red_cube"]


def test_a_cube_split_by_something_across_it_is_one_cube():
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [((0.45, 0.0), 0.0, RED)])
    v, u = np.nonzero(np.all(rgb == RED, axis=-1))
    column = int(np.median(u))
    rgb[:, column - 1 : column + 2] = (200, 200, 200)  # a grey finger across the cube
    found, _ = detect(rgb, depth)
    assert np.linalg.norm(found["red_cube"].position[:2] - (0.45, 0.0)) < 0.003


@pytest.mark.parametrize("bad", [0.0, np.nan])
def test_a_cube_without_depth_is_not_fitted(bad):
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [((0.45, 0.0), 0.0, RED)])
    depth[np.all(rgb == RED, axis=-1)] = bad
    found, reasons = detect(rgb, depth)
    assert "red_cube" not in found
    assert "without depth" in reasons["red_cube"]


def test_a_red_pad_flat_on_the_table_is_not_a_cube():
    # a red sticker: the colour is right but nothing stands above the table
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [])
    rgb[200:240, 300:340] = RED
    found, reasons = detect(rgb, depth)
    assert not found and "red_cube" in reasons


def test_a_looking_down_camera_agrees_with_an_oblique_one():
    down = CameraPose.look_at((0.45, 0.0, 0.9), (0.45, 0.0, 0.0), up=(1.0, 0.0, 0.0))
    rgb, depth = cast(CAM.intrinsics, down, [((0.5, 0.1), 0.4, RED)])
    found, _ = detect(rgb, depth, CAM.intrinsics, down)
    assert np.linalg.norm(found["red_cube"].position - (0.5, 0.1, 0.02)) < 0.0015
    assert math.degrees(yaw_difference(found["red_cube"].yaw, 0.4)) < 2.0


@pytest.mark.parametrize("hidden", HAND_OVER)
def test_a_top_face_partly_hidden_is_placed_from_the_edges_in_view(hidden):
    """A hand over part of a cube's top face: the centre midway between the seen edges
    would be off by half the hidden part, towards the part in view; the detector places
    it from the edges in view, whichever side is hidden."""
    cube = (0.45, 0.0)
    hand = [HAND_OVER[hidden]]
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [(cube, 0.1, RED)], occluders=hand)
    d = detect(rgb, depth)[0]["red_cube"]
    assert d.coverage > 0.3  # enough in view to be measured
    assert np.linalg.norm(d.position[:2] - cube) < 0.002
    assert math.degrees(yaw_difference(d.yaw, 0.1)) < 5.0  # the p95


def test_a_partly_hidden_face_fitted_midway_is_off():
    """The far half hidden, fitted midway between the seen edges (what the placement
    corrects): a centimetre off, so the test above tells the two apart."""
    from miles_ros.perception.detect import fit_square

    hand = [HAND_OVER["the far half"]]
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [((0.45, 0.0), 0.1, RED)], occluders=hand)
    detector = CubeDetector(SCENE, CAM.pose)
    mask = detector.labels(rgb) == detector.cube_names.index("red_cube")
    v, u = np.nonzero(mask & (depth > 0))
    points = detector._scene_points(u, v, depth[v, u], CAM.intrinsics)
    top = points[points[:, 2] > SCENE.cube_size - 0.006]
    _, centre, extent = fit_square(top[:, :2])
    assert min(extent) < SCENE.cube_size - 0.02  # a side seen half as long
    assert np.linalg.norm(centre - (0.45, 0.0)) > 0.01


def test_a_rectangle_keeps_its_sides_yaw():
    """Half a square (a rectangle 2:1) turned by 20 degrees: its fourth moment alone
    says 20 - 45 degrees; the fit keeps the yaw whose sides bound it tightest."""
    from miles_ros.perception.detect import fit_square

    a, b = np.meshgrid(np.linspace(-0.02, 0.02, 41), np.linspace(-0.01, 0.01, 21))
    theta = math.radians(20.0)
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    xy = np.column_stack([a.ravel(), b.ravel()]) @ rot.T + (0.45, 0.1)
    yaw, centre, extent = fit_square(xy)
    assert math.degrees(yaw_difference(yaw, theta)) < 0.5
    assert centre == pytest.approx([0.45, 0.1], abs=1e-3)
    assert sorted(extent) == pytest.approx([0.02, 0.04], abs=2e-3)


TILTED = DetectConfig(tilted_top_min_deg=5.0)


def tilted(axis_deg: float, tilt_deg: float, yaw: float = 0.0) -> np.ndarray:
    """A cube's rotation: turned by ``yaw`` about z, then tilted by ``tilt_deg`` about a
    horizontal axis ``axis_deg`` from x (a cube swinging in a grip)."""
    a = math.radians(axis_deg)
    tilt = np.array([math.cos(a), math.sin(a), 0.0]) * math.radians(tilt_deg)
    return cv2.Rodrigues(tilt)[0] @ cv2.Rodrigues(np.array([0.0, 0.0, yaw]))[0]


def held_cube(centre, rotation, config=None):
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [], posed=[(centre, rotation, RED)])
    return CubeDetector(SCENE, CAM.pose, config).detect(rgb, depth, CAM.intrinsics)[0]["red_cube"]


@pytest.mark.parametrize("tilt_deg", [0.0, 20.0, 25.0, 30.0])
def test_a_tilted_cube_is_centred_below_its_fitted_face(tilt_deg):
    """A cube held 12 cm up, tilted about a horizontal axis (45 deg from x): fitted as a
    flat top face its centre reads 4-8 mm off in xy from 20 deg; the face's plane fitted,
    under a millimetre, and the tilt said. Level, both fits are one."""
    centre = (0.45, 0.05, 0.12)
    flat = held_cube(centre, tilted(45.0, tilt_deg))
    plane = held_cube(centre, tilted(45.0, tilt_deg), TILTED)
    flat_error = np.linalg.norm(flat.position[:2] - centre[:2])
    plane_error = np.linalg.norm(plane.position[:2] - centre[:2])
    if tilt_deg == 0.0:
        assert np.array_equal(plane.position, flat.position) and plane.yaw == flat.yaw
        assert plane.tilt == 0.0 and flat_error < 0.0015
    else:
        assert flat_error > 0.004
        assert plane_error < 0.001
        assert plane.position[2] == pytest.approx(centre[2], abs=0.001)
        assert math.degrees(plane.tilt) == pytest.approx(tilt_deg, abs=1.0)
    assert flat.tilt == 0.0  # off: never fitted tilted


@settings(max_examples=30, deadline=None)
@given(
    st.floats(0.0, 180.0),  # the tilt's axis, from x
    st.floats(0.0, 35.0),
    st.floats(-math.pi, math.pi),
    st.floats(0.35, 0.6),
    st.floats(-0.2, 0.2),
    st.floats(0.08, 0.2),
)
def test_a_cube_tilted_any_way_in_view_is_placed_from_its_faces_plane(axis, tilt, yaw, x, y, z):
    """Any horizontal axis, tilts up to 35 deg, anywhere in view 8-20 cm up: the centre
    within 1.2 mm and the tilt within 2 deg where it tilts 8 deg or more; flatter, the
    flat fit (within 5 deg: level, or at most 2.5 mm off)."""
    d = held_cube((x, y, z), tilted(axis, tilt, yaw), TILTED)
    error = float(np.linalg.norm(d.position - (x, y, z)))
    if tilt >= 8.0:
        assert error < 0.0012
        assert math.degrees(d.tilt) == pytest.approx(tilt, abs=2.0)
    else:
        assert error < 0.0025
    if d.tilt == 0.0:
        assert tilt < 8.0


@pytest.mark.parametrize(
    ("axis", "tilt", "centre"),
    [(10.0, 32.0, (0.474, 0.0, 0.125)), (10.0, 33.0, (0.474, 0.0, 0.125))],
)
def test_a_cube_tilted_steeply_about_x_is_placed_from_its_faces_plane(axis, tilt, centre):
    """Once a miss (strict xfails): tilted 32-35 deg about an axis near x the top face is
    43% of the cube's points (the camera sees the +x side and the side tipped towards it),
    and none of the 64 planes then drawn (a fixed seed) went through three of its points;
    the best plane through three faces, refitted, was 3-7 deg flat, the centre 4-5 mm
    off. :data:`detect.TOP_PLANE_HYPOTHESES` draws enough for a face a third of the
    points."""
    d = held_cube(centre, tilted(axis, tilt, 0.0), TILTED)
    assert float(np.linalg.norm(d.position - centre)) < 0.0012
    assert math.degrees(d.tilt) == pytest.approx(tilt, abs=2.0)


@settings(max_examples=20, deadline=None)
@given(st.floats(-10.0, 10.0), st.floats(30.0, 35.0), st.floats(-math.pi, math.pi))
def test_a_cube_tilted_30_to_35_deg_about_x_is_placed_from_its_faces_plane(axis, tilt, yaw):
    """Where the top face is the smallest share of the cube's points (the poses above),
    drawn: tilted 30-35 deg about an axis within 10 deg of x, where the miss was."""
    centre = (0.474, 0.0, 0.125)
    d = held_cube(centre, tilted(axis, tilt, yaw), TILTED)
    assert float(np.linalg.norm(d.position - centre)) < 0.0012
    assert math.degrees(d.tilt) == pytest.approx(tilt, abs=2.0)


def test_a_tilted_face_mostly_under_the_hand_keeps_the_flat_fit():
    """A hand over all but a third of a tilted cube's top face: below
    ``tilted_top_min_coverage`` the flat fit stands (the detection is the flat one, tilt
    0); with no bar the plane is fitted. Noiseless, the strip's plane is right; in
    rendered, noisy frames such a strip's plane tilts with the noise (the setting's doc)."""
    centre = (0.45, 0.05, 0.12)
    hand = [((0.455, 0.05, 0.165), (0.03, 0.03, 0.005))]
    posed = [(centre, tilted(90.0, 20.0), RED)]
    rgb, depth = cast(CAM.intrinsics, CAM.pose, [], posed=posed, occluders=hand)

    def fitted(config):
        return CubeDetector(SCENE, CAM.pose, config).detect(rgb, depth, CAM.intrinsics)[0][
            "red_cube"
        ]

    flat, barred = fitted(None), fitted(TILTED)
    unbarred = fitted(DetectConfig(tilted_top_min_deg=5.0, tilted_top_min_coverage=0.0))
    assert unbarred.coverage < TILTED.tilted_top_min_coverage
    assert math.degrees(unbarred.tilt) == pytest.approx(20.0, abs=2.0)
    assert barred.tilt == 0.0 and np.array_equal(barred.position, flat.position)
