"""The finger reading (``DomainRandomization.finger_reading``): the opening a held cube reads,
as an offset from its edge. numba changes its fingers (pads inset in the reported opening,
or compliant pads squeezed), PyBullet maps its measured opening; in both a held cube reads
its offset, the open gripper its full opening, and the draw is per episode. Isaac refuses
it by name, as does a range outside ``FINGER_READING_RANGE``."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.experts import pick_place as pick_expert
from policies.ppo.config import TrainConfig
from policies.ppo.env_options import contact_randomization
from sims.backends.numba_backend import NumbaEnv
from sims.backends.pybullet.env import PyBulletEnv
from sims.robots import panda
from sims.tasks import pick_place
from sims.tasks.base import (
    FINGER_READING_RANGE,
    HELD_READING_MAX,
    DomainRandomization,
    calibrated_finger_width,
    check_backend_randomization,
    reported_finger_width,
)

OPEN = panda.gripper_width_max
EDGE = pick_place.CUBE_SIZE
WIDTH = pick_place.LAYOUT.slices["finger_width"]
OFFSETS = (FINGER_READING_RANGE[0], -0.002, 0.0, 0.009, 0.018)


def reading_config(lo: float, hi: float | None = None, steps: int = 80):
    r = DomainRandomization(finger_reading=(lo, lo if hi is None else hi))
    return dataclasses.replace(pick_place.CONFIG, randomization=r, episode_steps=steps)


def gripper_only(n: int, grip: float) -> np.ndarray:
    """Actions that hold the arm still and open (grip > 0) or close the fingers."""
    actions = np.zeros((n, pick_place.CONFIG.action_dim))
    actions[:, -1] = grip
    return actions


@pytest.mark.parametrize("offset", OFFSETS)
def test_numba_a_held_cube_reads_its_edge_plus_the_offset(offset):
    """The expert grasps and lifts the cube at every offset, below zero too (squeezed
    pads); while it is held the fingers read its edge plus the offset."""
    cfg = reading_config(offset)
    env = NumbaEnv(pick_place, 32, cfg)
    obs, _ = env.reset(seed=4)
    widths, lifted = [], []
    for _ in range(60):
        obs, *_ = env.step(pick_expert.act(obs, cfg))
        held = env.grasped()
        widths.extend(obs[held, WIDTH.start])
        lifted.extend(env.get_state().object_pos[held, 2] - EDGE / 2)
    assert len(widths) > 100
    np.testing.assert_allclose(widths, EDGE + offset, atol=1e-6)  # float32 observation
    assert max(lifted) > 0.02


@pytest.mark.parametrize("offset", OFFSETS)
def test_numba_open_and_empty_closed_readings(offset):
    """Away from the cube, the open gripper reads its full opening whatever the offset; an
    empty closed one reads what its pads leave: the offset of inset pads, 0 where
    compliant pads meet."""
    env = NumbaEnv(pick_place, 8, reading_config(offset))
    obs, _ = env.reset(seed=1)
    np.testing.assert_allclose(obs[:, WIDTH.start], OPEN, atol=1e-6)
    for _ in range(15):
        obs, *_ = env.step(gripper_only(8, -1.0))
    assert not env.grasped().any()  # the home pose is well above the cube
    np.testing.assert_allclose(obs[:, WIDTH.start], max(offset, 0.0), atol=1e-5)
    for _ in range(15):
        obs, *_ = env.step(gripper_only(8, 1.0))
    np.testing.assert_allclose(obs[:, WIDTH.start], OPEN, atol=1e-5)


def test_numba_draws_the_reading_per_episode():
    lo, hi = FINGER_READING_RANGE
    env = NumbaEnv(pick_place, 512, reading_config(lo, hi))
    env.reset(seed=2)
    drawn = env.randomization_state()["finger_reading"]
    assert drawn.min() >= lo and drawn.max() <= hi and drawn.std() > 0.004
    assert (drawn < 0).any() and (drawn > 0).any()
    env.reset(seed=3)
    assert not np.allclose(env.randomization_state()["finger_reading"], drawn)
    plain = NumbaEnv(pick_place, 8)
    plain.reset(seed=2)
    assert np.all(plain.randomization_state()["finger_reading"] == 0.0)


@settings(max_examples=200, deadline=None)
@given(
    width=st.floats(0.0, OPEN),
    wider=st.floats(0.0, OPEN),
    offset=st.floats(*FINGER_READING_RANGE),
)
def test_the_reading_map_moves_held_readings_only(width, wider, offset):
    """A held cube's reading (at most ``HELD_READING_MAX``) moves by the offset, the open
    gripper's not at all, none goes below 0, and a wider grip never reads narrower."""
    read = float(reported_finger_width(np.array([width]), np.array([offset]))[0])
    if width <= HELD_READING_MAX:
        assert read == pytest.approx(max(width + offset, 0.0), abs=1e-12)
    assert read >= 0.0
    assert float(reported_finger_width(np.array([OPEN]), np.array([offset]))[0]) == OPEN
    lo, hi = sorted((width, wider))
    both = reported_finger_width(np.array([lo, hi]), np.array([offset, offset]))
    assert both[0] <= both[1] + 1e-12


@settings(max_examples=300, deadline=None)
@given(width=st.floats(0.0, OPEN), offset=st.floats(*FINGER_READING_RANGE))
def test_calibration_undoes_the_reading_map(width, offset):
    """A reading taken with a known offset, calibrated by that offset, is the opening again
    (where the reading did not clip at 0: pads squeezed shut read 0 whatever their
    opening); calibrated by another offset a held cube's reading is off by the
    difference: what a version with a calibration sees on a cell
    whose offset is not its own."""
    read = reported_finger_width(np.array([width]), offset)
    if width + offset > 0.0:
        assert float(calibrated_finger_width(read, offset)[0]) == pytest.approx(width, abs=1e-9)
    other = 0.004
    if width <= HELD_READING_MAX and 0.0 < width + offset <= HELD_READING_MAX + other:
        got = float(calibrated_finger_width(read, other)[0])
        assert got == pytest.approx(max(width + offset - other, 0.0), abs=1e-9)
    assert float(calibrated_finger_width(np.array([OPEN]), offset)[0]) == OPEN


def run_pybullet(cfg, seed: int, actions=None):
    """(observed widths, measured widths, actions, cube heights) of one expert episode on
    one PyBullet world; ``actions``: replay these instead of asking the expert."""
    env = PyBulletEnv(pick_place, 1, cfg, num_workers=0, autoreset=False)
    try:
        obs, _ = env.reset(seed=seed)
        seen, measured, taken, heights = [obs[0, WIDTH.start]], [], [], []
        measured.append(env.get_state().finger_width[0])
        offset = env.randomization_state().get("finger_reading", np.zeros(1))[0]
        for t in range(60):
            a = pick_expert.act(obs, cfg) if actions is None else actions[t]
            obs, *_ = env.step(a)
            taken.append(a)
            seen.append(obs[0, WIDTH.start])
            measured.append(env.get_state().finger_width[0])
            heights.append(env.get_state().object_pos[0, 2])
        return np.array(seen), np.array(measured), taken, np.array(heights), offset
    finally:
        env.close()


@pytest.mark.parametrize("offset", (FINGER_READING_RANGE[0], 0.009))
def test_pybullet_moves_the_reading_of_a_held_cube_by_the_offset(offset):
    """PyBullet's observation reports the measured opening through the reading map: a
    lifted cube's reading by the whole offset, the open gripper's (at reset) unchanged; the
    physics is PyBullet's own (the same actions replayed without the randomization give
    the same measured openings and cube)."""
    cfg = reading_config(offset)
    seen, measured, actions, heights, drawn = run_pybullet(cfg, seed=11)
    assert drawn == offset
    assert seen[0] == pytest.approx(OPEN, abs=1e-6) and measured[0] == pytest.approx(OPEN)
    lifted = np.flatnonzero(heights > EDGE / 2 + 0.005) + 1  # reading index after each step
    assert len(lifted) > 5, "the expert did not lift the cube"
    assert np.all(measured[lifted] <= HELD_READING_MAX)
    np.testing.assert_allclose(seen[lifted], measured[lifted] + offset, atol=1e-6)
    np.testing.assert_allclose(seen, reported_finger_width(measured, offset), atol=1e-6)
    plain = dataclasses.replace(cfg, randomization=DomainRandomization())
    seen0, measured0, _, heights0, _ = run_pybullet(plain, seed=11, actions=actions)
    np.testing.assert_array_equal(measured0, measured)
    np.testing.assert_array_equal(heights0, heights)
    np.testing.assert_allclose(seen0, measured, atol=1e-6)


def test_pybullet_draws_the_reading_per_episode():
    lo, hi = FINGER_READING_RANGE
    env = PyBulletEnv(pick_place, 2, reading_config(lo, hi), num_workers=0)
    try:
        draws = []
        for seed in range(4):
            env.reset(seed=seed)
            draws.extend(env.randomization_state()["finger_reading"])
        assert min(draws) >= lo and max(draws) <= hi and len(set(draws)) == len(draws)
    finally:
        env.close()


def test_isaac_refuses_the_finger_reading_by_name():
    r = DomainRandomization(finger_reading=(0.0, 0.01))
    check_backend_randomization(r, "numba", "kinematic")
    check_backend_randomization(r, "pybullet", "URDF")
    with pytest.raises(ValueError, match="isaac backend cannot randomize randomization.finger_r"):
        check_backend_randomization(r, "isaac", "it keeps the scene's fingers")


@pytest.mark.parametrize("reading", ([-0.006, 0.0], [0.0, 0.021], [0.01, 0.0], [0.01]))
def test_a_reading_outside_its_range_fails_when_the_config_loads(reading):
    with pytest.raises(ValueError, match="env.finger_reading: finger_reading must be"):
        TrainConfig.from_dict({"task": "pick_place", "env": {"finger_reading": reading}})


def test_a_run_saved_with_finger_pads_loads_as_their_reading():
    """``finger_pad`` (per finger, as runs before ``finger_reading`` saved it) is half the
    reading: its configs and checkpoints still load, with the same fingers."""
    old = TrainConfig.from_dict({"task": "pick_place", "env": {"finger_pad": [0.0, 0.01]}})
    assert contact_randomization(old.env) == {"finger_reading": (0.0, 0.02)}
    empty = TrainConfig.from_dict({"task": "pick_place", "env": {"finger_pad": []}})
    assert contact_randomization(empty.env) == {}
