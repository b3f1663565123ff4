"""``miles eval SKILL``: :mod:`policies.commands.evaluate` plus ``--supervised``, the skill
behind the safety supervisor (:mod:`miles_ros.runtime.supervised`), as a robot runs it;
``--device``, where a numba or isaac env steps (the policy runs on the host);
``--perception``, with ``--supervised``: the skill observes the cube poses the perception
core finds in the scene camera's frames (:mod:`miles_ros.perception.closed_loop`);
``--record`` (the result into the card's ``evidence`` block) and ``--sweep`` (the robustness
sweep of :mod:`policies.sweep`, written into the card folder), both composed here because
the supervisor is."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from policies.commands import evaluate as base

EVIDENCE_EPISODES = 200
"""Episodes a card's evidence entry needs (``--record``)."""


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
    p.add_argument(
        "--record",
        action="store_true",
        help=f"write the result into the skill card's evidence block (evidence.pybullet; "
        f"evidence.supervised with --supervised; evidence.isaac with --backend isaac, the "
        f"cross-check engine); needs >= {EVIDENCE_EPISODES} episodes",
    )
    p.add_argument(
        "--sweep",
        nargs="?",
        const="",
        default=None,
        metavar="AXES",
        help="robustness sweep over the axes the card lists (or a comma-separated subset): "
        "success per point over --episodes seeded episodes; writes robustness.json and "
        "robustness.png into the card folder (or --out)",
    )
    p.add_argument("--out", metavar="DIR", default=None, help="with --sweep: output folder")
    p.add_argument(
        "--perception",
        action="store_true",
        help="with --supervised: the skill observes the cube (and a stacking target) as the "
        "perception core finds it in the scene camera's rendered, noisy, late frames, not "
        "the simulator's exact pose; success is still judged on the true state",
    )
    p.add_argument(
        "--camera-seed",
        type=int,
        default=None,
        help="with --perception: the draw of the simulated camera's mount error (default 0, "
        "sim_node's; the scene file's calibration was measured for it)",
    )
    p.add_argument(
        "--camera-rate",
        type=float,
        default=None,
        metavar="HZ",
        help="with --perception: frames per second of sim time (default: the scene "
        "camera's rate_hz)",
    )
    p.add_argument(
        "--trace",
        metavar="FILE",
        default=None,
        help="with --perception: write every control period's true and published cube "
        "poses (state, age, std), the TCP and the fingers to FILE as JSON lines",
    )
    p.add_argument(
        "--scene",
        metavar="FILE",
        default=None,
        help="with --perception: the scene file (its table, cube size and camera; default "
        "config/scene.yaml)",
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
    if options is not None:
        env_kwargs = _perceived(args, task, prog, options[0])
        if env_kwargs is None:
            return None
        if args.perception:  # the observer, replaced by its summary once the run is done
            options[1]["camera_seed"] = camera_seed(args)
            options[1]["perception"] = env_kwargs["observation_filter"]
    if options is not None and args.device is not None:
        options[0]["device"] = args.device
        options[1]["device"] = args.device
    return options


def safety_config(path: str | Path | None = None):
    """The supervisor's config from a ROS parameter file's ``safety_node`` section
    (default: config/safety.yaml); the node's topic and service names are ignored.
    Raises ValueError for unknown keys or values the supervisor refuses."""
    from miles_ros.params import config_dir
    from miles_ros.params.safety import load_safety_config

    path = Path(path) if path else config_dir() / "safety.yaml"
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    return load_safety_config([path])


def _perceived(args, task: str, prog: str, options: dict) -> dict | None:
    """``--perception``: :func:`_supervised`'s env options with the perceived observation
    (:func:`miles_ros.perception.closed_loop.perceived_options`), or None after an error."""
    flags = (
        ("--camera-seed", args.camera_seed),
        ("--camera-rate", args.camera_rate),
        ("--scene", args.scene),
        ("--trace", args.trace),
    )
    if not args.perception:
        for flag, value in flags:
            if value is not None:
                print(f"{prog}: {flag} needs --perception", file=sys.stderr)
                return None
        return options
    if not args.supervised:
        print(f"{prog}: --perception needs --supervised", file=sys.stderr)
        return None
    if args.video is not None:
        print(f"{prog}: --video does not go with --perception", file=sys.stderr)
        return None
    if args.camera_rate is not None and not args.camera_rate > 0:
        print(f"{prog}: --camera-rate must be > 0", file=sys.stderr)
        return None
    from miles_ros.perception.closed_loop import perceived_options
    from sims.scene import load_scene

    try:
        scene = load_scene(args.scene)
        extra = perceived_options(
            task,
            scene,
            args.num_envs,
            camera_seed(args),
            args.seed,
            args.camera_rate,
            trace=args.trace is not None,
        )
    except (OSError, ValueError) as exc:
        print(f"{prog}: --perception: {args.scene or 'config/scene.yaml'}: {exc}",
              file=sys.stderr)  # fmt: skip
        return None
    options.update(extra)
    return options


def camera_seed(args) -> int:
    """``--camera-seed``, 0 (sim_node's default) when not given."""
    return 0 if args.camera_seed is None else args.camera_seed


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
    from miles_ros.params.skill import SkillNodeParams

    return supervised_env_kwargs(task, args.num_envs, scale, safety), {
        "supervised": True,
        "time_scale": scale,
        "safety_params": str(args.safety_params or "config/safety.yaml"),
        # as skill_node sends them: through the command path, as trajectory points
        "shape_commands": SkillNodeParams.shape_commands,
        "command_velocity_scale": SkillNodeParams.command_velocity_scale,
    }


def _record(args, task: str, result, extra: dict) -> None:
    from policies.card_content import record_evidence
    from policies.provenance import git_commit

    _perception_summary(args, task, result, extra)
    kind = evidence_kind(args)
    entry = {
        "backend": result.backend,
        "episodes": result.episodes,
        "seed": args.seed,
        "num_envs": args.num_envs,  # the seeded episode set depends on it
        "success_rate": round(result.success, 4),
        "ci95": [round(result.ci95[0], 4), round(result.ci95[1], 4)],
        "successes": result.successes,
        "mean_return": round(result.mean_return, 4),
        "mean_episode_length": round(result.mean_length, 2),
        **({"grasp": dict(result.grasp)} if result.grasp is not None else {}),
        **extra,
        "git_commit": git_commit(),
        "measured": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    path = record_evidence(args.skill, kind, entry)
    print(f"recorded evidence.{kind} in {path}", file=sys.stderr)


def evidence_kind(args) -> str | None:
    """The card's evidence entry an evaluation fills: ``pybullet``, ``supervised`` (behind the
    supervisor, PyBullet), ``perceived`` (behind the supervisor on the cube poses perception
    finds, ``--perception``) or ``isaac`` (Newton, the cross-check engine), with ``_VARIANT``
    appended for one episode variant (``--variant stack``: ``supervised_stack``); None for
    other backends."""
    if args.backend == "pybullet":
        if getattr(args, "perception", False):
            kind = "perceived"
        else:
            kind = "supervised" if args.supervised else "pybullet"
    elif args.backend == "isaac":
        kind = "isaac"
    else:
        return None
    variant = getattr(args, "variant", None)
    return f"{kind}_{variant}" if variant else kind


def _check_record(args, prog: str) -> bool:
    from policies.cards import SkillCardError, load_card

    if args.episodes < EVIDENCE_EPISODES or evidence_kind(args) is None:
        print(
            f"{prog}: --record needs --episodes >= {EVIDENCE_EPISODES} on the pybullet or "
            "isaac backend",
            file=sys.stderr,
        )
        return False
    try:
        load_card(args.skill)
    except SkillCardError as exc:
        print(f"{prog}: --record needs an exported skill: {exc}", file=sys.stderr)
        return False
    return True


def _sweep(args, prog: str) -> int:
    """``--sweep``: every check before any episode runs, then :func:`policies.sweep.run_sweep`."""
    import json
    from dataclasses import replace

    from policies.cards import SkillCardError, load_card
    from policies.commands._common import setup_logging, stdout_to_stderr
    from policies.sweep import check_axes, run_sweep, write_sweep

    setup_logging()
    for flag, value in (
        ("--video", args.video),
        ("--record", args.record or None),
        ("--perception", args.perception or None),
    ):
        if value is not None:
            print(f"{prog}: {flag} does not go with --sweep", file=sys.stderr)
            return 2
    if args.episodes < 1 or args.num_envs < 1:
        print(f"{prog}: --episodes and --num-envs must be >= 1", file=sys.stderr)
        return 2
    try:
        card = load_card(args.skill)
    except SkillCardError as exc:
        print(f"{prog}: --sweep needs an exported skill (its card lists the axes): {exc}",
              file=sys.stderr)  # fmt: skip
        return 2
    requested = [a.strip() for a in args.sweep.split(",") if a.strip()]
    try:
        axes = check_axes(requested, (card.data.get("robustness") or {}).get("axes"))
    except ValueError as exc:
        print(f"{prog}: {card.path}: {exc}", file=sys.stderr)
        return 2
    task = str(card.task)
    supervised = _supervised(args, task, prog)
    if supervised is None:
        return 2
    error = base.check_variant(args.skill, args.variant)
    try:
        if error:
            raise ValueError(f"--variant: {error}")
        config, episodes_extra = base.episode_config(
            args.skill, task, None, args.goal_distance, args.object_region, args.goal_region,
            args.variant,
        )  # fmt: skip
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    from miles_ros.params.skill import SkillNodeParams
    from miles_ros.runtime.supervised import TIME_SCALE, pybullet_options

    time_scale = TIME_SCALE if args.time_scale is None else args.time_scale
    safety = safety_config(args.safety_params)

    def limit_options(task_cfg, limit_scale: float) -> dict:
        steps = max(1, round(task_cfg.episode_steps * time_scale))
        scaled = replace(
            safety,
            velocity_scale=safety.velocity_scale * limit_scale,
            acceleration_scale=safety.acceleration_scale * limit_scale,
            jerk_scale=safety.jerk_scale * limit_scale,
        )
        cfg = replace(task_cfg, episode_steps=steps)  # targets sent as skill_node sends them
        shape = SkillNodeParams.shape_commands
        return pybullet_options(task, args.num_envs, cfg, scaled, shape)

    def supervised_options(task_cfg) -> dict:
        return limit_options(task_cfg, 1.0)

    import torch

    torch.set_num_threads(1)
    from policies.runtime import SkillPolicy

    policy = SkillPolicy(args.skill)
    out_dir = Path(args.out) if args.out else card.directory
    with stdout_to_stderr() if args.json else base._nothing():
        doc = run_sweep(
            policy.act,
            task,
            axes,
            args.episodes,
            args.seed,
            args.backend,
            args.num_envs,
            env_options=supervised_options if args.supervised else None,
            limit_options=limit_options,
            supervised=args.supervised,
            info={
                "skill": card.name,
                "policy": f"{shown_path(policy.path)} (onnxruntime)",
                "supervisor_time_scale": time_scale,
                "safety_params": str(args.safety_params or "config/safety.yaml"),
                **({"variant": args.variant} if args.variant else {}),
            },
            config=config,
            calibrate=policy.calibrate if policy.measures else None,
        )
        if doc["episode_set"]:
            doc["episode_set"]["source"] = _episode_source(args, card, episodes_extra)
        json_path, png_path = write_sweep(doc, out_dir)
    if args.json:
        print(json.dumps({**doc, "files": [str(json_path), str(png_path)]}))
        return 0
    print(f"skill {card.name} ({task}), {args.episodes} episodes per point, seed {args.seed}"
          + (", supervised" if args.supervised else ""))  # fmt: skip
    if doc["episode_set"]:
        print("  episodes: " + ", ".join(f"{k} {v}" for k, v in doc["episode_set"].items()))
    for axis in doc["axes"]:
        if axis["status"] != "ok":
            print(f"  {axis['name']}: unavailable ({axis['reason']})")
            continue
        for p in axis["points"]:
            print(
                f"  {axis['name']} = {p['value']:g} {axis['unit']}: success {p['success']:.3f} "
                f"(95% CI {p['ci95'][0]:.3f}-{p['ci95'][1]:.3f})"
                + (", supervised" if p["supervised"] else "")
            )
    print(f"wrote {json_path} and {png_path}")
    return 0


def shown_path(path) -> str:
    """``path`` as a sweep records it: relative to the repository where it lies inside it
    (a shipped card's file then reads the same from any checkout), else as it is."""
    from policies.provenance import REPO_ROOT

    resolved = Path(path).resolve()
    try:
        return str(resolved.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _episode_source(args, card, differs: dict) -> str:
    """Where a sweep's distances and areas came from, in words (``episode_set.source``)."""
    flags = [
        flag
        for flag, value in (
            ("--goal-distance", args.goal_distance),
            ("--object-region", args.object_region),
            ("--goal-region", args.goal_region),
        )
        if value is not None
    ]
    if flags:
        return f"{', '.join(flags)}; the rest the card's envelope or the task's default"
    if card.data.get("envelope") and set(differs) - {"variant"}:
        return "the card's envelope (as plain miles eval)"
    return "the task's default (the card declares no other envelope)"


def main(argv: list[str] | None = None, prog: str = "miles eval") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    args.skill = base.routed_skill(args.skill, args.variant)[0]  # what --record, --sweep read
    for flag, value in (
        ("--record", args.record),
        ("--sweep", args.sweep is not None),
        ("--perception", args.perception),
    ):
        if args.pose_error and value:  # the evidence and the sweeps are on exact poses
            print(f"{prog}: --pose-error does not go with {flag}", file=sys.stderr)
            return 2
    if args.sweep is not None:
        return _sweep(args, prog)
    if args.out is not None:
        print(f"{prog}: --out goes with --sweep", file=sys.stderr)
        return 2
    if args.record and not _check_record(args, prog):
        return 2
    return base.main(
        argv,
        prog,
        parser=parser,
        env_options=_env_options,
        on_result=_record if args.record else _perception_summary,
    )


def _perception_summary(args, task: str, result, extra: dict) -> None:
    """``--perception``: what the camera did, added to the printed result
    (:meth:`~miles_ros.perception.closed_loop.PerceivedObservation.summary`)."""
    observer = extra.get("perception")
    if observer is not None:
        extra["perception"] = observer.summary()
        if getattr(args, "trace", None) is not None and observer.trace is not None:
            from miles_ros.perception.closed_loop import write_trace

            count = write_trace(observer.trace, args.trace)
            print(f"wrote {count} control periods to {args.trace}", file=sys.stderr)
