"""Task terms (reach, push, pick_place): layouts, samplers, and reward/success against
hand-worked cases. Pure numpy; no backend."""

import math

import numpy as np
import pytest

from sims.robots import panda
from sims.tasks import pick_place, push, reach
from sims.tasks.base import SimState

TASKS = {"reach": reach, "push": push, "pick_place": pick_place}


def make_state(n=2, tcp=None, obj=None, goal=None, yaw=None, width=None, q=None):
    """A SimState with zeros except what is given (broadcast to n rows)."""

    def rows(value, size):
        if value is None:
            return np.zeros((n, size))
        return np.array(np.broadcast_to(np.asarray(value, dtype=float), (n, size)))

    return SimState(
        joint_pos=rows(q, 7),
        joint_vel=np.zeros((n, 7)),
        tcp_pos=rows(tcp, 3),
        finger_width=np.zeros(n) if width is None else np.asarray(width, dtype=float),
        object_pos=rows(obj, 3),
        object_yaw=np.zeros(n) if yaw is None else np.asarray(yaw, dtype=float),
        goal_pos=rows(goal, 3),
    )


@pytest.mark.parametrize(
    "name, dim, action_dim, mode, steps",
    [
        ("reach", 23, 7, "joint", 50),
        ("push", 31, 3, "cartesian", 100),
        ("pick_place", 32, 4, "cartesian", 75),
    ],
)
def test_contract_dimensions(name, dim, action_dim, mode, steps):
    task = TASKS[name]
    assert task.CONFIG.name == name
    assert task.LAYOUT.dim == dim
    assert task.CONFIG.action_dim == action_dim
    assert task.CONFIG.action_mode == mode
    assert task.CONFIG.episode_steps == steps
    assert task.CONFIG.control_dt == pytest.approx(0.04)
    obs = task.observe(make_state(3))
    assert obs.shape == (3, dim) and obs.dtype == np.float32


def test_object_layouts_follow_the_contract_order():
    assert [f[0] for f in push.LAYOUT.fields] == [
        "joint_pos",
        "joint_vel",
        "tcp_pos",
        "object_pos",
        "object_yaw_sincos",
        "object_rel_tcp",
        "goal_pos",
        "goal_rel_object",
    ]
    names = [f[0] for f in pick_place.LAYOUT.fields]
    assert names[3] == "finger_width" and pick_place.LAYOUT.slices["finger_width"] == slice(17, 18)
    assert pick_place.LAYOUT.slices["goal_rel_object"] == slice(29, 32)


def test_push_observation_fields_by_hand():
    state = make_state(
        1, tcp=[0.3, 0.1, 0.2], obj=[0.4, -0.1, 0.02], goal=[0.5, 0.0, 0.02], yaw=[math.pi / 8]
    )
    obs = push.observe(state)[0]
    sl = push.LAYOUT.slices
    np.testing.assert_allclose(obs[sl["object_rel_tcp"]], [0.1, -0.2, -0.18], atol=1e-7)
    np.testing.assert_allclose(obs[sl["goal_rel_object"]], [0.1, 0.1, 0.0], atol=1e-7)
    np.testing.assert_allclose(obs[sl["object_yaw_sincos"]], [1.0, 0.0], atol=1e-7)  # 4 * 22.5
    # a cube looks the same every 90 degrees
    turned = push.observe(state._replace(object_yaw=np.array([math.pi / 8 + math.pi / 2])))
    np.testing.assert_allclose(turned, obs[None], atol=1e-6)
    width = pick_place.observe(state._replace(finger_width=np.array([0.03])))[0]
    assert width[17] == pytest.approx(0.03)
    np.testing.assert_allclose(width[18:21], [0.4, -0.1, 0.02], atol=1e-7)


def test_reach_reward_and_success_by_hand():
    # distances 0.03 (3-4-5 triangle scaled) and 0.1
    state = make_state(
        tcp=[[0.4, 0.0, 0.2], [0.4, 0.0, 0.2]], goal=[[0.418, 0.024, 0.2], [0.4, 0.0, 0.3]]
    )
    np.testing.assert_allclose(reach.reward(state), [-0.03, -0.1], atol=1e-12)
    np.testing.assert_array_equal(reach.reward(state, dense=False), [0.0, -1.0])
    np.testing.assert_array_equal(reach.success(state), [True, False])


def test_push_reward_and_success_by_hand():
    # env 0: cube 0.03 from the goal, TCP 0.1 above the cube; env 1: 0.1 away (6-8-10)
    state = make_state(
        obj=[[0.40, 0.0, 0.02], [0.40, 0.0, 0.02]],
        goal=[[0.43, 0.0, 0.02], [0.46, 0.08, 0.02]],
        tcp=[[0.40, 0.0, 0.12], [0.40, 0.0, 0.12]],
    )
    np.testing.assert_allclose(push.reward(state), [-0.03 - 0.05, -0.1 - 0.05], atol=1e-12)
    np.testing.assert_array_equal(push.reward(state, dense=False), [0.0, -1.0])
    np.testing.assert_array_equal(push.success(state), [True, False])


def test_push_success_is_planar_and_pick_place_is_3d():
    # the cube is lifted 0.08 above a goal directly below it
    state = make_state(1, obj=[0.5, 0.1, 0.10], goal=[0.5, 0.1, 0.02], tcp=[0.5, 0.1, 0.10])
    assert push.success(state)[0]
    assert not pick_place.success(state)[0]
    assert pick_place.reward(state)[0] == pytest.approx(-0.08)
    assert pick_place.reward(state, dense=False)[0] == -1.0
    # 0.03 in the air from the goal
    air = make_state(1, obj=[0.5, 0.1, 0.10], goal=[0.5, 0.1, 0.13], tcp=[0.5, 0.1, 0.10])
    assert pick_place.success(air)[0]
    assert pick_place.reward(air, dense=False)[0] == 0.0


def test_success_threshold_is_strict():
    state = make_state(1, tcp=[0.0, 0.0, 0.0], goal=[0.0, 0.0, 0.05 + 1e-9])
    assert not reach.success(state)[0]
    state = make_state(1, tcp=[0.0, 0.0, 0.0], goal=[0.0, 0.0, 0.05 - 1e-9])
    assert reach.success(state)[0]


@pytest.mark.parametrize("task", [push, pick_place])
def test_object_and_goal_samplers_stay_in_their_areas(task):
    rng = np.random.default_rng(0)
    n = 4000
    q, pos, yaw, goal = task.sample_reset(rng, n)
    noise = task.CONFIG.randomization.initial_joint_noise
    assert np.all(np.abs(q - panda.home_joint_positions) <= noise + 1e-12)
    assert np.all((q >= panda.joint_position_min) & (q <= panda.joint_position_max))
    assert np.all((pos[:, :2] >= push.OBJECT_XY_LOW) & (pos[:, :2] <= push.OBJECT_XY_HIGH))
    np.testing.assert_allclose(pos[:, 2], push.CUBE_REST_Z)
    assert np.all(np.abs(yaw) <= math.pi / 4)
    assert np.all((goal[:, :2] >= push.GOAL_XY_LOW) & (goal[:, :2] <= push.GOAL_XY_HIGH))
    dist = np.linalg.norm(goal[:, :2] - pos[:, :2], axis=1)
    lo, hi = push.GOAL_DISTANCE_RANGE
    assert np.mean((dist >= lo - 1e-9) & (dist <= hi + 1e-9)) > 0.999  # clipped fallback only
    assert dist.min() > 0.05  # never starts solved
    if task is push:
        np.testing.assert_allclose(goal[:, 2], push.CUBE_REST_Z)
    else:
        air = goal[:, 2] > push.CUBE_REST_Z + 1e-9
        assert 0.45 < air.mean() < 0.55
        assert goal[:, 2].max() <= pick_place.GOAL_Z_RANGE[1]
        assert goal[:, 2].min() >= push.CUBE_REST_Z


def test_samplers_are_deterministic_given_the_generator():
    a = pick_place.sample_reset(np.random.default_rng(7), 10)
    b = pick_place.sample_reset(np.random.default_rng(7), 10)
    c = pick_place.sample_reset(np.random.default_rng(8), 10)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[3], c[3])


def test_goal_without_object_is_uniform_in_the_goal_area():
    goal = push.sample_goal(np.random.default_rng(1), 500)
    assert np.all((goal[:, :2] >= push.GOAL_XY_LOW) & (goal[:, :2] <= push.GOAL_XY_HIGH))
    np.testing.assert_allclose(goal[:, 2], push.CUBE_REST_Z)
