"""bench/turn_switches.py: it counts the turn expert's label switches along a policy's
states and splits the policy's error near and away from them."""

import numpy as np

from bench import turn_switches


def _normals(faces):
    """Outward normals [steps, 2] of faces 0-3 of a cube at yaw 0."""
    angles = 0.5 * np.pi * np.asarray(faces, dtype=float)
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def _record(faces, labels, actions=None, starts=()):
    """A one-env record: per step a face, a 3-vector label, a policy action."""
    steps = len(faces)
    start = np.zeros((steps, 1), dtype=bool)
    start[0] = True
    for t in starts:
        start[t] = True
    label = np.asarray(labels, dtype=float)[:, None, :]
    return {
        "label": label,
        "action": label if actions is None else np.asarray(actions, dtype=float)[:, None, :],
        "normal": _normals(faces)[:, None, :],
        "side": np.ones((steps, 1)),
        "pushing": np.ones((steps, 1), dtype=bool),
        "start": start,
        "episodes": 1,
        "successes": 1,
    }


def test_a_face_change_with_a_reversed_label_is_a_switch_and_a_flip():
    right, left = [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]
    rec = _record([0, 0, 0, 2, 2, 2, 2, 2], [right] * 3 + [left] * 5)
    m = turn_switches.switch_masks(rec, window=1)
    assert m["face"][:, 0].tolist() == [False, False, False, True, False, False, False, False]
    assert m["flip"][:, 0].tolist() == m["face"][:, 0].tolist()
    assert m["near"][:, 0].tolist() == [False, False, True, True, True, False, False, False]


def test_nothing_counts_across_an_episode_boundary():
    right, left = [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]
    rec = _record([0, 0, 2, 2], [right, right, left, left], starts=(2,))
    m = turn_switches.switch_masks(rec, window=3)
    assert not m["switch"].any() and not m["flip"].any() and not m["near"].any()


def test_the_policy_error_splits_near_and_away_from_switches():
    right, left = [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]
    labels = [right] * 5 + [left] * 5
    # the policy blends the two labels at the switch (0 there) and follows them elsewhere
    actions = [right] * 4 + [[0.0, 0.0, 0.0]] * 2 + [left] * 4
    rec = _record([0] * 5 + [2] * 5, labels, actions)
    stats = turn_switches.switch_stats(rec, window=1)
    assert stats["error"]["away"] == 0.0
    assert stats["error"]["near_switch"] > 0.0
    assert stats["error"]["share_near_switch"] == 1.0
    assert stats["per_100_steps"]["face"] == round(100.0 / 9, 2)


def test_it_measures_the_expert_along_its_own_states_on_the_training_model():
    env, task_cfg = turn_switches.first_stage_env("config/train/turn.yaml", 4)
    rec = turn_switches.record_labels(env, task_cfg, None, steps=60, seed=3)
    assert rec["label"].shape == (60, 4, 3)
    np.testing.assert_array_equal(rec["label"], rec["action"])  # the expert follows itself
    stats = turn_switches.switch_stats(rec, window=2)
    assert "error" not in stats
    assert stats["per_100_steps"]["face"] > 0.0  # it reaches a face and changes at least once


def test_a_face_change_back_within_three_steps_is_undone():
    right = [1.0, 0.0, 0.0]
    rec = _record([0, 0, 1, 0, 0, 2, 2, 2, 2, 2], [right] * 10)
    m = turn_switches.switch_masks(rec, window=1)
    assert np.flatnonzero(m["face"][:, 0]).tolist() == [2, 3, 5]
    # 0 -> 1 -> 0 is undone; the step back to 0 and the change to 2 are not
    assert np.flatnonzero(m["undone"][:, 0]).tolist() == [2]


def test_failed_episodes_say_whether_the_yaw_or_the_slide_failed():
    right = [1.0, 0.0, 0.0]
    rec = _record([0] * 4, [right] * 4)
    rec["failed"] = np.array([[12.0, 0.01], [2.0, 0.04], [30.0, 0.05]])
    failed = turn_switches.switch_stats(rec, window=1)["failed"]
    assert failed["episodes"] == 3
    assert failed["yaw_not_reached"] == round(2 / 3, 3)
    assert failed["slid_too_far"] == round(2 / 3, 3)
    assert failed["median_yaw_left_deg"] == 12.0


def test_phase_stats_say_how_far_along_the_label_the_policy_moves_in_each_phase():
    push, approach = [0.3, 0.0, 0.0], [0.0, 1.0, 0.0]
    labels = [push] * 4 + [approach] * 4
    # while pushing the policy moves a third of the way (and a little sideways);
    # while approaching it follows the label
    actions = [[0.1, 0.05, 0.0]] * 4 + [approach] * 4
    rec = _record([0] * 8, labels, actions)
    rec["pushing"][4:] = False
    phases = turn_switches.phase_stats(rec)
    pushing, approaching = phases["pushing"], phases["approaching"]
    assert pushing["share"] == 0.5 and approaching["share"] == 0.5
    assert pushing["label_norm"] == 0.3 and approaching["label_norm"] == 1.0
    assert pushing["along"] == round(1 / 3, 4) and approaching["along"] == 1.0
    assert pushing["error"] == round(float(np.hypot(0.2, 0.05)), 4)
    assert approaching["error"] == 0.0


def test_phase_stats_leave_labels_without_a_direction_out_of_along():
    rec = _record([0, 0], [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]], [[0.2, 0.0, 0.0]] * 2)
    pushing = turn_switches.phase_stats(rec)["pushing"]
    assert pushing["along"] == 0.4  # the zero label's step has no direction
    assert pushing["error"] == round((0.2 + 0.3) / 2, 4)  # but its error counts
    assert "approaching" not in turn_switches.phase_stats(rec)


def _episode_record(slides, yaw_left, pushing=True, place_error=0.0, low=True, at_face=True):
    """A one-env record of one episode that ends at its last step without success: the
    cube's slide (m) and yaw left (deg) before each step, the expert's phase and the
    pusher's place error (m) at each."""
    steps = len(slides)
    rec = _record([0] * steps, [[0.2, 0.0, 0.0]] * steps)
    rec["slide"] = np.asarray(slides, dtype=float)[:, None]
    rec["yaw_left"] = np.asarray(yaw_left, dtype=float)[:, None]
    rec["slide_after"] = np.append(rec["slide"][1:, 0], rec["slide"][-1, 0])[:, None]
    rec["yaw_left_after"] = np.append(rec["yaw_left"][1:, 0], rec["yaw_left"][-1, 0])[:, None]
    for key, value in (
        ("pushing", pushing),
        ("place_error", place_error),
        ("low", low),
        ("at_face", at_face),
    ):
        rec[key] = np.broadcast_to(np.asarray(value), (steps,))[:, None].copy()
    rec["to_cube"] = np.tile([1.0, 0.0], (steps, 1, 1))
    rec["ended"] = np.zeros((steps, 1), dtype=bool)
    rec["ended"][-1] = True
    rec["succeeded"] = np.zeros((steps, 1), dtype=bool)
    return rec


def test_slide_causes_take_the_first_that_applies():
    rec = _episode_record(
        [0.0] * 6,
        [20.0, 20.0, 20.0, 20.0, 20.0, 3.0],
        pushing=[True, True, False, False, False, True],
        place_error=[0.0, -0.008, 0.0, 0.0, 0.0, 0.0],
        low=[True, True, True, True, False, False],
        at_face=[True, True, True, False, True, True],
    )
    causes = [turn_switches.SLIDE_CAUSES[i] for i in turn_switches.slide_causes(rec)[:, 0]]
    assert causes == ["pushing", "pushing_middle", "off_place", "other_face", "above", "turned"]


def test_a_failure_that_slid_while_pushing_the_middle_says_so():
    # pushing the face's middle slides the cube out (1 cm a step from the third step) with
    # 6 deg still to turn; the yaw then reaches the tolerance while the cube is out, and is
    # pushed on (the fifth step)
    slides = [0.0, 0.005, 0.015, 0.025, 0.035, 0.04]
    yaw = [20.0, 12.0, 8.0, 6.0, 4.0, 4.0]
    place = [0.0, 0.0, -0.008, -0.008, -0.008, -0.008]
    rec = _episode_record(slides, yaw, place_error=place)
    stats = turn_switches.failure_stats(rec)
    assert stats["failed"] == 1 and stats["slid"] == 1.0
    assert stats["cause"]["pushing_middle"] == 1.0
    shares = stats["slide_share"]
    assert shares["pushing_middle"] == 0.5  # 2 of the 4 cm
    assert shares["pushing"] == round(0.015 / 0.04, 3) and shares["turned"] == 0.125
    assert stats["yaw_left_at_crossing_median_deg"] == 6.0  # before the step that crossed
    assert stats["turned_after_crossing"] == 1.0
    assert stats["final_slide_median_m"] == 0.04
    sliding = stats["at_sliding_steps"]
    assert sliding["steps"] == 5  # the steps that moved the cube >= 1 mm further out
    assert sliding["towards_cube"]["pushing_middle"]["label"] == 0.2


def test_a_timeout_without_a_slide_is_not_a_slide_and_successes_report_their_slide():
    timeout = _episode_record([0.0, 0.002, 0.004, 0.004], [30.0, 28.0, 25.0, 24.0])
    done = _episode_record([0.0, 0.01, 0.02, 0.015], [20.0, 10.0, 6.0, 4.0])
    done["succeeded"][-1] = True
    done["slide_after"][-1] = 0.012
    rec = {
        k: np.concatenate([timeout[k], done[k]], axis=1)
        for k in timeout
        if isinstance(timeout[k], np.ndarray)
    }
    stats = turn_switches.failure_stats(rec)
    assert stats["episodes"] == 2 and stats["failed"] == 1
    assert stats["slid"] == 0.0 and "cause" not in stats
    assert stats["at_success"]["slide_median_m"] == 0.012
    assert stats["at_success"]["max_slide_median_m"] == 0.02


def test_episodes_cut_off_by_the_record_are_left_out():
    rec = _episode_record([0.0] * 6, [20.0] * 6)
    rec["ended"][:] = False
    rec["ended"][2] = True  # one episode ends at step 2; the next runs past the record
    assert turn_switches.episode_rows(rec) == [(0, 0, 2)]


def test_the_plain_arm_runs_the_cards_episodes_without_a_supervisor():
    env, task_cfg = turn_switches.plain_env("policies/skills/turn/versions/4", 2)
    try:
        assert env.motor_filters is None  # the arm takes each period's targets itself
        assert task_cfg.episode_steps == 150  # the card's episode_steps, not the 4x budget
        rec = turn_switches.record_labels(env, task_cfg, None, steps=160, seed=5)
    finally:
        env.close()
    # every env ended an episode within the task's 150 steps
    assert rec["ended"][:150].any(axis=0).all()
    assert rec["episodes"] >= 2


def test_around_stats_measure_only_the_way_around_the_cube():
    """Low, not pushing, beside a face the expert does not push: the TCP's distance and the
    pads' gap there (touching: a gap at or under 0); the other steps do not count."""
    dist = np.array([0.045, 0.05, 0.055, 0.06, 0.03, 0.02])[:, None]
    gap = np.array([-0.002, 0.0, 0.004, 0.008, -0.01, -0.02])[:, None]
    rec = {
        "low": np.array([1, 1, 1, 1, 1, 0], dtype=bool)[:, None],
        "pushing": np.array([0, 0, 0, 0, 1, 0], dtype=bool)[:, None],
        "at_face": np.zeros((6, 1), dtype=bool),
        "distance": dist,
        "pad_gap": gap,
    }
    out = turn_switches.around_stats(rec)
    assert out["steps"] == 4 and out["share"] == round(4 / 6, 3)
    assert out["distance_median_m"] == 0.0525
    assert out["pad_gap_median_m"] == 0.002
    assert out["touching"] == 0.5  # -0.002 and 0.0
    rec["at_face"][:] = True
    assert turn_switches.around_stats(rec) == {"steps": 0}
