"""The PyBullet env: the Panda URDF with real rigid-body physics, one world per env.

Each env is its own PyBullet client (``p.DIRECT``) holding the Panda (pybullet_data's
URDF, fixed base, fixed links merged; for tasks without a gripper the fingers are
welded closed), a table whose top is z = 0, the task's cube (push, pick_place) and a
visual-only goal marker. Geometry and cube mass come from the default scene
(config/scene.yaml).

Control, as the task contract says: actions become joint position targets from the
*measured* joint positions (joint mode: ``dq = a * joint_action_scale * velocity_limit *
control_dt``; Cartesian mode: one damped-least-squares IK step of ``a * cartesian_step_max``,
its z cut so the TCP is never commanded below ``cartesian_z_min``), clipped to the datasheet
limits in :mod:`sims.robots.panda` (narrower than the URDF's).
PyBullet's position motors (``setJointMotorControlArray``, force = datasheet torque
limits) then track them for ``substeps = control_dt / physics_dt`` physics steps. The
pick_place gripper command opens (> 0) or closes (<= 0) both fingers.

Per episode: cube mass and cube-table friction are randomized (``cfg.randomization``),
and where it turns them on the cube's edge (one of a few cubes each world holds), the
finger pads' friction, the cube's contact stiffness and the finger reading (an offset that
moves the measured opening of a held cube in the observation,
:func:`~sims.tasks.base.reported_finger_width`: the fingers and contacts stay the URDF's);
an action delay of 0..k steps is drawn, and each world is restored to the snapshot
taken when it was built, so an episode depends only on the seed and the actions.
An action delay d replays the action from d steps ago (zeros, and an open-gripper
command, before an episode's first actions). Observation noise (Gaussian,
``observation_noise_std``) is added to the measured joint, TCP and cube positions and
the cube yaw before ``task.observe``.

pick_place stacking episodes (``cfg.stack_fraction`` > 0, variant ``stack`` of
:mod:`sims.tasks.pick_place`): each world also holds a target cube, resting where the
episode's goal lies in a stacking episode and parked below the table otherwise; the
goal of a stacking episode follows the measured target cube
(:func:`~sims.tasks.pick_place.stack_goal`) and ``state.stack`` marks those episodes.
Tower episodes (``cfg.stack_base_cubes`` 2, variant ``tower``, or ``cfg.tower_fraction``
of the stacking episodes) also hold the cube under the target cube (parked in the others).
Without stacking the worlds hold exactly the bodies they always held.

``motor_filters`` (one per env, in-process only) put a controller between each period's
targets and the motors: ``f(substep, state_row, arm, finger) -> (arm, finger)`` every
``f.period_substeps`` physics steps, ``f.reset(state_row)`` at each episode start
(``miles eval --supervised`` runs the safety supervisor there); a None entry leaves that
env's motors on the targets (the plain arm).

Several envs: by default they run in subprocess workers (``num_workers``, pipes, see
:mod:`sims.backends.pybullet.workers`), each worker holding a contiguous block of worlds;
``num_workers=0`` keeps them all in this process. Both give identical results for the
same seed: all sampling happens in this process (:mod:`sims.backends.pybullet.rows`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sims.backends.host import HostPhysicsEnv, control_substeps
from sims.backends.pybullet.rows import sample_reset_rows, unpack_state_rows
from sims.backends.pybullet.scene import DEFAULT_CAMERA, world_spec_from_scene
from sims.backends.pybullet.spec import RESET_GOAL, RESET_TARGET_POS, STATE_TARGET_POS
from sims.backends.pybullet.workers import open_worlds, worker_count
from sims.control import joint_targets
from sims.robots.actuator import ActuatorModel
from sims.scene import Scene, load_scene
from sims.tasks import pick_place
from sims.tasks.base import TaskConfig, check_backend_randomization, cube_sizes


def make_pybullet_env(
    task_module, num_envs: int, config: TaskConfig | None = None, **options
) -> PyBulletEnv:
    """A :class:`PyBulletEnv` (its docstring lists the keyword ``options``)."""
    return PyBulletEnv(task_module, num_envs, config, **options)


class PyBulletEnv(HostPhysicsEnv):
    """Batched PyBullet env (gymnasium VectorEnv, SAME_STEP autoreset; see base.py).

    Keyword options:
      ``num_workers``: subprocess workers; None = min(num_envs, CPU count) when
      num_envs > 1, else 0; 0 = every world in this process.
      ``physics_dt``, ``substeps``: physics timestep (s) and steps per control period;
      ``substeps * physics_dt`` must equal ``cfg.control_dt`` (substeps defaults to
      ``round(control_dt / physics_dt)``).
      ``render``: sets ``render_mode = "rgb_array"`` (``render()`` works either way).
      ``dense_reward``: the task's dense (default) or sparse reward.
      ``autoreset``: reset ended envs inside ``step`` (default); False leaves them
      running (terminated/truncated are still reported), for scripted use.
      ``scene``: the :class:`sims.scene.Scene` giving table and cube geometry (default:
      config/scene.yaml); ``scene_objects``: also add its named cubes and pads.
      ``start_method``: multiprocessing start method of the workers (default spawn).
      ``actuator``: the arm's command-path model (:mod:`sims.robots.actuator`; ``"panda"``,
      ``"none"`` (default) or an ``ActuatorModel``): the targets are rate limited at the
      controller rate and the motors get one command per controller period.
      ``observation_filter``: what the policy is told instead of the measured state
      (:attr:`HostPhysicsEnv.observation_filter`).
      ``goal_cube``: a visual-only cube on the table under the goal (reach: a target a
      camera sees, :attr:`WorldSpec.goal_cube`).
      ``arm_meshes``: what the arms look like in :meth:`render_rgbd` and :meth:`render`
      (:attr:`WorldSpec.arm_meshes`; physics is the same).
    """

    backend_name = "pybullet"
    supports_stacking = True

    def __init__(
        self,
        task_module,
        num_envs: int,
        config: TaskConfig | None = None,
        *,
        num_workers: int | None = None,
        physics_dt: float = 0.002,
        substeps: int | None = None,
        render: bool = False,
        dense_reward: bool = True,
        autoreset: bool = True,
        scene: Scene | None = None,
        scene_objects: bool = False,
        start_method: str = "spawn",
        motor_filters: list | None = None,
        actuator: str | ActuatorModel | None = None,
        observation_filter=None,
        goal_cube: bool = False,
        arm_meshes: str = "visual",
    ):
        super().__init__(task_module, num_envs, config)
        self.closed = True  # until the worlds exist
        cfg = self.cfg
        n = self.num_envs
        check_backend_randomization(cfg.randomization, "pybullet", "its fingers are the URDF's")
        self.physics_dt, self.substeps = control_substeps(cfg, physics_dt, substeps)
        self.num_workers = worker_count(num_workers, n, motor_filters)
        self.motor_filters = motor_filters
        self._init_host_state(dense_reward, autoreset, actuator)
        self.observation_filter = observation_filter
        if self.actuator is not None:
            m = self.actuator.substeps(cfg.control_dt)
            if motor_filters is not None:
                raise ValueError(
                    "actuator and motor_filters: both shape the motors' commands; use one"
                )
            if self.substeps % m:
                raise ValueError(
                    f"actuator: {m} controller periods do not divide the {self.substeps} "
                    "physics steps of a control period; change physics_dt or rate_hz"
                )
        self.render_mode = "rgb_array" if render else None
        self.scene = scene if scene is not None else load_scene()
        self.camera = dict(DEFAULT_CAMERA)

        self._finger_target = np.zeros(n)
        self._all_ids = np.arange(n)
        self._stacking = cfg.stack_fraction > 0
        self._base_cubes = np.full(n, cfg.stack_base_cubes)  # per env: cubes under the goal

        spec = world_spec_from_scene(
            self.scene,
            has_object=cfg.has_object,
            has_gripper=cfg.has_gripper,
            physics_dt=self.physics_dt,
            substeps=self.substeps,
            scene_objects=scene_objects,
        )
        if self._stacking:
            under = pick_place.most_base_cubes(cfg) - 1  # a tower: cubes under the target
            spec = dataclasses.replace(spec, target_cube=True, cubes_under_target=under)
        if goal_cube:
            spec = dataclasses.replace(spec, goal_cube=True)
        if arm_meshes != spec.arm_meshes:
            spec = dataclasses.replace(spec, arm_meshes=arm_meshes)
        if cfg.has_object and cfg.randomization.cube_size is not None:
            sizes = cube_sizes(cfg.randomization, task_module.CUBE_SIZE)
            spec = dataclasses.replace(spec, cube_sizes=sizes)
        self._spec = spec
        self._worlds = open_worlds([spec] * n, self.num_workers, start_method, motor_filters)
        self.closed = False

    # --- the physics of one period (HostPhysicsEnv runs the rest of the step) --------------
    def _advance(self, actions: np.ndarray) -> None:
        _, finger = joint_targets(self.cfg, self._state.joint_pos, actions, self._arm_target)
        if self.cfg.has_gripper:
            np.copyto(self._finger_target, finger)
        arm = self._arm_target
        if self.actuator is not None:  # one command per controller period
            arm = self._shape_commands(arm)
        rows = self._worlds.step(arm, self._finger_target)
        unpack_state_rows(rows, self._all_ids, self.cfg.has_object, self._state)
        if self._stacking:
            self._follow_targets(rows, self._all_ids)

    def render(self, env_index: int = 0, width: int = 640, height: int = 480) -> np.ndarray:
        """RGB image [height, width, 3] uint8 of one env from the fixed camera."""
        self._check_open()
        self._check_index(env_index)
        for name, value in (("width", width), ("height", height)):
            if not isinstance(value, (int, np.integer)) or not 1 <= value <= 4096:
                raise ValueError(f"{name} must be an integer in [1, 4096], got {value!r}")
        return self._worlds.render(int(env_index), int(width), int(height), self.camera)

    def render_rgbd(self, env_index: int, intrinsics, pose) -> tuple[np.ndarray, np.ndarray]:
        """An RGB-D frame of one env from a pinhole camera (:mod:`sims.camera`): rgb uint8
        [H, W, 3] and depth float32 [H, W] along the view (m, 0 = nothing)."""
        self._check_open()
        self._check_index(env_index)
        return self._worlds.render_rgbd(int(env_index), intrinsics, pose)

    @property
    def world_spec(self):
        """The :class:`~sims.backends.pybullet.spec.WorldSpec` every world was built from
        (what a camera sees of them: colours, cube size)."""
        return self._spec

    def close_extras(self, **kwargs) -> None:
        worlds = getattr(self, "_worlds", None)
        if worlds is not None:
            self._worlds = None
            worlds.close()

    def __del__(self):
        try:
            if not getattr(self, "closed", True):
                self.close()
        except Exception:  # interpreter shutdown: nothing sensible left to do
            pass

    # --- extras for tests, scripts and the ROS sim node ----------------------------------
    def set_goal(self, goal_pos, goal_yaw=None) -> None:
        """Replace the goals ([3] for every env or [N, 3]) and target yaws (turn) without
        resetting anything (:meth:`HostPhysicsEnv.set_goal`)."""
        super().set_goal(goal_pos, goal_yaw)
        self._worlds.set_goal(self._state.goal_pos)

    def body_positions(self, env_index: int = 0) -> dict[str, tuple[float, float, float]]:
        """Positions of the scene's named cubes and pads (with ``scene_objects=True``)."""
        self._check_open()
        self._check_index(env_index)
        return self._worlds.body_positions(int(env_index))

    # --- internals ---------------------------------------------------------------------
    def _follow_targets(self, states: np.ndarray, ids: np.ndarray) -> None:
        """Stacking episodes among ``ids``: the goal on top of the measured target cube (a
        tower's at the level it builds, :func:`~sims.tasks.pick_place.tower_goal`)."""
        stack = self._state.stack[ids]
        if stack.any():
            target = states[stack, STATE_TARGET_POS : STATE_TARGET_POS + 3]
            goal = pick_place.tower_goal(target, self._base_cubes[ids[stack]])
            self._state.goal_pos[ids[stack]] = goal

    def _check_index(self, env_index) -> None:
        if not isinstance(env_index, (int, np.integer)) or not 0 <= env_index < self.num_envs:
            raise IndexError(f"env_index must be in [0, {self.num_envs}), got {env_index!r}")

    def _reset_envs(self, ids: np.ndarray) -> None:
        rows, self._episode_draws[ids], self._delay[ids], goal_yaw = sample_reset_rows(
            self.task, self.cfg, self._rng, len(ids), self.scene.cube_mass, self._latency
        )
        if goal_yaw is not None:
            self._state.goal_yaw[ids] = goal_yaw
        self._draw_finger_reading(ids)
        states = self._worlds.reset(ids, rows)
        if self.motor_filters is not None:
            for k, i in enumerate(ids):
                if self.motor_filters[i] is not None:  # None: that env's motors take the targets
                    self.motor_filters[i].reset(states[k])
        self._state.goal_pos[ids] = rows[:, RESET_GOAL]
        unpack_state_rows(states, ids, self.cfg.has_object, self._state)
        target_z = rows[:, RESET_TARGET_POS][:, 2]
        self._state.stack[ids] = target_z >= 0.0
        self._base_cubes[ids] = [pick_place.cube_level(z) or 1 for z in target_z]
        if self._stacking:
            self._follow_targets(states, ids)
        self._reset_commands(ids)
        self._steps[ids] = 0
        self._returns[ids] = 0.0
        self._history[ids] = 0.0
        if self.cfg.has_gripper:  # the fingers start open: hold them open until actions arrive
            self._history[ids, :, 3] = 1.0
