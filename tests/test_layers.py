"""The layers, checked on the source (ast, no imports run): ``sims/`` and ``policies/``
never import ``miles_ros`` or ROS, and ROS (rclpy and the modules only a ROS install
has) is imported only under ``miles_ros/ros/``. ``bench/`` and ``tests/`` are exempt.
String imports (``importlib.import_module("...")``) count too."""

from __future__ import annotations

import ast
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
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


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
