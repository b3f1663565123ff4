"""An RGB-D camera: pinhole intrinsics, a pose in the scene, and a depth-camera noise model.

The one place for the camera's maths: projecting points to pixels and pixels back to
points, the OpenGL matrices PyBullet renders with (built from the same intrinsics, so a
rendered pixel and :func:`project` agree), the depth buffer made metric, and the noise
a real depth camera adds. The simulator renders with it; the perception code
(``miles_ros/perception``) back-projects with it; calibration estimates its pose.

Frames: the camera's *optical* frame as ROS and OpenCV use it (x right, y down, z along
the view); :class:`CameraPose` places it in the scene frame (the robot base of a one-arm
scene, the world frame of a cell). Pixels: OpenCV's convention, the centre of the top-left
pixel at (0, 0); ``u`` along a row, ``v`` down the columns.

>>> cam = CameraIntrinsics.from_fov(640, 480, 42.0)
>>> pose = CameraPose.look_at((1.0, 0.0, 0.8), (0.45, 0.0, 0.0))
>>> uv, z = project(np.array([[0.45, 0.0, 0.0]]), cam, pose)
>>> np.round(uv, 3).tolist(), round(float(z[0]), 4)
([[319.5, 239.5]], 0.9708)
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass, field

import numpy as np

CAMERA_ARM_MESHES = "collision"
"""What the simulated camera draws the arms with (:data:`sims.backends.pybullet.urdf.
ARM_MESHES`): their collision hulls (~3.4k triangles), not the detailed meshes (~100k),
which cost ~15 ms of every 640x480 frame whether the arm is in view or not. The hulls are
the shape physics uses, a little fuller than the visual arm: they hide what the detailed
arm hides (99.8% of its pixels) and little more (tests/sims/test_camera.py)."""
DEPTH_NEAR = 0.05
"""Near clipping plane of the rendered depth (m)."""
DEPTH_FAR = 4.0
"""Far clipping plane of the rendered depth (m); beyond it a pixel has no depth."""


@dataclass(frozen=True)
class CameraIntrinsics:
    """Pinhole intrinsics in pixels, as ``sensor_msgs/CameraInfo`` carries them."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    distortion: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    """plumb_bob (k1, k2, p1, p2, k3); the simulated camera renders without distortion."""

    @classmethod
    def from_fov(cls, width: int, height: int, vfov_deg: float) -> CameraIntrinsics:
        """Square pixels, the principal point at the image centre, ``vfov_deg`` top to
        bottom."""
        f = (height / 2.0) / math.tan(math.radians(vfov_deg) / 2.0)
        return cls(int(width), int(height), f, f, (width - 1) / 2.0, (height - 1) / 2.0)

    @property
    def K(self) -> np.ndarray:  # noqa: N802 (the camera matrix's usual name)
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class CameraPose:
    """Where the camera's optical frame stands in the scene frame."""

    position: tuple[float, float, float]
    """Origin of the optical frame (m)."""
    rotation: tuple[tuple[float, float, float], ...]
    """3x3 rotation, scene from optical frame (its columns: the optical x, y, z axes)."""

    @classmethod
    def look_at(cls, eye, target, up=(0.0, 0.0, 1.0)) -> CameraPose:
        """A camera at ``eye`` looking at ``target``, image up towards ``up``."""
        eye, target, up = (np.asarray(v, dtype=np.float64) for v in (eye, target, up))
        z = target - eye
        z /= np.linalg.norm(z)
        x = np.cross(z, up)
        if np.linalg.norm(x) < 1e-9:
            raise ValueError("look_at: the view is parallel to 'up'; choose another up")
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        return cls.from_matrix(np.column_stack([x, y, z]), eye)

    @classmethod
    def from_matrix(cls, rotation, position) -> CameraPose:
        r = np.asarray(rotation, dtype=np.float64).reshape(3, 3)
        if not np.allclose(r @ r.T, np.eye(3), atol=1e-6) or np.linalg.det(r) < 0:
            raise ValueError("CameraPose: the rotation is not a rotation matrix")
        return cls(tuple(map(float, np.ravel(position)[:3])), tuple(map(tuple, r.tolist())))

    @property
    def R(self) -> np.ndarray:  # noqa: N802
        return np.array(self.rotation, dtype=np.float64)

    @property
    def t(self) -> np.ndarray:
        return np.array(self.position, dtype=np.float64)

    def matrix(self) -> np.ndarray:
        """4x4 homogeneous transform, scene from optical frame."""
        m = np.eye(4)
        m[:3, :3], m[:3, 3] = self.R, self.t
        return m

    def perturbed(self, rng: np.random.Generator, position_std: float, angle_std_deg: float):
        """This pose moved by a random offset (m) and turned about a random axis (deg),
        each component drawn with the given standard deviation: a calibration error."""
        rotvec = rng.normal(0.0, math.radians(angle_std_deg), 3)
        return CameraPose.from_matrix(
            rotation_from_vector(rotvec) @ self.R, self.t + rng.normal(0.0, position_std, 3)
        )


def rotation_from_vector(rotvec) -> np.ndarray:
    """Rodrigues: the rotation by |v| rad about v."""
    v = np.asarray(rotvec, dtype=np.float64)
    angle = float(np.linalg.norm(v))
    if angle < 1e-12:
        return np.eye(3)
    k = v / angle
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * kx + (1.0 - math.cos(angle)) * kx @ kx


def quaternion_from_rotation(rotation) -> tuple[float, float, float, float]:
    """A rotation matrix as a unit quaternion (x, y, z, w), w >= 0 (ROS's order)."""
    r = np.asarray(rotation, dtype=np.float64).reshape(3, 3)
    # The largest of the four squared components first: no division by a small number.
    squares = np.array(
        [
            1.0 + r[0, 0] - r[1, 1] - r[2, 2],
            1.0 - r[0, 0] + r[1, 1] - r[2, 2],
            1.0 - r[0, 0] - r[1, 1] + r[2, 2],
            1.0 + r[0, 0] + r[1, 1] + r[2, 2],
        ]
    )
    k = int(np.argmax(squares))
    big = math.sqrt(max(squares[k], 0.0)) / 2.0
    f = 1.0 / (4.0 * big)
    if k == 0:
        q = (big, (r[0, 1] + r[1, 0]) * f, (r[0, 2] + r[2, 0]) * f, (r[2, 1] - r[1, 2]) * f)
    elif k == 1:
        q = ((r[0, 1] + r[1, 0]) * f, big, (r[1, 2] + r[2, 1]) * f, (r[0, 2] - r[2, 0]) * f)
    elif k == 2:
        q = ((r[0, 2] + r[2, 0]) * f, (r[1, 2] + r[2, 1]) * f, big, (r[1, 0] - r[0, 1]) * f)
    else:
        q = ((r[2, 1] - r[1, 2]) * f, (r[0, 2] - r[2, 0]) * f, (r[1, 0] - r[0, 1]) * f, big)
    q = np.asarray(q) * (1.0 if q[3] >= 0 else -1.0)
    return tuple(float(v) for v in q / np.linalg.norm(q))


def rotation_from_quaternion(quaternion) -> np.ndarray:
    """A quaternion (x, y, z, w; normalised here) as a rotation matrix."""
    q = np.asarray(quaternion, dtype=np.float64).ravel()
    norm = float(np.linalg.norm(q)) if q.shape == (4,) else 0.0
    if not norm > 1e-9:
        raise ValueError(f"expected a quaternion (x, y, z, w) of non-zero length, got {q}")
    x, y, z, w = q / norm
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def rotation_angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    """The angle of the rotation between two rotation matrices (deg)."""
    c = (np.trace(np.asarray(a).T @ np.asarray(b)) - 1.0) / 2.0
    return math.degrees(math.acos(float(np.clip(c, -1.0, 1.0))))


@dataclass(frozen=True)
class CameraNoise:
    """What a structured-light / stereo depth camera (a RealSense D4xx) does to a frame.
    The simulator applies it; perception has to live with it."""

    depth_std_per_m2: float = 0.0025
    """Depth noise grows with the square of the distance: std = this * z^2 (m; 2.5 mm at
    1 m, a D435's subpixel-0.08 figure)."""
    edge_invalid_m: float = 0.02
    """A pixel whose depth differs from a neighbour's by more than this has none (0): the
    invalid band at object edges."""
    invalid_fraction: float = 0.002
    """Share of other pixels with no depth (speckle)."""
    rgb_std: float = 2.0
    """Colour noise per channel (of 255)."""
    drop_probability: float = 0.01
    """Chance that a frame never arrives."""
    latency_s: float = 0.04
    """From exposure to the frame's publication; the stamp is the exposure time."""
    extrinsic_position_std: float = 0.003
    """The mounting error, drawn once per run (:meth:`CameraConfig.mounted_pose`): where
    the camera really is against the scene file's nominal pose, an offset (m) ..."""
    extrinsic_angle_std_deg: float = 0.3
    """... and a turn about a random axis (deg)."""

    @classmethod
    def none(cls) -> CameraNoise:
        """A perfect camera (tests of the geometry)."""
        return cls(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class CameraCalibration:
    """A measured camera pose (``camera.calibration`` of a scene file, written by
    ``miles calibrate camera``) and what it rests on."""

    pose: CameraPose
    """Scene from optical frame, as measured."""
    residual_rms_mm: float
    """RMS distance between the known target points and the measured ones mapped by
    :attr:`pose` (mm): how well the measurements agree with one rigid pose."""
    poses: int
    """Target placements the pose was solved from."""
    date: str = ""
    """When it was measured (ISO 8601)."""
    command: str = ""
    """The command line that measured it."""


@dataclass(frozen=True)
class CameraConfig:
    """One camera of a scene file's ``camera:`` section."""

    intrinsics: CameraIntrinsics
    pose: CameraPose
    """The nominal mount pose (``position``, ``look_at``): where the camera was meant to
    stand. The simulator's camera is mounted here, off by the noise model's extrinsic
    error (:meth:`mounted_pose`)."""
    rate_hz: float = 15.0
    """Frames per second."""
    frame_id: str = "camera_color_optical_frame"
    """The optical frame's name (a RealSense driver's)."""
    noise: CameraNoise = field(default_factory=CameraNoise)
    """The simulated camera's noise (a real camera brings its own)."""
    calibration: CameraCalibration | None = None
    """The measured pose, when the camera has been calibrated."""

    @property
    def believed_pose(self) -> CameraPose:
        """Where the cell believes the camera is: the calibrated pose when there is one,
        else the nominal pose. Everything that turns pixels into scene points uses this."""
        return self.calibration.pose if self.calibration is not None else self.pose

    def mounted_pose(self, rng: np.random.Generator) -> CameraPose:
        """Where the simulated camera really is: the nominal pose off by a calibration
        error drawn from ``rng`` (the noise model's ``extrinsic_*``). The sim node's
        camera draws it first from ``default_rng(camera_seed)``; a calibration in sim
        draws the same to know the truth it measures."""
        return self.pose.perturbed(
            rng, self.noise.extrinsic_position_std, self.noise.extrinsic_angle_std_deg
        )


def to_camera(points, pose: CameraPose) -> np.ndarray:
    """Scene points [N, 3] in the optical frame."""
    return (np.asarray(points, dtype=np.float64) - pose.t) @ pose.R


def to_scene(points, pose: CameraPose) -> np.ndarray:
    """Optical-frame points [N, 3] in the scene frame."""
    return np.asarray(points, dtype=np.float64) @ pose.R.T + pose.t


def project(points, intrinsics: CameraIntrinsics, pose: CameraPose):
    """Scene points [N, 3] -> pixels [N, 2] (u, v) and their depth along the view [N] (m);
    no distortion (the simulated camera's)."""
    c = to_camera(points, pose)
    z = c[:, 2]
    k = intrinsics
    with np.errstate(divide="ignore", invalid="ignore"):
        uv = np.column_stack([k.fx * c[:, 0] / z + k.cx, k.fy * c[:, 1] / z + k.cy])
    return uv, z


def back_project(u, v, depth, intrinsics: CameraIntrinsics) -> np.ndarray:
    """Undistorted pixels (u, v) with their depth along the view (m) -> optical-frame points
    [N, 3]."""
    u, v, z = (np.asarray(a, dtype=np.float64).ravel() for a in (u, v, depth))
    return np.column_stack(
        [(u - intrinsics.cx) * z / intrinsics.fx, (v - intrinsics.cy) * z / intrinsics.fy, z]
    )


def gl_view_matrix(pose: CameraPose) -> list[float]:
    """PyBullet's view matrix (column-major 4x4, OpenGL's camera: y up, looking along -z)."""
    gl = pose.R * np.array([1.0, -1.0, -1.0])  # optical -> OpenGL camera axes
    view = np.eye(4)
    view[:3, :3] = gl.T
    view[:3, 3] = -gl.T @ pose.t
    return view.T.ravel().tolist()


def gl_projection_matrix(
    intrinsics: CameraIntrinsics, near: float = DEPTH_NEAR, far: float = DEPTH_FAR
) -> list[float]:
    """PyBullet's projection matrix (column-major) for these intrinsics: a scene point lands
    on the pixel :func:`project` gives (OpenGL's pixel edges are half a pixel off
    OpenCV's centres)."""
    w, h = intrinsics.width, intrinsics.height
    cx, cy = intrinsics.cx + 0.5, intrinsics.cy + 0.5
    m = np.zeros((4, 4))
    m[0, 0], m[0, 2] = 2.0 * intrinsics.fx / w, 1.0 - 2.0 * cx / w
    m[1, 1], m[1, 2] = 2.0 * intrinsics.fy / h, 2.0 * cy / h - 1.0
    m[2, 2], m[2, 3] = -(far + near) / (far - near), -2.0 * far * near / (far - near)
    m[3, 2] = -1.0
    return m.T.ravel().tolist()


def metric_depth(zbuffer, near: float = DEPTH_NEAR, far: float = DEPTH_FAR) -> np.ndarray:
    """OpenGL depth-buffer values in [0, 1] -> depth along the view (m); 0 where nothing was
    drawn (beyond ``far``)."""
    d = np.asarray(zbuffer, dtype=np.float64)
    z = far * near / (far - (far - near) * d)
    return np.where(d >= 1.0 - 1e-7, 0.0, z)


def add_noise(rgb: np.ndarray, depth: np.ndarray, noise: CameraNoise, rng: np.random.Generator):
    """``noise`` applied to one frame: (rgb uint8 [H, W, 3], depth float32 [H, W] in m, 0 =
    no depth). The frame drop and the latency are the caller's (they are about time).

    The depth noise is drawn in float32 and the colour noise from a table
    (:func:`colour_noise_levels`): the sim camera renders and noises every frame on the
    machine's CPU, and float64 normal draws for a 640x480 frame cost ~20 ms of it."""
    depth = np.asarray(depth, dtype=np.float32)
    valid = depth > 0
    out = rng.standard_normal(depth.shape, dtype=np.float32)
    out *= np.float32(noise.depth_std_per_m2) * depth * depth
    out += depth
    if noise.edge_invalid_m > 0:
        jump = np.zeros(depth.shape, dtype=bool)
        dx = np.abs(np.diff(depth, axis=1)) > noise.edge_invalid_m
        dy = np.abs(np.diff(depth, axis=0)) > noise.edge_invalid_m
        jump[:, 1:] |= dx
        jump[:, :-1] |= dx
        jump[1:, :] |= dy
        jump[:-1, :] |= dy
        valid &= ~jump
    if noise.invalid_fraction > 0:
        valid &= rng.random(depth.shape, dtype=np.float32) >= noise.invalid_fraction
    out[~valid] = 0.0
    if noise.rgb_std > 0:
        steps = colour_noise_levels(noise.rgb_std)[rng.integers(0, 256, rgb.shape, np.uint8)]
        rgb = np.clip(rgb + steps, 0, 255).astype(np.uint8)
    return rgb, out


@functools.lru_cache(maxsize=8)
def colour_noise_levels(std: float) -> np.ndarray:
    """The colour noise's 256 equally likely values (int16): a normal of ``std`` at its
    quantiles ``(i + 0.5) / 256``, rounded to whole levels as an 8-bit sensor reports
    them (tails beyond 2.66 std left out). A frame draws one byte per channel and looks
    its noise up here: a third of the time of normal draws, for noise that an 8-bit image
    could not tell apart from them."""
    normal = statistics.NormalDist(0.0, std)
    levels = [round(normal.inv_cdf((i + 0.5) / 256)) for i in range(256)]
    return np.asarray(levels, dtype=np.int16)
