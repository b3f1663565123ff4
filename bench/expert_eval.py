"""A scripted expert's success on the episodes its student is judged on: the numba
command-path model of a training config's first stage, or PyBullet behind the safety
supervisor as ``miles eval --supervised`` runs a skill (targets shaped as skill_node sends
them, 4x the task's episode length).

    python bench/expert_eval.py turn [--supervised] [--episodes 200] [--seed 1000]
        [--envs 16] [--config config/train/turn.yaml] [--pose-error camera [--privileged]]
        [--variant tower] [--setting orbit_margin=0.01] [--episode-scale 1.0]

``--variant`` runs only that episode variant of the task (pick_place's ``stack``,
``tower``: PyBullet, so with ``--supervised``), as ``miles eval --variant`` does.

With ``--pose-error PRESET`` the envs observe the cube through that error model
(:data:`sims.tasks.base.POSE_ERROR_PRESETS`): the expert acts on the erred pose, or with
``--privileged`` on the envs' privileged observation (the true pose), as DAgger's expert
labels under ``env.pose_error``; the peer of one is the other, on the same episodes.

``--episode-scale`` sets the command-path model's episode length as a multiple of the
task's (1.0: the task's own, which ``miles eval`` runs) over the config's.

The expert runs with the config's ``imitation.expert_settings`` (``--config``; its top level,
the first stage's), each ``--setting NAME=VALUE`` over them (turn: ``orbit_margin``, m).

Prints one JSON object: ``{"task", "where", "episodes", "seed", "success", "ci95",
"mean_length", "wall_s"}`` (and ``variant``, ``pose_error``, ``expert_sees``,
``expert_settings``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def command_path_env(
    config: str, num_envs: int, pose_error: str | None = None, episode_scale: float | None = None
):
    """(the numba env, its task config) of ``config``'s first stage (its top-level env),
    observing the cube through the ``pose_error`` preset if one is given, its episodes
    ``episode_scale`` times the task's if given (else the config's)."""
    import yaml

    from policies.ppo.config import TrainConfig
    from policies.ppo.envs import make_env, training_task_config

    data = yaml.safe_load(Path(config).read_text())
    env = dict(data.get("env", {}), **({"pose_error": pose_error} if pose_error else {}))
    if episode_scale is not None:
        env["episode_scale"] = episode_scale
    cfg = TrainConfig.from_dict({"task": data["task"], "env": env})
    task_cfg = training_task_config(cfg)
    return make_env(cfg, "numba", num_envs, task_cfg), task_cfg


def supervised_env(
    task: str, num_envs: int, pose_error: str | None = None, variant: str | None = None
):
    """(the PyBullet env behind the supervisor, its task config), as ``miles eval
    --supervised [--pose-error PRESET] [--variant VARIANT]`` builds it with its defaults."""
    import sims
    from miles_ros.runtime.supervised import supervised_env_kwargs
    from policies.commands.evaluate import with_pose_error
    from policies.evaluation import variant_config

    kwargs = supervised_env_kwargs(task, num_envs)
    if variant:
        kwargs["config"] = variant_config(task, variant, kwargs["config"])
    if pose_error:
        kwargs["config"] = with_pose_error(kwargs["config"], task, pose_error)
    return sims.make_env(task, "pybullet", num_envs=num_envs, **kwargs), kwargs["config"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("task")
    p.add_argument("--supervised", action="store_true")
    p.add_argument("--config", default=None, help="default: config/train/TASK.yaml")
    p.add_argument("--episodes", type=int, default=200)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--envs", type=int, default=16)
    p.add_argument("--pose-error", default=None, help="observe the cube through this preset")
    p.add_argument("--privileged", action="store_true", help="the expert sees the true pose")
    p.add_argument("--variant", default=None, help="only this episode variant (--supervised)")
    p.add_argument("--episode-scale", type=float, default=None, help="command-path episodes")
    p.add_argument(
        "--setting", action="append", default=[], metavar="NAME=VALUE", help="expert setting"
    )
    args = p.parse_args(argv)
    if args.privileged and not args.pose_error:
        p.error("--privileged goes with --pose-error")
    if args.variant and not args.supervised:
        p.error("--variant runs behind the supervisor (PyBullet): add --supervised")

    import yaml

    from policies.evaluation import run_episodes
    from policies.experts import expert_settings, get_expert

    config = args.config or f"config/train/{args.task}.yaml"
    settings = dict(
        (yaml.safe_load(Path(config).read_text()).get("imitation") or {}).get("expert_settings")
        or {}
    )
    for item in args.setting:
        name, sep, value = item.partition("=")
        if not sep:
            p.error(f"--setting takes NAME=VALUE, got {item!r}")
        settings[name] = value
    try:
        settings = expert_settings(args.task, settings)
    except ValueError as exc:
        p.error(str(exc))

    if args.supervised:
        try:
            env, task_cfg = supervised_env(args.task, args.envs, args.pose_error, args.variant)
        except ValueError as exc:
            p.error(str(exc))
        where = "pybullet behind the safety supervisor"
    else:
        env, task_cfg = command_path_env(config, args.envs, args.pose_error, args.episode_scale)
        where = f"numba command-path model ({config})"
    expert = get_expert(args.task, settings)

    def act(obs):
        seen = env.privileged_observation() if args.privileged else obs
        return expert(seen, task_cfg)

    started = time.perf_counter()
    res = run_episodes(env, act, args.episodes, args.seed)
    env.close()
    out = {
        "task": args.task,
        "where": where,
        "episodes": res.episodes,
        "seed": args.seed,
        "success": res.success,
        "ci95": [round(v, 4) for v in res.ci95],
        "mean_length": round(res.mean_length, 1),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if settings:
        out["expert_settings"] = settings
    if args.episode_scale is not None and not args.supervised:
        out["episode_scale"] = args.episode_scale
    if args.variant:
        out["variant"] = args.variant
    if args.pose_error:
        out.update(
            pose_error=args.pose_error,
            expert_sees="true pose" if args.privileged else "erred pose",
        )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
