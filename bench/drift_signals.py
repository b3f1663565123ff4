"""Per-request signals of the active pick_place on the live graph, original and changed cell
(bench/continual.py's cell, episodes and change): which of them move earlier than success.

    PYTHONPATH=. .venv/bin/python bench/drift_signals.py --requests 60 --out out/drift_signals

Per request: the final status (state, control periods ``step``, ``elapsed_s``, the dense
``return``), the supervisor's interventions during it, and the critic's value of every
observation the policy acted on (the policy wrapped in process to see them). Writes
``signals.json`` (one record a request, each cell) and ``observations.npz``, then prints
each signal's separation (``--analyse DIR`` prints it again from a saved run): means and
standard deviations on both cells, the mean normal score of the changed cell's values
ranked among the original's (:func:`~miles_ros.runtime.rollout.drift.normal_score`: the
drift signal's own statistic), and the requests a one-sided test at 5 % with 80 % power
needs for that shift, ``((1.645 + 0.842) / score)^2``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.continual import SCENARIO, SKILL, Cell, episodes, library_copy  # noqa: E402
from policies.commands._common import stdout_to_stderr  # noqa: E402

NOMINAL = {"cube_mass_scale": 1.0, "table_friction_scale": 1.0, "finger_reading": 0.0}
"""The original cell (sim_node's change parameters at their nominal values)."""


class _Watched:
    """A policy whose observations are kept (the critic's values read afterwards)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.observations: list[np.ndarray] = []

    def act(self, obs):
        self.observations.append(np.array(obs, dtype=np.float32))
        return self.inner.act(obs)

    def value(self, obs):
        return self.inner.value(obs)


def measure(cell: Cell, eps, n: int, tag: str, observations: list) -> list[dict]:
    library = cell.skills.skills.library
    active = library.skills[SKILL]
    watched = _Watched(active.policy)
    library.skills[SKILL] = dataclasses.replace(active, policy=watched)
    out = []
    try:
        for k in range(n):
            episode = next(eps)
            before = int(cell.safety_state.get("interventions", 0) or 0)
            watched.observations.clear()
            status, _ = cell.run(f"{tag}-{k}", episode)
            after = int(cell.safety_state.get("interventions", 0) or 0)
            obs = np.array(watched.observations)
            values = [float(v) for v in active.policy.value(obs)] if len(obs) else []
            observations.append(obs)
            out.append(
                {
                    "cell": tag,
                    "target": episode["target"],
                    "state": status["state"],
                    "reason": status.get("reason", ""),
                    "steps": status.get("step"),
                    "elapsed_s": status.get("elapsed_s"),
                    "return": status.get("return"),
                    "interventions": after - before,
                    "values": [round(v, 4) for v in values],
                }
            )
            print(tag, k, status["state"], status.get("step"), status.get("return"), flush=True)
    finally:
        library.skills[SKILL] = active
    return out


def request_signals(record: dict, obs: np.ndarray, skill) -> dict[str, float]:
    """The candidate signals of one recorded request (larger or smaller: the analysis
    reads both ways)."""
    from miles_ros.runtime.actions import action_to_targets

    out = {
        "success": float(record["state"] == "succeeded"),
        "steps": float(record["steps"]),
        "return": float(record["return"] or 0.0),
        "interventions": float(record["interventions"]),
        "elapsed_s": float(record["elapsed_s"]),
    }
    if len(obs):
        values = np.array(record["values"])
        q = obs[:, :7].astype(np.float64)
        steps = [
            np.linalg.norm(action_to_targets(skill.cfg, qk, skill.policy.act(o)).arm - qk)
            for qk, o in zip(q, obs, strict=True)
        ]
        out["action"] = float(np.mean(steps))
        out["value_start"] = float(values[0])
        out["value_mean"] = float(values.mean())
    return out


def replay(original: np.ndarray, changed: np.ndarray, runs: int = 300, seed: int = 0) -> dict:
    """The default signal test (:class:`~miles_ros.runtime.rollout.drift.DriftConfig`)
    replayed on resampled requests: a reference drawn from the original cell's, then the
    changed cell's drawn with replacement; the requests after the change to the alarm
    (median, and the share of runs within 40) and, on the original cell's alone, the
    share of runs with an alarm within the rest of its requests."""
    from miles_ros.runtime.rollout.drift import DriftConfig, RankCusum

    config = DriftConfig()
    rng = np.random.default_rng(seed)
    delays, false_alarms = [], 0
    for _ in range(runs):
        order = rng.permutation(len(original))
        reference, rest = original[order[: config.reference]], original[order[config.reference :]]
        for stream, kind in ((rng.choice(changed, 200), "changed"), (rest, "original")):
            test = RankCusum(config.reference, config.allowance, config.threshold)
            for value in reference:
                test.add(float(value))
            at = next((k + 1 for k, v in enumerate(stream) if test.add(float(v))), None)
            if kind == "changed":
                delays.append(math.inf if at is None else at)
            else:
                false_alarms += at is not None
    delays_arr = np.array(delays)
    return {
        "runs": runs,
        "median_requests": float(np.median(delays_arr)),
        "within_40": round(float(np.mean(delays_arr <= 40)), 3),
        "original_false_alarms": round(false_alarms / runs, 3),
        "original_watched": len(original) - config.reference,
    }


def separation(out: Path) -> dict:
    """Each signal's separation between the cells (the module docstring)."""
    from miles_ros.runtime.library import load_skill
    from miles_ros.runtime.rollout.drift import normal_score
    from policies.cards import skill_library

    records = json.loads((out / "signals.json").read_text())
    saved = np.load(out / "observations.npz")
    skill = load_skill(skill_library() / SKILL)
    cells: dict[str, list[dict]] = {"original": [], "changed": []}
    for k, record in enumerate(records):
        cells[record["cell"]].append(request_signals(record, saved[f"arr_{k}"], skill))
    table = {}
    for name in cells["original"][0]:
        a = np.array([r[name] for r in cells["original"] if name in r])
        b = np.array([r[name] for r in cells["changed"] if name in r])
        reference = sorted(a.tolist())
        score = float(np.mean([normal_score(reference, float(v)) for v in b]))
        needs = ((1.645 + 0.842) / abs(score)) ** 2 if abs(score) > 1e-9 else math.inf
        table[name] = {
            "original_mean": round(float(a.mean()), 4),
            "original_std": round(float(a.std(ddof=1)), 4),
            "changed_mean": round(float(b.mean()), 4),
            "changed_std": round(float(b.std(ddof=1)), 4),
            "mean_score": round(score, 3),
            "requests_needed": round(needs, 1) if math.isfinite(needs) else None,
        }
        if name == "action":
            table[name]["replay"] = replay(a, b)
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--out", default="out/drift_signals")
    parser.add_argument("--analyse", metavar="DIR", help="print a saved run's separation")
    args = parser.parse_args()

    if args.analyse:
        print(json.dumps(separation(Path(args.analyse)), indent=1))
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="drift_signals_"))
    library = library_copy(work / "skills")
    records, observations = [], []
    with stdout_to_stderr():
        cell = Cell(library, work)
        try:
            for tag, change, seed in (("changed", SCENARIO, 0), ("original", NOMINAL, 0)):
                cell.set_change(change)
                records += measure(cell, episodes(seed), args.requests, tag, observations)
                (out / "signals.json").write_text(json.dumps(records))
                np.savez_compressed(out / "observations.npz", *observations)
        finally:
            cell.close()
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"requests": len(records), "separation": separation(out)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
