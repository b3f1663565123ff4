"""A skill version's observation calibration: readings of the cell that a version takes out
of its observation before its networks see it (the card's ``calibration`` block).

A gripper whose finger reading is off (a worn or recalibrated gripper: a held cube reads
wider than it is) is recalibrated, not trained around: the logs identify the offset
(:func:`policies.finetune_sim.reading_offset`), and a version that carries it reads
``finger_width`` as :func:`sims.tasks.base.calibrated_finger_width` of the reading, the
sims' reading model undone. The block, per observation field::

    calibration:
      finger_width:
        offset_m: 0.008              # what the version takes out (m)
        identified_m: 0.008          # the logs' estimate, where offset_m is a share of it
        interval_m: [0.0047, 0.0102] # the identification's 95% interval, where known
        source: ...                  # where the number came from, in words

It is applied in one place, :class:`policies.runtime.SkillPolicy` (the skill node's
runtime, ``miles eval``, the export's evaluation and the benches all act through it): the
observation a cell, a log or a simulator forms stays the raw one, so logs keep what the
gripper read and the next identification measures the whole offset again. A card without
the block runs exactly as before (no transform at all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sims.tasks.base import FINGER_READING_RANGE, calibrated_finger_width

FIELDS = {"finger_width": (calibrated_finger_width, FINGER_READING_RANGE)}
"""Observation fields a version may calibrate: the map from a reading with a known offset
to the value, and the offsets (m) it takes."""
KEYS = ("offset_m", "identified_m", "interval_m", "source")
"""Keys of one field's entry (``offset_m`` required)."""


def calibration_refusal(block: Any, layout: list[dict] | None) -> str:
    """Why ``block`` is not a valid ``calibration`` for an observation ``layout`` ('' when
    it is): a field that cannot be calibrated or that the layout lacks, an unknown key, an
    offset outside its field's range or an interval that is not [lo, hi]."""
    if not isinstance(block, Mapping):
        return "calibration must be a mapping of observation fields"
    names = {f.get("name"): f for f in layout or []}
    for name, entry in block.items():
        if name not in FIELDS:
            return f"calibration of {name!r}: only {', '.join(FIELDS)} can be calibrated"
        if name not in names or int(names[name].get("size", 0)) != 1:
            return f"calibration of {name!r}: the observation layout has no such scalar field"
        if not isinstance(entry, Mapping) or "offset_m" not in entry:
            return f"calibration of {name!r} must be a mapping with offset_m"
        unknown = sorted(set(entry) - set(KEYS))
        if unknown:
            return f"calibration of {name!r}: unknown keys {', '.join(unknown)}"
        lo, hi = FIELDS[name][1]
        offset = entry["offset_m"]
        if isinstance(offset, bool) or not isinstance(offset, (int, float)):
            return f"calibration of {name!r}: offset_m must be a number"
        if not lo <= float(offset) <= hi:
            return f"calibration of {name!r}: offset_m {offset} not in [{lo}, {hi}]"
        interval = entry.get("interval_m")
        if interval is not None and (
            not isinstance(interval, (list, tuple))
            or len(interval) != 2
            or not all(isinstance(v, (int, float)) for v in interval)
            or float(interval[0]) > float(interval[1])
        ):
            return f"calibration of {name!r}: interval_m must be [lo, hi]"
    return ""


class ObservationCalibration:
    """A card's ``calibration`` block as a transform of observations [B, D] (built by
    :func:`observation_calibration`)."""

    def __init__(self, block: Mapping, layout: list[dict]) -> None:
        starts = {f["name"]: int(f["start"]) for f in layout}
        self.entries = [
            (starts[name], FIELDS[name][0], float(entry["offset_m"]))
            for name, entry in block.items()
        ]

    def apply(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` [B, D] with each calibrated column replaced in place; returns it."""
        for column, undo, offset in self.entries:
            obs[:, column] = undo(obs[:, column], offset)
        return obs


def observation_calibration(card) -> ObservationCalibration | None:
    """The calibration a :class:`~policies.cards.SkillCard` carries (None: the card has none,
    or its offsets are all 0: the observation is used as formed)."""
    block = card.calibration
    if not block or all(float(e["offset_m"]) == 0.0 for e in block.values()):
        return None
    return ObservationCalibration(block, card.observation.get("layout") or [])


def reading_calibration(identified: Mapping, source: str, share: float = 1.0) -> dict:
    """The ``calibration`` block of a finger reading identification
    (:func:`policies.finetune_sim.reading_offset`: its ``offset`` and ``interval``, m)
    that takes ``share`` of the estimate out of the reading (1: all of it; 0.5: the
    midpoint between the cell the logs came from and one that reads as the parent's
    did); {} when it identified nothing."""
    offset = identified.get("offset")
    if offset is None:
        return {}
    lo, hi = FIELDS["finger_width"][1]
    entry: dict[str, Any] = {"offset_m": round(float(np.clip(share * offset, lo, hi)), 5)}
    if share != 1.0:
        entry["identified_m"] = round(float(offset), 5)
    if identified.get("interval"):
        entry["interval_m"] = [round(float(v), 5) for v in identified["interval"]]
    entry["source"] = source
    return {"finger_width": entry}
