"""A skill's envelope: the region its policy was trained for, as machine-checkable
preconditions (the ``envelope`` block of a skill card, :class:`Envelope`).

The block is written at export from the task module's sampling ranges
(:func:`policies.card_content.task_envelope`) and read into
:attr:`policies.cards.SkillCard.envelope`; the skill executor refuses a request whose
resolved goal violates it, and the planner masks such a call. Coordinates are the robot
base frame (m), as the task's ``goal_pos`` and ``object_pos``::

    envelope:
      target_region: {low: [x, y(, z)], high: [x, y(, z)]}  # the goal (reach: TCP target)
      object_region: {low: [x, y], high: [x, y]}            # the cube's centre at the start
      object_target_distance_xy: {min: d0, max: d1}         # cube-goal distance, table plane
      angle_deg: {min: a0, max: a1}                         # turn: how far (deg, magnitude)

Every key is optional. A region with two bounds checks x and y, with three also z. A card
without the block has no envelope check (cards exported before it existed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sims.scene import finite_numbers

TOLERANCE_M = 1e-6
"""Slack (m) on every bound, for floating-point noise only (a pad on the border of the
trained target region stays inside)."""
AXES = "xyz"


class EnvelopeError(ValueError):
    """A malformed ``envelope`` block."""


def _inside(value: float, low: float, high: float) -> bool:
    return low - TOLERANCE_M <= value <= high + TOLERANCE_M  # False for NaN


@dataclass(frozen=True)
class Region:
    """An axis-aligned box (m, base frame) over x, y and, with three bounds, z."""

    low: tuple[float, ...]
    """Lower corner (2 or 3 numbers)."""
    high: tuple[float, ...]
    """Upper corner (as many numbers as ``low``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "low", tuple(float(v) for v in self.low))
        object.__setattr__(self, "high", tuple(float(v) for v in self.high))

    @classmethod
    def from_dict(cls, data, where: str) -> Region:
        if not isinstance(data, Mapping) or set(data) != {"low", "high"}:
            raise EnvelopeError(f"{where} must be a mapping with low and high, got {data!r}")
        low = finite_numbers(data["low"], f"{where}.low", error=EnvelopeError)
        high = finite_numbers(data["high"], f"{where}.high", error=EnvelopeError)
        if len(low) != len(high) or len(low) not in (2, 3):
            raise EnvelopeError(f"{where}: low and high must both have 2 or 3 numbers")
        if any(lo > hi for lo, hi in zip(low, high, strict=True)):
            raise EnvelopeError(f"{where}: low {list(low)} exceeds high {list(high)}")
        return cls(low, high)

    def to_dict(self) -> dict:
        return {"low": [round(v, 6) for v in self.low], "high": [round(v, 6) for v in self.high]}

    def violation(self, point: Sequence[float]) -> str:
        """The axes of ``point`` outside the box, with values and bounds ("" when inside)."""
        n = len(self.low)
        if len(point) < n:
            return f"expected {n} coordinates, got {list(point)}"
        out = [
            f"{axis} {value:.3f} m not in [{lo:.3f}, {hi:.3f}] m"
            for axis, value, lo, hi in zip(AXES[:n], point[:n], self.low, self.high, strict=True)
            if not _inside(float(value), lo, hi)
        ]
        return ", ".join(out)


@dataclass(frozen=True)
class Range:
    """A closed interval (m, or deg for ``angle_deg``)."""

    min: float
    """Smallest allowed value."""
    max: float
    """Largest allowed value."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "min", float(self.min))
        object.__setattr__(self, "max", float(self.max))

    @classmethod
    def from_dict(cls, data, where: str) -> Range:
        if not isinstance(data, Mapping) or set(data) != {"min", "max"}:
            raise EnvelopeError(f"{where} must be a mapping with min and max, got {data!r}")
        low, high = finite_numbers([data["min"], data["max"]], where, 2, EnvelopeError)
        if not 0.0 <= low <= high:
            raise EnvelopeError(f"{where}: need 0 <= min <= max, got [{low}, {high}]")
        return cls(low, high)

    def to_dict(self) -> dict:
        return {"min": round(self.min, 6), "max": round(self.max, 6)}


@dataclass(frozen=True)
class Envelope:
    """The region a skill's policy was trained for (the card's ``envelope`` block)."""

    target_region: Region | None = None
    """Where the goal may lie (reach: the TCP target; push: the goal on the table, xy;
    pick_place: the goal the cube's centre goes to, xyz)."""
    object_region: Region | None = None
    """Where the cube's centre may be when the skill starts (xy)."""
    object_target_distance_xy: Range | None = None
    """Cube-goal distance in the table plane (m) at the start."""
    angle_deg: Range | None = None
    """turn: how far the cube is turned (deg, magnitude; the turn the skill makes,
    :attr:`miles_ros.runtime.goals.Goal.turn_deg`)."""

    @classmethod
    def from_dict(cls, data, where: str = "envelope") -> Envelope:
        """Parse and check a card's ``envelope`` block (:class:`EnvelopeError` says why not)."""
        if not isinstance(data, Mapping):
            raise EnvelopeError(f"{where} must be a mapping, got {type(data).__name__}")
        unknown = set(data) - {
            "target_region",
            "object_region",
            "object_target_distance_xy",
            "angle_deg",
        }
        if unknown:
            raise EnvelopeError(f"{where}: unknown keys {', '.join(sorted(map(str, unknown)))}")

        def region(key: str) -> Region | None:
            return None if data.get(key) is None else Region.from_dict(data[key], f"{where}.{key}")

        def interval(key: str) -> Range | None:
            return None if data.get(key) is None else Range.from_dict(data[key], f"{where}.{key}")

        return cls(
            target_region=region("target_region"),
            object_region=region("object_region"),
            object_target_distance_xy=interval("object_target_distance_xy"),
            angle_deg=interval("angle_deg"),
        )

    def to_dict(self) -> dict:
        """The block as a card holds it (rounded to the micrometre)."""
        out: dict = {}
        if self.target_region is not None:
            out["target_region"] = self.target_region.to_dict()
        if self.object_region is not None:
            out["object_region"] = self.object_region.to_dict()
        if self.object_target_distance_xy is not None:
            out["object_target_distance_xy"] = self.object_target_distance_xy.to_dict()
        if self.angle_deg is not None:
            out["angle_deg"] = self.angle_deg.to_dict()
        return out

    def violations(
        self,
        object_pos: Sequence[float] | None,
        target_pos: Sequence[float] | None,
        turn_deg: float | None = None,
    ) -> list[str]:
        """Each violated precondition as ``NAME: value not in [low, high]`` (``angle_deg``:
        below the minimum / above the maximum; empty when the call is inside the
        envelope). ``object_pos``: the cube's centre (None for reach); ``target_pos``: the
        resolved goal (m, base frame); ``turn_deg``: a turn's signed angle as the skill
        makes it (None: no angle to check, a turn to face the robot)."""
        out = []
        for name, region, point in (
            ("target_region", self.target_region, target_pos),
            ("object_region", self.object_region, object_pos),
        ):
            if region is None:
                continue
            if point is None:
                out.append(f"{name}: no position to check")
                continue
            problem = region.violation(point)
            if problem:
                out.append(f"{name}: {problem}")
        distance = self.object_target_distance_xy
        if distance is not None and (object_pos is None or target_pos is None):
            out.append("object_target_distance_xy: no cube or goal position to check")
        elif distance is not None:
            d = math.hypot(target_pos[0] - object_pos[0], target_pos[1] - object_pos[1])
            if not _inside(d, distance.min, distance.max):
                out.append(
                    f"object_target_distance_xy: {d:.3f} m not in "
                    f"[{distance.min:.3f}, {distance.max:.3f}] m"
                )
        angle = self.angle_deg
        if angle is not None and turn_deg is not None:
            why = angle_range_violation(turn_deg, angle)
            if why:
                out.append(f"angle_deg: turn by {abs(turn_deg):g} deg: {why}")
        return out


def angle_range_violation(turn_deg: float, allowed: Range) -> str:
    """Why a turn by ``turn_deg`` (deg, signed) lies outside ``allowed`` (its magnitude's
    trained range), in words ("below the skill's 15 deg minimum"); "" inside it."""
    size = abs(float(turn_deg))
    if not math.isfinite(size):
        return "not a number of degrees"
    if size < allowed.min - TOLERANCE_M:
        return f"below the skill's {allowed.min:g} deg minimum"
    if size > allowed.max + TOLERANCE_M:
        return f"above the skill's {allowed.max:g} deg maximum"
    return ""
