"""``miles up`` as a user runs it, for the tests that start it: a subprocess of this Python
from the repository root, its output unbuffered and read as text."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def miles_up(*args: str) -> Iterator[subprocess.Popen]:
    """``miles up ARGS`` (stdout and stderr piped), killed on leaving the block if it
    still runs. Its manager remembers nothing (``--memory :memory:`` unless ARGS name a
    memory): a test neither reads nor fills the machine's memory of earlier goals."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    memory = [] if "--memory" in args else ["--memory", ":memory:"]
    process = subprocess.Popen(
        [sys.executable, "-m", "miles_ros.cli", "up", *memory, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def lines_until(process: subprocess.Popen, text: str) -> list[str]:
    """``process``'s output lines up to the first that holds ``text`` (all, at its end)."""
    seen = []
    for line in process.stdout:  # blocks until `miles up` prints it
        seen.append(line)
        if text in line:
            break
    return seen
