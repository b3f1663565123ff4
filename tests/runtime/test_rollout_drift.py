"""The drift monitor of an active skill version (miles_ros.runtime.rollout.drift) on
seeded simulated outcome streams: a skill as good as its card is rarely flagged, a drop of
``delta`` is caught, the alarm latches, and the executor's rollout puts its record on the
final status of the active version's requests only."""

import numpy as np
import pytest

from miles_ros.interfaces import (
    CANARY_CONTINUE,
    DRIFT_DETECTED,
    DRIFT_STEADY,
    FAILED,
    SKILL_CANARY,
    SKILL_DRIFT,
    SUCCEEDED,
)
from miles_ros.runtime.rollout import Canary, CanaryConfig, Drift, DriftConfig, Rollout

STREAMS = 2000
"""Seeded streams per rate estimate (standard error under a point)."""
MARGIN = 0.02
"""Allowance over Wald's bound for the sampling error of STREAMS."""
CARD = 0.985
"""The card's rate (the shipped pick_place's supervised evidence)."""


def first_decision(rng, p_true, config) -> tuple[str, int]:
    """The first decision other than continue of a fresh monitor on outcomes drawn at
    ``p_true``, and the outcomes it took."""
    drift = Drift("pick_place", CARD, config)
    while True:
        record = drift.outcome("r", bool(rng.random() < p_true))
        if record["decision"] != CANARY_CONTINUE:
            return record["decision"], record["outcomes"]


@pytest.mark.parametrize("delta", [0.15, 0.3])
def test_one_test_flags_a_skill_as_good_as_its_card_at_most_at_alpha_and_catches_a_drop(delta):
    config = DriftConfig(alpha=0.01, beta=0.05, delta=delta)
    rng = np.random.default_rng(7)
    good = [first_decision(rng, CARD, config)[0] for _ in range(STREAMS)]
    false_alarms = np.mean([d == DRIFT_DETECTED for d in good])
    assert false_alarms <= config.alpha / (1 - config.beta) + MARGIN
    dropped = [first_decision(rng, CARD - delta, config) for _ in range(STREAMS)]
    missed = np.mean([d == DRIFT_STEADY for d, _ in dropped])
    assert missed <= config.beta / (1 - config.alpha) + MARGIN


def test_a_drop_after_a_good_run_is_caught_and_the_alarm_latches_until_reset():
    config = DriftConfig(alpha=0.01, beta=0.05, delta=0.3)
    rng = np.random.default_rng(3)
    caught = []
    for _ in range(200):
        drift = Drift("pick_place", CARD, config)
        outcomes = [True] * 60 + list(rng.random(200) < CARD - 0.5)
        for k, ok in enumerate(outcomes):
            record = drift.outcome(str(k), bool(ok))
            if drift.detected:
                break
        caught.append(drift.detected_at)
    # the good run's steady tests restart: the drop is caught soon after it starts
    assert all(at is not None and at > 60 for at in caught)
    assert np.median(caught) - 60 <= 10
    drift = Drift("pick_place", CARD, config)
    while not drift.detected:
        drift.outcome("x", False)
    at = drift.detected_at
    record = drift.outcome("y", True)  # latched: a success does not clear it
    assert record["decision"] == DRIFT_DETECTED and record["detected_at"] == at
    assert {"card_rate", "p1", "llr", "upper", "lower", "successes", "failures"} <= set(record)
    drift.reset(card_rate=0.9)
    assert not drift.detected and drift.p0 == pytest.approx(0.9)
    assert drift.outcome("z", True)["decision"] == CANARY_CONTINUE


class _Skill:
    """What the rollout keeps of a version (it is only handed back)."""


def test_the_rollout_records_drift_on_the_active_versions_outcomes_only():
    drift = Drift("pick_place", CARD, DriftConfig())
    canary = Canary("pick_place", CanaryConfig(candidate="c", share=0.5, seed=1), CARD)
    active, candidate = _Skill(), _Skill()
    rollout = Rollout(canaries={"pick_place": (canary, candidate)}, drifts={"pick_place": drift})
    seen = {"active": 0, "candidate": 0}
    for k in range(20):
        runs, req = rollout.start("pick_place", active, 0)
        out = rollout.finish(req, SUCCEEDED if k % 3 else FAILED, 0, str(k))
        which = out[SKILL_CANARY]["version"]
        seen[which] += 1
        assert (SKILL_DRIFT in out) == (runs is active)
    assert drift.outcomes == seen["active"] > 0 and seen["candidate"] > 0
    # a skill watched for drift alone still gets a rollout record
    alone = Rollout(drifts={"reach": Drift("reach", 0.99)})
    _, req = alone.start("reach", active, 0)
    assert req is not None and alone.finish(req, SUCCEEDED, 0, "a")[SKILL_DRIFT]["outcomes"] == 1
    assert alone.start("push", active, 0) == (active, None)


def test_skill_nodes_drift_parameter_watches_a_skill_against_its_cards_rate():
    from miles_ros.runtime.library import SkillLibrary
    from miles_ros.runtime.rollout import card_success, parse_drift, rollout_from_config

    assert parse_drift("") == {}
    assert parse_drift("{reach: {delta: 0.2}}")["reach"].delta == 0.2
    assert parse_drift("{reach: null}")["reach"] == DriftConfig()
    with pytest.raises(ValueError, match="drift reach"):
        parse_drift("{reach: {gamma: 1}}")
    library = SkillLibrary.load()
    rollout = rollout_from_config(library, drift="{reach: {delta: 0.2}, no_such_skill: {}}")
    assert set(rollout.drifts) == {"reach"}  # the unknown skill is left out, logged
    drift = rollout.drifts["reach"]
    assert drift.config.delta == 0.2
    assert drift.p0 == pytest.approx(min(card_success(library.skills["reach"].card), 0.999))
    assert rollout_from_config(library) is None
