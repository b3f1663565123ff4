"""The camera's pose in the scene, measured: the arm puts a target (one of the scene's
cubes) at known places, the camera measures each, and the rigid transform that maps the
camera's measurements onto the known places is the camera's pose.

What a cell knows, and nothing more: the *known* points are where the arm released the
target (its TCP, so they carry the arm's placement error: :data:`PLACEMENT_STD_M`); the
*measured* points are the target as the camera saw it, in the camera's optical frame.
:class:`miles_ros.perception.CubeDetector` works in the scene frame through the pose the
cell believes; mapping its result back with that same pose (:func:`sims.camera.to_camera`)
gives the point the camera saw, whatever the believed pose was. That is exact for a rigid
fit; the detector's only use of the scene's "up" is the band of points it takes for the
top face (6 mm), which a believed pose tilted by tenths of a degree tips by a fraction of
a millimetre over a 4 cm face. The point used is the top face's centre, which the
detector measures directly (the cube's centre lies half a cube below it along the
believed "up", which a tilt would move).

The placements are spread over the workspace in x and y and stand at two heights: on the
table, and on top of a second cube the arm stacked first (the target rests on it, so its
height is known without the arm). A plane of points would do (three non-collinear points
fix a rigid transform); the second height makes the solve better conditioned.

:func:`solve_extrinsics` is the least-squares rigid transform (Kabsch). In simulation,
:func:`calibrate_in_sim` runs the whole procedure in PyBullet against the camera pose the
sim node would render from for a given ``camera_seed``
(:meth:`sims.camera.CameraConfig.mounted_pose`), so its result fits that run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from miles_ros.perception.detect import CubeDetector
from sims.camera import CameraPose, add_noise, rotation_angle_deg, to_camera, to_scene
from sims.scene import Scene

MIN_POINTS = 3
"""Point pairs a rigid transform needs."""
MIN_SPREAD_M = 0.01
"""The points must stand at least this far (RMS, m) from the line that fits them best: on
a line, the rotation about it is unknown."""
PLACEMENT_STD_M = 0.0005
"""The arm's error placing the target, per horizontal axis (m): a Panda's repeatability
(0.1 mm) plus the cube settling as the gripper opens."""
PARKED_JOINTS = (math.pi * 0.9, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8)
"""An arm pose turned away from the table (behind its base): out of the camera's view."""
HIDDEN_Z = -0.5
"""Where the cubes not used stand during a calibration (m): under the table, out of view."""


class CalibrationRefused(ValueError):
    """Points that cannot give a camera pose; the message says why."""


def solve_extrinsics(points_camera, points_scene) -> tuple[CameraPose, np.ndarray]:
    """The camera pose (scene from optical frame) that maps ``points_camera`` [N, 3] (the
    optical frame) onto ``points_scene`` [N, 3] best in least squares, and each pair's
    residual (m) [N]: Kabsch's solution (the SVD of the cross-covariance, with the sign of
    the smallest singular direction chosen so the result is a rotation, never a
    reflection); rigid, no scale. N >= 3 pairs spread off a line, else
    :class:`CalibrationRefused`."""
    cam = np.asarray(points_camera, dtype=np.float64)
    scene = np.asarray(points_scene, dtype=np.float64)
    if cam.ndim != 2 or cam.shape[1:] != (3,) or cam.shape != scene.shape:
        raise CalibrationRefused(
            f"expected two [N, 3] arrays of matching points, got {cam.shape} and {scene.shape}"
        )
    if len(cam) < MIN_POINTS:
        raise CalibrationRefused(f"{len(cam)} point pairs; a camera pose needs {MIN_POINTS}")
    if not (np.all(np.isfinite(cam)) and np.all(np.isfinite(scene))):
        raise CalibrationRefused("a point is not finite (NaN or inf)")
    cam_mean, scene_mean = cam.mean(axis=0), scene.mean(axis=0)
    a, b = cam - cam_mean, scene - scene_mean
    for name, centred in (("camera", a), ("scene", b)):
        spread = np.linalg.svd(centred, compute_uv=False)
        off_line = math.sqrt(float(np.sum(spread[1:] ** 2)) / len(centred))
        if off_line < MIN_SPREAD_M:
            raise CalibrationRefused(
                f"the {name} points lie on a line (RMS {off_line * 1e3:.2f} mm off it; at "
                f"least {MIN_SPREAD_M * 1e3:.0f} mm needed): the rotation about it is unknown"
            )
    u, _, vt = np.linalg.svd(a.T @ b)
    d = np.sign(np.linalg.det(vt.T @ u.T)) or 1.0
    rotation = vt.T @ np.diag([1.0, 1.0, d]) @ u.T
    pose = CameraPose.from_matrix(rotation, scene_mean - rotation @ cam_mean)
    residuals = np.linalg.norm(to_scene(cam, pose) - scene, axis=1)
    return pose, residuals


def pose_error(estimate: CameraPose, truth: CameraPose, points) -> dict[str, float]:
    """How far ``estimate`` is from ``truth``: the optical centre (mm), the rotation (deg),
    and what matters to perception, the mean and max displacement of scene ``points``
    [N, 3] seen by the true camera and placed with the estimate (mm)."""
    seen = to_scene(to_camera(points, truth), estimate)
    moved = np.linalg.norm(seen - np.asarray(points, dtype=np.float64), axis=1) * 1e3
    return {
        "position_mm": float(np.linalg.norm(estimate.t - truth.t) * 1e3),
        "rotation_deg": rotation_angle_deg(estimate.R, truth.R),
        "workspace_mean_mm": float(moved.mean()),
        "workspace_max_mm": float(moved.max()),
    }


def target_region(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """The corners (low, high) of the workspace in x, y (scene frame, m) where the skills
    work and the camera looks: in front of a single arm, the table's middle in a cell."""
    if not scene.multi_arm:
        return np.array([0.3, -0.28]), np.array([0.65, 0.28])
    centre = np.asarray(scene.table.center_xy, dtype=np.float64)
    return centre - (0.3, 0.12), centre + (0.3, 0.12)


def workspace_points(scene: Scene, n: int = 5) -> np.ndarray:
    """An n x n grid over :func:`target_region` at the height of a cube's centre [n*n, 3]."""
    low, high = target_region(scene)
    xs, ys = np.meshgrid(np.linspace(low[0], high[0], n), np.linspace(low[1], high[1], n))
    return np.column_stack([xs.ravel(), ys.ravel(), np.full(n * n, scene.cube_size / 2)])


@dataclass(frozen=True)
class Placement:
    """One place the arm puts the target."""

    xy: tuple[float, float]
    """Where the arm releases it (scene frame, m)."""
    stacked: bool
    """On top of the support cube (placed first at the same xy), else on the table."""

    def known_top(self, cube_size: float) -> np.ndarray:
        """The centre of the target's top face, as the arm knows it (m)."""
        levels = 2 if self.stacked else 1
        return np.array([self.xy[0], self.xy[1], levels * cube_size])


def placement_plan(scene: Scene, count: int, rng: np.random.Generator) -> list[Placement]:
    """``count`` placements spread over :func:`target_region`: one in each cell of a grid
    (jittered within the cell), every other one stacked."""
    if count < MIN_POINTS:
        raise CalibrationRefused(f"{count} placements; a camera pose needs {MIN_POINTS}")
    low, high = target_region(scene)
    cols = max(2, math.ceil(math.sqrt(count * (high[0] - low[0]) / (high[1] - low[1]))))
    rows = math.ceil(count / cols)
    cells = rng.permutation(rows * cols)[:count]
    cell_size = (high - low) / (cols, rows)
    margin = scene.cube_size / cell_size  # keep a cube's size from the cell's sides
    placements = []
    for k, cell in enumerate(sorted(cells)):
        col, row = cell % cols, cell // cols
        frac = rng.uniform(np.minimum(margin, 0.5), np.maximum(1.0 - margin, 0.5))
        xy = low + (np.array([col, row]) + frac) * cell_size
        placements.append(Placement((float(xy[0]), float(xy[1])), stacked=k % 2 == 1))
    return placements


def measured_top(detector: CubeDetector, rgb, depth, intrinsics, name: str) -> np.ndarray | str:
    """The centre of cube ``name``'s top face in the optical frame, as this frame shows it
    (m) [3], or the reason the frame does not show it."""
    found, reasons = detector.detect(rgb, depth, intrinsics)
    if name not in found:
        return reasons.get(name, f"{name} not measured")
    top = found[name].position + (0.0, 0.0, detector.cube_size / 2)
    return to_camera(top[None], detector.pose)[0]


@dataclass(frozen=True)
class SimCalibration:
    """What :func:`calibrate_in_sim` measured."""

    pose: CameraPose
    """The calibrated pose (scene from optical frame)."""
    residuals: np.ndarray
    """Per placement (m) [N]."""
    placements: tuple[Placement, ...]
    target: str
    support: str
    truth: CameraPose
    """Where the simulated camera really was (scoring only: a real cell never knows it)."""
    error: dict[str, float]
    """:func:`pose_error` of the calibrated pose against the truth."""
    error_before: dict[str, float]
    """:func:`pose_error` of the nominal pose (what the cell believed before)."""

    @property
    def residual_rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.residuals**2)) * 1e3)


def calibrate_in_sim(
    scene: Scene,
    camera_seed: int = 0,
    poses: int = 12,
    seed: int = 0,
    placement_std_m: float = PLACEMENT_STD_M,
) -> SimCalibration:
    """Calibrate ``scene``'s camera in PyBullet: the camera where the sim node with this
    ``camera_seed`` mounts it, the scene's first cube as the target and its second as the
    support, ``poses`` placements (:func:`placement_plan`, the arm's placement error drawn
    from ``seed``), the arm parked out of view, each frame through the camera's noise
    model. Then the solve; and once more with the detector looking through the pose just
    found, which takes away the small tilt of its top-face band."""
    from miles_ros.runtime.scene_world import BodyPose, SceneWorld
    from sims.robots import panda

    cam = scene.camera
    if cam is None:
        raise CalibrationRefused("the scene has no camera: section")
    if len(scene.objects) < 2:
        raise CalibrationRefused("the scene needs two cubes: a target and one to stack it on")
    target, support = list(scene.objects)[:2]
    truth = cam.mounted_pose(np.random.default_rng(camera_seed))
    rng = np.random.default_rng(seed)
    plan = placement_plan(scene, poses, rng)
    s = scene.cube_size
    upright = (0.0, 0.0, 0.0, 1.0)
    hidden = {
        name: BodyPose((0.0, 3.0 * k, HIDDEN_Z), upright) for k, name in enumerate(scene.objects)
    }
    fingers = [panda.finger_position_max] * 2
    world = SceneWorld(scene)
    frames = []
    try:
        parked = {arm: [*PARKED_JOINTS, *fingers] for arm in world.arm_names}
        for placement in plan:
            # The arm's placement error: the cubes stand a little off where it let go.
            poses_now = dict(hidden)
            x, y = placement.xy
            if placement.stacked:
                sx, sy = np.array([x, y]) + rng.normal(0.0, placement_std_m, 2)
                poses_now[support] = BodyPose((sx, sy, s / 2), upright)
            tx, ty = np.array([x, y]) + rng.normal(0.0, placement_std_m, 2)
            z = (1.5 if placement.stacked else 0.5) * s
            poses_now[target] = BodyPose((tx, ty, z), upright)
            world.mirror(parked if scene.multi_arm else parked[""], poses_now)
            rgb, depth = world.render_rgbd(cam.intrinsics, truth)
            frames.append(add_noise(rgb, depth, cam.noise, rng))
    finally:
        world.close()

    known = np.array([p.known_top(s) for p in plan])
    pose = cam.believed_pose
    for _ in range(2):  # through the believed pose, then through the first solution
        detector = CubeDetector(scene, pose)
        measured = []
        for placement, (rgb, depth) in zip(plan, frames, strict=True):
            point = measured_top(detector, rgb, depth, cam.intrinsics, target)
            if isinstance(point, str):
                raise CalibrationRefused(f"placement at {placement.xy}: {point}")
            measured.append(point)
        pose, residuals = solve_extrinsics(np.array(measured), known)
    grid = workspace_points(scene)
    return SimCalibration(
        pose=pose,
        residuals=residuals,
        placements=tuple(plan),
        target=target,
        support=support,
        truth=truth,
        error=pose_error(pose, truth, grid),
        error_before=pose_error(cam.believed_pose, truth, grid),
    )


def calibration_section(
    pose: CameraPose, residual_rms_mm: float, poses: int, date: str, command: str
) -> dict:
    """``camera.calibration`` of a scene file (the keys :func:`sims.scene.load_scene`
    reads), plain YAML types."""
    from sims.camera import quaternion_from_rotation

    return {
        "position": [round(float(v), 6) for v in pose.t],
        "orientation": [round(v, 9) for v in quaternion_from_rotation(pose.R)],
        "residual_rms_mm": round(float(residual_rms_mm), 3),
        "poses": int(poses),
        "date": date,
        "command": command,
    }
