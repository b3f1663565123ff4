"""The blackboard: versioned facts with a time to live, compare-and-set, atomic claims
(never granted twice under concurrent requests), malformed messages refused."""

import json
import threading
from collections import Counter

import pytest

from miles_ros.agent.blackboard import Blackboard, VersionConflict


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_facts_are_versioned_and_expire():
    clock = Clock()
    bb = Blackboard(clock)
    first = bb.put("pose/red_cube", [0.45, -0.1, 0.02], "sim", ttl=1.0)
    second = bb.put("pose/red_cube", [0.46, -0.1, 0.02], "sim", ttl=1.0)
    assert (first.version, second.version) == (1, 2)
    assert bb.get("pose/red_cube").value == [0.46, -0.1, 0.02]
    clock.t += 0.999
    assert bb.get("pose/red_cube") is not None
    clock.t += 0.001
    assert bb.get("pose/red_cube") is None
    assert bb.snapshot("pose/") == {}
    assert bb.expire() == ["pose/red_cube"]
    # The version keeps counting after expiry: a late reader never mistakes a new fact
    # for the one it saw.
    assert bb.put("pose/red_cube", [0, 0, 0], "sim").version == 3


def test_compare_and_set_refuses_a_stale_writer():
    bb = Blackboard(Clock())
    bb.put("arm/left/queue", [], "left", expected_version=0)
    with pytest.raises(VersionConflict):
        bb.put("arm/left/queue", ["t1"], "left", expected_version=0)
    bb.put("arm/left/queue", ["t1"], "left", expected_version=1)
    assert bb.get("arm/left/queue").value == ["t1"]


def test_claims_are_exclusive_renewable_and_expire():
    clock = Clock()
    bb = Blackboard(clock)
    assert bb.claim("red_cube", "left", ttl=2.0).granted
    refused = bb.claim("red_cube", "right", ttl=2.0)
    assert not refused.granted and refused.holder == "left" and "left" in refused.reason
    assert bb.claim("red_cube", "left", ttl=2.0).granted  # renewed
    assert not bb.release("red_cube", "right")
    clock.t += 2.0
    assert bb.holder("red_cube") == ""
    assert bb.claim("red_cube", "right", ttl=2.0).granted
    assert bb.release("red_cube", "right")
    assert bb.holder("red_cube") == ""


@pytest.mark.parametrize("rounds", [200])
def test_concurrent_claims_are_never_granted_twice(rounds):
    bb = Blackboard()
    arms = [f"arm{i}" for i in range(8)]
    granted: Counter[str] = Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(len(arms))

    def contend(arm):
        for r in range(rounds):
            barrier.wait()  # every thread asks for cube r at once
            result = bb.claim(f"cube{r}", arm, ttl=60.0)
            if result.granted:
                with lock:
                    granted[f"cube{r}"] += 1

    threads = [threading.Thread(target=contend, args=(arm,)) for arm in arms]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(granted.values()) == [1] * rounds
    assert all(bb.holder(f"cube{r}") in arms for r in range(rounds))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps({"key": "pose/x", "value": 1}), "need key, value, owner"),
        (json.dumps({"key": "pose/x", "value": 1, "owner": "a", "extra": 0}), "unknown"),
        (json.dumps({"key": "", "value": 1, "owner": "a"}), "key"),
        (json.dumps({"key": "pose/x", "value": 1, "owner": "a", "ttl": -1}), "ttl"),
        (json.dumps({"key": "pose/x", "value": 1, "owner": "a", "ttl": "5"}), "ttl"),
        (json.dumps({"key": "claim/red", "value": "b", "owner": "a", "ttl": 1}), "owner"),
        (json.dumps({"key": "claim/red", "value": "a", "owner": "a"}), "time to live"),
        (json.dumps({"key": "claim/held", "value": "a", "owner": "a", "ttl": 1}), "claimed"),
        (
            json.dumps({"key": "pose/y", "value": 1, "owner": "a", "expected_version": 3}),
            "expected 3",
        ),
    ],
)
def test_malformed_or_conflicting_messages_are_refused_and_logged(text, why, caplog):
    bb = Blackboard(Clock())
    bb.claim("held", "other", ttl=10.0)
    before = bb.snapshot()
    assert bb.apply_json(text) is None
    assert why in caplog.text
    assert bb.snapshot() == before and bb.refused == 1


def test_a_fact_message_is_written_and_a_claim_message_claims():
    bb = Blackboard(Clock())
    fact = bb.apply_json(json.dumps({"key": "pose/x", "value": [1, 2], "owner": "sim"}))
    assert fact.version == 1 and bb.get("pose/x").value == [1, 2]
    msg = {"key": "claim/red", "value": "left", "owner": "left", "ttl": 5}
    assert bb.apply_json(json.dumps(msg)).value == "left"
    assert bb.holder("red") == "left"
    assert bb.apply_json(json.dumps({**msg, "value": "right", "owner": "right"})) is None
