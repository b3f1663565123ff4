"""Parameters of ``perception_node`` (defaults mirrored in config/perception.yaml; names
from :mod:`miles_ros.interfaces`). ROS-free."""

from __future__ import annotations

from dataclasses import dataclass

from miles_ros import interfaces
from sims.robots import panda


@dataclass(frozen=True)
class PerceptionNodeParams:
    """Parameters of ``perception_node`` (object poses from an RGB-D camera)."""

    scene_file: str = ""
    """Scene YAML: the cubes to find, the pads, the arms and the camera's calibrated pose
    ('' = the default config/scene.yaml)."""
    mode: str = interfaces.PERCEPTION_COLOUR
    """How cubes are found: "colour" (by their colour and depth) or "apriltag" (by the
    tag36h11 AprilTags on their top faces, the scene file's ``tag:``; docs/perception.md)."""
    publish_rate_hz: float = 30.0
    """Rate of the object poses message (Hz), besides one after every frame: the poses
    age between frames."""
    frame_id: str = "panda_link0"
    """Frame of the object poses of a scene without arms: (the robot base); a cell's are
    in its world frame."""
    max_pair_skew_s: float = 0.001
    """A colour and a depth image pair up when their stamps are this close (s; an aligned
    depth image carries its colour frame's stamp)."""
    color_topic: str = interfaces.CAMERA_COLOR
    """sensor_msgs/Image in: colour, rgb8 or bgr8 (relative: under the node's namespace)."""
    depth_topic: str = interfaces.CAMERA_DEPTH
    """sensor_msgs/Image in: depth aligned to the colour image, 16UC1 (mm) or 32FC1 (m)."""
    camera_info_topic: str = interfaces.CAMERA_INFO
    """sensor_msgs/CameraInfo in: the colour image's intrinsics."""
    joint_states_topic: str = interfaces.JOINT_STATES
    """sensor_msgs/JointState in, per arm (under /ARM in a cell): where the hand is, for a
    cube held in the gripper."""
    objects_topic: str = interfaces.SCENE_OBJECTS
    """std_msgs/String out: JSON object poses (docs/interfaces.md), source "camera"."""
    joint_names: tuple[str, ...] = panda.JOINT_NAMES
    """Arm joint names, in the robot model's order."""
    finger_joint_names: tuple[str, ...] = panda.FINGER_JOINT_NAMES
    """Finger joint names: the gripper's width is the sum of their positions."""
