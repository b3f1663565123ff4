"""RGB-D frames with known answers, made by ray casting (no renderer): a table plane and
flat-topped cubes seen by a pinhole camera, optionally through lens distortion."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from sims.camera import CameraIntrinsics, CameraPose, back_project

TABLE_RGB = (209, 181, 140)
OCCLUDER_RGB = (90, 90, 95)
"""A hand's grey: no cube's colour."""

HAND_OVER = {
    "the far half": ((0.454, 0.0, 0.06), (0.01, 0.03, 0.005)),
    "a strip on the left": ((0.47, 0.03, 0.06), (0.03, 0.015, 0.005)),
    "a strip on the right": ((0.47, -0.03, 0.06), (0.03, 0.015, 0.005)),
    "a strip on the near side": ((0.49, 0.0, 0.06), (0.01, 0.03, 0.005)),
}
"""Flat grey boxes a centimetre thick 1-3 cm above a cube at (0.45, 0) (hands' stand-ins:
centre, half sizes), and the part of its top face each hides from the camera at x = 1 m
(a box hides the face 14 mm further from the camera than itself)."""


def _yawed(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@functools.lru_cache(maxsize=4)
def _rays(intrinsics: CameraIntrinsics, pose: CameraPose) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's ray direction in the scene frame (row-major pixels; t along it is the
    depth) and its squared length, read-only: the same for every frame of a camera."""
    k = intrinsics
    v, u = np.mgrid[0 : k.height, 0 : k.width].astype(np.float64)
    pixels = np.column_stack([u.ravel(), v.ravel()])
    if any(k.distortion):  # the pixel sees along the undistorted ray
        pixels = cv2.undistortPoints(
            pixels.reshape(-1, 1, 2), k.K, np.asarray(k.distortion), P=k.K
        ).reshape(-1, 2)
    rays_cam = back_project(pixels[:, 0], pixels[:, 1], np.ones(len(pixels)), k)  # z = 1
    rays = rays_cam @ pose.R.T
    length2 = np.einsum("ij,ij->i", rays, rays)
    for array in (rays, length2):
        array.flags.writeable = False
    return rays, length2


def cast(
    intrinsics: CameraIntrinsics,
    pose: CameraPose,
    cubes: list[tuple[tuple[float, float], float, tuple[int, int, int]]],
    size: float = 0.04,
    occluders: list[tuple[tuple[float, float, float], tuple[float, float, float]]] = (),
    posed: list[tuple[tuple[float, float, float], np.ndarray, tuple[int, int, int]]] = (),
    boxes: list[tuple[tuple[float, float, float], np.ndarray, tuple[float, float, float]]] = (),
):
    """(rgb, depth m) of the table z = 0 with cubes (centre xy, yaw rad, rgb) of edge
    ``size``: each pixel's ray hits the nearest of the table and the cubes' top faces
    and sides (the cube as a box, intersected exactly by the slab method). ``occluders``:
    grey boxes (centre xyz, half sizes xyz; axis-aligned) in front of them, a hand's
    stand-in. ``posed``: cubes of edge ``size`` anywhere, turned any way (centre xyz,
    rotation [3, 3] of the cube's frame in the scene's, rgb): one tilted in a grip.
    ``boxes``: grey boxes turned any way (centre xyz, rotation [3, 3], half sizes xyz): a
    hand's fingers and palm (:func:`hand_boxes`).

    A box is intersected with the rays that pass within its circumscribed sphere (a
    margin above it for rounding) only: no other ray can hit it, and each ray's slab
    arithmetic is elementwise, so the frame is the one of every ray intersected."""
    k, boxes_in = intrinsics, boxes
    rays, length2 = _rays(intrinsics, pose)
    origin = pose.t
    t_best = np.where(rays[:, 2] < 0, -origin[2] / np.minimum(rays[:, 2], -1e-12), np.inf)
    colour = np.tile(np.array(TABLE_RGB, dtype=np.uint8), (len(rays), 1))
    boxes = [
        ((cx, cy, size / 2), _yawed(yaw), (size / 2,) * 3, rgb) for (cx, cy), yaw, rgb in cubes
    ]
    boxes += [(centre, _yawed(0.0), half, OCCLUDER_RGB) for centre, half in occluders]
    boxes += [(centre, np.asarray(rot), (size / 2,) * 3, rgb) for centre, rot, rgb in posed]
    boxes += [(centre, np.asarray(rot), half, OCCLUDER_RGB) for centre, rot, half in boxes_in]
    for centre, rot, half, rgb in boxes:
        o = (origin - np.asarray(centre)) @ rot  # the box's own frame
        half = np.asarray(half)
        # each ray's squared distance from the box's centre less its circumscribed
        # sphere's squared radius (1e-6 wider): the rays above zero miss the box
        along = rays @ (np.asarray(centre) - origin)
        miss2 = (np.dot(o, o) - along * along / length2) - (1.000001 * np.linalg.norm(half)) ** 2
        near_box = np.flatnonzero(miss2 <= 1e-12)
        d = rays[near_box] @ rot
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = (-half - o) / d
            t2 = (half - o) / d
        near = np.nanmax(np.minimum(t1, t2), axis=1)
        far = np.nanmin(np.maximum(t1, t2), axis=1)
        hit = (near <= far) & (near > 0) & (near < t_best[near_box])
        t_best[near_box[hit]] = near[hit]
        colour[near_box[hit]] = rgb
    depth = np.where(np.isfinite(t_best), t_best, 0.0).reshape(k.height, k.width)
    return colour.reshape(k.height, k.width, 3), depth.astype(np.float32)


def hand_boxes(fingers, rotation, size: float = 0.04, fingertip: float = 0.01):
    """A parallel gripper's stand-in closed on a cube of edge ``size``, as ``cast``'s
    ``boxes``: two fingers 5 cm long ending ``fingertip`` beyond the TCP, 2 cm across, 1 cm
    thick, flat on the cube's faces either side of the fingers' midpoint ``fingers`` along
    the closing axis, and a palm 4 x 16 x 4 cm 6 cm above them (``rotation``: the TCP frame's
    columns, x across the fingers, y the closing axis, z the approach)."""
    fingers, rotation = np.asarray(fingers, dtype=np.float64), np.asarray(rotation)
    out = []
    for side in (-1.0, 1.0):
        local = np.array([0.0, side * (size / 2 + 0.005), fingertip - 0.025])
        out.append((fingers + rotation @ local, rotation, (0.01, 0.005, 0.025)))
    out.append((fingers + rotation @ np.array([0.0, 0.0, fingertip - 0.09]), rotation,
                (0.02, 0.08, 0.02)))  # fmt: skip
    return out
