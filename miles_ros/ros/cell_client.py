"""A probe of a cell's graph (several arms, ``miles demo --dual``): what
:class:`~miles_ros.ros.clients.GraphClient` records (manager statuses, camera frames,
object poses; goals and the camera service), plus per arm its skill requests and statuses,
its safety state and events and whether its joint states flow (each arm's names under its
namespace, :func:`~miles_ros.interfaces.arm_scoped`), and the contract net's
announcements, bids and awards. Every per-arm and contract-net message is kept with the
``time.monotonic()`` of its arrival, so the demo can tell when each task ran.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from sensor_msgs.msg import JointState
from std_msgs.msg import String

from miles_ros.interfaces import CELL_TOPICS, arm_scoped
from miles_ros.params.sim import SimNodeParams
from miles_ros.params.skill import SkillNodeParams
from miles_ros.ros.clients import GraphClient
from miles_ros.ros.qos import LATCHED_QOS, READER_QOS, SENSOR_QOS


class CellClient(GraphClient):
    """:class:`GraphClient` for a cell of ``arms``; stores are lists of ``(t, dict)``."""

    def __init__(self, context, arms: Sequence[str], name: str = "miles_demo_dual") -> None:
        super().__init__(context, name)
        self.arms = tuple(arms)
        self.requests: dict[str, list[tuple[float, dict]]] = {a: [] for a in self.arms}
        """Skill requests the manager sent each arm."""
        self.arm_statuses: dict[str, list[tuple[float, dict]]] = {a: [] for a in self.arms}
        """Each arm's skill statuses."""
        self.arm_safety: dict[str, dict] = {a: {} for a in self.arms}
        """Each arm's latest safety state."""
        self.arm_events: dict[str, list[dict]] = {a: [] for a in self.arms}
        """Each arm's safety events (interventions as published)."""
        self.arm_joint_states: dict[str, int] = {a: 0 for a in self.arms}
        """Joint states received per arm."""
        self.net: dict[str, list[tuple[float, dict]]] = {k: [] for k in CELL_TOPICS}
        """Contract-net messages by kind: announce, bid, award."""
        skill, sim = SkillNodeParams(), SimNodeParams()
        sub = self.node.create_subscription
        for arm in self.arms:
            scoped = lambda name, arm=arm: arm_scoped(arm, name)  # noqa: E731
            sub(String, scoped(skill.request_topic), self._stamped(self.requests[arm]), READER_QOS)
            sub(
                String,
                scoped(skill.status_topic),
                self._stamped(self.arm_statuses[arm]),
                READER_QOS,
            )
            sub(String, scoped(self.safety_names.state_topic), self._state_of(arm), LATCHED_QOS)
            sub(
                String,
                scoped(self.safety_names.events_topic),
                self._json_into(self.arm_events[arm]),
                READER_QOS,
            )
            sub(JointState, scoped(sim.joint_states_topic), self._count_joints(arm), SENSOR_QOS)
        for kind, topic in CELL_TOPICS.items():
            sub(String, topic, self._stamped(self.net[kind]), READER_QOS)

    def _stamped(self, store: list):
        return lambda msg: self._add(store, (time.monotonic(), json.loads(msg.data)))

    def _state_of(self, arm: str):
        def callback(msg) -> None:
            with self.cond:
                self.arm_safety[arm] = json.loads(msg.data)
                self.cond.notify_all()

        return callback

    def _count_joints(self, arm: str):
        def callback(_msg) -> None:
            with self.cond:
                self.arm_joint_states[arm] += 1
                self.cond.notify_all()

        return callback
