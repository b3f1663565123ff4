"""Parameters of ``arm_agent_node``, one arm's contract-net bidder in a cell (names from
:mod:`miles_ros.interfaces`). ROS-free."""

from __future__ import annotations

from dataclasses import dataclass

from miles_ros import interfaces


@dataclass(frozen=True)
class ArmAgentParams:
    """Parameters of ``arm_agent_node``."""

    arm: str = ""
    """The scene's arm this agent bids for (required)."""
    scene_file: str = ""
    """Scene YAML with ``arms:`` ('' = config/scene.yaml)."""
    skill_library: str = ""
    """Skill directory ('' = the shipped skills)."""
    announce_topic: str = interfaces.TASKS_ANNOUNCE
    """std_msgs/String JSON in: task announcements."""
    bid_topic: str = interfaces.TASKS_BID
    """std_msgs/String JSON out: bids and refusals."""
    award_topic: str = interfaces.TASKS_AWARD
    """std_msgs/String JSON in: awards."""
    joint_states_topic: str = interfaces.JOINT_STATES
    """sensor_msgs/JointState in, under /ARM."""
    objects_topic: str = interfaces.SCENE_OBJECTS
    """std_msgs/String JSON in: world-frame object poses (shared by the arms)."""
    skill_status_topic: str = interfaces.SKILL_STATUS
    """std_msgs/String JSON in, under /ARM: the arm's skill statuses."""
