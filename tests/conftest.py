"""Shared test setup: repository root on sys.path (for runs without `pip install -e`), a
ROS domain per pytest-xdist worker (tests/ros_domains.py), SIGINT's default meaning in the
workers, the hypothesis profile (randomized every run with the seed printed, a larger
example budget in CI), and the order: the modules that load the language model first, then
those with ``slow`` tests."""

import os
import random
import signal
import sys
from pathlib import Path

# Before anything loads OpenMP: numba's workers must sleep, not spin, or they starve
# torch on 2 cores (see policies/__init__.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# Before numpy loads OpenBLAS (its pthreads build reads this once): one BLAS thread in a
# worker and the processes its tests start. Both workers keep both cores busy already, and
# OpenBLAS's threads spin after each call: a (307200, 3) @ (3, 3) product cost 72 ms of CPU
# with its threads on the loaded 2 cores, 3 ms with one.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.ros_domains import ENVIRONMENT_DOMAIN  # noqa: E402

# Code that takes its ROS domain from the environment (rclpy's default context,
# `miles up` without --domain-id) runs on this worker's own domain, never on a parallel worker's.
os.environ["ROS_DOMAIN_ID"] = str(ENVIRONMENT_DOMAIN)

# pytest-xdist's workers start with SIGINT ignored, and a child process inherits that (the
# Ctrl-C tests' `miles up` would never see their Ctrl-C): give SIGINT its default meaning.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

from hypothesis import core, settings  # noqa: E402

# Property tests scale their own example counts by max_examples / 100 (see
# tests/safety/safety_harness.py: ``examples``): a developer's `make test` runs
# DEV_EXAMPLES_SCALE x, CI (``CI=true``) CI_EXAMPLES_SCALE x. Every run draws a fresh seed,
# so the examples add up over runs; CI keeps the large budget.
DEV_EXAMPLES_SCALE = 0.5
CI_EXAMPLES_SCALE = 4
settings.register_profile("dev", max_examples=int(100 * DEV_EXAMPLES_SCALE), print_blob=True)
settings.register_profile("ci", max_examples=100 * CI_EXAMPLES_SCALE, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("1", "true") else "dev")

_seed: int | None = None


def pytest_configure(config):
    """One random seed per run for every hypothesis test (``--hypothesis-seed=N`` replays
    a run); printed in the summary."""
    global _seed
    given = config.getoption("hypothesis_seed", None)
    _seed = int(given) if given not in (None, "") else random.SystemRandom().randrange(2**32)
    core.global_force_seed = _seed


def _module(item) -> str:
    return item.nodeid.split("::")[0]


def pytest_collection_modifyitems(config, items):
    """The modules that load the embedded language model in the test process (the
    session fixture ``real_lm``, 5-15 s a load) run first, together: pytest-xdist's work
    stealing hands each worker a block of the collection and moves the tail of the longest
    queue to an idle worker, and a module split between the workers would load the model
    on each. Then every module with a test marked ``slow``, each module whole (its module
    fixtures are built once): with the long tests up front the run ends on short ones, not
    on a minute-long test started last while the other worker idles."""
    model = {_module(item) for item in items if "real_lm" in item.fixturenames}
    slow = {_module(item) for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (_module(item) not in model, _module(item) not in slow))


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(
        f"hypothesis profile {settings.get_current_profile_name()!r}, seed {_seed} "
        f"(replay: pytest --hypothesis-seed={_seed})"
    )
