"""Why stacking on perceived poses failed, episode by episode, from a closed-loop trace.

    miles eval pick_place --supervised --perception --variant stack --episodes 50 \
        --seed 1000 --trace stack.jsonl
    .venv/bin/python bench/stack_failures.py stack.jsonl [--json]

Each failed episode gets one cause (:data:`miles_ros.perception.trace_report.CAUSES`: never
released, target bumped, target misperceived, carried cube's pose off, other) with the
figures it was read from: the release's period, how far the true target moved, the
target's and the carried cube's published error and state at the release, where the cube
ended against the goal, how far the published target drifted over the last second; and
the target's published error by state over every period (p50 / p95), and the carried
cube's held error along the hand's axes (across the fingers, closing, approach). Prints
a table, or with ``--json`` one JSON object (:func:`~miles_ros.perception.trace_report.
summary`).

    .venv/bin/python bench/stack_failures.py b.jsonl --against a.jsonl [--episodes 50]

pairs two traces of the same seeded episodes (two trackings, say): the episodes both
finished (the first ``--episodes`` of them), each trace's successes, the episodes only
one stacked, and the exact McNemar p (:func:`bench.paired_eval.mcnemar_exact`), as one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.paired_eval import mcnemar_exact  # noqa: E402
from miles_ros.perception.trace_report import (  # noqa: E402
    CAUSES,
    HAND_AXES,
    episode_successes,
    read_trace,
    summary,
)


def _mm(value) -> str:
    return "-" if value is None else f"{1000 * value:.0f}"


def paired(trace: Path, against: Path, first: int | None = None) -> dict:
    """``trace`` against ``against`` on the episodes both finished (the first ``first``)."""
    b, a = episode_successes(read_trace(trace)), episode_successes(read_trace(against))
    keys = sorted(set(a) & set(b), key=lambda key: (key[1], key[0]))[:first]
    only_b = sum(b[k] and not a[k] for k in keys)
    only_a = sum(a[k] and not b[k] for k in keys)
    return {
        "trace": str(trace),
        "against": str(against),
        "episodes": len(keys),
        "successes": sum(b[k] for k in keys),
        "successes_against": sum(a[k] for k in keys),
        "only_trace": sorted(k[1] for k in keys if b[k] and not a[k]),
        "only_against": sorted(k[1] for k in keys if a[k] and not b[k]),
        "mcnemar_p": round(mcnemar_exact(only_b, only_a), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path, help="a trace file (miles eval ... --trace FILE)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--against", type=Path, default=None, metavar="TRACE",
                        help="pair with this trace of the same episodes (McNemar)")  # fmt: skip
    parser.add_argument("--episodes", type=int, default=None,
                        help="with --against: the first N episodes both finished")  # fmt: skip
    args = parser.parse_args(argv)
    if args.against is not None:
        print(json.dumps(paired(args.trace, args.against, args.episodes)))
        return 0
    report = summary(read_trace(args.trace))
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['successes']}/{report['episodes']} stacked")
    print(", ".join(f"{cause} {report['causes'][cause]}" for cause in CAUSES))
    errors = report["target_error_m_by_state"]
    print(
        "target's published error by state: "
        + "; ".join(
            f"{state} {e['share']:.0%}"
            + (f": {_mm(e['p50'])} / {_mm(e['p95'])} mm" if "p50" in e else "")
            for state, e in errors.items()
        )
    )
    held = report["held_error_m_in_hand"]
    if held is not None:
        print(
            f"carried cube's held error along the hand's axes ({held['periods']} periods), "
            "bias, |p50| / p95: "
            + "; ".join(
                f"{axis} {1000 * held[axis]['bias']:.1f}, {1000 * held[axis]['p50']:.1f} / "
                f"{1000 * held[axis]['p95']:.1f} mm"
                for axis in HAND_AXES
            )
        )
    print(
        "episode cause release target_moved_mm target_err_mm target_state target_age_s "
        "carried_err_mm carried_state placed_mm goal_drift_mm"
    )
    for f in report["failures"]:
        age = "-" if f["target_age_s"] is None else f"{f['target_age_s']:.2f}"
        print(
            f"{f['env']}:{f['episode']} {f['cause']} {f['release_step']} "
            f"{_mm(f['target_moved_m'])} {_mm(f['target_error_m'])} {f['target_state']} "
            f"{age} {_mm(f['carried_error_m'])} {f['carried_state']} "
            f"{_mm(f['placed_error_m'])} {_mm(f['goal_drift_m'])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
