"""Canary rollout: a seeded share of a skill's requests runs a candidate version for real
(behind the same safety supervisor, whose limits never change for it), and two sequential
tests decide after each of its outcomes whether to promote it, roll it back or go on.

The success test (:mod:`~miles_ros.runtime.rollout.sprt`) is an SPRT on success: H0, the
candidate succeeds as often as the active version; H1, ``delta`` less often. The active's
rate is measured on the same stream of requests (the ones the canary left to it) once it
has ``min_baseline`` outcomes, before that it is the card's (its supervised evidence, else
its evaluation); ``baseline`` > 0 fixes it.

The intervention test is the same SPRT on *excess* requests: a request whose supervisor
interventions pass the reference (:meth:`Canary.intervention_reference`:
``max_interventions``, and once the active version has ``min_baseline`` outcomes on the
stream the larger of that and ``intervention_ratio`` times the active's own 95th
percentile there). H0, the candidate's requests pass it as often as the active's do on
the same stream (Laplace's rule; ``excess_rate`` before ``min_baseline``); H1,
``excess_delta`` more often. No single count decides: a changed cell, or a loaded
machine, makes every version need the supervisor more (interventions per request are
mostly acceleration and jerk clamps of late commands: docs/training.md, the loop), and
the test compares the candidate with the active version there.

Each test runs at ``alpha / 2`` (so a candidate as good as the active is rolled back by
either at most about ``alpha`` of the time) and ``beta``. Rollback: either test rejects
H0. Promotion: both accept it at once (the success test's promotion waits for the
intervention test). Beside the tests, a hard per-request bound,
``abort_interventions``, far over what a sound version reaches: a candidate request over
it falls back to the active version at once (mid-request, no goal lost) and counts as a
failure and an excess. After a rollback, and after a promotion (which only decides: the
library's promote acts on it), every request goes to the active version.

Every decision (``continue`` included) is a record with its evidence: the counts, both
log-likelihood ratios, the thresholds, the baselines and where they came from, the
request's interventions and the reference. The records go to the logger, to a bounded
history and, when a path is given, to a JSON-lines file.
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from miles_ros.interfaces import CANARY_CONTINUE, CANARY_PROMOTE, CANARY_ROLLBACK
from miles_ros.runtime.rollout.sprt import (
    bernoulli_llr,
    hypotheses,
    sprt_decision,
    sprt_thresholds,
)
from policies.cards import SkillCard

logger = logging.getLogger(__name__)

DECISIONS_KEPT = 256
"""Decision records kept in memory (the JSON-lines file keeps every one)."""
ACTIVE_INTERVENTIONS_KEPT = 1000
"""The active version's latest requests whose interventions set the canary's bound."""
INTERVENTION_QUANTILE = 0.95
"""The quantile of the active version's interventions per request the bound scales."""


@dataclass(frozen=True)
class CanaryConfig:
    """One skill's canary (config/skills.yaml's ``canary``: ``{SKILL: {candidate: DIR,
    ...}}``)."""

    candidate: str
    """The candidate's skill directory."""
    share: float = 0.2
    """Fraction of the skill's requests that go to the candidate (seeded draw)."""
    seed: int = 0
    """Seed of the routing draw."""
    alpha: float = 0.05
    """Largest rate of rolling back a candidate as good as the active version."""
    beta: float = 0.05
    """Largest rate of promoting a candidate ``delta`` worse."""
    delta: float = 0.3
    """The success-rate drop the test must catch (H1: baseline - delta)."""
    max_interventions: int = 20
    """The reference of the intervention test until the active version has
    ``min_baseline`` outcomes on the stream, its floor after: a candidate request with
    more supervisor interventions is an excess (the module docstring)."""
    intervention_ratio: float = 1.5
    """Once the active version has ``min_baseline`` outcomes on the stream, the reference
    is at least this times its 95th percentile of interventions per request (0: the
    reference is ``max_interventions`` only)."""
    excess_rate: float = 0.1
    """H0's excess rate of the intervention test until the active version has
    ``min_baseline`` outcomes on the stream (then: the active's own, measured)."""
    excess_delta: float = 0.4
    """The rise in the excess rate the intervention test must catch (H1: H0's +
    excess_delta)."""
    abort_interventions: int = 500
    """Supervisor interventions one candidate request may cause at all; more: the request
    falls back to the active version at once and counts as a failure and an excess (0:
    no such bound)."""
    baseline: float = 0.0
    """H0's success rate; 0: measured (the module docstring)."""
    min_baseline: int = 20
    """Active outcomes on the stream before its measured rate replaces the card's."""

    def __post_init__(self) -> None:
        if not self.candidate:
            raise ValueError("canary: a candidate skill directory is needed")
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"canary share must be in [0, 1], got {self.share!r}")
        counts = (self.max_interventions, self.abort_interventions, self.min_baseline)
        if min(counts) < 0 or self.intervention_ratio < 0:
            raise ValueError(
                "canary max_interventions, abort_interventions, intervention_ratio and "
                "min_baseline must be >= 0"
            )
        if not 0.0 < self.excess_rate < 1.0:
            raise ValueError(f"canary excess_rate must be in (0, 1), got {self.excess_rate!r}")
        if not 0.0 <= self.baseline < 1.0:
            raise ValueError(f"canary baseline must be in [0, 1), got {self.baseline!r}")
        sprt_thresholds(self.alpha / 2.0, self.beta)
        hypotheses(0.9, self.delta)
        hypotheses(0.9, self.excess_delta)


def card_success(card: SkillCard) -> float | None:
    """The success rate a card claims: its supervised evidence, else its evaluation."""
    supervised = (card.data.get("evidence") or {}).get("supervised") or {}
    for source in (supervised, card.evaluation or {}):
        rate = source.get("success_rate")
        if isinstance(rate, int | float):
            return float(rate)
    return None


class DecisionLog:
    """Decision records: the logger, a bounded history, and a JSON-lines file when
    ``path`` is set (appended, one object a line)."""

    def __init__(
        self, path: str | Path | None = None, kept: int = DECISIONS_KEPT, what: str = "canary"
    ) -> None:
        self.path = Path(path) if path else None
        self.what = what
        """What decides (the log lines' first word)."""
        self.history: deque[dict] = deque(maxlen=kept)

    def add(self, record: dict) -> None:
        self.history.append(record)
        level = logging.INFO if record["decision"] == CANARY_CONTINUE else logging.WARNING
        text = None  # the record as JSON, made only where a log line or the file takes it
        if logger.isEnabledFor(level):
            text = json.dumps(record)
            logger.log(
                level, "%s %s: %s (%s)", self.what, record["skill"], record["decision"], text
            )
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write((text or json.dumps(record)) + "\n")


class Canary:
    """One skill's canary rollout (the module docstring)."""

    def __init__(
        self,
        skill: str,
        config: CanaryConfig,
        card_rate: float | None,
        log: DecisionLog | None = None,
    ) -> None:
        self.skill = skill
        self.config = config
        self.card_rate = card_rate
        self.log = log or DecisionLog()
        self.thresholds = sprt_thresholds(config.alpha / 2.0, config.beta)
        """Both tests' thresholds (each at alpha / 2: the module docstring)."""
        self.decision = CANARY_CONTINUE
        """The latest decision; promote or rollback end the rollout."""
        self.successes = self.failures = 0
        """The candidate's outcomes."""
        self.clean = self.excesses = 0
        """The candidate's requests within and over the intervention reference."""
        self.active_successes = self.active_failures = 0
        """The active version's outcomes on the same stream."""
        self.active_interventions: deque[int] = deque(maxlen=ACTIVE_INTERVENTIONS_KEPT)
        """The active version's interventions per request on the stream (latest first
        out)."""
        self.decided: dict[str, str] = {}
        """What each test says after the latest candidate outcome (``success``,
        ``interventions``)."""
        self.routed = 0
        """Requests the canary drew for (while it went on)."""
        self._rng = random.Random(config.seed)
        self.apply_promotion: Callable[[dict], str] | None = None
        """Carries out a promotion when the test decides it (the record in, what it did
        out, kept as the record's ``applied``); None: the decision is only recorded."""

    @property
    def open(self) -> bool:
        """Whether requests may still go to the candidate."""
        return self.decision == CANARY_CONTINUE

    def draw(self) -> bool:
        """Whether this request goes to the candidate (the seeded share); always False
        once decided."""
        if not self.open:
            return False
        self.routed += 1
        return self._rng.random() < self.config.share

    def baseline(self) -> tuple[float, str]:
        """H0's success rate and where it comes from (``config``, ``stream``, ``card``)."""
        cfg = self.config
        if cfg.baseline > 0.0:
            return cfg.baseline, "config"
        n = self.active_successes + self.active_failures
        if n >= max(cfg.min_baseline, 1) or self.card_rate is None:
            # Laplace's rule: a short run of successes is not a rate of 1
            return (self.active_successes + 1.0) / (n + 2.0), "stream"
        return self.card_rate, "card"

    def intervention_reference(self) -> tuple[int, str]:
        """The interventions over which a candidate request is an excess, and where it
        comes from (``config``: ``max_interventions``; ``stream``: the active version's
        own count, the module docstring)."""
        cfg = self.config
        seen = sorted(self.active_interventions)
        if cfg.intervention_ratio <= 0.0 or len(seen) < max(cfg.min_baseline, 1):
            return cfg.max_interventions, "config"
        quantile = seen[math.ceil(INTERVENTION_QUANTILE * len(seen)) - 1]
        scaled = math.ceil(cfg.intervention_ratio * quantile)
        if scaled <= cfg.max_interventions:
            return cfg.max_interventions, "config"
        return scaled, "stream"

    def excess_baseline(self, reference: int) -> tuple[float, str]:
        """H0's excess rate: how often the active version's requests on the stream pass
        ``reference`` (Laplace's rule), ``excess_rate`` before ``min_baseline``."""
        cfg = self.config
        seen = self.active_interventions
        if len(seen) < max(cfg.min_baseline, 1):
            return cfg.excess_rate, "config"
        over = sum(1 for n in seen if n > reference)
        return (over + 1.0) / (len(seen) + 2.0), "stream"

    def intervention_bound(self) -> int | None:
        """The hard per-request bound (``abort_interventions``; None: none): a running
        candidate request over it falls back at once."""
        return self.config.abort_interventions or None

    def active_outcome(self, succeeded: bool, interventions: int | None = None) -> None:
        """An outcome of the active version on this skill's stream, with the supervisor's
        interventions during the request when known."""
        if succeeded:
            self.active_successes += 1
        else:
            self.active_failures += 1
        if interventions is not None:
            self.active_interventions.append(max(int(interventions), 0))

    def candidate_outcome(self, request: str, succeeded: bool, interventions: int) -> dict:
        """An outcome of the candidate: the decision both tests lead to, as its record."""
        cfg = self.config
        interventions = max(int(interventions), 0)
        bound = self.intervention_bound()
        aborted = bound is not None and interventions > bound
        succeeded = bool(succeeded) and not aborted
        reference, reference_source = self.intervention_reference()
        excess = aborted or interventions > reference
        if succeeded:
            self.successes += 1
        else:
            self.failures += 1
        if excess:
            self.excesses += 1
        else:
            self.clean += 1
        rate, source = self.baseline()
        p0, p1 = hypotheses(rate, cfg.delta)
        llr = bernoulli_llr(self.successes, self.failures, p0, p1)
        # the intervention test on "clean" requests: H0's clean rate, H1's excess_delta less
        excess_rate, excess_source = self.excess_baseline(reference)
        c0, c1 = hypotheses(1.0 - excess_rate, cfg.excess_delta)
        excess_llr = bernoulli_llr(self.clean, self.excesses, c0, c1)
        was_open = self.open
        self.decided = {
            "success": sprt_decision(llr, self.thresholds),
            "interventions": sprt_decision(excess_llr, self.thresholds),
        }
        decision, reason = self.decision, "decided before"
        if was_open:
            decision, reason = CANARY_CONTINUE, "sequential tests"
            rejected = [k for k, d in self.decided.items() if d == CANARY_ROLLBACK]
            if rejected:
                decision, reason = CANARY_ROLLBACK, f"{' and '.join(rejected)} test rejected H0"
            elif all(d == CANARY_PROMOTE for d in self.decided.values()):
                decision, reason = CANARY_PROMOTE, "both tests accepted H0"
        self.decision = decision
        record = {
            "time": round(time.time(), 3),
            "skill": self.skill,
            "request": request,
            "decision": decision,
            "reason": reason,
            "succeeded": succeeded,
            "interventions": interventions,
            "intervention_bound": bound,
            "aborted": aborted,
            "intervention_reference": reference,
            "intervention_reference_source": reference_source,
            "excess": excess,
            "successes": self.successes,
            "failures": self.failures,
            "clean": self.clean,
            "excesses": self.excesses,
            "active_successes": self.active_successes,
            "active_failures": self.active_failures,
            "active_requests_counted": len(self.active_interventions),
            "baseline": round(p0, 6),
            "baseline_source": source,
            "p1": round(p1, 6),
            "llr": round(llr, 6),
            "excess_baseline": round(1.0 - c0, 6),
            "excess_baseline_source": excess_source,
            "excess_p1": round(1.0 - c1, 6),
            "excess_llr": round(excess_llr, 6),
            "tests": dict(self.decided),
            "lower": round(self.thresholds.lower, 6),
            "upper": round(self.thresholds.upper, 6),
            "config": asdict(cfg),
        }
        if was_open and decision == CANARY_PROMOTE and self.apply_promotion is not None:
            record["applied"] = self.apply_promotion(record)
        self.log.add(record)
        return record
