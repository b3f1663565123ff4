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
)
def test_the_intervention_bound_follows_the_active_version_never_below_its_floor(
    counts, floor, ratio, min_baseline
):
    """The bound is ``max_interventions`` until the active version has ``min_baseline``
    outcomes; then ``ratio`` x its 95th percentile when that is larger. Never lower than
    the floor, and a candidate request over it rolls the candidate back."""
    cfg = CanaryConfig(
        "dir", max_interventions=floor, intervention_ratio=ratio, min_baseline=min_baseline
    )
    canary = Canary("pick_place", cfg, card_rate=0.9)
    for n in counts:
        canary.active_outcome(True, n)
    bound, source = canary.intervention_bound()
    assert bound >= floor
    if len(counts) < max(min_baseline, 1) or ratio == 0.0:
        assert (bound, source) == (floor, "config")
    else:
        q95 = float(np.quantile(counts, 0.95, method="inverted_cdf"))
        assert bound == max(floor, math.ceil(ratio * q95))
        assert source == ("stream" if bound > floor else "config")
    assert canary.candidate_outcome("r", True, bound)["decision"] != CANARY_ROLLBACK
    record = canary.candidate_outcome("r", True, bound + 1)
    assert record["decision"] == CANARY_ROLLBACK and record["intervention_bound"] == bound
