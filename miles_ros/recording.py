"""MCAP recording of the graph (``miles up --record FILE.mcap``).

A node that subscribes to every topic of the Miles graph it knows (the documented names
and types) and writes each message as it arrives: CDR bytes from
``rclpy.serialization`` under a ``ros2msg`` schema (the .msg text with its dependencies,
read from the installed message packages), the layout ``ros2 bag`` and Foxglove read.
Needs the ``mcap`` package (in requirements.txt).
"""

from __future__ import annotations

import importlib
import re
import threading
from pathlib import Path

from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from rclpy.serialization import serialize_message

TOPICS: dict[str, str] = {
    "/joint_states": "sensor_msgs/msg/JointState",
    "/miles/joint_command": "sensor_msgs/msg/JointState",
    "/miles/skill_command": "sensor_msgs/msg/JointState",
    "/miles/scene/objects": "std_msgs/msg/String",
    "/miles/skill/request": "std_msgs/msg/String",
    "/miles/skill/status": "std_msgs/msg/String",
    "/miles/safety/state": "std_msgs/msg/String",
    "/miles/safety/events": "std_msgs/msg/String",
    "/miles/safety/skill_tags": "std_msgs/msg/String",
    "/miles/estop": "std_msgs/msg/Bool",
    "/miles/goal": "std_msgs/msg/String",
    "/miles/plan": "std_msgs/msg/String",
    "/miles/manager/status": "std_msgs/msg/String",
}
"""Recorded topics and their types."""

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
    """Writes every message of :data:`TOPICS` to an MCAP file until :meth:`close`."""

    def __init__(self, path: str | Path, **kwargs):
        super().__init__("miles_recorder", **kwargs)
        from mcap.writer import Writer

        self._file = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._writer = Writer(self._file)
        self._writer.start(profile="ros2", library="miles")
        self._lock = threading.Lock()
        self.count = 0
        schemas: dict[str, int] = {}
        for topic, type_name in TOPICS.items():
            if type_name not in schemas:
                schemas[type_name] = self._writer.register_schema(
                    name=type_name, encoding="ros2msg", data=message_definition(type_name).encode()
                )
            channel = self._writer.register_channel(
                topic=topic, message_encoding="cdr", schema_id=schemas[type_name]
            )
            package, _, name = type_name.split("/")
            msg_type = getattr(importlib.import_module(f"{package}.msg"), name)
            qos = qos_profile_sensor_data if topic == "/joint_states" else 10
            self.create_subscription(msg_type, topic, self._writer_for(channel), qos)

    def _writer_for(self, channel: int):
        def write(msg) -> None:
            now = self.get_clock().now().nanoseconds
            data = serialize_message(msg)
            with self._lock:
                if self._writer is not None:
                    self._writer.add_message(
                        channel_id=channel, log_time=now, data=data, publish_time=now
                    )
                    self.count += 1

        return write

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.finish()
                self._file.close()
                self._writer = None
        self.destroy_node()
