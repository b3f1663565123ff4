"""A held cube's swing in the grip, ROS-free: one angle about the pads' contact line,
fitted to the cube's points in one frame (:func:`fit_swing`), and where a cube of the
known edge swung by it sits in the hand (:func:`swung_offset`).

Closed parallel fingers hold a cube by two opposite faces; it can still turn about the
line through the two pads' contacts (the closing axis, the TCP frame's y), and PyBullet's
Panda lets it: stacking episodes release cubes tilted 24-32 deg that were grasped level
(docs/perception.md). A frame of such a cube, fitted as a level top face, puts its centre
off by up to half an edge times the tilt's sine, and the hand hides half that face, so
a plane through what is left does not fix the tilt. Here the tilt has one degree of
freedom only: the hand gives the axis, and every visible point of the cube (the strip of
its top face, the side face below the fingers, the pads' faces' lower parts) must lie
on the surface of a cube of the known edge swung by that angle about that axis.

:attr:`~miles_ros.perception.config.PerceptionConfig.held_swing_fit` (on by default)
has :class:`~miles_ros.perception.pipeline.Perception` use it for the frames of a held
cube.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from sims.camera import CameraIntrinsics, CameraPose, project

SWING_MAX_DEG = 40.0
"""The swings tried, from -this to this (deg): a cube swung further is no longer held by
its faces (the released tilts in the traces: up to 32 deg)."""
SWING_GRID_DEG = 1.0
"""The first search's step over the swing (deg)."""
SWING_REFINE_DEG = 6.0
"""Each candidate swing is refined within this of where it stands (deg), by half a degree."""
SWING_CANDIDATES = 3
"""The lowest local minima of the first search each refined, the lowest of them kept: a
square swung by t and by t - 90 deg has one outline, and a strip of one face fits either
edge."""
SWING_ROUNDS = 2
"""Rounds of refining a candidate: the grip's offset across the fingers, then along the
approach, then the swing, each with the others fixed."""
GRIP_SHIFT_M = 0.008
"""The grip's offset across the fingers and along the approach is refitted within this of
where it was (m), by :data:`GRIP_SHIFT_STEP_M`: the frame before may have had it off."""
GRIP_SHIFT_STEP_M = 0.0005
TRUNCATE_M = 0.004
"""A point's distance from the swung cube's surface counts up to this (m): the camera's
noise is 2.5 mm at 1 m; farther, a stray point (a finger's edge pixel), not a miss."""
FREE_SPACE_INSET_M = 0.006
"""The grid a swung cube's faces are checked on stays this far inside their edges (m): the
camera's believed pose is off by a few mm and tenths of a degree, which moves an edge's
pixels onto what lies beyond it."""
FREE_SPACE_GRID = 5
"""Points per side of that grid on each face."""
FREE_SPACE_WEIGHT = TRUNCATE_M**2
"""What each point of that grid the frame sees through adds to a fit's sum: as much as
a point of the cube's farther than :data:`TRUNCATE_M` from its surface."""
FREE_SPACE_MARGIN_M = 0.01
"""Depth seen this far beyond a face means the face is not there (m)."""
MAX_POINTS = 300
"""At most this many of a cube's points are fitted, evenly spaced through them (a held
cube shows 400-1,500 at 1 m): the fit's cost grows with them, its precision hardly."""


def rotation_about_closing_axis(theta: float) -> np.ndarray:
    """The hand frame's rotation by ``theta`` (rad) about its y, the closing axis."""
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def swing_pivot(
    rest: np.ndarray, size: float, fingertip: float, finger_length: float
) -> np.ndarray:
    """Where on the pads' contact line (hand frame: x across the fingers, y the closing
    axis, z the approach, from the fingers' midpoint) a cube held level at ``rest`` (its
    centre) swings about: across, the grip's own offset; along the approach, midway
    through the pads' overlap with it (from the nearer of its top and the pads' inner end,
    ``fingertip - finger_length``, to the nearer of its bottom and the fingertips)."""
    top = max(float(rest[2]) - size / 2, fingertip - finger_length)
    bottom = min(float(rest[2]) + size / 2, fingertip)
    return np.array([float(rest[0]), 0.0, (top + bottom) / 2])


def swung_offset(
    rest: np.ndarray, theta: float, size: float, fingertip: float, finger_length: float
) -> np.ndarray:
    """The centre (hand frame) of a cube held level at ``rest`` once swung by ``theta``
    (rad) about the pads' contact line (:func:`swing_pivot`)."""
    rest = np.asarray(rest, dtype=np.float64)
    pivot = swing_pivot(rest, size, fingertip, finger_length)
    return pivot + rotation_about_closing_axis(theta) @ (rest - pivot)


def _box_distance(u: np.ndarray, half: float) -> np.ndarray:
    """|signed distance| of points ``u`` [..., 3] (a cube's own frame) from the surface of
    a cube of half edge ``half`` centred at the origin."""
    q = np.abs(u) - half
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
    return np.abs(outside + np.minimum(q.max(axis=-1), 0.0))


def free_space_hits(
    centres: np.ndarray,
    rotations: np.ndarray,
    size: float,
    depth: np.ndarray,
    intrinsics: CameraIntrinsics,
    camera: CameraPose,
) -> np.ndarray:
    """For each of M cubes (``centres`` [M, 3], ``rotations`` [M, 3, 3]: their axes in the
    scene frame), how many points of a grid over its six faces (:data:`FREE_SPACE_GRID` a
    side, :data:`FREE_SPACE_INSET_M` inside the edges) the frame sees through: the depth
    at their pixel more than :data:`FREE_SPACE_MARGIN_M` beyond them [M]. A face turned
    away or hidden by the hand shows something nearer there: no evidence either way."""
    half = size / 2 - FREE_SPACE_INSET_M
    ticks = np.linspace(-half, half, FREE_SPACE_GRID)
    a, b = (g.ravel() for g in np.meshgrid(ticks, ticks))
    faces = []
    for axis in range(3):
        u, v = [k for k in range(3) if k != axis]
        for sign in (-1.0, 1.0):
            face = np.zeros((len(a), 3))
            face[:, axis], face[:, u], face[:, v] = sign * size / 2, a, b
            faces.append(face)
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
    grid = centres[:, None, :] + np.matmul(np.vstack(faces)[None], np.swapaxes(rotations, 1, 2))
    uv, along = project(grid.reshape(-1, 3), intrinsics, camera)
    u, v = np.round(uv[:, 0]).astype(int), np.round(uv[:, 1]).astype(int)
    inside = (u >= 0) & (u < depth.shape[1]) & (v >= 0) & (v < depth.shape[0])
    seen = np.zeros(len(u))
    seen[inside] = depth[v[inside], u[inside]]
    beyond = (seen > 0) & (seen > along + FREE_SPACE_MARGIN_M)
    return beyond.reshape(len(centres), -1).sum(axis=1)


def fit_swing(
    points: np.ndarray,
    fingers: np.ndarray,
    rotation: np.ndarray,
    rest: np.ndarray,
    turn: float,
    size: float,
    fingertip: float,
    finger_length: float,
    free_space: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> tuple[float, np.ndarray]:
    """The swing (rad) about the pads' contact line, and the level grip it swings (hand
    frame [3], y 0), of a held cube whose visible ``points`` [N, 3] (scene frame) one frame
    gave, for a hand at ``fingers`` (the fingers' midpoint) with axes ``rotation`` (the
    TCP frame's columns) at that frame's exposure; ``rest``: the level grip as known
    before the frame; ``turn``: the cube's yaw less the hand's (its faces on the pads at
    0); ``fingertip``, ``finger_length``: the fingers' reach beyond the TCP and their
    length (:func:`swing_pivot`).

    The fit is the swung cube whose surface the points (at most :data:`MAX_POINTS`) lie
    nearest, each point's distance counted up to :data:`TRUNCATE_M`, squared, summed,
    with :data:`FREE_SPACE_WEIGHT` added for each point of its faces the frame sees through
    (``free_space(centres, rotations)``, scene frame, M cubes at once:
    :func:`free_space_hits`; without it, nothing added): first the swing alone over
    +-:data:`SWING_MAX_DEG`, the grip as given; then, from each of the
    :data:`SWING_CANDIDATES` lowest local minima, :data:`SWING_ROUNDS` rounds of the
    grip's offset across the fingers, along the approach (within :data:`GRIP_SHIFT_M`)
    and the swing again, each alone; the lowest of those candidates."""
    points = np.asarray(points, dtype=np.float64)
    if len(points) > MAX_POINTS:
        points = points[np.linspace(0, len(points) - 1, MAX_POINTS).astype(int)]
    local = (points - fingers) @ rotation
    half = size / 2
    c, s = math.cos(-turn), math.sin(-turn)
    level = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])  # about the approach

    def costs(rests: np.ndarray, thetas: np.ndarray) -> np.ndarray:
        tops = np.maximum(rests[:, 2] - half, fingertip - finger_length)
        bottoms = np.minimum(rests[:, 2] + half, fingertip)
        pivots = np.column_stack([rests[:, 0], np.zeros(len(rests)), (tops + bottoms) / 2])
        swings = np.array([rotation_about_closing_axis(t) for t in thetas])
        centres = pivots + np.einsum("mij,mj->mi", swings, rests - pivots)
        cubes = swings @ level  # the cubes' axes in the hand frame
        u = np.matmul(local[None] - centres[:, None, :], cubes)
        total = np.sum(np.minimum(_box_distance(u, half), TRUNCATE_M) ** 2, axis=1)
        if free_space is not None:  # the scene frame's
            hits = free_space(fingers + centres @ rotation.T, np.matmul(rotation, cubes))
            total = total + FREE_SPACE_WEIGHT * hits
        return total

    rest = np.asarray(rest, dtype=np.float64).copy()
    rest[1] = 0.0
    grid = np.radians(np.arange(-SWING_MAX_DEG, SWING_MAX_DEG + 1e-9, SWING_GRID_DEG))
    first = costs(np.tile(rest, (len(grid), 1)), grid)
    below = np.concatenate([[True], first[1:] <= first[:-1]])  # no higher than the one before
    above = np.concatenate([first[:-1] <= first[1:], [True]])  # nor than the one after
    minima = np.flatnonzero(below & above).tolist()
    minima = sorted(minima, key=lambda k: first[k])[:SWING_CANDIDATES]
    shifts = np.arange(-GRIP_SHIFT_M, GRIP_SHIFT_M + 1e-9, GRIP_SHIFT_STEP_M)
    steps = np.radians(np.arange(-SWING_REFINE_DEG, SWING_REFINE_DEG + 1e-9, 0.5))
    limit = math.radians(SWING_MAX_DEG)
    candidates = []
    for k in minima:
        theta, grip = float(grid[k]), rest.copy()
        for _ in range(SWING_ROUNDS):
            for axis in (0, 2):
                moved = np.tile(grip, (len(shifts), 1))
                moved[:, axis] += shifts
                grip = moved[int(np.argmin(costs(moved, np.full(len(shifts), theta))))]
            near = theta + steps
            near = near[np.abs(near) <= limit + 1e-12]
            theta = float(near[int(np.argmin(costs(np.tile(grip, (len(near), 1)), near)))])
        candidates.append((float(costs(grip[None], np.array([theta]))[0]), theta, grip))
    _, theta, grip = min(candidates, key=lambda c: c[0])
    return theta, grip
