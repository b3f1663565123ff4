"""The options of ``miles train`` (:func:`build_parser`) and how they override a training
config (:func:`apply_overrides`); :mod:`policies.commands.train` runs them."""

from __future__ import annotations

import argparse
import functools

from sims.tasks.registry import BUILTIN_TASKS

CONFIG_OPTIONS: tuple[tuple[str, str, dict], ...] = (
    (
        "--backend",
        "backend",
        {"choices": ["numba", "pybullet", "isaac"], "help": "training backend (default numba)"},
    ),
    ("--num-envs", "runner.num_envs", {"type": int, "help": "parallel envs (task default)"}),
    ("--seed", "seed", {"type": int, "help": "seed (default 0)"}),
    ("--steps", "runner.total_steps", {"type": int, "help": "budget in env steps"}),
    ("--rollout-steps", "runner.rollout_steps", {"type": int, "help": "steps per env per update"}),
    ("--lr", "ppo.learning_rate", {"type": float, "help": "learning rate"}),
    (
        "--checkpoint-every",
        "runner.checkpoint_every",
        {"type": int, "help": "updates per checkpoint"},
    ),
    (
        "--eval-every",
        "runner.eval_every",
        {
            "type": int,
            "help": "updates between periodic physics evaluations (0: none; a training "
            "success at the target still triggers one, --eval-episodes 0 skips those too)",
        },
    ),
    ("--eval-episodes", "runner.eval_episodes", {"type": int, "help": "episodes per evaluation"}),
    (
        "--final-eval-episodes",
        "runner.final_eval_episodes",
        {"type": int, "help": "episodes of the final evaluation (0: skip)"},
    ),
    ("--eval-backend", "runner.eval_backend", {"help": "evaluation backend (default pybullet)"}),
    (
        "--target-success",
        "runner.target_success",
        {"type": float, "help": "physics success rate that counts as solved"},
    ),
    (
        "--time-limit",
        "runner.time_limit_s",
        {
            "type": float,
            "metavar": "S",
            "help": "stop after S seconds of training (evaluations included)",
        },
    ),
)
"""The options that set one key of the training config: (option, key under the config
as ``section.attr``, argparse keywords); the one table :func:`build_parser` and
:func:`apply_overrides` read."""


def build_parser(prog: str = "miles train") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Train a skill with PPO. Progress bar, TensorBoard (RUN_DIR/tb), "
        "checkpoints (RUN_DIR/checkpoints), periodic PyBullet evaluation.",
    )
    p.add_argument("task", nargs="?", help=f"{', '.join(BUILTIN_TASKS)} (omit with --resume)")
    p.add_argument("--out", default=None, help="run directory (default runs/TASK-<timestamp>)")
    p.add_argument(
        "--resume",
        metavar="DIR",
        default=None,
        help="continue the run in DIR from its latest checkpoint",
    )
    p.add_argument(
        "--init-from",
        metavar="RUN_CKPT_OR_SKILL",
        default=None,
        help="start from another run's weights and normalizer (its best checkpoint), or an "
        "exported skill's (a version's directory; give --config), e.g. "
        "to fine-tune in PyBullet a policy trained on numba; counters start at 0",
    )
    p.add_argument(
        "--config",
        metavar="YAML",
        default=None,
        help="a config.yaml (e.g. from an earlier run) to start from",
    )
    config = p.add_argument_group("training config (unset: the task's or --config's value)")
    for option, _, kwargs in CONFIG_OPTIONS:
        config.add_argument(option, default=None, **kwargs)
    config.add_argument(
        "--stop-at-target",
        action="store_true",
        help="stop as soon as a physics evaluation reaches --target-success",
    )
    p.add_argument(
        "--device",
        default="cpu",
        help="where the policy and the PPO update run: cpu (default), cuda or cuda:N "
        "(with --distributed, cuda means each rank's cuda:LOCAL_RANK)",
    )
    p.add_argument(
        "--env-device",
        default=None,
        metavar="DEVICE",
        help="where the training envs step: cpu, cuda or cuda:N (default: --device for the "
        "numba and isaac backends, cpu for pybullet). numba on cuda keeps the env state and "
        "its tensors on the GPU; --device cpu --env-device cuda under NUMBA_ENABLE_CUDASIM=1 "
        "runs that code path in numba's CUDA simulator (tests)",
    )
    p.add_argument(
        "--distributed",
        action="store_true",
        help="one rank of a torchrun job (python -m torch.distributed.run ...): gloo on cpu, "
        "NCCL on cuda; --num-envs is the total over all ranks",
    )
    p.add_argument(
        "--nproc",
        type=int,
        default=None,
        metavar="N",
        help="train on N local processes: starts torchrun with this command and --distributed",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard logs")
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return p


def apply_overrides(cfg, args) -> None:
    """Set the config keys the options name (left as they are where an option is unset)."""
    for option, key, _ in CONFIG_OPTIONS:
        value = getattr(args, option.removeprefix("--").replace("-", "_"))
        if value is not None:
            *sections, attr = key.split(".")
            setattr(functools.reduce(getattr, sections, cfg), attr, value)
    rc = cfg.runner
    if args.stop_at_target:
        rc.stop_at_target = True
    if args.no_progress:
        rc.progress = False
    if args.no_tensorboard:
        rc.tensorboard = False
