"""The options of ``miles train`` (:func:`build_parser`) and how they override a training
config (:func:`apply_overrides`); :mod:`policies.commands.train` runs them."""

from __future__ import annotations

import argparse


def build_parser(prog: str = "miles train") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Train a skill with PPO. Progress bar, TensorBoard (RUN_DIR/tb), "
        "checkpoints (RUN_DIR/checkpoints), periodic PyBullet evaluation.",
    )
    p.add_argument("task", nargs="?", help="reach, push or pick_place (omit with --resume)")
    p.add_argument(
        "--backend",
        choices=["numba", "pybullet", "isaac"],
        default=None,
        help="training backend (default numba)",
    )
    p.add_argument("--num-envs", type=int, default=None, help="parallel envs (task default)")
    p.add_argument("--seed", type=int, default=None, help="seed (default 0)")
    p.add_argument("--steps", type=int, default=None, help="budget in env steps")
    p.add_argument("--out", default=None, help="run directory (default runs/TASK-<timestamp>)")
    p.add_argument(
        "--resume",
        metavar="DIR",
        default=None,
        help="continue the run in DIR from its latest checkpoint",
    )
    p.add_argument(
        "--init-from",
        metavar="RUN_OR_CKPT",
        default=None,
        help="start from another run's weights and normalizer (its best checkpoint), e.g. "
        "to fine-tune in PyBullet a policy trained on numba; counters start at 0",
    )
    p.add_argument(
        "--config",
        metavar="YAML",
        default=None,
        help="a config.yaml (e.g. from an earlier run) to start from",
    )
    p.add_argument("--rollout-steps", type=int, default=None, help="steps per env per update")
    p.add_argument("--lr", type=float, default=None, help="learning rate")
    p.add_argument("--checkpoint-every", type=int, default=None, help="updates per checkpoint")
    p.add_argument(
        "--eval-every",
        type=int,
        default=None,
        help="updates between PyBullet evaluations (0: none)",
    )
    p.add_argument("--eval-episodes", type=int, default=None, help="episodes per evaluation")
    p.add_argument(
        "--final-eval-episodes",
        type=int,
        default=None,
        help="episodes of the final evaluation (0: skip)",
    )
    p.add_argument("--eval-backend", default=None, help="evaluation backend (default pybullet)")
    p.add_argument(
        "--target-success",
        type=float,
        default=None,
        help="physics success rate that counts as solved",
    )
    p.add_argument(
        "--stop-at-target",
        action="store_true",
        help="stop as soon as a physics evaluation reaches --target-success",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="stop after S seconds of training (evaluations included)",
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
    rc = cfg.runner
    pairs = [
        ("backend", cfg, "backend"),
        ("seed", cfg, "seed"),
        ("num_envs", rc, "num_envs"),
        ("steps", rc, "total_steps"),
        ("rollout_steps", rc, "rollout_steps"),
        ("checkpoint_every", rc, "checkpoint_every"),
        ("eval_every", rc, "eval_every"),
        ("eval_episodes", rc, "eval_episodes"),
        ("final_eval_episodes", rc, "final_eval_episodes"),
        ("eval_backend", rc, "eval_backend"),
        ("target_success", rc, "target_success"),
        ("lr", cfg.ppo, "learning_rate"),
        ("time_limit", rc, "time_limit_s"),
    ]
    for arg, obj, attr in pairs:
        value = getattr(args, arg)
        if value is not None:
            setattr(obj, attr, value)
    if args.stop_at_target:
        rc.stop_at_target = True
    if args.no_progress:
        rc.progress = False
    if args.no_tensorboard:
        rc.tensorboard = False
