"""``miles console`` as bench/ros.py starts it with the console apart: the same command
(:mod:`miles_ros.commands.console`), each call of its bridge's ``estop`` (the console's
handler taking a press) timed with ``time.perf_counter`` and the times written as JSON to
the file named in :data:`PRESSES_ENV` when the command ends. On Linux that clock is
CLOCK_MONOTONIC, one for every process of the machine, so the bench sets these times
beside the supervisor's latches in the graph's process: ``estop_latch_ms`` across two
processes (``python -m bench.console_timed`` from the repository root)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

PRESSES_ENV = "MILES_BENCH_PRESSES"
"""The file this process writes its press times to (a JSON list of seconds)."""


def main(argv: list[str]) -> int:
    from miles_ros.commands import console
    from miles_ros.ros.console_node import ConsoleBridge

    path = Path(os.environ.pop(PRESSES_ENV))
    pressed: list[float] = []
    estop = ConsoleBridge.estop

    def timed_estop(self):
        pressed.append(time.perf_counter())
        return estop(self)

    ConsoleBridge.estop = timed_estop
    try:
        return console.main(argv)
    finally:
        path.write_text(json.dumps(pressed))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
