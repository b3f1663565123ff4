"""How the perception core is tuned (:class:`PerceptionConfig`): the tracking's
uncertainties and time limits, when fingers hold or push a cube, and the hand's geometry
it reads them from; the detection's own tuning is
:class:`~miles_ros.perception.detect.DetectConfig`.
:class:`~miles_ros.perception.pipeline.Perception` tracks with it."""

from __future__ import annotations

from dataclasses import dataclass, field

from miles_ros.perception.detect import DetectConfig
from miles_ros.perception.tags import COLOUR
from sims.kernels.contact import (
    CONTACT_TOP_BAND,
    FINGER_LENGTH,
    FINGER_RADIUS,
    FINGERTIP_BELOW_TCP,
    PAD_ACROSS,
    PAD_RADIUS,
)


@dataclass(frozen=True)
class PerceptionConfig:
    """Tuning of the tracking; the detection's is :class:`DetectConfig`."""

    detect: DetectConfig = field(default_factory=DetectConfig)
    mode: str = COLOUR
    """How cubes are found (:data:`~miles_ros.perception.tags.MODES`): by colour and depth,
    or by the AprilTags on them (the scene file's ``tag:``)."""
    measurement_std_m: float = 0.003
    """Standard deviation of a fresh measurement's position (m): the camera's noise and
    a calibration's residual together (bench/perception.py measures what it is)."""
    occluded_growth_m_per_s: float = 0.01
    """An unmeasured pose's standard deviation grows by this per second of age (m/s)."""
    forget_after_s: float = 30.0
    """A cube not measured for this long is dropped to ``missing`` (s)."""
    grasp_radius_m: float = 0.03
    """A cube whose centre is this close to a closed gripper's TCP, or to the fingers'
    midpoint as they closed, is held by it (m; the nearest such cube, one a grip)."""
    grip_margin_m: float = 0.006
    """Fingers closed on a cube: their opening between the cube's size and its diagonal
    (a cube gripped across two corners: size * sqrt(2)), within this (m)."""
    grip_settled_speed_m_per_s: float = 0.05
    """Fingers closed on a cube have stopped on it: their opening changes slower than this
    (m/s, over :attr:`grip_settle_window_s`). Fingers still closing pass through a cube's
    widths whether or not a cube is between them (PyBullet's close at ~0.1 m/s)."""
    grip_settle_window_s: float = 0.04
    """The fingers' speed is their opening's change over this much of the joint states'
    history (s): a control period in the closed loop, 10 joint states at 250 Hz."""
    finger_pad_length_m: float = 2.0 * FINGER_RADIUS
    """A finger's footprint along the closing axis (m): closed fingers push with a bar
    twice this long plus their opening, :attr:`finger_half_width_m` * 2 across (the
    Panda's 27 x 29 mm each, as the contact model has them)."""
    contact_height_m: float = FINGERTIP_BELOW_TCP - CONTACT_TOP_BAND
    """The fingertips push a cube's sides when the TCP is below its top plus this (m): the
    tips (10 mm beyond the TCP) at least :data:`~sims.kernels.contact.CONTACT_TOP_BAND`
    below its top; higher, they graze its edge, riding over it or tipping it (4 mm)."""
    carried_contact_depth_m: float = CONTACT_TOP_BAND
    """A carried cube pushes another cube it moves into where its bottom is more than this
    below the other's top (m): the contact model's grazing band
    (:data:`~sims.kernels.contact.CONTACT_TOP_BAND`, 6 mm). Shallower, a cube set down on
    another, or carried just over it, is no push. (8 mm before: in the 200 stacking
    episodes a carried cube coming in at 0.2-0.27 m/s and rising caught the target's
    edge and slid it 25-56 mm while its published bottom was 2-9 mm below the target's
    top; docs/perception.md.)"""
    tcp_match_s: float = 0.05
    """A held cube's measurement corrects its grasp offset only against a joint state this
    close to the frame's exposure (s)."""
    min_coverage: float = 0.3
    """A cube with less of its top face in view (a hand over it) is not measured: the fit
    of its sides alone would be off by up to half its size."""
    yaw_min_coverage: float = 0.8
    """A measurement with less of the top face in view places the cube but keeps the yaw
    it had: a face partly hidden by a hand shows no square, and its fitted yaw was off by
    up to 30 deg in the traces (a cube's first measurement sets it whatever)."""
    finger_half_width_m: float = PAD_ACROSS + PAD_RADIUS
    """Half a finger pad's width across the closing axis (m): a held cube's centre is no
    further than this from the fingers' centre line (the Panda's pads are ~29 mm wide)."""
    held_yaw_from_opening: bool = False
    """A held cube's yaw is the hand's turned by as much as the fingers' opening says
    (:func:`~miles_ros.perception.hand.turn_in_grip`), the camera's yaw giving only which
    way; off, the turn in the grip is the one the camera last gave. Off by default: on the
    first 50 stacking episodes of seed 1000 on perceived poses it took the held yaw's error
    from 6 / 32 to 5 / 15 deg (|p50| / p95) but stacked 46/50 against 48/50 (exact McNemar
    p = 0.5; docs/perception.md): not shipped until a paired 200 says otherwise."""
    held_hidden_across_weight: float | None = None
    """Where a grasp takes a held cube across the fingers (the pads' width) from a pose of
    a top face partly hidden by the hand (less than :attr:`yaw_min_coverage` in view, or a
    pushed pose): this share of that pose's offset from the fingers' centre line (the
    rest of the way on the line, where a grasp aims), and a frame of a held cube with
    less of its face in view corrects its depth along the approach only (across the
    fingers and its yaw stay). None (the default): the seen offset whole, every frame
    correcting it. 0.43 is the least-squares weight of such a pose's offset for the true
    one in the first 50 stacking episodes' trace (docs/perception.md, lead (b)): the held
    error across the fingers 3.9 / 10.2 -> 2.8 / 7.1 mm (|p50| / p95) replayed on 200
    episodes it was not fitted on, but on the first 50 it stacked 43/50 against 46/50 on
    the same episodes and camera noise (exact McNemar p = 0.375): off."""
    grip_reading_offset_m: float = 0.0
    """What the fingers' opening reads with a cube's face flat against each pad, less the
    cube's size (m): 0 for PyBullet's Panda and numba's thin pads; a gripper with
    compliant pads reads a held 4 cm cube 2-5 mm narrower (``sims.tasks.base.
    FINGER_READING_RANGE``). A held cube's turn in the grip is read from the opening less
    this (:func:`~miles_ros.perception.hand.turn_in_grip`)."""
    fingertip_below_tcp_m: float = FINGERTIP_BELOW_TCP
    """How far the fingertips reach beyond the TCP along the hand's approach axis (m)."""
    finger_length_m: float = FINGER_LENGTH
    """The fingers' length from their tips back to the hand (m)."""
    held_min_overlap_m: float | None = None
    """Where set, the least of a held cube's height the fingers overlap (m): its top at
    least this far above the fingertips, its centre no further beyond them than half an
    edge less this (:func:`~miles_ros.perception.hand.grip_in_hand`; the contact model's
    grazing band, :data:`~sims.kernels.contact.CONTACT_TOP_BAND`, 6 mm, is the
    principled value: fingertips less deep on a cube ride over its edge). None (the
    default): the centre no further out than the fingertips, as shipped. PyBullet's
    Panda carries a cube grasped high hanging with its centre up to 19.5 mm beyond the
    TCP (42% of the carried periods over 10 mm, 50 stacking episodes on exact poses), so
    the shipped bound publishes such a cube up to 10 mm high; with 6 mm, version 3's
    stacking on perceived poses went 48 -> 48/50 (seed 1000's first 50) and 46 -> 48/50
    (seed 2000), exact McNemar p = 0.625 over both (docs/perception.md, issue 29's
    "other" failures): within the noise, off."""
    held_swing_fit: bool = True
    """A frame of a held cube sets where it sits in the grip from a cube of the known edge
    swung about the pads' contact line (:func:`~miles_ros.perception.swing.fit_swing`: one
    angle, the hand giving the axis, with the grip's offset across the fingers and along
    the approach refitted as the flat fit refits them), fitted to every point of the cube
    in view, rather than from its top face fitted level; the swing stays in the grip
    between frames. On by default (off: the top face fitted level, as before). Version 3's
    stacking on perceived poses, 200 paired episodes (seed 1000, two draws of the camera's
    noise), 177 -> 190 and 180 -> 188 with it (docs/perception.md). A detector that keeps
    no points (tags) fits the top face level either way."""
