"""Why stacking episodes on perceived poses failed, from a closed-loop trace (``miles eval
pick_place --supervised --perception --variant stack --trace FILE``; one record per
control period, :meth:`~miles_ros.perception.closed_loop.PerceivedObservation.record`).

A stacking policy sets the carried cube down where the perceived goal is, one cube edge
above the *published* target cube, and lets go where it believes the carried cube is
there. So a cube set down off the target was put there by one of: the target really
moving (bumped by the hand or the carried cube), the target's published pose off while
the target did not move, or the carried cube's held pose off; and a cube still held at
the end was never let go of. :func:`classify_failure` says which, first that applies:

  ========================= ===========================================================
  ``never_released``        the fingers still grip at the episode's last period
  ``target_bumped``         the true target moved more than :data:`TARGET_MOVED_M` (xy)
                            from where it stood at the start, before the release
  ``target_misperceived``   at the release the target's published pose was more than
                            :data:`POSE_OFF_M` (xy) from the true one
  ``carried_pose_off``      at the release the carried cube's published pose was more
                            than :data:`POSE_OFF_M` (xy) from the true one
  ``other``                 none of these (the cube tipped, slid, or was knocked after the
                            release)
  ========================= ===========================================================

with the figures that led there (:class:`Failure`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from miles_ros.perception.closed_loop import CUBE, TARGET_CUBE

TARGET_MOVED_M = 0.005
"""The true target cube moved: this far (m, xy) from where it stood at the episode's
start (a cube at rest does not move; the physics' settling is under a millimetre)."""
POSE_OFF_M = 0.01
"""A published pose this far (m, xy) from the truth is off: half the stacking success's
2 cm (``sims.tasks.pick_place.STACK_XY_TOLERANCE``), enough to set the cube down beside
the target with the other pose's error on top."""
CAUSES = (
    "never_released",
    "target_bumped",
    "target_misperceived",
    "carried_pose_off",
    "other",
)
"""Every cause :func:`classify_failure` gives, in the order it tests them."""


@dataclass(frozen=True)
class Failure:
    """A failed stacking episode: its cause (:data:`CAUSES`) and what it was read from."""

    env: int
    episode: int
    cause: str
    steps: int
    """Control periods the episode ran (its records)."""
    release_step: int | None
    """The last period the fingers gripped, before they let go; None when they never
    gripped or never let go."""
    target_moved_m: float
    """How far the true target moved (xy) from the start, by the release (the end when
    there is none)."""
    target_error_m: float | None
    """The target's published pose against the truth (xy) at the release (the end when
    there is none); None without a published pose."""
    target_state: str | None
    """The target's published state then (seen, occluded, ...)."""
    target_age_s: float | None
    """Its age then (s)."""
    carried_error_m: float | None
    """The carried cube's published pose against the truth (xy) then."""
    carried_state: str | None
    """The carried cube's published state then."""
    placed_error_m: float
    """The carried cube's true centre from the true goal (xy) at the end."""
    goal_drift_m: float
    """How far the published target moved (xy) over the episode's last second: a goal
    jumping under a policy that waits for it to settle."""


def read_trace(path) -> list[dict]:
    """The records of a trace file (JSON lines)."""
    with Path(path).open() as lines:
        return [json.loads(line) for line in lines if line.strip()]


def episodes(records: Iterable[dict]) -> dict[tuple[int, int], list[dict]]:
    """The records grouped by (env, episode), each group in step order."""
    out: dict[tuple[int, int], list[dict]] = {}
    for rec in records:
        out.setdefault((rec["env"], rec["episode"]), []).append(rec)
    for group in out.values():
        group.sort(key=lambda r: r["step"])
    return out


def _xy(point) -> np.ndarray:
    return np.asarray(point, dtype=np.float64)[:2]


def _error(cube: dict) -> float | None:
    published = cube["published"]
    if published is None or cube["true"] is None:
        return None
    return float(np.linalg.norm(_xy(published["position"]) - _xy(cube["true"])))


def release_step(records: list[dict]) -> int | None:
    """Index of the last record whose fingers grip before a record where they do not
    (the release); None when they never gripped, or still grip at the end."""
    gripping = [bool(r["gripping"]) for r in records]
    if not any(gripping) or gripping[-1]:
        return None
    return max(k for k, g in enumerate(gripping) if g)


def classify_failure(records: list[dict], window_s: float = 1.0) -> Failure:
    """The cause of one failed stacking episode (its records in step order; see the module
    docstring); ``window_s``: the span at the end over which the goal's drift is taken."""
    first, last = records[0], records[-1]
    released = release_step(records)
    at = records[released] if released is not None else last
    start = _xy(first["cubes"][TARGET_CUBE]["true"])
    upto = records[: (released if released is not None else len(records) - 1) + 1]
    moved = max(float(np.linalg.norm(_xy(r["cubes"][TARGET_CUBE]["true"]) - start)) for r in upto)
    target, carried = at["cubes"][TARGET_CUBE], at["cubes"][CUBE]
    target_error, carried_error = _error(target), _error(carried)
    placed = float(np.linalg.norm(_xy(last["cubes"][CUBE]["true"]) - _xy(last["goal"])))
    recent = [
        _xy(r["cubes"][TARGET_CUBE]["published"]["position"])
        for r in records
        if r["time"] >= last["time"] - window_s and r["cubes"][TARGET_CUBE]["published"]
    ]
    drift = float(max((np.linalg.norm(p - recent[-1]) for p in recent), default=0.0))
    if last["gripping"]:
        cause = "never_released"
    elif moved > TARGET_MOVED_M:
        cause = "target_bumped"
    elif target_error is not None and target_error > POSE_OFF_M:
        cause = "target_misperceived"
    elif carried_error is not None and carried_error > POSE_OFF_M:
        cause = "carried_pose_off"
    else:
        cause = "other"
    state = lambda cube, key: None if cube["published"] is None else cube["published"][key]  # noqa: E731
    return Failure(
        env=first["env"],
        episode=first["episode"],
        cause=cause,
        steps=len(records),
        release_step=None if released is None else records[released]["step"],
        target_moved_m=round(moved, 4),
        target_error_m=None if target_error is None else round(target_error, 4),
        target_state=state(target, "state"),
        target_age_s=state(target, "age"),
        carried_error_m=None if carried_error is None else round(carried_error, 4),
        carried_state=state(carried, "state"),
        placed_error_m=round(placed, 4),
        goal_drift_m=round(drift, 4),
    )


def finished(grouped: dict[tuple[int, int], list[dict]]) -> dict[tuple[int, int], list[dict]]:
    """The episodes that ended: each env's last one in a trace is left out, begun by the
    autoreset after the evaluation's last counted step or cut off when it stopped."""
    last = {}
    for env, episode in grouped:
        last[env] = max(last.get(env, episode), episode)
    return {key: group for key, group in grouped.items() if key[1] != last[key[0]]}


def episode_successes(records: Iterable[dict]) -> dict[tuple[int, int], bool]:
    """Each finished episode's (:func:`finished`) verdict, its last record's ``success``,
    by (env, episode): two traces of the same seeded episodes pair on these keys."""
    return {key: bool(group[-1]["success"]) for key, group in finished(episodes(records)).items()}


def stack_failures(records: Iterable[dict]) -> tuple[int, list[Failure]]:
    """The finished episodes of a stacking trace (:func:`finished`) and the cause of each
    failed one (an episode failed when its last record's ``success`` is false):
    (episodes, failures)."""
    grouped = finished(episodes(records))
    failures = [classify_failure(group) for group in grouped.values() if not group[-1]["success"]]
    return len(grouped), failures


def error_by_state(records: Iterable[dict], name: str) -> dict:
    """The published pose of cube ``name`` against the truth (m, 3-D) by its state (p50,
    p95), with the state's share of the periods: the evaluation's summary gives this for
    the task cube only. Periods without a published pose count as ``missing``."""
    errors: dict[str, list[float]] = {}
    missing = 0
    for rec in records:
        cube = rec["cubes"][name]
        published = cube["published"]
        if published is None:
            missing += 1
            continue
        gap = np.asarray(published["position"]) - np.asarray(cube["true"])
        errors.setdefault(published["state"], []).append(float(np.linalg.norm(gap)))
    total = max(1, missing + sum(len(e) for e in errors.values()))
    out = {
        state: {
            "share": round(len(e) / total, 3),
            "p50": round(float(np.percentile(e, 50)), 4),
            "p95": round(float(np.percentile(e, 95)), 4),
        }
        for state, e in errors.items()
    }
    if missing:
        out["missing"] = {"share": round(missing / total, 3)}
    return out


HAND_AXES = ("across", "closing", "approach")
"""The hand's axes (the TCP frame's x, y, z): across the fingers (the pads' width), the
fingers' closing axis, the approach."""


def held_error_in_hand(records: Iterable[dict], name: str = CUBE) -> dict | None:
    """The held pose of cube ``name`` against the truth along each of the hand's axes
    (:data:`HAND_AXES`; the records' ``hand_axes``), over the periods it is published
    ``held``: per axis the signed median (a bias) and the p50 / p95 of its size (m), and
    the periods counted; None where no such period records the hand's axes (traces
    written before they did)."""
    gaps = []
    for rec in records:
        cube = rec["cubes"][name]
        published = cube["published"]
        if published is None or published["state"] != "held" or not rec.get("hand_axes"):
            continue
        axes = np.asarray(rec["hand_axes"], dtype=np.float64)  # rows: the hand's axes
        gaps.append(axes @ (np.asarray(published["position"]) - np.asarray(cube["true"])))
    if not gaps:
        return None
    gaps = np.asarray(gaps)
    out: dict = {"periods": len(gaps)}
    for k, axis in enumerate(HAND_AXES):
        size = np.abs(gaps[:, k])
        out[axis] = {
            "bias": round(float(np.median(gaps[:, k])), 4),
            "p50": round(float(np.percentile(size, 50)), 4),
            "p95": round(float(np.percentile(size, 95)), 4),
        }
    return out


def summary(records: Iterable[dict]) -> dict:
    """Episodes, successes and the failures counted by cause (:data:`CAUSES`), with each
    failure's figures; the target cube's published error by state
    (:func:`error_by_state`); the carried cube's held error along the hand's axes
    (:func:`held_error_in_hand`)."""
    records = list(records)
    total, failures = stack_failures(records)
    counts = Counter(f.cause for f in failures)
    return {
        "episodes": total,
        "successes": total - len(failures),
        "causes": {cause: counts.get(cause, 0) for cause in CAUSES},
        "failures": [asdict(f) for f in failures],
        "target_error_m_by_state": error_by_state(records, TARGET_CUBE),
        "held_error_m_in_hand": held_error_in_hand(records),
    }
