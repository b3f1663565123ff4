"""``miles train TASK``: PPO on a simulator backend, evaluated in PyBullet physics; on
several processes under torchrun (``--distributed``, or ``--nproc N`` which starts torchrun
itself; :mod:`policies.ppo.distributed`), the torch side on ``--device``, the envs on
``--env-device`` (default ``--device`` for numba and isaac: ``--device cuda`` with numba
keeps env state, rollouts and the update on the GPU)."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from policies.commands.train_args import apply_overrides, build_parser

if TYPE_CHECKING:
    from policies.ppo.envs import MotorFilterFactory

__all__ = ["ENTRY", "build_parser", "main"]


ENTRY = ["-m", "policies.commands.train"]
"""How ``--nproc`` starts this command again under torchrun (``python ENTRY ARGS``)."""


def main(
    argv: list[str] | None = None,
    prog: str = "miles train",
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
    entry: list[str] | None = None,
) -> int:
    """``motor_filters``: the factories of the motor filters a config may name in
    ``env.motor_filter`` (:mod:`policies.ppo.envs`), injected by the layer that owns them
    (miles_ros's ``miles train`` adds the safety supervisor's). ``entry``: how ``--nproc``
    runs this command again under torchrun (default :data:`ENTRY`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(prog).parse_args(argv)
    from policies.commands._common import setup_logging

    setup_logging(args.verbose)
    from policies.ppo.distributed import launch_error

    error = launch_error(args.nproc, args.distributed, args.device, prog)
    if error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    import sims
    from policies.ppo.config import TrainConfig, default_train_config
    from policies.ppo.runner import latest_checkpoint
    from policies.provenance import add_resume, command_line, new_run_meta

    command = command_line(argv, prog)
    from policies.commands.train_staged import staged_main  # a config with `stages:`

    staged = staged_main(args, prog, command, motor_filters)
    if staged is not None:
        return staged
    checkpoint = None
    init_data = None
    if args.resume:
        run_dir = Path(args.resume)
        checkpoint = latest_checkpoint(run_dir)
        if checkpoint is None or not (run_dir / "config.yaml").exists():
            print(
                f"{prog}: nothing to resume in {run_dir} (no config.yaml or checkpoint)",
                file=sys.stderr,
            )
            return 2
        cfg = TrainConfig.from_dict(yaml.safe_load((run_dir / "config.yaml").read_text()))
        if args.task and args.task != cfg.task:
            print(f"{prog}: {run_dir} trains {cfg.task!r}, not {args.task!r}", file=sys.stderr)
            return 2
        meta = (
            yaml.safe_load((run_dir / "meta.yaml").read_text())
            if (run_dir / "meta.yaml").exists()
            else {}
        )
        meta = add_resume(meta, command)
    else:
        if not args.task:
            print(
                f"{prog}: give a TASK ({', '.join(sims.TASKS)}) or --resume DIR", file=sys.stderr
            )
            return 2
        if args.task not in sims.TASKS:
            print(
                f"{prog}: unknown task {args.task!r}; choose one of {', '.join(sims.TASKS)}",
                file=sys.stderr,
            )
            return 2
        if args.init_from:
            init_data = _init_data(Path(args.init_from))
            if init_data["task"] != args.task:
                print(
                    f"{prog}: {init_data['init_ckpt']} is a {init_data['task']} policy",
                    file=sys.stderr,
                )
                return 2
            if "config" not in init_data and not args.config:
                print(f"{prog}: --init-from a skill directory needs --config", file=sys.stderr)
                return 2
        if args.config:
            try:
                cfg = TrainConfig.from_dict(yaml.safe_load(Path(args.config).read_text()))
            except (TypeError, ValueError) as exc:
                print(f"{prog}: {args.config}: {exc}", file=sys.stderr)
                return 2
            cfg.task = args.task
        elif init_data is not None:
            cfg = TrainConfig.from_dict(init_data["config"])
            cfg.runner.time_limit_s = 0.0  # the source run's limit is not this run's
        else:
            cfg = default_train_config(args.task)
        run_dir = Path(args.out or f"runs/{args.task}-{time.strftime('%Y%m%d-%H%M%S')}")
        meta = new_run_meta(command)
    apply_overrides(cfg, args)
    if cfg.runner.num_envs < 1 or cfg.runner.total_steps < 1:
        print(f"{prog}: --num-envs and --steps must be >= 1", file=sys.stderr)
        return 2
    from policies.ppo.envs import env_device_error

    flag = "--device" if args.env_device is None else "--env-device"
    error = env_device_error(cfg.backend, args.env_device, args.device, flag)
    if error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    ranks = args.nproc or (int(os.environ["WORLD_SIZE"]) if args.distributed else 1)
    if cfg.runner.num_envs % ranks:
        print(
            f"{prog}: --num-envs {cfg.runner.num_envs} (the total over all ranks) does not "
            f"split over {ranks} ranks; give a multiple of {ranks}",
            file=sys.stderr,
        )
        return 2
    if checkpoint is not None:
        import torch

        done = int(torch.load(checkpoint, map_location="cpu", weights_only=False)["env_steps"])
        if done >= cfg.runner.total_steps:
            print(
                f"{prog}: nothing to resume: {run_dir} is at {done} env steps "
                f"({checkpoint.name}) and its budget is {cfg.runner.total_steps}; "
                f"give --steps above {done} to train further",
                file=sys.stderr,
            )
            return 2
    if args.nproc:
        from policies.ppo.distributed import launch_local

        if not args.resume and not args.out:
            argv += ["--out", str(run_dir)]  # one run directory for every rank
        code = launch_local(args.nproc, entry or ENTRY, argv)
        resume = f"{prog} --resume {run_dir} --nproc {args.nproc}"
        if code == 130:
            print(f"{prog}: interrupted; continue with {resume}", file=sys.stderr)
        elif code != 0:
            print(
                f"{prog}: the distributed run failed (torchrun exit code {code}; the failing "
                f"rank's error is above); continue from its last checkpoint with: {resume}",
                file=sys.stderr,
            )
        return code
    ctx = None
    if args.distributed:
        from policies.ppo.distributed import init_distributed

        ctx = init_distributed(args.device)
        # every rank: rank 0's run directory, start time and checkpoint
        run_dir, meta, checkpoint = ctx.object_from_main((run_dir, meta, checkpoint))
        meta["distributed"] = {"ranks": ctx.world_size, "backend": ctx.backend}
        if not ctx.is_main:  # rank 0 reports; the others warn only
            logging.getLogger().setLevel(logging.WARNING)
    meta["device"] = str(ctx.device if ctx is not None else args.device)
    if args.env_device is not None:
        meta["env_device"] = args.env_device
    try:
        return _train(args, prog, cfg, run_dir, meta, checkpoint, init_data, motor_filters, ctx)
    finally:
        if ctx is not None:
            ctx.close()


def _train(args, prog, cfg, run_dir, meta, checkpoint, init_data, motor_filters, ctx) -> int:
    """Build the runner, train, report (distributed: rank 0 reports)."""
    from policies.ppo.imitation import runner_class

    try:
        runner = runner_class(cfg)(
            cfg,
            run_dir,
            meta=meta,
            motor_filters=motor_filters,
            dist=ctx,
            device=args.device,
            env_device=args.env_device,
        )
    except (ImportError, ValueError, RuntimeError) as exc:
        print(f"{prog}: cannot build the {cfg.backend} env for {cfg.task}: {exc}", file=sys.stderr)
        return 2
    try:
        if checkpoint is not None:
            runner.load(checkpoint)
        elif args.init_from and init_data is not None:
            runner.model.load_state_dict(init_data["model"])
            meta["init_from"] = {
                "checkpoint": init_data["init_ckpt"],
                "env_steps": int(init_data["env_steps"]),
                "backend": init_data.get("backend") or init_data["config"]["backend"],
            }
            runner.meta = meta
        summary = runner.learn()
    except KeyboardInterrupt:
        saved = runner.interrupted  # learn() saved a checkpoint and summary.json
        print(
            f"\n{prog}: interrupted "
            + (
                f"at {runner.env_steps} env steps: checkpoint {saved['checkpoint']}, "
                f"{run_dir / 'summary.json'}; continue with {prog} --resume {run_dir}"
                if saved
                else "before training started"
            ),
            file=sys.stderr,
        )
        return 130
    except Exception as exc:
        if ctx is None:
            raise
        print(
            f"{prog}: rank {ctx.rank} of {ctx.world_size}: training stopped "
            f"({type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}); "
            f"continue from the last checkpoint in {run_dir / 'checkpoints'} with "
            f"{prog} --resume {run_dir} --nproc {ctx.world_size}",
            file=sys.stderr,
        )
        return 1
    finally:
        runner.close()
    if ctx is not None and not ctx.is_main:
        return 0
    if args.json:
        print(json.dumps(summary))
    else:
        t = summary["timing_s"]
        print(f"run: {run_dir}")
        print(
            f"env steps: {summary['env_steps']}  updates: {summary['iterations']}  "
            f"wall: {summary['wall_time_s']:.1f} s  (env {t['env_s']:.1f} s, policy "
            f"{t['policy_s']:.1f} s, update {t['update_s']:.1f} s, eval {t['eval_s']:.1f} s)"
        )
        if summary["train_success_rate"] is not None:
            print(f"training success ({cfg.backend}): {summary['train_success_rate']:.3f}")
        final = summary["final_eval"]
        if final:
            print(
                f"final eval ({final['backend']}, {final['episodes']} episodes): success "
                f"{final['success']:.3f} [{final['ci95'][0]:.3f}, {final['ci95'][1]:.3f}], "
                f"mean return {final['mean_return']:.2f}"
            )
        if summary["solved"]:
            s = summary["solved"]
            print(
                f"reached {cfg.runner.target_success:.2f} in physics at {s['env_steps']} steps"
                f", {s['wall_time_s']:.1f} s"
            )
        print(
            f"export: miles export {run_dir} --out {run_dir / 'skill'}   (then, as the next "
            f"version of the shipped skill: miles skills add {cfg.task} {run_dir / 'skill'})"
        )
    return 0


def _init_data(src: Path) -> dict:
    """What ``--init-from SRC`` starts from: a checkpoint file, a run's best checkpoint, or
    an exported skill's ONNX weights (:func:`policies.finetune.skill_init_data`), with its
    path as ``init_ckpt``."""
    from policies.finetune import is_skill_dir, skill_init_data

    if is_skill_dir(src):
        return skill_init_data(src)
    import torch

    from policies.export import resolve_checkpoint

    init_ckpt = src if src.is_file() else resolve_checkpoint(src, "best")
    data = torch.load(init_ckpt, map_location="cpu", weights_only=False)
    data["init_ckpt"] = str(init_ckpt)
    return data


if __name__ == "__main__":
    sys.exit(main())
