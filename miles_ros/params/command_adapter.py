"""Parameters of ``command_adapter_node`` (defaults mirrored in config/command_adapter.yaml;
names from :mod:`miles_ros.interfaces`). ROS-free."""

from __future__ import annotations

from dataclasses import dataclass

from miles_ros import interfaces
from sims.robots import panda


@dataclass(frozen=True)
class CommandAdapterParams:
    """Parameters of ``command_adapter_node`` (JointState -> Float64MultiArray)."""

    joint_names: tuple[str, ...] = panda.JOINT_NAMES
    """Joints in the order the controller's command array expects."""
    input_topic: str = interfaces.JOINT_COMMAND
    """sensor_msgs/JointState in: the safety node's output."""
    output_topic: str = interfaces.FORWARD_POSITION_COMMANDS
    """std_msgs/Float64MultiArray out: a ros2_control forward position controller."""
