"""docs/interfaces.md and miles_ros/interfaces.py are the same contract: every topic and
service name, skill state, goal outcome, public JSON key and exit code of the module is in
the document, every ``/miles/...`` name in the document's tables is in the module, and the
document lists exactly the `miles` subcommands and the ROS executables the package
installs. Each check returns what drifted, so the tests can show that a drift fails it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from miles_ros import interfaces
from miles_ros.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "interfaces.md"
NAME = re.compile(r"`(/[A-Za-z0-9_/]+|[A-Za-z0-9_]+(?:/[A-Za-z0-9_]+)+)`")
"""A backticked absolute name, or a relative one with a slash (the camera's topics)."""
TOPIC_KEYS = {
    interfaces.SKILL_REQUEST: interfaces.SKILL_REQUEST_KEYS,
    interfaces.SKILL_STATUS: interfaces.SKILL_STATUS_KEYS
    + (interfaces.SKILL_RETURN, interfaces.SKILL_SHADOW, interfaces.SKILL_CANARY),
    interfaces.SAFETY_STATE: interfaces.SAFETY_STATE_KEYS,
    interfaces.SKILL_CALIBRATION: interfaces.SKILL_CALIBRATION_KEYS,
    interfaces.MANAGER_STATUS: interfaces.MANAGER_STATUS_KEYS,
    interfaces.PLAN: interfaces.PLAN_KEYS + interfaces.PLAN_REFUSAL_KEYS,
}
"""The graph table's row of each JSON topic names its public keys (as ``"key"``)."""
GRAPH = "ROS 2 graph (default namespace `/miles`; every name is a parameter)"
CLI = "Command line (`miles`, installed by setup.py)"
EXIT_CODES = "Exit codes of `miles goal` and `miles plan`"
EXECUTABLES = "ROS 2 executables (console scripts; `ros2 run miles_ros NAME` on a ROS install)"


def table_rows(text: str) -> list[list[str]]:
    """The cells of every table row but headers (a row above ``|---|``) and separators."""
    lines = text.splitlines()
    separator = [line.startswith("|") and set(line) <= set("|-: ") for line in lines]
    return [
        [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        for i, line in enumerate(lines)
        if line.startswith("|")
        and not separator[i]
        and not (i + 1 < len(lines) and separator[i + 1])
    ]


def section(text: str, title: str) -> str:
    """The text under the heading ``title`` up to the next heading."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    assert match, f"no section {title!r} in docs/interfaces.md"
    return match.group(1)


def first_words(text: str) -> set[str]:
    """The backticked word in the first column of each table row of ``text``."""
    return {m.group(1) for r in table_rows(text) if (m := re.fullmatch(r"`(\w+)`", r[0]))}


def name_drift(text: str) -> list[str]:
    """Topic and service names in one of the module and the document's tables only."""
    module = set(interfaces.TOPICS) | set(interfaces.SERVICES)
    in_tables = {n for row in table_rows(text) for cell in row for n in NAME.findall(cell)}
    missing = sorted(module - in_tables)
    unknown = sorted(n for n in in_tables - module if n.startswith(interfaces.NAMESPACE + "/"))
    return [f"not in docs/interfaces.md: {n}" for n in missing] + [
        f"not in miles_ros/interfaces.py: {n}" for n in unknown
    ]


def word_drift(text: str) -> list[str]:
    """Skill states, goal outcomes and canary decisions that differ between the module and
    the document."""
    drift = []
    for title, words in (
        ("Skill states", interfaces.SKILL_STATES),
        ("Goal outcomes", interfaces.GOAL_OUTCOMES),
        ("Shadow and canary", interfaces.CANARY_DECISIONS),
    ):
        listed = first_words(section(text, title))
        drift += [f"{title}: {w} not in the document" for w in sorted(set(words) - listed)]
        drift += [f"{title}: {w} not in the module" for w in sorted(listed - set(words))]
    return drift


def key_drift(text: str) -> list[str]:
    """Public JSON keys a topic's row of the graph table does not name."""
    rows = {r[0].strip("`"): r for r in table_rows(section(text, GRAPH))}
    return [
        f"{topic}: key {key!r} not in its row"
        for topic, keys in TOPIC_KEYS.items()
        for key in keys
        if f'"{key}"' not in " ".join(rows.get(topic, []))
    ]


def exit_code_drift(text: str) -> list[str]:
    module = {v for k, v in vars(interfaces).items() if k.startswith("EXIT_")}
    listed = {int(r[0]) for r in table_rows(section(text, EXIT_CODES)) if r[0].isdigit()}
    return [f"exit code {c} only in the module" for c in sorted(module - listed)] + [
        f"exit code {c} only in the document" for c in sorted(listed - module)
    ]


def test_every_name_of_the_module_is_in_the_document_and_back():
    assert not name_drift(DOC.read_text(encoding="utf-8"))


def test_skill_states_and_goal_outcomes_match():
    assert not word_drift(DOC.read_text(encoding="utf-8"))


def test_json_topics_name_their_public_keys():
    assert not key_drift(DOC.read_text(encoding="utf-8"))


def test_exit_codes_match():
    assert not exit_code_drift(DOC.read_text(encoding="utf-8"))


def test_the_cli_table_lists_exactly_the_subcommands():
    rows = table_rows(section(DOC.read_text(encoding="utf-8"), CLI))
    listed = {m for r in rows for m in re.findall(r"`miles ([a-z-]+)", r[0])}
    assert listed == set(COMMANDS)


def test_the_executables_are_the_console_scripts():
    scripts = set(
        re.findall(r'"(\w+) = miles_ros\.ros\.\w+:main"', (ROOT / "setup.py").read_text())
    )
    text = section(DOC.read_text(encoding="utf-8"), EXECUTABLES)
    listed = {n for n in re.findall(r"`(\w+_node)`", text)}
    assert scripts and listed == scripts


@pytest.mark.parametrize(
    "edit, check",
    [
        (lambda t: t.replace("| `/miles/goal` |", "| `/miles/goals` |"), name_drift),
        (lambda t: t.replace("| `/miles/sim/capture` |", "| capture |"), name_drift),
        (lambda t: t.replace("| `aborted` |", "| `cancelled` |"), word_drift),
        (lambda t: t.replace("| `refused` |", "| refused |"), word_drift),
        (lambda t: t.replace('"goal_seq", ', ""), key_drift),
        (lambda t: t.replace("| 124 |", "| 125 |"), exit_code_drift),
    ],
)
def test_a_drift_fails_the_check(edit, check):
    """Each check finds a name renamed or dropped on one side (the document edited here;
    the module's side is the same sets compared the other way)."""
    text = DOC.read_text(encoding="utf-8")
    assert not check(text)
    edited = edit(text)
    assert edited != text and check(edited)


def test_a_name_only_in_the_module_is_found(monkeypatch):
    monkeypatch.setattr(interfaces, "TOPICS", (*interfaces.TOPICS, "/miles/new_topic"))
    monkeypatch.setattr(interfaces, "SKILL_STATES", (*interfaces.SKILL_STATES, "paused"))
    text = DOC.read_text(encoding="utf-8")
    assert name_drift(text) == ["not in docs/interfaces.md: /miles/new_topic"]
    assert word_drift(text) == ["Skill states: paused not in the document"]
