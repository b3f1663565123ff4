"""Per-request signals of the active pick_place on the live graph, original and changed cell
(bench/continual.py's cell, episodes and change): which of them move earlier than success.

    PYTHONPATH=. .venv/bin/python bench/drift_signals.py --requests 60 --out out/drift_signals

Per request: the final status (state, control periods ``step``, ``elapsed_s``, the dense
``return``), the supervisor's interventions during it, and the critic's value of every
observation the policy acted on (the policy wrapped in process to see them). Writes
``signals.json`` (one record a request, each cell) and prints per-signal separation.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.continual import SCENARIO, SKILL, Cell, episodes  # noqa: E402

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--out", default="out/drift_signals")
    args = parser.parse_args()
    from policies.cards import skill_library

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="drift_signals_"))
    library = work / "skills"
    shutil.copytree(skill_library(), library)
    saved = os.dup(1)
    os.dup2(2, 1)
    records, observations = [], []
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
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    print(json.dumps({"requests": len(records), "out": str(out / "signals.json")}))
    return 0 if all(math.isfinite(len(r["values"])) for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
