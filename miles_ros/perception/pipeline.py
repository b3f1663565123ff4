"""Perception, ROS-free: frames of one RGB-D camera and the arms' joint states in, the
scene's cube poses out, each with its age, its uncertainty and how it is known.

A cube is in one of four states (:data:`~miles_ros.perception.tracks.STATES`):

- ``seen``: measured in the latest frame that could measure it;
- ``held``: closed in a gripper; it follows that arm's TCP (forward kinematics of the
  joint states) where the closing fingers hold it (:func:`grip_in_hand`: centred between
  them, in the hand's frame, so it turns with the hand and moves with the fingers'
  midpoint), turned from the hand's yaw as last seen (or by what the fingers' opening
  says, :attr:`PerceptionConfig.held_yaw_from_opening`), and each frame that measures it
  corrects that grip against the hand at the frame's exposure (a frame arrives tenths of
  a second late; the joint states do not);
- ``pushed``: closed fingers, or a carried cube held low, moved into it since it was
  last measured: it was pushed out of their way (:meth:`Perception._push_out`,
  :meth:`Perception._push_by_carried`);
- ``occluded``: none of these: it keeps its last pose, which ages, and its standard deviation
  grows with the age (:attr:`PerceptionConfig.occluded_growth_m_per_s`).

A cube never measured is not published: it is listed under ``missing`` with the reason,
and so is one not measured for :attr:`PerceptionConfig.forget_after_s`. Nothing is ever
made up: every pose carries the stamp of the frame (or joint state) it comes from, so a
consumer judges its age itself (the skill node refuses motion from a pose older than its
bound).

One module (about 490 lines): the four states are one tracker's transitions over the same
tracks and arms, and a frame, a joint state and a push each move a track between them.
What it knows of each cube and arm is :mod:`miles_ros.perception.tracks`, its tuning
:mod:`miles_ros.perception.config`; the hand's geometry (:mod:`miles_ros.perception.hand`),
detection and images live apart.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from miles_ros.perception.config import PerceptionConfig
from miles_ros.perception.detect import Detection
from miles_ros.perception.hand import (
    MOTION_MIN_M,
    Footprint,
    grip_in_hand,
    hand_yaw,
    push_distance,
    turn_in_grip,
)
from miles_ros.perception.images import FrameRefused
from miles_ros.perception.swing import fit_swing, free_space_hits, swung_offset
from miles_ros.perception.tags import make_detector
from miles_ros.perception.tracks import ArmTrack, Track
from miles_ros.runtime.frames import base_to_world
from sims.camera import CameraIntrinsics, CameraPose
from sims.kernels.contact import CONTACT_TOP_BAND, wrap_quarter
from sims.robots import panda
from sims.scene import Scene

SOURCE = "camera"
"""The ``source`` of every pose perception publishes (the simulator's is ``sim``)."""
PUSH_INSIDE_M = 0.001
"""Fingers' footprint this far into a cube's square (along every side axis) are inside
it (m); a cube pushed flush with them is not (0 up to rounding)."""


@dataclass(frozen=True)
class FrameReport:
    """What one frame gave: the cubes measured and why each other one was not."""

    stamp: float
    measured: tuple[str, ...]
    reasons: dict[str, str]


class Perception:
    """Cube poses of ``scene`` from one camera at ``camera_pose`` (where the cell believes
    it is: the scene file's ``camera.believed_pose``) and the arms' joint states."""

    def __init__(
        self, scene: Scene, camera_pose: CameraPose, config: PerceptionConfig | None = None
    ):
        self.scene = scene
        self.config = config or PerceptionConfig()
        self.detector = make_detector(self.config.mode, scene, camera_pose, self.config.detect)
        self.intrinsics: CameraIntrinsics | None = None
        self.tracks: dict[str, Track] = {}
        self.reasons: dict[str, str] = {
            name: f"{name} not seen yet: no frame measured it" for name in scene.objects
        }
        self.arms: dict[str, ArmTrack] = {}
        self.frames = 0
        self.lock = threading.Lock()
        """Frames are measured on a worker thread while joint states and reads go on."""

    def set_intrinsics(self, intrinsics: CameraIntrinsics) -> None:
        """The camera's intrinsics (from its camera_info)."""
        self.intrinsics = intrinsics

    def on_arm(
        self,
        arm: str,
        joint_positions: Sequence[float],
        finger_width: float,
        stamp: float,
        finger_centre: float = 0.0,
    ) -> None:
        """An arm's joint state (7 arm joints; ``finger_width`` the sum of both fingers;
        ``finger_centre`` their midpoint along the closing axis from the TCP, half the
        first finger's position less the second's: 0 for fingers that move together, as
        a Franka Hand's do): grasps start and end here, and held cubes follow the
        fingers."""
        mount = self.scene.arm(arm)
        q = np.asarray(joint_positions, dtype=np.float64)[:7]
        tcp_base, rotation_base = panda.fk_tcp_pose(np.ascontiguousarray(q))
        tcp = base_to_world(mount, tcp_base[None])[0]
        c, s = math.cos(mount.base_yaw), math.sin(mount.base_yaw)
        rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ rotation_base
        fingers = tcp + rotation[:, 1] * float(finger_centre)
        size, cfg, width = self.scene.cube_size, self.config, float(finger_width)
        with self.lock:
            state = self.arms.get(arm)
            if state is None:
                state = self.arms[arm] = ArmTrack(tcp, rotation, fingers, float(stamp))
            else:
                state.previous = self._footprint(state)
            state.tcp, state.rotation, state.fingers = tcp, rotation, fingers
            state.width = width
            state.stamp = float(stamp)
            speed = state.finger_speed(float(stamp), width, cfg.grip_settle_window_s)
            in_range = size - cfg.grip_margin_m <= width <= size * math.sqrt(2) + cfg.grip_margin_m
            if not in_range:
                state.closing = []
            elif not state.gripping:
                state.closing.append(fingers)
            state.gripping = in_range and speed <= cfg.grip_settled_speed_m_per_s
            state.empty = width < size - cfg.grip_margin_m
            state.history.append((float(stamp), fingers, rotation, width))
            self._follow(arm)

    def _follow(self, arm: str) -> None:
        """After ``arm``'s joint state: grasps start and end, held cubes follow the TCP,
        closed fingers push hidden cubes."""
        cfg, state = self.config, self.arms[arm]
        free = [t for t in self.tracks.values() if t.held_by is None]
        holding = any(t.held_by == arm for t in self.tracks.values())
        grasped = None
        if state.gripping and not holding:
            reach = [(self._grasp_distance(t.position, state), k) for k, t in enumerate(free)]
            near = [(d, k) for d, k in reach if d <= cfg.grasp_radius_m]
            if near:  # one cube between two fingers: the nearest
                track = grasped = free[min(near)[1]]
                track.held_by, track.state = arm, "held"
                track.rest, track.swing = None, 0.0
                track.offset, track.grip_yaw = grip_in_hand(
                    track.position,
                    track.yaw,
                    state.fingers,
                    state.rotation,
                    cfg,
                    self.scene.cube_size,
                    self._across_weight(track),
                )
        carried = []
        for track in self.tracks.values():
            if track.held_by == arm and not state.gripping:
                # released: it stays where it was last known to be, until a frame sees it
                track.held_by, track.offset = None, None
                track.rest, track.swing = None, 0.0
                track.state = "occluded"
            if track.held_by == arm:  # it goes where the gripper goes
                before, height = self._square(track), float(track.position[2])
                self._carry(track, state)
                if track is not grasped:  # grasped just now, it moved into the grip, not on
                    carried.append((track, before, height))
            elif track.held_by is None and state.empty:
                self._push_out(track, state, state.previous)
        for held, before, height in carried:  # a carried cube swung into another pushes it
            for track in self.tracks.values():
                if track.held_by is None:
                    self._push_by_carried(track, held, before, height)

    def _across_weight(self, track: Track) -> float:
        """The share of ``track``'s pose's offset across the fingers a grasp keeps: 1, or
        :attr:`PerceptionConfig.held_hidden_across_weight` where that is set and the pose is
        not of a top face seen whole (a face partly hidden by the hand, or pushed)."""
        weight, cfg = self.config.held_hidden_across_weight, self.config
        whole = track.state != "pushed" and track.confidence >= cfg.yaw_min_coverage
        return 1.0 if weight is None or whole else float(weight)

    @staticmethod
    def _grasp_distance(position: np.ndarray, arm: ArmTrack) -> float:
        """How near a cube at ``position`` came to the fingers that stopped on something:
        its distance from the TCP, or from the fingers' midpoint anywhere along their way
        while they closed (a hand moving as it closes drags the cube with it, and the
        fingers stop away from where it was seen)."""
        points = [arm.tcp, *arm.closing]
        return min(float(np.linalg.norm(position - p)) for p in points)

    def _carry(self, track: Track, arm: ArmTrack) -> None:
        """A held cube's pose from its grip and the arm's latest fingers: its yaw the
        hand's turned by its grip yaw, or (:attr:`PerceptionConfig.held_yaw_from_opening`)
        by as much as the fingers' opening says (:func:`turn_in_grip`; a face flat on each
        pad at the cube's size, across two corners at its diagonal), the way the camera
        last saw it turned."""
        cfg, turn = self.config, track.grip_yaw
        if cfg.held_yaw_from_opening:
            opening = arm.width - cfg.grip_reading_offset_m
            turn = turn_in_grip(opening, self.scene.cube_size, turn)
        track.position = arm.fingers + arm.rotation @ track.offset
        track.yaw = float(wrap_quarter(hand_yaw(arm.rotation) + turn))
        track.stamp = arm.stamp

    def _footprint(self, arm: ArmTrack) -> Footprint:
        """The fingers seen from above: a bar centred on their midpoint, as long as both
        pads and their opening along the closing axis, a pad's width across it (open
        fingers: with the gap between them, what they straddle)."""
        cfg = self.config
        along = arm.width / 2 + cfg.finger_pad_length_m
        return Footprint(
            arm.fingers[:2].copy(),
            np.array([arm.rotation[:2, 0], arm.rotation[:2, 1]]),
            np.array([cfg.finger_half_width_m, along]),
        )

    def _square(self, track: Track) -> Footprint:
        """A cube's square seen from above, where its track has it."""
        return Footprint.square(track.position[:2], track.yaw, self.scene.cube_size / 2)

    def _push_by_carried(
        self, track: Track, held: Track, before: Footprint, height: float
    ) -> None:
        """A carried cube (``held``; its square ``before`` the latest joint state, its
        centre ``height`` high then) moved
        into the square of ``track`` with its bottom more than
        :attr:`PerceptionConfig.carried_contact_depth_m` below that cube's top: the cube
        was pushed ahead of it, along its motion (:meth:`_push`). A stacking policy
        carrying a cube to its target swings it in low and knocks the target, which the
        hand and the carried cube hide from the camera just then (the traces: 12 of 50
        episodes, the target slid 7-81 mm). A carried cube lowered onto another
        overlapped its square already and pushes nothing.

        Once pushed, the cube stays in contact with the carried cube and moves with it
        (its whole xy motion, wherever that motion goes on along the push) until the
        carried cube's bottom rises above the cube's top, it backs off (moves against the
        push by more than :data:`~miles_ros.perception.hand.MOTION_MIN_M`), or a frame
        measures the cube.
        Pushed only clear of the carried cube's square, the knocked targets of the 200
        stacking episodes were left 24-56 mm short: the carried cube rises as it comes
        in, rides onto the target's edge and drags it along, tilted, well after its
        bottom is above the contact band.

        A carried cube that came down into the contact band over the cube's square is
        :meth:`_push_from_above`."""
        size = self.scene.cube_size
        bottom = held.position[2] - size / 2
        top = track.position[2] + size / 2
        if track.state == "pushed" and track.pushed_along is not None:
            if bottom >= top:  # lifted clear of it: the contact is over
                track.pushed_along = None
                return
            motion = held.position[:2] - before.centre
            along = float(motion @ track.pushed_along)
            if along < -MOTION_MIN_M:  # backing off: it leaves the cube where it is
                track.pushed_along = None
            elif along > 0.0:
                track.position = track.position.copy()
                track.position[:2] += motion
                track.stamp = held.stamp
            return
        depth = self.config.carried_contact_depth_m
        if bottom > top - depth:
            return
        carried = self._square(held)
        if before.overlaps(self._square(track), PUSH_INSIDE_M):
            if height - size / 2 <= top - depth:  # as deep before: it did not come down
                return
            direction = self._push_from_above(track, held, carried)
        else:
            direction = self._push(track, carried, before, held.stamp)
        if direction is not None:
            track.pushed_along = direction

    def _push_from_above(self, track: Track, held: Track, carried: Footprint) -> np.ndarray | None:
        """A carried cube (``held``, its square ``carried``) that overlapped the square of
        ``track`` already as it came down into the contact band: one set down on
        the cube, with its centre over the cube's top face, rests on it and pushes nothing;
        one whose centre is beyond the top face came down on its edge, and cannot be
        inside it: the cube was pushed out from under it, the shortest way out
        (:func:`push_distance`). Returns the direction it was pushed along, None where it
        was not."""
        cube = self._square(track)
        if cube.contains(held.position[:2]):
            return None
        return self._push(track, carried, None, held.stamp)

    def _push_out(self, track: Track, arm: ArmTrack, previous: Footprint | None = None) -> None:
        """Closed fingers cannot be inside a cube: where their footprint
        (:meth:`_footprint`) moved into a cube's square at its height, the cube was pushed
        ahead of them, along their motion since ``previous`` (the joint state before), as
        far as takes it out of their way (:func:`push_distance`); without a previous
        footprint, along the shortest way out. A pushing hand hides the cube it pushes;
        this keeps its pose moving with the push until a frame sees it again (state
        ``pushed``).

        Fingers that overlapped the square already at ``previous`` did not move into it:
        they closed where the cube was believed to be (a grasp that missed, fingers
        closing past a cube that slipped out): the cube was not between them, so they say
        nothing of where it went, and its pose stays as it was."""
        cfg, half = self.config, self.scene.cube_size / 2
        if arm.tcp[2] > track.position[2] + half + cfg.contact_height_m:
            return
        self._push(track, self._footprint(arm), previous, arm.stamp)

    def _push(
        self, track: Track, pusher: Footprint, previous: Footprint | None, stamp: float
    ) -> np.ndarray | None:
        """A ``pusher`` (closed fingers, a carried cube) inside the cube's square pushed
        it ahead along its motion since ``previous`` (:func:`push_distance`; the shortest
        way out without one), the pose stamped ``stamp`` (the joint state's): nothing
        where the pusher overlapped the square already at ``previous``. Returns the unit
        direction it was pushed along, None where it was not pushed."""
        cube = self._square(track)
        if previous is not None and previous.overlaps(cube, PUSH_INSIDE_M):
            return None
        motion = None if previous is None else pusher.centre - previous.centre
        distance, direction = push_distance(pusher, cube, motion)
        if distance <= 0.0:
            return None
        track.position = track.position.copy()
        track.position[:2] += distance * direction
        track.stamp, track.state, track.pushed_along = stamp, "pushed", None
        return direction

    def on_frame(self, rgb: np.ndarray, depth_m: np.ndarray, stamp: float) -> FrameReport:
        """Measure the cubes in one frame (``stamp``: its exposure time); FrameRefused says
        why a frame cannot be used."""
        if self.intrinsics is None:
            raise FrameRefused("no camera_info yet: cannot place pixels in the scene")
        k = self.intrinsics
        if rgb.shape[:2] != (k.height, k.width) or depth_m.shape != (k.height, k.width):
            raise FrameRefused(
                f"frame size {rgb.shape[1]}x{rgb.shape[0]} (depth {depth_m.shape[1]}x"
                f"{depth_m.shape[0]}) does not match camera_info's {k.width}x{k.height}"
            )
        if not np.any(np.isfinite(depth_m) & (depth_m > 0)):
            raise FrameRefused("the depth image has no valid pixel (all zero or NaN)")
        found, reasons = self.detector.detect(rgb, depth_m, k)
        for name, d in list(found.items()):
            if d.coverage < self.config.min_coverage:
                del found[name]
                reasons[name] = f"{name} partly hidden: {d.coverage:.0%} of its top face in view"
        with self.lock:
            latest = max((t.measured for t in self.tracks.values()), default=-math.inf)
            if stamp < latest:
                raise FrameRefused(f"frame {latest - stamp:.3f} s older than one already used")
            self.frames += 1
            for name, detection in found.items():
                self._measured(name, detection, float(stamp), depth_m)
            for name, reason in reasons.items():
                track = self.tracks.get(name)
                if track is not None and track.state == "seen":
                    track.state = "occluded"
                self.reasons[name] = reason
        return FrameReport(float(stamp), tuple(found), reasons)

    def _measured(
        self, name: str, d: Detection, stamp: float, depth: np.ndarray | None = None
    ) -> None:
        cfg = self.config
        track = self.tracks.get(name)
        fresh = track is None
        if fresh:
            track = self.tracks[name] = Track(d.position, d.yaw, stamp, 0.0, 0.0, "seen")
        track.measured = stamp
        track.std, track.confidence = cfg.measurement_std_m, d.coverage
        self.reasons.pop(name, None)
        if track.held_by is not None:
            # A held cube follows the TCP; the frame, older than the latest joint state,
            # corrects only where in the gripper it sits (against the TCP at the exposure).
            arm = self.arms[track.held_by]
            then = arm.hand_at(stamp, cfg.tcp_match_s)
            if then is not None:
                offset, grip_yaw = grip_in_hand(
                    d.position, d.yaw, *then, cfg, self.scene.cube_size
                )
                partial = d.coverage < cfg.yaw_min_coverage
                if cfg.held_hidden_across_weight is not None and partial:
                    # a face partly hidden by the fingers and the hand tells the depth only
                    offset[0], grip_yaw = track.offset[0], track.grip_yaw
                if cfg.held_swing_fit and d.points is not None and depth is not None:
                    offset = self._swung(track, d.points, *then, depth)
                track.offset, track.grip_yaw = offset, grip_yaw
                self._carry(track, arm)
            return
        if fresh or d.coverage >= cfg.yaw_min_coverage:
            track.yaw = d.yaw
        track.position, track.stamp, track.state = d.position, stamp, "seen"
        track.pushed_along = None
        for arm in self.arms.values():  # a pusher since the exposure: still in it?
            if arm.empty and arm.stamp > stamp:
                self._push_out(track, arm)

    def _swung(
        self,
        track: Track,
        points: np.ndarray,
        fingers: np.ndarray,
        rotation: np.ndarray,
        depth: np.ndarray,
    ) -> np.ndarray:
        """A held cube's grip from its ``points`` in one frame (its ``depth`` image), the
        hand at ``fingers`` with axes ``rotation`` at the exposure
        (:attr:`PerceptionConfig.held_swing_fit`): the swing about the pads' contact line
        and the level grip it swings (:func:`~miles_ros.perception.swing.fit_swing`, from
        the level grip the frames before fitted, or the grasp's offset), the level grip
        bounded as any grip is (:func:`grip_in_hand`), but along the approach by the
        pads' least overlap (:attr:`PerceptionConfig.held_min_overlap_m`, the contact
        model's grazing band where that is None) rather than the fingertips: the points
        of the side face below the fingers say how deep it hangs, and PyBullet's Panda
        carries cubes with their centre up to 19.5 mm beyond the TCP (docs/perception.md);
        bounded at the fingertips, a deep cube's swing is fitted with its grip dragged
        across instead. Returns the swung offset and keeps both on the track."""
        cfg, size = self.config, self.scene.cube_size
        reach, length = cfg.fingertip_below_tcp_m, cfg.finger_length_m
        rest = track.offset if track.rest is None else track.rest
        camera, k = self.detector.pose, self.intrinsics

        def seen_through(centres: np.ndarray, axes: np.ndarray) -> np.ndarray:
            return free_space_hits(centres, axes, size, depth, k, camera)

        theta, rest = fit_swing(
            points, fingers, rotation, rest, track.grip_yaw, size, reach, length, seen_through
        )
        overlap = cfg.held_min_overlap_m
        bounds = replace(cfg, held_min_overlap_m=CONTACT_TOP_BAND if overlap is None else overlap)
        rest, _ = grip_in_hand(fingers + rotation @ rest, 0.0, fingers, rotation, bounds, size)
        track.rest, track.swing = rest, theta
        return swung_offset(rest, theta, size, reach, length)

    def payload(self, now: float, frame_id: str) -> dict:
        """The ``/miles/scene/objects`` JSON: today's schema (``objects`` with position,
        orientation and yaw; ``places`` from the scene), each object with its ``stamp``,
        ``age``, ``source``, ``confidence``, ``std`` (m) and ``state``; ``missing`` names
        every cube without a pose, with the reason."""
        with self.lock:
            return self._payload(now, frame_id)

    def _payload(self, now: float, frame_id: str) -> dict:
        cfg = self.config
        objects, missing = {}, {}
        for name in self.scene.objects:
            track = self.tracks.get(name)
            if track is None:
                missing[name] = self.reasons.get(name, f"{name} not seen yet")
                continue
            unmeasured = max(0.0, now - track.measured)
            if unmeasured > cfg.forget_after_s and track.state != "held":
                missing[name] = (
                    f"{name} not seen for {unmeasured:.0f} s: "
                    f"{self.reasons.get(name, 'no frame measured it')}"
                )
                continue
            age = max(0.0, now - track.stamp)
            std = track.std
            if track.state != "seen":
                std += cfg.occluded_growth_m_per_s * unmeasured
            half = track.yaw / 2.0
            objects[name] = {
                "position": [float(v) for v in track.position],
                "orientation": [0.0, 0.0, math.sin(half), math.cos(half)],
                "yaw": float(track.yaw),
                "stamp": track.stamp,
                "age": age,
                "source": SOURCE,
                "confidence": round(float(track.confidence), 3),
                "std": float(std),
                "state": track.state,
            }
        places = {
            n: {"position": list(p.position), "size": list(p.size)}
            for n, p in self.scene.places.items()
        }
        return {
            "stamp": float(now),
            "frame_id": frame_id,
            "source": SOURCE,
            "objects": objects,
            "places": places,
            "missing": missing,
        }
