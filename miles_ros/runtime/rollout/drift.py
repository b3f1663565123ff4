"""Drift of the active version: its live success tested against its card's, and a
continuous per-request signal against the version's own first requests.

A skill's card says how often it succeeds (:func:`~miles_ros.runtime.rollout.canary.card_success`:
its supervised evidence, else its evaluation). When the cell changes under it (a heavier
cube, a worn gripper) the live rate drops, and nothing else says so. Success alone is a
slow signal: a drop from 98.5 % to 90 % takes Wald's test about 50 requests. The monitor
therefore runs two tests after each outcome of the active version and alarms when either
fires (:data:`~miles_ros.interfaces.DRIFT_DETECTED`); the alarm latches until
:meth:`Drift.reset` (the operator's, or a new active version's), so one drop raises one
alarm, and the record names the test that fired (``fired``).

- **Success** (:mod:`~miles_ros.runtime.rollout.sprt`): Wald's SPRT, H0 the card's rate
  ``p0``, H1 ``p0 - delta``. Accepting H0 (:data:`~miles_ros.interfaces.DRIFT_STEADY`)
  starts a fresh test on the next outcome, so a drop after a long good run is still caught
  as quickly (the repeated SPRT).
- **Signal** (:class:`RankCusum`): one number per request that describes how the skill
  behaved (:data:`SIGNALS`; by default ``action``, the mean size of the arm's commanded
  joint step per control period: a policy meeting a cell it was not trained for moves
  differently long before it fails more often). Its reference is the active version's
  first ``reference`` tested requests on this cell, not the card: a card's episodes run
  offline, at another tempo and mix than a live cell, so a reference from them would flag
  the deployment itself. After the reference each request's value is ranked among the
  reference's and turned into a normal score, ``Phi^-1((rank + 0.5) / (N + 1))`` (mean 0,
  about unit variance, whatever the statistic's distribution while the cell is
  unchanged), and two one-sided CUSUMs, ``S+ = max(0, S+ + score - allowance)`` and
  ``S- = max(0, S- - score - allowance)``, fire when either reaches ``threshold`` (a
  change either way is a change). The false alarm rate depends only on the ranks of
  exchangeable values, so it is the same for every continuous stationary stream: seeded
  simulation measures it (:func:`rank_cusum_false_alarms`; the tests hold the defaults
  under :data:`FALSE_ALARM_BOUND` within :data:`FALSE_ALARM_REQUESTS` requests). A cell
  that changed before the reference was taken is not seen by the signal: the success
  test against the card stays for that.

Every outcome gives a decision record with both tests' evidence, as the canary's.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from statistics import NormalDist, median

import numpy as np

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

SUCCESS = "success"
"""``fired`` of a record whose alarm the success test raised."""
SIGNALS = ("action", "steps", "return", "interventions")
"""The per-request measures a signal may be: ``action``, the mean L2 norm of the arm's
commanded joint step (rad) over the control periods the policy acted; ``steps``, the
control periods of the skill's own phase; ``return``, the dense return; ``interventions``,
the supervisor's interventions during the request."""
HIGHER, LOWER = "higher", "lower"
"""``direction`` of a signal alarm: the requests' values moved above or below the
reference's."""
FALSE_ALARM_REQUESTS = 100
"""Requests after the reference over which the signal's false alarm rate is bounded."""
FALSE_ALARM_BOUND = 0.05
"""The signal test's largest probability of an alarm within :data:`FALSE_ALARM_REQUESTS`
requests of an unchanged cell (:class:`DriftConfig`'s defaults hold it)."""

_NORMAL = NormalDist()


@dataclass(frozen=True)
class DriftConfig:
    """One skill's drift monitor."""

    alpha: float = 0.01
    """Largest rate of a false alarm per success test (a skill as good as its card flagged)."""
    beta: float = 0.05
    """Largest rate of missing a drop of ``delta`` within one success test."""
    delta: float = 0.3
    """The success-rate drop to catch (H1: the card's rate - delta)."""
    signal: str = "action"
    """The continuous signal (a :data:`SIGNALS` name; "": success alone)."""
    reference: int = 30
    """Tested requests of the active version whose signal values are the reference."""
    allowance: float = 0.5
    """The CUSUM's allowance ``k`` per request, in normal-score units: half the shift it
    is tuned to catch (one reference standard deviation)."""
    threshold: float = 9.0
    """The CUSUM's threshold ``h``; with the defaults an unchanged cell raises a false
    alarm within :data:`FALSE_ALARM_REQUESTS` requests with probability under
    :data:`FALSE_ALARM_BOUND`."""

    def __post_init__(self) -> None:
        sprt_thresholds(self.alpha, self.beta)
        hypotheses(0.9, self.delta)
        if self.signal and self.signal not in SIGNALS:
            names = ", ".join(SIGNALS)
            raise ValueError(f"drift signal must be one of {names} or '', got {self.signal!r}")
        if self.reference < 2:
            raise ValueError(f"drift reference must be >= 2 requests, got {self.reference!r}")
        if not (self.allowance >= 0.0 and self.threshold > 0.0):
            raise ValueError("drift allowance must be >= 0 and threshold > 0")


def request_statistic(signal: str, measures: Mapping[str, float]) -> float | None:
    """The signal's value of one request; None when the request did not measure it (a
    skill whose policy never acted)."""
    value = measures.get(signal)
    if value is None or not math.isfinite(float(value)):
        return None
    return float(value)


def normal_score(reference: list[float], value: float) -> float:
    """``Phi^-1((rank + 0.5) / (N + 1))`` of ``value`` among the sorted ``reference`` of N
    values (the rank counts ties half): uniform ranks give scores of mean 0."""
    below = bisect.bisect_left(reference, value)
    rank = 0.5 * (below + bisect.bisect_right(reference, value))
    return _NORMAL.inv_cdf((rank + 0.5) / (len(reference) + 1))


class RankCusum:
    """The signal test (module docstring): a reference of the first ``size`` values, then
    two one-sided CUSUMs of their normal scores."""

    def __init__(self, size: int, allowance: float, threshold: float) -> None:
        self.size, self.allowance, self.threshold = size, allowance, threshold
        self.reference: list[float] = []
        """The reference values, sorted."""
        self.higher = self.lower = 0.0
        """The CUSUMs of values above and below the reference's."""
        self.score: float | None = None
        """The latest value's normal score (None while the reference fills)."""

    @property
    def ready(self) -> bool:
        return len(self.reference) >= self.size

    @property
    def direction(self) -> str | None:
        """Which CUSUM reached the threshold (None: neither)."""
        if max(self.higher, self.lower) < self.threshold:
            return None
        return HIGHER if self.higher >= self.lower else LOWER

    def add(self, value: float) -> bool:
        """One request's value; True when a CUSUM reaches the threshold."""
        if not self.ready:
            bisect.insort(self.reference, value)
            self.score = None
            return False
        self.score = score = normal_score(self.reference, value)
        self.higher = max(0.0, self.higher + score - self.allowance)
        self.lower = max(0.0, self.lower - score - self.allowance)
        return self.direction is not None

    def evidence(self) -> dict:
        return {
            "reference_n": len(self.reference),
            "reference_median": (round(median(self.reference), 6) if self.reference else None),
            "score": None if self.score is None else round(self.score, 6),
            "cusum_higher": round(self.higher, 6),
            "cusum_lower": round(self.lower, 6),
            "direction": self.direction,
            "allowance": self.allowance,
            "threshold": self.threshold,
        }


def rank_cusum_false_alarms(
    config: DriftConfig, requests: int = FALSE_ALARM_REQUESTS, streams: int = 2000, seed: int = 0
) -> float:
    """The share of ``streams`` seeded stationary streams on which the signal test alarms
    within ``requests`` requests after its reference (uniform values: the rate is the same
    for every continuous stationary stream, the test seeing only ranks)."""
    rng = np.random.default_rng(seed)
    alarms = 0
    for _ in range(streams):
        test = RankCusum(config.reference, config.allowance, config.threshold)
        values = rng.random(config.reference + requests)
        alarms += any(test.add(float(v)) for v in values)
    return alarms / streams


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
        self._config_record = asdict(self.config)
        """The (frozen) config as every record states it, built once."""
        self.log = log or DecisionLog(what="drift")
        self.outcomes = 0
        """Outcomes seen since the last reset."""
        self.detected_at: int | None = None
        """The outcome (1-based, since the last reset) that raised the alarm."""
        self.fired: str | None = None
        """The test that raised it: :data:`SUCCESS` or the signal's name."""
        self.successes = self.failures = 0
        """The current success test's outcomes."""
        self.signal = self._signal_test()
        self.version: int | None = None
        """The active version watched (:meth:`follow`); None until the first outcome."""

    def _signal_test(self) -> RankCusum | None:
        cfg = self.config
        return RankCusum(cfg.reference, cfg.allowance, cfg.threshold) if cfg.signal else None

    @property
    def detected(self) -> bool:
        return self.detected_at is not None

    def reset(self, card_rate: float | None = None) -> None:
        """A fresh watch (after the operator acted, or of a new active version with its
        own card's ``card_rate``): the signal's reference is taken again."""
        if card_rate is not None:
            self.p0, self.p1 = hypotheses(card_rate, self.config.delta)
        self.outcomes = self.successes = self.failures = 0
        self.detected_at = self.fired = None
        self.signal = self._signal_test()

    def follow(self, version: int | None, card_rate: float | None) -> None:
        """The version whose outcome comes next: a version other than the one watched
        (promoted, rolled back to) gets a fresh watch, its card's ``card_rate`` and its
        own reference (its actions are not the old version's)."""
        if self.version is not None and version != self.version:
            self.reset(card_rate)
        self.version = version

    def outcome(
        self, request: str, succeeded: bool, measures: Mapping[str, float] | None = None
    ) -> dict:
        """An outcome of the active version, with the request's ``measures`` (the
        :data:`SIGNALS` it has): the decision it leads to, as its record."""
        self.outcomes += 1
        statistic = None
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
                self.fired = SUCCESS
            if self.signal is not None:
                statistic = request_statistic(self.config.signal, measures or {})
                if statistic is not None and self.signal.add(statistic) and not self.fired:
                    decision, self.fired = DRIFT_DETECTED, self.config.signal
            if decision == DRIFT_DETECTED:
                self.detected_at = self.outcomes
        llr = bernoulli_llr(self.successes, self.failures, self.p0, self.p1)
        record = {
            "time": round(time.time(), 3),
            "skill": self.skill,
            "request": request,
            "decision": decision,
            "fired": self.fired,
            "succeeded": bool(succeeded),
            "version": self.version,
            "outcomes": self.outcomes,
            "detected_at": self.detected_at,
            "successes": self.successes,
            "failures": self.failures,
            "card_rate": round(self.p0, 6),
            "p1": round(self.p1, 6),
            "llr": round(llr, 6),
            "lower": round(self.thresholds.lower, 6),
            "upper": round(self.thresholds.upper, 6),
            "config": dict(self._config_record),
        }
        if self.signal is not None:
            record["signal"] = {
                "name": self.config.signal,
                "statistic": None if statistic is None else round(statistic, 6),
                **self.signal.evidence(),
            }
        if decision == DRIFT_STEADY:  # H0 accepted: the next outcome starts a fresh test
            self.successes = self.failures = 0
        self.log.add(record)
        return record
