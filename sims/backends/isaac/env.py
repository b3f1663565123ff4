"""The Isaac env: the tasks on Newton 1.6 (Isaac Lab 3.0's kit-less physics, MuJoCo-Warp).

One Newton world per env, replicated from one builder (``ModelBuilder.replicate``, all
worlds at the origin: worlds never collide with each other) and stepped together by
``SolverMuJoCo`` (Newton solver, implicit-fast integrator) on ``cpu`` or ``cuda:N``.
Newton is driven directly rather than through Isaac Lab's ``DirectRLEnv``: the same
physics and solver as Isaac Lab's ``newton_mjwarp`` preset, but the drives, substeps,
gravity compensation and per-world randomization are set here in a few lines, the
state comes back as numpy for the task modules, and no torch or USD scene layer sits
on the step path (Isaac Lab's own env classes can load the USD in the asset folder).

World: the Panda from the local asset folder (:mod:`sims.backends.isaac.assets`: the
pybullet Panda with ``panda_link8`` flattened and published inertials; fixed base, no
self-collisions), a static table box whose top is z = 0 and, for push and pick_place,
a free cube (config/scene.yaml geometry and nominal mass).

Control, as the task contract says (and as the PyBullet backend): actions become joint
position targets from the *measured* joints through the one mapping of every backend,
:func:`sims.control.joint_targets` (clipped to the datasheet limits of
:mod:`sims.robots.panda`, which also replace the URDF's joint limits here); joint PD
drives (arm ke/kd 6000/150 within the datasheet torques, fingers 350/50 within the
URDF's 20 N), gravity-compensated as libfranka's are, track them for ``substeps =
control_dt / physics_dt`` physics steps (default 4 ms, the contact-tested step).
Fingers: open (> 0) or closed (<= 0) with a gripper; held closed otherwise.

Per episode, as the PyBullet backend and in the same sampling order (same seed, same
episodes): the task's reset sampler, cube mass and cube friction scales (per world,
written into the solver's per-world model), an action delay of 0..k steps. Observation
noise is added before ``task.observe``. The TCP in the state is the Panda model's FK of
the measured joints (as PyBullet); :meth:`IsaacEnv.physics_tcp` gives Newton's own.

(About 420 lines: the world building and the env share their index bookkeeping, so they
stay in one module.)
"""

from __future__ import annotations

import logging

import numpy as np

from sims.backends.host import HostPhysicsEnv, control_substeps
from sims.backends.isaac import import_newton
from sims.backends.isaac.assets import require_assets
from sims.control import joint_targets
from sims.robots import panda
from sims.scene import Scene, load_scene
from sims.tasks.base import TaskConfig, check_backend_randomization

logger = logging.getLogger(__name__)

ARM_GAINS = (6000.0, 150.0)
"""Arm joint drive stiffness (N m/rad) and damping (N m s/rad). Damping 150 makes the arm
cover ~0.8 of a commanded step per control period, the contract's ``tracking_gain`` (as
PyBullet's motors); 400 (damping ratio > 2) covered only 0.45."""
FINGER_GAINS = (350.0, 50.0)
"""Finger drive stiffness (N/m) and damping (N s/m): within the URDF's 20 N, no sinking."""
ARM_ARMATURE = 0.1
"""Arm joint armature (kg m^2): reflected motor inertia, as Newton's Panda examples."""
FINGER_ARMATURE = 0.5
"""Finger armature (kg): the published fingers weigh 15 g, too light for MuJoCo's soft
contacts to hold a squeezed cube (they sink in and it slips out); the armature gives the
finger joints the effective mass the contacts need."""
CUBE_FRICTION = 0.5
"""Nominal cube sliding friction (PyBullet's cube-table product, 0.5 * 1.0)."""
TABLE_FRICTION = 0.3
"""Table friction: below every cube draw, so MuJoCo's max-combination uses the cube's."""


class IsaacEnv(HostPhysicsEnv):
    """Batched Newton env (gymnasium VectorEnv, SAME_STEP autoreset; see base.py).

    Keyword options:
      ``device``: ``"cpu"`` (default) or ``"cuda:N"``.
      ``physics_dt``, ``substeps``: physics timestep (s) and steps per control period;
      ``substeps * physics_dt`` must equal ``cfg.control_dt``.
      ``dense_reward``: the task's dense (default) or sparse reward.
      ``autoreset``: reset ended envs inside ``step`` (default); False leaves them running.
      ``scene``: the :class:`sims.scene.Scene` (default config/scene.yaml).
      ``assets``: the asset folder (default: :func:`sims.backends.isaac.assets.asset_dir`).
      ``actuator``: the arm's command-path model (:mod:`sims.robots.actuator`; ``"panda"``,
      ``"none"`` or an ``ActuatorModel``; default none): each physics step's joint targets
      are then the command of its controller period, as in the PyBullet backend.
    """

    backend_name = "isaac"

    def __init__(
        self,
        task_module,
        num_envs: int,
        config: TaskConfig | None = None,
        *,
        device: str = "cpu",
        physics_dt: float = 0.004,
        substeps: int | None = None,
        dense_reward: bool = True,
        autoreset: bool = True,
        scene: Scene | None = None,
        assets=None,
        actuator=None,
    ):
        super().__init__(task_module, num_envs, config)
        self.closed = True
        cfg = self.cfg
        check_backend_randomization(
            cfg.randomization, "isaac", "it keeps the scene's cube, fingers and Newton's contacts"
        )
        self.physics_dt, self.substeps = control_substeps(cfg, physics_dt, substeps)
        self._init_host_state(dense_reward, autoreset, actuator)
        self.device = str(device)
        self.scene = scene if scene is not None else load_scene()
        self._newton, self._wp = import_newton()
        self._build(require_assets(assets)["urdf"])
        self.closed = False

    # --- building ----------------------------------------------------------------------
    def _build(self, urdf) -> None:
        newton, wp, cfg, scene = self._newton, self._wp, self.cfg, self.scene
        robot = newton.ModelBuilder()
        newton.solvers.SolverMuJoCo.register_custom_attributes(robot)
        robot.add_urdf(str(urdf), floating=False, enable_self_collisions=False)
        dofs = robot.joint_dof_count  # 7 arm + 2 fingers
        robot.joint_limit_lower[:7] = panda.joint_position_min.tolist()
        robot.joint_limit_upper[:7] = panda.joint_position_max.tolist()
        robot.joint_effort_limit[:7] = panda.joint_torque_limits.tolist()
        robot.joint_target_ke[:7] = [ARM_GAINS[0]] * 7
        robot.joint_target_kd[:7] = [ARM_GAINS[1]] * 7
        robot.joint_target_ke[7:9] = [FINGER_GAINS[0]] * 2
        robot.joint_target_kd[7:9] = [FINGER_GAINS[1]] * 2
        robot.joint_armature[:9] = [ARM_ARMATURE] * 7 + [FINGER_ARMATURE] * 2
        robot.joint_q[:7] = panda.home_joint_positions.tolist()
        robot.joint_target_q[:7] = panda.home_joint_positions.tolist()
        self._tcp_body = next(
            i for i, label in enumerate(robot.body_label) if label.endswith("panda_grasptarget")
        )
        sx, sy, thickness = scene.table.size
        table_cfg = newton.ModelBuilder.ShapeConfig(mu=TABLE_FRICTION)
        robot.add_shape_box(
            body=-1,
            xform=wp.transform((*scene.table.center_xy, -thickness / 2), wp.quat_identity()),
            hx=sx / 2,
            hy=sy / 2,
            hz=thickness / 2,
            cfg=table_cfg,
        )
        self._cube_body = self._cube_shape = None
        if cfg.has_object:
            half = scene.cube_size / 2
            cube_cfg = newton.ModelBuilder.ShapeConfig(
                mu=CUBE_FRICTION, density=scene.cube_mass / scene.cube_size**3
            )
            self._cube_body = robot.add_body(
                xform=wp.transform((0.45, 0.0, half), wp.quat_identity()), label="cube"
            )
            self._cube_shape = robot.add_shape_box(
                self._cube_body, hx=half, hy=half, hz=half, cfg=cube_cfg
            )
        self._coords, self._dofs, self._arm_dofs = (
            robot.joint_coord_count,
            robot.joint_dof_count,
            dofs,
        )
        self._bodies, self._shapes = robot.body_count, robot.shape_count
        world = newton.ModelBuilder()
        world.replicate(robot, self.num_envs)
        self.model = world.finalize(device=self.device)
        # The Panda's controller compensates gravity (libfranka does): without it each
        # period's target, taken from the sagged measured joints, lets the arm sink.
        gravcomp = np.ones((self.num_envs, self._bodies), dtype=np.float32)
        if self._cube_body is not None:
            gravcomp[:, self._cube_body] = 0.0
        self.model.mujoco.gravcomp.assign(gravcomp.reshape(-1))
        self.solver = newton.solvers.SolverMuJoCo(
            self.model, solver="newton", integrator="implicitfast", disable_sensors=True
        )
        self._s0, self._s1 = self.model.state(), self.model.state()
        self._control = self.model.control()
        newton.eval_fk(self.model, self.model.joint_q, self.model.joint_qd, self._s0)
        self._q = self._s0.joint_q.numpy().reshape(self.num_envs, self._coords).copy()
        self._qd = np.zeros((self.num_envs, self._dofs))
        # joint_target_q has one entry per coordinate here; the robot's 9 come first
        target = self._control.joint_target_q.numpy()
        self._target = target.reshape(self.num_envs, -1).copy()
        if cfg.has_object:
            self._nominal = {
                "mass": self.model.body_mass.numpy().copy(),
                "inertia": self.model.body_inertia.numpy().copy(),
                "mu": self.model.shape_material_mu.numpy().copy(),
            }
        logger.info(
            "Isaac (Newton) env %s: %d worlds on %s, %d x %.4f s physics steps per action",
            cfg.name,
            self.num_envs,
            self.device,
            self.substeps,
            self.physics_dt,
        )

    # --- gymnasium API -----------------------------------------------------------------
    # --- the physics of one period (HostPhysicsEnv runs the rest of the step) --------------
    def _advance(self, actions: np.ndarray) -> None:
        arm, finger = joint_targets(self.cfg, self._state.joint_pos, actions, self._arm_target)
        if finger is not None:
            self._target[:, 7:9] = np.asarray(finger)[:, None]
        if self.actuator is None:
            self._target[:, :7] = arm
            self._control.joint_target_q.assign(self._target.reshape(-1).astype(np.float32))
            self._simulate()
        else:  # one command per controller period, each held over its physics steps
            schedule = self._shape_commands(arm)
            periods = schedule.shape[1]
            for j in range(self.substeps):
                self._target[:, :7] = schedule[:, min(periods - 1, j * periods // self.substeps)]
                self._control.joint_target_q.assign(self._target.reshape(-1).astype(np.float32))
                self._simulate(1)
        self._read_state()

    def close_extras(self, **kwargs) -> None:
        self.solver = self.model = None

    # --- extras for tests, scripts and benchmarks ----------------------------------------
    def physics_tcp(self, joint_pos: np.ndarray) -> np.ndarray:
        """Newton's TCP (the ``panda_grasptarget`` body) [N, 3] for arm joints [N, 7], by
        Newton's own forward kinematics of the articulation (the env's state is untouched)."""
        q = np.asarray(joint_pos, dtype=np.float64).reshape(self.num_envs, 7)
        coords = self._q.copy()
        coords[:, :7] = q
        wp = self._wp
        scratch = self.model.state()
        joint_q = wp.array(coords.reshape(-1).astype(np.float32), device=self.device)
        self._newton.eval_fk(self.model, joint_q, scratch.joint_qd, scratch)
        body_q = scratch.body_q.numpy().reshape(self.num_envs, self._bodies, 7)
        return body_q[:, self._tcp_body, :3].astype(np.float64)

    # --- internals ---------------------------------------------------------------------
    def _simulate(self, steps: int | None = None) -> None:
        """``steps`` physics steps (default: a control period's ``substeps``)."""
        solver, control, dt = self.solver, self._control, self.physics_dt
        for _ in range(self.substeps if steps is None else steps):
            self._s0.clear_forces()
            solver.step(self._s0, self._s1, control, None, dt)
            self._s0, self._s1 = self._s1, self._s0

    def _read_state(self, ids=None) -> None:
        self._q[:] = self._s0.joint_q.numpy().reshape(self.num_envs, self._coords)
        self._qd[:] = self._s0.joint_qd.numpy().reshape(self.num_envs, self._dofs)
        rows = slice(None) if ids is None else ids
        s, q = self._state, self._q[rows]
        s.joint_pos[rows] = q[:, :7]
        s.joint_vel[rows] = self._qd[rows, :7]
        s.finger_width[rows] = q[:, 7] + q[:, 8]
        s.tcp_pos[rows] = panda.fk_tcp_batch(np.ascontiguousarray(q[:, :7]))
        if self.cfg.has_object:
            s.object_pos[rows] = q[:, 9:12]
            x, y, z, w = q[:, 12], q[:, 13], q[:, 14], q[:, 15]
            s.object_yaw[rows] = np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))

    def _reset_envs(self, ids: np.ndarray) -> None:
        task, cfg, rng, n = self.task, self.cfg, self._rng, len(ids)
        goal_yaw = None
        if hasattr(task, "sample_reset"):
            q, pos, yaw, goal, *target_yaw = task.sample_reset(rng, n, cfg)
            goal_yaw = target_yaw[0] if target_yaw else None
        else:
            q, pos, yaw = task.reset_distribution(rng, n, cfg), None, None
            goal = task.sample_goal(rng, n)
        r = cfg.randomization
        mass_scale = rng.uniform(*r.object_mass_scale, size=n)
        friction_scale = rng.uniform(*r.friction_scale, size=n)
        self._delay[ids] = rng.integers(0, self._latency + 1, size=n)
        self._episode_draws[ids] = np.stack([friction_scale, mass_scale], axis=1)
        finger = getattr(task, "INITIAL_FINGER_WIDTH", 0.0) / 2.0

        self._q[ids, :7] = q
        self._q[ids, 7:9] = finger
        self._target[ids, :7] = q
        self._target[ids, 7:9] = finger
        self._qd[ids] = 0.0
        if pos is not None:
            self._q[ids, 9:12] = pos
            self._q[ids, 12:16] = np.stack(
                [np.zeros(n), np.zeros(n), np.sin(yaw / 2), np.cos(yaw / 2)], axis=1
            )
            self._randomize_cube(ids, mass_scale, friction_scale)
        wp, s0 = self._wp, self._s0
        s0.joint_q.assign(self._q.reshape(-1).astype(np.float32))
        s0.joint_qd.assign(self._qd.reshape(-1).astype(np.float32))
        self._control.joint_target_q.assign(self._target.reshape(-1).astype(np.float32))
        self._newton.eval_fk(self.model, s0.joint_q, s0.joint_qd, s0)
        wp.synchronize_device(self.device)
        self._state.goal_pos[ids] = goal
        if goal_yaw is not None:
            self._state.goal_yaw[ids] = goal_yaw
        self._read_state(ids)
        self._reset_commands(ids)
        self._steps[ids] = 0
        self._returns[ids] = 0.0
        self._history[ids] = 0.0
        if cfg.has_gripper:  # the fingers start open: hold them open until actions arrive
            self._history[ids, :, 3] = 1.0

    def _randomize_cube(self, ids, mass_scale, friction_scale) -> None:
        nominal, model = self._nominal, self.model
        bodies = ids * self._bodies + self._cube_body
        shapes = ids * self._shapes + self._cube_shape
        mass = model.body_mass.numpy().copy()
        inertia = model.body_inertia.numpy().copy()
        mu = model.shape_material_mu.numpy().copy()
        mass[bodies] = nominal["mass"][bodies] * mass_scale
        inertia[bodies] = nominal["inertia"][bodies] * mass_scale[:, None, None]
        mu[shapes] = CUBE_FRICTION * friction_scale
        model.body_mass.assign(mass)
        model.body_inv_mass.assign(np.where(mass > 0, 1.0 / np.maximum(mass, 1e-12), 0.0))
        model.body_inertia.assign(inertia)
        inv = np.zeros_like(inertia)
        inv[mass > 0] = np.linalg.inv(inertia[mass > 0])
        model.body_inv_inertia.assign(inv)
        model.shape_material_mu.assign(mu)
        flags = self._newton.ModelFlags
        self.solver.notify_model_changed(flags.BODY_INERTIAL_PROPERTIES | flags.SHAPE_PROPERTIES)
