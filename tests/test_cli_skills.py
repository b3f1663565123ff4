"""`miles skills list|show|add|promote|rollback|route` on a copy of the shipped library:
the round trip, its JSON, and the exit codes of a refusal (1, the reason on stderr) and of
a usage error (2)."""

from __future__ import annotations

import json
import shutil

import pytest

from miles_ros import cli
from miles_ros.interfaces import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from policies.cards import SHIPPED_LIBRARY
from policies.library import read_active, version_dir
from tests.runtime.skill_fixtures import random_skill


@pytest.fixture
def library(tmp_path):
    root = tmp_path / "skills"
    shutil.copytree(SHIPPED_LIBRARY, root)
    return root


def skills(capsys, library, *argv):
    """Exit code, stdout and stderr of ``miles skills ARGV --library LIBRARY``."""
    code = cli.main(["skills", *argv, "--library", str(library)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_gives_every_skill_its_active_version_and_success(capsys, library):
    code, out, _ = skills(capsys, library, "list", "--json")
    assert code == EXIT_OK
    listed = {s["name"]: s for s in json.loads(out)}
    assert set(listed) == {"reach", "push", "pick_place", "turn"}
    reach = listed["reach"]
    assert reach["active"] == 1 and [v["version"] for v in reach["versions"]] == [1]
    assert reach["versions"][0]["success_rate"] == 1.0 and reach["versions"][0]["check"] == ""
    code, text, _ = skills(capsys, library, "list")
    assert "reach: active 1 (versions 1)" in text and "pybullet success 100.0%" in text


def test_add_promote_rollback_round_trip(capsys, library, tmp_path):
    exported = random_skill(tmp_path / "export", "reach", seed=3)
    code, out, err = skills(capsys, library, "add", "reach", str(exported), "--data", "logs A")
    assert code == EXIT_OK, err
    assert json.loads(skills(capsys, library, "add", "reach", str(exported), "--json")[1]) == {
        "name": "reach",
        "version": 3,
        "path": str(library / "reach"),
    }
    code, out, _ = skills(capsys, library, "promote", "reach", "2", "--reason", "A", "--json")
    assert code == EXIT_OK and json.loads(out)["active"] == 2
    assert read_active(library / "reach").active == 2
    code, out, _ = skills(capsys, library, "show", "reach", "--version", "2", "--json")
    (shown,) = json.loads(out)["versions"]
    assert (shown["parent_version"], shown["data"]) == (1, "logs A")
    assert json.loads(out)["history"][-1]["reason"] == "A"
    code, out, _ = skills(capsys, library, "rollback", "reach")
    assert code == EXIT_OK and "reach: active 2 -> 1" in out
    code, _, err = skills(capsys, library, "rollback", "reach")
    assert code == EXIT_FAILED and "nothing to roll back to" in err


def test_a_refused_version_exits_1_with_the_reason(capsys, library, tmp_path):
    exported = random_skill(tmp_path / "export", "reach", seed=3)
    skills(capsys, library, "add", "reach", str(exported))
    actor = version_dir(library / "reach", 2) / "actor.onnx"
    actor.write_bytes(actor.read_bytes() + b"\0")
    code, _, err = skills(capsys, library, "promote", "reach", "2")
    assert code == EXIT_FAILED and "sha256 of actor.onnx" in err
    assert read_active(library / "reach").active == 1
    code, _, err = skills(capsys, library, "add", "push", str(exported))
    assert code == EXIT_FAILED and "name differs: push -> reach" in err


def test_route_and_clear_are_recorded_and_listed(capsys, library):
    code, out, err = skills(capsys, library, "route", "pick_place", "--on", "cube", "--clear")
    assert code == EXIT_OK and "cube goals 3 -> 1 (active 1)" in out, err
    code, out, _ = skills(capsys, library, "list")
    assert "pick_place: active 1 (versions 1, 2, 3)" in out
    code, out, err = skills(capsys, library, "route", "pick_place", "--on", "cube", "2", "--json")
    assert code == EXIT_OK, err
    routed = json.loads(out)
    assert (routed["active"], routed["routes"]) == (1, {"cube": 2})
    assert (routed["change"]["action"], routed["change"]["target"]) == ("route", "cube")
    code, out, _ = skills(capsys, library, "list")
    assert "pick_place: active 1, cube goals -> 2 (versions 1, 2, 3)" in out
    code, out, _ = skills(capsys, library, "show", "pick_place")
    assert out.startswith("pick_place: active 1, cube goals -> 2\n")
    assert "unroute 3 -> 1 (cube goals)" in out and "route 1 -> 2 (cube goals)" in out
    code, out, _ = skills(capsys, library, "show", "pick_place", "--json")
    assert json.loads(out)["routes"] == {"cube": 2}
    assert read_active(library / "pick_place").active == 1


def test_a_refused_route_exits_1_with_the_reason(capsys, library):
    code, _, err = skills(capsys, library, "route", "pick_place", "--on", "cube", "1")
    assert code == EXIT_FAILED and "version 1 is already active" in err
    code, _, err = skills(capsys, library, "route", "pick_place", "--on", "cube", "3")
    assert code == EXIT_FAILED and "cube goals already run version 3" in err
    code, _, err = skills(capsys, library, "route", "reach", "--on", "cube", "--clear")
    assert code == EXIT_FAILED and "no route for cube goals to clear" in err


@pytest.mark.parametrize("argv", [["--on", "cube"], ["--on", "cube", "3", "--clear"]])
def test_route_takes_a_version_or_clear(capsys, library, argv):
    with pytest.raises(SystemExit) as exc:
        skills(capsys, library, "route", "pick_place", *argv)
    assert exc.value.code == EXIT_USAGE
    assert "route takes a version or --clear" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["route", "pick_place", "--on", "cube", "9"], "no version 9"),
        (["promote", "reach", "9"], "no version 9"),
        (["show", "fly"], "no skill 'fly'"),
        (["show", "reach", "--version", "4"], "reach has no version 4"),
    ],
)
def test_usage_errors_exit_2(capsys, library, argv, message):
    code, _, err = skills(capsys, library, *argv)
    assert code == EXIT_USAGE and message in err
