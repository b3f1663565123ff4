"""The scene's cubes found in one RGB-D frame, ROS-free: colour blobs (OpenCV), depth
back-projected into the scene frame, a cube's centre and yaw fitted to its top face.

What a frame cannot say is said as a reason, never as a pose: a cube not in view, one
whose blob has no depth, two blobs of one colour.

Colours: every pixel is labelled with the nearest of the scene's colours (cubes, pads,
table) in chromaticity, r / (r + g + b) and g / (r + g + b), which shading does not change
(a cube's lit top and its darker sides have one chromaticity). A cube's pixels are those
labelled with its colour, near enough to it, and standing above the table (a pad of a
similar colour lies flat on it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from sims.camera import CameraIntrinsics, CameraPose, back_project, project, to_scene
from sims.scene import Scene

LUT_BITS = 6
"""Colour bins per channel: 2^6 levels (a step of 4 of 255), fine against chromaticity
distances of ~0.07."""
LUT_SHIFT = 8 - LUT_BITS


@dataclass(frozen=True)
class DetectConfig:
    """How cubes are told apart from the rest of the picture."""

    max_chroma_distance: float = 0.07
    """A pixel belongs to a colour when its chromaticity lies this close to it (and no
    other scene colour is closer)."""
    min_brightness: float = 40.0
    """Darker pixels (r + g + b below this, of 765) carry no colour to judge."""
    min_height_m: float = 0.004
    """Cube points stand at least this high above the table (m); a pad does not."""
    min_pixels: int = 25
    """A blob smaller than this (pixels) is noise, not a cube."""
    min_depth_points: int = 12
    """A cube needs this many pixels with depth to be fitted."""
    top_band_m: float = 0.006
    """Points within this of the top face's height belong to it (m)."""
    edge_percentile: float = 2.0
    """A face's extent from this percentile to 100 minus it (robust to stray points)."""


@dataclass(frozen=True)
class Detection:
    """One cube measured in one frame, in the scene frame."""

    position: np.ndarray
    """Centre of the cube (m) [3]."""
    yaw: float
    """Rotation about z (rad), in [-pi/4, pi/4): a cube looks the same turned by 90 deg."""
    pixels: int
    """Pixels of the cube's blob."""
    top_points: int
    """Points on its top face used for the fit."""
    coverage: float
    """Share of the top face seen, 0..1 (the fit's confidence)."""


def yaw_difference(a: float, b: float) -> float:
    """Smallest angle between two cube yaws (rad), modulo the cube's 90-degree symmetry."""
    d = (a - b) % (math.pi / 2)
    return min(d, math.pi / 2 - d)


def chromaticity(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(r, g) chromaticity [..., 2] and brightness r + g + b [...] of colours in 0..255."""
    rgb = np.asarray(rgb, dtype=np.float32)
    total = rgb.sum(axis=-1)
    chroma = rgb[..., :2] / np.maximum(total, 1.0)[..., None]
    return chroma, total


class CubeDetector:
    """Finds the scene's cubes in frames of one camera."""

    def __init__(self, scene: Scene, camera_pose: CameraPose, config: DetectConfig | None = None):
        self.scene = scene
        self.pose = camera_pose
        self.config = config or DetectConfig()
        self.cube_names = list(scene.objects)
        colours = [scene.objects[n].color for n in self.cube_names]
        colours += [p.color for p in scene.places.values()] + [scene.table.color]
        self.palette = chromaticity(np.asarray(colours)[:, :3] * 255.0)[0]
        """Chromaticity of every scene colour: the cubes' first, then pads and table."""
        self.cube_size = scene.cube_size
        self.lut = self._colour_table()
        """Colour label of every quantised RGB (-1: none): the per-pixel lookup."""

    def _colour_table(self) -> np.ndarray:
        """The label (index into :attr:`palette`, -1 for none) of each of the
        2^(3 * LUT_BITS) colour bins, judged at the bin's centre."""
        cfg = self.config
        levels = (np.arange(1 << LUT_BITS) << LUT_SHIFT) + (1 << LUT_SHIFT) / 2
        r, g, b = np.meshgrid(levels, levels, levels, indexing="ij")
        chroma, brightness = chromaticity(np.stack([r, g, b], axis=-1).reshape(-1, 3))
        dist = np.linalg.norm(chroma[:, None, :] - self.palette[None], axis=-1)
        label = np.argmin(dist, axis=-1)
        ok = (dist[np.arange(len(label)), label] < cfg.max_chroma_distance) & (
            brightness >= cfg.min_brightness
        )
        return np.where(ok, label, -1).astype(np.int16)

    def detect(
        self, rgb: np.ndarray, depth: np.ndarray, intrinsics: CameraIntrinsics
    ) -> tuple[dict[str, Detection], dict[str, str]]:
        """The cubes measured in this frame, and for every other cube the reason it was
        not (``rgb`` uint8 [H, W, 3]; ``depth`` [H, W] m along the view, 0 = none)."""
        cfg = self.config
        label = self.labels(rgb)
        depth = np.where(np.isfinite(depth), depth, 0.0)
        found: dict[str, Detection] = {}
        reasons: dict[str, str] = {}
        for k, name in enumerate(self.cube_names):
            mask = label == k
            if int(mask.sum()) < cfg.min_pixels:
                reasons[name] = (
                    f"{name} not seen: no {colour_word(name)} blob in the camera's view"
                )
                continue
            result = self._fit(name, mask, depth, intrinsics)
            if isinstance(result, str):
                reasons[name] = result
            else:
                found[name] = result
        return found, reasons

    def labels(self, rgb: np.ndarray) -> np.ndarray:
        """Each pixel's colour label [H, W]: the index of its cube (in :attr:`cube_names`)
        or of a pad or the table after them, -1 for none."""
        rgb = np.asarray(rgb, dtype=np.uint8)
        bins = (rgb[..., 0] >> LUT_SHIFT).astype(np.int32) << (2 * LUT_BITS)
        bins |= (rgb[..., 1] >> LUT_SHIFT).astype(np.int32) << LUT_BITS
        bins |= rgb[..., 2] >> LUT_SHIFT
        return self.lut[bins]

    def _fit(self, name, mask, depth, intrinsics) -> Detection | str:
        cfg = self.config
        rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
        r0, c0 = rows[0], cols[0]  # the blobs' bounding box: work inside it only
        mask = mask[r0 : rows[-1] + 1, c0 : cols[-1] + 1]
        depth = depth[r0 : rows[-1] + 1, c0 : cols[-1] + 1]
        count, labels, stats, _ = cv2.connectedComponentsWithStats(
            mask.astype(np.uint8), connectivity=8
        )
        blobs = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= cfg.min_pixels]
        blobs.sort(key=lambda i: -stats[i, cv2.CC_STAT_AREA])
        clouds = []
        for i in blobs:
            v, u = np.nonzero((labels == i) & (depth > 0))
            points = self._scene_points(u + c0, v + r0, depth[v, u], intrinsics)
            points = points[points[:, 2] > cfg.min_height_m]
            if len(points) >= cfg.min_depth_points:
                clouds.append((int(stats[i, cv2.CC_STAT_AREA]), points))
        if not clouds:
            return f"{name} seen but without depth: no 3D points to fit"
        # Pieces of one cube (a finger across it) lie within a cube's diagonal of the
        # largest; anything farther is a second object of this colour.
        area, points = clouds[0]
        centre = np.median(points, axis=0)
        for other_area, other in clouds[1:]:
            gap = float(np.linalg.norm(np.median(other, axis=0)[:2] - centre[:2]))
            if gap > math.sqrt(2) * self.cube_size:
                return (
                    f"{name} ambiguous: two {colour_word(name)} blobs {gap:.2f} m apart "
                    f"({area} and {other_area} px)"
                )
            area += other_area
            points = np.vstack([points, other])
        return self._fit_cube(points, area, intrinsics)

    def _scene_points(self, u, v, z, intrinsics: CameraIntrinsics) -> np.ndarray:
        if any(intrinsics.distortion):
            pixels = np.column_stack([u, v]).astype(np.float64).reshape(-1, 1, 2)
            und = cv2.undistortPoints(
                pixels, intrinsics.K, np.asarray(intrinsics.distortion), P=intrinsics.K
            ).reshape(-1, 2)
            u, v = und[:, 0], und[:, 1]
        return to_scene(back_project(u, v, z, intrinsics), self.pose)

    def _fit_cube(self, points, pixels, intrinsics) -> Detection | str:
        cfg, s = self.config, self.cube_size
        z = points[:, 2]
        # The top face: the highest points; first guess from the upper 40%, then the
        # points within a band of it.
        h0 = float(np.median(z[z >= np.percentile(z, 60)]))
        top = points[np.abs(z - h0) <= cfg.top_band_m]
        if len(top) < cfg.min_depth_points:
            return "too few points on the top face to fit"
        height = float(np.median(top[:, 2]))
        yaw, centre_xy, _ = fit_square(top[:, :2], cfg.edge_percentile)
        expected = self._expected_top_pixels(np.array([*centre_xy, height]), intrinsics)
        coverage = float(min(1.0, len(top) / max(expected, 1.0)))
        position = np.array([centre_xy[0], centre_xy[1], height - s / 2])
        return Detection(position, yaw, int(pixels), len(top), coverage)

    def _expected_top_pixels(self, top_centre, intrinsics) -> float:
        """Pixels a fully visible top face covers in this view."""
        s = self.cube_size / 2
        corners = top_centre + np.array([[-s, -s, 0], [s, -s, 0], [s, s, 0], [-s, s, 0]])
        uv, _ = project(corners, intrinsics, self.pose)
        x, y = uv[:, 0], uv[:, 1]
        return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def fit_square(xy: np.ndarray, edge_percentile: float = 2.0):
    """The yaw (rad, in [-pi/4, pi/4)) and centre of a square from points spread over it,
    and its extent along its two sides (m).

    The yaw is the phase of the points' fourth-order moment, sum((z - mean)^4) with
    z = x + iy: for a square turned by theta it is 4 theta + pi, whatever the square's
    size, and noise spread evenly in every direction adds nothing to it. The centre is
    midway between robust percentiles along the square's sides, so a few stray points
    move nothing."""
    z = (xy[:, 0] - xy[:, 0].mean()) + 1j * (xy[:, 1] - xy[:, 1].mean())
    moment = np.sum(z**4)
    theta = float((np.angle(moment) - math.pi) / 4.0)
    theta = (theta + math.pi / 4) % (math.pi / 2) - math.pi / 4
    c, s = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    local = xy @ rot  # coordinates along the square's sides
    lo, hi = edge_percentile, 100.0 - edge_percentile
    low, high = np.percentile(local, lo, axis=0), np.percentile(local, hi, axis=0)
    centre = rot @ ((low + high) / 2)
    return theta, centre, high - low


def colour_word(name: str) -> str:
    """'red' for 'red_cube': the colour a person would say."""
    return name.split("_")[0] if "_" in name else name
