"""The training observation from ROS data: joint states + object poses -> SimState.

A skill must see exactly what it saw in training, so this builds the same
:class:`sims.tasks.base.SimState` a backend produces (one env, float64) and the node then
calls the task's own ``observe``: measured joint positions and velocities (from
``/joint_states``, reordered by name), the TCP from forward kinematics of the measured
joints (:func:`sims.robots.panda.fk_tcp`, as the backends do), the finger width (the sum
of the two finger positions), the task's cube position and yaw (from the object poses)
and the goal (its position, and for turn its yaw).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sims.robots import panda
from sims.tasks.base import SimState


@dataclass(frozen=True)
class JointReading:
    """One ``/joint_states`` message, reduced to what the skills use."""

    arm_pos: np.ndarray
    """The 7 arm joint positions (rad), in ``panda.JOINT_NAMES`` order."""
    arm_vel: np.ndarray
    """The 7 arm joint velocities (rad/s); zeros when the message has none."""
    finger_width: float
    """Opening between the fingers (m): the sum of both finger positions; 0 without them."""
    stamp: float
    """The message's header stamp (s)."""
    finger_centre: float = 0.0
    """The fingers' midpoint along the closing axis from the TCP (m): half the first
    finger's position less the second's; 0 without them (a Franka Hand's move together)."""


@dataclass(frozen=True)
class ObjectPose:
    """A scene body's pose in the robot base frame."""

    position: np.ndarray
    """Centre (m) [3]."""
    yaw: float
    """Rotation about z (rad)."""


def parse_joint_state(
    names: Sequence[str],
    positions: Sequence[float],
    velocities: Sequence[float],
    stamp: float,
    joint_names: Sequence[str] = panda.JOINT_NAMES,
    finger_names: Sequence[str] = panda.FINGER_JOINT_NAMES,
) -> JointReading:
    """A :class:`JointReading` from a JointState's fields (any joint order, extra joints
    ignored). ValueError names a missing arm joint or non-finite values."""
    index = {name: i for i, name in enumerate(names)}
    missing = [n for n in joint_names if n not in index]
    if missing:
        raise ValueError(f"joint state lacks {', '.join(missing)}")
    if len(positions) != len(names):
        raise ValueError(f"joint state has {len(names)} names but {len(positions)} positions")
    order = [index[n] for n in joint_names]
    pos = np.asarray(positions, dtype=np.float64)
    arm_pos = pos[order]
    if len(velocities) == len(names):
        arm_vel = np.asarray(velocities, dtype=np.float64)[order]
    else:
        arm_vel = np.zeros(len(joint_names))
    if not (np.all(np.isfinite(arm_pos)) and np.all(np.isfinite(arm_vel))):
        raise ValueError("joint state has non-finite arm positions or velocities")
    width = centre = 0.0
    if all(n in index for n in finger_names):
        fingers = [float(pos[index[n]]) for n in finger_names]
        width, centre = sum(fingers), (fingers[0] - fingers[-1]) / 2
    if not (math.isfinite(width) and math.isfinite(centre)):
        width = centre = 0.0
    return JointReading(arm_pos, arm_vel, width, stamp, centre)


def sim_state(
    joints: JointReading,
    goal: np.ndarray,
    obj: ObjectPose | None = None,
    goal_yaw: float | None = None,
) -> SimState:
    """The one-env :class:`SimState` a backend would produce for this reading;
    ``goal_yaw``: the cube's target yaw (rad) of a task that has one (turn)."""
    q = joints.arm_pos.reshape(1, 7)
    tcp = panda.fk_tcp(joints.arm_pos).reshape(1, 3)
    object_pos = np.zeros((1, 3)) if obj is None else np.asarray(obj.position, float).reshape(1, 3)
    object_yaw = np.zeros(1) if obj is None else np.array([float(obj.yaw)])
    return SimState(
        joint_pos=q.copy(),
        joint_vel=joints.arm_vel.reshape(1, 7).copy(),
        tcp_pos=tcp,
        finger_width=np.array([joints.finger_width]),
        object_pos=object_pos,
        object_yaw=object_yaw,
        goal_pos=np.asarray(goal, dtype=np.float64).reshape(1, 3).copy(),
        goal_yaw=None if goal_yaw is None else np.array([float(goal_yaw)]),
    )


def parse_objects(payload: Mapping) -> dict[str, ObjectPose]:
    """Object poses from the ``/miles/scene/objects`` JSON (see the sim node): the
    ``objects`` mapping of name -> {"position": [3], "yaw": rad, ...}."""
    poses = {}
    for name, body in (payload.get("objects") or {}).items():
        position = np.asarray(body["position"], dtype=np.float64)
        yaw = float(body.get("yaw", 0.0))
        if position.shape != (3,) or not (np.all(np.isfinite(position)) and math.isfinite(yaw)):
            raise ValueError(f"object {name!r}: bad pose {body!r}")
        poses[str(name)] = ObjectPose(position, yaw)
    return poses


def parse_freshness(payload: Mapping) -> tuple[dict[str, float], dict[str, str]]:
    """When each object of a ``/miles/scene/objects`` payload was seen and which are
    missing: (name -> stamp in s: the object's own ``stamp`` where it has one, a
    perception node's, else the payload's; the simulator's poses are all of its time),
    (name -> why it is missing: the payload's ``missing``). Objects without any stamp are
    left out (their age is unknown)."""
    default = payload.get("stamp")
    stamps = {}
    for name, body in (payload.get("objects") or {}).items():
        stamp = body.get("stamp", default) if isinstance(body, Mapping) else default
        if isinstance(stamp, int | float) and math.isfinite(stamp):
            stamps[str(name)] = float(stamp)
    missing = {str(n): str(why) for n, why in (payload.get("missing") or {}).items()}
    return stamps, missing


def pose_refusal(
    names, stamps: Mapping[str, float], missing: Mapping[str, str], now: float, max_age: float
) -> str:
    """Why a skill on the objects ``names`` may not start from their poses ('' when it
    may): an object listed missing, or one whose pose is older than ``max_age`` s at
    ``now`` (0: no age bound; an object without a stamp is not aged)."""
    for name in names:
        if name in missing:
            return f"no pose of {name}: {missing[name]}"
        if max_age > 0 and name in stamps and now - stamps[name] > max_age:
            age = now - stamps[name]
            return f"the pose of {name} is {age:.2f} s old (more than max_pose_age_s {max_age:g})"
    return ""


GOAL_YAW = "goal_yaw"
"""The key of an :func:`encode_inputs` record holding the goal's yaw (rad; turn only)."""
INPUT_POSES = ("object", "stack_on")
"""The roles of the cube poses a skill's observation reads, as keys of
:func:`encode_inputs`' record: the cube it moves and the cube it stacks on."""


def encode_inputs(
    joints: JointReading,
    goal_pos: np.ndarray,
    poses: Mapping[str, ObjectPose | None],
    goal_yaw: float | None = None,
) -> dict:
    """What one period's observation was built from, as the plain data of a ``running``
    skill status (``inputs``, :data:`miles_ros.interfaces.SKILL_INPUTS`): the joint
    reading, the resolved goal (and ``goal_yaw``, rad, when the goal has one: turn) and
    the cube poses by role (:data:`INPUT_POSES`; a role without a pose is left out).
    :func:`decode_inputs` reads it back exactly."""
    out = {
        "stamp": joints.stamp,
        "q": joints.arm_pos.tolist(),
        "dq": joints.arm_vel.tolist(),
        "finger_width": joints.finger_width,
        "goal": np.asarray(goal_pos, dtype=float).tolist(),
    }
    if goal_yaw is not None:
        out[GOAL_YAW] = float(goal_yaw)
    for role in INPUT_POSES:
        pose = poses.get(role)
        if pose is not None:
            out[role] = [*pose.position.tolist(), pose.yaw]
    return out


def decode_inputs(
    inputs: Mapping,
) -> tuple[JointReading, np.ndarray | None, dict[str, ObjectPose]]:
    """The joint reading, the goal (None when the record has none) and the cube poses by
    role of an :func:`encode_inputs` record."""
    joints = JointReading(
        np.asarray(inputs["q"], dtype=np.float64),
        np.asarray(inputs["dq"], dtype=np.float64),
        float(inputs["finger_width"]),
        float(inputs["stamp"]),
    )
    goal = np.asarray(inputs["goal"], dtype=np.float64) if "goal" in inputs else None
    poses = {}
    for role in INPUT_POSES:
        if role in inputs:
            *position, yaw = inputs[role]
            poses[role] = ObjectPose(np.asarray(position, dtype=np.float64), float(yaw))
    return joints, goal, poses
