"""The skill node's library with the cell's measured finger offset (the scene's
``gripper.calibration``, miles_ros/runtime/library.py): a version whose card has the cell
measure it (``calibration.finger_width.measure: closed_gripper``) reads its observations
through the scene's measurement, on the active version, a routed one and one swapped in;
without a measurement it is refused, the reason naming ``miles calibrate gripper``; a card
without the key acts bit-identically with or without the scene's entry. The node itself:
tests/nodes/test_skill_node_calibrated.py."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from miles_ros.runtime.library import SkillLibrary, load_skill
from policies.cards import SkillCardError
from policies.runtime import SkillPolicy
from sims.tasks.base import calibrated_finger_width
from tests.policies.test_observation_calibration import (
    MEASURED,
    PARENT,
    WIDTH,
    calibrated_copy,
    held_states,
)

OFFSET = 0.012
"""The cell's measured finger offset (m)."""


def library_of(tmp_path, block: dict | None) -> object:
    """A library folder holding pick_place version 1's files as ``pick_place``, under a
    card whose calibration is ``block`` (None: version 1's own card)."""
    root = tmp_path / "library"
    root.mkdir()
    if block is None:
        shutil.copytree(PARENT, root / "pick_place")
    else:
        calibrated_copy(tmp_path, block).rename(root / "pick_place")
    return root


def test_a_measuring_card_acts_on_the_reading_the_scenes_measurement_corrects(tmp_path):
    root = library_of(tmp_path, MEASURED)
    library = SkillLibrary.load(root, measured={"finger_width": OFFSET}, with_home=False)
    assert library.errors == {}
    policy = library.skills["pick_place"].policy
    assert policy.measured == {"finger_width": OFFSET}
    obs = held_states(16, 4)
    fixed = obs.copy()
    fixed[:, WIDTH] = calibrated_finger_width(obs[:, WIDTH], OFFSET)
    plain = SkillPolicy(PARENT)
    np.testing.assert_array_equal(policy.act(obs), plain.act(fixed))
    np.testing.assert_array_equal(policy.act(obs[3]), plain.act(fixed[3]))
    assert not np.array_equal(policy.act(obs), plain.act(obs))


@pytest.mark.parametrize("measured", [{}, {"joint_pos": 0.01}])
def test_a_measuring_card_without_a_measurement_is_refused_naming_the_command(tmp_path, measured):
    root = library_of(tmp_path, MEASURED)
    library = SkillLibrary.load(root, measured=measured, with_home=False)
    assert "pick_place" not in library.skills
    reason = library.errors["pick_place"]
    assert "finger_width (closed_gripper)" in reason
    assert "miles calibrate gripper" in reason and "gripper.calibration" in reason
    with pytest.raises(SkillCardError, match="miles calibrate gripper"):
        load_skill(root / "pick_place", measured={})
    # not checked (measured None: a replay of logs): it loads, and refuses to act
    skill = load_skill(root / "pick_place")
    with pytest.raises(ValueError, match="finger_width"):
        skill.policy.act(held_states(2))


def test_a_card_without_the_key_runs_bit_identically_with_or_without_the_measurement(
    tmp_path,
):
    root = library_of(tmp_path, None)
    obs = held_states(32, 5)
    actions = []
    for measured in (None, {}, {"finger_width": OFFSET}):
        library = SkillLibrary.load(root, measured=measured, with_home=False)
        policy = library.skills["pick_place"].policy
        assert policy.measured == {} and policy._calibration is None
        actions.append((policy.act(obs), policy.act(obs[7]), policy.value(obs)))
    for got in actions[1:]:
        for a, b in zip(actions[0], got, strict=True):
            np.testing.assert_array_equal(a, b)


def test_a_swapped_in_or_routed_measuring_version_reads_through_the_measurement(tmp_path):
    """A version promoted while the node runs, or routed for goals on a cube, is loaded with
    the library's measurement (or refused without one, the active version staying)."""
    from policies.library import ROUTE_CUBE
    from policies.versions import add_version, promote, route

    folder = tmp_path / "library" / "pick_place"
    add_version(folder, PARENT)
    add_version(folder, calibrated_copy(tmp_path, MEASURED))
    route(folder, ROUTE_CUBE, 2, reason="cube goals measure")
    library = SkillLibrary.load(folder.parent, measured={"finger_width": OFFSET})
    assert library.skills["pick_place"].card.version == 1
    routed = library.skill_for("pick_place", ROUTE_CUBE)
    assert routed.card.version == 2 and routed.policy.measured == {"finger_width": OFFSET}
    promote(folder, 2, reason="now active")
    library.refresh("pick_place")
    active = library.skills["pick_place"]
    assert active.card.version == 2 and active.policy.measured == {"finger_width": OFFSET}

    bare = SkillLibrary.load(folder.parent, measured={})
    assert "miles calibrate gripper" in bare.errors["pick_place"]
