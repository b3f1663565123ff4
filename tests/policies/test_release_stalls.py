"""bench/release_stalls.py: which steps hold the cube where pick_place's expert would release
it, and the per-skill summary of stalled episodes."""

import numpy as np

from bench import release_stalls
from policies.experts import pick_place as expert
from sims.tasks import pick_place
from tests.policies.expert_envs import cube_observations

THIRD = pick_place.level_height(3)


def _obs(cube_z: float, width: float) -> np.ndarray:
    """One observation: the cube held at ``cube_z`` (m) over a third-level goal at its xy,
    the fingers reading ``width`` (m), the arm still."""
    cube = np.array([0.5, 0.0, cube_z])
    goal = np.array([0.5, 0.0, THIRD])
    return cube_observations(pick_place, cube + [0.0, 0.0, 0.008], cube, goal, width)


def _holding(cube_z: float, width: float) -> bool:
    obs = _obs(cube_z, width)
    return bool(release_stalls.holding_under_release(obs, expert.act(obs))[0])


def test_a_held_cube_inside_the_release_box_holds_under_a_release_label():
    assert _holding(THIRD + 0.004, 0.045)


def test_a_cube_above_the_box_open_fingers_or_a_cube_on_the_table_do_not():
    assert not _holding(THIRD + 0.02, 0.045)  # still coming down: the label closes
    assert not _holding(THIRD + 0.004, expert.OPEN_WIDTH)  # already let go of
    assert not _holding(pick_place.CUBE_REST_Z, 0.045)  # a pads placement on the table


def test_summary_counts_stalled_episodes_and_their_gripper_commands():
    rows = [
        ("success", [0.3] * 18),
        ("held_at_end", [-0.04] * 150),
        ("success", [-0.02] * 60 + [0.5]),
        ("never_grasped", []),
    ]
    out = release_stalls.summary(rows, stall=40)
    counts = (out["episodes"], out["successes"], out["stalled"], out["stalled_failed"])
    assert counts == (4, 2, 2, 1)
    assert out["stalled_failures_by_outcome"] == {"held_at_end": 1}
    assert out["gripper_median_stalled"] == -0.04
    assert out["gripper_median_others"] == 0.3
    assert out["held_steps_median_others"] == 9.0
