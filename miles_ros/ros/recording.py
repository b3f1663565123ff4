"""MCAP recording of the graph (``miles up --record FILE.mcap``).

A node that subscribes to every topic of the Miles graph it knows (the names from the
nodes' parameter dataclasses, so a renamed default is recorded under its new name) and
writes each message as it arrives: CDR bytes from
``rclpy.serialization`` under a ``ros2msg`` schema (the .msg text with its dependencies,
read from the installed message packages), the layout ``ros2 bag`` and Foxglove read.
Needs the ``mcap`` package (in requirements.txt).

A cell of several arms (``Recorder(path, scene_file=...)``, ``miles up --scene FILE
--record``: :func:`cell_recorded_topics`) records each arm's topics under its namespace
(``/left_arm/joint_states``, ``/left_arm/miles/skill/status``, ...), the shared ones
(objects, goal, plan, manager status), the arms' ``/miles/safety/occupancy`` and the
contract net's ``/miles/tasks/announce|bid|award``.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections import Counter
from pathlib import Path

from rclpy.node import Node
from rclpy.serialization import serialize_message

from miles_ros.interfaces import arm_scoped
from miles_ros.params.manager import ManagerNodeParams
from miles_ros.params.safety import SafetyNodeNames
from miles_ros.params.sim import SimNodeParams
from miles_ros.params.skill import SkillNodeParams
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS, SENSOR_QOS

_JOINT_STATE, _STRING, _BOOL = (
    "sensor_msgs/msg/JointState",
    "std_msgs/msg/String",
    "std_msgs/msg/Bool",
)


def recorded_topics() -> dict[str, str]:
    """Recorded topic -> its type, the names read from the nodes' default parameters."""
    sim, skill, safety, manager = (
        SimNodeParams(),
        SkillNodeParams(),
        SafetyNodeNames(),
        ManagerNodeParams(),
    )
    return {
        sim.joint_states_topic: _JOINT_STATE,
        safety.joint_command_topic: _JOINT_STATE,
        safety.skill_command_topic: _JOINT_STATE,
        sim.objects_topic: _STRING,
        sim.truth_topic: _STRING,  # the simulator's poses while perception publishes objects
        skill.request_topic: _STRING,
        skill.status_topic: _STRING,
        safety.state_topic: _STRING,
        safety.events_topic: _STRING,
        safety.skill_tags_topic: _STRING,
        safety.estop_topic: _BOOL,
        manager.goal_topic: _STRING,
        manager.plan_topic: _STRING,
        manager.status_topic: _STRING,
    }


TOPICS: dict[str, str] = recorded_topics()
"""Recorded topics and their types."""
SENSOR_TOPICS = frozenset({SimNodeParams().joint_states_topic})
"""Recorded with the sensor QoS (best effort); the others reliable."""
LATCHED_TOPICS = frozenset(
    {
        SafetyNodeNames().state_topic,
        SafetyNodeNames().skill_tags_topic,
        ManagerNodeParams().plan_topic,
        ManagerNodeParams().status_topic,
    }
)
"""Published latched (reliable, transient-local; docs/interfaces.md): recorded with a
latched reader, so a recording started later opens with their current message."""

ARM_TOPICS = frozenset(
    {
        SimNodeParams().joint_states_topic,
        *(
            getattr(SafetyNodeNames(), f"{name}_topic")
            for name in (
                "joint_command",
                "skill_command",
                "state",
                "events",
                "skill_tags",
                "estop",
            )
        ),
        SkillNodeParams().request_topic,
        SkillNodeParams().status_topic,
    }
)
"""The topics of :data:`TOPICS` that each arm of a cell has under its namespace
(``arm_scoped``); the others (objects, goal, plan, manager status) the cell shares."""


def cell_recorded_topics(scene_file: str | Path | None) -> dict[str, str]:
    """Recorded topic -> type for the graph of ``scene_file``: :data:`TOPICS` for a
    scene without ``arms:``; for a cell, each of :data:`ARM_TOPICS` under every arm's
    namespace, the shared topics, the arms' occupancy and the contract net's topics."""
    from miles_ros.interfaces import CELL_TOPICS
    from sims.scene import load_scene

    scene = load_scene(str(scene_file) if scene_file else None)
    if not scene.multi_arm:
        return dict(TOPICS)
    out = {topic: kind for topic, kind in TOPICS.items() if topic not in ARM_TOPICS}
    for mount in scene.arms:
        for topic in ARM_TOPICS:
            out[arm_scoped(mount.name, topic)] = TOPICS[topic]
    out[SafetyNodeNames().occupancy_topic] = _STRING
    for topic in CELL_TOPICS.values():
        out[topic] = _STRING
    return out


def reader_qos(topic: str):
    """The recorder's reader for ``topic`` (also an arm's): best effort for
    :func:`best_effort` topics, latched for :data:`LATCHED_TOPICS` (a volatile reader
    would miss the message published before the recording began), else reliable."""
    if best_effort(topic):
        return SENSOR_QOS
    if any(topic.endswith(t) for t in LATCHED_TOPICS):
        return LATCHED_QOS
    return COMMAND_QOS


def best_effort(topic: str) -> bool:
    """Recorded with a best-effort reader: joint states (also an arm's) and occupancy,
    whose writers are best effort (a reliable reader would never match them)."""
    occupancy = SafetyNodeNames().occupancy_topic
    return topic == occupancy or any(topic.endswith(t) for t in SENSOR_TOPICS)


_SEPARATOR = "=" * 80
_PRIMITIVES = {
    "bool",
    "byte",
    "char",
    "float32",
    "float64",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "string",
    "wstring",
}


def _msg_file(type_name: str) -> Path:
    package, _, name = type_name.split("/")
    module = importlib.import_module(package)
    for root in Path(module.__file__).resolve().parents:
        candidate = root / "share" / package / "msg" / f"{name}.msg"
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no .msg definition found for {type_name}")


def message_definition(type_name: str) -> str:
    """The ros2msg schema text: the type's .msg, then each dependency once."""
    seen: list[str] = []
    order: list[tuple[str, str]] = []

    def visit(name: str) -> str:
        text = _msg_file(name).read_text()
        package = name.split("/")[0]
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if not line or "=" in line.split()[0]:
                continue
            base = re.sub(r"\[.*\]$|<=\d+$", "", line.split()[0])
            if base in _PRIMITIVES or base.startswith(("string<", "wstring<")):
                continue
            dep = (
                f"{base.split('/')[0]}/msg/{base.split('/')[1]}"
                if "/" in base
                else (f"{package}/msg/{base}")
            )
            if dep not in seen:
                seen.append(dep)
                order.append((dep, ""))
                slot = len(order) - 1
                order[slot] = (dep, visit(dep))
        return text

    main = visit(type_name)
    parts = [main.rstrip("\n")]
    for dep, text in order:
        short = dep.replace("/msg/", "/")
        parts.append(f"{_SEPARATOR}\nMSG: {short}\n{text.rstrip(chr(10))}")
    return "\n".join(parts) + "\n"


class Recorder(Node):
    """Writes every message of :data:`TOPICS` to an MCAP file until :meth:`close` (or
    until the node is destroyed)."""

    def __init__(self, path: str | Path, scene_file: str | Path | None = None, **kwargs):
        """``scene_file``: a cell's scene (:func:`cell_recorded_topics`); None: the
        single-arm graph's :data:`TOPICS`."""
        super().__init__("miles_recorder", **kwargs)
        self.topics = cell_recorded_topics(scene_file) if scene_file else dict(TOPICS)
        from mcap.writer import Writer

        self._file = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._writer = Writer(self._file)
        self._writer.start(profile="ros2", library="miles")
        self._lock = threading.Lock()
        self.count = 0
        self.counts: Counter[str] = Counter()
        """Messages written per topic."""
        schemas: dict[str, int] = {}
        for topic, type_name in self.topics.items():
            if type_name not in schemas:
                schemas[type_name] = self._writer.register_schema(
                    name=type_name, encoding="ros2msg", data=message_definition(type_name).encode()
                )
            channel = self._writer.register_channel(
                topic=topic, message_encoding="cdr", schema_id=schemas[type_name]
            )
            package, _, name = type_name.split("/")
            msg_type = getattr(importlib.import_module(f"{package}.msg"), name)
            self.create_subscription(
                msg_type, topic, self._writer_for(channel, topic), reader_qos(topic)
            )

    def _writer_for(self, channel: int, topic: str):
        def write(msg) -> None:
            now = self.get_clock().now().nanoseconds
            data = serialize_message(msg)
            with self._lock:
                if self._writer is not None:
                    self._writer.add_message(
                        channel_id=channel, log_time=now, data=data, publish_time=now
                    )
                    self.count += 1
                    self.counts[topic] += 1

        return write

    def close(self) -> None:
        """Finish the file (later messages are dropped); idempotent."""
        with self._lock:
            if self._writer is not None:
                self._writer.finish()
                self._file.close()
                self._writer = None

    def destroy_node(self):
        self.close()
        return super().destroy_node()
