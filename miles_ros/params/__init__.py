"""Node parameters, one module per node, as typed dataclasses, and ``config/*.yaml`` read
as ROS parameter files.

- :mod:`miles_ros.params.sim`: ``sim_node``; :mod:`miles_ros.params.skill`: ``skill_node``;
  :mod:`miles_ros.params.safety`: ``safety_node``'s names (its limits are
  :class:`miles_ros.safety.config.SafetyConfig`); :mod:`miles_ros.params.manager`:
  ``manager_node``; :mod:`miles_ros.params.arm_agent`: ``arm_agent_node``;
  :mod:`miles_ros.params.command_adapter`: ``command_adapter_node``;
  :mod:`miles_ros.params.perception`: ``perception_node``.

Each node declares one ROS parameter per field of its dataclass (with
:func:`miles_ros.ros.params.declare_params`) with the field's docstring
(:func:`field_docs`) as the description; defaults live in the dataclass and are mirrored
in ``config/<part>.yaml`` under ``<node_name>: ros__parameters:`` (tests/test_launch_files.py
keeps them in step for every node). Every topic and service name is a parameter whose
default comes from :mod:`miles_ros.interfaces`. No rclpy here (tests/test_layers.py).
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import os
import sys
from pathlib import Path
from typing import Any

import yaml

PACKAGE = "miles_ros"

NODE_PARAMS: dict[str, tuple[str, ...]] = {
    "sim_node": ("miles_ros.params.sim:SimNodeParams",),
    "skill_node": ("miles_ros.params.skill:SkillNodeParams",),
    "safety_node": (
        "miles_ros.safety.config:SafetyConfig",
        "miles_ros.params.safety:SafetyNodeNames",
    ),
    "manager_node": ("miles_ros.params.manager:ManagerNodeParams",),
    "arm_agent_node": ("miles_ros.params.arm_agent:ArmAgentParams",),
    "command_adapter_node": ("miles_ros.params.command_adapter:CommandAdapterParams",),
    "perception_node": ("miles_ros.params.perception:PerceptionNodeParams",),
}
"""Each node executable's parameter dataclasses, in declaration order (the safety node
declares its limits, then its names), as ``module:class`` (imported on demand)."""

NODE_CONFIGS: dict[str, str] = {
    "sim_node": "sim.yaml",
    "safety_node": "safety.yaml",
    "skill_node": "skills.yaml",
    "manager_node": "manager.yaml",
    "command_adapter_node": "command_adapter.yaml",
    "perception_node": "perception.yaml",
}
"""Each node executable's parameter file in config/ (keys under ``<node>: ros__parameters``)."""


def node_param_classes(executable: str) -> tuple[type, ...]:
    """The dataclasses whose fields are ``executable``'s parameters, in declaration order."""
    if executable not in NODE_PARAMS:
        raise KeyError(f"no node executable {executable!r}")
    out = []
    for spec in NODE_PARAMS[executable]:
        module, name = spec.split(":")
        out.append(getattr(importlib.import_module(module), name))
    return tuple(out)


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass, read from its source."""
    body = ast.parse(inspect.getsource(cls)).body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def config_dir() -> Path:
    """config/ of the source tree, else the installed share/miles_ros/config."""
    here = Path(__file__).resolve().parents[2] / "config"
    if here.is_dir():
        return here
    for prefix in dict.fromkeys([sys.prefix, *os.environ.get("AMENT_PREFIX_PATH", "").split(":")]):
        if prefix and (Path(prefix) / "share" / PACKAGE / "config").is_dir():
            return Path(prefix) / "share" / PACKAGE / "config"
    return here


def load_node_params(path: str | Path, node_name: str) -> dict[str, Any]:
    """The ``ros__parameters`` of ``node_name`` in a ROS parameter file (also under a
    ``/**`` or namespaced key), or {} when the file has none for it."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    out: dict[str, Any] = {}
    for key, section in data.items():
        name = str(key).rsplit("/", 1)[-1]
        if name in ("**", node_name) and isinstance(section, dict):
            out.update(section.get("ros__parameters") or {})
    return out
