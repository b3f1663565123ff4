"""The safety supervisor's core (no ROS): joint limits with braking, Cartesian zones and
speed cap through forward kinematics (the TCP and every link sphere), separation from
peer arms, watchdog, e-stop latch with a controlled stop,
request validation, skill permission tags and an audit trail.

The node ``miles_ros/ros/safety_node.py`` is a thin rclpy adapter over
:class:`SafetySupervisor`.
"""

from miles_ros.safety.audit import AuditLog, Intervention
from miles_ros.safety.checker import Violations, check_commands
from miles_ros.safety.config import SafetyConfig
from miles_ros.safety.limits import JointLimits
from miles_ros.safety.permissions import (
    PermissionDecision,
    PermissionPolicy,
    check_skill_permission,
)
from miles_ros.safety.separation import Occupancy, PeerMonitor, SeparationConfig
from miles_ros.safety.supervisor import Command, JointRequest, SafetySupervisor

__all__ = [
    "AuditLog",
    "Command",
    "Intervention",
    "JointLimits",
    "JointRequest",
    "Occupancy",
    "PeerMonitor",
    "PermissionDecision",
    "PermissionPolicy",
    "SafetyConfig",
    "SeparationConfig",
    "SafetySupervisor",
    "Violations",
    "check_commands",
    "check_skill_permission",
]
