"""The cost of the arm's command-path model in the numba backend: env-steps per CPU
second with the model off and on, same tasks, same batch, one run.

    NUMBA_NUM_THREADS=1 python bench/actuator.py [--num-envs 4096] [--steps 100]

Prints one JSON object::

    {"off": {task: sps}, "on": {task: sps}, "ratio": {task: on / off},
     "num_envs": 4096, "steps": 100, "threads": 1}

(sps = env-steps per CPU second: ``time.process_time`` over ``env.step`` only, random
actions, autoreset on; construction and 5 warm-up steps, which compile, are not timed.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sims import make_env  # noqa: E402


def steps_per_cpu_second(task: str, num_envs: int, steps: int, actuator: str) -> float:
    env = make_env(task, "numba", num_envs, seed=0, actuator=actuator)
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1.0, 1.0, (8, num_envs, env.action_dim))
    for t in range(5):
        env.step(actions[t % 8])
    spent = 0.0
    for t in range(steps):
        start = time.process_time()
        env.step(actions[t % 8])
        spent += time.process_time() - start
    return steps * num_envs / spent


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--tasks", nargs="+", default=["reach", "push"])
    args = p.parse_args(argv)
    result: dict = {"off": {}, "on": {}, "ratio": {}}
    for task in args.tasks:
        result["off"][task] = steps_per_cpu_second(task, args.num_envs, args.steps, "none")
        result["on"][task] = steps_per_cpu_second(task, args.num_envs, args.steps, "panda")
        result["ratio"][task] = result["on"][task] / result["off"][task]
    result.update(num_envs=args.num_envs, steps=args.steps, threads=numba.get_num_threads())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
