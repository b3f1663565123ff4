"""The supervisor's configuration: every limit, margin, zone and rate, typed, with
defaults (mirrored in ``config/safety.yaml``) and validation. No ROS imports: the node
declares one ROS parameter per field (see ``miles_ros/ros/params.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from miles_ros.safety.limits import JointLimits
from miles_ros.safety.separation import SeparationConfig
from miles_ros.safety.zones import Zone, parse_zone
from sims.robots import panda

LIMIT_MODES = ("clamp", "scale")


@dataclass(frozen=True)
class SafetyConfig:
    """What the supervisor enforces. Limits come from the robot model; only scale factors
    (which can only reduce them) and the margin are configured."""

    joint_names: tuple[str, ...] = panda.JOINT_NAMES
    """Arm joint names, in the order of the robot model's limit arrays."""
    finger_joint_names: tuple[str, ...] = panda.FINGER_JOINT_NAMES
    """Optional finger joints; passed through clipped into the gripper's travel."""
    position_margin: float = 0.1
    """Distance (rad) kept from every position limit (MoveIt Servo's default)."""
    velocity_scale: float = 1.0
    """Fraction (0, 1] of the datasheet joint velocity limits."""
    acceleration_scale: float = 1.0
    """Fraction (0, 1] of the datasheet joint acceleration limits."""
    jerk_scale: float = 1.0
    """Fraction (0, 1] of the datasheet joint jerk limits."""
    limit_mode: str = "scale"
    """'scale': slow the whole joint velocity vector by one factor to keep its direction
    when possible; 'clamp': clamp each joint on its own."""
    rate_hz: float = 250.0
    """Output rate of /miles/joint_command (Hz)."""
    watchdog_period: float = 0.1
    """No fresh request for this long (s) -> controlled stop and hold."""
    state_timeout: float = 0.5
    """Robot state (joint_states) silent for this long (s) -> e-stop (lost robot state)."""
    max_request_age: float = 0.1
    """Requests whose stamp is older than this (s) are stale and rejected."""
    max_request_lead: float = 0.05
    """Requests stamped further than this (s) in the future are rejected."""
    still_velocity: float = 0.01
    """Reset requires every measured joint speed below this (rad/s)."""
    tracking_tolerance: float = 0.25
    """A measured joint this far (rad) from the last command has left the commanded
    trajectory (a reset or hand-guided arm, a controller restart): the output is re-seeded
    from the measured state and held there (event 'tracking_reset'). Normal tracking
    stays below it: a lag of up to 0.045 rad at full speed in PyBullet, 0.13 rad through
    the in-process ROS graph on a loaded machine."""
    fault_violations: int = 25
    """Rejected requests (malformed, stale, refused skill) within fault_window that
    trigger the e-stop; 0 disables this fault."""
    fault_window: float = 1.0
    """Window (s) for fault_violations."""
    workspace_min: tuple[float, ...] = (-0.35, -0.8, -0.01)
    """TCP workspace box, minimum corner (m, base frame)."""
    workspace_max: tuple[float, ...] = (0.95, 0.8, 1.3)
    """TCP workspace box, maximum corner (m, base frame)."""
    keepout_zones: tuple[str, ...] = ("robot_base box -0.25 -0.15 -0.2 0.12 0.15 0.25",)
    """Keep-out zones for the TCP: 'NAME box XMIN YMIN ZMIN XMAX YMAX ZMAX' or
    'NAME sphere X Y Z R' (m, base frame)."""
    zone_padding: float = 0.0
    """Grows every zone and shrinks the workspace by this much (m)."""
    link_checks: bool = True
    """Whole-arm checks: the link spheres of links 2-7 and the hand also keep out of the
    zones, inside the workspace and above the table, the fingers out of the zones
    (miles_ros/safety/links.py); false checks the TCP point only."""
    table_height: float = 0.0
    """Table top (m, base frame): the link spheres (not the fingers) stay above it."""
    link_workspace_margin: float = 0.1
    """The link spheres stay inside the workspace box grown by this much (m): the box
    bounds the TCP; the hand reaches past it (by 2 cm with joint 1 at its limit)."""
    tcp_speed_limit: float = 1.0
    """TCP speed cap (m/s)."""
    reduced_speed: bool = False
    """Reduced-speed mode: TCP speed capped at reduced_tcp_speed. Switchable only
    through this parameter (never by a skill)."""
    reduced_tcp_speed: float = 0.25
    """TCP speed cap in reduced-speed mode (m/s)."""
    allowed_skill_tags: tuple[str, ...] = ("*",)
    """Permission tags a skill may carry in this deployment ('*' = any)."""
    permission_zones: tuple[str, ...] = ()
    """Zones where some tags are forbidden, same syntax as keepout_zones plus
    'forbid=TAG,TAG'; while a skill with such a tag runs, the zone is kept out."""
    audit_path: str = ""
    """Append every intervention as one JSON line to this file ('' = off)."""
    audit_throttle: float = 0.1
    """Minimum interval (s) between two published events of the same kind (any joint); the
    ones in between are counted in the next published event's 'suppressed' field. The
    audit_path file keeps every event."""
    log_burst_gap: float = 1.0
    """A quiet period (s) that ends a burst of rejected requests (logged once per burst)."""
    arm: str = ""
    """This node's arm by its name in the scene's ``arms:`` ('' = the single arm of a
    scene without them). Set: every topic and service of the node but occupancy_topic
    lives under /ARM (arm_scoped), and the other arms of the scene are its peers."""
    scene_file: str = ""
    """Scene YAML that places the arms ('' = config/scene.yaml: one arm, no peers)."""
    separation_margin: float = SeparationConfig.margin
    """Distance (m) kept between the spheres of two arms (miles_ros.safety.separation)."""
    peer_max_age: float = SeparationConfig.max_age
    """A peer's occupancy older than this (s) stops the arm (controlled stop, not a
    latch) until a fresh one arrives."""
    occupancy_decimation: int = 1
    """Publish this arm's occupancy every Nth output period (1 = at rate_hz)."""

    @property
    def limits(self) -> JointLimits:
        """Joint limits from the robot model with this config's margin and scales."""
        return JointLimits.from_robot(
            margin=self.position_margin,
            velocity_scale=self.velocity_scale,
            acceleration_scale=self.acceleration_scale,
            jerk_scale=self.jerk_scale,
        )

    @property
    def workspace(self) -> tuple[np.ndarray, np.ndarray]:
        """The TCP workspace box as arrays: (``workspace_min`` [3], ``workspace_max`` [3])."""
        return np.array(self.workspace_min, dtype=float), np.array(self.workspace_max, dtype=float)

    @property
    def zones(self) -> tuple[Zone, ...]:
        """The ``keepout_zones``, parsed (:func:`~miles_ros.safety.zones.parse_zone`)."""
        return tuple(parse_zone(spec)[0] for spec in self.keepout_zones)

    @property
    def tcp_speed_cap(self) -> float:
        """The TCP speed cap in force (reduced-speed mode or not)."""
        if self.reduced_speed:
            return min(self.reduced_tcp_speed, self.tcp_speed_limit)
        return self.tcp_speed_limit

    def validate(self) -> None:
        """Raise ValueError with a specific message for an unusable configuration."""
        validate_fields(self)
        if len(self.joint_names) != panda.NUM_JOINTS or len(set(self.joint_names)) != len(
            self.joint_names
        ):
            raise ValueError(f"joint_names: need {panda.NUM_JOINTS} distinct names")
        if len(self.finger_joint_names) not in (0, 2):
            raise ValueError("finger_joint_names: need 0 or 2 names")
        if set(self.finger_joint_names) & set(self.joint_names):
            raise ValueError("finger_joint_names overlap joint_names")
        if any(lo >= hi for lo, hi in zip(self.workspace_min, self.workspace_max, strict=True)):
            raise ValueError("workspace_min must be below workspace_max on every axis")
        for spec in self.keepout_zones + self.permission_zones:
            parse_zone(spec)
        self.limits.validate()


def _positive(value: float) -> bool:
    return math.isfinite(value) and value > 0.0


_FIELD_CHECKS = {
    "position_margin": (lambda x: 0.0 <= x <= 0.5, "in [0, 0.5] rad"),
    "velocity_scale": (lambda x: 0.0 < x <= 1.0, "in (0, 1]"),
    "acceleration_scale": (lambda x: 0.0 < x <= 1.0, "in (0, 1]"),
    "jerk_scale": (lambda x: 0.0 < x <= 1.0, "in (0, 1]"),
    "limit_mode": (lambda x: x in LIMIT_MODES, f"one of {LIMIT_MODES}"),
    "rate_hz": (lambda x: 1.0 <= x <= 2000.0, "in [1, 2000] Hz"),
    "watchdog_period": (_positive, "positive"),
    "state_timeout": (_positive, "positive"),
    "max_request_age": (_positive, "positive"),
    "max_request_lead": (lambda x: math.isfinite(x) and x >= 0.0, "non-negative"),
    "still_velocity": (_positive, "positive"),
    "tracking_tolerance": (lambda x: 0.0 < x <= 1.0, "in (0, 1] rad"),
    "fault_violations": (lambda x: x >= 0, "non-negative"),
    "fault_window": (_positive, "positive"),
    "workspace_min": (lambda x: len(x) == 3 and all(map(math.isfinite, x)), "3 finite numbers"),
    "workspace_max": (lambda x: len(x) == 3 and all(map(math.isfinite, x)), "3 finite numbers"),
    "zone_padding": (lambda x: math.isfinite(x) and x >= 0.0, "non-negative"),
    "link_checks": (lambda x: isinstance(x, bool), "true or false"),
    "link_workspace_margin": (lambda x: math.isfinite(x) and 0.0 <= x <= 1.0, "in [0, 1] m"),
    "table_height": (lambda x: math.isfinite(x) and -1.0 <= x <= 1.0, "in [-1, 1] m"),
    "tcp_speed_limit": (_positive, "positive"),
    "reduced_tcp_speed": (_positive, "positive"),
    "audit_throttle": (lambda x: math.isfinite(x) and x >= 0.0, "non-negative"),
    "log_burst_gap": (_positive, "positive"),
    "separation_margin": (lambda x: math.isfinite(x) and 0.0 <= x <= 1.0, "in [0, 1] m"),
    "peer_max_age": (lambda x: math.isfinite(x) and 0.0 < x <= 1.0, "in (0, 1] s"),
    "occupancy_decimation": (lambda x: isinstance(x, int) and 1 <= x <= 100, "in 1..100"),
}


def check_field(name: str, value: object) -> str | None:
    """Why ``value`` is not acceptable for field ``name`` (None when it is)."""
    rule = _FIELD_CHECKS.get(name)
    if rule is None:
        return None
    check, text = rule
    try:
        ok = bool(check(value))
    except (TypeError, ValueError):
        ok = False
    return None if ok else f"{name} must be {text}, got {value!r}"


def validate_fields(config: object) -> None:
    """Field-by-field checks of a config dataclass instance."""
    for f in fields(config):
        reason = check_field(f.name, getattr(config, f.name))
        if reason:
            raise ValueError(reason)
