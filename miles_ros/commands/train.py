"""``miles train TASK``: :mod:`policies.commands.train` with the motor filters miles_ros owns
injected, so a config's ``env.motor_filter: safety_supervisor`` trains (and evaluates)
behind the safety supervisor (:mod:`miles_ros.runtime.supervised`). Like ``miles eval
--supervised``, the supervisor is composed here, above policies/, never named by an
import path in a config."""

from __future__ import annotations

import argparse

from policies.commands import train as base


def build_parser(prog: str = "miles train") -> argparse.ArgumentParser:
    parser = base.build_parser(prog)
    parser.epilog = (
        f"{prog} SKILL --from-logs DIR --out NEW_DIR: fine-tune the skill's active version on "
        f"logged episodes instead ({prog} SKILL --from-logs DIR --help)"
    )
    return parser


def main(argv: list[str] | None = None, prog: str = "miles train") -> int:
    if argv is not None and any(a.split("=")[0] == "--from-logs" for a in argv):
        from miles_ros.commands.train_logs import main as from_logs

        return from_logs(argv, prog)  # fine-tuning a skill's active version on logs
    from miles_ros.runtime.supervised import MOTOR_FILTERS

    # --nproc starts torchrun with this command again: `python -m miles_ros.cli train ...`
    entry = ["-m", "miles_ros.cli", "train"]
    return base.main(argv, prog, motor_filters=MOTOR_FILTERS, entry=entry)
