"""``miles export RUN_DIR``: :mod:`policies.commands.export` with the motor filters miles_ros
owns injected (as ``miles train`` does), so a run trained behind the safety supervisor that
recorded no evaluation (an imitation run) gets its card's ``affordance.center`` from an
evaluation at export in its own env (:func:`policies.export.evaluate_at_export`)."""

from __future__ import annotations

import argparse

from policies.commands import export as base


def build_parser(prog: str = "miles export") -> argparse.ArgumentParser:
    return base.build_parser(prog)


def main(argv: list[str] | None = None, prog: str = "miles export") -> int:
    from miles_ros.runtime.supervised import MOTOR_FILTERS

    return base.main(argv, prog, motor_filters=MOTOR_FILTERS)
