"""bench/turn_stalls.py: where a turn student's push stalls, from a record of its states
(the failed episodes' last steps, how long its action stayed ~0 there)."""

import numpy as np
import pytest

from bench import turn_stalls

STEP = 0.02


def _record():
    """One env, two episodes along face 0 (normal +x): steps 0-3 turned the cube, steps
    4-9 failed; the pusher moves 1 mm into the face at steps 4-6 and then holds still with
    a zero action (7-9), its label still pressing."""
    steps = 10
    col = lambda v: np.asarray(v, dtype=float)[:, None]  # noqa: E731
    ended = np.zeros((steps, 1), dtype=bool)
    ended[[3, 9]] = True
    start = np.zeros((steps, 1), dtype=bool)
    start[[0, 4]] = True
    succeeded = np.zeros((steps, 1), dtype=bool)
    succeeded[3] = True
    press = [-0.1, 0.0, 0.0]  # into face 0 (-x), 2 mm
    action = np.array([press] * 7 + [[0.0, 0.0, 0.0]] * 3)[:, None, :]
    x = [0.06, 0.059, 0.058, 0.057, 0.05, 0.049, 0.048, 0.047, 0.047, 0.047]
    tcp = np.stack([x, np.zeros(steps), np.full(steps, 0.02)], axis=1)[:, None, :]
    yaw_left = col([20, 18, 16, 14, 12, 11, 10, 9, 9, 9])
    return {
        "label": np.array([press] * steps)[:, None, :],
        "action": action,
        "normal": np.tile([1.0, 0.0], (steps, 1, 1)),
        "side": np.ones((steps, 1)),
        "pushing": np.ones((steps, 1), dtype=bool),
        "place_error": col([0.004] * steps),
        "gap": np.zeros((steps, 1)),
        "tcp": tcp,
        "start": start,
        "ended": ended,
        "succeeded": succeeded,
        "yaw_left": yaw_left,
        "yaw_left_after": np.roll(yaw_left, -1, axis=0),
        "slide": np.zeros((steps, 1)),
        "slide_after": np.zeros((steps, 1)),
    }


def test_a_failed_episode_held_still_at_its_end_counts_its_frozen_steps():
    rows = turn_stalls.episode_table(_record(), last=50, step=STEP)
    assert len(rows) == 1  # the turned episode is not a failure
    row = rows[0]
    assert row["episode"] == 1 and row["frozen_steps"] == 3
    assert row["last_action_norm"] == 0.0 and row["last_label_norm"] == pytest.approx(0.1)
    assert row["last_lever_m"] == pytest.approx(turn_stalls.expert.LEVER + 0.004)
    assert row["push_share"] == 1.0 and row["steps"] == 6


def test_push_stats_measure_the_press_into_the_face_and_the_motion():
    rec = _record()
    m = turn_stalls.masks(rec, last=3)
    assert np.flatnonzero(m["stalled"][:, 0]).tolist() == [7, 8, 9]
    # the turned episode's push steps with 5-22 deg left: all four
    assert np.flatnonzero(m["turning"][:, 0]).tolist() == [0, 1, 2, 3]
    stalled = turn_stalls.push_stats(rec, m["stalled"], STEP)
    assert stalled["label_press_m"][0] == pytest.approx(0.002)
    assert stalled["action_press_m"][0] == 0.0
    assert stalled["tcp_moved_in_m"][0] == pytest.approx(0.0)
    turning = turn_stalls.push_stats(rec, m["turning"], STEP)
    assert turning["action_press_m"][0] == pytest.approx(0.002)
    # 1 mm in per step, none across the episode's end (step 3 -> 4 is a reset)
    assert turning["tcp_moved_in_m"][0] == pytest.approx(0.00075)
    assert turning["yaw_turned_deg"][0] == pytest.approx(2.0)
