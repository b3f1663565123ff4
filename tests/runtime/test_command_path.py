"""A learned skill's command path in the skill runtime (miles_ros.runtime.command_path) and
the home move's opening brake: what skill_node publishes is a trajectory the arm can
follow (positions with velocities), starting from the robot's command."""

import numpy as np
import pytest

from miles_ros.runtime.command_path import (
    LIMIT_MARGIN,
    SYNC_TOLERANCE,
    CommandPath,
)
from miles_ros.runtime.homing import home_point
from miles_ros.runtime.observation import JointReading
from sims.robots import panda
from tests.runtime.skill_fixtures import make_executor
from tests.runtime.test_skill_executor import request

HOME = panda.home_joint_positions
DT = 0.04


def test_a_far_target_becomes_a_point_the_arm_can_reach_in_one_period():
    path = CommandPath(DT, velocity_scale=0.5)
    path.sync(HOME, np.zeros(7))
    target = HOME + 0.3  # far beyond one period of any joint from rest
    q, v = path.step(target)
    assert path.shaped == 1 and path.periods == 1
    accel = np.asarray(path.model.acceleration_limits)
    assert np.all(np.abs(v) <= accel * DT + 1e-9)  # from rest: at most A T of speed...
    h = 1.0 / path.model.rate_hz  # ...and A T (T + h) / 2 of way (at the controller rate)
    assert np.all(np.abs(q - HOME) <= 0.5 * accel * DT * (DT + h) + 1e-9)
    assert np.all(np.sign(q - HOME) == 1.0)
    for _ in range(100):  # on to the target, never faster than the scaled limits
        q, v = path.step(target)
        assert np.all(np.abs(v) <= 0.5 * panda.joint_velocity_limits + 1e-9)
    assert np.max(np.abs(q - target)) < 1e-6 and path.shaped < path.periods
    near = q + 1e-4  # reachable within the period: met exactly, not counted as shaped
    shaped = path.shaped
    q, _ = path.step(near)
    assert np.max(np.abs(q - near)) < 1e-9 and path.shaped == shaped
    assert path.model.acceleration_limits == pytest.approx(
        tuple(LIMIT_MARGIN * a for a in panda.joint_acceleration_limits)
    )


def test_the_model_follows_the_robots_command_when_they_part():
    path = CommandPath(DT)
    assert path.follow(HOME, np.zeros(7))  # not started: starts there
    path.step(HOME + 0.2)
    q = path.state[0, :7].copy()
    assert not path.follow(q + 0.5 * SYNC_TOLERANCE, np.zeros(7)) and path.resyncs == 0
    held = HOME - 0.05  # the supervisor held the arm back
    assert path.follow(held, np.zeros(7)) and path.resyncs == 1
    assert np.array_equal(path.state[0, :7], held)
    with pytest.raises(ValueError, match="velocity_scale"):
        CommandPath(DT, velocity_scale=0.0)
    with pytest.raises(RuntimeError):
        CommandPath(DT).step(HOME)


def test_a_learned_skill_publishes_trajectory_points_unless_told_not_to(library_dir):  # noqa: F811
    ex = make_executor(library_dir)
    ex.on_command(HOME, 0.0)
    ex.on_request(request("r", "reach", target="red_cube"), 0.0)
    tick = ex.tick(0.0)
    assert tick.targets.velocity is not None
    limit = panda.joint_velocity_limits * ex.command_velocity_scale
    assert np.all(np.abs(tick.targets.velocity) <= limit + 1e-9)
    ex = make_executor(library_dir, shape_commands=False)
    ex.on_request(request("r", "reach", target="red_cube"), 0.0)
    assert ex.tick(0.0).targets.velocity is None


def test_home_brakes_a_moving_command_before_its_path(library_dir):  # noqa: F811
    """A skill that ended at speed leaves the command moving: home's first points go on in
    that direction, slowing down, and only then turn toward home."""
    away = HOME + np.array([0.3, 0.2, 0.0, 0.2, 0.0, 0.0, 0.0])
    ex = make_executor(library_dir, q=away)
    moving = np.array([0.0, 0.8, 0.0, 0.0, 0.0, 0.0, 0.0])  # joint 2 away from home
    ex.on_command(away - moving * 0.004, 0.996)
    ex.on_command(away, 1.0)
    ex.on_joint_state(JointReading(away, moving, 0.0, 0.0), 1.0)
    ex.on_request(request("h", "home"), 1.0)
    speeds, positions = [], []
    for k in range(12):
        now = 1.0 + 0.04 * k
        tick = ex.tick(now)
        positions.append(tick.targets.arm[1])
        speeds.append(tick.targets.velocity[1])
        ex.on_command(tick.targets.arm, now + 0.04)  # the supervisor on its trajectory
    assert positions[0] > away[1] and speeds[0] > 0.0  # on in the direction of motion
    assert speeds[0] < moving[1]  # slowing down
    assert min(speeds) < 0.0  # then back toward home
    turn = int(np.argmax(np.array(speeds) <= 0.0))
    assert np.all(np.diff(speeds[: turn + 1]) < 0.0)
    # a command at rest: no brake, the path starts at the measured pose
    ex = make_executor(library_dir, q=away)
    ex.on_command(away, 0.996)
    ex.on_command(away, 1.0)
    ex.on_joint_state(JointReading(away, np.zeros(7), 0.0, 0.0), 1.0)
    ex.on_request(request("h", "home"), 1.0)
    tick = ex.tick(1.0)
    assert ex.active.brake is None and tick.targets.velocity[1] < 0.0


def test_home_plans_again_from_a_command_that_fell_behind(library_dir):  # noqa: F811
    """The supervisor held the arm (or the node got no CPU): home's path went on without
    it. Once the command is further than HOME_REPLAN_TOLERANCE from the path, home plans
    again from the command instead of asking the supervisor to catch up at its limits."""
    away = HOME + np.array([0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    still = np.zeros(7)
    ex = make_executor(library_dir, q=away)
    ex.on_command(away, 0.996)
    ex.on_command(away, 1.0)
    ex.on_joint_state(JointReading(away, still, 0.0, 0.0), 1.0)
    ex.on_request(request("h", "home"), 1.0)
    ex.tick(1.0)
    run = ex.active
    planned = home_point(run.brake, run.path, ex.home_speed, 0.1)[0]  # the path 0.1 s in
    ex.on_command(planned, 1.1)  # the command on the path: nothing to do
    ex.on_joint_state(JointReading(planned, still, 0.0, 0.0), 1.1)
    ex.tick(1.1)
    assert run.path_started == 1.0
    for t in (1.496, 1.5):  # held where it was for 0.4 s
        ex.on_command(planned, t)
    ex.on_joint_state(JointReading(planned, still, 0.0, 0.0), 1.5)
    tick = ex.tick(1.5)
    assert run.path_started == 1.5 and np.allclose(run.path[0], planned)
    step = tick.targets.arm - planned
    assert 0.0 > step[0] > -0.01  # a fresh start from rest, toward home
