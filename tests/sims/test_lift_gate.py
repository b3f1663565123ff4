"""The lift held until the fingers stop (``TaskConfig.lift_after_grip_threshold_m``,
:class:`sims.control.LiftGate`): after a close command the command path clamps the upward z
of the commanded motion to 0 until the measured opening stops changing or
``lift_after_grip_max_periods`` pass; off (the default) it changes nothing."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.cards import load_card
from sims.backends.numba_backend import NumbaEnv
from sims.backends.pybullet.env import PyBulletEnv
from sims.control import LiftGate
from sims.tasks import pick_place, push

THRESHOLD = 0.001


def act(z: float, grip: float, xy: float = 0.3) -> np.ndarray:
    return np.array([[xy, -xy, z, grip]])


def run(gate: LiftGate, steps) -> list[np.ndarray]:
    """``steps``: (action row, opening) pairs; the gated action of each."""
    return [gate(act(*a), np.array([w]))[0] for a, w in steps]


def test_holds_the_lift_while_the_fingers_close_and_releases_when_they_stop():
    gate = LiftGate(1, THRESHOLD, 10)
    widths = [0.08, 0.08, 0.076, 0.072, 0.068, 0.064, 0.060, 0.0565, 0.0531, 0.0527, 0.0527]
    out = run(gate, [((1.0, 1.0), widths[0])] + [((1.0, -1.0), w) for w in widths[1:]])
    z = [row[2] for row in out]
    assert z[0] == 1.0  # open: nothing held
    # the close (period 1) and every period whose opening still moved by >= 1 mm: held
    assert z[1:9] == [0.0] * 8
    assert z[9] == 1.0  # 0.4 mm over the last period: the fingers stopped
    assert z[10] == 1.0  # released, it stays released while the fingers stay closed
    for row in out:  # x, y and the gripper pass unchanged
        assert row[0] == 0.3 and row[1] == -0.3


def test_releases_after_max_periods_even_while_the_fingers_move():
    gate = LiftGate(1, THRESHOLD, 4)
    out = run(gate, [((1.0, -1.0), 0.08 - 0.004 * k) for k in range(8)])
    assert [row[2] for row in out] == [0.0] * 4 + [1.0] * 4


def test_an_open_command_disarms_and_the_next_close_rearms():
    gate = LiftGate(1, THRESHOLD, 4)
    steps = [((1.0, -1.0), 0.08), ((1.0, -1.0), 0.076), ((1.0, 1.0), 0.072)]
    steps += [((1.0, -1.0), 0.076), ((1.0, -1.0), 0.072)]
    assert [row[2] for row in run(gate, steps)] == [0.0, 0.0, 1.0, 0.0, 0.0]


def test_downward_motion_and_other_envs_pass_unchanged():
    gate = LiftGate(2, THRESHOLD, 4)
    actions = np.array([[0.1, 0.2, -0.7, -1.0], [0.1, 0.2, 0.7, 1.0]])
    out = gate(actions, np.array([0.08, 0.08]))
    np.testing.assert_array_equal(out, actions)
    out = gate(np.array([[0.1, 0.2, 0.7, -1.0], [0.1, 0.2, 0.7, 1.0]]), np.array([0.07, 0.08]))
    assert out[0, 2] == 0.0 and out[1, 2] == 0.7


def test_reset_forgets_the_close():
    gate = LiftGate(2, THRESHOLD, 4)
    gate(act(1.0, -1.0).repeat(2, 0), np.array([0.08, 0.08]))
    gate.reset(np.array([1]))
    out = gate(act(1.0, -1.0).repeat(2, 0), np.array([0.076, 0.076]))
    assert out[0, 2] == 0.0  # env 0: still held, the fingers moved
    assert out[1, 2] == 0.0  # env 1: a new episode whose first command closes: held


def test_off_passes_the_same_array():
    gate = LiftGate(1, 0.0, 4)
    actions = act(1.0, -1.0)
    assert gate(actions, np.array([0.08])) is actions
    assert LiftGate.from_config(pick_place.CONFIG, 4) is None  # off by default


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="lift_after_grip_threshold_m"):
        LiftGate(1, -0.001, 4)
    with pytest.raises(ValueError, match="lift_after_grip_max_periods"):
        LiftGate(1, THRESHOLD, 0)
    cfg = dataclasses.replace(push.CONFIG, lift_after_grip_threshold_m=THRESHOLD)
    with pytest.raises(ValueError, match="no Cartesian gripper action"):
        LiftGate.from_config(cfg, 1)


@settings(max_examples=300, deadline=None)
@given(
    max_periods=st.integers(1, 8),
    steps=st.lists(
        st.tuples(
            st.floats(-1.0, 1.0),  # z action
            st.sampled_from([-1.0, -0.2, 0.0, 0.3, 1.0]),  # gripper action
            st.floats(-0.006, 0.006),  # the opening's change this period
        ),
        min_size=1,
        max_size=40,
    ),
)
def test_never_lifts_while_the_fingers_still_move_after_a_close(max_periods, steps):
    """In a period k of a close (the close's own k = 0) before ``max_periods``, with the
    opening changed by the threshold or more in every period since the close, the commanded
    z never rises; x, y and the gripper pass; z is only ever lowered, to 0."""
    gate = LiftGate(1, THRESHOLD, max_periods)
    width, prev, k, moving = 0.08, None, -1, True
    for z, grip, change in steps:
        width = min(max(width + change, 0.0), 0.08)
        delta = np.inf if prev is None else abs(width - prev)
        prev = width
        if grip <= 0.0:
            k, moving = (0, True) if k < 0 else (k + 1, moving and delta >= THRESHOLD)
        else:
            k = -1
        row = gate(act(z, grip, 0.5), np.array([width]))[0]
        assert (row[0], row[1], row[3]) == (0.5, -0.5, grip)
        assert row[2] == z or (z > 0.0 and row[2] == 0.0)
        if 0 <= k < max_periods and moving:
            assert row[2] <= 0.0


def test_pybullet_tcp_waits_for_the_fingers():
    """A close commanded with the hand going up: with the gate the TCP does not rise while
    the fingers close (on nothing) and rises in the first period whose opening changed by
    under the threshold; without it, it rises at once. Both runs are the same episode."""
    on = dataclasses.replace(
        pick_place.CONFIG, lift_after_grip_threshold_m=THRESHOLD, lift_after_grip_max_periods=10
    )
    runs = {}
    for name, cfg in (("off", pick_place.CONFIG), ("on", on)):
        env = PyBulletEnv(pick_place, 1, cfg, num_workers=0, autoreset=False)
        try:
            env.reset(seed=3)
            z, width = [], []
            for _ in range(10):
                state = env.get_state()
                z.append(state.tcp_pos[0, 2])
                width.append(state.finger_width[0])
                env.step(np.array([[0.0, 0.0, 1.0, -1.0]]))
            z.append(env.get_state().tcp_pos[0, 2])
        finally:
            env.close()
        runs[name] = np.diff(z), np.array(width)
    rise_off, _ = runs["off"]
    rise_on, width = runs["on"]
    assert rise_off[0] > 0.005  # an action of 1 asks for 2 cm
    moved = np.abs(np.diff(width)) >= THRESHOLD
    stop = 1 + int(np.argmin(moved))  # the first period whose opening barely changed
    assert 1 < stop < 10 and moved[: stop - 1].all()
    assert np.all(rise_on[:stop] < 0.001)
    assert rise_on[stop] > 0.005


def test_numba_refuses_it_by_name():
    cfg = dataclasses.replace(pick_place.CONFIG, lift_after_grip_threshold_m=THRESHOLD)
    with pytest.raises(ValueError, match="lift_after_grip_threshold_m"):
        NumbaEnv(pick_place, 1, cfg)


def test_a_card_turns_it_on(tmp_path):
    import shutil

    src = pick_place_card_dir()
    dst = tmp_path / "pick_place"
    shutil.copytree(src, dst)
    text = (dst / "skill.yaml").read_text()
    anchor = "    finger_position_max_m: 0.04\n"
    assert anchor in text
    text = text.replace(
        anchor,
        anchor + "    lift_after_grip_threshold_m: 0.002\n    lift_after_grip_max_periods: 6\n",
    )
    (dst / "skill.yaml").write_text(text)
    cfg = load_card(dst).task_config()
    assert cfg.lift_after_grip_threshold_m == 0.002
    periods = cfg.lift_after_grip_max_periods
    assert periods == 6 and isinstance(periods, int)
    assert load_card(src).task_config().lift_after_grip_threshold_m == 0.0


def pick_place_card_dir():
    from policies.cards import SHIPPED_LIBRARY

    return SHIPPED_LIBRARY / "pick_place" / "versions" / "1"
