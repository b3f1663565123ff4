"""Seeing the cell, ROS-free: camera messages as arrays (:mod:`.images`), the scene's cubes
found in an RGB-D frame (:mod:`.detect`, or by their AprilTags: :mod:`.tags`), and their
poses tracked through occlusion and grasps (:mod:`.pipeline`, what it knows of each cube
and arm in :mod:`.tracks`, its tuning in :mod:`.config`, the hand's geometry in
:mod:`.hand`). ``miles_ros/ros/perception_node.py`` runs it on ROS topics."""

from miles_ros.perception.config import PerceptionConfig
from miles_ros.perception.detect import CubeDetector, DetectConfig, Detection, yaw_difference
from miles_ros.perception.images import (
    FrameRefused,
    decode_color,
    decode_depth,
    encode_depth_mm,
    intrinsics_from_camera_info,
)
from miles_ros.perception.pipeline import SOURCE, FrameReport, Perception
from miles_ros.perception.tracks import STATES

__all__ = [
    "SOURCE",
    "STATES",
    "CubeDetector",
    "DetectConfig",
    "Detection",
    "FrameRefused",
    "FrameReport",
    "Perception",
    "PerceptionConfig",
    "decode_color",
    "decode_depth",
    "encode_depth_mm",
    "intrinsics_from_camera_info",
    "yaw_difference",
]
