"""The scripted home move's path (miles_ros.runtime.homing): from an arm left low and far
forward by a skill that timed out, the straight joint-space line to home swings the TCP
through the table, which the supervisor refuses to follow; the path lifts first."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.runtime.homing import home_path, path_duration, path_target, segment_min_height
from sims.robots import panda

# Arm poses measured in the live graph after `reach [5, 5, 5]` then `reach red_cube` (the
# wedge sequence of tests/nodes/test_skill_node.py); joints 6-7 pinned near their limits.
WEDGED = [
    [-1.292, 1.456, 0.843, -2.162, -0.648, 3.70, 2.80],
    [-0.964, 1.374, 0.768, -2.270, -1.004, 3.70, 2.80],
]
HOME = panda.home_joint_positions


def lowest(path):
    return min(segment_min_height(a, b) for a, b in zip(path[:-1], path[1:], strict=True))


def test_from_a_wedged_arm_the_line_dips_below_the_table_and_the_path_does_not():
    for q in map(np.array, WEDGED):
        z0 = float(panda.fk_tcp(q)[2])
        assert segment_min_height(q, HOME) < -0.005  # what the supervisor refused
        path = home_path(q)
        assert len(path) > 2
        np.testing.assert_allclose(path[0], q)
        np.testing.assert_allclose(path[-1], HOME)
        assert lowest(path) >= min(0.05, z0) - 1e-6
        # The first segments go up: a Cartesian lift from the start.
        assert panda.fk_tcp(path[1])[2] > z0


def test_from_a_clear_pose_the_path_is_the_straight_line():
    q = HOME + np.array([0.4, 0.2, -0.1, 0.3, 0.0, -0.2, 0.1])
    path = home_path(q)
    assert path.shape == (2, 7)
    np.testing.assert_allclose(path[1], HOME)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=7, max_size=7),
    st.floats(0.1, 2.0),
    st.floats(0.01, 0.1),
)
def test_the_move_is_continuous_at_the_speed_and_ends_home(unit, speed, dt):
    q = panda.joint_position_min + np.array(unit) * (
        panda.joint_position_max - panda.joint_position_min
    )
    path = home_path(q)
    total = path_duration(path, speed)
    times = np.arange(0.0, total + 2 * dt, dt)
    targets = np.stack([path_target(path, speed, t) for t in times])
    np.testing.assert_allclose(
        targets[0], np.clip(q, panda.joint_position_min, panda.joint_position_max)
    )
    np.testing.assert_allclose(targets[-1], HOME)
    steps = np.max(np.abs(np.diff(targets, axis=0)), axis=1)
    assert np.all(steps <= speed * dt + 1e-9)
    assert np.all(targets >= panda.joint_position_min) and np.all(
        targets <= panda.joint_position_max
    )
