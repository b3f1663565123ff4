"""Stacking failures classified from a closed-loop trace (synthetic records, no rendering):
each cause is told from the others by the figures that define it, and each env's last,
unfinished episode is left out."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from miles_ros.perception.closed_loop import CUBE, TARGET_CUBE, write_trace
from miles_ros.perception.trace_report import (
    POSE_OFF_M,
    TARGET_MOVED_M,
    classify_failure,
    episode_successes,
    error_by_state,
    held_error_in_hand,
    read_trace,
    release_step,
    summary,
)

REPO = Path(__file__).resolve().parents[2]
SIZE = 0.04
TARGET = (0.5, 0.1, SIZE / 2)
DT = 0.04


def cube(true, published=None, state="seen", age=0.0):
    return {
        "true": list(true),
        "true_yaw": None,
        "published": None
        if published is None
        else {
            "position": list(published),
            "yaw": 0.0,
            "state": state,
            "age": age,
            "std": 0.003,
            "confidence": 1.0,
        },  # fmt: skip
    }


def episode(
    env=0,
    number=0,
    steps=10,
    release_at=6,
    target_true=lambda k: TARGET,
    target_seen=lambda k: TARGET,
    carried_off=0.0,
    success=False,
    grips_to_end=False,
):
    """Records of one stacking episode: the fingers grip from step 2 to ``release_at``
    (to the end with ``grips_to_end``), the carried cube is set on the target's believed
    top at the release; ``target_true(k)`` / ``target_seen(k)`` the target's true and
    published centres at step k; ``carried_off``: the carried cube's published pose off
    its truth along x (m)."""
    out = []
    for k in range(steps):
        gripping = 2 <= k and (grips_to_end or k <= release_at)
        target = target_true(k)
        carried = (target_seen(k)[0], target_seen(k)[1], target_seen(k)[2] + SIZE)
        published = (carried[0] + carried_off, carried[1], carried[2])
        out.append(
            {
                "env": env,
                "episode": number,
                "step": k,
                "time": k * DT,
                "success": success and k == steps - 1,
                "goal": [target[0], target[1], target[2] + SIZE],
                "tcp": list(carried),
                "fingers": list(carried),
                "finger_width": SIZE if gripping else 0.08,
                "gripping": gripping,
                "closed_empty": False,
                "cubes": {
                    CUBE: cube(carried, published, "held" if gripping else "seen"),
                    TARGET_CUBE: cube(target, target_seen(k), "occluded", age=0.5),
                },
            }
        )
    return out


def shifted(dx):
    return lambda k: (TARGET[0] + dx, TARGET[1], TARGET[2])


def test_the_release_is_the_last_gripping_period_before_the_fingers_open():
    assert release_step(episode(release_at=6)) == 6
    assert release_step(episode(grips_to_end=True)) is None
    assert release_step(episode(release_at=-1)) is None  # never gripped


def test_fingers_gripping_at_the_end_are_never_released():
    failure = classify_failure(episode(grips_to_end=True, target_true=shifted(0.03)))
    assert failure.cause == "never_released"  # first, whatever else went wrong
    assert failure.release_step is None


def test_a_target_that_really_moved_before_the_release_was_bumped():
    moved = 2 * TARGET_MOVED_M
    bumped = episode(target_true=lambda k: TARGET if k < 4 else shifted(moved)(k))
    failure = classify_failure(bumped)
    assert failure.cause == "target_bumped"
    assert failure.target_moved_m == pytest.approx(moved)
    # the same move after the release is not what set the cube down off the target
    late = episode(target_true=lambda k: TARGET if k < 8 else shifted(moved)(k))
    assert classify_failure(late).cause == "other"


def test_a_target_published_off_while_it_stood_still_was_misperceived():
    off = 2 * POSE_OFF_M
    failure = classify_failure(episode(target_seen=shifted(off)))
    assert failure.cause == "target_misperceived"
    assert failure.target_error_m == pytest.approx(off)
    assert failure.target_state == "occluded" and failure.target_age_s == 0.5
    assert failure.placed_error_m == pytest.approx(off)  # set down where it was believed
    # within the bound it is not the cause
    assert classify_failure(episode(target_seen=shifted(POSE_OFF_M / 2))).cause == "other"


def test_a_carried_cube_published_off_at_the_release_is_the_held_pose():
    off = 2 * POSE_OFF_M
    failure = classify_failure(episode(carried_off=off))
    assert failure.cause == "carried_pose_off"
    assert failure.carried_error_m == pytest.approx(off) and failure.carried_state == "held"


def test_the_goal_drift_is_the_published_target_moving_over_the_last_second():
    jumps = lambda k: TARGET if k < 8 else shifted(0.03)(k)  # noqa: E731
    failure = classify_failure(episode(target_seen=jumps, grips_to_end=True))
    assert failure.goal_drift_m == pytest.approx(0.03)
    assert classify_failure(episode(grips_to_end=True)).goal_drift_m == 0.0


def test_a_summary_counts_finished_episodes_and_reads_back_from_a_file(tmp_path):
    records = [
        *episode(0, 0, success=True),
        *episode(0, 1, target_seen=shifted(0.03)),
        *episode(0, 2, grips_to_end=True),
        *episode(0, 3, steps=3),  # the autoreset's: unfinished, left out
        *episode(1, 0, carried_off=0.03),
        *episode(1, 1, steps=1),
    ]
    path = tmp_path / "trace.jsonl"
    write_trace(records, path)
    report = summary(read_trace(path))
    assert report["episodes"] == 4 and report["successes"] == 1
    assert report["causes"] == {
        "never_released": 1,
        "target_bumped": 0,
        "target_misperceived": 1,
        "carried_pose_off": 1,
        "other": 0,
    }
    assert [(f["env"], f["episode"]) for f in report["failures"]] == [(0, 1), (0, 2), (1, 0)]
    printed = subprocess.run(
        [sys.executable, str(REPO / "bench" / "stack_failures.py"), str(path), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(printed.stdout) == json.loads(json.dumps(report))


def test_two_traces_pair_on_the_episodes_both_finished(tmp_path):
    verdicts_a = [True, True, False, False, True]
    verdicts_b = [True, False, True, True, True, False]  # one more: a longer run's
    paths = []
    for name, verdicts in (("a", verdicts_a), ("b", verdicts_b)):
        records = [r for n, ok in enumerate(verdicts) for r in episode(0, n, success=ok)]
        records += episode(0, len(verdicts), steps=2)  # the autoreset's: unfinished
        paths.append(tmp_path / f"{name}.jsonl")
        write_trace(records, paths[-1])
    assert episode_successes(read_trace(paths[0])) == {
        (0, n): ok for n, ok in enumerate(verdicts_a)
    }

    def paired(*extra):
        argv = [sys.executable, str(REPO / "bench" / "stack_failures.py"), str(paths[1])]
        argv += ["--against", str(paths[0]), *extra]
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    every = paired()
    assert every["episodes"] == 5 and every["successes"] == 4
    assert every["successes_against"] == 3
    assert every["only_trace"] == [2, 3] and every["only_against"] == [1]
    assert every["mcnemar_p"] == 1.0  # 2 against 1 of 3 discordant: 2 * 4/8, capped
    first = paired("--episodes", "2")
    assert first["episodes"] == 2 and first["only_against"] == [1] and first["only_trace"] == []
    assert first["mcnemar_p"] == 1.0


def test_the_targets_error_is_counted_by_its_published_state():
    records = episode(target_seen=lambda k: (TARGET[0] + 0.001 * k, TARGET[1], TARGET[2]))
    records[0]["cubes"][TARGET_CUBE]["published"] = None
    for rec in records[1:4]:
        rec["cubes"][TARGET_CUBE]["published"]["state"] = "seen"
    by_state = error_by_state(records, TARGET_CUBE)
    assert by_state["missing"] == {"share": 0.1}
    assert by_state["seen"]["share"] == 0.3 and by_state["occluded"]["share"] == 0.6
    assert by_state["seen"]["p50"] == pytest.approx(0.002)  # steps 1-3: 1, 2, 3 mm off
    p95 = np.percentile(range(4, 10), 95) / 1000  # rounded to 0.1 mm
    assert by_state["occluded"]["p95"] == pytest.approx(p95, abs=1e-4)


def test_the_held_error_is_read_along_the_hands_axes():
    """The carried cube published 6 mm off along the scene's y; the hand turned a quarter
    about z (across the fingers along the scene's y, closing along -x, approach down): the
    error is across the fingers, the other axes none; periods not held are left out, and
    a trace without the hand's axes has no such figure."""
    records = episode(carried_off=0.0)
    assert held_error_in_hand(records) is None  # no hand_axes recorded
    for rec in records:
        published = rec["cubes"][CUBE]["published"]
        published["position"][1] += 0.006
        rec["hand_axes"] = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, -1.0]]
    held = held_error_in_hand(records)
    assert held["periods"] == 5  # steps 2-6 grip
    assert held["across"] == {"bias": 0.006, "p50": 0.006, "p95": 0.006}
    for axis in ("closing", "approach"):
        assert held[axis] == {"bias": 0.0, "p50": 0.0, "p95": 0.0}
    records[3]["cubes"][CUBE]["published"]["position"][0] -= 0.01  # 1 cm along -x: closing
    held = held_error_in_hand(records)
    assert held["closing"]["p95"] == pytest.approx(0.01 * 0.8, abs=1e-4)  # 1 of 5 periods
    assert held["closing"]["bias"] == 0.0 and held["across"]["p50"] == 0.006
