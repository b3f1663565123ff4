"""The README's skill numbers and docs/training.md's robustness table are the shipped cards'
(``evidence``, ``provenance``) and sweeps' (``robustness.json``): re-exporting or
re-recording a skill without updating them fails here, so a reader never sees numbers of a
skill that is no longer shipped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from policies.cards import CARD_FILE, SHIPPED_LIBRARY
from policies.library import ROUTE_CUBE, active_skill_dir
from policies.robustness import ROBUSTNESS_FILE

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
TRAINING_DOC = (ROOT / "docs" / "training.md").read_text()
SKILLS = ("reach", "push", "pick_place")
ROBUSTNESS_HEADER = "| skill | PyBullet | supervised | Isaac (Newton) |"


def _active(skill: str, name: str) -> Path:
    """The file ``name`` of the shipped skill's active version."""
    return active_skill_dir(SHIPPED_LIBRARY / skill) / name


def _evidence(skill: str, target: str | None = None) -> dict:
    """The shipped card's evidence in percent: the active version's, or with ``target`` the
    version that goals of that kind are routed to."""
    path = active_skill_dir(SHIPPED_LIBRARY / skill, target) / CARD_FILE
    card = yaml.safe_load(path.read_text())
    return {k: round(100.0 * v["success_rate"], 1) for k, v in card["evidence"].items()}


def _sweep(skill: str) -> dict[str, dict[float, float]]:
    data = json.loads(_active(skill, ROBUSTNESS_FILE).read_text())
    return {
        axis["name"]: {float(p["value"]): round(100.0 * p["success"], 1) for p in axis["points"]}
        for axis in data["axes"]
    }


def _numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"\d+(?:\.\d+)?", text)]


def _robustness_rows(text: str = TRAINING_DOC) -> dict[str, list[str]]:
    lines = text[text.index(ROBUSTNESS_HEADER) :].splitlines()
    rows = {}
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def _status_row(part: str) -> str:
    return next(line for line in README.splitlines() if re.match(rf"\| \[?{part}\b", line))


@pytest.mark.parametrize("skill", SKILLS)
def test_the_robustness_table_is_the_cards_and_sweeps(skill):
    _assert_row_is_the_card(skill, _robustness_rows()[skill])


def test_a_number_that_disagrees_with_a_card_fails():
    table = TRAINING_DOC[TRAINING_DOC.index(ROBUSTNESS_HEADER) :]
    wrong = table.replace("| push | 100 |", "| push | 99.0 |", 1)
    assert wrong != table
    with pytest.raises(AssertionError):
        _assert_row_is_the_card("push", _robustness_rows(wrong)["push"])


def _assert_row_is_the_card(skill: str, cells: list[str]) -> None:
    evidence, sweep = _evidence(skill), _sweep(skill)
    plain, supervised, isaac, latency, noise, mass, friction, cube, limits = cells
    assert _numbers(plain) == [evidence["pybullet"]]
    expected = [evidence["supervised"]]
    if "supervised_stack" in evidence:
        expected.append(evidence["supervised_stack"])
    assert _numbers(supervised) == expected
    assert _numbers(isaac) == [evidence["isaac"]]
    lat = sweep["command_latency"]
    assert _numbers(latency)[-3:] == [lat[1.0], lat[2.0], lat[3.0]]
    obs = sweep["observation_noise"]
    assert _numbers(noise) == [obs[0.005], obs[0.01]]
    for cell, axis, points in (
        (mass, "cube_mass_scale", (0.5, 2.0)),
        (friction, "friction_scale", (0.5, 1.5)),
        (cube, "cube_size", (0.035, 0.045)),
    ):
        if axis in sweep:
            assert _numbers(cell) == [sweep[axis][p] for p in points], axis
        else:
            assert cell == "-", axis
    js = sweep["joint_limit_scale"]
    assert _numbers(limits)[-2:] == [js[1.0], js[0.5]]


@pytest.mark.parametrize(
    "phrase, key",
    [
        ("behind the safety supervisor (targets sent as skill_node sends them)", "supervised"),
        ("in Isaac (Newton, never trained in)", "isaac"),
        ("in plain PyBullet (the quick arm)", "pybullet"),
    ],
)
def test_the_overview_quotes_the_cards(phrase, key):
    row = _status_row("skills")
    text = row[row.index(phrase) + len(phrase) :].split(";")[0]
    for skill in (*SKILLS, "turn"):
        found = re.search(rf"\b{skill} (\d+(?:\.\d+)?)%", text)
        assert found, f"{skill} after {phrase!r}"
        assert float(found.group(1)) == _evidence(skill)[key], (skill, key)
    if key == "supervised":
        stacking = re.search(r"(\d+(?:\.\d+)?)% stacking", text)
        routed = _evidence("pick_place", ROUTE_CUBE)  # what a goal on a cube runs
        assert float(stacking.group(1)) == routed["supervised_stack"]


def test_the_overview_quotes_the_routed_stacking_and_tower_and_perceived_stacking():
    routed = _evidence("pick_place", ROUTE_CUBE)
    tower = re.search(r"third level of a \[tower\]\([^)]*\) (\d+(?:\.\d+)?)%", README)
    assert tower and float(tower.group(1)) == routed["supervised_tower"]
    row = _status_row("perception")
    perceived = re.search(r"stacking (\d+(?:\.\d+)?)% \(version (\d+), routed", row)
    assert perceived, row
    assert float(perceived.group(1)) == routed["perceived_stack"]
    assert active_skill_dir(SHIPPED_LIBRARY / "pick_place", ROUTE_CUBE).name == perceived.group(2)


@pytest.mark.parametrize("skill", ("push", "pick_place", "turn"))
def test_the_overview_training_times_are_the_cards(skill):
    card = yaml.safe_load(_active(skill, CARD_FILE).read_text())
    minutes = round(card["provenance"]["total_wall_time_s"] / 60.0)
    assert re.search(rf"\b{skill} in {minutes} min\b", _status_row("training")), (skill, minutes)
