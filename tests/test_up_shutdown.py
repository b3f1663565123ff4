"""Ctrl-C on `miles up` exits 0 without a traceback, whenever it comes.

`miles up` ran as a user runs it (a subprocess), on its lightest graph (``--sim none
--no-manager``: safety_node and skill_node), and SIGINT sent at varied moments: while the
nodes are being built, right after the graph is up, and while it spins. Each cycle takes
2-4 s (process start, numba cache loads), so CI (``CI=true``) runs the 50 cycles of
issue 12 and a local ``make test`` runs 10; cycles run a few at a time, each on its own
ROS domain (tests/ros_domains.py). The delays are drawn from a seed
printed on failure.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.miles_up import lines_until, miles_up
from tests.ros_domains import domain_id

CYCLES = 50 if os.environ.get("CI", "").lower() == "true" else 10
WORKERS = max(2, min(4, (os.cpu_count() or 1) // 2))  # 2 on 2 cores: a cycle waits on I/O
SEED = random.SystemRandom().randrange(1 << 30)


def _delays(cycle: int, rng: random.Random) -> tuple[str, float]:
    """(the line to wait for, then seconds to wait before SIGINT) for ``cycle``."""
    phase = cycle % 3
    if phase == 0:  # while the nodes are being built (or just after)
        return "starting", rng.uniform(0.0, 1.5)
    if phase == 1:  # right after the graph is up
        return " up ", rng.uniform(0.0, 0.05)
    return " up ", rng.uniform(0.05, 0.6)  # while it spins


def _cycle(cycle: int) -> tuple[int, str, str, float, int | None, str]:
    rng = random.Random(SEED + cycle)
    wait_for, delay = _delays(cycle, rng)
    domain = domain_id()
    args = ("--sim", "none", "--no-manager", "--domain-id", str(domain))
    with miles_up(*args) as process:
        seen = lines_until(process, wait_for)
        try:
            process.wait(timeout=delay)  # an exit now is a failure, reported below
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    return cycle, wait_for, "".join(seen) + out, delay, process.returncode, err


@pytest.mark.slow  # 25-50 s: ten `miles up` processes, two at a time
def test_ctrl_c_on_miles_up_exits_0_without_a_traceback():
    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(_cycle, range(CYCLES)))
    failures = [
        f"cycle {cycle}: SIGINT {delay:.2f} s after {wait_for.strip()!r}: rc {rc}\n"
        f"stdout:\n{out}\nstderr:\n{err[-3000:]}"
        for cycle, wait_for, out, delay, rc, err in results
        if rc != 0 or "Traceback" in err or "shutting down" not in out
    ]
    assert not failures, f"seed {SEED}, {len(failures)}/{CYCLES} failed:\n" + "\n".join(
        failures[:3]
    )


def test_stop_signals_turn_sigint_into_a_request_and_restore_the_handler():
    from miles_ros.ros.signals import StopSignals

    before = signal.getsignal(signal.SIGINT)
    with StopSignals() as stop:
        assert not stop()
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt
        assert stop() and stop.signal_name == "SIGINT"
    assert signal.getsignal(signal.SIGINT) is before
