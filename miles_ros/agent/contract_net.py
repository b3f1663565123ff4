"""Contract-net task allocation (no ROS): the messages and both sides' logic.

The manager announces a task (:class:`Announce`, ``/miles/tasks/announce``) with a bid
deadline; each arm answers (:class:`Bid`, ``/miles/tasks/bid``) with a cost and the time
it would finish, or a refusal with its reason; at the deadline (or once every expected
bidder answered) the manager awards the task to the least cost (ties: earlier finish,
then the arm's name) (:class:`Award`, ``/miles/tasks/award``). A failed task is
announced again in a new round carrying the failure as feedback; a task nobody bids on
fails with every refusal's reason. Every message carries its goal's trace id.

Messages are JSON objects with a ``type`` field. :func:`parse` refuses, with a specific
reason, anything that is not JSON, misses or adds a field, or has a value of the wrong
type; :class:`Auction` and :class:`Contractor` also refuse (and log) messages about an
unknown task, past their deadline, or whose trace id is not the task's: nothing is
awarded or executed on them.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, field
from typing import Any

LOG = logging.getLogger("miles_ros.agent.contract_net")


@dataclass(frozen=True)
class Announce:
    """A task offered to the arms."""

    task_id: str
    """Unique per task (kept across re-announcements)."""
    trace_id: str
    """The goal's trace id."""
    skill: str
    """The skill to run."""
    params: dict[str, Any]
    """Its parameters."""
    deadline: float
    """Bids stamped after this (s) are refused."""
    round: int = 1
    """1 for the first announcement, +1 for each re-announcement."""
    feedback: str = ""
    """Why the previous round failed ('' in round 1)."""
    type: str = "announce"


@dataclass(frozen=True)
class Bid:
    """An arm's answer to an announcement: a cost, or a refusal with its reason."""

    task_id: str
    """The announced task."""
    trace_id: str
    """The goal's trace id, as announced."""
    arm: str
    """The bidding arm."""
    round: int
    """The round it answers."""
    stamp: float
    """When it was sent (s)."""
    cost: float | None = None
    """Lower is better (from the skill critic's value, the queue, reachability); None
    for a refusal."""
    finish_time: float | None = None
    """When the arm expects to finish the task (s); None for a refusal."""
    refusal: str = ""
    """Why the arm cannot do the task ('' for a bid)."""
    type: str = "bid"


@dataclass(frozen=True)
class Award:
    """The task given to one arm."""

    task_id: str
    """The task."""
    trace_id: str
    """The goal's trace id."""
    arm: str
    """The winner."""
    round: int
    """The round it won."""
    cost: float
    """Its winning cost."""
    type: str = "award"


Message = Announce | Bid | Award
_TYPES: dict[str, type] = {"announce": Announce, "bid": Bid, "award": Award}
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "task_id": (str,),
    "trace_id": (str,),
    "skill": (str,),
    "arm": (str,),
    "params": (dict,),
    "deadline": (int, float),
    "round": (int,),
    "feedback": (str,),
    "stamp": (int, float),
    "cost": (int, float, type(None)),
    "finish_time": (int, float, type(None)),
    "refusal": (str,),
    "type": (str,),
}
_REQUIRED_TEXT = ("task_id", "trace_id", "skill", "arm")


def to_json(message: Message) -> str:
    """The JSON of a message."""
    return json.dumps(asdict(message))


def parse(text: str | bytes) -> Message:
    """A validated message from its JSON; ValueError says what is wrong."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("type") not in _TYPES:
        raise ValueError(f"need a JSON object with type one of {sorted(_TYPES)}")
    cls = _TYPES[data["type"]]
    names = {f for f in cls.__dataclass_fields__}
    required = {
        n
        for n, f in cls.__dataclass_fields__.items()
        if f.default is f.default_factory  # both MISSING: no default
    }
    if set(data) - names:
        raise ValueError(f"{data['type']}: unknown fields {sorted(set(data) - names)}")
    if required - set(data):
        raise ValueError(f"{data['type']}: missing fields {sorted(required - set(data))}")
    for name, value in data.items():
        allowed = _FIELD_TYPES[name]
        if isinstance(value, bool) or not isinstance(value, allowed):
            raise ValueError(f"{data['type']}: {name} has the wrong type ({value!r})")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{data['type']}: {name} is not finite")
        if name in _REQUIRED_TEXT and not value:
            raise ValueError(f"{data['type']}: {name} is empty")
    message = cls(**data)
    if isinstance(message, Bid):
        if (message.cost is None) == (not message.refusal):
            raise ValueError("bid: give a cost (and finish_time) or a refusal, not both")
        if message.cost is not None and (message.cost < 0.0 or message.finish_time is None):
            raise ValueError("bid: cost must be >= 0 with a finish_time")
    if getattr(message, "round", 1) < 1:
        raise ValueError(f"{data['type']}: round must be >= 1")
    return message


@dataclass
class _Task:
    announce: Announce
    bids: dict[str, Bid] = field(default_factory=dict)
    awarded: Award | None = None
    failures: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Outcome:
    """What closing a round gave."""

    award: Award | None
    """The award (None when nobody bid)."""
    reasons: dict[str, str]
    """Refusals by arm, and 'no answer' for expected arms that did not answer."""


class Auction:
    """The manager's side: announce, collect bids, award, re-announce after a failure."""

    def __init__(self, arms: tuple[str, ...] | list[str], bid_window: float = 0.2) -> None:
        if not arms or len(set(arms)) != len(arms) or bid_window <= 0.0:
            raise ValueError("need distinct arm names and a positive bid window")
        self.arms = tuple(arms)
        """The arms expected to answer every announcement."""
        self.bid_window = bid_window
        """Seconds between an announcement and its bid deadline."""
        self.tasks: dict[str, _Task] = {}
        self.refused = 0
        """Messages refused (malformed, unknown task, expired, forged trace id, ...)."""

    def announce(
        self, task_id: str, trace_id: str, skill: str, params: dict[str, Any], now: float
    ) -> Announce:
        """Open round 1 of a new task."""
        if task_id in self.tasks:
            raise ValueError(f"task {task_id!r} already announced")
        msg = Announce(task_id, trace_id, skill, dict(params), now + self.bid_window)
        self.tasks[task_id] = _Task(msg)
        return msg

    def reannounce(self, task_id: str, feedback: str, now: float) -> Announce:
        """Open the next round of a task whose award failed, with the failure as feedback."""
        task = self.tasks[task_id]
        old = task.announce
        task.failures.append(feedback)
        task.announce = Announce(
            old.task_id,
            old.trace_id,
            old.skill,
            old.params,
            now + self.bid_window,
            old.round + 1,
            feedback,
        )
        task.bids, task.awarded = {}, None
        return task.announce

    def offer(self, message: str | Bid, now: float) -> bool:
        """Take a bid (or its JSON). False, logged, when refused."""
        try:
            bid = parse(message) if isinstance(message, str | bytes) else message
        except ValueError as exc:
            return self._refuse(str(exc))
        if not isinstance(bid, Bid):
            return self._refuse(f"expected a bid, got {bid.type}")
        task = self.tasks.get(bid.task_id)
        if task is None:
            return self._refuse(f"bid for unknown task {bid.task_id!r}")
        ann = task.announce
        if bid.trace_id != ann.trace_id:
            return self._refuse(f"bid for {bid.task_id!r} with a forged trace id")
        if bid.arm not in self.arms:
            return self._refuse(f"bid from unknown arm {bid.arm!r}")
        if bid.round != ann.round or task.awarded is not None:
            return self._refuse(f"bid for {bid.task_id!r} round {bid.round}: round closed")
        if bid.stamp > ann.deadline or now > ann.deadline:
            return self._refuse(f"bid for {bid.task_id!r} from {bid.arm!r} after the deadline")
        if bid.arm in task.bids:
            return self._refuse(f"second bid from {bid.arm!r} for {bid.task_id!r}")
        task.bids[bid.arm] = bid
        return True

    def ready(self, task_id: str, now: float) -> bool:
        """True once the round can close: the deadline passed or every arm answered."""
        task = self.tasks[task_id]
        return now > task.announce.deadline or len(task.bids) == len(self.arms)

    def close(self, task_id: str, now: float) -> Outcome:
        """Close the round: award the least cost (ties: earlier finish, then name)."""
        task = self.tasks[task_id]
        if not self.ready(task_id, now):
            raise ValueError(f"round {task.announce.round} of {task_id!r} is still open")
        reasons = {arm: "no answer" for arm in self.arms if arm not in task.bids}
        offers = []
        for arm, bid in task.bids.items():
            if bid.cost is None:
                reasons[arm] = bid.refusal
            else:
                offers.append((bid.cost, bid.finish_time, arm))
        if not offers:
            return Outcome(None, reasons)
        cost, _, arm = min(offers)
        ann = task.announce
        task.awarded = Award(task_id, ann.trace_id, arm, ann.round, float(cost))
        return Outcome(task.awarded, reasons)

    def _refuse(self, why: str) -> bool:
        self.refused += 1
        LOG.warning("contract net: refused %s", why)
        return False


class Contractor:
    """An arm's side: remembers what it bid on and accepts only awards that match."""

    def __init__(self, arm: str) -> None:
        if not arm:
            raise ValueError("need the arm's name")
        self.arm = arm
        self.announced: dict[str, Announce] = {}
        self.bids: dict[str, Bid] = {}
        self.refused = 0
        """Messages refused."""

    def receive_announce(self, message: str | Announce, now: float) -> Announce | None:
        """Take an announcement (None, logged, when malformed or already past deadline)."""
        try:
            ann = parse(message) if isinstance(message, str | bytes) else message
        except ValueError as exc:
            return self._refuse(str(exc))
        if not isinstance(ann, Announce):
            return self._refuse(f"expected an announce, got {ann.type}")
        if now > ann.deadline:
            return self._refuse(f"announce of {ann.task_id!r} past its deadline")
        self.announced[ann.task_id] = ann
        return ann

    def bid(
        self,
        task_id: str,
        now: float,
        cost: float | None = None,
        finish_time: float | None = None,
        refusal: str = "",
    ) -> Bid:
        """Answer an announcement this arm received."""
        ann = self.announced[task_id]
        bid = Bid(task_id, ann.trace_id, self.arm, ann.round, now, cost, finish_time, refusal)
        parse(to_json(bid))  # the same checks a receiver applies
        self.bids[task_id] = bid
        return bid

    def receive_award(self, message: str | Award, now: float) -> Award | None:
        """An award for this arm on a task it bid on, in that round, with the task's trace
        id; None (logged, or silently when it names another arm) otherwise."""
        try:
            award = parse(message) if isinstance(message, str | bytes) else message
        except ValueError as exc:
            return self._refuse(str(exc))
        if not isinstance(award, Award):
            return self._refuse(f"expected an award, got {award.type}")
        if award.arm != self.arm:
            return None  # another arm's award
        bid = self.bids.get(award.task_id)
        if bid is None or bid.cost is None:
            return self._refuse(f"award for {award.task_id!r}, which this arm did not bid on")
        if award.trace_id != bid.trace_id:
            return self._refuse(f"award for {award.task_id!r} with a forged trace id")
        if award.round != bid.round:
            return self._refuse(f"award for {award.task_id!r} of round {award.round}: expired")
        return award

    def _refuse(self, why: str) -> None:
        self.refused += 1
        LOG.warning("contract net (%s): refused %s", self.arm, why)
        return None
