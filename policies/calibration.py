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

A cell may measure the offset instead of a log identifying it (``measure: closed_gripper``
in place of ``offset_m``, off unless a card has it): once per cell, before its episodes, the
empty gripper is closed (:func:`closed_gripper_reading`) and what it reads is the offset
(:data:`CLOSED_READING_M`: a closed empty gripper whose reading is right reads 0, the pads
meet); a reading under 0 cannot be seen there, so a cell that reads narrow is left as is.

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
KEYS = ("offset_m", "identified_m", "interval_m", "source", "measure")
"""Keys of one field's entry (``offset_m`` or ``measure`` required)."""
MEASURES = {"finger_width": ("closed_gripper",)}
"""What a cell can measure of a field's offset itself (``measure``): ``closed_gripper``, the
reading of the empty gripper closed (:func:`closed_gripper_reading`)."""
CLOSED_READING_M = 0.0
"""What a closed empty gripper whose reading is right reads (m): the pads meet."""
MEASURE_STEP_M = 0.0001
"""A measured offset is read to this (m): the reading of one closed empty gripper varies by
a few 1e-8 m with where the episode left the cube (PyBullet), which a policy fed it would
carry into a different rollout each time; rounded, the same cell measures the same."""
MEASURE_RESOLUTION_M = 0.0005
"""A measured offset under this (m) is taken as none: a reading right to within it (PyBullet's
closed empty pads read 0.00-0.07 mm apart) is left as is, so a right cell runs exactly as
it does without the measurement."""
CLOSE_PERIODS = 30
"""Control periods the empty gripper is commanded closed before its reading is taken (80 mm
at 4 mm a period behind the supervisor: 20)."""


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
        if not isinstance(entry, Mapping) or ("offset_m" in entry) == ("measure" in entry):
            return f"calibration of {name!r} must be a mapping with offset_m or measure"
        unknown = sorted(set(entry) - set(KEYS))
        if unknown:
            return f"calibration of {name!r}: unknown keys {', '.join(unknown)}"
        if "measure" in entry:
            if entry["measure"] not in MEASURES.get(name, ()):
                known = ", ".join(MEASURES.get(name, ())) or "nothing"
                return f"calibration of {name!r}: measure {entry['measure']!r} (known: {known})"
            continue
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


def observation_calibration(
    card, measured: Mapping | None = None
) -> ObservationCalibration | None:
    """The calibration a :class:`~policies.cards.SkillCard` carries (None: the card has none,
    or its offsets are all 0: the observation is used as formed). ``measured``: the offset
    (m) of each field the card measures (:func:`measured_fields`); ValueError where one is
    missing."""
    block = {}
    for name, entry in (card.calibration or {}).items():
        if "measure" in entry:
            if measured is None or name not in measured:
                raise ValueError(
                    f"skill {card.name!r}: its card measures the {name} offset "
                    f"({entry['measure']}); measure it first"
                )
            entry = {**entry, "offset_m": float(measured[name])}
        block[name] = entry
    if not block or all(float(e["offset_m"]) == 0.0 for e in block.values()):
        return None
    return ObservationCalibration(block, card.observation.get("layout") or [])


def measured_fields(card) -> dict[str, str]:
    """The fields whose offset ``card`` has a cell measure, and how (``measure``)."""
    return {n: e["measure"] for n, e in (card.calibration or {}).items() if "measure" in e}


def closed_gripper_reading(env, column: int, periods: int = CLOSE_PERIODS) -> float:
    """What the finger reading (observation ``column``) of a cell's empty gripper reads once
    closed (m): from an episode's start, the arm held still (zero motion) and the gripper
    commanded closed for ``periods`` control periods, the median over the batch's envs of
    the last reading. The cell's next episodes must reset (``run_episodes`` does, with its
    seed, so the episode set is the one without the measurement)."""
    obs, _ = env.reset()
    actions = np.zeros((env.num_envs, env.action_dim), dtype=np.float32)
    actions[:, -1] = -1.0
    for _ in range(periods):
        obs, *_ = env.step(actions)
    return float(np.median(np.asarray(obs, dtype=np.float64)[:, column]))


def measured_offset(name: str, reading: float) -> float:
    """The offset (m) of field ``name`` a cell's measured ``reading`` gives: the reading less
    what a right one reads (:data:`CLOSED_READING_M`), within the field's range, to
    :data:`MEASURE_STEP_M`; 0 under :data:`MEASURE_RESOLUTION_M`."""
    lo, hi = FIELDS[name][1]
    steps = round(float(np.clip(reading - CLOSED_READING_M, lo, hi)) / MEASURE_STEP_M)
    offset = round(steps * MEASURE_STEP_M, 10)
    return 0.0 if abs(offset) < MEASURE_RESOLUTION_M else offset


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
