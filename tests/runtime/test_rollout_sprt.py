"""The canary's sequential test (miles_ros.runtime.rollout.sprt) on seeded simulated
outcome streams: its false-rollback and false-promotion rates stay within alpha and beta,
and how many requests it takes to decide."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.interfaces import CANARY_CONTINUE, CANARY_PROMOTE, CANARY_ROLLBACK
from miles_ros.runtime.rollout import (
    Canary,
    CanaryConfig,
    bernoulli_llr,
    hypotheses,
    sprt_decision,
    sprt_thresholds,
)

STREAMS = 2000
"""Seeded streams per error-rate estimate (the rate's standard error ~0.5 point)."""
MARGIN = 0.02
"""Allowance over Wald's bound alpha / (1 - beta) for the sampling error of STREAMS."""


def run_stream(rng, p_true, p0, delta, alpha, beta, limit=10_000):
    """(decision, requests) of one SPRT on outcomes drawn at ``p_true``."""
    thresholds = sprt_thresholds(alpha, beta)
    h0, h1 = hypotheses(p0, delta)
    successes = failures = 0
    while successes + failures < limit:
        if rng.random() < p_true:
            successes += 1
        else:
            failures += 1
        decision = sprt_decision(bernoulli_llr(successes, failures, h0, h1), thresholds)
        if decision != CANARY_CONTINUE:
            return decision, successes + failures
    return CANARY_CONTINUE, limit


def error_rates(p0, delta, alpha, beta, seed=0):
    """(false-rollback rate, mean requests) at p0 and (false-promotion rate, mean
    requests) at p0 - delta, over STREAMS seeded streams each."""
    rng = np.random.default_rng(seed)
    out = []
    for p_true, wrong in ((p0, CANARY_ROLLBACK), (p0 - delta, CANARY_PROMOTE)):
        runs = [run_stream(rng, p_true, p0, delta, alpha, beta) for _ in range(STREAMS)]
        assert all(d != CANARY_CONTINUE for d, _ in runs)  # every stream ends decided
        out.append((np.mean([d == wrong for d, _ in runs]), np.mean([n for _, n in runs])))
    return out


def test_thresholds_and_the_log_likelihood_ratio():
    t = sprt_thresholds(0.05, 0.1)
    assert t.upper == pytest.approx(math.log(0.9 / 0.05))
    assert t.lower == pytest.approx(math.log(0.1 / 0.95))
    p0, p1 = 0.9, 0.6
    llr = bernoulli_llr(3, 2, p0, p1)
    assert llr == pytest.approx(3 * math.log(p1 / p0) + 2 * math.log(0.4 / 0.1))
    assert bernoulli_llr(1, 0, p0, p1) < 0 < bernoulli_llr(0, 1, p0, p1)
    assert sprt_decision(t.upper, t) == CANARY_ROLLBACK
    assert sprt_decision(t.lower, t) == CANARY_PROMOTE
    assert sprt_decision(0.0, t) == CANARY_CONTINUE
    assert hypotheses(1.0, 0.3) == pytest.approx((0.999, 0.699))  # a perfect rate is floored
    for bad in ((0.0, 0.1), (0.1, 0.5), (0.6, 0.1)):
        with pytest.raises(ValueError):
            sprt_thresholds(*bad)


@pytest.mark.parametrize(
    "p0, delta, alpha, beta",
    [
        (0.985, 0.3, 0.05, 0.05),
        (0.9, 0.3, 0.05, 0.05),
        (0.8, 0.3, 0.1, 0.05),
        (0.9, 0.2, 0.05, 0.1),
    ],
)
def test_error_rates_on_simulated_streams_stay_within_alpha_and_beta(p0, delta, alpha, beta):
    """A candidate as good as the active is rolled back at most ~alpha of the time, one
    delta worse is promoted at most ~beta of the time (Wald: alpha / (1 - beta))."""
    (false_rollback, n_same), (false_promotion, n_worse) = error_rates(p0, delta, alpha, beta)
    assert false_rollback <= alpha / (1 - beta) + MARGIN
    assert false_promotion <= beta / (1 - alpha) + MARGIN
    assert n_same < 60 and n_worse < 60  # decided within tens of requests, not hundreds


def test_the_canary_decides_with_the_cards_rate_then_the_streams():
    """Before min_baseline active outcomes H0 is the card's rate; after, the stream's."""
    canary = Canary("reach", CanaryConfig("dir", min_baseline=3), card_rate=0.9)
    assert canary.baseline() == (0.9, "card")
    for ok in (True, True, False):
        canary.active_outcome(ok)
    assert canary.baseline() == (pytest.approx(3 / 5), "stream")
    record = canary.candidate_outcome("r1", True, 0)
    assert record["baseline_source"] == "stream" and record["decision"] == CANARY_CONTINUE
    for key in ("successes", "failures", "llr", "lower", "upper", "baseline", "p1"):
        assert key in record


def test_a_good_candidate_is_promoted_and_a_bad_one_rolled_back_by_the_canary():
    rng = np.random.default_rng(5)
    for p_true, expected in ((0.95, CANARY_PROMOTE), (0.6, CANARY_ROLLBACK)):
        canary = Canary("pick_place", CanaryConfig("dir"), card_rate=0.95)
        while canary.open:
            canary.candidate_outcome("r", bool(rng.random() < p_true), 0)
        assert canary.decision == expected


@settings(max_examples=200, deadline=None)
@given(
    counts=st.lists(st.integers(0, 500), max_size=60),
    floor=st.integers(0, 50),
    ratio=st.floats(0.0, 4.0),
    min_baseline=st.integers(0, 30),
    abort=st.integers(0, 600),
    extra=st.integers(1, 100),
)
def test_the_intervention_reference_follows_the_active_version_never_below_its_floor(
    counts, floor, ratio, min_baseline, abort, extra
):
    """The reference is ``max_interventions`` until the active version has ``min_baseline``
    outcomes; then ``ratio`` x its 95th percentile when that is larger. Never lower than
    the floor; a candidate request over it is an excess, one at it is not; H0's excess
    rate is the active's own over the same reference (Laplace), and a request over the
    hard bound is a failure and an excess whatever it claimed."""
    cfg = CanaryConfig(
        "dir",
        max_interventions=floor,
        intervention_ratio=ratio,
        min_baseline=min_baseline,
        abort_interventions=abort,
    )
    canary = Canary("pick_place", cfg, card_rate=0.9)
    for n in counts:
        canary.active_outcome(True, n)
    reference, source = canary.intervention_reference()
    assert reference >= floor
    measured = len(counts) >= max(min_baseline, 1)
    if not measured or ratio == 0.0:
        assert (reference, source) == (floor, "config")
    else:
        q95 = float(np.quantile(counts, 0.95, method="inverted_cdf"))
        assert reference == max(floor, math.ceil(ratio * q95))
        assert source == ("stream" if reference > floor else "config")
    rate, rate_source = canary.excess_baseline(reference)
    if measured:
        over = sum(n > reference for n in counts)
        assert (rate, rate_source) == (pytest.approx((over + 1) / (len(counts) + 2)), "stream")
    else:
        assert (rate, rate_source) == (cfg.excess_rate, "config")
    at = canary.candidate_outcome("r", True, reference)
    assert at["excess"] == (abort > 0 and reference > abort)
    over = canary.candidate_outcome("r", True, reference + extra)
    assert over["excess"] and over["intervention_reference"] == reference
    assert over["aborted"] == (abort > 0 and reference + extra > abort)
    assert over["succeeded"] == (not over["aborted"])
    assert canary.clean + canary.excesses == canary.successes + canary.failures == 2


def canary_stream(rng, p_success, active_counts, candidate_counts, cfg, limit=400):
    """(decision, candidate requests, requests) of one canary on a simulated stream: the active
    version's first ``cfg.min_baseline`` requests on the cell before it starts (the bench
    primes it so), then the seeded share; the active's requests succeed at 0.9 with
    interventions drawn by ``active_counts(rng)``, the candidate's at ``p_success`` with
    ``candidate_counts(rng)``."""
    canary = Canary("pick_place", cfg, card_rate=None)
    for _ in range(cfg.min_baseline):
        canary.active_outcome(bool(rng.random() < 0.9), active_counts(rng))
    n = 0
    while canary.open and n < limit:
        if canary.draw():
            n += 1
            ok = bool(rng.random() < p_success)
            canary.candidate_outcome("c", ok, candidate_counts(rng))
        else:
            canary.active_outcome(bool(rng.random() < 0.9), active_counts(rng))
    return canary.decision, n, canary.routed


def loaded(scale):
    """Interventions per request as measured live (docs/training.md, the loop): mostly
    acceleration and jerk clamps of late commands, a heavy right tail."""
    return lambda rng: int(rng.lognormal(math.log(scale), 0.6))


CANARY_STREAMS = 1000


@pytest.mark.parametrize("scale", [8.0, 35.0])
def test_the_canary_rolls_back_a_candidate_as_good_as_the_active_rarely(scale):
    """A candidate that succeeds and needs the supervisor as the active version does (on
    a quiet cell and on a loaded or changed one, where most requests pass the floor of
    20): both tests together roll it back at most ~alpha of the time, and decide."""
    cfg = CanaryConfig("dir", share=0.5, seed=0)
    rng = np.random.default_rng(11)
    runs = [
        canary_stream(rng, 0.9, loaded(scale), loaded(scale), cfg) for _ in range(CANARY_STREAMS)
    ]
    false_rollback = np.mean([d == CANARY_ROLLBACK for d, _, _ in runs])
    assert false_rollback <= cfg.alpha / (1 - cfg.beta) + MARGIN
    assert np.mean([d == CANARY_PROMOTE for d, _, _ in runs]) >= 0.9


def test_the_canary_promotes_a_candidate_that_leans_on_the_supervisor_rarely():
    """A candidate as successful as the active whose requests pass the reference
    ``excess_delta`` more often than the active's: promoted at most ~beta of the time."""
    cfg = CanaryConfig("dir", share=0.5, seed=0)
    rng = np.random.default_rng(12)
    active = loaded(8.0)

    def candidate(rng):
        return 200 if rng.random() < 0.45 else active(rng)

    runs = [canary_stream(rng, 0.9, active, candidate, cfg) for _ in range(CANARY_STREAMS)]
    promoted = np.mean([d == CANARY_PROMOTE for d, _, _ in runs])
    assert promoted <= cfg.beta / (1 - cfg.alpha) + MARGIN


def test_a_broken_candidate_is_rolled_back_within_a_few_requests():
    """Every candidate request fails and needs the supervisor more than the active's (the
    mirrored candidate, live: 51-140 interventions a request): rolled back every time,
    after at most 6 candidate requests, within 20 requests at share 0.5 (the issue's
    target)."""
    cfg = CanaryConfig("dir", share=0.5, seed=0)
    rng = np.random.default_rng(13)
    for scale in (8.0, 35.0):
        runs = [canary_stream(rng, 0.0, loaded(scale), loaded(4 * scale), cfg) for _ in range(200)]
        assert all(d == CANARY_ROLLBACK for d, _, _ in runs)
        assert max(n for _, n, _ in runs) <= 6
        assert max(routed for _, _, routed in runs) <= 20
