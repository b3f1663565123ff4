"""The numba CPU step kernel alone, this tree against git revisions, back to back.

    .venv/bin/python bench/step_kernel.py --rev 74796b4 [--rev main] [--rounds 6]
        [--calls 300] [--num-envs 4096] [--tasks reach push pick_place] [--cold]


Prints one JSON object::

    {"trees": {label: path}, "num_envs": n, "calls": c, "rounds": r,
     "ns_per_env_step": {label: {task: best ns}},
     "cold_compile_s": {label: {task: s}} (with --cold),
     "config": {...}}

Each revision is checked out into a temporary git worktree (removed at the end); label
``this`` is the working tree of this script. Every measurement runs in a fresh Python
process with the tree's root first on ``sys.path``:

- ns_per_env_step: a joint-mode env (the task's own action mode) of ``n`` envs, one
  thread (``numba.set_num_threads(1)``), random actions in [-1, 1]; the kernel's arguments
  are captured from one ``env.step`` and the kernel is then called ``c`` times with them
  (no finite check, no output allocation); the best call over all rounds, divided by
  ``n``. The trees alternate within each round (A B A B ...), so a load on the machine
  hits them alike; the kernel cache of each tree is warmed first.
- cold_compile_s: construction and the first step of one task's env with an empty
  ``NUMBA_CACHE_DIR``, one process per task and tree (alternated too).

No instruction counts: ``perf stat -e instructions`` is not supported on the development
machine, and callgrind needs over 10 minutes for one process importing numba.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import json, sys, time
import numba
import numpy as np

numba.set_num_threads(1)
from sims.backends import numba_backend
from sims.kernels import step as kernels_module
import importlib

task, n, calls, timed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
t0 = time.perf_counter()
env = numba_backend.NumbaEnv(importlib.import_module(f"sims.tasks.{task}"), n)
holder = getattr(env, "_kernels", kernels_module)  # per task now, one module before
kernel = holder.step_kernel
captured = []

def recorder(*args):
    captured.append(args)
    return kernel(*args)

holder.step_kernel = recorder
rng = np.random.default_rng(0)
actions = rng.uniform(-1.0, 1.0, size=(n, env.action_dim))
env.reset(seed=1)
env.step(actions)
compile_s = time.perf_counter() - t0
args = captured[0]
best = float("inf")
for _ in range(calls):
    t = time.perf_counter_ns()
    kernel(*args)
    best = min(best, time.perf_counter_ns() - t)
print(json.dumps({"compile_s": compile_s, "ns": best / n if timed and calls else None}))
"""


def run_worker(tree: Path, cache: Path, task: str, n: int, calls: int, timed: bool):
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache))
    cmd = [sys.executable, "-c", WORKER, task, str(n), str(calls), "1" if timed else "0"]
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{tree} {task}: {proc.stderr[-3000:]}")
    return proc


def worker_json(proc) -> dict:
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", action="append", default=[], help="git revision to compare")
    ap.add_argument("--tasks", nargs="+", default=["reach", "push", "pick_place"])
    ap.add_argument("--num-envs", type=int, default=4096)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--cold", action="store_true", help="cold compile seconds per task")
    ap.add_argument(
        "--work-dir", type=Path, help="keep worktrees and warm caches here (reused next run)"
    )
    args = ap.parse_args()

    keep = args.work_dir is not None
    tmp = args.work_dir if keep else Path(tempfile.mkdtemp(prefix="step_kernel_bench."))
    tmp.mkdir(parents=True, exist_ok=True)
    trees = {"this": ROOT}
    added = []
    try:
        for rev in args.rev:
            path = tmp / f"rev_{re.sub(r'[^A-Za-z0-9_.-]', '_', rev)}"
            if keep and path.exists():
                trees[rev] = path
                continue
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(path), rev],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            added.append(path)
            trees[rev] = path
        caches = {label: tmp / f"cache_{i}" for i, label in enumerate(trees)}
        result = {
            "trees": {label: str(path) for label, path in trees.items()},
            "num_envs": args.num_envs,
            "calls": args.calls,
            "rounds": args.rounds,
        }
        for label, path in trees.items():  # warm each tree's kernel cache
            for task in args.tasks:
                run_worker(path, caches[label], task, 64, 0, False)
        ns = {label: {task: float("inf") for task in args.tasks} for label in trees}
        for _ in range(args.rounds):
            for task in args.tasks:
                for label, path in trees.items():
                    got = worker_json(
                        run_worker(path, caches[label], task, args.num_envs, args.calls, True)
                    )
                    ns[label][task] = min(ns[label][task], got["ns"])
        result["ns_per_env_step"] = {
            label: {t: round(v, 1) for t, v in per.items()} for label, per in ns.items()
        }
        if args.cold:
            cold = {label: {} for label in trees}
            for task in args.tasks:
                for label, path in trees.items():
                    fresh = Path(tempfile.mkdtemp(dir=tmp, prefix="cold_"))
                    got = worker_json(run_worker(path, fresh, task, 64, 0, False))
                    cold[label][task] = round(got["compile_s"], 1)
                    shutil.rmtree(fresh, ignore_errors=True)
            result["cold_compile_s"] = cold
        result["config"] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
        print(json.dumps(result))
    finally:
        if not keep:
            for path in added:
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(path)],
                    cwd=ROOT,
                    capture_output=True,
                )
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
