"""``miles eval SKILL``: success rate (95% CI), mean return and episode length of a skill
(an exported skill directory or name, a training run, or a checkpoint) in physics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from policies.ppo.config import RunnerConfig
from sims.tasks.base import POSE_ERROR_PRESETS


def build_parser(prog: str = "miles eval") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Evaluate a skill over a fixed, seeded set of episodes (deterministic "
        "actions). SKILL: a skill directory or shipped name (ONNX through onnxruntime), a "
        "run directory (its best checkpoint) or a checkpoint file (torch).",
    )
    p.add_argument("skill", help="skill dir/name, run dir, or checkpoint .pt")
    p.add_argument("--episodes", type=int, default=100, help="number of episodes")
    p.add_argument(
        "--seed", type=int, default=RunnerConfig.eval_seed, help="seed of the episode set"
    )
    p.add_argument("--backend", default="pybullet", help="pybullet (default), numba, isaac")
    p.add_argument("--num-envs", type=int, default=1, help="parallel envs of the backend")
    p.add_argument(
        "--checkpoint",
        default="best",
        help="for a run directory: best, last, or a checkpoint path",
    )
    p.add_argument(
        "--video",
        metavar="PATH",
        default=None,
        help="write env 0's first episodes as a GIF (PATH.gif) or PNG frames (a directory)",
    )
    p.add_argument(
        "--variant",
        default=None,
        help="evaluate only this episode variant of the task, one the skill card lists "
        "(pick_place: pads, stack, tower)",
    )
    p.add_argument(
        "--goal-distance",
        nargs=2,
        type=float,
        metavar=("LO", "HI"),
        default=None,
        help="push/pick_place: cube-goal xy distances (m) of the episodes (default: the "
        "card's envelope, object_target_distance_xy; without a card the task's default)",
    )
    from sims.tasks.registry import goal_task_names, object_task_names

    for flag, what, key, tasks in (
        ("--object-region", "the area where the cubes start", "object_region", object_task_names),
        ("--goal-region", "the area where the goals lie", "target_region", goal_task_names),
    ):
        p.add_argument(
            flag,
            nargs=4,
            type=float,
            metavar=("XLO", "YLO", "XHI", "YHI"),
            default=None,
            help=f"{tasks()}: {what} (m, base frame) (default: the card's envelope, "
            f"{key}; without a card the task's default)",
        )
    p.add_argument(
        "--pose-error",
        choices=sorted(POSE_ERROR_PRESETS),
        default=None,
        help="numba/pybullet: the skill observes the cube's pose through this error model "
        "(camera: the calibrated scene camera's bias, noise and held poses, "
        "sims.tasks.base.POSE_ERROR_PRESETS); success is judged on the true state",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def goal_distance_for(skill: str, task: str, flag) -> tuple[float, float] | None:
    """The episodes' cube-goal distances: ``flag`` when given, else the card's envelope
    ``object_target_distance_xy`` where it differs from the task's default; None: the
    task's default episodes."""
    import sims
    from sims.tasks.registry import goal_task_names, places_goal

    if not places_goal(sims.get_task(task)):
        if flag is not None:
            raise ValueError(f"--goal-distance is a {goal_task_names()} option, not {task}'s")
        return None
    if flag is not None:
        from sims.tasks.push import check_distance_range

        return check_distance_range(flag)
    from policies.cards import card_path, load_card

    if not card_path(skill).exists():
        return None
    envelope = load_card(skill).data.get("envelope") or {}
    distance = envelope.get("object_target_distance_xy")
    if not distance:
        return None
    lo_hi = (float(distance["min"]), float(distance["max"]))
    return None if lo_hi == tuple(sims.get_task(task).CONFIG.goal_distance_range) else lo_hi


def regions_for(skill: str, task: str, object_flag=None, goal_flag=None) -> dict:
    """The episodes' cube and goal areas: ``{"object_region": ..., "goal_region": ...}``
    (each ``((xlo, ylo), (xhi, yhi))`` m) for those that differ from the task's default:
    a flag (``XLO YLO XHI YHI``) when given, else the card's envelope (``object_region``,
    the xy of ``target_region``). Empty: the task's default areas. ValueError for a
    malformed flag or an area the task does not draw (reach: neither; turn, whose goal is
    the cube's start: no goal area; :mod:`sims.tasks.registry`)."""
    import sims
    from sims.tasks import registry
    from sims.tasks.push import check_xy_region

    module = sims.get_task(task)
    cfg = module.CONFIG
    areas = []
    for key, name, flag, card_key, default, applies, tasks in (
        ("object_region", "--object-region", object_flag, "object_region",
         cfg.object_xy_range, registry.places_object, registry.object_task_names),
        ("goal_region", "--goal-region", goal_flag, "target_region",
         cfg.goal_xy_range, registry.places_goal, registry.goal_task_names),
    ):  # fmt: skip
        if applies(module):
            areas.append((key, name, flag, card_key, default))
        elif flag is not None:
            raise ValueError(f"{name} is a {tasks()} option, not {task}'s")
    if not areas:
        return {}
    from policies.cards import card_path, load_card

    envelope = {}
    if card_path(skill).exists():
        envelope = load_card(skill).data.get("envelope") or {}
    out = {}
    for key, name, flag, card_key, default in areas:
        if flag is not None:
            region = flag_region(flag, name)
        elif envelope.get(card_key):
            low, high = envelope[card_key]["low"], envelope[card_key]["high"]
            region = check_xy_region([low[:2], high[:2]], f"the card's {card_key}")
        else:
            continue
        if region != tuple(default):
            out[key] = region
    return out


def episode_config(
    skill: str,
    task: str,
    config=None,
    goal_distance=None,
    object_region=None,
    goal_region=None,
    variant: str | None = None,
):
    """The task config of the episodes ``miles eval`` runs for ``skill`` (plain, ``--record``
    and ``--sweep`` alike): ``config`` (None: the task's) with the action mapping it was
    trained under (:func:`trained_config`), over the card's envelope or the flags
    (:func:`goal_distance_for`, :func:`regions_for`), then only ``variant``'s episodes.
    Returns ``(config, extra)``: ``config`` None where nothing changed the task's default;
    ``extra`` what differs from it (``goal_distance``, ``object_region``, ``goal_region``,
    ``variant``), as evaluations record it. ValueError for a bad flag or variant."""
    import sims
    from policies.ppo.envs import with_goal_distance, with_regions

    distance = goal_distance_for(skill, task, goal_distance)
    regions = regions_for(skill, task, object_region, goal_region)
    extra: dict = {}
    config = trained_config(skill, task, config)
    if distance is not None or regions:
        base_cfg = config or sims.get_task(task).CONFIG
        config = with_regions(with_goal_distance(base_cfg, distance), **regions)
    if distance is not None:
        extra["goal_distance"] = list(distance)
    extra.update({k: [list(v) for v in r] for k, r in regions.items()})
    if variant is not None:
        from policies.evaluation import variant_config

        try:
            config = variant_config(task, variant, config)
        except ValueError as exc:
            raise ValueError(f"--variant: {exc}") from None
        extra["variant"] = variant
    return config, extra


def trained_config(skill: str, task: str, config=None):
    """``config`` (None: the task's) with the action mapping ``skill`` was trained under,
    which its episodes must share: a card's control period and action scales
    (``ik_tilt_gain`` among them); a run directory's or checkpoint's tool levelling
    (``env.ik_tilt_gain``, ``env.ik_tilt_allowance_deg``).
    Returns ``config`` itself (None stays None) where that changes nothing."""
    import dataclasses

    import sims
    from policies.cards import card_path, load_card

    base = config or sims.get_task(task).CONFIG
    if card_path(skill).exists():
        trained = load_card(skill).task_config(base)
    else:
        from policies.export import resolve_checkpoint
        from policies.ppo.env_options import levelling_fields
        from policies.ppo.runner import load_policy

        path = Path(skill)
        ckpt = resolve_checkpoint(path, "best") if path.is_dir() else path
        env = (load_policy(ckpt)[1].get("config") or {}).get("env", {})
        trained = dataclasses.replace(base, **levelling_fields(env, base))
    return config if trained == base else trained


def with_pose_error(config, task: str, preset: str):
    """``config`` (None: the task's) whose cube pose is observed through the error model
    ``preset`` (``--pose-error``, :data:`~sims.tasks.base.POSE_ERROR_PRESETS`)."""
    import dataclasses

    import sims

    base = config or sims.get_task(task).CONFIG
    rnd = dataclasses.replace(base.randomization, pose_error=POSE_ERROR_PRESETS[preset])
    return dataclasses.replace(base, randomization=rnd)


def flag_region(flag, name: str):
    """``XLO YLO XHI YHI`` (m) as ``((xlo, ylo), (xhi, yhi))``; ValueError naming the flag
    for a malformed one."""
    from sims.tasks.push import check_xy_region

    if len(flag) != 4:
        raise ValueError(f"{name} takes XLO YLO XHI YHI (m), got {list(flag)}")
    return check_xy_region([list(flag[:2]), list(flag[2:])], name)


def check_variant(skill: str, variant: str | None) -> str | None:
    """Why ``variant`` cannot be evaluated for ``skill`` (None: it can, or no variant):
    a skill with a card must list it under ``variants``; a run or checkpoint's task must
    have it (checked with its task once loaded)."""
    from policies.cards import SkillCardError, card_path, load_card

    if variant is None or not card_path(skill).exists():
        return None
    try:
        card = load_card(skill)
    except SkillCardError as exc:
        return str(exc)
    if variant not in card.variants:
        listed = ", ".join(card.variants) if card.variants else "none (its default episodes)"
        return f"skill {card.name}'s card does not list variant {variant!r}; it lists {listed}"
    return None


def routed_skill(skill: str, variant: str | None) -> tuple[str, str | None]:
    """The skill ``miles eval`` runs for ``variant``'s episodes, as a deployment runs them:
    a versioned skill's (a library folder or shipped name) version routed for the variant's
    goals (:func:`policies.evaluation.variant_target`, ``active.yaml``'s ``routes``), else
    ``skill`` as given (an explicit version folder runs that folder). Returns ``(skill,
    target)``: ``target`` the routed target kind, None when nothing was routed."""
    from policies.cards import SkillCardError, card_path, load_card
    from policies.evaluation import variant_target

    if variant is None or not card_path(skill).exists():
        return skill, None
    try:
        target = variant_target(load_card(skill).task, variant)
        routed = card_path(skill, target)
    except (SkillCardError, ValueError):  # said by check_variant and the loaders
        return skill, None
    if routed == card_path(skill):
        return skill, None
    return str(routed.parent), target


def load_any_policy(skill: str, checkpoint: str = "best"):
    """(task, numpy policy function, description) for a skill, run or checkpoint."""
    from policies.cards import card_path

    path = Path(skill)
    if card_path(skill).exists():
        from policies.runtime import SkillPolicy

        policy = SkillPolicy(skill)
        what = f"skill {policy.name} version {policy.card.version}"
        return policy.task, policy.act, f"{what} ({policy.path}, onnxruntime)"
    from policies.export import resolve_checkpoint
    from policies.ppo.runner import load_policy, torch_policy_fn

    if path.is_dir():
        ckpt = resolve_checkpoint(path, checkpoint)
    elif path.suffix == ".pt" and path.exists():
        ckpt = path
    else:
        raise FileNotFoundError(
            f"{skill}: not a skill directory, shipped skill name, run directory or checkpoint file"
        )
    model, data = load_policy(ckpt)
    return data["task"], torch_policy_fn(model), f"checkpoint {ckpt} (torch)"


def main(
    argv: list[str] | None = None,
    prog: str = "miles eval",
    parser=None,
    env_options=None,
    on_result=None,
) -> int:
    """``parser``: a parser extending :func:`build_parser`'s; ``env_options(args, task,
    prog)``: ``(env kwargs, report dict)`` or None after printing an error (how a layer
    above adds options, e.g. miles_ros's ``--supervised``); ``on_result(args, task, result,
    extra)``: called with a finished evaluation (miles_ros's ``--record``)."""
    args = (parser or build_parser(prog)).parse_args(argv)
    args.skill, routed = routed_skill(args.skill, args.variant)
    if args.episodes < 1 or args.num_envs < 1:
        print(f"{prog}: --episodes and --num-envs must be >= 1", file=sys.stderr)
        return 2
    error = check_variant(args.skill, args.variant)
    if error:
        print(f"{prog}: --variant: {error}", file=sys.stderr)
        return 2
    for name, flag in (
        ("--object-region", args.object_region),
        ("--goal-region", args.goal_region),
    ):
        try:
            if flag is not None:
                flag_region(flag, name)
        except ValueError as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 2
    from policies.commands._common import setup_logging, stdout_to_stderr

    setup_logging()
    with stdout_to_stderr() if args.json else _nothing():
        result, task, what, extra = _run(args, prog, env_options)
    if result is None:
        return 2
    if routed is not None:
        what += f", routed for {routed} goals in active.yaml"
    if on_result is not None:
        on_result(args, task, result, extra)
    if args.json:
        out = result.to_dict()
        out.update({"task": task, "policy": what, "episode_length": result.mean_length})
        out.update(extra)
        if args.video:
            out["video"] = args.video
        print(json.dumps(out))
    else:
        print(f"{what}, task {task}" + "".join(f", {k} {v}" for k, v in extra.items()))
        print(
            f"{result.backend}: success {result.success:.3f} "
            f"({result.successes}/{result.episodes}, 95% CI {result.ci95[0]:.3f}-"
            f"{result.ci95[1]:.3f}), mean return {result.mean_return:.3f}, mean episode "
            f"length {result.mean_length:.1f} steps, seed {args.seed}, "
            f"{result.wall_s:.1f} s"
        )
        if result.grasp is not None:
            print("episodes by outcome: " + ", ".join(f"{k} {v}" for k, v in result.grasp.items()))
        if args.video:
            print(f"video: {args.video}")
    return 0


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _run(args, prog: str, env_options=None):
    import torch

    torch.set_num_threads(1)
    from policies.cards import SkillCardError
    from policies.evaluation import evaluate

    try:
        task, policy, what = load_any_policy(args.skill, args.checkpoint)
    except (FileNotFoundError, SkillCardError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None, None, None, {}
    kwargs, extra = {}, {}
    if env_options is not None:
        options = env_options(args, task, prog)
        if options is None:
            return None, None, None, {}
        kwargs, extra = options
    try:
        kwargs["config"], episodes_extra = episode_config(
            args.skill,
            task,
            kwargs.get("config"),
            args.goal_distance,
            args.object_region,
            args.goal_region,
            args.variant,
        )
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None, None, None, {}
    extra = {**extra, **episodes_extra}
    if args.pose_error:
        kwargs["config"] = with_pose_error(kwargs["config"], task, args.pose_error)
        extra["pose_error"] = args.pose_error
    result = evaluate(
        policy,
        task,
        backend=args.backend,
        episodes=args.episodes,
        seed=args.seed,
        num_envs=args.num_envs,
        video_path=args.video,
        calibrate=_calibrator(policy),
        **kwargs,
    )
    return result, task, what, extra


def _calibrator(policy):
    """The calibration a skill's card has the cell measure before its episodes
    (:meth:`policies.runtime.SkillPolicy.calibrate`), or None (a card without one, a
    checkpoint)."""
    skill = getattr(policy, "__self__", None)
    return skill.calibrate if getattr(skill, "measures", None) else None
