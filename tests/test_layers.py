"""The layers, checked on the source (ast, no imports run): ``sims/`` and ``policies/``
never import ``miles_ros`` or ROS, and ROS (rclpy and the modules only a ROS install
has) is imported only under ``miles_ros/ros/``; inside ``miles_ros`` imports point down
its layers (:data:`MILES_LAYERS`: interfaces, safety, runtime, perception, agent, params, manager,
ros, the demos, the CLI). ``bench/`` and ``tests/`` are exempt. String imports
(``importlib.import_module("...")``) count too."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROS_PACKAGE = ROOT / "miles_ros" / "ros"
ROS_ONLY = (
    "rclpy",
    "rcl_interfaces",
    "std_msgs",
    "sensor_msgs",
    "std_srvs",
    "rosgraph_msgs",
    "builtin_interfaces",
    "mcap_ros2",
    "launch_ros",
)
"""Top-level modules that come with ROS (or its PyPI wheels) only."""
CORES = ("sims", "policies")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, lazy ones included."""
    return list(_scan(str(path), path.read_text(encoding="utf-8"))[0])


@functools.cache
def _scan(filename: str, text: str) -> tuple[tuple, tuple]:
    """The imports of one source text, parsed once per run (the tests scan ``miles_ros``
    three times and the cores twice; a file's text is in the key, so an edit is seen):
    (:func:`imported_modules`' list, ``(line, name)`` of each ``from miles_ros import
    name``)."""
    found, parts = [], []
    for node in ast.walk(ast.parse(text, filename=filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            if node.module == "miles_ros":
                parts += [(node.lineno, alias.name) for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return tuple(found), tuple(parts)


def top(module: str) -> str:
    return module.split(".")[0]


def sources(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


@pytest.mark.parametrize("folder", CORES)
def test_the_cores_import_neither_miles_ros_nor_ros(folder):
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sources(folder)
        for line, module in imported_modules(path)
        if top(module) in ("miles_ros", *ROS_ONLY)
    ]
    assert not bad, "sims/ and policies/ must not import miles_ros or ROS:\n" + "\n".join(bad)


def test_ros_is_imported_only_in_the_ros_package():
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sources(*CORES, "miles_ros")
        if ROS_PACKAGE not in path.parents
        for line, module in imported_modules(path)
        if top(module) in ROS_ONLY
    ]
    assert not bad, "ROS imported outside miles_ros/ros/:\n" + "\n".join(bad)


def test_the_scan_sees_lazy_and_string_imports(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "import importlib\n"
        "def f():\n"
        "    from rclpy.node import Node\n"
        "    importlib.import_module('std_msgs.msg')\n"
        "    import sensor_msgs.msg as m\n"
    )
    assert {top(m) for _, m in imported_modules(path)} == {
        "importlib",
        "rclpy",
        "std_msgs",
        "sensor_msgs",
    }
    assert ROS_PACKAGE.is_dir() and any(ROS_PACKAGE.glob("*_node.py"))


def test_package_xml_lists_the_ros_packages_the_code_imports():
    """package.xml's ROS dependencies are exactly what miles_ros/ros/ and launch/ import
    (plus builtin_interfaces, whose .msg files the recorder reads for std_msgs/Header)."""
    import xml.etree.ElementTree as ET

    root = ET.parse(ROOT / "package.xml").getroot()
    listed = {e.text for e in root.iter("exec_depend")} - {None}
    ros_listed = {name for name in listed if not name.startswith("python3-")}
    imported = {
        top(module)
        for path in sources("miles_ros/ros", "launch")
        for _, module in imported_modules(path)
        if top(module) in (*ROS_ONLY, "launch")
    }
    assert ros_listed == imported | {"builtin_interfaces"}


MILES_LAYERS = (
    ("interfaces",),
    ("safety",),
    ("runtime",),
    ("perception",),
    ("agent",),
    ("params",),
    ("manager",),
    ("monitor", "view", "console"),
    ("ros",),
    ("demo_graph", "demo_goal", "demo_dual"),
    ("commands", "cli"),
)
"""The parts of ``miles_ros`` from the bottom up: a part imports its own layer and those
below, never one above (so ``agent`` and ``runtime`` cannot import each other again, and
neither imports the managers or the node parameters)."""


def part_of(path: Path, root: Path = ROOT) -> str:
    """The part of ``miles_ros`` a source file belongs to (``agent``, ``interfaces``, ...)."""
    return path.relative_to(root / "miles_ros").parts[0].removesuffix(".py")


def imported_parts(path: Path) -> list[tuple[int, str]]:
    """(line, part of ``miles_ros``) of every import of miles_ros in ``path``, lazy ones
    included; ``from miles_ros import x`` counts as part ``x``."""
    modules, found = _scan(str(path), path.read_text(encoding="utf-8"))
    found = list(found)
    found += [(line, m.split(".")[1]) for line, m in modules if m.startswith("miles_ros.")]
    return sorted(found)


def upward_imports(paths: list[Path], root: Path = ROOT) -> list[str]:
    """Every import of a higher layer of ``miles_ros`` (or of a part with no layer)."""
    rank = {part: i for i, layer in enumerate(MILES_LAYERS) for part in layer}
    bad = []
    for path in paths:
        own = part_of(path, root)
        for line, part in imported_parts(path):
            if own != "__init__" and rank.get(part, len(MILES_LAYERS)) > rank[own]:
                bad.append(f"{path.relative_to(root)}:{line}: {own} imports {part}")
    return bad


def test_every_part_of_miles_ros_has_a_layer():
    parts = {part_of(p) for p in sources("miles_ros")} - {"__init__"}
    assert parts == {part for layer in MILES_LAYERS for part in layer}


def test_miles_ros_imports_point_down_its_layers():
    bad = upward_imports(sources("miles_ros"))
    assert not bad, "imports up the layers of miles_ros:\n" + "\n".join(bad)


def test_the_layer_check_sees_an_upward_import(tmp_path):
    """A runtime module that imports the manager, or lazily the agent, is reported; the
    same imports from the manager are not."""
    probe = (
        "from miles_ros.manager.glue import ManagerDriver\n"
        "import json\n"
        "def f():\n"
        "    from miles_ros import agent\n"
    )
    for part in ("runtime", "manager"):
        path = tmp_path / "miles_ros" / part / "probe.py"
        path.parent.mkdir(parents=True)
        path.write_text(probe)
    assert upward_imports(sorted((tmp_path / "miles_ros").rglob("*.py")), tmp_path) == [
        "miles_ros/runtime/probe.py:1: runtime imports manager",
        "miles_ros/runtime/probe.py:4: runtime imports agent",
    ]
