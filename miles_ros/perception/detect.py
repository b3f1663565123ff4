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
from dataclasses import dataclass, field

import cv2
import numpy as np

from sims.camera import CameraIntrinsics, CameraPose, back_project, project, to_scene
from sims.scene import Scene

LUT_BITS = 6
"""Colour bins per channel: 2^6 levels (a step of 4 of 255), fine against chromaticity
distances of ~0.07."""
LUT_SHIFT = 8 - LUT_BITS
FREE_SPACE_GRID = 9
"""Points per side of the grid a top face's placement is checked with (81 in all)."""


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
    partial_min_m: float = 0.004
    """A top face seen this much shorter than the cube along a side is partly hidden
    there (m): its centre is placed from the edge the frame shows (:func:`place_partial`)."""
    free_space_margin_m: float = 0.01
    """Depth seen this far beyond where a face would be means the face is not there (m):
    the table or a face below shows through (a cube is 40 mm high; the noise at 1 m is
    2.5 mm)."""
    tilted_top_min_deg: float | None = None
    """Where set, the top face's plane is fitted to its points (:func:`fit_top_plane`),
    and where it tilts more than this (deg) the cube's centre is half an edge below the
    face's centre along its normal, the square fitted in the face's own plane; flatter,
    the flat fit as below. None (the default): every top face fitted as flat, its centre
    half an edge straight below it (a ray-cast cube tilted 20-30 deg reads 4-8 mm off in
    xy). Off: with 5, version 3's stacking on perceived poses went 48 -> 47/50 (seed
    1000's first 50) and 46 -> 46/50 (seed 2000), the published held error unchanged; a
    held cube's face is seen about half hidden by the hand (docs/perception.md, "a held
    cube that knows it is tilted")."""
    tilted_top_min_coverage: float = 0.5
    """The tilted fit stands only where this share of the tilted face is in view: a plane
    through a strip of a face (the rest under the hand) tilts with the depth noise. In
    the closed loop, without this bar, a held cube tilted 4 deg was fitted tilted from
    such a strip, 10 mm off across the fingers, and stayed 10-20 mm off until its release
    (docs/perception.md). 0.5 was chosen on seed 1000's frames, seed 2000 held out."""


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
    tilt: float = 0.0
    """The top face's tilt from level (rad) where :attr:`DetectConfig.tilted_top_min_deg`
    is set and it was fitted tilted; 0 otherwise."""
    points: np.ndarray | None = field(default=None, compare=False, repr=False)
    """The cube's points the fit was made from [N, 3] (scene frame; every face in view),
    None where the detector keeps none (tags): what a held cube's swing is fitted to
    (:mod:`miles_ros.perception.swing`). Not compared: a detection is its pose."""


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

    def _fit(self, name, mask, frame_depth, intrinsics) -> Detection | str:
        cfg = self.config
        depth = frame_depth
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
        return self._fit_cube(points, area, frame_depth, intrinsics)

    def _scene_points(self, u, v, z, intrinsics: CameraIntrinsics) -> np.ndarray:
        if any(intrinsics.distortion):
            pixels = np.column_stack([u, v]).astype(np.float64).reshape(-1, 1, 2)
            und = cv2.undistortPoints(
                pixels, intrinsics.K, np.asarray(intrinsics.distortion), P=intrinsics.K
            ).reshape(-1, 2)
            u, v = und[:, 0], und[:, 1]
        return to_scene(back_project(u, v, z, intrinsics), self.pose)

    def _fit_cube(self, points, pixels, depth, intrinsics) -> Detection | str:
        cfg, s = self.config, self.cube_size
        z = points[:, 2]
        # The top face: the highest points; first guess from the upper 40%, then the
        # points within a band of it.
        h0 = float(np.median(z[z >= np.percentile(z, 60)]))
        top = points[np.abs(z - h0) <= cfg.top_band_m]
        if len(top) < cfg.min_depth_points:
            return "too few points on the top face to fit"
        if cfg.tilted_top_min_deg is not None:
            tilted = self._fit_tilted(points, pixels, depth, intrinsics)
            if tilted is not None:
                return tilted
        height = float(np.median(top[:, 2]))
        yaw, centre_xy, extent = fit_square(top[:, :2], cfg.edge_percentile)
        centre_xy = self._place_partial(centre_xy, yaw, extent, height, depth, intrinsics)
        expected = self._expected_top_pixels(np.array([*centre_xy, height]), intrinsics)
        coverage = float(min(1.0, len(top) / max(expected, 1.0)))
        position = np.array([centre_xy[0], centre_xy[1], height - s / 2])
        return Detection(position, yaw, int(pixels), len(top), coverage, points=points)

    def _fit_tilted(self, points, pixels, depth, intrinsics) -> Detection | None:
        """The cube from a top face fitted as a plane, where that plane tilts more than
        :attr:`DetectConfig.tilted_top_min_deg`: the square fitted in the face's own
        coordinates, the centre half an edge below the face's centre along its normal,
        the yaw that of the square's side projected on the table. None where the face is
        flatter, too few points lie on it, too little of it is in view
        (:attr:`DetectConfig.tilted_top_min_coverage`), or the plane takes in more than a
        face: the flat fit stands. A face partly hidden is placed from the edges in view
        (:meth:`_place_face`), as a level one is."""
        cfg, s = self.config, self.cube_size
        plane = fit_top_plane(points, cfg.top_band_m / 2)
        if plane is None:
            return None
        centroid, normal, on_face = plane
        tilt = math.acos(min(1.0, float(normal[2])))
        if math.degrees(tilt) <= cfg.tilted_top_min_deg or len(on_face) < cfg.min_depth_points:
            return None
        e1 = np.array([1.0, 0.0, 0.0]) - normal[0] * normal
        e1 /= np.linalg.norm(e1)
        basis = np.column_stack([e1, np.cross(normal, e1)])
        theta, centre, extent = fit_square((on_face - centroid) @ basis, cfg.edge_percentile)
        if max(extent) > s + cfg.partial_min_m:  # more than a face: a side taken with it
            return None
        sides = basis @ np.array(
            [[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]]
        )
        face = self._place_face(centroid + basis @ centre, sides, extent, depth, intrinsics)
        yaw = (math.atan2(sides[1, 0], sides[0, 0]) + math.pi / 4) % (math.pi / 2) - math.pi / 4
        expected = self._expected_top_pixels(face, intrinsics)
        coverage = float(min(1.0, len(on_face) / max(expected, 1.0)))
        if coverage < cfg.tilted_top_min_coverage:
            return None
        position = face - normal * (s / 2)
        return Detection(position, yaw, int(pixels), len(on_face), coverage, tilt, points)

    def _place_partial(self, centre_xy, yaw, extent, height, depth, intrinsics) -> np.ndarray:
        """A level top face's centre from its seen square (:meth:`_place_face`)."""
        c, s = math.cos(yaw), math.sin(yaw)
        sides = np.array([[c, -s], [s, c], [0.0, 0.0]])
        face = np.array([centre_xy[0], centre_xy[1], height])
        return self._place_face(face, sides, extent, depth, intrinsics)[:2]

    def _place_face(self, face, sides, extent, depth, intrinsics) -> np.ndarray:
        """The top face's centre [3] where the face was seen shorter than the cube along a
        side (a hand over part of it); ``face`` the centre midway between the seen edges,
        ``sides`` [3, 2] the unit directions of the square's sides, ``extent`` the seen
        lengths along them. Midway is off by half the hidden part, towards the part in
        view. Along each such side the face can reach past either seen edge, or both by
        half: of these placements, the one the frame contradicts least
        (:meth:`_free_space_hits`: depth seen beyond where its face would be) is kept, the
        midway one on a tie. Where the frame cannot tell, nothing changes."""
        cfg, size = self.config, self.cube_size
        shifts = []
        for short in size - np.asarray(extent, dtype=np.float64):
            if short > cfg.partial_min_m:
                shifts.append((0.0, -short / 2, short / 2))
            else:
                shifts.append((0.0,))
        if len(shifts[0]) == len(shifts[1]) == 1:
            return face
        best, best_hits = face, None
        for a in shifts[0]:
            for b in shifts[1]:
                candidate = face + sides @ np.array([a, b])
                hits = self._free_space_hits(candidate, sides, depth, intrinsics)
                if best_hits is None or hits < best_hits:
                    best, best_hits = candidate, hits
        return best

    def _free_space_hits(self, face, sides, depth, intrinsics) -> int:
        """How many of a grid of points over a top face centred at ``face`` [3] with sides
        along ``sides`` [3, 2] the frame sees through: the depth at their pixel more than
        :attr:`DetectConfig.free_space_margin_m` beyond them (no depth, or out of the
        picture: no evidence either way). The grid stays 2 mm inside the face's edges,
        where depth is missing or mixed."""
        half = self.cube_size / 2 - 0.002
        ticks = np.linspace(-half, half, FREE_SPACE_GRID)
        a, b = np.meshgrid(ticks, ticks)
        grid = face + np.column_stack([a.ravel(), b.ravel()]) @ sides.T
        uv, along = project(grid, intrinsics, self.pose)
        u, v = np.round(uv[:, 0]).astype(int), np.round(uv[:, 1]).astype(int)
        inside = (u >= 0) & (u < depth.shape[1]) & (v >= 0) & (v < depth.shape[0])
        seen = depth[v[inside], u[inside]]
        beyond = (seen > 0) & (seen > along[inside] + self.config.free_space_margin_m)
        return int(beyond.sum())

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
    size, and noise spread evenly in every direction adds nothing to it. A square partly
    hidden shows a rectangle, whose fourth moment turns by 45 degrees once one side is
    less than 0.58 of the other; its principal axis (the points' covariance) is then
    along a side. Of the two, the yaw whose sides bound the points tightest (the smaller
    area between the percentiles) is kept. The centre is midway between robust
    percentiles along the square's sides, so a few stray points move nothing."""
    centred = xy - xy.mean(axis=0)
    z = centred[:, 0] + 1j * centred[:, 1]
    moment = np.sum(z**4)
    fourth = float((np.angle(moment) - math.pi) / 4.0)
    cov = centred.T @ centred
    principal = 0.5 * math.atan2(2.0 * cov[0, 1], cov[0, 0] - cov[1, 1])
    lo, hi = edge_percentile, 100.0 - edge_percentile
    best = None
    for theta in (fourth, principal):
        theta = (theta + math.pi / 4) % (math.pi / 2) - math.pi / 4
        c, s = math.cos(theta), math.sin(theta)
        rot = np.array([[c, -s], [s, c]])
        local = xy @ rot  # coordinates along the square's sides
        low, high = np.percentile(local, lo, axis=0), np.percentile(local, hi, axis=0)
        area = float(np.prod(high - low))
        if best is None or area < best[0] - 1e-12:
            best = (area, theta, rot @ ((low + high) / 2), high - low)
    _, theta, centre, extent = best
    return theta, centre, extent


TOP_PLANE_HYPOTHESES = 256
"""Planes through three of a cube's points tried when fitting its top face. The face is
found only where one of them is drawn with all three points on it, and the face can be
as little as a third of the cube's points (tilted 30-35 deg about an axis near x, the
camera sees two sides with it): a draw is then on it with probability 1/27, and 256
draws all miss with probability 6e-5. 64 missed there (a fixed seed: nearby poses miss
together), and the best plane through points of three faces, refitted, came out 2-14 deg
flatter than the face, 2-4 deg steeper, or wider than one (docs/perception.md)."""
TOP_PLANE_MAX_TILT_DEG = 45.0
"""A plane tilted more than this is a side, never the top face (a cube's sides stand at
90 deg less the top's tilt)."""


def fit_top_plane(points: np.ndarray, band: float):
    """A cube's top face as a plane fitted to its points [N, 3] (scene frame, z up): the
    face's centroid, its unit normal (pointing up), and the points within ``band`` of it;
    None for fewer than 3 points or no plane flatter than
    :data:`TOP_PLANE_MAX_TILT_DEG`.

    The sides seen with it would pull a least-squares plane over, so the face is found
    first by consensus: of planes through three points drawn (a fixed seed: the same
    points give the same face), flatter than the sides can be, the one with the most
    points within ``band``; then refitted by least squares (SVD: the normal is the
    direction of least spread) to those points, twice."""
    points = np.asarray(points, dtype=np.float64)
    if len(points) < 3:
        return None
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(points), size=(TOP_PLANE_HYPOTHESES, 3))
    a, b, c = points[picks[:, 0]], points[picks[:, 1]], points[picks[:, 2]]
    normals = np.cross(b - a, c - a)
    length = np.linalg.norm(normals, axis=1)
    normals = normals / np.maximum(length, 1e-12)[:, None] * np.sign(normals[:, 2:3] + 1e-300)
    cos_max = math.cos(math.radians(TOP_PLANE_MAX_TILT_DEG))
    ok = (length > 1e-9) & (normals[:, 2] > cos_max)
    if not ok.any():
        return None
    distances = np.abs((points[None, :, :] - a[ok][:, None, :]) @ normals[ok][:, :, None])[..., 0]
    counts = (distances <= band).sum(axis=1)
    best = int(np.argmax(counts))
    normal, origin = normals[ok][best], a[ok][best]
    for _ in range(2):
        on_face = points[np.abs((points - origin) @ normal) <= band]
        if len(on_face) < 3:
            return None
        origin = on_face.mean(axis=0)
        normal = np.linalg.svd(on_face - origin, full_matrices=False)[2][2]
        normal = normal if normal[2] >= 0 else -normal
        if normal[2] <= cos_max:
            return None
    on_face = points[np.abs((points - origin) @ normal) <= band]
    return on_face.mean(axis=0), normal, on_face


def colour_word(name: str) -> str:
    """'red' for 'red_cube': the colour a person would say."""
    return name.split("_")[0] if "_" in name else name
