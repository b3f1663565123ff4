"""Requests at the supervisor's door: the :class:`JointRequest` and :class:`Command`
records, and :class:`RequestGate`, the checks a request must pass before it may drive the
output (lengths, joint names, finite positions, stamps), with the joint layouts of
requests and measured states cached per name list."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from miles_ros.safety.config import SafetyConfig

FAULT_KINDS = frozenset(
    {
        "wrong_length",
        "duplicate_joint",
        "unknown_joint",
        "missing_joint",
        "non_finite",
        "missing_stamp",
        "stale",
        "future_stamp",
        "out_of_order",
        "permission",
    }
)
"""Rejections that count toward the repeated-violations fault."""
REJECTION_KINDS = FAULT_KINDS | {"estop_latched", "no_robot_state"}
"""Every kind of a refused request (an event with nothing allowed): the gate's checks and
permissions above, and a request while the e-stop is latched or before any robot state."""

Rejection = tuple[str, str | None, object, str]
"""(kind, joint, value, detail) of a refused request; kind '' = it passed."""
PASSED: Rejection = ("", None, None, "")

_MAX_LAYOUTS = 64
"""Name lists remembered per cache (bounded under adversarial layouts)."""


@dataclass(frozen=True)
class JointRequest:
    """A requested joint target (the content of a ``/miles/skill_command`` message)."""

    names: Sequence[str]
    """Joint names, one per position."""
    positions: Sequence[float]
    """Target positions (rad for the arm, m for the fingers)."""
    stamp: float | None
    """Stamp on the supervisor's clock (None or 0 = missing)."""
    velocities: Sequence[float] | None = None
    """Optional: the joints' velocities at the stamp (rad/s, one per name; the message's
    ``velocity`` field). A request with them is a point of a trajectory the supervisor
    tracks in time (:meth:`~miles_ros.safety.inputs.SupervisorInputs._reference`); without
    them (None or empty), a target to approach."""


@dataclass(frozen=True)
class Command:
    """One output period: what the robot receives."""

    stamp: float
    """Stamp on the supervisor's clock."""
    names: tuple[str, ...]
    """Arm joints, then the fingers once a finger target was ever requested."""
    positions: np.ndarray
    """Commanded positions, in the order of ``names``."""
    mode: str
    """The supervisor's mode when it was produced."""


class RequestGate:
    """Validates requests against the config's joints and stamp rules, and maps the name
    lists of requests and of measured states to the arm's (and fingers') order."""

    def __init__(self, config: SafetyConfig) -> None:
        self.config = config
        self.arm_index = {name: i for i, name in enumerate(config.joint_names)}
        """Arm joint name -> its slot in the supervisor's arrays."""
        self.finger_index = {name: i for i, name in enumerate(config.finger_joint_names)}
        """Finger joint name -> its slot in the finger arrays."""
        self._state_layouts: dict[tuple[str, ...], object] = {}
        self._request_layouts: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}

    def state_layout(self, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray | None] | None:
        """(arm order, finger order or None) of a ``joint_states`` name list; None when it
        lacks an arm joint."""
        cached = self._state_layouts.get(names)
        if cached is not None or names in self._state_layouts:
            return cached
        idx = {name: i for i, name in enumerate(names)}
        layout = None
        if all(n in idx for n in self.arm_index):
            order = np.array([idx[n] for n in self.arm_index])
            fingers = None
            if self.finger_index and all(n in idx for n in self.finger_index):
                fingers = np.array([idx[n] for n in self.finger_index])
            layout = (order, fingers)
        if len(self._state_layouts) < _MAX_LAYOUTS:
            self._state_layouts[names] = layout
        return layout

    def request_layout(self, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """(arm slots, [request slots, finger slots]) of a request that passed
        :meth:`validate`."""
        return self._request_layouts[names]

    def validate(self, req: JointRequest, now: float, last_stamp: float | None) -> Rejection:
        """Why ``req`` must be refused at ``now`` (``last_stamp``: the latest accepted
        request's), or :data:`PASSED`."""
        names = tuple(req.names)
        if len(names) != len(req.positions):
            detail = f"{len(names)} names but {len(req.positions)} positions"
            return "wrong_length", None, len(req.positions), detail
        if names not in self._request_layouts:
            why = self._check_names(names)
            if why[0]:
                return why
            if len(self._request_layouts) >= _MAX_LAYOUTS:
                self._request_layouts.clear()
            arm = np.array([names.index(n) for n in self.arm_index])
            fingers = [(names.index(n), j) for n, j in self.finger_index.items() if n in names]
            self._request_layouts[names] = (arm, np.array(fingers, dtype=int).reshape(-1, 2).T)
        try:
            finite = bool(np.all(np.isfinite(np.asarray(req.positions, dtype=np.float64))))
        except (TypeError, ValueError):
            finite = False
        if not finite:
            for name, value in zip(names, req.positions, strict=True):
                try:
                    ok = math.isfinite(float(value))
                except (TypeError, ValueError):
                    ok = False
                if not ok:
                    return "non_finite", name, str(value), f"non-finite position for {name!r}"
        velocities = req.velocities
        if velocities is not None and len(velocities):
            if len(velocities) != len(names):
                detail = f"{len(names)} names but {len(velocities)} velocities"
                return "wrong_length", None, len(velocities), detail
            try:
                vel = np.asarray(velocities, dtype=np.float64)
            except (TypeError, ValueError):
                vel = np.array([np.nan])
            if not np.all(np.isfinite(vel)):
                return "non_finite", None, None, "non-finite velocity in the request"
        stamp = req.stamp
        if stamp is None or stamp == 0.0 or not math.isfinite(stamp):
            return "missing_stamp", None, stamp, "request without a stamp"
        if now - stamp > self.config.max_request_age:
            return "stale", None, stamp, f"request {now - stamp:.3f} s old"
        if stamp - now > self.config.max_request_lead:
            return "future_stamp", None, stamp, f"request stamped {stamp - now:.3f} s ahead"
        if last_stamp is not None and stamp <= last_stamp:
            return "out_of_order", None, stamp, "stamp not after the previous request's"
        return PASSED

    def _check_names(self, names: tuple[str, ...]) -> Rejection:
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            return "duplicate_joint", dup, None, f"joint {dup!r} given twice"
        for name in names:
            if name not in self.arm_index and name not in self.finger_index:
                return "unknown_joint", name, None, f"unknown joint {name!r}"
        for name in self.arm_index:
            if name not in names:
                return "missing_joint", name, None, f"arm joint {name!r} missing"
        return PASSED
