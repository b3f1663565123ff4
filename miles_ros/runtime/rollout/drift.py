"""Drift of the active version: its live success tested sequentially against its card's.

A skill's card says how often it succeeds (:func:`~miles_ros.runtime.rollout.canary.card_success`:
its supervised evidence, else its evaluation). When the cell changes under it (a heavier
cube, a worn gripper) the live rate drops, and nothing else says so. The monitor runs
Wald's SPRT (:mod:`~miles_ros.runtime.rollout.sprt`) on the active version's outcomes:
H0, the card's rate ``p0``; H1, ``p0 - delta``. Rejecting H0 is a detection
(:data:`~miles_ros.interfaces.DRIFT_DETECTED`): the monitor latches until :meth:`Drift.reset`
(the operator's or a new version's), so one drop raises one alarm. Accepting H0
(:data:`~miles_ros.interfaces.DRIFT_STEADY`) starts a fresh test on the next outcome, so a
drop after a long good run is still caught as quickly (the repeated SPRT). Every outcome
gives a decision record with its evidence, as the canary's.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from miles_ros.interfaces import (
    CANARY_CONTINUE,
    CANARY_PROMOTE,
    CANARY_ROLLBACK,
    DRIFT_DETECTED,
    DRIFT_STEADY,
)
from miles_ros.runtime.rollout.canary import DecisionLog
from miles_ros.runtime.rollout.sprt import (
    bernoulli_llr,
    hypotheses,
    sprt_decision,
    sprt_thresholds,
)

_DRIFT_OF_SPRT = {
    CANARY_ROLLBACK: DRIFT_DETECTED,
    CANARY_PROMOTE: DRIFT_STEADY,
    CANARY_CONTINUE: CANARY_CONTINUE,
}
"""The SPRT's decisions (named for a canary) as a drift monitor's."""


@dataclass(frozen=True)
class DriftConfig:
    """One skill's drift monitor."""

    alpha: float = 0.01
    """Largest rate of a false alarm per test (a skill as good as its card flagged)."""
    beta: float = 0.05
    """Largest rate of missing a drop of ``delta`` within one test."""
    delta: float = 0.3
    """The success-rate drop to catch (H1: the card's rate - delta)."""

    def __post_init__(self) -> None:
        sprt_thresholds(self.alpha, self.beta)
        hypotheses(0.9, self.delta)


class Drift:
    """The drift monitor of one skill's active version (module docstring)."""

    def __init__(
        self,
        skill: str,
        card_rate: float,
        config: DriftConfig | None = None,
        log: DecisionLog | None = None,
    ) -> None:
        self.skill = skill
        self.config = config or DriftConfig()
        self.p0, self.p1 = hypotheses(card_rate, self.config.delta)
        self.thresholds = sprt_thresholds(self.config.alpha, self.config.beta)
        self.log = log or DecisionLog(what="drift")
        self.outcomes = 0
        """Outcomes seen since the last reset."""
        self.detected_at: int | None = None
        """The outcome (1-based, since the last reset) that raised the alarm."""
        self.successes = self.failures = 0
        """The current test's outcomes."""

    @property
    def detected(self) -> bool:
        return self.detected_at is not None

    def reset(self, card_rate: float | None = None) -> None:
        """A fresh watch (after the operator acted, or of a new active version with its
        own card's ``card_rate``)."""
        if card_rate is not None:
            self.p0, self.p1 = hypotheses(card_rate, self.config.delta)
        self.outcomes = self.successes = self.failures = 0
        self.detected_at = None

    def outcome(self, request: str, succeeded: bool) -> dict:
        """An outcome of the active version: the decision it leads to, as its record."""
        self.outcomes += 1
        if self.detected:
            decision = DRIFT_DETECTED
        else:
            if succeeded:
                self.successes += 1
            else:
                self.failures += 1
            llr = bernoulli_llr(self.successes, self.failures, self.p0, self.p1)
            decision = _DRIFT_OF_SPRT[sprt_decision(llr, self.thresholds)]
            if decision == DRIFT_DETECTED:
                self.detected_at = self.outcomes
        llr = bernoulli_llr(self.successes, self.failures, self.p0, self.p1)
        record = {
            "time": round(time.time(), 3),
            "skill": self.skill,
            "request": request,
            "decision": decision,
            "succeeded": bool(succeeded),
            "outcomes": self.outcomes,
            "detected_at": self.detected_at,
            "successes": self.successes,
            "failures": self.failures,
            "card_rate": round(self.p0, 6),
            "p1": round(self.p1, 6),
            "llr": round(llr, 6),
            "lower": round(self.thresholds.lower, 6),
            "upper": round(self.thresholds.upper, 6),
            "config": asdict(self.config),
        }
        if decision == DRIFT_STEADY:  # H0 accepted: the next outcome starts a fresh test
            self.successes = self.failures = 0
        self.log.add(record)
        return record
