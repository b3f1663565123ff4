"""The sims import graph, on the source (ast; lazy imports inside functions count): no
cycle within ``sims/``, robots and kernels import no task
(a kernel gets a task's functions from the backend, through the registry, when it is
built), and each of the modules that once imported each other in a loop imports alone in
a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SIMS = ROOT / "sims"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(SIMS.rglob("*.py"))}


def sims_imports(path: Path) -> set[str]:
    """The ``sims`` modules ``path`` imports (``from sims.x import y``: ``sims.x.y`` where
    that is a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        found.update(n for n in names if n in MODULES)
    return found


def ancestors(name: str) -> set[str]:
    """The packages above module ``name`` (Python imports them first, whatever it imports)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


GRAPH = {name: sims_imports(path) - {name} - ancestors(name) for name, path in MODULES.items()}
"""Module -> the sims modules it imports (a submodule's import of its own package, such as
``sims.backends.isaac.env``'s of ``sims.backends.isaac``, is no edge: that package is
imported first anyway)."""


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_within_sims():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize(
    "layer, forbidden",
    [("sims.robots", ("sims.tasks",)), ("sims.kernels", ("sims.tasks",))],
)
def test_layers_within_sims(layer, forbidden):
    bad = [
        f"{name} imports {dep}"
        for name, deps in GRAPH.items()
        if name.startswith(layer + ".")
        for dep in deps
        if dep.startswith(forbidden)
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "module",
    [
        "sims.kernels.kinematics",
        "sims.kernels.layout",
        "sims.robots.panda",
        "sims.tasks.reach",
        "sims.tasks.push",
        "sims.tasks.pick_place",
        "sims.tasks.registry",
        "sims.kernels.step",
    ],
)
def test_imports_alone_in_a_fresh_interpreter(module):
    run = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
