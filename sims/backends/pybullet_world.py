"""One PyBullet world per env: the Panda, the table, a cube and a goal marker.

This module is what a subprocess worker imports, so it stays light: numpy, pybullet and
plain data only (no numba, no task modules). The batched env
(:mod:`sims.backends.pybullet_backend`) turns actions into joint targets and states into
observations; a world only applies targets, steps physics and reports raw state rows.

State row layout (float64, ``STATE_DIM``): joint positions (7), joint velocities (7),
finger width (1), cube centre (3), cube yaw (1).
Reset row layout (float64, ``RESET_DIM``): joint positions (7), finger position per
finger (1), cube centre (3), cube yaw (1), goal (3), cube mass (1), table friction (1).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import tempfile
import traceback
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np
import pybullet as p
import pybullet_data

logger = logging.getLogger(__name__)

ARM_JOINT_NAMES = tuple(f"panda_joint{i}" for i in range(1, 8))
FINGER_JOINT_NAMES = ("panda_finger_joint1", "panda_finger_joint2")

STATE_DIM = 19
RESET_DIM = 17

CUBE_LATERAL_FRICTION = 0.5
"""Cube's own friction coefficient; PyBullet multiplies the two bodies' coefficients."""
FINGER_LATERAL_FRICTION = 2.0
"""Finger pads' coefficient: finger-cube friction = 2.0 * 0.5 = 1.0, enough to lift."""
GOAL_MARKER_RADIUS = 0.02


@dataclass(frozen=True)
class WorldSpec:
    """Everything a worker needs to build one world (plain, picklable data)."""

    has_object: bool
    """Load the task's cube."""
    has_gripper: bool
    """Movable fingers (pick_place); otherwise the fingers are welded closed."""
    physics_dt: float
    """Physics timestep (s)."""
    substeps: int
    """Physics steps per control period."""
    arm_forces: tuple[float, ...]
    """Motor force limits of the 7 arm joints (N m): the datasheet torque limits."""
    finger_force: float
    """Motor force limit of each finger (N)."""
    table_size: tuple[float, float, float]
    """Table extent x, y and thickness (m); its top is at z = 0."""
    table_center_xy: tuple[float, float]
    """Table centre (m)."""
    table_color: tuple[float, float, float, float]
    """Table RGBA."""
    cube_size: float
    """Cube edge (m)."""
    cube_mass: float
    """Nominal cube mass (kg)."""
    cube_color: tuple[float, float, float, float] = (0.85, 0.15, 0.15, 1.0)
    """Task cube RGBA."""
    goal_color: tuple[float, float, float, float] = (0.9, 0.2, 0.9, 0.7)
    """Goal marker RGBA."""
    decor_cubes: tuple[tuple[str, tuple[float, float, float], tuple[float, ...]], ...] = ()
    """Extra dynamic cubes (name, position, RGBA), e.g. the default scene's."""
    decor_pads: tuple[
        tuple[str, tuple[float, float, float], tuple[float, float], tuple[float, ...]], ...
    ] = ()
    """Visual-only pads (name, position, size xy, RGBA) lying on the table."""


def panda_urdf_path(fixed_fingers: bool) -> str:
    """Path of a Panda URDF made from pybullet_data's, with its fixed links merged.

    The hand (and with ``fixed_fingers`` the two fingers, welded closed at width 0) is
    merged into ``panda_link7``: each fixed link is one more body for the solver, so
    this cuts the physics cost per step (a blocked gripper as a rigid part instead of
    two stiff motors halves it). Geometry and masses are unchanged. (PyBullet's own
    ``URDF_MERGE_FIXED_LINKS`` merges collisions correctly but misplaces the merged
    visuals in the TinyRenderer, hence this.) Written once into the temp directory,
    with absolute mesh paths.
    """
    source = os.path.join(pybullet_data.getDataPath(), "franka_panda", "panda.urdf")
    with open(source, encoding="utf-8") as stream:
        text = stream.read()
    mesh_dir = os.path.join(os.path.dirname(source), "meshes")
    text = merge_fixed_links(text.replace("package://meshes", mesh_dir), fixed_fingers)
    variant = "fixed_fingers" if fixed_fingers else "gripper"
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"miles_panda_{variant}_{digest}.urdf")
    if not os.path.isfile(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(tmp, path)
    return path


def _rpy_matrix(rpy) -> np.ndarray:
    r, pch, y = rpy
    cr, sr, cp, sp, cy, sy = (
        math.cos(r),
        math.sin(r),
        math.cos(pch),
        math.sin(pch),
        math.cos(y),
        math.sin(y),
    )
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def _matrix_rpy(rot: np.ndarray) -> tuple[float, float, float]:
    pitch = math.atan2(-rot[2, 0], math.hypot(rot[0, 0], rot[1, 0]))
    return (math.atan2(rot[2, 1], rot[2, 2]), pitch, math.atan2(rot[1, 0], rot[0, 0]))


def _origin(elem) -> np.ndarray:
    transform = np.eye(4)
    origin = elem.find("origin") if elem is not None else None
    if origin is not None:
        transform[:3, 3] = [float(v) for v in origin.get("xyz", "0 0 0").split()]
        transform[:3, :3] = _rpy_matrix([float(v) for v in origin.get("rpy", "0 0 0").split()])
    return transform


def _set_origin(elem, transform: np.ndarray) -> None:
    origin = elem.find("origin")
    if origin is None:
        origin = ET.Element("origin")
        elem.insert(0, origin)
    origin.set("xyz", " ".join(f"{v:.12g}" for v in transform[:3, 3]))
    origin.set("rpy", " ".join(f"{v:.12g}" for v in _matrix_rpy(transform[:3, :3])))


def _merge_inertial(parent, child, parent_from_child: np.ndarray) -> None:
    """Add ``child``'s inertial (expressed through ``parent_from_child``) to ``parent``'s."""
    parts = []
    for link, to_parent in ((parent, np.eye(4)), (child, parent_from_child)):
        inertial = link.find("inertial")
        if inertial is None:
            continue
        mass = float(inertial.find("mass").get("value"))
        frame = to_parent @ _origin(inertial)
        i = inertial.find("inertia")
        tensor = np.array(
            [
                [float(i.get("ixx", 0)), float(i.get("ixy", 0)), float(i.get("ixz", 0))],
                [float(i.get("ixy", 0)), float(i.get("iyy", 0)), float(i.get("iyz", 0))],
                [float(i.get("ixz", 0)), float(i.get("iyz", 0)), float(i.get("izz", 0))],
            ]
        )
        parts.append((mass, frame[:3, 3], frame[:3, :3] @ tensor @ frame[:3, :3].T))
    total = sum(m for m, _, _ in parts)
    if total <= 0.0:
        return
    com = sum(m * c for m, c, _ in parts) / total
    tensor = np.zeros((3, 3))
    for m, c, inertia in parts:
        d = c - com
        tensor += inertia + m * (d @ d * np.eye(3) - np.outer(d, d))
    inertial = parent.find("inertial")
    if inertial is None:
        inertial = ET.SubElement(parent, "inertial")
        ET.SubElement(inertial, "mass")
        ET.SubElement(inertial, "inertia")
    frame = np.eye(4)
    frame[:3, 3] = com
    _set_origin(inertial, frame)
    inertial.find("mass").set("value", f"{total:.12g}")
    inertia = inertial.find("inertia")
    for key, (r, c) in {
        "ixx": (0, 0),
        "ixy": (0, 1),
        "ixz": (0, 2),
        "iyy": (1, 1),
        "iyz": (1, 2),
        "izz": (2, 2),
    }.items():
        inertia.set(key, f"{tensor[r, c]:.12g}")


def merge_fixed_links(urdf_text: str, fixed_fingers: bool) -> str:
    """The URDF with every fixed joint's child merged into its parent link.

    Visual and collision elements and joints below a merged link are re-expressed in the
    parent's frame; inertials are combined (mass, centre of mass, parallel-axis inertia).
    With ``fixed_fingers`` the finger joints become fixed at 0 first (and their
    ``<contact>`` blocks are dropped: the merged link keeps the arm's contact model).
    """
    root = ET.fromstring(urdf_text)
    links = {link.get("name"): link for link in root.findall("link")}
    if fixed_fingers:
        for joint in root.findall("joint"):
            if joint.get("name") in FINGER_JOINT_NAMES:
                joint.set("type", "fixed")
                for tag in ("limit", "mimic", "axis"):
                    for elem in joint.findall(tag):
                        joint.remove(elem)
    while True:
        fixed = [j for j in root.findall("joint") if j.get("type") == "fixed"]
        if not fixed:
            break
        joint = fixed[0]
        parent_name = joint.find("parent").get("link")
        child_name = joint.find("child").get("link")
        parent, child = links[parent_name], links.pop(child_name)
        parent_from_child = _origin(joint)
        for tag in ("visual", "collision"):
            for elem in child.findall(tag):
                _set_origin(elem, parent_from_child @ _origin(elem))
                parent.append(elem)
        _merge_inertial(parent, child, parent_from_child)
        for other in root.findall("joint"):
            if other.find("parent").get("link") == child_name:
                other.find("parent").set("link", parent_name)
                _set_origin(other, parent_from_child @ _origin(other))
        root.remove(joint)
        root.remove(child)
    # inertial must come first in a link for some parsers; keep the document tidy.
    for link in links.values():
        inertial = link.find("inertial")
        if inertial is not None:
            link.remove(inertial)
            link.insert(0, inertial)
    return ET.tostring(root, encoding="unicode")


def yaw_from_quaternion(x: float, y: float, z: float, w: float) -> float:
    """Rotation about z (rad) of an xyzw quaternion (ZYX Euler yaw)."""
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


class BulletWorld:
    """One PyBullet client (``p.DIRECT``) holding one env. Every call names its client."""

    def __init__(self, spec: WorldSpec):
        self.spec = spec
        self.client = p.connect(p.DIRECT)
        if self.client < 0:
            raise RuntimeError("could not start a PyBullet DIRECT client")
        cid = self.client
        try:
            p.setTimeStep(spec.physics_dt, physicsClientId=cid)
            p.setGravity(0.0, 0.0, -9.81, physicsClientId=cid)
            p.setPhysicsEngineParameter(deterministicOverlappingPairs=1, physicsClientId=cid)
            self._build(spec)
            self._initial_state = p.saveState(physicsClientId=cid)
        except Exception:
            p.disconnect(physicsClientId=cid)
            raise
        # Bound per-step call arguments, built once.
        self._arm_forces = list(spec.arm_forces)
        self._finger_forces = [spec.finger_force, spec.finger_force]
        self._row = np.zeros(STATE_DIM)

    # --- construction ------------------------------------------------------------------
    def _build(self, spec: WorldSpec) -> None:
        cid = self.client
        self.robot = p.loadURDF(
            panda_urdf_path(fixed_fingers=not spec.has_gripper),
            basePosition=[0.0, 0.0, 0.0],
            useFixedBase=True,
            physicsClientId=cid,
        )
        by_name = {}
        for j in range(p.getNumJoints(self.robot, physicsClientId=cid)):
            info = p.getJointInfo(self.robot, j, physicsClientId=cid)
            by_name[info[1].decode()] = j
        self.arm_joints = [by_name[n] for n in ARM_JOINT_NAMES]
        self.finger_joints = [by_name[n] for n in FINGER_JOINT_NAMES] if spec.has_gripper else []
        self.state_joints = self.arm_joints + self.finger_joints
        for j in self.finger_joints:
            p.changeDynamics(
                self.robot, j, lateralFriction=FINGER_LATERAL_FRICTION, physicsClientId=cid
            )

        sx, sy, thickness = spec.table_size
        cx, cy = spec.table_center_xy
        half = [sx / 2, sy / 2, thickness / 2]
        self.table = p.createMultiBody(
            baseMass=0.0,
            baseCollisionShapeIndex=p.createCollisionShape(
                p.GEOM_BOX, halfExtents=half, physicsClientId=cid
            ),
            baseVisualShapeIndex=p.createVisualShape(
                p.GEOM_BOX, halfExtents=half, rgbaColor=list(spec.table_color), physicsClientId=cid
            ),
            basePosition=[cx, cy, -thickness / 2],
            physicsClientId=cid,
        )
        p.changeDynamics(self.table, -1, lateralFriction=1.0, physicsClientId=cid)

        self.cube = -1
        if spec.has_object:
            self.cube = self._make_cube((0.45, 0.0, spec.cube_size / 2), spec.cube_color)
        self.goal_marker = p.createMultiBody(
            baseMass=0.0,
            baseCollisionShapeIndex=-1,
            baseVisualShapeIndex=p.createVisualShape(
                p.GEOM_SPHERE,
                radius=GOAL_MARKER_RADIUS,
                rgbaColor=list(spec.goal_color),
                physicsClientId=cid,
            ),
            basePosition=[0.45, 0.0, 0.2],
            physicsClientId=cid,
        )
        self.decor: dict[str, int] = {}
        self._free_bodies: list[int] = [self.cube] if self.cube >= 0 else []
        for name, position, color in spec.decor_cubes:
            self.decor[name] = self._make_cube(position, color)
            self._free_bodies.append(self.decor[name])
        for name, position, size, color in spec.decor_pads:
            self.decor[name] = p.createMultiBody(
                baseMass=0.0,
                baseCollisionShapeIndex=-1,
                baseVisualShapeIndex=p.createVisualShape(
                    p.GEOM_BOX,
                    halfExtents=[size[0] / 2, size[1] / 2, 0.001],
                    rgbaColor=list(color),
                    physicsClientId=cid,
                ),
                basePosition=[position[0], position[1], position[2] + 0.001],
                physicsClientId=cid,
            )

    def _make_cube(self, position, color) -> int:
        cid = self.client
        half = [self.spec.cube_size / 2] * 3
        body = p.createMultiBody(
            baseMass=self.spec.cube_mass,
            baseCollisionShapeIndex=p.createCollisionShape(
                p.GEOM_BOX, halfExtents=half, physicsClientId=cid
            ),
            baseVisualShapeIndex=p.createVisualShape(
                p.GEOM_BOX, halfExtents=half, rgbaColor=list(color), physicsClientId=cid
            ),
            basePosition=list(position),
            physicsClientId=cid,
        )
        # No spinning friction: a face resting on the table has four contact points, whose
        # lateral friction already resists turning (and each extra row costs solver time).
        p.changeDynamics(body, -1, lateralFriction=CUBE_LATERAL_FRICTION, physicsClientId=cid)
        return body

    # --- episode and step --------------------------------------------------------------
    def reset(self, row: np.ndarray) -> np.ndarray:
        """Start an episode from a reset row (see the module docstring); returns the state.

        The world is first restored to the snapshot taken after construction, so an
        episode depends only on its reset row, not on earlier episodes.
        """
        cid, robot = self.client, self.robot
        p.restoreState(self._initial_state, physicsClientId=cid)
        # restoreState keeps the contact manifolds (and their warm-start impulses) of
        # the last episode; parking the free bodies apart for one collision pass drops
        # them, so a new episode never inherits contact history.
        for k, body in enumerate(self._free_bodies):
            p.resetBasePositionAndOrientation(
                body, [0.0, 0.0, 10.0 + k], [0.0, 0.0, 0.0, 1.0], physicsClientId=cid
            )
        p.performCollisionDetection(physicsClientId=cid)
        p.restoreState(self._initial_state, physicsClientId=cid)
        q = row[0:7]
        for k, j in enumerate(self.arm_joints):
            p.resetJointState(robot, j, float(q[k]), 0.0, physicsClientId=cid)
        finger = float(row[7])
        for j in self.finger_joints:
            p.resetJointState(robot, j, finger, 0.0, physicsClientId=cid)
        if self.cube >= 0:
            x, y, z, yaw = (float(v) for v in row[8:12])
            quat = p.getQuaternionFromEuler([0.0, 0.0, yaw], physicsClientId=cid)
            p.resetBasePositionAndOrientation(self.cube, [x, y, z], quat, physicsClientId=cid)
            p.resetBaseVelocity(self.cube, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=cid)
            p.changeDynamics(self.cube, -1, mass=float(row[15]), physicsClientId=cid)
            p.changeDynamics(self.table, -1, lateralFriction=float(row[16]), physicsClientId=cid)
        self.set_goal(row[12:15])
        self.apply_targets(q, finger)
        return self.read_state()

    def set_goal(self, goal) -> None:
        """Move the (visual-only) goal marker."""
        p.resetBasePositionAndOrientation(
            self.goal_marker,
            [float(goal[0]), float(goal[1]), float(goal[2])],
            [0.0, 0.0, 0.0, 1.0],
            physicsClientId=self.client,
        )

    def apply_targets(self, arm_target: np.ndarray, finger_target: float) -> None:
        """Position-control targets: the 7 arm joints, and each finger when movable."""
        p.setJointMotorControlArray(
            self.robot,
            self.arm_joints,
            p.POSITION_CONTROL,
            targetPositions=np.asarray(arm_target, dtype=np.float64).tolist(),
            forces=self._arm_forces,
            physicsClientId=self.client,
        )
        if self.finger_joints:
            f = float(finger_target)
            p.setJointMotorControlArray(
                self.robot,
                self.finger_joints,
                p.POSITION_CONTROL,
                targetPositions=[f, f],
                forces=self._finger_forces,
                physicsClientId=self.client,
            )

    def step(self, arm_target: np.ndarray, finger_target: float, motor_filter=None) -> np.ndarray:
        """Apply targets, run one control period of physics, return the state row.

        ``motor_filter(substep, state_row, arm_target, finger_target) -> (arm, finger)``,
        when given, runs every ``motor_filter.period_substeps`` physics steps between the
        period's targets and the motors (a controller such as a safety supervisor)."""
        step, cid = p.stepSimulation, self.client
        if motor_filter is None:
            self.apply_targets(arm_target, finger_target)
            for _ in range(self.spec.substeps):
                step(physicsClientId=cid)
            return self.read_state()
        every = max(1, int(motor_filter.period_substeps))
        for k in range(self.spec.substeps):
            if k % every == 0:
                self.apply_targets(*motor_filter(k, self.read_state(), arm_target, finger_target))
            step(physicsClientId=cid)
        return self.read_state()

    def read_state(self) -> np.ndarray:
        """The state row (a view of a buffer reused by the next call)."""
        cid, row = self.client, self._row
        pos, vel, _, _ = zip(
            *p.getJointStates(self.robot, self.state_joints, physicsClientId=cid), strict=True
        )
        row[0:7] = pos[:7]
        row[7:14] = vel[:7]
        row[14] = pos[7] + pos[8] if self.finger_joints else 0.0
        if self.cube >= 0:
            pos, quat = p.getBasePositionAndOrientation(self.cube, physicsClientId=cid)
            row[15], row[16], row[17] = pos
            row[18] = yaw_from_quaternion(*quat)
        return row

    # --- extras ------------------------------------------------------------------------
    def body_positions(self) -> dict[str, tuple[float, float, float]]:
        """Positions of the decor bodies (the scene's cubes and pads) by name."""
        return {
            name: tuple(p.getBasePositionAndOrientation(body, physicsClientId=self.client)[0])
            for name, body in self.decor.items()
        }

    def render(self, width: int, height: int, camera: dict) -> np.ndarray:
        """RGB image [height, width, 3] uint8 from ``camera`` (TinyRenderer, headless)."""
        cid = self.client
        view = p.computeViewMatrixFromYawPitchRoll(
            cameraTargetPosition=camera["target"],
            distance=camera["distance"],
            yaw=camera["yaw"],
            pitch=camera["pitch"],
            roll=0.0,
            upAxisIndex=2,
            physicsClientId=cid,
        )
        proj = p.computeProjectionMatrixFOV(
            fov=camera["fov"], aspect=width / height, nearVal=0.05, farVal=5.0, physicsClientId=cid
        )
        _, _, rgba, _, _ = p.getCameraImage(
            width,
            height,
            viewMatrix=view,
            projectionMatrix=proj,
            renderer=p.ER_TINY_RENDERER,
            shadow=0,
            lightDirection=[1.0, -0.5, 2.0],
            physicsClientId=cid,
        )
        image = np.asarray(rgba, dtype=np.uint8).reshape(height, width, 4)
        return np.ascontiguousarray(image[:, :, :3])

    def close(self) -> None:
        if self.client is not None and self.client >= 0:
            try:
                p.disconnect(physicsClientId=self.client)
            except p.error:  # already gone
                pass
            self.client = None


class WorldGroup:
    """Several worlds in one process; the unit a subprocess worker serves."""

    def __init__(self, specs: list[WorldSpec]):
        self.worlds: list[BulletWorld] = []
        try:
            for spec in specs:
                self.worlds.append(BulletWorld(spec))
        except Exception:
            self.close()
            raise
        self._out = np.zeros((len(specs), STATE_DIM))

    def step(
        self, arm_targets: np.ndarray, finger_targets: np.ndarray, filters=None
    ) -> np.ndarray:
        out = self._out
        for k, world in enumerate(self.worlds):
            f = None if filters is None else filters[k]
            out[k] = world.step(arm_targets[k], finger_targets[k], f)
        return out

    def reset(self, local_indices, rows: np.ndarray) -> np.ndarray:
        out = np.empty((len(local_indices), STATE_DIM))
        for k, i in enumerate(local_indices):
            out[k] = self.worlds[i].reset(rows[k])
        return out

    def read_state(self) -> np.ndarray:
        for k, world in enumerate(self.worlds):
            self._out[k] = world.read_state()
        return self._out

    def set_goal(self, goals: np.ndarray) -> None:
        for k, world in enumerate(self.worlds):
            world.set_goal(goals[k])

    def render(self, local_index: int, width: int, height: int, camera: dict) -> np.ndarray:
        return self.worlds[local_index].render(width, height, camera)

    def body_positions(self, local_index: int) -> dict:
        return self.worlds[local_index].body_positions()

    def close(self) -> None:
        for world in self.worlds:
            world.close()
        self.worlds = []


def worker_main(conn, specs: list[WorldSpec]) -> None:
    """Subprocess loop: build a :class:`WorldGroup`, then serve ``(method, args)`` requests.

    Replies are ``("ok", result)`` or ``("error", traceback text)``; ``("close", ())``
    or a closed pipe ends the loop.
    """
    try:
        group = WorldGroup(specs)
    except Exception:
        conn.send(("error", traceback.format_exc()))
        conn.close()
        return
    conn.send(("ok", None))
    try:
        while True:
            try:
                method, args = conn.recv()
            except (EOFError, OSError):
                break
            if method == "close":
                conn.send(("ok", None))
                break
            try:
                result = getattr(group, method)(*args)
                conn.send(("ok", result))
            except Exception:
                conn.send(("error", traceback.format_exc()))
    finally:
        group.close()
        conn.close()
