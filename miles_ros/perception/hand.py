"""The hand as perception sees it, ROS-free: where closed fingers hold a cube
(:func:`grip_in_hand`) and how far it is turned there (:func:`turn_in_grip`), and what a
pusher does to a cube it moves into: rectangles seen from above (:class:`Footprint`: a
cube's square, the closed fingers' bar) and how far the cube goes to get out of its way
(:func:`push_distance`). :mod:`.pipeline` tracks the cubes with them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sims.kernels.contact import wrap_quarter

if TYPE_CHECKING:
    from miles_ros.perception.config import PerceptionConfig

MOTION_MIN_M = 1e-4
"""Fingers that moved less than this since the joint state before push along the shortest
way out (m)."""


def hand_yaw(rotation: np.ndarray) -> float:
    """The hand's heading about the scene's z (rad): the direction of its closing axis
    (the TCP frame's y) in the xy plane."""
    return math.atan2(rotation[1, 1], rotation[0, 1])


def grip_in_hand(
    cube: np.ndarray,
    cube_yaw: float,
    fingers: np.ndarray,
    rotation: np.ndarray,
    config: PerceptionConfig,
    cube_size: float,
    across_weight: float = 1.0,
) -> tuple[np.ndarray, float]:
    """Where a parallel gripper holds a cube seen at ``cube`` (centre, scene frame) with
    yaw ``cube_yaw``, by a hand whose fingers' midpoint is at ``fingers`` (the TCP where
    the fingers move together) with axes ``rotation`` (the TCP frame's columns: x across
    the fingers, y the closing axis, z the approach): the cube's centre from the fingers'
    midpoint in the TCP frame's axes, and its yaw less the hand's (:func:`hand_yaw`).

    Closing fingers push the cube between them until it touches both, so along the
    closing axis its centre is at the fingers' midpoint, whatever the pose seen before
    the hand hid it said. Across the fingers and along the approach nothing
    centres it: the seen offset stands, bounded by what the fingers can hold: across,
    the pads' half width (:attr:`PerceptionConfig.finger_half_width_m`); along the
    approach, no further out than the fingertips (or, with
    :attr:`PerceptionConfig.held_min_overlap_m` set, its top no less than that above
    them: a cube grasped high hangs with its centre beyond them) and no deeper than the
    fingers' length leaves room for its upper half. Kept in
    the hand's frame, the grip turns with the hand; its yaw too (modulo the cube's 90
    degree symmetry). ``across_weight``: the share of the seen offset across the fingers
    kept (1: all of it; :attr:`PerceptionConfig.held_hidden_across_weight` for a pose of a
    face partly hidden by the hand)."""
    local = rotation.T @ (np.asarray(cube, dtype=np.float64) - fingers)
    across = config.finger_half_width_m
    deepest = config.fingertip_below_tcp_m - config.finger_length_m + cube_size / 2
    farthest = config.fingertip_below_tcp_m
    if config.held_min_overlap_m is not None:
        farthest += cube_size / 2 - config.held_min_overlap_m
    offset = np.array(
        [
            across_weight * float(np.clip(local[0], -across, across)),
            0.0,
            float(np.clip(local[2], deepest, farthest)),
        ]
    )
    return offset, float(wrap_quarter(cube_yaw - hand_yaw(rotation)))


def turn_in_grip(opening: float, cube_size: float, seen: float) -> float:
    """A held cube's yaw less the hand's (rad, within the cube's quarter turn) from the
    ``opening`` of the parallel jaws that hold it (m, as a flat-held cube of ``cube_size``
    would read its size) and ``seen``, that turn as the camera last gave it.

    Each jaw is flat: closed on a square turned by t from them, they stand its extent along
    the closing axis apart, ``cube_size * (|cos t| + |sin t|)``: the size with a face flat
    against each pad (t = 0: the cube's yaw is the hand's, modulo 90 degrees), its
    diagonal across two corners (45 degrees). So the opening gives how far the cube is
    turned, ``asin(opening / (cube_size * sqrt 2)) - 45 deg`` (an opening outside that
    range: the nearer end), but not which way: of the two turns, the one nearer ``seen``
    (the camera's yaw is a poor measure of a face the hand partly hides, but it mostly
    has the side right)."""
    ratio = float(np.clip(opening / (cube_size * math.sqrt(2.0)), math.sqrt(0.5), 1.0))
    turn = math.asin(ratio) - math.pi / 4
    return min(
        (float(wrap_quarter(turn)), float(wrap_quarter(-turn))),
        key=lambda t: abs(float(wrap_quarter(t - seen))),
    )


@dataclass(frozen=True)
class Footprint:
    """A rectangle in the scene's xy plane: ``centre`` [2], unit ``axes`` [2, 2] (rows)
    and ``half`` sizes along them [2] (m)."""

    centre: np.ndarray
    axes: np.ndarray
    half: np.ndarray

    @staticmethod
    def square(centre, yaw: float, half: float) -> Footprint:
        """A cube's square, seen from above."""
        c, s = math.cos(yaw), math.sin(yaw)
        return Footprint(np.asarray(centre, dtype=np.float64), np.array([[c, s], [-s, c]]),
                         np.array([half, half]))  # fmt: skip

    def extent(self, axis: np.ndarray) -> tuple[float, float]:
        """The rectangle's interval along a unit ``axis``."""
        centre = float(self.centre @ axis)
        reach = float(np.sum(self.half * np.abs(self.axes @ axis)))
        return centre - reach, centre + reach

    def contains(self, point) -> bool:
        """The xy ``point`` lies in the rectangle (on its border included)."""
        local = self.axes @ (np.asarray(point, dtype=np.float64) - self.centre)
        return bool(np.all(np.abs(local) <= self.half))

    def overlaps(self, other: Footprint, depth: float = 0.0) -> bool:
        """The two rectangles overlap by more than ``depth`` (m) along every separating
        axis (either's sides)."""
        for axis in (*self.axes, *other.axes):
            lo, hi = self.extent(axis)
            olo, ohi = other.extent(axis)
            if min(hi, ohi) - max(lo, olo) <= depth:
                return False
        return True


def push_distance(
    pusher: Footprint, cube: Footprint, motion: np.ndarray | None
) -> tuple[float, np.ndarray]:
    """How far, and along which unit direction, ``cube`` moves to get out of ``pusher``:
    along the pusher's ``motion`` (xy, m) where it moved, else along the shortest way
    out; (0, any) where they do not overlap. Along a direction d, the cube leaves the
    pusher's interval on some side axis a (either rectangle's) after the least t with
    its interval shifted by t (d . a) clear of the pusher's."""
    axes = (*pusher.axes, *cube.axes)
    gaps = []
    for axis in axes:
        lo, hi = pusher.extent(axis)
        olo, ohi = cube.extent(axis)
        gaps.append((axis, hi - olo, ohi - lo))  # move +axis by the first, -axis the second
        if min(hi, ohi) - max(lo, olo) <= 0.0:
            return 0.0, np.zeros(2)
    speed = 0.0 if motion is None else float(np.linalg.norm(motion))
    if speed > MOTION_MIN_M:
        direction = np.asarray(motion, dtype=np.float64) / speed
        best = math.inf
        for axis, ahead, behind in gaps:
            rate = float(direction @ axis)
            if rate > 1e-9:
                best = min(best, ahead / rate)
            elif rate < -1e-9:
                best = min(best, behind / -rate)
        return best, direction
    axis, ahead, behind = min(gaps, key=lambda g: min(g[1], g[2]))
    return (ahead, axis) if ahead <= behind else (behind, -axis)
