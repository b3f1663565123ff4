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

A scene with several arms (``arms:``, e.g. config/scene_dual.yaml) holds one Panda per
arm at its mount, all in the one physics world with the cubes; each arm has its own
targets and joint state, named by the arm (``robot=``; the first arm when not given).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pybullet as p

from sims.backends.pybullet.scene import DEFAULT_CAMERA, world_spec_from_scene
from sims.backends.pybullet.spec import (
    FINGER_LATERAL_FRICTION,
    RESET_DIM,
    RESET_FINGER,
    RESET_GOAL,
    RESET_JOINT_POS,
    TABLE_LATERAL_FRICTION,
)
from sims.backends.pybullet.urdf import ARM_JOINT_NAMES, FINGER_JOINT_NAMES
from sims.backends.pybullet.workers import WorkerProcess
from sims.backends.pybullet.world import BulletWorld, yaw_from_quaternion
from sims.camera import add_noise
from sims.robots import panda
from sims.scene import Scene, load_scene
from sims.tasks.base import FINGER_READING_RANGE, reported_finger_width

JOINT_NAMES: tuple[str, ...] = ARM_JOINT_NAMES + FINGER_JOINT_NAMES
"""Joints reported on ``/joint_states``: the 7 arm joints, then both fingers."""
PARKED_MARKER = (0.0, 0.0, -1.0)
"""Where the world's goal marker waits (below the table, out of every picture)."""


@dataclass(frozen=True)
class CellChange:
    """How the cell differs from the nominal one the skills were trained for: the
    randomization terms of :class:`~sims.tasks.base.DomainRandomization` as fixed values
    (a heavier cube, a slippery table, worn finger pads, a gripper that reads wider)."""

    cube_mass_scale: float = 1.0
    """Multiplier on every cube's mass (the scene's ``cube_mass``)."""
    table_friction_scale: float = 1.0
    """Multiplier on the cube-table sliding friction."""
    finger_friction_scale: float = 1.0
    """Multiplier on the finger-cube friction."""
    finger_reading: float = 0.0
    """Offset (m) of the opening the gripper reports for a held cube, from its edge
    (:func:`~sims.tasks.base.reported_finger_width`, both fingers together)."""

    def __post_init__(self) -> None:
        for name in ("cube_mass_scale", "table_friction_scale", "finger_friction_scale"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0.0):
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        lo, hi = FINGER_READING_RANGE
        if not lo <= self.finger_reading <= hi:
            raise ValueError(
                f"finger_reading must be in [{lo}, {hi}] m, got {self.finger_reading!r}"
            )


def reported_finger_positions(positions: Sequence[float], offset: float) -> list[float]:
    """The two finger positions (m) a gripper reports when its reading is ``offset`` off
    (:func:`~sims.tasks.base.reported_finger_width` of their sum, split evenly): the
    opening the skills compute from them (the sum) is the reported width."""
    if offset == 0.0:
        return [float(v) for v in positions]
    width = float(sum(positions))
    shift = (float(reported_finger_width(width, offset)) - width) / len(positions)
    return [float(v) + shift for v in positions]


@dataclass(frozen=True)
class BodyPose:
    """A body's pose in the scene's frame (the robot base frame of a single-arm scene, the
    world frame of a multi-arm one)."""

    position: tuple[float, float, float]
    """Centre (m)."""
    orientation: tuple[float, float, float, float]
    """Quaternion x, y, z, w."""

    @property
    def yaw(self) -> float:
        """Rotation about z (rad)."""
        return yaw_from_quaternion(*self.orientation)


@dataclass
class ArmTargets:
    """One arm's motor targets in a :class:`SceneWorld`."""

    robot: int
    """PyBullet body id of the arm."""
    arm: np.ndarray
    """Position targets of the 7 arm joints (rad)."""
    finger: float
    """Position target of each finger (m)."""


def camera_for_scene(scene: Scene) -> dict:
    """The fixed demo camera; for a multi-arm scene aimed at the table's centre and far
    enough back to hold every arm."""
    if not scene.multi_arm:
        return dict(DEFAULT_CAMERA)
    cx, cy = scene.table.center_xy
    reach = max(math.dist((cx, cy), m.base_position[:2]) for m in scene.arms)
    # From -x, a little to the right: an operator in front of the cell (+y on the left).
    return {
        "target": [cx, cy, 0.15],
        "distance": 1.2 + 1.2 * reach,
        "yaw": -75.0,
        "pitch": -30.0,
        "fov": DEFAULT_CAMERA["fov"],
    }


class SceneWorld:
    """The Panda(s), the table, the scene's cubes and pads, stepped one timestep at a time.
    ``arm_meshes``: what the arms are drawn with (:class:`~sims.backends.pybullet.spec.
    WorldSpec`'s; physics is the same)."""

    def __init__(
        self,
        scene: Scene | None = None,
        physics_dt: float = 0.002,
        initial_joint_positions: np.ndarray | None = None,
        finger_position: float = panda.finger_position_max,
        arm_meshes: str = "visual",
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
        bases = tuple((m.base_position, m.base_yaw) for m in self.scene.arms)
        self.world = BulletWorld(
            dataclasses.replace(spec, robot_bases=bases, arm_meshes=arm_meshes)
        )
        self.client = self.world.client
        self.cubes = {name: self.world.decor[name] for name in self.scene.objects}
        self._joints = self.world.arm_joints + self.world.finger_joints
        self.arm_names: tuple[str, ...] = tuple(m.name for m in self.scene.arms)
        """The arms by name, in scene order ("" = the single arm of a scene without arms:)."""
        self.arms = {
            name: ArmTargets(robot, self.initial_q.copy(), self.initial_finger)
            for name, robot in zip(self.arm_names, self.world.robots, strict=True)
        }
        self.camera = camera_for_scene(self.scene)
        self._noise_rng: np.random.Generator | None = None
        """The camera noise's generator (:meth:`render_rgbd`), made at the first noisy frame."""
        cx, cy = self.scene.table.center_xy
        self._parked_marker = (
            (cx, cy, -self.scene.table.size[2] / 2) if self.scene.multi_arm else PARKED_MARKER
        )
        """The goal marker's place: inside the table of a multi-arm scene (its wider camera
        sees below the table's edge)."""
        self.time = 0.0
        self.steps = 0
        self.change = CellChange(finger_reading=self.scene.gripper.finger_reading)
        """The cell's change from the nominal (:meth:`set_change`; at first the scene's
        ``gripper.finger_reading``)."""
        self.reset()

    @property
    def arm_target(self) -> np.ndarray:
        """The first arm's joint targets (rad)."""
        return self.arms[self.arm_names[0]].arm

    @property
    def finger_target(self) -> float:
        """The first arm's finger target (m)."""
        return self.arms[self.arm_names[0]].finger

    def _arm(self, robot: str | None) -> ArmTargets:
        if robot is None:
            return self.arms[self.arm_names[0]]
        if robot not in self.arms:
            raise KeyError(f"no arm named {robot!r}; arms: {', '.join(map(repr, self.arms))}")
        return self.arms[robot]

    def reset(self) -> None:
        """Every arm at the initial pose (still), fingers open, every cube at its scene pose."""
        row = np.zeros(RESET_DIM)
        row[RESET_JOINT_POS] = self.initial_q
        row[RESET_FINGER] = self.initial_finger
        row[RESET_GOAL] = self._parked_marker
        self.world.reset(row)  # restores the post-construction snapshot (cubes included)
        initial = [*map(float, self.initial_q), self.initial_finger, self.initial_finger]
        for targets in self.arms.values():
            if targets.robot != self.world.robot:  # BulletWorld.reset placed the first
                for joint, value in zip(self._joints, initial, strict=True):
                    p.resetJointState(
                        targets.robot, joint, value, 0.0, physicsClientId=self.client
                    )
            targets.arm, targets.finger = self.initial_q.copy(), self.initial_finger
        self.set_change(self.change)
        self.time = 0.0
        self.steps = 0

    def set_change(self, change: CellChange) -> None:
        """Apply ``change`` now; it stays through resets until the next change. The masses
        and frictions are the physics'; the finger reading is only what the sim node
        reports (:func:`reported_finger_positions`): :meth:`joint_state` stays the engine's."""
        cid, world = self.client, self.world
        for body in self.cubes.values():
            mass = self.scene.cube_mass * change.cube_mass_scale
            p.changeDynamics(body, -1, mass=mass, physicsClientId=cid)
        table = TABLE_LATERAL_FRICTION * change.table_friction_scale
        p.changeDynamics(world.table, -1, lateralFriction=table, physicsClientId=cid)
        fingers = FINGER_LATERAL_FRICTION * change.finger_friction_scale
        for targets in self.arms.values():
            for j in world.finger_joints:
                p.changeDynamics(targets.robot, j, lateralFriction=fingers, physicsClientId=cid)
        self.change = change

    def place_object(self, name: str, position: Sequence[float], yaw: float = 0.0) -> None:
        """Put the scene cube ``name`` at ``position`` (m) turned by ``yaw`` (rad), at rest
        (an episode's start; until the next reset). KeyError for an unknown cube."""
        if name not in self.cubes:
            raise KeyError(f"no cube named {name!r}; cubes: {', '.join(self.cubes)}")
        quat = p.getQuaternionFromEuler([0.0, 0.0, float(yaw)], physicsClientId=self.client)
        body = self.cubes[name]
        p.resetBasePositionAndOrientation(
            body, [float(v) for v in position], quat, physicsClientId=self.client
        )
        p.resetBaseVelocity(body, [0.0] * 3, [0.0] * 3, physicsClientId=self.client)

    def set_targets(
        self, arm: np.ndarray | None = None, finger: float | None = None, robot: str | None = None
    ) -> None:
        """Motor position targets of the arm named ``robot`` (default: the first): the 7
        arm joints (rad) and/or each finger (m); clipped into the robot's travel.
        ValueError for non-finite values, KeyError for an unknown arm."""
        targets = self._arm(robot)
        if arm is not None:
            arm = np.asarray(arm, dtype=np.float64)
            if arm.shape != (7,) or not np.all(np.isfinite(arm)):
                raise ValueError("arm target must be 7 finite numbers")
            targets.arm = np.clip(arm, panda.joint_position_min, panda.joint_position_max)
        if finger is not None:
            if not math.isfinite(finger):
                raise ValueError("finger target must be finite")
            targets.finger = float(np.clip(finger, 0.0, panda.finger_position_max))

    def step(self, n: int = 1) -> None:
        """Apply every arm's targets and advance ``n`` physics timesteps."""
        self.world.apply_targets(self.arm_target, self.finger_target)
        for targets in self.arms.values():
            if targets.robot != self.world.robot:
                self._apply(targets)
        for _ in range(n):
            p.stepSimulation(physicsClientId=self.client)
        self.steps += n
        self.time = self.steps * self.physics_dt

    def _apply(self, targets: ArmTargets) -> None:
        """A further arm's motors, driven as :meth:`BulletWorld.apply_targets` drives the
        first (position control, the datasheet force limits)."""
        spec, cid = self.world.spec, self.client
        p.setJointMotorControlArray(
            targets.robot,
            self.world.arm_joints,
            p.POSITION_CONTROL,
            targetPositions=targets.arm.tolist(),
            forces=list(spec.arm_forces),
            physicsClientId=cid,
        )
        p.setJointMotorControlArray(
            targets.robot,
            self.world.finger_joints,
            p.POSITION_CONTROL,
            targetPositions=[targets.finger] * len(self.world.finger_joints),
            forces=[spec.finger_force] * len(self.world.finger_joints),
            physicsClientId=cid,
        )

    def joint_state(
        self, robot: str | None = None
    ) -> tuple[list[float], list[float], list[float]]:
        """Positions, velocities and applied motor efforts of :data:`JOINT_NAMES` of the arm
        named ``robot`` (default: the first)."""
        body = self._arm(robot).robot
        states = p.getJointStates(body, self._joints, physicsClientId=self.client)
        pos = [s[0] for s in states]
        vel = [s[1] for s in states]
        effort = [s[3] for s in states]
        return pos, vel, effort

    def finger_reading(self, robot: str | None = None) -> float:
        """The opening (m, both fingers) the gripper of the arm named ``robot`` (default:
        the first) reports now: its fingers' positions as ``sim_node`` publishes them, the
        cell's ``finger_reading`` offset on them (:func:`reported_finger_positions`)."""
        fingers = self.joint_state(robot)[0][len(ARM_JOINT_NAMES) :]
        return float(sum(reported_finger_positions(fingers, self.change.finger_reading)))

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
        return self.world.render(width, height, self.camera if camera is None else camera)

    def render_rgbd(self, intrinsics, pose, noise=None, seed=0) -> tuple[np.ndarray, np.ndarray]:
        """An RGB-D frame from a pinhole camera (:class:`sims.camera.CameraIntrinsics` at a
        :class:`sims.camera.CameraPose` in the scene frame): rgb uint8 [H, W, 3] and depth
        float32 [H, W] along the view (m, 0 = nothing); noise-free, or with ``noise``
        (:class:`sims.camera.CameraNoise`, :func:`sims.camera.add_noise`) drawn from this
        world's own generator, seeded with ``seed`` (numpy's: an int or ints) at its first noisy
        frame."""
        rgb, depth = self.world.render_rgbd(intrinsics, pose)
        if noise is None:
            return rgb, depth
        if self._noise_rng is None:
            self._noise_rng = np.random.default_rng(seed)
        return add_noise(rgb, depth, noise, self._noise_rng)

    def mirror(
        self,
        joint_positions: Sequence[float] | Mapping[str, Sequence[float]],
        object_poses: dict[str, BodyPose],
    ) -> None:
        """Put the robot's joints (:data:`JOINT_NAMES` order; a mapping arm name -> joints
        for several arms) and the cubes at the given poses without simulating (for a
        render-only copy of the world)."""
        if not isinstance(joint_positions, Mapping):
            joint_positions = {self.arm_names[0]: joint_positions}
        for name, positions in joint_positions.items():
            body = self._arm(name).robot
            for joint, value in zip(self._joints, positions, strict=True):
                p.resetJointState(body, joint, float(value), physicsClientId=self.client)
        for name, pose in object_poses.items():
            p.resetBasePositionAndOrientation(
                self.cubes[name], pose.position, pose.orientation, physicsClientId=self.client
            )

    def close(self) -> None:
        self.world.close()


def _render_only_world(scene_file: str | None, arm_meshes: str) -> SceneWorld:
    """The camera process's copy of the scene (built in the subprocess)."""
    return SceneWorld(load_scene(scene_file), arm_meshes=arm_meshes)


class CameraProcess:
    """Renders the scene in a subprocess, so a picture (0.1-0.5 s of TinyRenderer, which
    holds the GIL) never pauses the simulation or the other nodes of this process.

    The subprocess holds a render-only :class:`SceneWorld` and answers
    :class:`~sims.backends.pybullet.workers.WorkerProcess` calls on it (``mirror``, then
    ``render``), the protocol of the PyBullet backend's workers. ``arm_meshes``: what the
    arms are drawn with (:class:`~sims.backends.pybullet.spec.WorldSpec`'s)."""

    def __init__(
        self,
        scene_file: str | None = None,
        start_method: str = "spawn",
        arm_meshes: str = "visual",
    ):
        import multiprocessing as mp

        self._worker = WorkerProcess(
            mp.get_context(start_method),
            _render_only_world,
            (scene_file, arm_meshes),
            name="miles-sim-camera",
            label="the camera process",
        )
        self._ready = False

    def render(
        self, joints, poses: dict[str, BodyPose], width: int, height: int, timeout: float = 30.0
    ) -> np.ndarray:
        """RGB image [height, width, 3] uint8 of the scene at these poses (``joints`` as
        :meth:`SceneWorld.mirror` takes them)."""
        self._mirror(joints, poses, timeout)
        self._worker.send("render", int(width), int(height))
        return self._worker.receive(timeout)

    def render_rgbd(
        self,
        joints,
        poses: dict[str, BodyPose],
        intrinsics,
        pose,
        noise=None,
        seed=0,
        timeout: float = 30.0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`SceneWorld.render_rgbd` of the scene at these poses (``joints`` as
        :meth:`SceneWorld.mirror` takes them): rgb uint8 and metric depth float32, the
        ``noise`` added in the subprocess too (its numpy work off this process's GIL)."""
        self._mirror(joints, poses, timeout)
        self._worker.send("render_rgbd", intrinsics, pose, noise, seed)
        return self._worker.receive(timeout)

    def _mirror(self, joints, poses: dict[str, BodyPose], timeout: float) -> None:
        worker = self._worker
        if not self._ready:
            worker.receive(timeout)  # the world is built
            self._ready = True
        joints = dict(joints) if isinstance(joints, Mapping) else list(joints)
        worker.send("mirror", joints, poses)
        worker.receive(timeout)

    def close(self) -> None:
        self._worker.close()
