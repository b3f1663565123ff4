"""``miles eval SKILL``: :mod:`policies.commands.evaluate` plus ``--supervised``, the skill
behind the safety supervisor (:mod:`miles_ros.runtime.supervised`), as a robot runs it."""

from __future__ import annotations

import sys

from policies.commands import evaluate as base


def build_parser(prog: str = "miles eval"):
    p = base.build_parser(prog)
    p.add_argument(
        "--supervised",
        action="store_true",
        help="run the skill behind the safety supervisor (default config/safety.yaml limits, "
        "250 Hz, targets stamped as skill_node does) in PyBullet, as a robot runs it",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=None,
        help="with --supervised: episode length in training episodes (default 4: skill_node's "
        "time budget, timeout_scale 2 x the card's timeout)",
    )
    return p


def _supervised(args, task: str, prog: str):
    if not args.supervised:
        if args.time_scale is not None:
            print(f"{prog}: --time-scale needs --supervised", file=sys.stderr)
            return None
        return {}, {}
    from miles_ros.runtime.supervised import TIME_SCALE, supervised_env_kwargs

    if args.backend != "pybullet":
        print(f"{prog}: --supervised runs on the pybullet backend only", file=sys.stderr)
        return None
    scale = TIME_SCALE if args.time_scale is None else args.time_scale
    if not scale > 0:
        print(f"{prog}: --time-scale must be > 0", file=sys.stderr)
        return None
    return supervised_env_kwargs(task, args.num_envs, scale), {
        "supervised": True,
        "time_scale": scale,
    }


def main(argv: list[str] | None = None, prog: str = "miles eval") -> int:
    return base.main(argv, prog, parser=build_parser(prog), env_options=_supervised)
