"""Parameters of the monitor node (names from :mod:`miles_ros.interfaces`). ROS-free.

The node is composed into a graph by ``miles up --metrics-port`` (it has no executable of
its own and no config/ file): these defaults are all it needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from miles_ros import interfaces
from miles_ros.params.sim import SimNodeParams


@dataclass(frozen=True)
class MonitorNodeParams:
    """Parameters of the monitor node (:class:`miles_ros.ros.monitor_node.MonitorNode`)."""

    arms: tuple[str, ...] = ()
    """The arms of a cell (each arm's topics under ``/ARM``); empty: the single arm."""
    joint_state_rate_hz: float = SimNodeParams.publish_rate_hz
    """Nominal rate of /joint_states (Hz): loop jitter is each period's distance from
    its inverse."""
    joint_states_topic: str = interfaces.JOINT_STATES
    """sensor_msgs/JointState in, per arm: loop jitter from consecutive header stamps."""
    skill_status_topic: str = interfaces.SKILL_STATUS
    """std_msgs/String JSON in, per arm: skill runs, returns, stalls, refusals."""
    safety_state_topic: str = interfaces.SAFETY_STATE
    """std_msgs/String JSON in, per arm: e-stop latches, stale robot state."""
    safety_events_topic: str = interfaces.SAFETY_EVENTS
    """std_msgs/String JSON in, per arm: interventions and violations by kind."""
    plan_topic: str = interfaces.PLAN
    """std_msgs/String JSON in: the planner's decision latency."""
    manager_status_topic: str = interfaces.MANAGER_STATUS
    """std_msgs/String JSON in: goal outcomes."""
