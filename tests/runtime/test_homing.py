"""The scripted home move's path (miles_ros.runtime.homing): from an arm left low and far
forward by a skill that timed out, the straight joint-space line to home swings the TCP
through the table, which the supervisor refuses to follow; the path lifts first. From an
arm left behind its base, the line swings the TCP out through the workspace's back wall;
the path moves the joints home in stages that keep inside, and behind the supervisor the
arm arrives home (it never moved before: issue 28)."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.params.skill import SkillNodeParams
from miles_ros.runtime.homing import (
    SUPERVISOR,
    home_path,
    path_clear,
    path_duration,
    path_target,
    segment_min_height,
)
from miles_ros.runtime.observation import JointReading
from miles_ros.safety import SafetyConfig
from miles_ros.safety.supervisor import JointRequest, SafetySupervisor
from sims.robots import panda
from tests.runtime.skill_fixtures import make_executor

# Arm poses measured in the live graph after `reach [5, 5, 5]` then `reach red_cube` (the
# wedge sequence of tests/nodes/test_skill_node.py); joints 6-7 pinned near their limits.
WEDGED = [
    [-1.292, 1.456, 0.843, -2.162, -0.648, 3.70, 2.80],
    [-0.964, 1.374, 0.768, -2.270, -1.004, 3.70, 2.80],
]
BEHIND = [1.4747, -0.8350, 2.4844, -0.4112, 2.4891, 3.4207, -0.3033]
"""Measured in the live graph after the same sequence (issue 28): the TCP 5 mm inside the
workspace's back wall (x -0.345 m), where home never moved."""
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


def home_behind_the_supervisor(library_dir, start, seconds: float = 40.0):
    """``home`` from ``start`` through the skill executor and the safety supervisor as the
    graph runs them (targets at the skill's 25 Hz, the supervisor at 250 Hz), on an arm
    that follows every command: (final status or None, the arm's last pose)."""
    config, prm = SafetyConfig(), SkillNodeParams()
    ex = make_executor(library_dir, q=np.array(start, dtype=float))
    sup = SafetySupervisor(config)
    q, v = np.array(start, dtype=float), np.zeros(7)
    sup.update_robot_state(config.joint_names, q, v, 0.0)
    ex.on_request(json.dumps({"id": "h", "skill": "home", "params": {}}), 0.0)
    for k in range(round(seconds / 0.004)):
        t = k * 0.004
        if k % 10 == 0:
            tick = ex.tick(t)
            final = [s for s in tick.statuses if s["state"] != "running"]
            if final:
                return final[0], q
            names, positions, velocity = tick.targets.message(
                prm.joint_names, prm.finger_joint_names
            )
            stamp = t + min(tick.lead_s, prm.target_lead_max)
            sup.submit(JointRequest(names, positions, stamp, velocity), t)
        sup.update_robot_state(config.joint_names, q, v, t)
        command = sup.step(t)
        if command is not None:
            q, v = np.asarray(command.positions[:7]), (command.positions[:7] - q) / 0.004
        ex.on_joint_state(JointReading(q.copy(), v.copy(), 0.0, t), t)
        ex.on_command(q.copy(), t)
    return None, q


def test_from_an_arm_behind_its_base_the_line_leaves_the_workspace_and_the_path_does_not():
    q = np.array(BEHIND)
    line = home_path(q, boundaries=None)  # the path before the supervisor's boundaries
    assert line.shape == (2, 7)
    assert SUPERVISOR.clearance(q, line_to=HOME)[0] < -0.3  # out through the back wall
    assert not path_clear(line, 0.05, SUPERVISOR)
    path = home_path(q)
    assert len(path) > 2
    np.testing.assert_allclose(path[0], q)
    np.testing.assert_allclose(path[-1], HOME)
    assert path_clear(path, 0.05, SUPERVISOR)
    # every waypoint but the last leaves some joints where they were: home in stages
    assert all(np.any(w == q) for w in path[1:-1])


@pytest.mark.parametrize("start", [BEHIND, *WEDGED], ids=["behind", "low", "low2"])
def test_home_behind_the_supervisor_arrives_from_a_wedged_arm(tmp_path, start):
    final, q = home_behind_the_supervisor(tmp_path, start)
    assert final is not None and final["state"] == "succeeded", (final, q)
    assert np.max(np.abs(q - HOME)) < 0.05
