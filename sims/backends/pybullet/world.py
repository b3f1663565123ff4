"""One PyBullet world per env: the Panda, the table, a cube and a goal marker.

A subprocess worker imports this, so it stays light: numpy, pybullet and plain data only
(no numba, no task modules). The batched env (:mod:`sims.backends.pybullet.env`) turns
actions into joint targets and states into observations; a world only applies targets,
steps physics and reports raw state rows, whose layouts, and the :class:`WorldSpec` a
world is built from, are in :mod:`sims.backends.pybullet.spec`.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from sims.backends.pybullet.render import render_rgbd, render_view
from sims.backends.pybullet.spec import (
    CUBE_LATERAL_FRICTION,
    FINGER_LATERAL_FRICTION,
    RESET_CONTACT_STIFFNESS,
    RESET_CUBE_MASS,
    RESET_CUBE_POS,
    RESET_CUBE_SIZE,
    RESET_CUBE_YAW,
    RESET_FINGER,
    RESET_FINGER_FRICTION,
    RESET_GOAL,
    RESET_JOINT_POS,
    RESET_TABLE_FRICTION,
    RESET_TARGET_POS,
    STATE_CUBE_POS,
    STATE_CUBE_YAW,
    STATE_DIM,
    STATE_FINGER_CENTRE,
    STATE_FINGER_WIDTH,
    STATE_JOINT_POS,
    STATE_JOINT_VEL,
    STATE_TARGET_POS,
    TABLE_LATERAL_FRICTION,
    WorldSpec,
)
from sims.backends.pybullet.urdf import ARM_JOINT_NAMES, FINGER_JOINT_NAMES, panda_urdf_path

GOAL_MARKER_RADIUS = 0.02
# Bullet's broadphase filters (group, mask) of a body's collision object, as PyBullet gives
# them when it builds or re-weighs one: btBroadphaseProxy's DefaultFilter (1) and AllFilter
# (-1) for a dynamic body, StaticFilter (2) and AllFilter ^ StaticFilter for a static one.
_DYNAMIC_FILTER = (1, -1)
_STATIC_FILTER = (2, -1 ^ 2)


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
        self.robots = [
            p.loadURDF(
                panda_urdf_path(fixed_fingers=not spec.has_gripper, meshes=spec.arm_meshes),
                basePosition=list(position),
                baseOrientation=p.getQuaternionFromEuler([0.0, 0.0, yaw], physicsClientId=cid),
                useFixedBase=True,
                physicsClientId=cid,
            )
            for position, yaw in spec.robot_bases
        ]
        self.robot = self.robots[0]
        by_name = {}
        for j in range(p.getNumJoints(self.robot, physicsClientId=cid)):
            info = p.getJointInfo(self.robot, j, physicsClientId=cid)
            by_name[info[1].decode()] = j
        self.arm_joints = [by_name[n] for n in ARM_JOINT_NAMES]
        self.finger_joints = [by_name[n] for n in FINGER_JOINT_NAMES] if spec.has_gripper else []
        self.state_joints = self.arm_joints + self.finger_joints
        for robot in self.robots:
            for j in self.finger_joints:
                p.changeDynamics(
                    robot, j, lateralFriction=FINGER_LATERAL_FRICTION, physicsClientId=cid
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
        p.changeDynamics(
            self.table, -1, lateralFriction=TABLE_LATERAL_FRICTION, physicsClientId=cid
        )

        self.cube = -1
        self._sized_cubes: dict[float, int] = {}
        if spec.has_object and spec.cube_sizes:
            for k, size in enumerate(spec.cube_sizes):
                body = self._make_cube(self._parking(k), spec.cube_color, size)
                p.changeDynamics(body, -1, mass=0.0, physicsClientId=cid)
                self._sized_cubes[float(size)] = body
            self.cube = next(iter(self._sized_cubes.values()))
        elif spec.has_object:
            self.cube = self._make_cube((0.45, 0.0, spec.cube_size / 2), spec.cube_color)
        self.target = -1
        self.under_target: list[int] = []
        if spec.target_cube:
            self.target = self._make_cube((0.0, 0.0, -1.0), spec.target_cube_color)
            self.under_target = [
                self._make_cube((0.2 * (k + 1), 0.0, -1.0), spec.under_cube_color)
                for k in range(spec.cubes_under_target)
            ]
        self.goal_marker = self._visual_body(
            spec.goal_color, (0.45, 0.0, 0.2), shapeType=p.GEOM_SPHERE, radius=GOAL_MARKER_RADIUS
        )
        self.goal_cube = -1
        if spec.goal_cube:
            half = [spec.cube_size / 2] * 3
            self.goal_cube = self._visual_body(
                spec.cube_color,
                (0.45, 0.0, spec.cube_size / 2),
                shapeType=p.GEOM_BOX,
                halfExtents=half,
            )
        self.decor: dict[str, int] = {}
        free = [b for b in (self.cube, self.target) if b >= 0]
        free += [b for b in self._sized_cubes.values() if b != self.cube]
        free += self.under_target
        tags = {name: (tag_id, size) for name, tag_id, size in spec.decor_tags}
        for name, position, color in spec.decor_cubes:
            self.decor[name] = self._make_cube(position, color, tag=tags.get(name))
            free.append(self.decor[name])
        # the bodies whose contacts each reset drops (_forget_contacts), in the order built
        self._contact_bodies = [self.table, *sorted(free)]
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

    @staticmethod
    def _parking(k: int) -> tuple[float, float, float]:
        """Where the ``k``-th unused sized cube waits, static, below the table."""
        return (0.2 * k, 0.0, -2.0)

    def _visual_body(self, color, position, **shape) -> int:
        """A body that is only seen, never touched (``shape``: createVisualShape's)."""
        cid = self.client
        visual = p.createVisualShape(rgbaColor=list(color), physicsClientId=cid, **shape)
        return p.createMultiBody(
            baseMass=0.0,
            baseCollisionShapeIndex=-1,
            baseVisualShapeIndex=visual,
            basePosition=list(position),
            physicsClientId=cid,
        )

    def _make_cube(
        self, position, color, size: float | None = None, tag: tuple[int, float] | None = None
    ) -> int:
        """A dynamic cube; ``tag`` (id, edge m): an AprilTag drawn on its top face."""
        cid = self.client
        edge = self.spec.cube_size if size is None else size
        half = [edge / 2] * 3
        common = dict(
            baseMass=self.spec.cube_mass,
            baseCollisionShapeIndex=p.createCollisionShape(
                p.GEOM_BOX, halfExtents=half, physicsClientId=cid
            ),
            basePosition=list(position),
        )
        if tag is not None:
            from sims.backends.pybullet.tagged import tagged_cube

            body = tagged_cube(cid, edge, color, *tag, **common)
        else:
            body = p.createMultiBody(
                baseVisualShapeIndex=p.createVisualShape(
                    p.GEOM_BOX, halfExtents=half, rgbaColor=list(color), physicsClientId=cid
                ),
                physicsClientId=cid,
                **common,
            )
        # No spinning friction: a face resting on the table has four contact points, whose
        # lateral friction already resists turning (and each extra row costs solver time).
        p.changeDynamics(body, -1, lateralFriction=CUBE_LATERAL_FRICTION, physicsClientId=cid)
        return body

    # --- episode and step --------------------------------------------------------------
    def reset(self, row: np.ndarray) -> np.ndarray:
        """Start an episode from a reset row (its layout: :mod:`sims.backends.pybullet.spec`);
        returns the state.

        The world is first restored to the snapshot taken after construction and its
        contacts dropped (:meth:`_forget_contacts`), so an episode depends only on its
        reset row, not on earlier episodes.
        """
        cid, robot = self.client, self.robot
        p.restoreState(self._initial_state, physicsClientId=cid)
        self._forget_contacts()
        q = row[RESET_JOINT_POS]
        for k, j in enumerate(self.arm_joints):
            p.resetJointState(robot, j, float(q[k]), 0.0, physicsClientId=cid)
        finger = float(row[RESET_FINGER])
        for j in self.finger_joints:
            p.resetJointState(robot, j, finger, 0.0, physicsClientId=cid)
        if self._sized_cubes:
            self._pick_cube(float(row[RESET_CUBE_SIZE]))
        if self.cube >= 0:
            self._randomize_contacts(row)
            x, y, z = (float(v) for v in row[RESET_CUBE_POS])
            yaw = float(row[RESET_CUBE_YAW])
            quat = p.getQuaternionFromEuler([0.0, 0.0, yaw], physicsClientId=cid)
            p.resetBasePositionAndOrientation(self.cube, [x, y, z], quat, physicsClientId=cid)
            p.resetBaseVelocity(self.cube, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=cid)
            p.changeDynamics(self.cube, -1, mass=float(row[RESET_CUBE_MASS]), physicsClientId=cid)
            friction = float(row[RESET_TABLE_FRICTION])
            p.changeDynamics(self.table, -1, lateralFriction=friction, physicsClientId=cid)
        if self.target >= 0:
            self._place_target(row)
        self.set_goal(row[RESET_GOAL])
        self.apply_targets(q, finger)
        return self.read_state()

    def _forget_contacts(self) -> None:
        """Drop every contact of the last episode, so a new episode never inherits one.

        restoreState puts the bodies back but keeps the broadphase pairs and their contact
        manifolds, whose points (each held in its two bodies' frames) carry the solver's
        impulses. Parking the bodies apart for a collision pass did not drop them all:
        Bullet's dbvt broadphase removes pairs that no longer overlap a few per pass (from
        a cursor it keeps), and a kept pair's points are refreshed, not dropped, while
        their depth along the old normal stays negative: a tower's two cubes parked with
        the top one below the bottom one read 1.04 m deep. Put back, the same relative
        pose, the next tower began with the last tower's points (docs/stacking.md, part
        30). Renewing the broadphase proxy of the table and of every free body
        (``setCollisionFilterGroupMask`` with the filter it has) removes every pair each is
        in, with its manifold; what is left, the robot's links among themselves, never
        touches (no self-collision). In the order the bodies were built, so the new
        proxies' ids keep the order that orders the pairs (``deterministicOverlappingPairs``)."""
        cid = self.client
        for body in self._contact_bodies:
            static = p.getDynamicsInfo(body, -1, physicsClientId=cid)[0] == 0.0
            group, mask = _STATIC_FILTER if static else _DYNAMIC_FILTER
            p.setCollisionFilterGroupMask(body, -1, group, mask, physicsClientId=cid)

    def _pick_cube(self, size: float) -> None:
        """Make the cube of edge ``size`` (the nearest held) the task cube; the others
        stay parked as static bodies (restoreState has put them back)."""
        cid = self.client
        sizes = np.array(list(self._sized_cubes))
        chosen = self._sized_cubes[float(sizes[np.argmin(np.abs(sizes - size))])]
        for body in self._sized_cubes.values():
            if body != chosen:
                p.changeDynamics(body, -1, mass=0.0, physicsClientId=cid)
        self.cube = chosen

    def _randomize_contacts(self, row: np.ndarray) -> None:
        """The episode's finger-pad friction and cube contact stiffness (0: unchanged)."""
        cid = self.client
        friction = float(row[RESET_FINGER_FRICTION])
        if friction > 0.0:
            for j in self.finger_joints:
                p.changeDynamics(self.robot, j, lateralFriction=friction, physicsClientId=cid)
        stiffness = float(row[RESET_CONTACT_STIFFNESS])
        if stiffness > 0.0:  # critically damped for the cube's mass
            damping = 2.0 * math.sqrt(stiffness * float(row[RESET_CUBE_MASS]))
            p.changeDynamics(
                self.cube,
                -1,
                contactStiffness=stiffness,
                contactDamping=damping,
                physicsClientId=cid,
            )

    def _place_target(self, row: np.ndarray) -> None:
        """The target cube where the reset row puts it: resting (dynamic, the cube's mass),
        or parked below the table as a static body (``z < 0``: a pads episode); the cubes
        under it (a tower) each one edge lower, where that is above the table, else
        parked."""
        cid = self.client
        x, y, z = (float(v) for v in row[RESET_TARGET_POS])
        edge = self.spec.cube_size
        for k, body in enumerate([self.target, *self.under_target]):
            height = z - k * edge
            resting = z >= 0 and height > 0
            where = [x, y, height] if resting else [0.2 * k, 0.0, -1.0]
            mass = float(row[RESET_CUBE_MASS]) if resting else 0.0
            p.changeDynamics(body, -1, mass=mass, physicsClientId=cid)
            p.resetBasePositionAndOrientation(
                body, where, [0.0, 0.0, 0.0, 1.0], physicsClientId=cid
            )
            p.resetBaseVelocity(body, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=cid)

    def set_goal(self, goal) -> None:
        """Move the (visual-only) goal marker, and the goal cube under it where there is one."""
        x, y, z = (float(v) for v in goal[:3])
        p.resetBasePositionAndOrientation(
            self.goal_marker, [x, y, z], [0.0, 0.0, 0.0, 1.0], physicsClientId=self.client
        )
        if self.goal_cube >= 0:
            p.resetBasePositionAndOrientation(
                self.goal_cube,
                [x, y, self.spec.cube_size / 2],
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

        ``arm_target``: [7] for the whole period, or [m, 7], one row per 1/m of the period
        (the command path's controller periods, :mod:`sims.robots.actuator`).
        ``motor_filter(substep, state_row, arm_target, finger_target) -> (arm, finger)``,
        when given, runs every ``motor_filter.period_substeps`` physics steps between the
        period's targets and the motors (a controller such as a safety supervisor)."""
        step, cid = p.stepSimulation, self.client
        if np.ndim(arm_target) == 2:
            every = self.spec.substeps // len(arm_target)
            for k in range(self.spec.substeps):
                if k % every == 0:
                    self.apply_targets(arm_target[k // every], finger_target)
                step(physicsClientId=cid)
            return self.read_state()
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
        row[STATE_JOINT_POS : STATE_JOINT_POS + 7] = pos[:7]
        row[STATE_JOINT_VEL : STATE_JOINT_VEL + 7] = vel[:7]
        row[STATE_FINGER_WIDTH] = pos[7] + pos[8] if self.finger_joints else 0.0
        row[STATE_FINGER_CENTRE] = (pos[7] - pos[8]) / 2 if self.finger_joints else 0.0
        if self.cube >= 0:
            pos, quat = p.getBasePositionAndOrientation(self.cube, physicsClientId=cid)
            row[STATE_CUBE_POS : STATE_CUBE_POS + 3] = pos
            row[STATE_CUBE_YAW] = yaw_from_quaternion(*quat)
        if self.target >= 0:
            pos, _ = p.getBasePositionAndOrientation(self.target, physicsClientId=cid)
            row[STATE_TARGET_POS : STATE_TARGET_POS + 3] = pos
        return row

    # --- extras ------------------------------------------------------------------------
    def body_positions(self) -> dict[str, tuple[float, float, float]]:
        """Positions of the decor bodies (the scene's cubes and pads) by name."""
        return {
            name: tuple(p.getBasePositionAndOrientation(body, physicsClientId=self.client)[0])
            for name, body in self.decor.items()
        }

    def render(self, width: int, height: int, camera: dict) -> np.ndarray:
        """RGB image [height, width, 3] uint8 from ``camera`` (:func:`render.render_view`)."""
        return render_view(self.client, width, height, camera)

    def render_rgbd(self, intrinsics, pose, segmentation: bool = False):
        """An RGB-D frame from a pinhole camera (:func:`render.render_rgbd`)."""
        return render_rgbd(self.client, intrinsics, pose, segmentation)

    def close(self) -> None:
        if self.client is not None and self.client >= 0:
            try:
                p.disconnect(physicsClientId=self.client)
            except p.error:  # already gone
                pass
            self.client = None
