"""The skill executor swaps in a skill's newly active version between requests, never
mid-skill (a running request finishes on the version it started with, which its final
status names), and keeps the loaded version when the new one is refused. A goal on a cube
runs the version ``active.yaml`` routes such goals to, any other goal the active one."""

import json
import logging
import shutil

import pytest
import yaml

from miles_ros.interfaces import SKILL_VERSION
from miles_ros.runtime.rollout import Rollout
from miles_ros.runtime.rollout.drift import Drift
from policies.library import ROUTE_CUBE, read_active, version_dir, write_active
from policies.versions import add_version, promote, rollback, route, unroute
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


@pytest.fixture(scope="module")
def routed_library(tmp_path_factory):
    """A library with a versioned pick_place: version 1 active, version 2 routed for goals
    on a cube (``miles skills route pick_place --on cube 2``)."""
    tmp = tmp_path_factory.mktemp("routed")
    folder = tmp / "skills" / "pick_place"
    for seed in (1, 2):
        add_version(folder, random_skill(tmp / f"v{seed}", "pick_place", seed=seed))
    route(folder, ROUTE_CUBE, 2, reason="test")
    return tmp / "skills"


def _version_that_runs(ex, rid, target):
    (started,) = ex.on_request(request(rid, "pick_place", object="green_cube", target=target), 0)
    assert started["state"] == "running", started
    (cancelled,) = ex.cancel(rid, 0.01)
    return cancelled[SKILL_VERSION]


def test_a_goal_on_a_cube_runs_the_routed_version_and_a_pad_the_active(routed_library):
    ex = make_executor(routed_library)
    assert _version_that_runs(ex, "stack", "blue_cube") == 2
    assert _version_that_runs(ex, "pad", "left_pad") == 1
    assert ex.library.skill_for("pick_place", ROUTE_CUBE) is not ex.library.skills["pick_place"]


def test_a_route_changed_while_running_takes_the_next_request(routed_library, tmp_path):
    library = tmp_path / "skills"
    shutil.copytree(routed_library, library)
    folder = library / "pick_place"
    ex = make_executor(library)
    ex.on_request(request("a", "pick_place", object="green_cube", target="blue_cube"), 0.0)
    routed = ex.active.skill
    unroute(folder, ROUTE_CUBE)
    assert ex.tick(0.0).statuses and ex.active.skill is routed  # keeps its network
    (_, started) = ex.on_request(
        request("b", "pick_place", object="green_cube", target="blue_cube"), 0.1
    )
    assert started["state"] == "running" and ex.active.skill.card.version == 1
    (done,) = ex.cancel("b", 0.2)
    assert done[SKILL_VERSION] == 1


def test_a_refused_route_is_logged_and_its_goals_run_the_active_version(
    routed_library, tmp_path, caplog
):
    library = tmp_path / "skills"
    shutil.copytree(routed_library, library)
    actor = version_dir(library / "pick_place", 2) / "actor.onnx"
    actor.write_bytes(actor.read_bytes()[:-1] + b"\0")
    with caplog.at_level(logging.ERROR, logger="miles_ros.runtime.library"):
        ex = make_executor(library)
    assert _version_that_runs(ex, "stack", "blue_cube") == 1
    (refused,) = [r.getMessage() for r in caplog.records if "routed" in r.getMessage()]
    assert "sha256 of actor.onnx" in refused and "they run version 1" in refused


def test_the_drift_monitor_watches_only_requests_on_the_active_version(routed_library):
    ex = make_executor(routed_library)
    ex.rollout = Rollout(drifts={"pick_place": Drift("pick_place", 0.9)})
    ex.on_request(request("stack", "pick_place", object="green_cube", target="blue_cube"), 0)
    assert ex.active.rollout is None and ex.active.skill.card.version == 2
    ex.on_request(request("pad", "pick_place", object="green_cube", target="left_pad"), 0.1)
    assert ex.active.rollout is not None and ex.active.skill.card.version == 1
