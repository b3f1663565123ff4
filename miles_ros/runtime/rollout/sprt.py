"""Wald's sequential probability ratio test on a stream of Bernoulli outcomes: the
canary's success test (:mod:`miles_ros.runtime.rollout.canary`).

H0: the candidate succeeds at rate ``p0`` (the active version's); H1: at ``p1 = p0 -
delta``. The log-likelihood ratio ``log L(H1) / L(H0)`` of ``s`` successes and ``f``
failures is ``s log(p1/p0) + f log((1-p1)/(1-p0))``: a failure pushes it up, a success
down. It is compared with Wald's thresholds after each outcome: at or above
``log((1-beta)/alpha)`` H0 is rejected (rollback: the candidate is worse), at or below
``log(beta/(1-alpha))`` H1 is rejected (promote); in between the test continues. Then the
chance of rolling back a candidate as good as the active is at most about ``alpha``, and
of promoting one ``delta`` worse at most about ``beta`` (Wald's bounds; the overshoot of
discrete outcomes makes the real rates smaller: tests/runtime/test_rollout_sprt.py
measures them on seeded streams).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from miles_ros.interfaces import CANARY_CONTINUE, CANARY_PROMOTE, CANARY_ROLLBACK

RATE_FLOOR = 1e-3
"""Success rates are kept in [RATE_FLOOR, 1 - RATE_FLOOR]: a baseline measured at 100 %
would make a single failure infinitely unlikely under H0."""


@dataclass(frozen=True)
class Thresholds:
    """Wald's decision thresholds on the log-likelihood ratio."""

    lower: float
    """At or below: accept H0 (promote)."""
    upper: float
    """At or above: reject H0 (rollback)."""


def sprt_thresholds(alpha: float, beta: float) -> Thresholds:
    """Thresholds for a false-rollback rate ``alpha`` (rejecting H0 when it holds) and a
    false-promotion rate ``beta`` (accepting H0 when H1 holds), both in (0, 0.5)."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < value < 0.5:
            raise ValueError(f"{name} must be in (0, 0.5), got {value!r}")
    return Thresholds(math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))


def hypotheses(p0: float, delta: float) -> tuple[float, float]:
    """(p0, p1) kept inside [RATE_FLOOR, 1 - RATE_FLOOR] with p1 = p0 - delta below p0."""
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    p0 = min(max(float(p0), RATE_FLOOR + delta), 1.0 - RATE_FLOOR)
    return p0, max(p0 - delta, RATE_FLOOR)


def bernoulli_llr(successes: int, failures: int, p0: float, p1: float) -> float:
    """``log L(H1) / L(H0)`` of ``successes`` and ``failures`` under success rates ``p1``
    (H1) and ``p0`` (H0)."""
    return successes * math.log(p1 / p0) + failures * math.log((1.0 - p1) / (1.0 - p0))


def sprt_decision(llr: float, thresholds: Thresholds) -> str:
    """``rollback``, ``promote`` or ``continue`` (the canary decisions of
    :mod:`miles_ros.interfaces`) for the log-likelihood ratio ``llr``."""
    if llr >= thresholds.upper:
        return CANARY_ROLLBACK
    if llr <= thresholds.lower:
        return CANARY_PROMOTE
    return CANARY_CONTINUE
