"""The scene's cubes found by the AprilTags on their top faces, ROS-free: perception_node's
``mode: apriltag``, for cells whose cubes carry tags (the scene file's ``tag:``).

Tags are found by OpenCV's AprilTag decoder (``cv2.aruco``, tag36h11: :mod:`sims.tags`),
not by the AprilTag library. Each tag's four corners give its pose (``solvePnP`` with
``SOLVEPNP_IPPE_SQUARE``, the camera_info's K and distortion); the depth at the tag then
refines it (``TagConfig.use_depth``): a plane fitted to the tag's depth points gives its
normal, and the corners' rays meet that plane at the tag's corners in 3D, whose mean is
its centre and whose turn in the plane (a least-squares fit of the square to all four)
its x axis. A tag 20 pixels across puts the corners alone centimetres off along the
view (tests/perception/test_tags.py); the plane does not. The cube's centre is half an
edge below the tag's centre along its normal; its yaw is the tag's x axis about z,
modulo the cube's 90 degrees. A decoded tag is whole in view: its ``coverage`` is 1.

What a frame cannot say is said as a reason, as :class:`~miles_ros.perception.detect.
CubeDetector` says it: a cube whose tag is not found, and a tag id seen twice (that
cube is refused, as two blobs of one colour are). Ids that no cube of the scene carries
are ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from miles_ros.interfaces import PERCEPTION_APRILTAG, PERCEPTION_COLOUR, PERCEPTION_MODES
from miles_ros.perception.detect import CubeDetector, DetectConfig, Detection
from sims.camera import CameraIntrinsics, CameraPose, back_project, to_scene
from sims.scene import Scene
from sims.tags import TAG_FAMILY, tag_dictionary

COLOUR, APRILTAG, MODES = PERCEPTION_COLOUR, PERCEPTION_APRILTAG, PERCEPTION_MODES
"""perception_node's ``mode``: cubes by their colour and depth (:class:`CubeDetector`),
or by their AprilTags (:class:`TagDetector`)."""


@dataclass(frozen=True)
class TagConfig:
    """How tags are found and measured."""

    use_depth: bool = True
    """Refine each tag's pose with the depth at it (its plane); False: the corners alone."""
    min_depth_points: int = 12
    """Depth pixels on a tag needed to fit its plane; with fewer, the corners alone."""
    tag_margin: float = 0.15
    """The outer share of the tag (of its half edge) left out of the depth fit: edge pixels
    mix the face with what lies beyond it."""
    max_plane_rms_m: float = 0.004
    """A depth fit whose points lie further than this (RMS, m) from their plane is not a
    flat tag (a finger over it): the corners alone."""


def make_detector(
    mode: str, scene: Scene, camera_pose: CameraPose, config: DetectConfig | None = None
):
    """The detector of ``mode`` (one of :data:`MODES`) for ``scene``'s cubes seen from
    ``camera_pose``; ``config``: the colour detector's."""
    if mode == COLOUR:
        return CubeDetector(scene, camera_pose, config)
    if mode == APRILTAG:
        return TagDetector(scene, camera_pose)
    raise ValueError(f"unknown perception mode {mode!r}; known: {', '.join(MODES)}")


def detector_parameters():
    """OpenCV's detector settings for tags 15-25 pixels across, as a 640x480 camera a metre
    away sees a 3 cm tag (1.75-3 px a cell). Measured on 168 rendered tags at 8 places
    and 7 yaws, with the camera's noise:

    - corners refined by fitting lines to the tag's contour (``CORNER_REFINE_CONTOUR``):
      the yaw error's p95 1.5 deg, against 2.7 deg for sub-pixel corners;
      ``CORNER_REFINE_APRILTAG`` decoded none of these tags;
    - each cell read from an 8 x 8 pixel patch without its outer quarter
      (``perspectiveRemovePixelPerCell``, ``perspectiveRemoveIgnoredMarginPerCell``): 6
      tags not decoded, against 9 with OpenCV's 4 px and 13%; the ones left are tags
      square to the image far from the camera, whose rows are under 2 px a cell.

    The error correction stays OpenCV's (3 of 36h11's bits): correcting all 5 decoded
    3 more of the 168 but lets a random quad pass as a tag ~50 times as often."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_CONTOUR
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.25
    return params


class TagDetector:
    """Finds the scene's tagged cubes in frames of one camera (the interface of
    :class:`~miles_ros.perception.detect.CubeDetector`)."""

    def __init__(self, scene: Scene, camera_pose: CameraPose, config: TagConfig | None = None):
        self.scene = scene
        self.pose = camera_pose
        self.config = config or TagConfig()
        self.cube_size = scene.cube_size
        self.cube_names = list(scene.objects)
        self.by_id = scene.tags
        """Cube name by tag id."""
        self.detector = cv2.aruco.ArucoDetector(tag_dictionary(), detector_parameters())

    def find_tags(self, rgb: np.ndarray) -> tuple[list[int], list[np.ndarray]]:
        """Every tag36h11 tag in the picture: ids and corners [4, 2] (pixels, the tag's
        top-left, top-right, bottom-right, bottom-left as printed)."""
        gray = cv2.cvtColor(np.asarray(rgb, dtype=np.uint8), cv2.COLOR_RGB2GRAY)
        corners, ids, _ = self.detector.detectMarkers(gray)
        if ids is None:
            return [], []
        return [int(i) for i in ids.ravel()], [c.reshape(4, 2).astype(np.float64) for c in corners]

    def detect(
        self, rgb: np.ndarray, depth: np.ndarray, intrinsics: CameraIntrinsics
    ) -> tuple[dict[str, Detection], dict[str, str]]:
        """The tagged cubes measured in this frame, and for every other cube the reason it
        was not (``rgb`` uint8 [H, W, 3]; ``depth`` [H, W] m along the view, 0 = none)."""
        ids, corners = self.find_tags(rgb)
        seen: dict[int, list[np.ndarray]] = {}
        for tag_id, quad in zip(ids, corners, strict=True):
            if tag_id in self.by_id:  # any other id is no cube of this scene
                seen.setdefault(tag_id, []).append(quad)
        depth = np.where(np.isfinite(depth), depth, 0.0)
        found: dict[str, Detection] = {}
        reasons: dict[str, str] = {}
        for name in self.cube_names:
            tag = self.scene.objects[name].tag
            if tag is None:
                reasons[name] = f"{name} has no tag in the scene file: apriltag mode cannot see it"
                continue
            quads = seen.get(tag.id, [])
            if not quads:
                reasons[name] = f"{name} not seen: its tag {tag.id} ({TAG_FAMILY}) not found"
                continue
            if len(quads) > 1:
                where = " and ".join(
                    f"({q[:, 0].mean():.0f}, {q[:, 1].mean():.0f})" for q in quads
                )
                reasons[name] = (
                    f"{name} ambiguous: its tag {tag.id} seen {len(quads)} times, at pixels "
                    f"{where}"
                )
                continue
            found[name] = self._measure(quads[0], tag.size, depth, intrinsics)
        return found, reasons

    def _measure(self, quad, size, depth, intrinsics: CameraIntrinsics) -> Detection:
        """The cube under a tag of edge ``size`` whose corners are ``quad``."""
        rotation, centre, points = self._tag_pose(quad, size, depth, intrinsics)
        axes = self.pose.R @ rotation  # the tag's axes in the scene frame
        top = to_scene(centre[None], self.pose)[0]
        position = top - axes[:, 2] * self.cube_size / 2
        yaw = math.atan2(axes[1, 0], axes[0, 0])
        yaw = (yaw + math.pi / 4) % (math.pi / 2) - math.pi / 4
        area = 0.5 * abs(
            float(
                np.dot(quad[:, 0], np.roll(quad[:, 1], 1))
                - np.dot(quad[:, 1], np.roll(quad[:, 0], 1))
            )
        )
        return Detection(position, yaw, int(round(area)), points, 1.0)

    def _tag_pose(self, quad, size, depth, intrinsics: CameraIntrinsics):
        """The tag's axes [3, 3] (columns x, y, normal) and centre [3] in the camera's
        optical frame, and the depth points that refined them (0: the corners alone)."""
        h = size / 2.0
        square = np.array([[-h, h, 0.0], [h, h, 0.0], [h, -h, 0.0], [-h, -h, 0.0]])
        distortion = np.asarray(intrinsics.distortion, dtype=np.float64)
        _, rvecs, tvecs, errors = cv2.solvePnPGeneric(
            square, quad, intrinsics.K, distortion, flags=cv2.SOLVEPNP_IPPE_SQUARE
        )
        solutions = [(cv2.Rodrigues(r)[0], t.ravel()) for r, t in zip(rvecs, tvecs, strict=True)]
        plane = self._depth_plane(quad, depth, intrinsics) if self.config.use_depth else None
        if plane is None:
            rotation, centre = solutions[int(np.argmin(np.ravel(errors)))]
            return rotation, centre, 0
        normal, point, count = plane
        # The corners where their rays meet the plane: the tag as the camera saw it,
        # scale and tilt from the depth, its turn in the plane from all four corners.
        uv = self._undistorted(quad, intrinsics)
        rays = back_project(uv[:, 0], uv[:, 1], np.ones(4), intrinsics)
        corners = rays * (float(point @ normal) / (rays @ normal))[:, None]
        centre = corners.mean(axis=0)
        # IPPE's two solutions differ in the tilt; the plane picks the x axis to start from.
        rotation, _ = max(solutions, key=lambda s: float(s[0][:, 2] @ normal))
        x = rotation[:, 0] - (rotation[:, 0] @ normal) * normal
        x /= np.linalg.norm(x)
        y = np.cross(normal, x)
        seen = np.column_stack([(corners - centre) @ x, (corners - centre) @ y])
        turn = math.atan2(
            float(np.sum(square[:, 0] * seen[:, 1] - square[:, 1] * seen[:, 0])),
            float(np.sum(square[:, 0] * seen[:, 0] + square[:, 1] * seen[:, 1])),
        )
        x, y = math.cos(turn) * x + math.sin(turn) * y, -math.sin(turn) * x + math.cos(turn) * y
        return np.column_stack([x, y, normal]), centre, count

    def _depth_plane(self, quad, depth, intrinsics: CameraIntrinsics):
        """The tag's plane from its depth pixels: (unit normal towards the camera, a point
        on it, points used) in the optical frame, or None when the depth cannot say."""
        cfg = self.config
        centre = quad.mean(axis=0)
        inner = np.rint(centre + (quad - centre) * (1.0 - cfg.tag_margin)).astype(np.int32)
        height, width = depth.shape
        u0, v0 = np.clip(inner.min(axis=0), 0, (width - 1, height - 1))
        u1, v1 = np.clip(inner.max(axis=0) + 1, 1, (width, height))
        window = depth[v0:v1, u0:u1]  # the tag's bounding box: work inside it only
        mask = np.zeros(window.shape, dtype=np.uint8)
        cv2.fillConvexPoly(mask, inner - (u0, v0), 1)
        v, u = np.nonzero(mask & (window > 0))
        u, v = u + u0, v + v0
        if len(u) < cfg.min_depth_points:
            return None
        uv = self._undistorted(np.column_stack([u, v]).astype(np.float64), intrinsics)
        points = back_project(uv[:, 0], uv[:, 1], depth[v, u], intrinsics)
        mean = points.mean(axis=0)
        _, singular, vt = np.linalg.svd(points - mean, full_matrices=False)
        if singular[2] / math.sqrt(len(points)) > cfg.max_plane_rms_m:
            return None
        normal = vt[2] if vt[2] @ mean < 0 else -vt[2]
        return normal, mean, len(points)

    @staticmethod
    def _undistorted(pixels: np.ndarray, intrinsics: CameraIntrinsics) -> np.ndarray:
        if not any(intrinsics.distortion):
            return pixels
        return cv2.undistortPoints(
            pixels.reshape(-1, 1, 2),
            intrinsics.K,
            np.asarray(intrinsics.distortion),
            P=intrinsics.K,
        ).reshape(-1, 2)
