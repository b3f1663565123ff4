"""How much a gripping skill leans on the finger opening its engine reports: pick_place
success in plain PyBullet while the reported opening of a held cube is shifted, against
the scripted expert on the same episodes in the same run.

    python bench/finger_reading.py [--skill pick_place] [--episodes 100] [--seed 1000]

Why: grippers and engines disagree on the opening of a held cube. Measured here with the
scripted expert, PyBullet's Panda reads a lifted 4 cm cube as 4.0-5.8 cm (5th-95th
percentile, median 4.8: its finger meshes, and a cube held turned between them), the numba
model always 4 cm (it squares the cube to its thin pads), and every gripper reads its full
opening when open. A policy that learned one engine's "holding" width fails on another's.
The physics stays PyBullet's; only the reading changes, by ``shift`` at a cube's edge
fading linearly to nothing at the open gripper:

    w' = w + shift * clip((OPEN - w) / (OPEN - EDGE), 0, 1)

(a reading re-map anchored at the nominal cube's edge; training randomizes the reading with
``randomization.finger_reading``, numba's fingers and PyBullet's own map, and
``miles eval --sweep finger_reading`` measures a skill under it). The episodes are the
card's envelope, as ``miles eval``.

Prints one JSON object::

    {"skill": ..., "episodes": 100, "seed": 1000, "shifts": [-0.01, 0.0, 0.01],
     "skill_success": {"-0.01": s, ...}, "expert_success": {"-0.01": s, ...}, "wall_s": ...}
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sims  # noqa: E402
from policies.commands.evaluate import episode_config, load_any_policy  # noqa: E402
from policies.evaluation import run_episodes  # noqa: E402
from policies.experts import get_expert  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.tasks import pick_place  # noqa: E402

OPEN = panda.gripper_width_max
EDGE = pick_place.CUBE_SIZE


class ReadingShift:
    """A batched env whose observations report the finger opening shifted by ``shift`` (m)
    at a cube's edge, fading to nothing at the open gripper (module docstring)."""

    def __init__(self, env, column: int, shift: float):
        self.env, self.column, self.shift = env, column, float(shift)
        self.num_envs, self.cfg = env.num_envs, env.cfg
        self.backend_name = env.backend_name

    def _remap(self, obs):
        obs = np.array(obs, copy=True)
        w = obs[:, self.column].astype(np.float64)
        ramp = np.clip((OPEN - w) / (OPEN - EDGE), 0.0, 1.0)
        obs[:, self.column] = w + self.shift * ramp
        return obs

    def reset(self, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._remap(obs), info

    def step(self, actions):
        obs, reward, terminated, truncated, info = self.env.step(actions)
        return self._remap(obs), reward, terminated, truncated, info

    def close(self):
        self.env.close()


def success(task, policy, config, column, shift, episodes, seed) -> float:
    env = sims.make_env(task, "pybullet", num_envs=1, config=config)
    try:
        return run_episodes(ReadingShift(env, column, shift), policy, episodes, seed).success
    finally:
        env.close()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--skill", default="pick_place", help="a shipped skill or skill folder")
    p.add_argument("--episodes", type=int, default=100)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--shifts", type=float, nargs="+", default=[-0.01, 0.0, 0.01])
    args = p.parse_args(argv)
    start = time.perf_counter()
    task, policy, _ = load_any_policy(args.skill, None)
    column = sims.get_task(task).LAYOUT.slices.get("finger_width")
    if column is None:
        p.error(f"{task} has no finger opening in its observation")
    config, _ = episode_config(args.skill, task)
    task_cfg = config or sims.get_task(task).CONFIG
    expert = get_expert(task)

    def expert_policy(obs):
        return expert(obs, task_cfg)

    result = {"skill": args.skill, "episodes": args.episodes, "seed": args.seed}
    result["shifts"] = args.shifts
    for name, fn in (("skill_success", policy), ("expert_success", expert_policy)):
        result[name] = {
            f"{d:g}": success(task, fn, config, column.start, d, args.episodes, args.seed)
            for d in args.shifts
        }
    result["wall_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
