"""Where a grasping episode failed: success split by what happened to the cube.

A pick-and-place episode that fails has failed somewhere: the gripper never held the cube,
dropped it on the way, set it down in the wrong place, or knocked it away as the fingers
opened. :class:`GraspTracker` reads that from the observations an evaluation sees anyway
(the TCP, the cube, the goal and the finger reading of the task's ``LAYOUT``), so the
split is the same on every backend and on every gripper: of the finger reading, the one
reading that differs between grippers and engines, it uses only whether the fingers are
fully open.

Per episode, from its observations in order (the last one is the backend's
``info["final_obs"]``):

- **at the TCP**: the cube's centre is within :data:`HELD_RADIUS` of the TCP (xy) and
  :data:`HELD_HEIGHT` of its height;
- **held**: at the TCP and lifted more than :data:`LIFT_MIN` above where it rested at
  the episode's start;
- the **release** is the last observation, once it has been held, in which the cube was
  still at the TCP and the fingers not yet open (:data:`OPEN_FRACTION`): a cube set down
  stays there until the fingers open, one let go of in the air falls out of the hand at
  once.

Where the cube was at the release and where it ends give the outcome of a failed episode,
the first that applies, in this order:

  ============================ ==========================================================
  ``never_grasped``            never held
  ``held_at_end``              still held at the episode's last observation
  ``dropped_in_transit``       released farther than the task's success distance from the
                               goal (xy) and higher than :data:`DROP_HEIGHT` above where the
                               cube rested at the start: in the air, not set down
  ``knocked_at_release``       after the release the cube moved more than
                               :data:`KNOCK_DISTANCE` (xy): flung or knocked by the hand
  ``placed_off_target``        set down where it rests, away from the goal
  ============================ ==========================================================

``success`` is the task's own success (the backend's ``info["success"]``); a report is the
count of each outcome (:data:`OUTCOMES`), which sum to the episodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sims.robots import panda

OUTCOMES = (
    "success",
    "never_grasped",
    "dropped_in_transit",
    "placed_off_target",
    "knocked_at_release",
    "held_at_end",
)
"""Every outcome a grasping episode is counted under, success first."""

HELD_RADIUS = 0.03
"""A held cube's centre lies this close (m, xy) to the TCP: the TCP sits between the
fingertips, so a cube held anywhere in the pads is within about half its diagonal."""
HELD_HEIGHT = 0.015
"""... and this close (m) to the TCP's height (a held cube hangs a few mm below it): a cube
let go of in the air falls out of that band within two control periods (free fall: 0.8 cm
in 40 ms, 3.1 cm in 80 ms); one set down stays in it until the hand moves off."""
LIFT_MIN = 0.01
"""A held cube is this much (m) above its resting height at the episode's start, so a
cube the open hand merely hovers over is not counted as held."""
KNOCK_DISTANCE = 0.015
"""A cube that moves more than this (m, xy) after the release was knocked or flung by the
hand: one set down rests where the fingers let go of it."""
DROP_HEIGHT = 0.01
"""A cube let go of more than this (m) above its resting height, away from the goal, was
dropped on the way rather than set down."""

OPEN_FRACTION = 0.9
"""Fingers reading at least this fraction of the gripper's full opening are open: a
gripper reads its full opening the same whatever its pads (only what a held object reads
differs between grippers and engines), so this is the one use of the reading here."""

_FIELDS = ("tcp_pos", "object_pos", "goal_pos", "finger_width")


def tracks_grasps(layout) -> bool:
    """Whether observations of ``layout`` (a task's ``ObservationLayout``) carry what a
    :class:`GraspTracker` reads: the TCP, the cube, the goal and the finger reading."""
    return all(name in layout.slices for name in _FIELDS)


class GraspTracker:
    """The outcome of each episode of a batch of ``num_envs`` envs, from their
    observations (see the module's docstring).

    Call :meth:`start` with the observations after a reset, :meth:`step` with each step's
    observations and ended flags (the ended envs' last observations in ``final_obs``), and
    read :meth:`outcome` for an env whose episode ended at that step, before the next
    :meth:`step`.
    """

    def __init__(self, layout, num_envs: int, success_distance: float):
        if not tracks_grasps(layout):
            missing = [n for n in _FIELDS if n not in layout.slices]
            raise ValueError(f"a grasp report needs the observation fields {', '.join(missing)}")
        self._tcp, self._obj, self._goal, self._width = (layout.slices[n] for n in _FIELDS)
        self.open_width = OPEN_FRACTION * panda.gripper_width_max
        self.success_distance = float(success_distance)
        self._rest_z = np.zeros(num_envs)
        self._ever_held = np.zeros(num_envs, dtype=bool)
        self._release = np.zeros((num_envs, 3))
        self._ended: dict[int, _Ended] = {}

    def start(self, obs: np.ndarray) -> None:
        """Every env begins an episode at ``obs`` [N, D]."""
        self._begin(np.arange(len(obs)), np.asarray(obs, dtype=np.float64))

    def step(self, obs: np.ndarray, ended: np.ndarray, final_obs: np.ndarray) -> None:
        """One step of every env: ``obs`` [N, D] after it (a new episode's first
        observation where ``ended``), ``final_obs`` [N, D] the ended episodes' last."""
        obs = np.asarray(obs, dtype=np.float64)
        ended = np.asarray(ended, dtype=bool)
        last = np.where(ended[:, None], np.asarray(final_obs, dtype=np.float64), obs)
        cube = last[:, self._obj]
        offset = cube - last[:, self._tcp]
        near = (np.linalg.norm(offset[:, :2], axis=1) <= HELD_RADIUS) & (
            np.abs(offset[:, 2]) <= HELD_HEIGHT
        )
        held = near & (cube[:, 2] > self._rest_z + LIFT_MIN)
        self._ever_held |= held
        in_hand = self._ever_held & near & (last[:, self._width.start] < self.open_width)
        self._release[in_hand] = cube[in_hand]
        envs = np.flatnonzero(ended)
        self._ended = {
            int(i): _Ended(
                bool(self._ever_held[i]),
                bool(held[i]),
                self._release[i].copy(),
                float(self._rest_z[i]),
                last[i, self._obj].copy(),
                last[i, self._goal].copy(),
            )
            for i in envs
        }
        self._begin(envs, obs)

    def outcome(self, env: int, success: bool) -> str:
        """The :data:`OUTCOMES` entry of ``env``'s episode that ended at the last
        :meth:`step` (``success``: the task's verdict)."""
        if success:
            return "success"
        e = self._ended[env]
        if not e.ever_held:
            return "never_grasped"
        if e.held_at_end:
            return "held_at_end"
        away = np.linalg.norm(e.release[:2] - e.goal[:2]) > self.success_distance
        if away and e.release[2] - e.rest_z > DROP_HEIGHT:
            return "dropped_in_transit"
        if np.linalg.norm(e.cube[:2] - e.release[:2]) > KNOCK_DISTANCE:
            return "knocked_at_release"
        return "placed_off_target"

    def _begin(self, envs: np.ndarray, obs: np.ndarray) -> None:
        self._rest_z[envs] = obs[envs, self._obj.start + 2]
        self._ever_held[envs] = False
        self._release[envs] = obs[envs][:, self._obj]


@dataclass(frozen=True)
class _Ended:
    """What an ended episode's outcome is read from."""

    ever_held: bool
    held_at_end: bool
    release: np.ndarray
    """The cube's centre at the release (m)."""
    rest_z: float
    """The cube's centre height (m) at the episode's start, resting on the table."""
    cube: np.ndarray
    """The cube's centre at the episode's last observation (m)."""
    goal: np.ndarray
    """The goal (m)."""


def empty_report() -> dict[str, int]:
    """A report with every outcome at zero, in :data:`OUTCOMES` order."""
    return dict.fromkeys(OUTCOMES, 0)
