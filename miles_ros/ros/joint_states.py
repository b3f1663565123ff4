"""What the nodes read from ROS messages alike: a header stamp in seconds, and one arm's
joints from a ``sensor_msgs/JointState`` (a rate-limited warning where they are not in it)."""

from __future__ import annotations

from rclpy.node import Node
from sensor_msgs.msg import JointState

from miles_ros.runtime.observation import JointReading, parse_joint_state


def stamp_seconds(stamp) -> float:
    """A ``builtin_interfaces/Time`` in seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def read_arm_joints(
    node: Node, msg: JointState, stamp: float, params, log_period_s: float
) -> JointReading | None:
    """The arm of ``params`` (its ``joint_names`` and ``finger_joint_names``) in ``msg``,
    read at ``stamp`` (s); None, with a warning at most every ``log_period_s``, when the
    message lacks a joint or holds non-finite values."""
    try:
        return parse_joint_state(
            msg.name,
            msg.position,
            msg.velocity,
            stamp,
            params.joint_names,
            params.finger_joint_names,
        )
    except ValueError as exc:
        node.get_logger().warning(
            f"joint state ignored: {exc}", throttle_duration_sec=log_period_s
        )
        return None
