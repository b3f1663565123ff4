"""``miles console`` as bench/ros.py starts it with the console apart: the same command
(:mod:`miles_ros.commands.console`), each call of its bridge's ``estop`` (the console's
handler taking a press) timed with ``time.perf_counter``, each time appended as a line to
the file named in :data:`PRESSES_ENV` once the call is made (a stop that has to kill this
process loses none). On Linux that clock is
CLOCK_MONOTONIC, one for every process of the machine, so the bench sets these times
beside the supervisor's latches in the graph's process: ``estop_latch_ms`` across two
processes (``python -m bench.console_timed`` from the repository root)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

PRESSES_ENV = "MILES_BENCH_PRESSES"
"""The file this process appends its press times to (seconds, one a line)."""


def main(argv: list[str]) -> int:
    from miles_ros.commands import console
    from miles_ros.ros.console_node import ConsoleBridge

    times = Path(os.environ.pop(PRESSES_ENV)).open("a")
    estop = ConsoleBridge.estop

    def timed_estop(self):
        pressed = time.perf_counter()
        future = estop(self)  # the calls are sent: the file is written after them
        times.write(f"{pressed!r}\n")
        times.flush()
        return future

    ConsoleBridge.estop = timed_estop
    try:
        return console.main(argv)
    finally:
        times.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
