"""A versioned skill library (policies.library, policies.versions): the one resolver on
both layouts, add/promote/rollback in a copy of the shipped library, routes by a goal's
target kind, and the refusal of a tampered or incompatible version with what differs."""

from __future__ import annotations

import copy
import re
import shutil

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.cards import (
    SHIPPED_LIBRARY,
    SkillCard,
    SkillCardError,
    card_path,
    load_card,
    validate_card,
)
from policies.library import (
    ACTIVE_FILE,
    CARD_FILE,
    PROMOTE,
    ROLLBACK,
    ROUTE,
    ROUTE_CUBE,
    UNROUTE,
    ActiveRecord,
    active_skill_dir,
    library_skills,
    read_active,
    version_dir,
    versions,
)
from policies.versions import (
    NoSuchVersion,
    VersionError,
    add_version,
    describe,
    differences,
    promote,
    rollback,
    route,
    unroute,
)
from tests.runtime.skill_fixtures import random_skill

SHIPPED_REACH = load_card(SHIPPED_LIBRARY / "reach")


@pytest.fixture
def library(tmp_path):
    """A copy of the shipped library (versioned reach, push, pick_place)."""
    root = tmp_path / "skills"
    shutil.copytree(SHIPPED_LIBRARY, root)
    return root


@pytest.fixture
def candidate(tmp_path):
    """An exported (untrained) reach skill with the shipped reach's contract."""
    return random_skill(tmp_path / "export", "reach", seed=7)


def edited(skill_dir, edit):
    """``skill_dir``'s card with ``edit(data)`` applied, written back (files unchanged)."""
    path = card_path(skill_dir)
    data = yaml.safe_load(path.read_text())
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return skill_dir


# --- the resolver ------------------------------------------------------------------------
def test_a_plain_skill_directory_is_its_own_active_version(candidate):
    assert active_skill_dir(candidate) == candidate
    assert card_path(candidate) == candidate / CARD_FILE
    assert validate_card(candidate).directory == candidate


def test_a_versioned_skill_resolves_to_the_version_active_yaml_names(library):
    reach = library / "reach"
    assert read_active(reach).active == 1
    assert active_skill_dir(reach) == version_dir(reach, 1)
    assert validate_card(reach).directory == reach / "versions" / "1"
    assert [p.name for p in library_skills(library)] == ["pick_place", "push", "reach", "turn"]


def test_the_shipped_skills_are_versioned_with_their_export_hashes():
    for folder in library_skills(SHIPPED_LIBRARY):
        numbers = versions(folder)
        assert numbers == list(range(1, len(numbers) + 1))
        for number in numbers:  # sha256 of both files as exported
            assert validate_card(version_dir(folder, number)).version == number
        assert validate_card(folder).version == read_active(folder).active


def test_a_library_holds_both_layouts_and_skips_other_folders(library, candidate):
    shutil.copytree(candidate, library / "mine")
    (library / "notes").mkdir()
    names = [p.name for p in library_skills(library)]
    assert names == ["mine", "pick_place", "push", "reach", "turn"]
    assert active_skill_dir(library / "mine") == library / "mine"


@pytest.mark.parametrize(
    "text, why",
    [("active: 2\nhistory: []\n", "active version 2 has no skill.yaml"), ("[", "not valid YAML")],
)
def test_an_active_yaml_naming_no_version_is_refused(library, text, why):
    (library / "reach" / ACTIVE_FILE).write_text(text)
    with pytest.raises(SkillCardError, match=why):
        load_card(library / "reach")


# --- add, promote, rollback --------------------------------------------------------------
def test_add_copies_the_next_version_with_its_lineage_and_keeps_the_active(library, candidate):
    reach = library / "reach"
    before = (version_dir(reach, 1) / "actor.onnx").read_bytes()
    assert add_version(reach, candidate, data="120 logged episodes of cell 2") == 2
    card = validate_card(version_dir(reach, 2))
    assert card.version == 2
    assert card.provenance["parent_version"] == 1
    assert card.provenance["data"] == "120 logged episodes of cell 2"
    assert (version_dir(reach, 2) / "actor.onnx").read_bytes() == (
        candidate / "actor.onnx"
    ).read_bytes()
    assert (version_dir(reach, 1) / "actor.onnx").read_bytes() == before
    assert read_active(reach).active == 1  # added, not promoted
    assert add_version(reach, candidate) == 3  # never overwrites
    assert load_card(version_dir(reach, 3)).provenance["data"].startswith("simulation: task")


def test_promote_and_rollback_return_exactly_to_the_previous_active(library, candidate):
    reach = library / "reach"
    add_version(reach, candidate)
    add_version(reach, candidate)
    promote(reach, 2, reason="better on heavy cubes")
    promote(reach, 3)
    assert validate_card(reach).version == 3
    assert rollback(reach, reason="worse").active == 2
    assert rollback(reach).active == 1
    with pytest.raises(VersionError, match="nothing to roll back to"):
        rollback(reach)
    record = read_active(reach)
    assert [(h.action, h.previous, h.version) for h in record.history[1:]] == [
        (PROMOTE, 1, 2),
        (PROMOTE, 2, 3),
        (ROLLBACK, 3, 2),
        (ROLLBACK, 2, 1),
    ]
    assert record.history[1].reason == "better on heavy cubes"


def test_rollback_target_replays_the_history():
    record = ActiveRecord.first(1)
    for version, action, expected in [
        (2, PROMOTE, 1),
        (3, PROMOTE, 2),
        (2, ROLLBACK, 1),
        (4, PROMOTE, 2),
        (2, ROLLBACK, 1),
        (1, ROLLBACK, None),
    ]:
        record = record.changed(version, action)
        assert record.rollback_target() == expected, (version, action)


def test_promote_refuses_an_unknown_or_already_active_version(library):
    with pytest.raises(NoSuchVersion, match=r"no version 5 \(versions: 1\)"):
        promote(library / "reach", 5)
    with pytest.raises(VersionError, match="already active"):
        promote(library / "reach", 1)


def test_adding_to_a_plain_skill_directory_makes_it_versioned(tmp_path, candidate):
    plain = tmp_path / "lib" / "reach"
    shutil.copytree(candidate, plain)
    other = random_skill(tmp_path / "other", "reach", seed=8)
    assert add_version(plain, other) == 2
    assert versions(plain) == [1, 2] and read_active(plain).active == 1
    assert not (plain / CARD_FILE).exists()
    promote(plain, 2)
    assert validate_card(plain).sha256 == load_card(other).sha256


def test_the_first_version_of_a_new_skill_is_active(tmp_path, candidate):
    folder = tmp_path / "lib" / "reach"
    assert add_version(folder, candidate) == 1
    assert read_active(folder).active == 1 and validate_card(folder).version == 1
    assert load_card(folder).provenance["parent_version"] is None


# --- routes ------------------------------------------------------------------------------
def test_the_shipped_pick_place_routes_goals_on_a_cube_to_version_3():
    folder = SHIPPED_LIBRARY / "pick_place"
    assert active_skill_dir(folder) == version_dir(folder, 1)
    assert active_skill_dir(folder, ROUTE_CUBE) == version_dir(folder, 3)
    assert card_path(folder, ROUTE_CUBE) == version_dir(folder, 3) / CARD_FILE
    assert describe(folder)["routes"] == {ROUTE_CUBE: 3}


def test_a_route_sends_one_kind_of_goal_to_its_version_until_cleared(library, candidate):
    reach = library / "reach"
    add_version(reach, candidate)
    add_version(reach, candidate)
    record = route(reach, ROUTE_CUBE, 2, reason="better on stacks")
    assert (record.active, record.routes) == (1, ((ROUTE_CUBE, 2),))
    assert active_skill_dir(reach, ROUTE_CUBE) == version_dir(reach, 2)
    assert active_skill_dir(reach) == active_skill_dir(reach, "table") == version_dir(reach, 1)
    route(reach, ROUTE_CUBE, 3)
    promote(reach, 2)  # a promotion keeps the route, and so does a rollback
    assert active_skill_dir(reach, ROUTE_CUBE) == version_dir(reach, 3)
    assert rollback(reach).active == 1  # the routes are not promotions to roll back
    assert active_skill_dir(reach, ROUTE_CUBE) == version_dir(reach, 3)
    record = unroute(reach, ROUTE_CUBE, reason="done")
    assert record.routes == () and active_skill_dir(reach, ROUTE_CUBE) == version_dir(reach, 1)
    changes = [(h.action, h.previous, h.version, h.target) for h in read_active(reach).history]
    assert changes[1:] == [
        (ROUTE, 1, 2, ROUTE_CUBE),
        (ROUTE, 2, 3, ROUTE_CUBE),
        (PROMOTE, 1, 2, None),
        (ROLLBACK, 2, 1, None),
        (UNROUTE, 3, 1, ROUTE_CUBE),
    ]
    assert read_active(reach).history[1].reason == "better on stacks"
    assert "routes" not in yaml.safe_load((reach / ACTIVE_FILE).read_text())


def test_a_route_is_refused_where_a_promotion_would_be(library, candidate):
    reach = library / "reach"
    with pytest.raises(NoSuchVersion, match="no version 2"):
        route(reach, ROUTE_CUBE, 2)
    with pytest.raises(VersionError, match="version 1 is already active"):
        route(reach, ROUTE_CUBE, 1)
    with pytest.raises(VersionError, match="no target kind 'table'"):
        route(reach, "table", 1)
    with pytest.raises(VersionError, match="no route for cube goals"):
        unroute(reach, ROUTE_CUBE)
    add_version(reach, candidate)
    edited(version_dir(reach, 2), lambda d: d["action"]["scale"].update(joint_action_scale=0.8))
    with pytest.raises(VersionError, match="action mapping differs: scale.joint_action_scale"):
        route(reach, ROUTE_CUBE, 2)
    assert read_active(reach).routes == () and len(read_active(reach).history) == 1


@pytest.mark.parametrize(
    "routes, why",
    [
        ("{table: 2}", "unknown target kind 'table'"),
        ("{cube: two}", "cube needs an integer version"),
        ("[3]", "routes must map"),
        ("{cube: 9}", "version routed for cube goals, 9 has no skill.yaml"),
    ],
)
def test_a_malformed_route_is_refused_naming_it(library, routes, why):
    (library / "reach" / ACTIVE_FILE).write_text(f"active: 1\nroutes: {routes}\nhistory: []\n")
    with pytest.raises(SkillCardError, match=why):
        active_skill_dir(library / "reach", ROUTE_CUBE)


# --- refusals ----------------------------------------------------------------------------
def test_a_tampered_version_is_refused_and_the_active_stays(library, candidate):
    reach = library / "reach"
    add_version(reach, candidate)
    actor = version_dir(reach, 2) / "actor.onnx"
    actor.write_bytes(actor.read_bytes()[:-1] + b"\0")
    with pytest.raises(VersionError, match="sha256 of actor.onnx"):
        promote(reach, 2)
    assert read_active(reach).active == 1
    assert "sha256" in describe(reach)["versions"][1]["check"]


def test_a_card_whose_version_is_not_its_folder_is_refused(library, candidate):
    reach = library / "reach"
    add_version(reach, candidate)
    edited(version_dir(reach, 2), lambda d: d.update(version=1))
    with pytest.raises(VersionError, match="the card says version 1, its folder 2"):
        promote(reach, 2)


@pytest.mark.parametrize(
    "edit, reason",
    [
        (
            lambda d: d["action"]["scale"].update(joint_action_scale=0.5),
            "action mapping differs: scale.joint_action_scale 1.0 -> 0.5",
        ),
        (lambda d: d["action"].update(mode="cartesian"), "action mapping differs: mode joint"),
        (
            lambda d: d["envelope"]["target_region"]["high"].__setitem__(2, 0.6),
            "envelope differs: target_region.high [0.65, 0.3, 0.45] -> [0.65, 0.3, 0.6]",
        ),
        (lambda d: d.update(permissions=["moves_arm", "contact"]), "permissions differ"),
    ],
)
def test_an_incompatible_version_is_refused_with_what_differs(library, candidate, edit, reason):
    reach = library / "reach"
    with pytest.raises(VersionError, match="^" + re.escape(reason)):
        add_version(reach, edited(candidate, edit))
    assert versions(reach) == [1]  # nothing copied


def test_a_version_edited_after_adding_is_refused_at_promotion(library, candidate):
    reach = library / "reach"
    add_version(reach, candidate)
    edited(version_dir(reach, 2), lambda d: d["action"]["scale"].update(joint_action_scale=0.8))
    with pytest.raises(
        VersionError, match="action mapping differs: scale.joint_action_scale 1.0 -> 0.8"
    ):
        promote(reach, 2)
    assert read_active(reach).active == 1


def _altered(card: SkillCard, edit) -> SkillCard:
    data = copy.deepcopy(card.to_dict())
    edit(data)
    return SkillCard.from_dict(data)


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda d: d.update(task="push"), ["task differs: reach -> push"]),
        (lambda d: d["observation"].update(dim=26), ["observation dim differs: 23 -> 26"]),
        (
            lambda d: d["observation"]["layout"].pop(),
            ["observation layout differs: goal_rel_tcp missing"],
        ),
        (lambda d: d["action"].update(dim=4), ["action mapping differs: dim 7 -> 4"]),
        (
            lambda d: d.update(control_rate_hz=50.0),
            ["action mapping differs: control_rate_hz 25.0 -> 50.0"],
        ),
        (
            lambda d: d["limits"]["velocity"].__setitem__(0, 1.0),
            [
                "joint limits differ: velocity [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61] -> "
                "[1.0, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61]"
            ],
        ),
        (lambda d: d.pop("envelope"), ["envelope differs: target_region "]),
        (
            lambda d: d["parameters"]["properties"].pop("target"),
            ["parameters differ: the request schema changed"],
        ),
        (lambda d: d["evaluation"].update(success_rate=0.5), []),  # what a version may change
        (lambda d: d["sha256"].update(actor="0" * 64), []),  # checked against its files
    ],
)
def test_differences_name_each_change_of_the_contract(edit, expected):
    found = differences(SHIPPED_REACH, _altered(SHIPPED_REACH, edit))
    assert len(found) == len(expected) and all(
        f.startswith(e) for f, e in zip(found, expected, strict=True)
    ), found


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_a_moved_observation_entry_is_named_with_its_old_and_new_start(data):
    layout = SHIPPED_REACH.observation["layout"]
    index = data.draw(st.integers(0, len(layout) - 1))
    delta = data.draw(st.integers(-5, 5).filter(bool))
    entry = layout[index]
    moved = _altered(
        SHIPPED_REACH,
        lambda d: d["observation"]["layout"][index].update(start=entry["start"] + delta),
    )
    assert differences(SHIPPED_REACH, moved) == [
        f"observation layout differs: {entry['name']} start {entry['start']} -> "
        f"{entry['start'] + delta}"
    ]


def test_a_card_from_before_tool_levelling_maps_actions_as_a_gain_of_zero(tmp_path):
    shipped = active_skill_dir(SHIPPED_LIBRARY / "pick_place")
    assert "ik_tilt_gain" not in load_card(shipped).action["scale"]  # exported before it

    def with_gain(gain, where):
        copy_dir = tmp_path / where
        shutil.copytree(shipped, copy_dir)
        return load_card(
            edited(copy_dir, lambda d: d["action"]["scale"].update(ik_tilt_gain=gain))
        )

    assert differences(load_card(shipped), with_gain(0.0, "off")) == []
    assert differences(load_card(shipped), with_gain(0.3, "on")) == [
        "action mapping differs: scale.ik_tilt_gain 0.0 -> 0.3"
    ]
