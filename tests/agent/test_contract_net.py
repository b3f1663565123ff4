"""Contract net: announce, bid, award to the least cost; re-announce after a failure; a
task nobody can do fails with the reasons; malformed, unknown, expired and forged
messages are refused and logged and nothing is awarded or executed on them."""

import json

import pytest

from miles_ros.agent.contract_net import (
    Announce,
    Auction,
    Award,
    Bid,
    Contractor,
    parse,
    to_json,
)

TRACE = "0123456789abcdef"
PARAMS = {"object": "red_cube", "place": "left_pad"}


def _round(auction, arms, task="t1", now=0.0):
    ann = auction.announce(task, TRACE, "pick_place", PARAMS, now)
    contractors = {arm: Contractor(arm) for arm in arms}
    for c in contractors.values():
        assert c.receive_announce(to_json(ann), now) == ann
    return ann, contractors


def test_the_least_cost_wins_and_only_the_winner_accepts():
    auction = Auction(("left", "right"))
    ann, arms = _round(auction, ("left", "right"))
    assert auction.offer(to_json(arms["left"].bid("t1", 0.05, cost=3.0, finish_time=9.0)), 0.05)
    assert not auction.ready("t1", 0.06)
    assert auction.offer(to_json(arms["right"].bid("t1", 0.06, cost=1.5, finish_time=12.0)), 0.06)
    assert auction.ready("t1", 0.07)  # every arm answered: no need to wait
    outcome = auction.close("t1", 0.07)
    assert outcome.award == Award("t1", TRACE, "right", 1, 1.5)
    text = to_json(outcome.award)
    assert arms["right"].receive_award(text, 0.08) == outcome.award
    assert arms["left"].receive_award(text, 0.08) is None


def test_ties_go_to_the_earlier_finish():
    auction = Auction(("a", "b"))
    _, arms = _round(auction, ("a", "b"))
    auction.offer(arms["a"].bid("t1", 0.01, cost=1.0, finish_time=5.0), 0.01)
    auction.offer(arms["b"].bid("t1", 0.01, cost=1.0, finish_time=4.0), 0.01)
    assert auction.close("t1", 0.02).award.arm == "b"


def test_no_bid_by_the_deadline_fails_the_task_with_the_reasons():
    auction = Auction(("left", "right"), bid_window=0.2)
    _, arms = _round(auction, ("left", "right"))
    auction.offer(arms["left"].bid("t1", 0.1, refusal="red_cube out of reach"), 0.1)
    assert not auction.ready("t1", 0.15)
    with pytest.raises(ValueError, match="still open"):
        auction.close("t1", 0.15)
    late = arms["right"].bid("t1", 0.25, cost=1.0, finish_time=3.0)
    assert not auction.offer(late, 0.25)  # after the deadline: refused
    outcome = auction.close("t1", 0.25)
    assert outcome.award is None
    assert outcome.reasons == {"left": "red_cube out of reach", "right": "no answer"}


def test_a_failed_task_is_reannounced_with_feedback_and_old_awards_expire():
    auction = Auction(("left", "right"))
    _, arms = _round(auction, ("left", "right"))
    auction.offer(arms["left"].bid("t1", 0.01, cost=1.0, finish_time=2.0), 0.01)
    auction.offer(arms["right"].bid("t1", 0.01, cost=2.0, finish_time=2.0), 0.01)
    first = auction.close("t1", 0.02).award
    assert first.arm == "left" and arms["left"].receive_award(first, 0.02) == first
    # Left fails; the task comes back with the failure as feedback.
    ann2 = auction.reannounce("t1", "left: grasp slipped", 5.0)
    assert (ann2.round, ann2.feedback, ann2.trace_id) == (2, "left: grasp slipped", TRACE)
    for c in arms.values():
        c.receive_announce(to_json(ann2), 5.0)
    stale = arms["left"].bids["t1"]
    assert not auction.offer(stale, 5.01)  # a round-1 bid is not a round-2 bid
    auction.offer(arms["left"].bid("t1", 5.01, refusal="gripper fault"), 5.01)
    auction.offer(arms["right"].bid("t1", 5.01, cost=2.5, finish_time=9.0), 5.01)
    second = auction.close("t1", 5.02).award
    assert (second.arm, second.round) == ("right", 2)
    # The round-1 award, replayed, is no longer accepted by left (it refused round 2).
    assert arms["left"].receive_award(to_json(first), 5.03) is None
    assert arms["right"].receive_award(to_json(second), 5.03) == second


def _bid_json(**change):
    bid = {
        "task_id": "t1",
        "trace_id": TRACE,
        "arm": "left",
        "round": 1,
        "stamp": 0.01,
        "cost": 1.0,
        "finish_time": 2.0,
        "refusal": "",
        "type": "bid",
    }
    bid.update(change)
    return json.dumps({k: v for k, v in bid.items() if v is not ...})


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not JSON"),
        (json.dumps({"type": "offer"}), "type one of"),
        (_bid_json(extra=1), "unknown fields"),
        (_bid_json(arm=...), "missing fields"),
        (_bid_json(cost="cheap"), "wrong type"),
        (_bid_json(cost=True), "wrong type"),
        (_bid_json(cost=-1.0), "cost must be >= 0"),
        (_bid_json(refusal="busy"), "not both"),
        (_bid_json(cost=None, finish_time=None), "not both"),
        (_bid_json(task_id="t9"), "unknown task"),
        (_bid_json(trace_id="ffffffffffffffff"), "forged trace id"),
        (_bid_json(arm="intruder"), "unknown arm"),
        (_bid_json(stamp=0.5), "after the deadline"),
        (_bid_json(round=2), "round closed"),
    ],
)
def test_bad_bids_are_refused_and_logged(text, why, caplog):
    auction = Auction(("left", "right"), bid_window=0.2)
    auction.announce("t1", TRACE, "pick_place", PARAMS, 0.0)
    assert not auction.offer(text, 0.01)
    assert why in caplog.text and auction.refused == 1
    assert auction.tasks["t1"].bids == {}


def test_bad_awards_are_refused_and_nothing_is_executed(caplog):
    arm = Contractor("left")
    ann = Announce("t1", TRACE, "pick_place", PARAMS, deadline=1.0)
    arm.receive_announce(ann, 0.0)
    arm.bid("t1", 0.1, cost=1.0, finish_time=2.0)
    good = Award("t1", TRACE, "left", 1, 1.0)
    for bad, why in [
        ("]", "not JSON"),
        (to_json(Award("t9", TRACE, "left", 1, 1.0)), "did not bid on"),
        (to_json(Award("t1", "ffffffffffffffff", "left", 1, 1.0)), "forged trace id"),
        (to_json(Award("t1", TRACE, "left", 2, 1.0)), "expired"),
        (to_json(ann), "expected an award"),
    ]:
        caplog.clear()
        assert arm.receive_award(bad, 0.2) is None
        assert why in caplog.text
    assert arm.refused == 5
    assert arm.receive_award(to_json(good), 0.2) == good
    assert not arm.receive_announce(to_json(Announce("t2", TRACE, "reach", {}, 0.5)), 0.6)


def test_messages_round_trip():
    for msg in (
        Announce("t1", TRACE, "reach", {"x": 0.4}, 1.0, 2, "slipped"),
        Bid("t1", TRACE, "left", 2, 0.5, refusal="out of reach"),
        Bid("t1", TRACE, "left", 2, 0.5, cost=0.3, finish_time=4.0),
        Award("t1", TRACE, "left", 2, 0.3),
    ):
        assert parse(to_json(msg)) == msg
