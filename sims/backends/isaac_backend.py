"""Isaac Lab adapter: the same tasks as GPU-parallel PhysX envs (a ``DirectRLEnv``).

Isaac Lab is imported lazily, only when an :class:`IsaacEnv` is made. Where it is not
importable, :class:`IsaacLabNotAvailableError` (an ``ImportError``) says what to install.

The mapping (same observation layout and action meaning as the numba and PyBullet
backends, see tasks_contract in the task modules):

- scene: Isaac Lab's Franka Panda asset (``FRANKA_PANDA_CFG``, home pose from
  :mod:`sims.robots.panda`), a table whose top is z = 0, the task's cube (push,
  pick_place) from config/scene.yaml, one copy per env;
- ``_pre_physics_step``: actions -> joint position targets from the measured joints by
  :func:`sims.control.joint_targets`, the mapping of every backend (joint mode: ``a *
  joint_action_scale * velocity_limit * control_dt``; Cartesian mode: one
  damped-least-squares step of the Panda model's Jacobian), clipped to the datasheet
  limits (the asset's own limits are the URDF's, wider);
  ``decimation = control_dt / sim.dt`` physics steps per action;
- ``_get_observations`` / ``_get_rewards`` / ``_get_dones``: a :class:`SimState` built from
  the articulation and the cube, then the task's own ``observe``/``reward``/``success``;
- ``_reset_idx``: the task's samplers (``sample_reset`` or ``reset_distribution`` +
  ``sample_goal``) and the per-episode mass and friction randomization.

This code path has not been run here (no Isaac Lab, no RTX GPU on the development
machines); only the missing-dependency error is tested.
"""

from __future__ import annotations

import importlib
import logging
import math

import numpy as np

from sims.backends.base import BatchedEnv
from sims.control import ControlParams, joint_targets
from sims.robots import panda
from sims.tasks.base import SimState, TaskConfig

logger = logging.getLogger(__name__)

INSTALL_HINT = (
    "the 'isaac' backend needs Isaac Lab (NVIDIA Isaac Sim + Isaac Lab, Python package "
    "'isaaclab', or 'omni.isaac.lab' before Isaac Lab 2.0), which is not importable in this "
    "environment. Isaac Sim runs only on Linux or Windows with an NVIDIA RTX GPU and a recent "
    "NVIDIA driver. Install it by following Isaac Lab's 'Installation' guide "
    "(isaac-sim.github.io/IsaacLab, 'Local Installation' with pip or from source), then run "
    "Miles with that Python. Without such a GPU, use backend='numba' (fast training) or "
    "backend='pybullet' (physics)."
)


class IsaacLabNotAvailableError(ImportError):
    """Isaac Lab (and Isaac Sim) is not installed or not importable here."""


def import_isaaclab() -> str:
    """The importable Isaac Lab namespace (``isaaclab`` or ``omni.isaac.lab``), or raise
    :class:`IsaacLabNotAvailableError`."""
    errors = []
    for name in ("isaaclab", "omni.isaac.lab"):
        try:
            importlib.import_module(name)
            return name
        except ImportError as exc:  # includes ModuleNotFoundError
            errors.append(f"{name}: {exc}")
    raise IsaacLabNotAvailableError(f"{INSTALL_HINT} (import errors: {'; '.join(errors)})")


class IsaacEnv(BatchedEnv):
    """Batched Isaac Lab env with the :class:`BatchedEnv` interface (numpy in and out).

    ``device``: the torch device of the simulation (default ``cuda:0``);
    ``headless``: start Isaac Sim without a window (default True).
    """

    backend_name = "isaac"

    def __init__(
        self,
        task_module,
        num_envs: int,
        config: TaskConfig | None = None,
        *,
        device: str = "cuda:0",
        headless: bool = True,
        dense_reward: bool = True,
        physics_dt: float = 0.005,
    ):
        super().__init__(task_module, num_envs, config)
        self.closed = True
        namespace = import_isaaclab()
        self._app = _launch_app(namespace, headless)
        self._env = _make_direct_env(
            namespace, task_module, self.cfg, self.num_envs, device, dense_reward, physics_dt
        )
        self.closed = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self._env.reset(seed=seed, options=options)
        return obs["policy"].cpu().numpy(), {}

    def step(self, actions):
        import torch

        actions = self.check_actions(actions)
        act = torch.as_tensor(actions, dtype=torch.float32, device=self._env.device)
        obs, reward, terminated, truncated, extras = self._env.step(act)
        # DirectRLEnv resets inside step (SAME_STEP); it keeps no final observation, so
        # final_obs is the pre-reset state the env recorded in _get_dones.
        info = {
            "success": extras["success"].cpu().numpy(),
            "final_obs": extras["final_obs"].cpu().numpy(),
            "_final_obs": (terminated | truncated).cpu().numpy(),
            "episode_return": extras["episode_return"].cpu().numpy(),
            "episode_length": extras["episode_length"].cpu().numpy(),
        }
        return (
            obs["policy"].cpu().numpy(),
            reward.cpu().numpy(),
            terminated.cpu().numpy(),
            truncated.cpu().numpy(),
            info,
        )

    def get_state(self) -> SimState:
        return self._env.sim_state()

    def close_extras(self, **kwargs) -> None:
        env = getattr(self, "_env", None)
        if env is not None:
            env.close()
            self._env = None


def _launch_app(namespace: str, headless: bool):
    """Isaac Sim must be running before most Isaac Lab modules import."""
    app_module = importlib.import_module(f"{namespace}.app")
    return app_module.AppLauncher(headless=headless).app


def _make_direct_env(
    namespace, task_module, cfg: TaskConfig, num_envs, device, dense_reward, physics_dt
):  # pragma: no cover - needs Isaac Lab and an RTX GPU
    """Build the DirectRLEnv subclass and its config inside Isaac Lab's namespace."""
    import torch

    lab = importlib.import_module(namespace)  # noqa: F841 (keeps the namespace loaded)
    envs = importlib.import_module(f"{namespace}.envs")
    sim_utils = importlib.import_module(f"{namespace}.sim")
    assets = importlib.import_module(f"{namespace}.assets")
    scene_mod = importlib.import_module(f"{namespace}.scene")
    utils = importlib.import_module(f"{namespace}.utils")
    lab_assets = importlib.import_module(
        "isaaclab_assets" if namespace == "isaaclab" else "omni.isaac.lab_assets"
    )
    from sims.scene import load_scene

    scene = load_scene()
    decimation = max(1, round(cfg.control_dt / physics_dt))
    control = ControlParams.from_config(cfg)

    robot_cfg = lab_assets.FRANKA_PANDA_CFG.replace(prim_path="/World/envs/env_.*/Robot")
    robot_cfg.spawn.articulation_props.fix_root_link = True
    for name, q0 in zip(panda.JOINT_NAMES, panda.home_joint_positions, strict=True):
        robot_cfg.init_state.joint_pos[name] = float(q0)

    @utils.configclass
    class MilesEnvCfg(envs.DirectRLEnvCfg):
        episode_length_s = cfg.episode_steps * cfg.control_dt
        action_space = cfg.action_dim
        observation_space = task_module.LAYOUT.dim
        state_space = 0
        sim = sim_utils.SimulationCfg(dt=physics_dt, render_interval=decimation, device=device)
        scene = scene_mod.InteractiveSceneCfg(
            num_envs=num_envs, env_spacing=2.0, replicate_physics=True
        )

    env_cfg = MilesEnvCfg()
    env_cfg.decimation = decimation

    class MilesDirectEnv(envs.DirectRLEnv):
        cfg: MilesEnvCfg

        def _setup_scene(self):
            self.robot = assets.Articulation(robot_cfg)
            sx, sy, thickness = scene.table.size
            table = sim_utils.CuboidCfg(
                size=(sx, sy, thickness),
                collision_props=sim_utils.CollisionPropertiesCfg(),
                visual_material=sim_utils.PreviewSurfaceCfg(diffuse_color=scene.table.color[:3]),
            )
            table.func(
                "/World/envs/env_0/Table",
                table,
                translation=(*scene.table.center_xy, -thickness / 2),
            )
            self.cube = None
            if cfg.has_object:
                self.cube = assets.RigidObject(
                    assets.RigidObjectCfg(
                        prim_path="/World/envs/env_.*/Cube",
                        spawn=sim_utils.CuboidCfg(
                            size=(scene.cube_size,) * 3,
                            rigid_props=sim_utils.RigidBodyPropertiesCfg(),
                            mass_props=sim_utils.MassPropertiesCfg(mass=scene.cube_mass),
                            collision_props=sim_utils.CollisionPropertiesCfg(),
                        ),
                        init_state=assets.RigidObjectCfg.InitialStateCfg(
                            pos=(0.45, 0.0, scene.cube_size / 2)
                        ),
                    )
                )
                self.scene.rigid_objects["cube"] = self.cube
            self.scene.clone_environments(copy_from_source=False)
            self.scene.articulations["robot"] = self.robot
            self.arm_ids, _ = self.robot.find_joints(list(panda.JOINT_NAMES))
            self.finger_ids, _ = self.robot.find_joints(list(panda.FINGER_JOINT_NAMES))
            self.tcp_body = self.robot.find_bodies("panda_hand")[0][0]
            self.goal = torch.zeros(num_envs, 3, device=device)
            self.returns = torch.zeros(num_envs, device=device)
            self.rng = np.random.default_rng()
            self.targets = torch.zeros(num_envs, 7, device=device)
            self.finger_targets = torch.zeros(num_envs, 2, device=device)
            self.last = {}

        def _pre_physics_step(self, actions):
            # the one action mapping of every backend (sims.control), on the measured joints
            q = self.robot.data.joint_pos[:, self.arm_ids].double().cpu().numpy()
            arm, finger = joint_targets(control, q, actions.double().cpu().numpy())
            self.targets = torch.as_tensor(arm, dtype=torch.float32, device=device)
            if finger is not None:
                finger = torch.as_tensor(finger, dtype=torch.float32, device=device)
                self.finger_targets = finger.unsqueeze(-1).expand(-1, 2)

        def _apply_action(self):
            self.robot.set_joint_position_target(self.targets, joint_ids=self.arm_ids)
            self.robot.set_joint_position_target(self.finger_targets, joint_ids=self.finger_ids)

        def sim_state(self) -> SimState:
            data = self.robot.data
            q = data.joint_pos[:, self.arm_ids].double().cpu().numpy()
            fingers = data.joint_pos[:, self.finger_ids].sum(-1).double().cpu().numpy()
            obj = np.zeros((num_envs, 3))
            yaw = np.zeros(num_envs)
            if self.cube is not None:
                pos = self.cube.data.root_pos_w - self.scene.env_origins
                obj = pos.double().cpu().numpy()
                w, x, y, z = self.cube.data.root_quat_w.double().cpu().numpy().T
                yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
            return SimState(
                joint_pos=q,
                joint_vel=data.joint_vel[:, self.arm_ids].double().cpu().numpy(),
                tcp_pos=panda.fk_tcp_batch(q),
                finger_width=fingers,
                object_pos=obj,
                object_yaw=yaw,
                goal_pos=self.goal.double().cpu().numpy(),
            )

        def _get_observations(self):
            obs = task_module.observe(self.sim_state())
            return {"policy": torch.as_tensor(obs, device=device)}

        def _get_rewards(self):
            r = task_module.reward(self.sim_state(), cfg, dense_reward)
            r = torch.as_tensor(r, dtype=torch.float32, device=device)
            self.returns += r
            return r

        def _get_dones(self):
            state = self.sim_state()
            success = torch.as_tensor(task_module.success(state, cfg), device=device)
            truncated = self.episode_length_buf >= cfg.episode_steps - 1
            self.extras["success"] = success
            self.extras["final_obs"] = torch.as_tensor(task_module.observe(state), device=device)
            self.extras["episode_return"] = self.returns.clone()
            self.extras["episode_length"] = (self.episode_length_buf + 1).float()
            return success, truncated

        def _reset_idx(self, env_ids):
            super()._reset_idx(env_ids)
            ids = env_ids.cpu().numpy() if env_ids is not None else np.arange(num_envs)
            n = len(ids)
            if hasattr(task_module, "sample_reset"):
                q, pos, yaw, goal = task_module.sample_reset(self.rng, n, cfg)
            else:
                q = task_module.reset_distribution(self.rng, n, cfg)
                goal = task_module.sample_goal(self.rng, n)
                pos, yaw = None, None
            joint_pos = self.robot.data.default_joint_pos[env_ids].clone()
            joint_pos[:, self.arm_ids] = torch.as_tensor(q, dtype=torch.float32, device=device)
            self.robot.write_joint_state_to_sim(
                joint_pos, torch.zeros_like(joint_pos), env_ids=env_ids
            )
            self.goal[env_ids] = torch.as_tensor(goal, dtype=torch.float32, device=device)
            if self.cube is not None and pos is not None:
                root = self.cube.data.default_root_state[env_ids].clone()
                root[:, :3] = torch.as_tensor(pos, dtype=torch.float32, device=device)
                root[:, :3] += self.scene.env_origins[env_ids]
                half = torch.as_tensor(yaw / 2, dtype=torch.float32, device=device)
                root[:, 3:7] = torch.stack(
                    [torch.cos(half), 0 * half, 0 * half, torch.sin(half)], dim=1
                )
                root[:, 7:] = 0.0
                self.cube.write_root_state_to_sim(root, env_ids=env_ids)
                r = cfg.randomization
                masses = self.cube.root_physx_view.get_masses()
                masses[ids] = torch.as_tensor(
                    scene.cube_mass * self.rng.uniform(*r.object_mass_scale, size=(n, 1)),
                    dtype=masses.dtype,
                )
                self.cube.root_physx_view.set_masses(masses, torch.as_tensor(ids))
            self.returns[env_ids] = 0.0

    env = MilesDirectEnv(env_cfg)
    logger.info(
        "Isaac Lab env for %s: %d envs, decimation %d (dt %.4f s)",
        cfg.name,
        num_envs,
        decimation,
        physics_dt,
    )
    if not math.isclose(decimation * physics_dt, cfg.control_dt, rel_tol=1e-6):
        logger.warning(
            "control period %.4f s differs from the task's %.4f s",
            decimation * physics_dt,
            cfg.control_dt,
        )
    return env
