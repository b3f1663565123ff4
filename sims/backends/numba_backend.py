"""The numba backend: all envs of a task in one process, stepped by fused parallel kernels.

Physics (the kernels are in :mod:`sims.kernels`):

- **Arm.** Kinematic. The action becomes a joint target (joint mode: position deltas
  scaled by the velocity limits; Cartesian mode: one damped-least-squares IK step for the
  TCP displacement), clipped to the datasheet limits; the arm covers ``tracking_gain`` of
  the step per period (q += gain * (target - q)), as PyBullet's position control does;
  joint velocity = (q_new - q) / control_dt. The TCP comes from an inlined forward
  kinematics that equals :func:`sims.robots.panda.fk_tcp`.
- **Fingers** (push, pick_place). Two vertical cylinders of radius ``FINGER_RADIUS``
  (0.0135 m, PyBullet's finger footprint) and height ``FINGER_LENGTH`` (0.05 m), their
  tips ``FINGERTIP_BELOW_TCP`` (0.01 m) below the TCP, their inner faces
  ``finger_width / 2`` either side of the TCP along the hand's finger axis (projected on
  the table plane). Push keeps them closed, so they touch and act as one 0.054 m x
  0.027 m pusher.
- **Table and cube tops.** Cartesian actions never command the TCP below
  ``cartesian_z_min`` (every backend cuts the z step the same way). The fingertips cannot
  go below the table top, nor into the top of a cube they come down on: when they would,
  one extra IK step lifts the TCP back (the arm is stopped, as by a contact).
- **Cube.** A 0.04 m box with a yaw, resting on the table. A finger that overlaps it in
  height (its tip at least ``CONTACT_TOP_BAND`` = 6 mm below the cube's top: grazing
  contacts ride over or tip the cube in PyBullet) and penetrates its footprint pushes it
  quasi-statically: the penetration along the contact normal (plus the finger's
  tangential motion while sticking) is the displacement asked of the contact point, and
  the cube moves by the twist that an ellipsoidal limit surface gives for the contact
  force (radius c = ratio * edge, the ratio drawn per episode in the task's range),
  so a push through the centre translates it and an off-centre push also turns it about
  z. For push each finger's footprint (0.029 m x 0.027 m) is a 2 x 2 grid of circles,
  so flat faces push as faces (pick_place: one cylinder per finger, see
  ``CONTACT_MODELS``); the fingers' motion in a step is swept in ``CONTACT_SUBSTEPS``
  parts, the contacts resolved in alternating Gauss-Seidel passes (two fingers on one
  face leave it flush with both). Finger-cube friction is Coulomb (mu drawn per episode
  in the task's range): outside the friction cone the finger slides along the face.
  After a push the cube leaves the fingers at ``kick`` times their speed (``KICK_RANGE``,
  drawn per episode: a struck PyBullet cube runs ahead of the fingers) and slows with
  Coulomb table friction, mu g (mu = ``MU_TABLE`` = 0.5 times the episode's friction
  scale), so a quick flick slides it further. Fitted against random PyBullet push
  segments (same start, same actions) the model's cube lands 2.4-2.9 cm from PyBullet's
  after ~8 cm pushes, whatever the parameters; PyBullet's own spread for a 1 mm change
  of the start is 0.7 cm. Hence the per-episode draws: policies learn to correct.
- **Grasp** (pick_place). A close command (gripper action <= 0) drives the finger width
  toward 0 with the tracking gain; if the cube's centre is between the pads (across the
  finger axis within the cube's half edge, at the TCP's height within the half edge both
  before and after the step, and along it inside the current opening) when the width
  reaches the cube's edge, the cube is grasped: the fingers stop at the cube's edge, the cube is
  centred between the pads and squared to them (yaw snapped to the nearest face), and it
  then moves rigidly with the TCP (never below the table). Opening past the cube's edge
  by 2 mm releases it; a released cube falls under gravity to the table. With a finger
  reading offset d (``randomization.finger_reading``) the reported width of a held cube
  is its edge plus d: d > 0, pads whose faces lie d/2 inside each end of the reported
  opening (an empty closed gripper reads d); d < 0, compliant pads the closing fingers
  squeeze by -d (an empty closed gripper reads 0, the pads spring back on release). The
  open gripper reads its full opening either way.
- **Limits of the model.** The table is unbounded (a cube pushed past its edge stays at
  table height), the robot's links other than the fingers do not collide, and a held cube
  cannot slip or be knocked out of the grasp.
- **Mass.** Sampled per episode (scale in ``randomization.object_mass_scale``) and kept in
  :meth:`NumbaEnv.randomization_state`, but it changes nothing here: the position-
  controlled arm is effectively infinitely strong, quasi-static pushing does not depend
  on mass, and Coulomb deceleration mu g is mass independent.

Command path (off by default; ``actuator="panda"``, :mod:`sims.robots.actuator`): the
targets are tracked at the controller rate under the velocity, acceleration and jerk
limits (the supervisor's shaping, per joint) and the joints follow the shaped command
through a first-order lag instead of ``tracking_gain``; its latency is the action delay.
``randomization.plain_arm_prob`` of the episodes (drawn per episode) bypass it and track
as without it, so a skill also meets the quick arm.

Domain randomization per episode: initial joint noise, friction scale, mass scale, the
cube's edge (``randomization.cube_size``; default the task's 0.04 m), the finger pads
(``randomization.finger_reading``: a held cube reads its edge plus that offset, from pads
inset in the reported opening or, below 0, compliant pads squeezed; default 0)
and contact parameters (kick, finger friction (scaled by ``finger_friction_scale``), limit
surface), and an action delay d in [0, k] (k = ``action_latency_steps``): a per-env ring
buffer of the last k + 1 actions, the applied action being the one from d steps ago
(zeros, and an open gripper command, before the episode's first actions). Observation
noise: Gaussian with ``observation_noise_std`` on joint, TCP and object positions and the
cube yaw, every step.

Kernels: every task and mode runs the step kernel that
:func:`~sims.kernels.step.task_kernels` builds around the task's scalar terms (its
``KERNEL``, :mod:`sims.tasks.registry`; one step, written once);
:mod:`sims.backends.numba_cuda` runs the same per-env step as a numba.cuda kernel over the
same state. ``info["reward/<term>"]``: each of the task's reward terms, weighted.

Randomness: a counter-based hash (splitmix64 of seed, env index, episode counter and draw
number), so a seed gives bit-identical rollouts whatever the threads. Reset distributions
are the task module's (same ranges read from it), drawn by the kernels.

The parameter vectors (and the contact models' numbers) are packed by
:mod:`sims.backends.numba_params`; ``MU_TABLE``, ``KICK_RANGE``, ``ContactModel`` and
``CONTACT_MODELS`` are re-exported here.
"""

from __future__ import annotations

import ctypes
import logging
import sys

import numba
import numpy as np

from sims.backends.base import BatchedEnv
from sims.backends.numba_params import (
    CONTACT_MODELS,
    KICK_RANGE,
    MU_TABLE,
    ContactModel,
    kernel_params,
)
from sims.kernels import kinematics as kin
from sims.kernels import layout
from sims.kernels import step as kernels
from sims.robots.actuator import (
    ActuatorModel,
    effective_latency,
    resolve_actuator,
)
from sims.tasks.base import SimState, TaskConfig
from sims.tasks.registry import has_goal_yaw

__all__ = [
    "CONTACT_MODELS",
    "KICK_RANGE",
    "MU_TABLE",
    "ContactModel",
    "NumbaEnv",
    "keep_freed_memory_for_reuse",
    "parse_device",
]

log = logging.getLogger(__name__)

_MALLOC_TUNED = False


def keep_freed_memory_for_reuse() -> bool:
    """Ask glibc (once per process) to keep freed blocks of up to 32 MiB for reuse.

    Each step returns new output arrays. By default glibc maps blocks over 128 KiB fresh
    from the OS and unmaps them when freed, so every step's arrays page-fault on first
    touch: about 150 us per 4096 x 23 float32 array, a quarter of a reach step at 4096
    envs. Raising the mmap and trim thresholds lets freed arrays be recycled. Returns
    whether the setting took effect (False off glibc).
    """
    global _MALLOC_TUNED
    if _MALLOC_TUNED:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        m_trim_threshold, m_mmap_threshold = -1, -3
        ok = libc.mallopt(m_mmap_threshold, 32 << 20) == 1
        ok = libc.mallopt(m_trim_threshold, 128 << 20) == 1 and ok
    except (OSError, AttributeError):
        return False
    _MALLOC_TUNED = ok
    log.debug("glibc malloc thresholds raised for array reuse: %s", ok)
    return ok


class NumbaEnv(BatchedEnv):
    """``num_envs`` copies of a task stepped by numba kernels (see the module docstring).

    ``dense_reward`` selects the task's dense or sparse reward; ``actuator`` the arm's
    command-path model (:func:`sims.robots.actuator.resolve_actuator`: ``"panda"``,
    ``"none"`` (default) or an :class:`~sims.robots.actuator.ActuatorModel`). The arrays
    returned by :meth:`reset` and :meth:`step` are new each call (the caller may keep them);
    ``tune_malloc`` applies :func:`keep_freed_memory_for_reuse` so that allocating them
    stays cheap.
    """

    backend_name = "numba"
    device = "cpu"

    def __init__(
        self,
        task_module,
        num_envs: int,
        config: TaskConfig | None = None,
        dense_reward: bool = True,
        tune_malloc: bool = True,
        actuator: str | ActuatorModel | None = None,
    ):
        super().__init__(task_module, num_envs, config)
        self.actuator = resolve_actuator(actuator)
        if tune_malloc:
            keep_freed_memory_for_reuse()
        self._fp, self._ip = kernel_params(task_module, self.cfg, dense_reward, self.actuator)
        self._kernels = kernels.task_kernels(task_module.KERNEL)
        self.reward_terms = tuple(task_module.REWARD_TERMS)
        self.dense_reward = dense_reward
        n = self.num_envs
        self._n_chunks = int(max(1, min(n, 8 * numba.get_num_threads())))
        self._st = np.zeros((n, layout.NUM_STATE))
        self._cnt = np.zeros((n, 2), dtype=np.int64)
        k1 = effective_latency(self.actuator, self.cfg.randomization.action_latency_steps) + 1
        self._abuf = np.zeros((n, k1, self.action_dim))
        self._obs = np.zeros((n, self.obs_dim), dtype=np.float32)
        self._seed = np.uint64(0)
        self._all = np.ones(n, dtype=np.bool_)
        self._reset_all(int(np.random.SeedSequence().generate_state(1, np.uint64)[0]), False)

    # ---------------------------------------------------------------------------------
    def _reset_all(self, seed: int | None, bump: bool) -> None:
        if seed is not None:
            self._seed = np.uint64(seed)
            self._cnt[:, layout.C_EPISODE] = 0
        self._obs = np.empty((self.num_envs, self.obs_dim), dtype=np.float32)
        self._kernels.reset_kernel(
            self._fp,
            self._ip,
            self._seed,
            self._all,
            bump,
            self._st,
            self._cnt,
            self._abuf,
            self._obs,
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new episode in every env; ``seed`` (int >= 0) makes it reproducible.

        Returns ``(obs [N, D] float32, info)``.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
            seed = int(seed) & 0xFFFFFFFFFFFFFFFF
            super().reset(seed=seed)  # seeds self.np_random, as gymnasium expects
        self._reset_all(seed, bump=seed is None)
        return self._obs, {}

    def check_actions(self, actions) -> np.ndarray:
        """Actions as float64 [N, A]; ValueError for a wrong shape or non-finite values
        (the kernel clips to [-1, 1])."""
        arr = np.asarray(actions)
        expected = (self.num_envs, self.action_dim)
        if arr.shape != expected:
            raise ValueError(
                f"{self.task.CONFIG.name}: actions must have shape {expected} "
                f"(num_envs, action_dim), got {arr.shape}"
            )
        if arr.dtype != np.float64:
            if not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
                raise ValueError(f"actions must be real numbers, got dtype {arr.dtype}")
            arr = arr.astype(np.float64)
        arr = np.ascontiguousarray(arr)
        bad = kernels.first_non_finite(arr)
        if bad >= 0:
            env, dim = divmod(int(bad), self.action_dim)
            raise ValueError(f"{self.task.CONFIG.name}: non-finite action at env {env}, dim {dim}")
        return arr

    def step(self, actions):
        """Advance every env one control period; SAME_STEP autoreset (see base.py)."""
        actions = self.check_actions(actions)
        n, dim = self.num_envs, self.obs_dim
        obs = np.empty((n, dim), dtype=np.float32)
        final_obs = np.empty((n, dim), dtype=np.float32)
        res = np.empty((layout.R_TERMS + len(self.reward_terms), n))
        flags = np.empty((4, n), dtype=np.bool_)
        self._kernels.step_kernel(
            self._fp,
            self._ip,
            self._seed,
            self._n_chunks,
            actions,
            self._st,
            self._cnt,
            self._abuf,
            obs,
            final_obs,
            res,
            flags,
        )
        self._obs = obs
        info = {
            "success": flags[layout.F_SUCCESS],
            "final_obs": final_obs,
            "_final_obs": flags[layout.F_FINAL],
            "episode_return": res[layout.R_FINAL_RETURN],
            "episode_length": res[layout.R_FINAL_LENGTH],
            **reward_term_infos(self.reward_terms, res),
        }
        return (
            obs,
            res[layout.R_REWARD],
            flags[layout.F_TERMINATED],
            flags[layout.F_TRUNCATED],
            info,
        )

    # ---------------------------------------------------------------------------------
    def get_state(self) -> SimState:
        """A copy of the current batched state."""
        st = self._st
        return SimState(
            joint_pos=st[:, layout.S_Q : layout.S_Q + 7].copy(),
            joint_vel=st[:, layout.S_QD : layout.S_QD + 7].copy(),
            tcp_pos=st[:, layout.S_TCP : layout.S_TCP + 3].copy(),
            finger_width=st[:, layout.S_WIDTH].copy(),
            object_pos=st[:, layout.S_OBJ : layout.S_OBJ + 3].copy(),
            object_yaw=st[:, layout.S_YAW].copy(),
            goal_pos=st[:, layout.S_GOAL : layout.S_GOAL + 3].copy(),
            goal_yaw=st[:, layout.S_GOAL_YAW].copy() if has_goal_yaw(self.task) else None,
        )

    def set_state(
        self,
        joint_pos: np.ndarray | None = None,
        object_pos: np.ndarray | None = None,
        object_yaw: np.ndarray | None = None,
        goal_pos: np.ndarray | None = None,
        finger_width: np.ndarray | None = None,
        goal_yaw: np.ndarray | None = None,
    ) -> np.ndarray:
        """Overwrite parts of the state (arrays broadcast to [N, ...]; ``goal_yaw``: the
        cube's target yaw, rad, of a task with a yaw goal; joint and cube
        velocities are zeroed, a grasp is released) and return the new observation. For
        tests and scripted scenes; the episode's step count is kept."""
        n = self.num_envs
        st = self._st

        def put(col: int, size: int, value, name: str) -> None:
            shape = (n, size) if size > 1 else (n,)
            arr = np.broadcast_to(np.asarray(value, dtype=np.float64), shape)
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"set_state: {name} must be finite")
            if size > 1:
                st[:, col : col + size] = arr
            else:
                st[:, col] = arr

        if joint_pos is not None:
            put(layout.S_Q, 7, joint_pos, "joint_pos")
            np.clip(st[:, :7], kin.Q_MIN, kin.Q_MAX, out=st[:, :7])
            st[:, layout.S_ACT_Q : layout.S_ACT_Q + 7] = st[:, :7]  # command path at rest
            st[:, layout.S_ACT_V : layout.S_ACT_A + 7] = 0.0
        if object_pos is not None:
            put(layout.S_OBJ, 3, object_pos, "object_pos")
        if object_yaw is not None:
            put(layout.S_YAW, 1, object_yaw, "object_yaw")
        if goal_pos is not None:
            put(layout.S_GOAL, 3, goal_pos, "goal_pos")
        if finger_width is not None:
            put(layout.S_WIDTH, 1, finger_width, "finger_width")
        if goal_yaw is not None:
            put(layout.S_GOAL_YAW, 1, goal_yaw, "goal_yaw")
        st[:, layout.S_QD : layout.S_QD + 7] = 0.0
        st[:, layout.S_VEL : layout.S_VEL + 3] = 0.0
        st[:, layout.S_GRASPED] = 0.0
        self._obs = np.empty((n, self.obs_dim), dtype=np.float32)
        self._kernels.refresh_kernel(self._fp, self._ip, self._seed, st, self._cnt, self._obs)
        return self._obs

    def privileged_observation(self) -> np.ndarray | None:
        """The current observation [N, D] with the cube's true pose in place of the one
        observed through ``randomization.pose_error`` (the same observation noise), for an
        expert that labels from the truth; None where that error model is off (the
        observation is the truth already)."""
        if not self.cfg.randomization.pose_error.on:
            return None
        obs = np.empty((self.num_envs, self.obs_dim), dtype=np.float32)
        self._kernels.true_pose_observe_kernel(self._fp, self._seed, self._st, self._cnt, obs)
        return obs

    def randomization_state(self) -> dict[str, np.ndarray]:
        """This episode's draws per env: friction scale, mass scale, action delay, the
        cube's edge (m), finger-cube friction coefficient and finger reading offset (m, a
        held cube's reading minus its edge; tasks with a cube), and whether it runs on the
        plain tracking (``plain_arm``: ``randomization.plain_arm_prob``)."""
        return {
            "friction_scale": self._st[:, layout.S_FRICTION].copy(),
            "mass_scale": self._st[:, layout.S_MASS].copy(),
            "action_delay": self._st[:, layout.S_DELAY].astype(np.int64),
            "cube_size": 2.0 * self._st[:, layout.S_CUBE_HALF],
            "finger_friction": self._st[:, layout.S_MU_FINGER].copy(),
            "finger_reading": 2.0 * self._st[:, layout.S_PAD],
            "plain_arm": self._st[:, layout.S_PLAIN] > 0.5,
        }

    def grasped(self) -> np.ndarray:
        """[N] bool: whether the cube is held (pick_place)."""
        return self._st[:, layout.S_GRASPED] > 0.5

    def close_extras(self, **kwargs) -> None:
        """Nothing to release: the state is plain arrays."""


def reward_term_infos(names, res) -> dict:
    """``{"reward/<term>": row}`` of the weighted reward terms in a step's ``res``."""
    return {f"reward/{name}": res[layout.R_TERMS + i] for i, name in enumerate(names)}


def parse_device(device) -> int | None:
    """``"cpu"`` -> None; ``"cuda"`` / ``"cuda:N"`` (or a torch.device) -> the GPU index."""
    name = str(device).strip().lower()
    if name == "cpu":
        return None
    if name == "cuda":
        return 0
    head, _, index = name.partition(":")
    if head == "cuda" and index.isdigit():
        return int(index)
    raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
