"""Two skills on the same seeded episodes, paired: each one's success and the exact
McNemar test on the episodes only one of them succeeded in (two-sided binomial with p 1/2
on the discordant pairs), as ``miles eval`` runs them (``--supervised``: behind the safety
supervisor).

    python bench/paired_eval.py SKILL_A SKILL_B [--supervised] [--episodes 200]
        [--seed 1000] [--num-envs 1] [--backend pybullet]

SKILL_A/B: whatever ``miles eval`` takes (a skill directory, a run, a checkpoint). Prints
one JSON object: ``{"a", "b", "episodes", "seed", "supervised", "successes_a",
"successes_b", "only_a", "only_b", "mcnemar_p", "wall_s"}``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p: twice the binomial(n, 1/2) tail of the rarer discordant
    count (n = ``only_a + only_b``), at most 1; 1 where no pair is discordant."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def per_episode(skill: str, args) -> list[bool]:
    """``skill``'s per-episode success, as ``miles eval`` runs it with ``args``'s options."""
    from miles_ros.commands import evaluate as ev
    from policies.commands import evaluate as base

    argv = [skill, "--episodes", str(args.episodes), "--seed", str(args.seed)]
    argv += ["--num-envs", str(args.num_envs), "--backend", args.backend]
    argv += ["--supervised"] if args.supervised else []
    got: list[list[bool]] = []
    rc = base.main(
        argv,
        "paired_eval",
        parser=ev.build_parser("paired_eval"),
        env_options=ev._env_options,
        on_result=lambda _a, _t, result, _e: got.append(list(result.per_episode_success)),
    )
    if rc != 0 or not got:
        raise SystemExit(f"paired_eval: evaluating {skill} failed ({rc})")
    return got[0]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--episodes", type=int, default=200)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--num-envs", type=int, default=1)
    p.add_argument("--backend", default="pybullet")
    p.add_argument("--supervised", action="store_true")
    args = p.parse_args(argv)
    started = time.perf_counter()
    a, b = per_episode(args.a, args), per_episode(args.b, args)
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    out = {
        "a": args.a,
        "b": args.b,
        "episodes": len(a),
        "seed": args.seed,
        "supervised": args.supervised,
        "successes_a": sum(a),
        "successes_b": sum(b),
        "only_a": only_a,
        "only_b": only_b,
        "mcnemar_p": round(mcnemar_exact(only_a, only_b), 4),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
