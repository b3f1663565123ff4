"""``miles train TASK``: :mod:`policies.commands.train` with the motor filters miles_ros owns
injected, so a config's ``env.motor_filter: safety_supervisor`` trains (and evaluates)
behind the safety supervisor (:mod:`miles_ros.runtime.supervised`). Like ``miles eval
--supervised``, the supervisor is composed here, above policies/, never named by an
import path in a config."""

from __future__ import annotations

import argparse

from policies.commands import train as base


def build_parser(prog: str = "miles train") -> argparse.ArgumentParser:
    return base.build_parser(prog)


def main(argv: list[str] | None = None, prog: str = "miles train") -> int:
    from miles_ros.runtime.supervised import MOTOR_FILTERS

    # --nproc starts torchrun with this command again: `python -m miles_ros.cli train ...`
    entry = ["-m", "miles_ros.cli", "train"]
    return base.main(argv, prog, motor_filters=MOTOR_FILTERS, entry=entry)
