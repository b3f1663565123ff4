"""A scripted expert's success on the episodes its student is judged on: the numba
command-path model of a training config's first stage, or PyBullet behind the safety
supervisor as ``miles eval --supervised`` runs a skill (targets shaped as skill_node sends
them, 4x the task's episode length).

    python bench/expert_eval.py turn [--supervised] [--episodes 200] [--seed 1000]
        [--envs 16] [--config config/train/turn.yaml]

Prints one JSON object: ``{"task", "where", "episodes", "seed", "success", "ci95",
"mean_length", "wall_s"}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def command_path_env(config: str, num_envs: int):
    """(the numba env, its task config) of ``config``'s first stage (its top-level env)."""
    import yaml

    from policies.ppo.config import TrainConfig
    from policies.ppo.envs import make_env, training_task_config

    data = yaml.safe_load(Path(config).read_text())
    cfg = TrainConfig.from_dict({"task": data["task"], "env": data.get("env", {})})
    task_cfg = training_task_config(cfg)
    return make_env(cfg, "numba", num_envs, task_cfg), task_cfg


def supervised_env(task: str, num_envs: int):
    """(the PyBullet env behind the supervisor, its task config), as ``miles eval
    --supervised`` builds it with its defaults."""
    import sims
    from miles_ros.runtime.supervised import supervised_env_kwargs

    kwargs = supervised_env_kwargs(task, num_envs)
    return sims.make_env(task, "pybullet", num_envs=num_envs, **kwargs), kwargs["config"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("task")
    p.add_argument("--supervised", action="store_true")
    p.add_argument("--config", default=None, help="default: config/train/TASK.yaml")
    p.add_argument("--episodes", type=int, default=200)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--envs", type=int, default=16)
    args = p.parse_args(argv)

    from policies.evaluation import run_episodes
    from policies.experts import get_expert

    if args.supervised:
        env, task_cfg = supervised_env(args.task, args.envs)
        where = "pybullet behind the safety supervisor"
    else:
        config = args.config or f"config/train/{args.task}.yaml"
        env, task_cfg = command_path_env(config, args.envs)
        where = f"numba command-path model ({config})"
    expert = get_expert(args.task)
    started = time.perf_counter()
    res = run_episodes(env, lambda obs: expert(obs, task_cfg), args.episodes, args.seed)
    env.close()
    print(
        json.dumps(
            {
                "task": args.task,
                "where": where,
                "episodes": res.episodes,
                "seed": args.seed,
                "success": res.success,
                "ci95": [round(v, 4) for v in res.ci95],
                "mean_length": round(res.mean_length, 1),
                "wall_s": round(time.perf_counter() - started, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
