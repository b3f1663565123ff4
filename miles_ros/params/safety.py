"""Parameters of ``safety_node``: its topic and service names (defaults mirrored in
config/safety.yaml; names from :mod:`miles_ros.interfaces`). The node declares its limits
first (:class:`miles_ros.safety.config.SafetyConfig`, the supervisor core's own config,
ROS-free), then these. ROS-free."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from miles_ros import interfaces

if TYPE_CHECKING:
    from miles_ros.safety.config import SafetyConfig


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


def load_safety_config(paths: Sequence[str | Path], strict: bool = True) -> SafetyConfig:
    """The supervisor's config from the ``safety_node`` sections of the ROS parameter files
    ``paths``, later files over earlier ones; the node's topic and service names are not
    part of it. ``strict``: a name neither the config nor the node knows, or a value the
    supervisor refuses, is a ValueError naming the file; otherwise such names are skipped
    and the values taken as they are (a viewer's reading: the node validates its own)."""
    from miles_ros.params import load_node_params
    from miles_ros.safety.config import SafetyConfig  # numba: loaded when used

    known = {f.name for f in fields(SafetyConfig)}
    node_names = {f.name for f in fields(SafetyNodeNames)}
    values: dict = {}
    for path in paths:
        section = load_node_params(path, "safety_node")
        unknown = set(section) - known - node_names
        if strict and unknown:
            raise ValueError(
                f"{path}: unknown safety_node parameters: {', '.join(sorted(unknown))}"
            )
        values.update({k: v for k, v in section.items() if k in known})
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    if not strict:
        return SafetyConfig(**kwargs)
    try:
        config = SafetyConfig(**kwargs)
        config.validate()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{', '.join(map(str, paths))}: {exc}") from exc
    return config
