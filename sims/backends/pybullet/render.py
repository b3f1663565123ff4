"""Pictures of a PyBullet world, headless (TinyRenderer): the demo camera's RGB image and a
pinhole RGB-D frame (:mod:`sims.camera`), with one set of render settings."""

from __future__ import annotations

import numpy as np
import pybullet as p

from sims.camera import gl_projection_matrix, gl_view_matrix, metric_depth

LIGHT_DIRECTION = (1.0, -0.5, 2.0)
"""Where the light comes from (no shadows): the same for every picture."""


def _camera_image(client: int, width: int, height: int, view, projection, flags: int = 0):
    return p.getCameraImage(
        width,
        height,
        viewMatrix=view,
        projectionMatrix=projection,
        renderer=p.ER_TINY_RENDERER,
        shadow=0,
        lightDirection=list(LIGHT_DIRECTION),
        flags=flags,
        physicsClientId=client,
    )


def render_view(client: int, width: int, height: int, camera: dict) -> np.ndarray:
    """RGB image [height, width, 3] uint8 from an orbit ``camera`` (target, distance, yaw,
    pitch, fov: the demo's pictures)."""
    view = p.computeViewMatrixFromYawPitchRoll(
        cameraTargetPosition=camera["target"],
        distance=camera["distance"],
        yaw=camera["yaw"],
        pitch=camera["pitch"],
        roll=0.0,
        upAxisIndex=2,
        physicsClientId=client,
    )
    proj = p.computeProjectionMatrixFOV(
        fov=camera["fov"], aspect=width / height, nearVal=0.05, farVal=5.0, physicsClientId=client
    )
    _, _, rgba, _, _ = _camera_image(client, width, height, view, proj)
    image = np.asarray(rgba, dtype=np.uint8).reshape(height, width, 4)
    return np.ascontiguousarray(image[:, :, :3])


def render_rgbd(client: int, intrinsics, pose, segmentation: bool = False):
    """An RGB-D frame from a pinhole camera (:mod:`sims.camera`): rgb uint8 [H, W, 3] and
    depth float32 [H, W] along the view (m, 0 = nothing), plus PyBullet's body-id mask
    [H, W] when ``segmentation`` (ground truth, for evaluation only)."""
    w, h = intrinsics.width, intrinsics.height
    flags = 0 if segmentation else p.ER_NO_SEGMENTATION_MASK
    _, _, rgba, zbuf, seg = _camera_image(
        client, w, h, gl_view_matrix(pose), gl_projection_matrix(intrinsics), flags
    )
    rgb = np.ascontiguousarray(np.asarray(rgba, dtype=np.uint8).reshape(h, w, 4)[:, :, :3])
    depth = metric_depth(np.asarray(zbuf, dtype=np.float64).reshape(h, w)).astype(np.float32)
    if not segmentation:
        return rgb, depth
    return rgb, depth, np.asarray(seg, dtype=np.int32).reshape(h, w)
