"""A version's observation calibration (policies.calibration): the card carries it and
round-trips it, a bad block is refused with the reason, SkillPolicy applies it (the one
place a version's networks meet an observation), and a card without it acts exactly as
before."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.calibration import calibration_refusal, reading_calibration
from policies.cards import SHIPPED_LIBRARY, SkillCard, SkillCardError, validate_card, write_card
from policies.runtime import SkillPolicy
from sims.tasks import pick_place
from sims.tasks.base import FINGER_READING_RANGE, calibrated_finger_width

PARENT = SHIPPED_LIBRARY / "pick_place" / "versions" / "1"
WIDTH = pick_place.LAYOUT.slices["finger_width"].start
LAYOUT = pick_place.LAYOUT.describe()
IDENTIFIED = {"offset": 0.008, "interval": [0.0047, 0.0102]}


def calibrated_copy(tmp_path, block: dict, name: str = "v2"):
    """The shipped pick_place version 1's files under a card with ``block`` as calibration."""
    out = tmp_path / name
    shutil.copytree(PARENT, out)
    data = validate_card(PARENT).to_dict()
    data["version"] = 2
    data["calibration"] = block
    write_card(SkillCard.from_dict(data, out / "skill.yaml"), out)
    return out


def held_states(n: int, seed: int = 0) -> np.ndarray:
    """pick_place observations whose finger reading is a held cube's or open."""
    rng = np.random.default_rng(seed)
    obs = rng.normal(0.0, 0.3, (n, pick_place.LAYOUT.dim)).astype(np.float32)
    obs[:, WIDTH] = rng.choice([0.045, 0.052, 0.08], n)
    return obs


def test_the_card_round_trips_the_calibration_and_the_networks_hashes_still_hold(tmp_path):
    block = reading_calibration(IDENTIFIED, "the logs' held cubes")
    assert block["finger_width"]["offset_m"] == 0.008
    assert block["finger_width"]["interval_m"] == [0.0047, 0.0102]
    card = validate_card(calibrated_copy(tmp_path, block))  # sha256 of both files checked
    assert card.calibration == block
    again = SkillCard.from_dict(card.to_dict(), card.path)
    assert again.calibration == block and again.to_dict() == card.to_dict()
    assert validate_card(PARENT).calibration == {}
    assert reading_calibration({"offset": None}, "nothing") == {}


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        ({"joint_pos": {"offset_m": 0.001}}, "only finger_width"),
        ({"finger_width": {"offset_m": 0.05}}, "not in"),
        ({"finger_width": {"offset_m": "wide"}}, "must be a number"),
        ({"finger_width": {"interval_m": [0.0, 0.01]}}, "with offset_m"),
        ({"finger_width": {"offset_m": 0.008, "gain": 2}}, "unknown keys gain"),
        ({"finger_width": {"offset_m": 0.008, "interval_m": [0.01, 0.0]}}, "interval_m"),
        (["finger_width"], "mapping"),
    ],
)
def test_a_bad_calibration_is_refused_with_the_reason(tmp_path, block, reason):
    data = validate_card(PARENT).to_dict()
    data["calibration"] = block
    with pytest.raises(SkillCardError, match=reason):
        SkillCard.from_dict(data, tmp_path / "skill.yaml")
    reach = [f for f in LAYOUT if f["name"] != "finger_width"]
    assert "no such scalar field" in calibration_refusal(
        {"finger_width": {"offset_m": 0.0}}, reach
    )


def test_a_version_without_calibration_acts_exactly_as_before(tmp_path):
    """The same networks under a card with an empty or zero calibration and under none act
    to the bit the same, one observation or a batch, and leave the caller's array alone."""
    obs = held_states(64)
    keep = obs.copy()
    plain = SkillPolicy(PARENT)
    zero = SkillPolicy(calibrated_copy(tmp_path, {"finger_width": {"offset_m": 0.0}}))
    for policy in (plain, zero):
        assert policy._calibration is None
    np.testing.assert_array_equal(zero.act(obs), plain.act(obs))
    for row in obs[:8]:
        np.testing.assert_array_equal(zero.act(row), plain.act(row))
    np.testing.assert_array_equal(obs, keep)


@settings(max_examples=25, deadline=None)
@given(
    offset=st.floats(*FINGER_READING_RANGE).filter(lambda v: abs(v) > 1e-4),
    seed=st.integers(0, 99),
)
def test_the_policy_acts_on_the_calibrated_reading(tmp_path_factory, offset, seed):
    """A calibrated version's actions and values, on one observation and on a batch, are
    its networks' on the observation with the finger reading calibrated
    (sims.tasks.base.calibrated_finger_width), every other field as it was; the caller's
    observation is not changed."""
    tmp = tmp_path_factory.mktemp("cal")
    policy = SkillPolicy(calibrated_copy(tmp, {"finger_width": {"offset_m": offset}}))
    plain = SkillPolicy(PARENT)
    obs = held_states(16, seed)
    keep = obs.copy()
    fixed = obs.copy()
    fixed[:, WIDTH] = calibrated_finger_width(obs[:, WIDTH], offset)
    np.testing.assert_array_equal(policy.act(obs), plain.act(fixed))
    np.testing.assert_array_equal(policy.act(obs[3]), plain.act(fixed[3]))
    np.testing.assert_array_equal(policy.value(obs), plain.value(fixed))
    np.testing.assert_array_equal(obs, keep)
    if offset > 0.002:  # a held cube's reading moved: the version acts differently there
        assert not np.array_equal(policy.act(obs), plain.act(obs))


def test_the_skill_node_runtime_loads_the_calibration_through_the_policy(tmp_path):
    """The runtime's loader (miles_ros.runtime.library.load_skill) gives the skill node a
    policy that applies its version's calibration, with nothing of its own."""
    from miles_ros.runtime.library import load_skill

    block = reading_calibration(IDENTIFIED, "test")
    skill = load_skill(calibrated_copy(tmp_path, block), replaces=validate_card(PARENT))
    obs = held_states(8)
    fixed = obs.copy()
    fixed[:, WIDTH] = calibrated_finger_width(obs[:, WIDTH], 0.008)
    np.testing.assert_array_equal(skill.policy.act(obs), SkillPolicy(PARENT).act(fixed))
