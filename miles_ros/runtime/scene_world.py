"""The default scene as one PyBullet world: the sim node's robot (no ROS here).

Composes :class:`sims.backends.pybullet.world.BulletWorld` (the same Panda URDF, motors,
table, cube dynamics and friction as the PyBullet training backend), built by
:func:`sims.backends.pybullet.scene.world_spec_from_scene` from the scene
(:func:`sims.scene.load_scene`, ``config/scene.yaml``) with its named cubes and pads,
movable fingers (so every skill, including pick_place, runs in the same world) and no
task cube; the world's goal marker is parked below the table. Physics advances one
timestep at a time so the node can publish ``/joint_states`` at its own rate; motors
track the latest position targets with the datasheet torque limits
(``setJointMotorControlArray`` POSITION_CONTROL, as training).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pybullet as p

from sims.backends.pybullet.scene import DEFAULT_CAMERA, world_spec_from_scene
from sims.backends.pybullet.urdf import ARM_JOINT_NAMES, FINGER_JOINT_NAMES
from sims.backends.pybullet.workers import WorkerProcess
from sims.backends.pybullet.world import (
    RESET_DIM,
    RESET_FINGER,
    RESET_GOAL,
    RESET_JOINT_POS,
    BulletWorld,
    yaw_from_quaternion,
)
from sims.robots import panda
from sims.scene import Scene, load_scene

JOINT_NAMES: tuple[str, ...] = ARM_JOINT_NAMES + FINGER_JOINT_NAMES
"""Joints reported on ``/joint_states``: the 7 arm joints, then both fingers."""
PARKED_MARKER = (0.0, 0.0, -1.0)
"""Where the world's goal marker waits (below the table, out of every picture)."""


@dataclass(frozen=True)
class BodyPose:
    """A body's pose in the robot base frame."""

    position: tuple[float, float, float]
    """Centre (m)."""
    orientation: tuple[float, float, float, float]
    """Quaternion x, y, z, w."""

    @property
    def yaw(self) -> float:
        """Rotation about z (rad)."""
        return yaw_from_quaternion(*self.orientation)


class SceneWorld:
    """The Panda, the table, the scene's cubes and pads, stepped one timestep at a time."""

    def __init__(
        self,
        scene: Scene | None = None,
        physics_dt: float = 0.002,
        initial_joint_positions: np.ndarray | None = None,
        finger_position: float = panda.finger_position_max,
    ):
        if not (math.isfinite(physics_dt) and 0.0 < physics_dt <= 0.01):
            raise ValueError(f"physics_dt must be in (0, 0.01] s, got {physics_dt!r}")
        self.scene = scene if scene is not None else load_scene()
        self.physics_dt = float(physics_dt)
        q0 = (
            panda.home_joint_positions
            if initial_joint_positions is None
            else (np.asarray(initial_joint_positions, dtype=np.float64))
        )
        if q0.shape != (7,) or not np.all(np.isfinite(q0)):
            raise ValueError("initial_joint_positions must be 7 finite numbers")
        self.initial_q = np.clip(q0, panda.joint_position_min, panda.joint_position_max)
        self.initial_finger = float(np.clip(finger_position, 0.0, panda.finger_position_max))
        spec = world_spec_from_scene(
            self.scene,
            has_object=False,
            has_gripper=True,
            physics_dt=self.physics_dt,
            substeps=1,
            scene_objects=True,
        )
        self.world = BulletWorld(spec)
        self.client = self.world.client
        self.cubes = {name: self.world.decor[name] for name in self.scene.objects}
        self._joints = self.world.arm_joints + self.world.finger_joints
        self.arm_target = self.initial_q.copy()
        self.finger_target = self.initial_finger
        self.time = 0.0
        self.steps = 0
        self.reset()

    def reset(self) -> None:
        """Arm at the initial pose (still), fingers open, every cube at its scene pose."""
        row = np.zeros(RESET_DIM)
        row[RESET_JOINT_POS] = self.initial_q
        row[RESET_FINGER] = self.initial_finger
        row[RESET_GOAL] = PARKED_MARKER
        self.world.reset(row)  # restores the post-construction snapshot (cubes included)
        self.arm_target = self.initial_q.copy()
        self.finger_target = self.initial_finger
        self.time = 0.0
        self.steps = 0

    def set_targets(self, arm: np.ndarray | None = None, finger: float | None = None) -> None:
        """Motor position targets: the 7 arm joints (rad) and/or each finger (m); clipped
        into the robot's travel. ValueError for non-finite values."""
        if arm is not None:
            arm = np.asarray(arm, dtype=np.float64)
            if arm.shape != (7,) or not np.all(np.isfinite(arm)):
                raise ValueError("arm target must be 7 finite numbers")
            self.arm_target = np.clip(arm, panda.joint_position_min, panda.joint_position_max)
        if finger is not None:
            if not math.isfinite(finger):
                raise ValueError("finger target must be finite")
            self.finger_target = float(np.clip(finger, 0.0, panda.finger_position_max))

    def step(self, n: int = 1) -> None:
        """Apply the targets and advance ``n`` physics timesteps."""
        self.world.apply_targets(self.arm_target, self.finger_target)
        for _ in range(n):
            p.stepSimulation(physicsClientId=self.client)
        self.steps += n
        self.time = self.steps * self.physics_dt

    def joint_state(self) -> tuple[list[float], list[float], list[float]]:
        """Positions, velocities and applied motor efforts of :data:`JOINT_NAMES`."""
        states = p.getJointStates(self.world.robot, self._joints, physicsClientId=self.client)
        pos = [s[0] for s in states]
        vel = [s[1] for s in states]
        effort = [s[3] for s in states]
        return pos, vel, effort

    def object_poses(self) -> dict[str, BodyPose]:
        """Pose of every scene cube by name."""
        out = {}
        for name, body in self.cubes.items():
            pos, quat = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
            out[name] = BodyPose(tuple(pos), tuple(quat))
        return out

    def render(
        self, width: int = 640, height: int = 480, camera: dict | None = None
    ) -> np.ndarray:
        """RGB image [height, width, 3] uint8 from the fixed demo camera (headless)."""
        return self.world.render(width, height, DEFAULT_CAMERA if camera is None else camera)

    def mirror(self, joint_positions, object_poses: dict[str, BodyPose]) -> None:
        """Put the robot's joints (:data:`JOINT_NAMES` order) and the cubes at the given
        poses without simulating (for a render-only copy of the world)."""
        for joint, value in zip(self._joints, joint_positions, strict=True):
            p.resetJointState(self.world.robot, joint, float(value), physicsClientId=self.client)
        for name, pose in object_poses.items():
            p.resetBasePositionAndOrientation(
                self.cubes[name], pose.position, pose.orientation, physicsClientId=self.client
            )

    def close(self) -> None:
        self.world.close()


def _render_only_world(scene_file: str | None) -> SceneWorld:
    """The camera process's copy of the scene (built in the subprocess)."""
    return SceneWorld(load_scene(scene_file))


class CameraProcess:
    """Renders the scene in a subprocess, so a picture (0.1-0.5 s of TinyRenderer, which
    holds the GIL) never pauses the simulation or the other nodes of this process.

    The subprocess holds a render-only :class:`SceneWorld` and answers
    :class:`~sims.backends.pybullet.workers.WorkerProcess` calls on it (``mirror``, then
    ``render``), the protocol of the PyBullet backend's workers."""

    def __init__(self, scene_file: str | None = None, start_method: str = "spawn"):
        import multiprocessing as mp

        self._worker = WorkerProcess(
            mp.get_context(start_method),
            _render_only_world,
            (scene_file,),
            name="miles-sim-camera",
            label="the camera process",
        )
        self._ready = False

    def render(
        self, joints, poses: dict[str, BodyPose], width: int, height: int, timeout: float = 30.0
    ) -> np.ndarray:
        """RGB image [height, width, 3] uint8 of the scene at these poses."""
        worker = self._worker
        if not self._ready:
            worker.receive(timeout)  # the world is built
            self._ready = True
        worker.send("mirror", list(joints), poses)
        worker.receive(timeout)
        worker.send("render", int(width), int(height))
        return worker.receive(timeout)

    def close(self) -> None:
        self._worker.close()
