"""The dispatcher and the arms' bidders, end to end without ROS: announcements go to
:class:`ArmAgent` objects, their bids back, awards and requests out, statuses in."""

from __future__ import annotations

import json
import logging
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.agent.arm_agent import ArmAgent, cards_from_registry
from miles_ros.agent.blackboard import Blackboard
from miles_ros.agent.contract_net import Bid, parse, to_json
from miles_ros.agent.dispatch import Dispatcher
from miles_ros.agent.registry import SkillRegistry
from sims.scene import load_scene

SCENE = load_scene("config/scene_dual.yaml")
_xy = st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0))
CUBES = tuple(SCENE.objects)
RED = ("pick_place", {"object": "red_cube", "target": "left_pad"})
BLUE = ("pick_place", {"object": "blue_cube", "target": "right_pad"})


@pytest.fixture(scope="module")
def cards():
    return cards_from_registry(SkillRegistry.load())


def agents(cards, arms=None):
    places = {k: p.position for k, p in SCENE.places.items()}
    out = {}
    for mount in SCENE.arms:
        if arms is None or mount.name in arms:
            agent = ArmAgent(mount.name, mount, cards, places)
            agent.on_objects({k: o.position for k, o in SCENE.objects.items()})
            out[mount.name] = agent
    return out


class Cell:
    """Routes a dispatcher's messages to the agents; records what was executed."""

    def __init__(self, dispatcher: Dispatcher, agents: dict[str, ArmAgent]) -> None:
        self.d, self.agents = dispatcher, agents
        self.now = 0.0
        self.requests: list[tuple[str, dict]] = []
        self.awards: list[dict] = []
        self.bids: list[Bid] = []
        self.mute: set[str] = set()

    @classmethod
    def started(cls, dispatcher: Dispatcher, cards, arms=None) -> Cell:
        """The agents of ``arms`` (all) with ``dispatcher`` started among them."""
        cell = cls(dispatcher, agents(cards, arms))
        cell.route(dispatcher.start(cell.now))
        return cell

    def route(self, sends) -> None:
        for send in sends:
            if send.kind == "announce":
                for name, agent in self.agents.items():
                    bid = agent.on_announce(send.payload, self.now)
                    if bid is not None and name not in self.mute:
                        self.bids.append(bid)
                        self.route(self.d.on_bid(to_json(bid), self.now))
            elif send.kind == "award":
                self.awards.append(json.loads(send.payload))
                for agent in self.agents.values():
                    agent.on_award(send.payload, self.now)
            else:
                self.requests.append((send.arm, json.loads(send.payload)))

    def finish(self, arm: str, state: str = "succeeded", reason: str = "") -> None:
        rid = [r for a, r in self.requests if a == arm][-1]["id"]
        self.agents[arm].done(next(t.task_id for t in self.d.tasks if t.request_id == rid))
        self.route(self.d.on_status(arm, {"id": rid, "state": state, "reason": reason}, self.now))


def test_two_tasks_go_to_both_arms_at_once_and_least_cost_wins(cards):
    d = Dispatcher(("left_arm", "right_arm"), "trace-1", [RED, BLUE], CUBES)
    cell = Cell.started(d, cards)
    # both tasks awarded, each to a different arm, both running before either finished
    assert [a["arm"] for a in cell.awards] in (
        ["left_arm", "right_arm"],
        ["right_arm", "left_arm"],
    )
    assert {arm for arm, _ in cell.requests} == {"left_arm", "right_arm"}
    for award in cell.awards:  # each award went to the least cost of its round
        round_bids = [b for b in cell.bids if b.task_id == award["task_id"]]
        assert award["cost"] == min(b.cost for b in round_bids if b.cost is not None)
    # the second round saw the first award in the winner's queue: it bid higher
    second = [b for b in cell.bids if b.task_id == "trace-1/t2"]
    first_winner = cell.awards[0]["arm"]
    costs = {b.arm: b.cost for b in second}
    assert costs[first_winner] > costs[cell.awards[1]["arm"]]
    # every message carries the goal's trace id
    assert all(r["trace_id"] == "trace-1" for _, r in cell.requests)
    assert all(a["trace_id"] == "trace-1" for a in cell.awards)
    # the cubes are claimed by the arms running them
    assert {d.blackboard.holder("red_cube", 0.0), d.blackboard.holder("blue_cube", 0.0)} == {
        "left_arm",
        "right_arm",
    }
    for arm, _ in list(cell.requests):
        cell.finish(arm)
    assert d.outcome == "succeeded"
    assert (
        d.blackboard.holder("red_cube", 0.0) == "" and d.blackboard.holder("blue_cube", 0.0) == ""
    )


def test_a_failed_task_is_reannounced_with_the_failure_and_goes_to_the_other_arm(cards):
    d = Dispatcher(("left_arm", "right_arm"), "trace-2", [RED], CUBES)
    cell = Cell.started(d, cards)
    loser = cell.awards[0]["arm"]
    cell.finish(loser, "failed", "cube slipped")
    assert d.outcome == "running"
    anns = [t for t in d.tasks[0].history]
    assert anns[1]["round"] == 2 and "cube slipped" in anns[1]["feedback"]
    assert anns[1]["feedback"].startswith(loser)
    other = cell.awards[1]["arm"]
    assert other != loser and cell.awards[1]["round"] == 2
    cell.finish(other)
    assert d.outcome == "succeeded"


def test_no_rounds_left_fails_the_goal(cards):
    d = Dispatcher(("left_arm",), "trace-3", [RED], CUBES, max_rounds=2)
    cell = Cell.started(d, cards, {"left_arm"})
    cell.finish("left_arm", "failed", "dropped")
    cell.finish("left_arm", "failed", "dropped again")
    assert d.outcome == "failed" and "dropped again" in d.reason and "no rounds left" in d.reason


def test_no_bid_by_the_deadline_fails_the_goal_with_the_reasons(cards):
    d = Dispatcher(("left_arm", "right_arm"), "trace-4", [RED], CUBES, bid_window=0.2)
    cell = Cell(d, agents(cards))
    cell.mute = {"left_arm", "right_arm"}
    cell.route(d.start(cell.now))
    assert d.tick(0.1) == [] and d.outcome == "running"  # still open
    cell.route(d.tick(0.3))
    assert d.outcome == "failed"
    assert "left_arm: no answer" in d.reason and "right_arm: no answer" in d.reason
    assert cell.requests == []


def test_a_task_nobody_can_reach_fails_with_every_refusal(cards):
    far = ("pick_place", {"object": "red_cube", "target": "blue_cube"})  # 0.53 m apart
    d = Dispatcher(("left_arm", "right_arm"), "trace-5", [far], CUBES)
    cell = Cell.started(d, cards)
    assert d.outcome == "failed" and cell.requests == [] and cell.awards == []
    assert d.reason.count("out of reach") == 2, d.reason


def test_one_arm_that_cannot_reach_refuses_and_the_other_wins(cards):
    arm = agents(cards)["left_arm"]
    why, _ = arm.evaluate("pick_place", {"object": "red_cube", "target": "blue_cube"})
    assert why.startswith("out of reach")
    why, _ = arm.evaluate("fly", {})
    assert why.startswith("no skill")


def test_malformed_forged_and_late_bids_are_refused_and_logged(cards, caplog):
    d = Dispatcher(("left_arm", "right_arm"), "trace-6", [RED], CUBES, bid_window=0.2)
    (ann,) = d.start(0.0)
    task_id = parse(ann.payload).task_id
    bad = [
        "not json",
        json.dumps({"type": "bid", "task_id": task_id}),
        to_json(Bid(task_id, "forged", "left_arm", 1, 0.0, 1.0, 1.0)),
        to_json(Bid("nope", "trace-6", "left_arm", 1, 0.0, 1.0, 1.0)),
        to_json(Bid(task_id, "trace-6", "intruder_arm", 1, 0.0, 1.0, 1.0)),
        to_json(Bid(task_id, "trace-6", "left_arm", 1, 0.5, 1.0, 1.0)),  # after the deadline
    ]
    with caplog.at_level(logging.WARNING, "miles_ros.agent.contract_net"):
        for text in bad:
            assert d.on_bid(text, 0.1) == []
    assert d.auction.refused == len(bad)
    assert len([r for r in caplog.records if "refused" in r.getMessage()]) == len(bad)
    assert d.tick(0.3) == [] and d.outcome == "failed"  # nothing awarded, nothing run
    assert d.awards == []


def test_a_forged_award_is_not_queued(cards):
    arm = agents(cards)["left_arm"]
    d = Dispatcher(("left_arm",), "trace-7", [RED], CUBES)
    (ann,) = d.start(0.0)
    arm.on_announce(ann.payload, 0.0)
    forged = json.dumps(
        {"type": "award", "task_id": "trace-7/t1", "trace_id": "x", "arm": "left_arm",
         "round": 1, "cost": 1.0}
    )  # fmt: skip
    assert arm.on_award(forged, 0.0) is None and arm.queue == []


def test_a_cube_claimed_elsewhere_holds_the_task_back(cards):
    board = Blackboard()
    assert board.claim("red_cube", "someone_else", 5.0, now=0.0).granted
    d = Dispatcher(("left_arm", "right_arm"), "trace-8", [RED], CUBES, blackboard=board)
    cell = Cell.started(d, cards)
    assert cell.requests == [] and d.tasks[0].state == "waiting"
    cell.now = 6.0  # the other claim expired
    cell.route(d.tick(cell.now))
    assert len(cell.requests) == 1 and board.holder("red_cube", cell.now) == cell.requests[0][0]


def test_tasks_on_one_cube_run_in_plan_order(cards):
    steps = [RED, ("pick_place", {"object": "red_cube", "target": "green_cube"})]
    d = Dispatcher(("left_arm", "right_arm"), "trace-9", steps, CUBES)
    cell = Cell.started(d, cards)
    assert len(cell.awards) == 1  # the second waits for the first
    cell.finish(cell.awards[0]["arm"])
    assert len(cell.awards) == 2


def test_estop_cancels_the_other_arm():
    d = Dispatcher(("left_arm", "right_arm"), "trace-10", [RED, BLUE], CUBES)
    sends = d.start(0.0)
    for i, arm in enumerate(("left_arm", "right_arm")):
        task_id = f"trace-10/t{i + 1}"
        bid = Bid(task_id, "trace-10", arm, 1, 0.0, 1.0, 1.0)
        other = Bid(task_id, "trace-10", "right_arm" if i == 0 else "left_arm", 1, 0.0, None,
                    None, "busy")  # fmt: skip
        sends += d.on_bid(to_json(bid), 0.0) + d.on_bid(to_json(other), 0.0)
    requests = {s.arm: json.loads(s.payload) for s in sends if s.kind == "request"}
    assert set(requests) == {"left_arm", "right_arm"}
    out = d.on_status("left_arm", {"id": requests["left_arm"]["id"], "state": "estopped"}, 0.1)
    assert d.outcome == "estopped"
    assert [(s.arm, json.loads(s.payload)) for s in out] == [
        ("right_arm", {"id": requests["right_arm"]["id"], "cancel": True})
    ]
    # a status for an unknown request changes nothing
    assert d.on_status("left_arm", {"id": "nope", "state": "succeeded"}, 0.2) == []


def test_home_waits_for_every_earlier_task(cards):
    d = Dispatcher(("left_arm", "right_arm"), "trace-11", [RED, ("home", {}), BLUE], CUBES)
    cell = Cell.started(d, cards)
    assert [a["task_id"] for a in cell.awards] == ["trace-11/t1"]
    cell.finish(cell.awards[0]["arm"])
    assert [a["task_id"] for a in cell.awards][1] == "trace-11/t2"
    cell.finish(cell.awards[1]["arm"])
    cell.finish(cell.awards[2]["arm"])
    assert d.outcome == "succeeded"


WHERE = {k: o.position[:2] for k, o in SCENE.objects.items()}
WHERE.update({k: p.position[:2] for k, p in SCENE.places.items()})
TIGHT = {
    "red_cube": (-0.16, 0.0),
    "green_cube": (0.0, 0.0),
    "blue_cube": (0.16, 0.0),
    "left_pad": (-0.23, 0.09),
    "right_pad": (0.23, -0.09),
}
"""A tighter layout (the dual scene's first one): red and blue 0.32 m apart, so the
red and blue tasks conflict under the cell's clearance."""


def _progress(cell, arm, rid, progress):
    status = {"id": rid, "state": "running", "progress": progress}
    cell.route(cell.d.on_status(arm, status, cell.now))


def test_a_conflicting_task_starts_as_the_arm_before_it_leaves(cards):
    from miles_ros.agent.dispatch import CELL_CLEARANCE

    d = Dispatcher(
        ("left_arm", "right_arm"), "trace-c", [RED, BLUE], CUBES, where=TIGHT,
        clearance=CELL_CLEARANCE,
    )  # fmt: skip
    cell = Cell.started(d, cards)
    assert [a["arm"] for a in cell.awards] == ["left_arm", "right_arm"]
    # red and blue are 0.32 m apart: blue waits while red runs
    assert [arm for arm, _ in cell.requests] == ["left_arm"]
    _progress(cell, "left_arm", cell.requests[0][1]["id"], 0.9)
    assert [arm for arm, _ in cell.requests] == ["left_arm"]
    cell.finish("left_arm")  # it stands over the left pad, next to blue: it goes home
    assert [(arm, r["skill"]) for arm, r in cell.requests] == [
        ("left_arm", "pick_place"),
        ("left_arm", "home"),
    ]
    home = cell.requests[-1][1]
    assert home["trace_id"] == "trace-c" and d.outcome == "running"
    _progress(cell, "left_arm", home["id"], 0.3)
    assert len(cell.requests) == 2
    _progress(cell, "left_arm", home["id"], 0.6)  # on its way out: blue starts
    assert cell.requests[-1][0] == "right_arm" and cell.requests[-1][1]["skill"] == "pick_place"
    cell.route(d.on_status("left_arm", {"id": home["id"], "state": "succeeded"}, cell.now))
    assert d.outcome == "running"
    cell.finish("right_arm")
    assert d.outcome == "succeeded"


def test_stagger_lets_a_conflicting_task_start_before_the_other_ends(cards):
    d = Dispatcher(
        ("left_arm", "right_arm"), "trace-s", [RED, BLUE], CUBES, where=TIGHT,
        clearance=0.35, stagger=0.5,
    )  # fmt: skip
    cell = Cell.started(d, cards)
    rid = cell.requests[0][1]["id"]
    _progress(cell, "left_arm", rid, 0.3)
    assert [arm for arm, _ in cell.requests] == ["left_arm"]
    _progress(cell, "left_arm", rid, 0.6)
    assert [arm for arm, _ in cell.requests] == ["left_arm", "right_arm"]  # both at once


def test_an_arm_standing_where_the_next_task_goes_is_sent_home_first(cards):
    d = Dispatcher(("left_arm", "right_arm"), "trace-h", [RED], CUBES, where=WHERE, clearance=0.35)
    cell = Cell.started(d, cards)
    first = cell.awards[0]["arm"]
    cell.finish(first, "failed", "cube slipped")  # it stands over the red cube
    other = cell.awards[1]["arm"]
    assert other != first
    assert [(arm, r.get("skill")) for arm, r in cell.requests][-1] == (first, "home")
    home = cell.requests[-1][1]
    cell.route(d.on_status(first, {"id": home["id"], "state": "succeeded"}, cell.now))
    assert cell.requests[-1][0] == other  # the way is clear
    cell.finish(other)
    assert d.outcome == "succeeded"


def test_in_the_dual_scene_the_red_and_blue_tasks_run_at_once(cards):
    from miles_ros.agent.dispatch import CELL_CLEARANCE

    # the scene's layout keeps the two tasks' cubes and pads beyond the cell's clearance
    red = [WHERE[k] for k in ("red_cube", "left_pad")]
    blue = [WHERE[k] for k in ("blue_cube", "right_pad")]
    assert min(math.dist(a, b) for a in red for b in blue) > CELL_CLEARANCE
    d = Dispatcher(
        ("left_arm", "right_arm"), "trace-p", [RED, BLUE], CUBES, where=WHERE,
        clearance=CELL_CLEARANCE,
    )  # fmt: skip
    cell = Cell.started(d, cards)
    assert sorted(arm for arm, _ in cell.requests) == ["left_arm", "right_arm"]  # no waiting
    cell.finish("left_arm")
    assert all(r["skill"] == "pick_place" for _, r in cell.requests)  # no clearing home
    cell.finish("right_arm")
    assert d.outcome == "succeeded"


def test_without_clearance_conflicting_tasks_still_run_at_once(cards):
    d = Dispatcher(("left_arm", "right_arm"), "trace-n", [RED, BLUE], CUBES, where=TIGHT)
    cell = Cell.started(d, cards)
    assert {arm for arm, _ in cell.requests} == {"left_arm", "right_arm"}


MIDDLE = {
    "red_cube": (-0.24, -0.02),
    "green_cube": (0.0, 0.0),
    "blue_cube": (0.24, 0.02),
    "left_pad": (-0.22, 0.12),
    "right_pad": (0.22, -0.12),
}
"""The dual scene's second layout: cubes on the middle line, every point of the red
task >= 0.47 m from the blue one's, yet an arm parked at the blue cube reaches over the
middle, where the other arm's forearm passes on its way from home to the red cube."""


@pytest.mark.parametrize("with_bodies", [True, False])
def test_an_arm_parked_across_the_other_arms_path_is_sent_home(cards, with_bodies):
    from miles_ros.agent.dispatch import CELL_CLEARANCE
    from miles_ros.runtime.frames import arm_bodies

    reach_blue = ("reach", {"target": "blue_cube"})
    d = Dispatcher(
        ("left_arm", "right_arm"), "trace-b", [RED, reach_blue], CUBES, where=MIDDLE,
        clearance=CELL_CLEARANCE, bodies=arm_bodies(SCENE) if with_bodies else None,
    )  # fmt: skip
    cell = Cell.started(d, cards)
    assert sorted(arm for arm, _ in cell.requests) == ["left_arm", "right_arm"]  # at once
    cell.finish("right_arm")  # it stands at the blue cube while red runs
    sent = [(arm, r["skill"]) for arm, r in cell.requests]
    assert (sent[-1] == ("right_arm", "home")) is with_bodies
    cell.finish("left_arm")
    assert d.outcome == "succeeded"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_xy, _xy), min_size=4, max_size=4))
def test_polyline_distance_is_the_least_distance_between_their_points(pts):
    from miles_ros.agent.geometry import polyline_distance

    a, b = [pts[0][0], pts[0][1], pts[1][0]], [pts[2][0], pts[2][1], pts[3][0]]
    d = polyline_distance(a, b)

    def sample(line):
        t = np.linspace(0.0, 1.0, 201)[:, None]
        return np.concatenate(
            [np.add(p, t * np.subtract(q, p)) for p, q in zip(line, line[1:], strict=False)]
        )

    sa, sb = sample(a), sample(b)
    brute = float(np.min(np.linalg.norm(sa[:, None] - sb[None], axis=2)))
    step = (
        max(math.dist(p, q) for line in (a, b) for p, q in zip(line, line[1:], strict=False)) / 200
    )
    assert d <= brute + 1e-9  # never more than what two sampled points show
    assert d >= brute - step - 1e-9  # and the samples lie within a step of the truth
    assert polyline_distance([a[0]], [a[0]]) == 0.0


def test_a_bid_from_away_from_home_counts_the_home_move_first(cards):
    """The skill node homes the arm before a learned skill that would start elsewhere."""
    from sims.robots import panda

    agent = agents(cards, ("left_arm",))["left_arm"]
    _, at_home = agent.evaluate(*RED)
    away = panda.home_joint_positions + np.array([0.5, 0.0, 0.0, 0.3, 0.0, 0.0, 0.0])
    agent.on_joints(away)
    _, from_away = agent.evaluate(*RED)
    start = np.asarray(panda.fk_tcp(away))
    home = np.asarray(panda.fk_tcp(panda.home_joint_positions))
    assert from_away == pytest.approx(at_home + agent.cost.estimate("home", start, None, home))
