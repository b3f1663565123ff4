"""Isaac (Newton) throughput beside numba and PyBullet, same tasks, same batch, one run.

    .venv-isaac/bin/python bench/isaac.py --json [--num-envs 64] [--cuda-envs 4096]

Prints one JSON object::

    {"isaac": {"cpu": {task: sps}, "cuda": {task: sps} | null},
     "numba": {task: sps}, "pybullet": {task: sps} | null,
     "num_envs": 64, "cuda_envs": 4096 | null, "steps": .., "errors": {...}, "config": {...}}

(sps = env-steps per second: control steps of the batch times num_envs, per second,
random actions, autoreset on; environment construction and the first ``--warmup``
steps, which include Warp's kernel compilation or loading, are not timed.)

- isaac: ``make_env(task, "isaac", num_envs, device=...)``, 4 ms physics, 10 physics
  steps per control step; ``cuda`` only where Warp sees a CUDA device (with
  ``--cuda-envs`` envs), else null.
- numba: ``make_env(task, "numba", num_envs)`` in this process (.venv-isaac has numba).
- pybullet: pybullet has no wheel for Python 3.12, so it runs in the plain ``.venv``'s
  Python (``--plain-python``, default ``.venv/bin/python``) as a subprocess, with
  ``num_envs`` envs in its subprocess workers; null (reason in ``errors``) without it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sims import TASKS, make_env  # noqa: E402


def rate(backend: str, task: str, num_envs: int, steps: int, warmup: int, **options) -> float:
    """Env-steps per second of ``steps`` random-action steps after ``warmup`` steps."""
    env = make_env(task, backend, num_envs, seed=0, **options)
    try:
        rng = np.random.default_rng(0)
        actions = rng.uniform(-1, 1, size=(warmup + steps, num_envs, env.action_dim))
        for a in actions[:warmup]:
            env.step(a)
        start = time.perf_counter()
        for a in actions[warmup:]:
            env.step(a)
        return round(steps * num_envs / (time.perf_counter() - start), 1)
    finally:
        env.close()


def cuda_available() -> bool:
    import warp as wp

    wp.init()
    return wp.get_cuda_device_count() > 0


def bench_pybullet(python: str, num_envs: int, steps: int, warmup: int) -> dict:
    """The PyBullet rates, measured by the plain venv's Python (this module, --pybullet)."""
    cmd = [python, __file__, "--pybullet-only", "--num-envs", str(num_envs)]
    cmd += ["--steps", str(steps), "--warmup", str(warmup)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--cuda-envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--plain-python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--pybullet-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    n, steps, warmup = args.num_envs, args.steps, args.warmup
    if args.pybullet_only:
        print(json.dumps({t: rate("pybullet", t, n, steps, warmup) for t in args.tasks}))
        return 0

    result: dict = {"isaac": {"cpu": {}, "cuda": None}, "numba": {}, "pybullet": None}
    errors: dict = {}
    for task in args.tasks:
        result["isaac"]["cpu"][task] = rate("isaac", task, n, steps, warmup, device="cpu")
        result["numba"][task] = rate("numba", task, n, steps, warmup)
    if cuda_available():
        result["isaac"]["cuda"] = {
            t: rate("isaac", t, args.cuda_envs, steps, warmup, device="cuda:0") for t in args.tasks
        }
    else:
        errors["cuda"] = "Warp sees no CUDA device"
    try:
        result["pybullet"] = bench_pybullet(args.plain_python, n, steps, warmup)
    except (OSError, subprocess.CalledProcessError) as exc:
        stderr = getattr(exc, "stderr", "") or ""
        errors["pybullet"] = f"{exc}: {stderr.strip()[-300:]}"
    result.update(
        num_envs=n,
        cuda_envs=args.cuda_envs if result["isaac"]["cuda"] else None,
        steps=steps,
        errors=errors,
        config={"physics_dt": 0.004, "substeps": 10, "control_dt": 0.04, "cpus": os.cpu_count()},
    )
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
