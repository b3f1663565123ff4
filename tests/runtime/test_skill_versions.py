"""The skill executor swaps in a skill's newly active version between requests, never
mid-skill (a running request finishes on the version it started with, which its final
status names), and keeps the loaded version when the new one is refused."""

import json
import logging

import pytest
import yaml

from miles_ros.interfaces import SKILL_VERSION
from policies.library import read_active, version_dir, write_active
from policies.versions import add_version, promote, rollback
from tests.runtime.skill_fixtures import make_executor, random_skill


def request(rid, skill, **params):
    return json.dumps({"id": rid, "skill": skill, "params": params})


@pytest.fixture
def library(tmp_path):
    """A library with a versioned reach: version 1 active, version 2 added."""
    root = tmp_path / "skills"
    add_version(root / "reach", random_skill(tmp_path / "v1", "reach", seed=1))
    add_version(root / "reach", random_skill(tmp_path / "v2", "reach", seed=2))
    return root


def test_a_promoted_version_runs_from_the_next_request_never_mid_skill(library):
    ex = make_executor(library)
    ex.on_request(request("a", "reach", target="red_cube"), 0.0)
    assert ex.tick(0.0).targets is not None
    first = ex.active.skill
    promote(library / "reach", 2, reason="test")
    for t in (0.04, 0.08):
        ex.on_joint_state(ex.joints, t)
        assert ex.tick(t).targets is not None
        assert ex.active.skill is first and first.card.version == 1  # still version 1
    preempted, started = ex.on_request(request("b", "reach", target="green_cube"), 0.1)
    assert (preempted["id"], preempted["state"], preempted[SKILL_VERSION]) == ("a", "aborted", 1)
    assert started["state"] == "running" and ex.active.skill.card.version == 2
    assert ex.active.skill.policy is not first.policy
    (cancelled,) = ex.cancel("b", 0.12)
    assert cancelled[SKILL_VERSION] == 2
    rollback(library / "reach")
    ex.on_request(request("c", "reach", target="red_cube"), 0.2)
    (cancelled,) = ex.cancel("c", 0.22)
    assert cancelled[SKILL_VERSION] == 1


def test_a_scripted_skill_names_no_version(library):
    ex = make_executor(library)
    ex.on_request(request("h", "home"), 0.0)
    (done,) = ex.tick(0.0).statuses
    assert done["state"] == "succeeded" and SKILL_VERSION not in done


def _activate_unchecked(skill_folder, version):
    """Make ``version`` active by writing active.yaml directly (as a hand edit would),
    past the checks of ``promote``."""
    write_active(skill_folder, read_active(skill_folder).changed(version, "promote"))


@pytest.mark.parametrize("damage", ["tampered", "incompatible"])
def test_a_refused_active_version_is_logged_and_the_loaded_one_stays(library, caplog, damage):
    reach = library / "reach"
    if damage == "tampered":
        actor = version_dir(reach, 2) / "actor.onnx"
        actor.write_bytes(actor.read_bytes()[:-1] + b"\0")
        why = "sha256 of actor.onnx"
    else:
        card = version_dir(reach, 2) / "skill.yaml"
        data = yaml.safe_load(card.read_text())
        data["action"]["scale"]["joint_action_scale"] = 0.5
        card.write_text(yaml.safe_dump(data, sort_keys=False))
        why = "action mapping differs: scale.joint_action_scale 1.0 -> 0.5"
    ex = make_executor(library)
    _activate_unchecked(reach, 2)
    with caplog.at_level(logging.ERROR, logger="miles_ros.runtime.library"):
        (started,) = ex.on_request(request("a", "reach", target="red_cube"), 0.0)
        ex.cancel("a", 0.01)
        ex.on_request(request("b", "reach", target="red_cube"), 0.02)  # not retried
    assert started["state"] == "running" and ex.active.skill.card.version == 1
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 1 and why in refusals[0] and "version 1 stays" in refusals[0]
