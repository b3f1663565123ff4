"""``miles train SKILL --from-logs DIR --out NEW_DIR``: a new version of a skill fine-tuned
on logged episodes: ``--method sim`` (the default) trains the active version by DAgger in
simulation on the cell the logs identify (:mod:`policies.finetune_sim`: by default half the
identified finger reading offset becomes the new version's observation calibration and no
DAgger steps run, ``--calibrate SHARE`` and ``--steps N`` change that); ``--method
relabel`` regresses it once onto labelled logged states (:mod:`policies.finetune`).

DIR holds recordings (``*.mcap`` of ``miles up --record``) and datasets (``*.npz``); a
recording without a dataset of the same name beside it is converted first
(:func:`miles_ros.runtime.logs.convert_recording`, written as ``NAME.npz`` next to it).
The operator's marks (``miles feedback``) apply. Logs of another skill or another
observation or action layout are refused, naming the difference."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from policies.cards import SkillCardError, load_card, skill_library
from policies.finetune import ANCHORS, FineTuneConfig, FromLogsError, fine_tune
from policies.finetune_sim import SimFineTuneConfig, sim_fine_tune
from policies.logs import DEFAULT_FEEDBACK_FILE, read_marks
from policies.ppo.imitation_config import IMITATION_LOSSES

DEFAULTS = FineTuneConfig()
SIM_DEFAULTS = SimFineTuneConfig()
METHODS = ("sim", "relabel")
"""``--method``'s choices, the default first."""


def build_parser(prog: str = "miles train") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{prog} SKILL --from-logs", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("skill", help="the skill's name (its card's)")
    p.add_argument("--from-logs", required=True, metavar="DIR", help="recordings and datasets")
    p.add_argument("--out", required=True, metavar="NEW_DIR", help="the new skill directory")
    p.add_argument(
        "--skill-dir",
        default=None,
        metavar="ACTIVE_DIR",
        help="the active version (default: the library's SKILL)",
    )
    p.add_argument("--scene", default=None, help="the recordings' scene file (pads)")
    p.add_argument("--feedback", default=str(DEFAULT_FEEDBACK_FILE), help="the operator's marks")
    p.add_argument(
        "--method",
        choices=METHODS,
        default=METHODS[0],
        help="sim: DAgger in simulation on the cell the logs identify; relabel: one "
        "regression onto labelled logged states",
    )
    p.add_argument(
        "--steps",
        type=int,
        default=SIM_DEFAULTS.steps,
        help="--method sim: DAgger env steps (0, the default: the calibration alone, the "
        "parent's networks)",
    )
    p.add_argument(
        "--calibrate",
        type=float,
        nargs="?",
        const=1.0,
        default=SIM_DEFAULTS.calibrate,
        metavar="SHARE",
        help="--method sim: take SHARE of the identified reading offset out of the new "
        "version's observation (its card's calibration; 1 without SHARE: all of it; 0: none) "
        f"and train around what is left of it (default {SIM_DEFAULTS.calibrate:g}: the "
        "midpoint between the logged cell and the original)",
    )
    p.add_argument(
        "--loss",
        choices=IMITATION_LOSSES,
        default=SIM_DEFAULTS.loss,
        help="--method sim: the actor's regression loss (imitation.loss)",
    )
    p.add_argument(
        "--loss-floor",
        type=float,
        default=SIM_DEFAULTS.loss_floor,
        help="--method sim, --loss relative: the shortest label norm an error is divided by",
    )
    p.add_argument("--gradient-steps", type=int, default=DEFAULTS.gradient_steps)
    p.add_argument("--restarts", type=int, default=DEFAULTS.restarts)
    p.add_argument("--restart-horizon", type=int, default=DEFAULTS.restart_horizon)
    p.add_argument(
        "--rehearsal-episodes",
        type=int,
        default=DEFAULTS.rehearsal_episodes,
        help="episodes of the card's evaluation set the parent runs: rehearsed (relabel) or "
        "the reference of the identification (sim)",
    )
    p.add_argument(
        "--anchor",
        choices=ANCHORS,
        default=DEFAULTS.anchor,
        help="who labels the rehearsal and the succeeded episodes' states (the parent's own "
        "actions, against forgetting; or the expert)",
    )
    p.add_argument("--eval-episodes", type=int, default=DEFAULTS.eval_episodes)
    p.add_argument("--seed", type=int, default=DEFAULTS.seed)
    p.add_argument("--json", action="store_true", help="print the new card's fine_tune block")
    return p


def datasets(logs: Path, skill_dir: Path, scene: str | None) -> list[Path]:
    """The datasets of DIR, each recording converted where it has none."""
    from miles_ros.runtime.logs import convert_recording

    out = sorted(logs.glob("*.npz"))
    for recording in sorted(logs.glob("*.mcap")):
        target = recording.with_suffix(".npz")
        if target not in out:
            written = convert_recording(recording, target, skill_dir, scene)
            if written is not None:
                out.append(written)
    return sorted(out)


def main(argv: list[str], prog: str = "miles train") -> int:
    from miles_ros.runtime.supervised import MOTOR_FILTERS
    from policies.provenance import command_line

    args = build_parser(prog).parse_args(argv)
    skill_dir = Path(args.skill_dir) if args.skill_dir else skill_library() / args.skill
    cfg = FineTuneConfig(
        gradient_steps=args.gradient_steps,
        restarts=args.restarts,
        restart_horizon=args.restart_horizon,
        rehearsal_episodes=args.rehearsal_episodes,
        anchor=args.anchor,
        eval_episodes=args.eval_episodes,
        seed=args.seed,
    )
    try:
        active = load_card(skill_dir).name
        if active != args.skill:
            raise FromLogsError(f"{skill_dir} holds skill {active!r}, not {args.skill!r}")
        if Path(args.out).exists():
            raise FromLogsError(f"{args.out} exists: a fine-tune writes a new skill directory")
        files = datasets(Path(args.from_logs), skill_dir, args.scene)
        if args.method == "sim":
            tune_fn = sim_fine_tune
            cfg = SimFineTuneConfig(
                steps=args.steps,
                loss=args.loss,
                loss_floor=args.loss_floor,
                reference_episodes=args.rehearsal_episodes,
                calibrate=args.calibrate,
                eval_episodes=args.eval_episodes,
                seed=args.seed,
            )
        else:
            tune_fn = fine_tune
        card = tune_fn(
            skill_dir,
            files,
            args.out,
            cfg,
            marks=read_marks(args.feedback),
            command=command_line(argv, prog),
            motor_filters=MOTOR_FILTERS,
        )
    except (FromLogsError, SkillCardError, FileNotFoundError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    tune = card.provenance["fine_tune"]
    if args.json:
        print(json.dumps(tune, indent=1))
    else:
        if args.method == "sim":
            done = f"reading offset {tune['identified']['offset']} m identified"
            if card.calibration:
                done += " (the new version's calibration)"
        else:
            done = f"{tune['restart_states']} from restarts, {tune['rehearsal_states']} rehearsed"
        print(
            f"{prog}: {tune['logged_states']} logged states ({tune['failed_states']} of failed "
            f"episodes) from {len(tune['data'])} datasets, {done}; {tune['train_wall_time_s']} s"
        )
        ev = card.evaluation
        print(
            f"{prog}: wrote {args.out}: {card.name} version {card.version}, success "
            f"{ev.get('success_rate')} over {ev.get('episodes')} episodes"
        )
    return 0
