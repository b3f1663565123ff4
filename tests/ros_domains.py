"""ROS domain ids for the tests: every graph, probe and `miles up` a test starts gets its
own, so nodes of two tests never hear each other.

Under pytest-xdist each worker owns a band of ids (``1..LAST`` split by the worker count),
so graphs in parallel workers never share a domain; inside its band a worker hands out ids
in turn, starting at an offset drawn from its pid (two separate pytest runs on one machine
rarely meet). The band's first id is the worker's ``ROS_DOMAIN_ID`` (tests/conftest.py
sets it), for code that takes the domain from the environment. ``miles demo`` does not: by
default it draws a private id of 201-230, inside a worker's band, so its tests pass
``--domain-id`` (a demo on a drawn id once stopped a parallel test's skill)."""

from __future__ import annotations

import itertools
import os

LAST = 230
"""The highest id handed out (Fast DDS takes 0..232; 0 is the default domain, left alone)."""


def _band() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker.removeprefix("gw") or 0)
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    size = LAST // count
    return range(1 + index * size, 1 + (index + 1) * size)


BAND = _band()
ENVIRONMENT_DOMAIN = BAND[0]
"""The worker's ``ROS_DOMAIN_ID`` (not handed out by :func:`domain_id`)."""
_ids = itertools.count(os.getpid() * 7)


def domain_id() -> int:
    """A fresh ROS domain id of this worker's band (the environment's one excepted)."""
    return BAND[1 + next(_ids) % (len(BAND) - 1)]
