"""Parameters of ``safety_node``: its topic and service names (defaults mirrored in
config/safety.yaml; names from :mod:`miles_ros.interfaces`). The node declares its limits
first (:class:`miles_ros.safety.config.SafetyConfig`, the supervisor core's own config,
ROS-free), then these. ROS-free."""

from __future__ import annotations

from dataclasses import dataclass

from miles_ros import interfaces


@dataclass(frozen=True)
class SafetyNodeNames:
    """Topic and service names of the safety node (:mod:`miles_ros.interfaces`)."""

    skill_command_topic: str = interfaces.SKILL_COMMAND
    """Requested joint targets (sensor_msgs/JointState) from the skill node."""
    joint_states_topic: str = interfaces.JOINT_STATES
    """Measured robot state (sensor_msgs/JointState), sensor QoS."""
    joint_command_topic: str = interfaces.JOINT_COMMAND
    """The only commands a robot receives (sensor_msgs/JointState)."""
    estop_topic: str = interfaces.ESTOP
    """E-stop input state (std_msgs/Bool): true latches, false allows a later reset."""
    state_topic: str = interfaces.SAFETY_STATE
    """Supervisor state JSON (std_msgs/String), reliable + transient-local."""
    events_topic: str = interfaces.SAFETY_EVENTS
    """One JSON object per intervention (std_msgs/String)."""
    skill_tags_topic: str = interfaces.SAFETY_SKILL_TAGS
    """Active skill and its permission tags as JSON {"skill", "tags"} (std_msgs/String)."""
    trigger_service: str = interfaces.TRIGGER_ESTOP
    """std_srvs/Trigger that latches the e-stop."""
    reset_service: str = interfaces.RESET_ESTOP
    """std_srvs/Trigger that resets it when allowed."""
    occupancy_topic: str = interfaces.SAFETY_OCCUPANCY
    """Every arm's occupancy JSON (std_msgs/String, miles_ros.safety.Occupancy), shared by
    the arms of a cell (never under /ARM); published and read only in a multi-arm scene."""
