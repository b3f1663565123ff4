"""The drift monitor of an active skill version (miles_ros.runtime.rollout.drift) on
seeded simulated streams: a skill as good as its card is rarely flagged, a drop of
``delta`` is caught, the alarm latches, and the executor's rollout puts its record on the
final status of the active version's requests only; its continuous signal stays under its
false alarm bound on stationary streams of any distribution and catches a shift of one
reference deviation within 40 requests."""

import dataclasses

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
from miles_ros.runtime.rollout.drift import (
    FALSE_ALARM_BOUND,
    FALSE_ALARM_REQUESTS,
    HIGHER,
    LOWER,
    rank_cusum_false_alarms,
)

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


def test_the_decision_log_writes_each_record_whole_where_a_line_or_file_takes_it(tmp_path, caplog):
    """The JSON of a record is made only for an enabled log level or the file (the
    monitor's 250k outcomes in this module made it for every one), and is the record."""
    import json
    import logging

    from miles_ros.runtime.rollout import DecisionLog

    path = tmp_path / "drift.jsonl"
    drift = Drift("pick_place", CARD, DriftConfig(), DecisionLog(path, what="drift"))
    logger = "miles_ros.runtime.rollout.canary"
    with caplog.at_level(logging.WARNING, logger=logger):
        quiet = drift.outcome("a", True)  # continue: an INFO line, not enabled
    assert quiet["decision"] == CANARY_CONTINUE and not caplog.records
    with caplog.at_level(logging.INFO, logger=logger):
        loud = drift.outcome("b", True)
    (line,) = caplog.records
    assert line.levelno == logging.INFO and line.getMessage().startswith("drift pick_place:")
    assert json.loads(line.args[-1]) == loud
    assert [json.loads(row) for row in path.read_text().splitlines()] == [quiet, loud]


class _Card:
    """What the drift monitor reads of a version's card."""

    def __init__(self, version: int, rate: float = CARD) -> None:
        self.version, self.data, self.evaluation = version, {}, {"success_rate": rate}


class _Skill:
    """What the rollout keeps of a version (handed back; the drift monitor reads its
    card)."""

    def __init__(self, version: int = 1, rate: float = CARD) -> None:
        self.card = _Card(version, rate)


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


# --- the continuous signal ----------------------------------------------------------------
SIGNAL_STREAMS = 400
"""Seeded streams per signal estimate."""


def signal_alarm(values, config: DriftConfig) -> tuple[int | None, dict]:
    """When a signal-only monitor (every request a success: the success test stays quiet)
    alarms on ``values`` (1-based), and its last record."""
    drift = Drift("pick_place", CARD, config)
    record = {}
    for k, value in enumerate(values):
        record = drift.outcome(str(k), True, {config.signal: float(value)})
        if drift.detected:
            return drift.detected_at, record
    return None, record


def test_the_signal_tests_false_alarms_stay_under_the_bound_on_stationary_streams():
    """The defaults' chance of an alarm within FALSE_ALARM_REQUESTS requests of an
    unchanged cell, by seeded simulation: under FALSE_ALARM_BOUND."""
    config = DriftConfig()
    assert rank_cusum_false_alarms(config, FALSE_ALARM_REQUESTS, 2000, seed=11) <= (
        FALSE_ALARM_BOUND
    )
    # a looser threshold is not: the simulation sees the difference
    loose = DriftConfig(threshold=4.0)
    assert rank_cusum_false_alarms(loose, FALSE_ALARM_REQUESTS, 2000, seed=11) > 2 * (
        FALSE_ALARM_BOUND
    )


def test_the_signal_test_sees_only_ranks_so_its_rate_holds_for_any_stationary_stream():
    """The same uniform draws mapped through increasing functions (a skewed, heavy-tailed
    and a bounded statistic) give the same decisions at the same requests: the false
    alarm rate of the uniform simulation is every continuous stream's. The whole monitor
    on such streams, with outcomes at the card's rate, alarms within the bound plus the
    success test's own false alarms."""
    config = DriftConfig()
    n = config.reference + FALSE_ALARM_REQUESTS
    rng = np.random.default_rng(5)
    for _ in range(50):
        u = rng.random(n)
        at = {f: signal_alarm(f(u), config)[0] for f in (np.exp, lambda x: np.exp(8 * x), np.sqrt)}
        assert len(set(at.values())) == 1
    signal_alarms = success_alarms = 0
    for _ in range(SIGNAL_STREAMS):
        drift = Drift("pick_place", CARD, DriftConfig(delta=0.15))
        steps = rng.lognormal(np.log(130.0), 0.3, n)
        for k in range(n):
            drift.outcome(str(k), bool(rng.random() < CARD), {"action": steps[k]})
            if drift.detected:
                break
        signal_alarms += drift.fired == "action"
        success_alarms += drift.fired == "success"
    assert signal_alarms / SIGNAL_STREAMS <= FALSE_ALARM_BOUND + MARGIN
    assert success_alarms / SIGNAL_STREAMS <= 0.05


@pytest.mark.parametrize("shift", [-1.0, 1.0])
def test_a_shift_of_one_reference_deviation_is_caught_within_40_requests(shift):
    """After the reference, the statistic moves by one standard deviation (either way):
    the signal fires within 40 requests on most streams, naming the direction; the success
    test, seeing only successes, never does."""
    config = DriftConfig()
    rng = np.random.default_rng(9)
    delays, directions = [], set()
    for _ in range(SIGNAL_STREAMS):
        values = np.concatenate(
            [rng.normal(0.8, 0.08, config.reference), rng.normal(0.8 + 0.08 * shift, 0.08, 200)]
        )
        at, record = signal_alarm(values, config)
        if at is None:  # a reference drawn far from its mean: missed in 200 requests
            delays.append(np.inf)
            continue
        assert at > config.reference
        assert record["fired"] == "action" and record["decision"] == DRIFT_DETECTED
        delays.append(at - config.reference)
        directions.add(record["signal"]["direction"])
    assert directions == {HIGHER if shift > 0 else LOWER}
    assert np.mean(np.array(delays) <= 40) >= 0.8
    assert np.median(delays) <= 25


def test_the_signal_record_latches_and_a_reset_takes_a_new_reference():
    config = DriftConfig(reference=5, threshold=3.0)
    drift = Drift("pick_place", CARD, config)
    records = [drift.outcome(str(k), True, {"action": 0.8 + 0.01 * k}) for k in range(5)]
    assert [r["signal"]["reference_n"] for r in records] == [1, 2, 3, 4, 5]
    assert all(r["signal"]["score"] is None for r in records)
    assert records[-1]["signal"]["reference_median"] == pytest.approx(0.82)
    assert records[-2]["signal"]["reference_median"] == pytest.approx(0.815)  # an even count
    assert records[-1]["config"] == dataclasses.asdict(config)
    assert records[-1]["config"] is not records[-2]["config"]  # each record its own
    k = 5
    while not drift.detected:
        record = drift.outcome(str(k), True, {"action": 0.1})
        k += 1
    assert record["fired"] == "action" and record["signal"]["direction"] == LOWER
    assert record["signal"]["statistic"] == pytest.approx(0.1)
    assert record["signal"]["cusum_lower"] >= config.threshold
    assert record["signal"]["score"] < 0
    at = drift.detected_at
    after = drift.outcome("late", True, {"action": 0.8})  # latched
    assert after["decision"] == DRIFT_DETECTED and after["detected_at"] == at
    assert after["fired"] == "action"
    # a request that did not measure the signal leaves it as it was
    drift.reset()
    assert drift.outcome("x", True, {})["signal"]["reference_n"] == 0
    assert drift.outcome("y", True, {"action": 0.5})["signal"]["reference_n"] == 1
    # success alone: no signal in the record, the success test names itself
    alone = Drift("pick_place", CARD, DriftConfig(signal=""))
    while not alone.detected:
        record = alone.outcome("f", False, {"action": 0.1})
    assert "signal" not in record and record["fired"] == "success"
    with pytest.raises(ValueError, match="drift signal"):
        DriftConfig(signal="nonsense")


def test_a_newly_active_version_gets_a_fresh_watch_with_its_own_reference():
    """Requests of version 1 fill the signal's reference; when version 2 becomes active
    (promoted between requests) the monitor starts again on its card's rate and takes a
    new reference from its requests, so its own way of moving is not a drift."""
    drift = Drift("pick_place", CARD, DriftConfig(reference=5))
    rollout = Rollout(drifts={"pick_place": drift})
    one, two = _Skill(1), _Skill(2, rate=0.9)
    for k in range(8):
        _, req = rollout.start("pick_place", one, 0)
        record = rollout.finish(req, SUCCEEDED, 0, str(k), {"action": 0.04})[SKILL_DRIFT]
    assert record["version"] == 1 and record["signal"]["reference_n"] == 5
    _, req = rollout.start("pick_place", two, 0)
    record = rollout.finish(req, SUCCEEDED, 0, "new", {"action": 0.02})[SKILL_DRIFT]
    assert record["version"] == 2 and record["outcomes"] == 1
    assert record["signal"]["reference_n"] == 1 and record["decision"] == CANARY_CONTINUE
    assert drift.p0 == pytest.approx(0.9)
