"""Node parameters as typed dataclasses, and ``config/*.yaml`` read as ROS parameter files.

Each node declares one ROS parameter per field of its dataclass (with
:func:`miles_ros.ros.params.declare_params`) with the field's docstring
(:func:`field_docs`) as the description; defaults live in the dataclass and are mirrored
in ``config/<part>.yaml`` under ``<node_name>: ros__parameters:`` (tests/test_launch_files.py
keeps them in step for every node). Every topic and service name is a parameter: the
demo, the clients, the recorder and the benches read the names from these dataclasses.
No rclpy here (tests/test_layers.py).
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from miles_ros.runtime.command_path import VELOCITY_SCALE
from sims.robots import panda

PACKAGE = "miles_ros"


@dataclass(frozen=True)
class SimNodeParams:
    """Parameters of ``sim_node`` (PyBullet as a robot)."""

    scene_file: str = ""
    """Scene YAML ('' = the default config/scene.yaml)."""
    physics_dt: float = 0.002
    """Physics timestep (s), as in training."""
    publish_rate_hz: float = 250.0
    """Rate of /joint_states (Hz); physics runs round(1 / (rate * physics_dt)) steps per
    message."""
    real_time: bool = True
    """True: physics paced at wall-clock rate; False: as fast as possible, with sim time
    on /clock (run the other nodes with use_sim_time:=true)."""
    objects_rate_hz: float = 50.0
    """Rate of the object poses message (Hz)."""
    initial_joint_positions: tuple[float, ...] = ()
    """Arm pose at start and reset (rad, 7 values; empty = the home pose)."""
    frame_id: str = "panda_link0"
    """Frame of the object poses and camera (the robot base)."""
    joint_states_topic: str = "/joint_states"
    """sensor_msgs/JointState out: the 7 arm joints and both fingers (sensor QoS)."""
    joint_command_topic: str = "/miles/joint_command"
    """sensor_msgs/JointState in: motor position targets by joint name."""
    objects_topic: str = "/miles/scene/objects"
    """std_msgs/String out: JSON object poses (see the README)."""
    clock_topic: str = "/clock"
    """rosgraph_msgs/Clock out, only when real_time is False."""
    reset_service: str = "/miles/sim/reset"
    """std_srvs/Trigger: arm to the initial pose, cubes to their scene poses."""
    camera_service: str = "/miles/sim/capture"
    """std_srvs/Trigger: render one frame and publish it on camera_topic."""
    camera_topic: str = "/miles/camera/image_raw"
    """sensor_msgs/Image out (rgb8), one per capture request."""
    camera_width: int = 640
    """Image width (px)."""
    camera_height: int = 480
    """Image height (px)."""


@dataclass(frozen=True)
class SkillNodeParams:
    """Parameters of ``skill_node`` (the ONNX skill executor)."""

    skill_library: str = ""
    """Folder holding NAME/skill.yaml skill cards ('' = the shipped policies/skills)."""
    check_hashes: bool = True
    """Refuse skills whose ONNX files do not match the card's sha256."""
    scene_file: str = ""
    """Scene YAML for pad positions and names ('' = the default config/scene.yaml)."""
    arm: str = ""
    """The arm this node drives, by its name in the scene's ``arms:`` ('' = the single arm
    of a scene without them: base frame = world frame, names unchanged). Set: object poses
    and pads are seen in that arm's base frame (miles_ros.runtime.frames) and every topic
    of this node but objects_topic lives under /ARM (arm_scoped)."""
    loop_rate_hz: float = 0.0
    """Override of every skill's control rate (Hz); 0 = each card's own rate."""
    timeout_scale: float = 2.0
    """Multiplier on each card's timeout_s: behind the supervisor's acceleration limits a
    skill runs slower than in the training simulator."""
    home_speed: float = 0.8
    """Peak joint speed (rad/s) of the scripted home skill."""
    home_min_height: float = 0.05
    """The scripted home move keeps the TCP at least this high (m above the table top, or
    the start height when that is lower): it lifts first where the straight joint-space
    line to home would dip lower (miles_ros.runtime.homing)."""
    home_settle_speed: float = 0.05
    """home succeeds only once every joint is slower than this (rad/s) at the home pose."""
    start_from_home: bool = True
    """A learned skill asked for while the arm stands away from the states it was trained
    from (some joint further from home than its task's initial_joint_noise, or the fingers
    away from the width its episodes start with, e.g. after an earlier task) runs the
    scripted home move first (fingers to that width), then the skill with its whole time
    budget. false: the policy starts wherever the arm is."""
    stall_window_s: float = 2.0
    """A learned skill whose TCP has not moved and whose goal has come no nearer by
    stall_motion for this long (s) has settled where its policy was never trained to stop:
    it goes home and starts again (stall_restarts times), then fails "stalled: ..." before
    its timeout. 0: no watchdog (the skill runs until it succeeds or times out)."""
    stall_motion: float = 0.01
    """Least motion (m) of the TCP or of the goal distance that counts as progress."""
    stall_restarts: int = 1
    """Home-and-restart attempts of a stalled skill before it fails."""
    shape_commands: bool = True
    """A learned skill's targets go through the arm's command-path model its policy was
    trained behind (the limits of config/safety.yaml at 250 Hz) before they are published,
    as trajectory points (position and velocity) that the safety node tracks in time
    (miles_ros.runtime.command_path). false: the policy's targets as they are, each one
    shaped by the safety node (an intervention where the arm cannot follow it)."""
    command_velocity_scale: float = VELOCITY_SCALE
    """With shape_commands: the fraction of the joint velocity limits the command path
    allows (at full speed the hand's braking distance reaches the base keep-out zone and
    the safety node slows the arm; miles_ros.runtime.command_path.VELOCITY_SCALE)."""
    target_lead_max: float = 0.04
    """A learned skill's targets are stamped with the time they are for: one control
    period after the tick (the training simulators let the arm cover each step within
    the period), at most this far ahead (s). The safety node then approaches each target
    instead of extrapolating the stream past it (behind the supervisor: push 76% -> 85%,
    pick_place 65% -> 82%, reach 99% -> 100%). Keep it below safety_node's
    max_request_lead (0.05 s). 0: stamp every command with its publish time."""
    state_timeout: float = 0.5
    """A running skill fails when /joint_states is older than this (s)."""
    joint_names: tuple[str, ...] = panda.JOINT_NAMES
    """Arm joint names, in the robot model's order."""
    finger_joint_names: tuple[str, ...] = panda.FINGER_JOINT_NAMES
    """Finger joint names (commanded only by skills that use the gripper)."""
    joint_states_topic: str = "/joint_states"
    """sensor_msgs/JointState in (sensor QoS)."""
    objects_topic: str = "/miles/scene/objects"
    """std_msgs/String JSON object poses in (from the sim node or a perception node)."""
    request_topic: str = "/miles/skill/request"
    """std_msgs/String JSON requests in: {id, skill, params} or {id, cancel: true}."""
    status_topic: str = "/miles/skill/status"
    """std_msgs/String JSON status out: {id, skill, state, progress, reason}."""
    skill_command_topic: str = "/miles/skill_command"
    """sensor_msgs/JointState out: requested joint targets, to the safety node (with the
    arm's velocities when they are trajectory points: home, shaped learned skills)."""
    joint_command_topic: str = "/miles/joint_command"
    """sensor_msgs/JointState in: the safety node's commands to the robot (where a home
    move or a skill's command path starts from)."""
    safety_state_topic: str = "/miles/safety/state"
    """std_msgs/String JSON in: the supervisor's state (reliable, transient-local)."""
    skill_tags_topic: str = "/miles/safety/skill_tags"
    """std_msgs/String JSON out: {skill, tags} of the running skill, for the supervisor."""


@dataclass(frozen=True)
class CommandAdapterParams:
    """Parameters of ``command_adapter_node`` (JointState -> Float64MultiArray)."""

    joint_names: tuple[str, ...] = panda.JOINT_NAMES
    """Joints in the order the controller's command array expects."""
    input_topic: str = "/miles/joint_command"
    """sensor_msgs/JointState in: the safety node's output."""
    output_topic: str = "/forward_position_controller/commands"
    """std_msgs/Float64MultiArray out: a ros2_control forward position controller."""


NODE_PARAMS: dict[str, type] = {
    "sim_node": SimNodeParams,
    "skill_node": SkillNodeParams,
    "command_adapter_node": CommandAdapterParams,
}
"""Parameter dataclass of each node written in this package's runtime."""

NODE_CONFIGS: dict[str, str] = {
    "sim_node": "sim.yaml",
    "safety_node": "safety.yaml",
    "skill_node": "skills.yaml",
    "manager_node": "manager.yaml",
    "command_adapter_node": "command_adapter.yaml",
}
"""Each node executable's parameter file in config/ (keys under ``<node>: ros__parameters``)."""


def node_param_classes(executable: str) -> tuple[type, ...]:
    """The dataclasses whose fields are ``executable``'s parameters, in declaration order
    (the safety node declares its limits, then its names)."""
    if executable in NODE_PARAMS:
        return (NODE_PARAMS[executable],)
    if executable == "safety_node":
        from miles_ros.safety.config import SafetyConfig, SafetyNodeNames

        return (SafetyConfig, SafetyNodeNames)
    if executable == "manager_node":
        from miles_ros.runtime.manager_params import ManagerNodeParams

        return (ManagerNodeParams,)
    raise KeyError(f"no node executable {executable!r}")


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass, read from its source."""
    body = ast.parse(inspect.getsource(cls)).body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def under_namespace(namespace: str, name: str) -> str:
    """``/miles/x`` under another namespace: ``/NS/x`` (names outside /miles unchanged)."""
    if namespace.rstrip("/") in ("", "/miles") or not name.startswith("/miles/"):
        return name
    return "/" + namespace.strip("/") + name[len("/miles") :]


def arm_scoped(arm: str, name: str) -> str:
    """``name`` under an arm's namespace: ``/ARM/joint_states``, ``/ARM/miles/x``; unchanged
    for arm "" (the single arm) and for a name already under ``/ARM/``."""
    if not arm:
        return name
    prefix = "/" + arm.strip("/")
    if name == prefix or name.startswith(prefix + "/"):
        return name
    return prefix + "/" + name.lstrip("/")


def config_dir() -> Path:
    """config/ of the source tree, else the installed share/miles_ros/config."""
    here = Path(__file__).resolve().parents[2] / "config"
    if here.is_dir():
        return here
    for prefix in dict.fromkeys([sys.prefix, *os.environ.get("AMENT_PREFIX_PATH", "").split(":")]):
        if prefix and (Path(prefix) / "share" / PACKAGE / "config").is_dir():
            return Path(prefix) / "share" / PACKAGE / "config"
    return here


def load_node_params(path: str | Path, node_name: str) -> dict[str, Any]:
    """The ``ros__parameters`` of ``node_name`` in a ROS parameter file (also under a
    ``/**`` or namespaced key), or {} when the file has none for it."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    out: dict[str, Any] = {}
    for key, section in data.items():
        name = str(key).rsplit("/", 1)[-1]
        if name in ("**", node_name) and isinstance(section, dict):
            out.update(section.get("ros__parameters") or {})
    return out
