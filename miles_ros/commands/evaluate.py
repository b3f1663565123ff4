"""``miles eval SKILL``: :mod:`policies.commands.evaluate` plus ``--supervised``, the skill
behind the safety supervisor (:mod:`miles_ros.runtime.supervised`), as a robot runs it, and
``--device``, where a numba or isaac env steps (the policy runs on the host)."""

from __future__ import annotations

import sys
from pathlib import Path

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
        "--safety-params",
        metavar="FILE",
        default=None,
        help="with --supervised: a ROS parameter file for safety_node (keys under "
        "safety_node: ros__parameters:, e.g. your robot's scales); default config/safety.yaml",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=None,
        help="with --supervised: episode length in training episodes (default 4: skill_node's "
        "time budget, timeout_scale 2 x the card's timeout)",
    )
    p.add_argument(
        "--device",
        default=None,
        help="where the env steps: cpu, cuda or cuda:N (isaac: Isaac Lab's device; numba: its "
        "CUDA kernels; default: the backend's default, cpu); the policy runs on the host",
    )
    return p


def _env_options(args, task: str, prog: str):
    """:func:`_supervised`'s env options plus ``--device`` (checked before any work), and a
    clear error naming ``make isaac`` where Isaac Lab is absent."""
    from policies.ppo.envs import env_device_error

    error = env_device_error(args.backend, args.device, flag="--device")
    if args.backend == "isaac" and not error:
        from sims.backends.isaac import import_newton

        try:
            import_newton()
        except ImportError as exc:
            error = str(exc)
    if error:
        print(f"{prog}: {error}", file=sys.stderr)
        return None
    options = _supervised(args, task, prog)
    if options is not None and args.device is not None:
        options[0]["device"] = args.device
        options[1]["device"] = args.device
    return options


def safety_config(path: str | Path | None = None):
    """The supervisor's config from a ROS parameter file's ``safety_node`` section
    (default: config/safety.yaml); the node's topic and service names are ignored.
    Raises ValueError for unknown keys or values the supervisor refuses."""
    from dataclasses import fields

    from miles_ros.runtime.params import config_dir, load_node_params
    from miles_ros.safety.config import SafetyConfig, SafetyNodeNames

    path = Path(path) if path else config_dir() / "safety.yaml"
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    values = load_node_params(path, "safety_node")
    known = {f.name for f in fields(SafetyConfig)}
    unknown = set(values) - known - {f.name for f in fields(SafetyNodeNames)}
    if unknown:
        raise ValueError(f"{path}: unknown safety_node parameters: {', '.join(sorted(unknown))}")
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items() if k in known}
    try:
        config = SafetyConfig(**kwargs)
        config.validate()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from exc
    return config


def _supervised(args, task: str, prog: str):
    if not args.supervised:
        for flag, value in (
            ("--time-scale", args.time_scale),
            ("--safety-params", args.safety_params),
        ):
            if value is not None:
                print(f"{prog}: {flag} needs --supervised", file=sys.stderr)
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
    try:
        safety = safety_config(args.safety_params)
    except ValueError as exc:
        print(f"{prog}: --safety-params {exc}", file=sys.stderr)
        return None
    return supervised_env_kwargs(task, args.num_envs, scale, safety), {
        "supervised": True,
        "time_scale": scale,
        "safety_params": str(args.safety_params or "config/safety.yaml"),
    }


def main(argv: list[str] | None = None, prog: str = "miles eval") -> int:
    return base.main(argv, prog, parser=build_parser(prog), env_options=_env_options)
