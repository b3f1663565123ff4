"""A version's observation calibration (policies.calibration): the card carries it and
round-trips it, a bad block is refused with the reason, SkillPolicy applies it (the one
place a version's networks meet an observation), and a card without it acts exactly as
before."""

from __future__ import annotations

import atexit
import dataclasses
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.calibration import (
    MEASURE_RESOLUTION_M,
    MEASURE_STEP_M,
    calibration_refusal,
    closed_gripper_reading,
    measured_fields,
    measured_offset,
    reading_calibration,
)
from policies.cards import SHIPPED_LIBRARY, SkillCard, SkillCardError, validate_card, write_card
from policies.runtime import SkillPolicy
from sims.robots import panda
from sims.tasks import pick_place
from sims.tasks.base import (
    FINGER_READING_RANGE,
    HELD_READING_MAX,
    calibrated_finger_width,
    reported_finger_width,
)

SHIPPED = SHIPPED_LIBRARY / "pick_place" / "versions" / "1"
"""The shipped version 1, whose card has the cell measure its finger offset."""


def _bare_copy() -> Path:
    """Version 1's files under its card without ``calibration`` (as it was exported): the
    networks as they are, no transform."""
    where = Path(tempfile.mkdtemp(prefix="pick_place_bare_"))
    atexit.register(shutil.rmtree, where, ignore_errors=True)
    out = where / "1"
    shutil.copytree(SHIPPED, out)
    data = validate_card(SHIPPED).to_dict()
    data.pop("calibration", None)
    write_card(SkillCard.from_dict(data, out / "skill.yaml"), out)
    return out


PARENT = _bare_copy()
WIDTH = pick_place.LAYOUT.slices["finger_width"].start
LAYOUT = pick_place.LAYOUT.describe()
OPEN_WIDTH = panda.gripper_width_max
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
    assert measured_fields(validate_card(SHIPPED)) == {"finger_width": "closed_gripper"}
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


MEASURED = {"finger_width": {"measure": "closed_gripper", "source": "test"}}


class ClosingGripper:
    """A stand-in cell for the closed-gripper measurement: pick_place observations whose
    finger opening closes 4 mm a period from open while the gripper is commanded closed
    (as behind the supervisor), read through PyBullet's reading map with ``offset``."""

    action_dim = 4

    def __init__(self, num_envs: int, offset: float):
        self.num_envs, self.offset = num_envs, offset
        self.width = np.full(num_envs, OPEN_WIDTH)
        self.resets = 0

    def _obs(self):
        obs = held_states(self.num_envs)
        obs[:, WIDTH] = reported_finger_width(self.width, np.full(self.num_envs, self.offset))
        return obs

    def reset(self, seed=None):
        self.resets += 1
        self.width[:] = OPEN_WIDTH
        return self._obs(), {}

    def step(self, actions):
        closing = np.asarray(actions)[:, -1] <= 0.0
        self.width = np.where(closing, np.maximum(self.width - 0.004, 0.0), self.width)
        return self._obs(), np.zeros(self.num_envs), None, None, {}


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"measure": "closed_gripper", "offset_m": 0.008}, "offset_m or measure"),
        ({"measure": "open_gripper"}, "measure 'open_gripper'"),
    ],
)
def test_a_bad_measured_calibration_is_refused_with_the_reason(tmp_path, entry, reason):
    data = validate_card(PARENT).to_dict()
    data["calibration"] = {"finger_width": entry}
    with pytest.raises(SkillCardError, match=reason):
        SkillCard.from_dict(data, tmp_path / "skill.yaml")
    assert calibration_refusal(MEASURED, LAYOUT) == ""


@settings(max_examples=200, deadline=None)
@given(
    offset=st.floats(*FINGER_READING_RANGE),
    width=st.floats(0.0, OPEN_WIDTH),
)
def test_the_closed_gripper_measures_the_offset_and_undoes_it(offset, width):
    """Under the sims' reading map a closed empty gripper reads the offset, to the
    measurement's step, where it is at least the measurement's resolution (a narrow one
    reads 0: it cannot be seen there and is left as is); the measured offset is always
    within the field's range and never under 0, and the reading corrected by it is the
    opening to within what the measurement's own error d - d' becomes through the map's
    inverse: |d - d'| where the whole offset moves the reading, at most |d - d'| / (1 - d' /
    span) where it fades towards the open gripper (span: the fade's width), or, where
    nothing was measured, the reading itself."""
    closed = float(reported_finger_width(np.array([0.0]), np.array([offset]))[0])
    measured = measured_offset("finger_width", closed)
    assert FINGER_READING_RANGE[0] <= 0.0 <= measured <= FINGER_READING_RANGE[1]
    assert measured == pytest.approx(round(measured / MEASURE_STEP_M) * MEASURE_STEP_M, abs=1e-12)
    if offset >= MEASURE_RESOLUTION_M + MEASURE_STEP_M:
        assert abs(measured - offset) <= MEASURE_STEP_M / 2 + 1e-12
    elif offset < MEASURE_RESOLUTION_M - MEASURE_STEP_M:
        assert measured == 0.0
    reading = reported_finger_width(np.array([width]), np.array([offset]))
    got = float(calibrated_finger_width(reading, measured)[0]) if measured else reading[0]
    if measured:
        span = OPEN_WIDTH - HELD_READING_MAX
        assert abs(got - width) <= abs(measured - offset) / (1.0 - measured / span) + 1e-9
    else:  # the reading as it was: off by the (unseen or sub-resolution) offset at most
        assert abs(got - width) <= max(abs(offset), 0.0) + 1e-12


@pytest.mark.parametrize("offset", (0.0, 0.009, 0.018))
def test_a_measuring_version_calibrates_on_the_cell_before_it_acts(tmp_path, offset):
    """A card that measures its finger offset refuses to act before the cell is measured
    (naming the field); measured on a cell that reads ``offset`` wide, it acts on the
    reading calibrated by what it measured (the offset, to a float32 reading's rounding),
    and on a right cell (offset 0) exactly as the card without calibration, the transform
    left out; the measurement resets the cell first."""
    policy = SkillPolicy(calibrated_copy(tmp_path, MEASURED))
    obs = held_states(16, 3)
    with pytest.raises(ValueError, match="finger_width"):
        policy.act(obs)
    with pytest.raises(ValueError, match="finger_width"):
        policy.act(obs[0])
    cell = ClosingGripper(4, offset)
    measured = policy.calibrate(cell)
    assert cell.resets == 1
    assert measured == {"finger_width": pytest.approx(offset, abs=1e-8)}  # a float32 reading
    if offset == 0.0:
        assert policy._calibration is None
        np.testing.assert_array_equal(policy.act(obs), SkillPolicy(PARENT).act(obs))
        return
    plain = SkillPolicy(PARENT)
    fixed = obs.copy()
    fixed[:, WIDTH] = calibrated_finger_width(obs[:, WIDTH], measured["finger_width"])
    np.testing.assert_array_equal(policy.act(obs), plain.act(fixed))
    np.testing.assert_array_equal(policy.act(obs[5]), plain.act(fixed[5]))
    assert not np.array_equal(policy.act(obs), plain.act(obs))
    assert SkillPolicy(PARENT).calibrate(cell) == {} and cell.resets == 1  # no measure: no-op


def test_the_measurement_on_pybullet_reads_the_offset_and_leaves_the_episodes_alone():
    """On PyBullet's Panda (the reading map at +9 mm) the closed empty gripper reads the
    offset, and a seeded reset after the measurement starts the same episodes, to the bit,
    as one without it (miles eval measures, then runs its seeded episode set)."""
    from sims.backends.pybullet.env import PyBulletEnv
    from sims.tasks.base import DomainRandomization

    cfg = dataclasses.replace(
        pick_place.CONFIG, randomization=DomainRandomization(finger_reading=(0.009, 0.009))
    )
    actions = np.tile(np.array([0.3, -0.2, -0.5, 1.0], dtype=np.float32), (2, 1))
    runs = []
    for measure in (False, True):
        env = PyBulletEnv(pick_place, 2, cfg, num_workers=0)
        try:
            if measure:
                reading = closed_gripper_reading(env, WIDTH)
                assert measured_offset("finger_width", reading) == pytest.approx(0.009, abs=1e-4)
            obs, _ = env.reset(seed=7)
            seen = [obs]
            for _ in range(5):
                seen.append(env.step(actions)[0])
            runs.append(np.array(seen))
        finally:
            env.close()
    np.testing.assert_array_equal(runs[0], runs[1])


@pytest.mark.parametrize("variant", (None, "tower"))
def test_miles_eval_measures_on_a_twin_and_scores_an_env_the_measurement_never_touched(
    monkeypatch, variant
):
    """`miles eval` measures a measuring card's offset on a twin of the cell (the same
    make_env call), closed before the scored env is built, so the measuring episode cannot
    reach the seeded episodes (16 PyBullet tower worlds carried it through a seeded reset:
    docs/stacking.md part 30); the scored env gets no measuring episode of its own."""
    import sims
    from policies import evaluation

    made, events = [], []

    class Cell:
        num_envs = 2
        cfg = pick_place.CONFIG

        def __init__(self, *args, **kwargs):
            self.call = (args, kwargs)
            made.append(self)
            events.append(("made", self))

        def close(self):
            events.append(("closed", self))

    def scored(env, *args, **kwargs):
        events.append(("episodes", env))
        return evaluation.EvalResult(1.0, (0.5, 1.0), 0.0, 1.0, 1, 1)

    def calibrate(env):
        events.append(("measured", env))
        return {"finger_width": 0.0}

    monkeypatch.setattr(sims, "make_env", Cell)
    monkeypatch.setattr(evaluation, "run_episodes", scored)
    evaluation.evaluate(None, "pick_place", num_envs=2, variant=variant, calibrate=calibrate)
    twin, cell = made
    assert twin.call == cell.call  # the same task, backend, envs and configuration
    assert events == [
        ("made", twin), ("measured", twin), ("closed", twin),
        ("made", cell), ("episodes", cell), ("closed", cell),
    ]  # fmt: skip
