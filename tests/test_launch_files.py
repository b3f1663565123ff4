"""Launch files, by structure (launch/launch_ros are not on PyPI): every file parses,
declares the documented arguments, runs only installed console scripts through the one
launch helper (miles_ros/ros/launching.py), and every node's parameter file in config/
has exactly the parameters its node declares, with the dataclasses' defaults.
When ``launch_ros`` is importable (a ROS distro), each file also builds a description.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
from pathlib import Path

import pytest
import yaml

from miles_ros.params import NODE_CONFIGS, load_node_params, node_param_classes

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = ROOT / "launch"
HELPER = ROOT / "miles_ros" / "ros" / "launching.py"
CONFIG = ROOT / "config"
PARTS = {
    "sim": "sim_node",
    "safety": "safety_node",
    "skills": "skill_node",
    "manager": "manager_node",
    "perception": "perception_node",
}


def console_scripts() -> dict[str, str]:
    """name -> "module:function" from setup.py's console_scripts."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "console_scripts":
                    entries = [ast.literal_eval(e) for e in value.elts]
                    return {e.split("=")[0].strip(): e.split("=")[1].strip() for e in entries}
    raise AssertionError("setup.py has no console_scripts")


def node_calls(path: Path) -> list[dict]:
    """Keyword arguments (literal ones) of every ``Node(...)`` call, plus the .yaml names
    in its ``parameters`` (string constants anywhere inside it, or the CONFIG constant)."""
    tree = ast.parse(path.read_text())
    constants = {
        t.id: n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)
    }
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Node":
            kw = {}
            for k in node.keywords:
                v = k.value
                if isinstance(v, ast.Constant):
                    kw[k.arg] = v.value
                elif isinstance(v, ast.Name) and v.id in constants:
                    kw[k.arg] = constants[v.id]
            params = next((k.value for k in node.keywords if k.arg == "parameters"), None)
            yamls = set()
            for sub in ast.walk(params) if params is not None else []:
                if isinstance(sub, ast.Constant) and str(sub.value).endswith(".yaml"):
                    yamls.add(sub.value)
            if (
                params is not None
                and "CONFIG" in constants
                and any(isinstance(s, ast.Name) and s.id == "CONFIG" for s in ast.walk(tree))
            ):
                yamls.add(constants["CONFIG"])
            kw["yamls"] = sorted(yamls)
            calls.append(kw)
    return calls


def declared_parameters(executable: str) -> set[str]:
    """The parameter names a node declares (from its typed dataclasses)."""
    return {f.name for cls in node_param_classes(executable) for f in dataclasses.fields(cls)}


def helper_calls(path: Path) -> list[str]:
    """The executables a launch file starts through ``node_launch_description("...")``."""
    tree = ast.parse(path.read_text())
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "node_launch_description"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]


def exists(module_function: str) -> bool:
    return importlib.util.find_spec(module_function.split(":")[0]) is not None


def shared_arguments() -> set[str]:
    """The names in the helper's LAUNCH_ARGUMENTS table."""
    tree = ast.parse(HELPER.read_text())
    (table,) = (
        n.value
        for n in tree.body
        if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", None) == "LAUNCH_ARGUMENTS"
    )
    return {key.value for key in table.keys}


def declared_arguments(path: Path, function: str | None = None) -> set[str]:
    """The launch arguments ``path`` (inside ``function``, if named) declares: by
    ``DeclareLaunchArgument("name", ...)`` or by the helper's ``launch_arguments("name",
    ...)``, each of whose names must be in its LAUNCH_ARGUMENTS table."""
    tree = ast.parse(path.read_text())
    if function is not None:
        (tree,) = (n for n in ast.walk(tree) if getattr(n, "name", None) == function)
    declared, shared = set(), shared_arguments()
    for n in ast.walk(tree):
        name = getattr(n.func, "id", None) if isinstance(n, ast.Call) else None
        if name == "DeclareLaunchArgument":
            declared.add(n.args[0].value)
        elif name == "launch_arguments":
            names = {a.value for a in n.args}
            assert names <= shared, f"{path.name}: not in LAUNCH_ARGUMENTS: {names - shared}"
            declared |= names
    return declared


def test_bringup_declares_the_documented_arguments_and_includes_every_part():
    declared = declared_arguments(LAUNCH / "bringup.launch.py")
    assert {"robot", "sim", "use_manager", "params_file", "namespace"} <= declared
    text = (LAUNCH / "bringup.launch.py").read_text()
    for part in PARTS:
        assert f'part("{part}"' in text
        assert (LAUNCH / f"{part}.launch.py").exists()


def test_the_launch_helper_runs_the_named_executable_with_its_config_then_params_file():
    (call,) = node_calls(HELPER)
    assert call["output"] == "screen"
    text = HELPER.read_text()
    assert "package=PACKAGE" in text and "executable=executable" in text
    assert "name=executable" in text and "parameters=[defaults, overrides]" in text
    declared = declared_arguments(HELPER, "node_launch_description")
    for arg in ("params_file", "namespace"):
        assert arg in declared


@pytest.mark.parametrize("part", sorted(PARTS))
def test_part_launch_file_runs_an_installed_executable_with_matching_parameters(part):
    executable = PARTS[part]
    scripts = console_scripts()
    assert helper_calls(LAUNCH / f"{part}.launch.py") == [executable]
    assert not node_calls(LAUNCH / f"{part}.launch.py"), "use the launch helper"
    assert executable in scripts, f"{executable} is not a console script in setup.py"
    assert exists(scripts[executable])
    name = NODE_CONFIGS[executable]
    data = yaml.safe_load((CONFIG / name).read_text())
    assert list(data) == [executable], f"{name}: keys must be under {executable}:"


@pytest.mark.parametrize("executable", sorted(NODE_CONFIGS))
def test_config_keys_are_the_parameters_the_node_declares(executable):
    name = NODE_CONFIGS[executable]
    data = yaml.safe_load((CONFIG / name).read_text())
    assert list(data) == [executable], f"{name}: keys must be under {executable}:"
    keys = set(data[executable]["ros__parameters"])
    declared = declared_parameters(executable)
    assert keys <= declared, f"{name}: unknown parameters {sorted(keys - declared)}"
    # Every declared parameter is in the file, except documented-empty optional ones.
    text = (CONFIG / name).read_text()
    missing = {k for k in declared - keys if f"# {k}:" not in text}
    assert not missing, f"{name}: parameters missing from the file: {sorted(missing)}"


def test_bringup_extra_nodes_use_installed_executables_and_existing_configs():
    scripts = console_scripts()
    for call in node_calls(LAUNCH / "bringup.launch.py"):
        assert call["executable"] in scripts and exists(scripts[call["executable"]])
        for name in call["yamls"]:
            data = yaml.safe_load((CONFIG / name).read_text())
            keys = set(data[call["executable"]]["ros__parameters"])
            assert keys == declared_parameters(call["executable"])


@pytest.mark.parametrize("executable", sorted(NODE_CONFIGS))
def test_config_defaults_equal_the_node_dataclass_defaults(executable):
    """config/*.yaml mirrors the dataclasses for every node, with the same value types
    (a float parameter written as an int would be refused by its typed declaration)."""
    values = load_node_params(CONFIG / NODE_CONFIGS[executable], executable)
    for cls in node_param_classes(executable):
        for f in dataclasses.fields(cls):
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            if f.name not in values:  # documented-empty optional (checked above)
                continue
            value = values[f.name]
            value = tuple(value) if isinstance(default, tuple) else value
            assert value == default, f"{NODE_CONFIGS[executable]}: {f.name}"
            assert type(value) is type(default), f"{NODE_CONFIGS[executable]}: {f.name} type"


def test_setup_installs_launch_and_config_into_share():
    text = (ROOT / "setup.py").read_text()
    assert '"/launch", glob("launch/*.launch.py")' in text
    assert '"/config", glob("config/*.yaml")' in text


@pytest.mark.skipif(
    importlib.util.find_spec("launch_ros") is None,
    reason="launch_ros is not importable (no ROS 2 distro; not on PyPI)",
)
@pytest.mark.parametrize("part", ["bringup", *sorted(PARTS)])
def test_launch_file_builds_a_description(part):  # pragma: no cover - needs a ROS distro
    spec = importlib.util.spec_from_file_location(part, LAUNCH / f"{part}.launch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    description = module.generate_launch_description()
    assert description.entities
