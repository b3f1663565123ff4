"""Where a grasping episode failed: success split by what happened to the cube.

A pick-and-place episode that fails has failed somewhere: the gripper never held the cube,
dropped it on the way, set it down in the wrong place, or knocked it away as the fingers
opened. :class:`GraspTracker` reads that from the observations an evaluation sees anyway
(the TCP, the cube, the goal and the finger reading of the task's ``LAYOUT``), so the
split is the same on every backend and on every gripper: of the finger reading, the one
reading that differs between grippers and engines, it uses only whether the fingers are
fully open (:data:`OPEN_FRACTION`) or closed on nothing (:data:`EMPTY_READING`).

Per episode, from its observations in order (the last one is the backend's
``info["final_obs"]``), what holds a cube is read, not the TCP's distance alone:

- **in the hand**: the fingers closed on something (neither open nor closed on nothing),
  the cube's centre within :data:`HELD_RADIUS` of the TCP (xy) and :data:`HELD_HEIGHT` of
  its height (anywhere along the pads: a cube grasped high is held too), and the cube
  moving with the hand: its offset from the TCP changed by at most :data:`FOLLOW_TOL`
  since the observation before;
- **held**: in the hand and lifted more than :data:`LIFT_MIN` above where it rested at
  the episode's start (an open hand over a lifted cube, e.g. one left on a tower's lower
  level, holds nothing);
- the **release** is the last observation, once it has been held, in which the cube was
  still in the hand: a cube set down stays there until the fingers open, one let go of in
  the air falls out of the hand at once.

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
HELD_HEIGHT = 0.025
"""... and this close (m) to the TCP's height: fingers closed on a cube grip it anywhere
along its side, so the TCP (between the fingertips) lies within half its edge (2 cm on
the 4 cm cube, 2.25 on the widest drawn) plus a few mm of its centre; a grasp 17 mm above
the centre carries the cube as well as one at it (docs/stacking.md, "Towers", part 8)."""
FOLLOW_TOL = 0.01
"""A cube in the hand moves with it: its offset from the TCP changes by at most this (m,
per axis) from one observation to the next (a cube held by friction swings a few mm about
the finger axis; one let go of falls 0.8 cm in the first 40 ms, and is gone the next)."""
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
differs between grippers and engines)."""
EMPTY_READING = 0.025
"""Fingers reading less than this (m) closed on nothing: between what a closed hand reads
with the widest finger offset swept (+18 mm) and what the narrowest held cube reads (3.5
cm read 4 mm under its width: 3.1 cm)."""

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
        self._offset = np.zeros((num_envs, 3))
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
        width = last[:, self._width.start]
        in_hand = (
            (width < self.open_width)
            & (width >= EMPTY_READING)
            & (np.linalg.norm(offset[:, :2], axis=1) <= HELD_RADIUS)
            & (np.abs(offset[:, 2]) <= HELD_HEIGHT)
            & np.all(np.abs(offset - self._offset) <= FOLLOW_TOL, axis=1)
        )
        self._offset = offset
        held = in_hand & (cube[:, 2] > self._rest_z + LIFT_MIN)
        self._ever_held |= held
        in_hand &= self._ever_held
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
        self._offset[envs] = obs[envs][:, self._obj] - obs[envs][:, self._tcp]


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
