"""How training scales over processes, and over a GPU where one is present.

Prints one JSON object::

    {"task", "ranks": {"1": {"env_steps_per_s", "wall_to_target_s", ...}, "2": {...}},
     "efficiency_2", "cuda": {"reach", "push", "pick_place", "train": {...}} | null,
     "eval_backend", "cores", "note"}

- ranks: ``miles train TASK --stop-at-target`` with the task defaults (``--num-envs``, the
  total, split over the ranks), on 1 process (plain, no torchrun) and under ``--nproc R``
  for each other R of ``--ranks``. ``env_steps_per_s``: training env steps per second of
  training (rollouts and updates, the evaluations left out);
  ``wall_to_target_s``: training wall time (evaluations included) to the first
  evaluation at the task's target, null when the budget ran out first.
- ``efficiency_R`` = sps(R) / (R * sps(1)): 1.0 is linear scaling. The peers run one
  after the other in this process's run, on the same machine.
- cuda: ``bench/cuda_sps.py``'s ``measure(task, num_envs, steps)`` (numba CUDA env-steps/s,
  None without a GPU) for each task, and ``train``: the same ``miles train`` on one process
  with ``--device cuda`` (numba envs, rollouts and update on the GPU), the peer of
  ``ranks["1"]``; null without a GPU.
- ``--eval-backend``: where the evaluations that decide "at target" run (default pybullet;
  numba where PyBullet is not installed, e.g. a Python without its wheel).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TASKS = ("reach", "push", "pick_place")


def train(
    task: str,
    ranks: int,
    out: Path,
    steps: int | None,
    eval_backend: str = "pybullet",
    device: str = "cpu",
) -> dict:
    """One ``miles train`` to the target; its summary's numbers."""
    cmd = [sys.executable, "-m", "miles_ros.cli", "train", task, "--stop-at-target"]
    cmd += ["--no-progress", "--no-tensorboard", "--json", "--out", str(out)]
    cmd += ["--final-eval-episodes", "0", "--eval-backend", eval_backend, "--device", device]
    if steps:
        cmd += ["--steps", str(steps)]
    if ranks > 1:
        cmd += ["--nproc", str(ranks)]
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("GLOO_SOCKET_IFNAME", "lo")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    timing = summary["timing_s"]
    train_s = max(1e-9, summary["wall_time_s"] - timing["eval_s"])
    solved = summary["solved"]
    return {
        "env_steps_per_s": round(summary["env_steps"] / train_s, 1),
        "wall_to_target_s": solved["wall_time_s"] if solved else None,
        "env_steps_to_target": solved["env_steps"] if solved else None,
        "env_steps": summary["env_steps"],
        "num_envs": summary["num_envs"],
        "update_s": timing["update_s"],
        "env_s": timing["env_s"],
    }


def cuda_numbers(num_envs: int, steps: int) -> dict | None:
    """numba CUDA env-steps/s per task from bench/cuda_sps.py, or None (no GPU)."""
    spec = importlib.util.spec_from_file_location("cuda_sps", REPO / "bench" / "cuda_sps.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    numbers = {task: module.measure(task, num_envs, steps) for task in TASKS}
    if all(v is None for v in numbers.values()):
        return None
    return numbers


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--task", default="reach", choices=TASKS)
    p.add_argument("--ranks", default="1,2", help="comma-separated rank counts (1 first)")
    p.add_argument("--steps", type=int, default=None, help="budget cap (task default)")
    p.add_argument("--cuda-envs", type=int, default=65536)
    p.add_argument("--cuda-steps", type=int, default=200)
    p.add_argument("--eval-backend", default="pybullet", choices=("pybullet", "numba"))
    p.add_argument("--json", action="store_true", help="print the JSON object only")
    args = p.parse_args()
    counts = sorted({int(r) for r in args.ranks.split(",")} | {1})
    result: dict = {"task": args.task, "ranks": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in counts:
            result["ranks"][str(ranks)] = train(
                args.task, ranks, Path(tmp, f"r{ranks}"), args.steps, args.eval_backend
            )
            if not args.json:
                print(ranks, result["ranks"][str(ranks)], file=sys.stderr)
        result["cuda"] = cuda_numbers(args.cuda_envs, args.cuda_steps)
        if result["cuda"] is not None:
            result["cuda"]["train"] = train(
                args.task, 1, Path(tmp, "cuda"), args.steps, args.eval_backend, device="cuda"
            )
    base = result["ranks"]["1"]["env_steps_per_s"]
    for ranks in counts[1:]:
        sps = result["ranks"][str(ranks)]["env_steps_per_s"]
        result[f"efficiency_{ranks}"] = round(sps / (ranks * base), 3)
    result["eval_backend"] = args.eval_backend
    cores = os.cpu_count() or 1
    result["cores"] = cores
    result["note"] = (
        f"{cores} cores: ranks compete for the same cores"
        if cores <= max(counts)
        else f"{cores} cores, one rank per core"
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
