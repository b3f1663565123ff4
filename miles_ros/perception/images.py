"""Camera messages' fields as arrays, ROS-free: the colour and depth images and the
intrinsics of ``sensor_msgs/CameraInfo``, as a RealSense driver (or the sim node) sends
them. Anything else is refused with the reason (:class:`FrameRefused`), never guessed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sims.camera import CameraIntrinsics

COLOR_ENCODINGS = ("rgb8", "bgr8")
"""Colour encodings taken (sensor_msgs/image_encodings names)."""
DEPTH_ENCODINGS = ("16UC1", "32FC1")
"""Depth encodings taken: 16UC1 in millimetres (a RealSense's), 32FC1 in metres."""
DISTORTION_MODELS = ("plumb_bob", "rational_polynomial", "")
"""CameraInfo distortion models taken ('' with no coefficients: none)."""


class FrameRefused(ValueError):
    """A frame (or camera_info) that cannot be used; the message says why."""


def _rows(data: bytes, height: int, width: int, step: int, channels: int, dtype) -> np.ndarray:
    itemsize = np.dtype(dtype).itemsize
    row = width * channels * itemsize
    if height <= 0 or width <= 0:
        raise FrameRefused(f"empty image ({width}x{height})")
    if step < row or len(data) < step * height:
        raise FrameRefused(
            f"image data too short: {len(data)} bytes for {height} rows of step {step} "
            f"({row} bytes of pixels each)"
        )
    raw = np.frombuffer(data, dtype=np.uint8, count=step * height).reshape(height, step)
    pixels = np.ascontiguousarray(raw[:, :row]).view(dtype)
    return pixels.reshape(height, width, channels) if channels > 1 else pixels


def decode_color(
    encoding: str, height: int, width: int, step: int, data: bytes, is_bigendian: int = 0
) -> np.ndarray:
    """RGB uint8 [H, W, 3] from a colour image's fields."""
    if encoding not in COLOR_ENCODINGS:
        raise FrameRefused(
            f"colour encoding {encoding!r} not taken; expected one of {', '.join(COLOR_ENCODINGS)}"
        )
    pixels = _rows(bytes(data), height, width, step, 3, np.uint8)
    return pixels if encoding == "rgb8" else np.ascontiguousarray(pixels[:, :, ::-1])


def decode_depth(
    encoding: str, height: int, width: int, step: int, data: bytes, is_bigendian: int = 0
) -> np.ndarray:
    """Depth along the view [H, W] float32 in metres from a depth image's fields; 0 where
    the camera has none (0 in the image, or NaN / inf in a 32FC1 one)."""
    if encoding not in DEPTH_ENCODINGS:
        raise FrameRefused(
            f"depth encoding {encoding!r} not taken; expected one of {', '.join(DEPTH_ENCODINGS)}"
        )
    order = ">" if is_bigendian else "<"
    if encoding == "16UC1":
        mm = _rows(bytes(data), height, width, step, 1, np.dtype(order + "u2"))
        return (mm.astype(np.float32) * np.float32(1e-3)).astype(np.float32)
    metres = _rows(bytes(data), height, width, step, 1, np.dtype(order + "f4")).astype(np.float32)
    return np.where(np.isfinite(metres) & (metres > 0), metres, np.float32(0.0))


def intrinsics_from_camera_info(
    width: int, height: int, k: Sequence[float], d: Sequence[float], distortion_model: str
) -> CameraIntrinsics:
    """:class:`CameraIntrinsics` from CameraInfo's fields (``k`` row-major 3x3)."""
    k = [float(v) for v in k]
    if len(k) != 9 or not all(np.isfinite(k)) or k[0] <= 0 or k[4] <= 0:
        raise FrameRefused(f"camera_info: no usable camera matrix K (got {k})")
    if width <= 0 or height <= 0:
        raise FrameRefused(f"camera_info: no image size ({width}x{height})")
    if distortion_model not in DISTORTION_MODELS or (not distortion_model and any(d)):
        raise FrameRefused(
            f"camera_info: distortion model {distortion_model!r} not taken; expected one of "
            f"{', '.join(m for m in DISTORTION_MODELS if m)}"
        )
    return CameraIntrinsics(
        int(width), int(height), k[0], k[4], k[2], k[5], tuple(float(v) for v in d)
    )


def encode_depth_mm(depth_m: np.ndarray) -> np.ndarray:
    """Depth in metres -> a 16UC1 image in millimetres (0 = none), as a RealSense sends it."""
    mm = np.rint(np.nan_to_num(np.asarray(depth_m, dtype=np.float64), nan=0.0) * 1e3)
    return np.clip(mm, 0, 65535).astype(np.uint16)
