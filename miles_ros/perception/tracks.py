"""What the perception core knows between frames, ROS-free: of each cube, a
:class:`Track` (its pose, stamp, uncertainty, and which of :data:`STATES` it is in), and
of each arm, an :class:`ArmTrack` (its TCP, the fingers' opening and grip, and the recent
hand poses a frame's exposure is matched against).
:class:`~miles_ros.perception.pipeline.Perception` moves them between the states."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from miles_ros.perception.hand import Footprint

STATES = ("seen", "held", "pushed", "occluded")
"""How a published pose is known (see :mod:`miles_ros.perception.pipeline`)."""
TCP_HISTORY = 400
"""Joint states kept per arm to find the TCP at a frame's exposure (at 250 Hz, 1.6 s: more
than a frame's age on arrival)."""


@dataclass
class Track:
    """What is known of one cube."""

    position: np.ndarray
    yaw: float
    stamp: float
    """When the pose was true: the frame's exposure, or the joint state's for a held cube."""
    std: float
    confidence: float
    state: str
    held_by: str | None = None
    """The arm holding it ("" = the single arm), None when no arm is."""
    offset: np.ndarray | None = None
    """Cube centre from the fingers' midpoint, in the TCP frame's axes (m), while held
    (:func:`~miles_ros.perception.hand.grip_in_hand`)."""
    grip_yaw: float = 0.0
    """Cube yaw less the hand's (rad) while held, as the camera last gave it (with
    :attr:`~miles_ros.perception.config.PerceptionConfig.held_yaw_from_opening`, which
    way the cube is turned in the grip only: how far, the fingers' opening says)."""
    measured: float = 0.0
    """Stamp of its last measurement."""
    rest: np.ndarray | None = None
    """While held, with :attr:`~miles_ros.perception.config.PerceptionConfig.held_swing_fit`:
    the grip as if the cube hung level (hand frame), which :attr:`offset` is swung from by
    :attr:`swing`; None until a frame fits it."""
    swing: float = 0.0
    """The cube's swing about the pads' contact line (rad), as the last frame fitted it."""
    pushed_along: np.ndarray | None = None
    """While a carried cube pushes it (state ``pushed``): the unit xy direction it was
    pushed along when the contact began
    (:meth:`~miles_ros.perception.pipeline.Perception._push_by_carried`); None otherwise."""


@dataclass
class ArmTrack:
    """An arm's latest TCP and grip, and its recent hand poses to match frames' exposures."""

    tcp: np.ndarray
    rotation: np.ndarray
    """The TCP frame's axes in the scene frame (columns: across the fingers, the closing
    axis, the approach)."""
    fingers: np.ndarray
    """The fingers' midpoint (scene frame): the TCP moved along the closing axis by the
    fingers' centre (:meth:`~miles_ros.perception.pipeline.Perception.on_arm`)."""
    stamp: float
    gripping: bool = False
    """The fingers closed on a cube (between its size and its diagonal apart)."""
    empty: bool = False
    """The fingers closed on nothing (narrower than a cube): they push."""
    width: float = 0.0
    """The fingers' opening (m)."""
    closing: list = field(default_factory=list)
    """The fingers' midpoints while they closed through a cube's widths, up to the joint
    state where they stopped (:attr:`gripping`); empty while they are wider."""
    previous: Footprint | None = None
    """The fingers' footprint at the joint state before the latest, open or closed (None
    before the second): a pusher pushes a cube it moves into, along its motion, not one
    it already overlapped."""
    history: deque = field(default_factory=lambda: deque(maxlen=TCP_HISTORY))
    """(stamp, fingers' midpoint, rotation, finger width) of recent joint states, oldest
    first."""

    def finger_speed(self, stamp: float, width: float, window: float) -> float:
        """How fast the fingers' opening changes (m/s): from the newest joint state at
        least ``window`` s before ``stamp`` (the oldest there is, where none is that old)
        to ``width`` at ``stamp``; 0 without an earlier joint state."""
        before = None
        for entry in reversed(self.history):
            if entry[0] < stamp:
                before = entry
                if stamp - entry[0] >= window:
                    break
        if before is None:
            return 0.0
        return abs(width - before[3]) / (stamp - before[0])

    def hand_at(self, stamp: float, tolerance: float) -> tuple[np.ndarray, np.ndarray] | None:
        """The fingers' midpoint and the hand's rotation at ``stamp`` (the joint state
        nearest to it, within ``tolerance`` s); None when the history does not reach back
        that far."""
        if not self.history:
            return None
        times = np.fromiter((entry[0] for entry in self.history), dtype=np.float64)
        i = int(np.argmin(np.abs(times - stamp)))
        _, fingers, rotation, _ = self.history[i]
        return (fingers, rotation) if abs(times[i] - stamp) <= tolerance else None
