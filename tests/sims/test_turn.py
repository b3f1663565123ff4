"""The turn task (sims/tasks/turn.py): its yaw-error, success and reward maths, its episodes
(in place, a target yaw 15-45 deg away), the target yaw carried through the numba kernels,
PyBullet and numba's CUDA simulator, and its place in the registry."""

import math
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims import make_env
from sims.kernels import layout as L
from sims.kernels.contact import wrap_quarter
from sims.tasks import push, registry, turn
from sims.tasks.base import SimState
from tests.cudasim import run_script

QUARTER = 0.5 * math.pi
TOL = math.radians(turn.TURN_TOLERANCE_DEG)


def _state(yaw, goal_yaw, drift_xy=(0.0, 0.0), tcp=(0.3, 0.0, 0.3)) -> SimState:
    """One env: the cube at (0.5, 0, rest) with ``yaw``, the goal ``drift_xy`` behind it."""
    cube = np.array([[0.5, 0.0, turn.CUBE_REST_Z]])
    goal = cube.copy()
    goal[0, :2] -= drift_xy
    return SimState(
        joint_pos=np.zeros((1, 7)),
        joint_vel=np.zeros((1, 7)),
        tcp_pos=np.array([tcp], dtype=float),
        finger_width=np.zeros(1),
        object_pos=cube,
        object_yaw=np.array([yaw], dtype=float),
        goal_pos=goal,
        goal_yaw=np.array([goal_yaw], dtype=float),
    )


def test_turn_is_a_builtin_task_with_a_yaw_goal():
    assert "turn" in registry.BUILTIN_TASKS
    assert registry.get("turn") is turn
    assert registry.has_goal_yaw(turn)
    assert not any(registry.has_goal_yaw(registry.get(t)) for t in ("reach", "push", "pick_place"))
    assert turn.LAYOUT.dim == 33 and turn.CONFIG.action_dim == 3
    assert turn.TURN_MIN_DEG >= 3 * turn.TURN_TOLERANCE_DEG


@settings(max_examples=200, deadline=None)
@given(st.floats(-20.0, 20.0, allow_nan=False))
def test_quarter_wrap_is_the_kernel_wrap_into_plus_minus_45_deg(angle):
    wrapped = float(turn.quarter_wrap(np.array([angle]))[0])
    assert -QUARTER / 2 - 1e-12 <= wrapped < QUARTER / 2 + 1e-12
    turns = (angle - wrapped) / QUARTER  # a whole number of quarter turns apart
    assert abs(turns - round(turns)) < 1e-9
    assert wrapped == pytest.approx(wrap_quarter(angle), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    yaw=st.floats(-4.0, 4.0),
    error_deg=st.floats(-44.0, 44.0),
    quarters=st.integers(-3, 3),
    drift=st.floats(0.0, 0.06),
    heading=st.floats(-math.pi, math.pi),
)
def test_success_needs_the_yaw_within_5_deg_modulo_90_and_the_cube_in_place(
    yaw, error_deg, quarters, drift, heading
):
    # away from both bounds, so the float arithmetic decides nothing
    if abs(abs(error_deg) - turn.TURN_TOLERANCE_DEG) < 1e-6:
        return
    if abs(drift - turn.TURN_XY_TOLERANCE) < 1e-9:
        return
    goal_yaw = yaw + math.radians(error_deg) + quarters * QUARTER
    offset = drift * np.array([math.cos(heading), math.sin(heading)])
    state = _state(yaw, goal_yaw, offset)
    want = abs(error_deg) <= turn.TURN_TOLERANCE_DEG and drift <= turn.TURN_XY_TOLERANCE
    assert bool(turn.success(state)[0]) == want
    terms = turn.reward_terms(state)
    assert terms["yaw_error"][0] == pytest.approx(math.radians(abs(error_deg)), abs=1e-9)
    assert terms["drift"][0] == pytest.approx(drift, abs=1e-12)
    assert terms["unsolved"][0] == (0.0 if want else 1.0)
    # the observation's yaw error reads the same turn, modulo 90 deg
    obs = turn.observe(state)[0, turn.LAYOUT.slices["yaw_error_sincos"]]
    assert math.atan2(obs[0], obs[1]) / 4 == pytest.approx(math.radians(error_deg), abs=1e-6)


def test_a_state_without_a_yaw_goal_has_nothing_to_turn():
    state = _state(0.3, 0.0)._replace(goal_yaw=None)
    assert turn.yaw_error(state)[0] == 0.0 and turn.success(state)[0]
    sincos = turn.observe(state)[0, turn.LAYOUT.slices["yaw_error_sincos"]]
    np.testing.assert_allclose(sincos, [0.0, 1.0])


def test_dense_reward_falls_with_the_yaw_error_and_the_drift():
    near = turn.reward(_state(0.0, 0.05))
    far = turn.reward(_state(0.0, 0.5))
    drifted = turn.reward(_state(0.0, 0.05, (0.02, 0.0)))
    assert near[0] > far[0] and near[0] > drifted[0]
    assert set(np.unique(turn.reward(_state(0.0, 0.5), dense=False))) == {-1.0}
    assert turn.reward(_state(0.0, 0.01), dense=False)[0] == 0.0


def test_sample_reset_keeps_the_goal_in_place_and_asks_for_a_real_turn():
    rng = np.random.default_rng(0)
    q, pos, yaw, goal, goal_yaw = turn.sample_reset(rng, 2000)
    assert q.shape == (2000, 7)
    np.testing.assert_array_equal(goal[:, :2], pos[:, :2])
    np.testing.assert_array_equal(goal[:, 2], turn.CUBE_REST_Z)
    low, high = push.object_area(turn.CONFIG)
    assert np.all((pos[:, :2] >= low) & (pos[:, :2] <= high))
    amount = np.degrees(goal_yaw - yaw)
    assert np.all(np.abs(amount) >= turn.TURN_MIN_DEG) and np.all(np.abs(amount) <= 45.0)
    assert 0.4 < np.mean(amount > 0) < 0.6  # both ways


def test_numba_kernels_draw_in_place_turn_episodes_and_keep_the_target_yaw():
    env = make_env("turn", "numba", 256, seed=3)
    env.reset(seed=5)
    state = env.get_state()
    np.testing.assert_array_equal(state.goal_pos[:, :2], state.object_pos[:, :2])
    amount = np.degrees(state.goal_yaw - state.object_yaw)
    assert np.all(np.abs(amount) >= turn.TURN_MIN_DEG) and np.all(np.abs(amount) <= 45.0)
    assert 0.3 < np.mean(amount > 0) < 0.7
    goal_yaw = state.goal_yaw.copy()
    env.step(np.zeros((256, 3)))
    np.testing.assert_array_equal(env.get_state().goal_yaw, goal_yaw)
    # set_state writes the target yaw; the observation's yaw error follows it
    obs = env.set_state(goal_yaw=state.object_yaw + 0.1)
    sincos = obs[:, turn.LAYOUT.slices["yaw_error_sincos"]]
    np.testing.assert_allclose(np.arctan2(sincos[:, 0], sincos[:, 1]) / 4, 0.1, atol=1e-6)
    np.testing.assert_array_equal(env._st[:, L.S_GOAL_YAW], env.get_state().goal_yaw)


def test_pybullet_carries_the_target_yaw_into_its_state():
    env = make_env("turn", "pybullet", 2, seed=0, num_workers=0)
    try:
        obs, _ = env.reset(seed=1)
        state = env.get_state()
        assert state.goal_yaw is not None and state.goal_yaw.shape == (2,)
        np.testing.assert_allclose(state.goal_pos[:, :2], state.object_pos[:, :2], atol=1e-4)
        amount = np.degrees(state.goal_yaw - state.object_yaw)
        assert np.all(np.abs(amount) >= turn.TURN_MIN_DEG - 0.1)
        np.testing.assert_array_equal(obs, turn.observe(state))
        env.set_goal(state.goal_pos, goal_yaw=state.object_yaw)  # nothing left to turn
        _, _, terminated, _, info = env.step(np.zeros((2, 3)))
        assert info["success"].all() and terminated.all()
    finally:
        env.close()
    push_env = make_env("push", "pybullet", 1, seed=0, num_workers=0)
    try:
        push_env.reset(seed=0)
        assert push_env.get_state().goal_yaw is None
        with pytest.raises(ValueError, match="no yaw goal"):
            push_env.set_goal([0.5, 0.0, 0.02], goal_yaw=0.0)
    finally:
        push_env.close()


CUDASIM = textwrap.dedent(
    """
    import warnings
    import numpy as np
    warnings.simplefilter("ignore")
    from numba import config
    assert config.ENABLE_CUDASIM
    from sims import make_env
    from sims.kernels import layout as L
    from tests.cudasim import assert_steps_alike
    cpu = make_env("turn", "numba", 4, seed=9)
    gpu = make_env("turn", "numba", 4, seed=9, device="cuda")
    a, _ = cpu.reset(seed=2)
    b, _ = gpu.reset(seed=2)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(gpu.state(), cpu._st)
    assert np.all(cpu._st[:, L.S_GOAL_YAW] != cpu._st[:, L.S_YAW])
    assert_steps_alike(cpu, gpu, 6)
    print("ok")
    """
)


def test_turn_steps_alike_in_the_cuda_simulator_and_the_cpu_kernels():
    assert run_script(CUDASIM).stdout.strip().endswith("ok")
