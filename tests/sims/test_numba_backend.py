"""The numba backend: kernels against the reference model, observations against the task
terms, gymnasium vector-env behaviour, determinism, bad input, domain randomization, and
scripted controllers that validate the kinematics and the contact model."""

import math
from types import SimpleNamespace

import numba
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_reset_seed_determinism, data_equivalence
from gymnasium.utils.passive_env_checker import check_obs, data_shares_objects

from sims import make_env
from sims.backends.numba_backend import NumbaEnv
from sims.kernels import contact, kinematics, layout
from sims.kernels import rng as counter_rng
from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda
from sims.tasks import pick_place, push, reach, turn
from sims.tasks.base import DomainRandomization, weighted_reward

# the kernels' scalar functions, compiled for the CPU (called from Python they would run
# as plain Python)
nk = SimpleNamespace(
    sincos=numba.njit(kinematics.sincos),
    fk_row=numba.njit(kinematics.fk_row),
    dls_row=numba.njit(kinematics.dls_row),
    episode_key=numba.njit(counter_rng.episode_key),
    uniform01=numba.njit(counter_rng.uniform01),
    normal01=numba.njit(counter_rng.normal01),
    push_cube=numba.njit(contact.push_cube),
    NUM_STATE=layout.NUM_STATE,
    SCRATCH_SHAPE=layout.SCRATCH_SHAPE,
    LIMIT_SURFACE_RATIO=contact.LIMIT_SURFACE_RATIO,
    FINGERTIP_BELOW_TCP=contact.FINGERTIP_BELOW_TCP,
)

TASKS = {"reach": reach, "push": push, "pick_place": pick_place, "turn": turn}
INFO_KEYS = {"success", "final_obs", "_final_obs", "episode_return", "episode_length"}


def random_configs(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(panda.joint_position_min, panda.joint_position_max, size=(n, 7))


def move_toward(env, target):
    """Cartesian action toward ``target`` [N, 3], direction kept when saturating."""
    v = (target - env.get_state().tcp_pos) / env.cfg.cartesian_step_max
    return v / np.maximum(np.abs(v).max(axis=1, keepdims=True), 1.0)


# --- kernels against the reference model ------------------------------------------------
def test_sincos_matches_libm():
    for x in np.linspace(-7.0, 7.0, 2001):
        s, c = nk.sincos(x)
        assert abs(s - math.sin(x)) < 4e-16 and abs(c - math.cos(x)) < 4e-16


def test_inlined_fk_matches_panda_fk():
    q = random_configs(300)
    st = np.zeros((300, nk.NUM_STATE))
    st[:, :7] = q
    scratch = np.empty(nk.SCRATCH_SHAPE)
    for k in range(300):
        tx, ty, tz, fx, fy, fz = nk.fk_row(st, k, scratch)
        pos, rot = panda.fk_tcp_pose(q[k])
        np.testing.assert_allclose([tx, ty, tz], panda.fk_tcp(q[k]), atol=1e-12)
        np.testing.assert_allclose([tx, ty, tz], pos, atol=1e-12)
        np.testing.assert_allclose([fx, fy, fz], rot[:, 1], atol=1e-12)  # finger axis = TCP y


def test_inlined_ik_step_matches_panda_dls():
    q = random_configs(100, seed=1)
    st = np.zeros((100, nk.NUM_STATE))
    st[:, :7] = q
    scratch = np.empty(nk.SCRATCH_SHAPE)
    rng = np.random.default_rng(2)
    for k in range(100):
        d = rng.normal(scale=0.02, size=3)
        nk.dls_row(st, k, d[0], d[1], d[2], 0.05, scratch)
        np.testing.assert_allclose(
            scratch[layout.ROW_DQ, :7], dls_ik_step(q[k], d, 0.05), atol=1e-10
        )


def test_counter_rng_is_uniform_and_keyed():
    key = np.uint64(nk.episode_key(np.uint64(5), 3, 0))  # numba returns a Python int
    u = np.array([nk.uniform01(key, i) for i in range(20000)])
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.003
    assert nk.episode_key(np.uint64(5), 3, 1) != key != nk.episode_key(np.uint64(6), 3, 0)
    z = np.array([nk.normal01(key, i) for i in range(20000)])
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03


# --- contact model ----------------------------------------------------------------------
def test_push_through_the_centre_translates_without_turning():
    # finger (radius 0.011) 0.005 inside the cube's -x face, moving +x
    cx, cy, yaw, hit = nk.push_cube(
        0.5, 0.0, 0.0, 0.5 - 0.02 - 0.006, 0.0, 0.01, 0.0, 0.011, 0.02, 0.5, nk.LIMIT_SURFACE_RATIO
    )
    assert hit
    assert cx == pytest.approx(0.505, abs=1e-9)
    assert cy == pytest.approx(0.0, abs=1e-12) and yaw == pytest.approx(0.0, abs=1e-12)


def test_off_centre_push_turns_the_cube_the_right_way():
    def push(y: float):  # the finger (r 11 mm) 4 mm into the -x face at y, moved 1 cm +x
        args = (0.5 - 0.031 + 0.004, y, 0.01, 0.0, 0.011, 0.02, 0.5, nk.LIMIT_SURFACE_RATIO)
        return nk.push_cube(0.5, 0.0, 0.0, *args)

    # pushing +x on the -x face below the centre (y < 0) turns the cube counter-clockwise
    cx, cy, yaw, hit = push(-0.015)
    assert hit
    assert yaw > 0.01
    assert 0.0 < cx - 0.5 < 0.004  # part of the push goes into the rotation
    cx2, cy2, yaw2, _ = push(0.015)
    assert yaw2 == pytest.approx(-yaw) and cx2 == pytest.approx(cx)


def test_no_contact_leaves_the_cube_alone():
    ratio = nk.LIMIT_SURFACE_RATIO
    assert nk.push_cube(0.5, 0.0, 0.3, 0.45, 0.0, 0.01, 0.0, 0.011, 0.02, 0.5, ratio) == (
        0.5,
        0.0,
        0.3,
        False,
    )


def test_fingers_stop_at_the_table():
    env = make_env("push", "numba", 8, seed=0)
    for _ in range(40):
        env.step(np.tile([0.0, 0.0, -1.0], (8, 1)))
    tcp_z = env.get_state().tcp_pos[:, 2]
    assert np.all(tcp_z > nk.FINGERTIP_BELOW_TCP - 2e-3)
    assert np.all(tcp_z < 0.03)  # it did get down


def test_scripted_push_moves_the_cube_toward_the_goal():
    n = 128
    env = make_env("push", "numba", n, seed=3)
    start = env.get_state()
    d0 = np.linalg.norm(start.object_pos[:, :2] - start.goal_pos[:, :2], axis=1)
    phase = np.zeros(n, dtype=int)
    d_end = np.full(n, np.nan)
    ever_success = np.zeros(n, dtype=bool)
    sl = push.LAYOUT.slices["goal_rel_object"]
    for _ in range(push.CONFIG.episode_steps):
        s = env.get_state()
        u = s.goal_pos[:, :2] - s.object_pos[:, :2]
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        behind = s.object_pos[:, :2] - 0.06 * u
        phase[(phase == 0) & (np.linalg.norm(s.tcp_pos[:, :2] - behind, axis=1) < 0.01)] = 1
        phase[(phase == 1) & (s.tcp_pos[:, 2] < 0.035)] = 2
        target = np.empty((n, 3))
        target[:, :2] = np.where(phase[:, None] == 2, s.goal_pos[:, :2] - 0.03 * u, behind)
        target[:, 2] = np.where(phase == 0, 0.06, 0.025)
        _, _, term, trunc, info = env.step(move_toward(env, target))
        ended = (term | trunc) & np.isnan(d_end)
        d_end[ended] = np.linalg.norm(info["final_obs"][ended, sl][:, :2], axis=1)
        ever_success |= info["success"] & np.isnan(d_end) | ended & term
        phase[term | trunc] = 0
    assert np.all(np.isfinite(d_end))  # every env ended its first episode
    assert np.mean(d_end < d0) > 0.8
    assert np.mean(d_end < d0 - 0.05) > 0.6
    assert ever_success.mean() > 0.3


def test_scripted_pick_and_place_grasps_lifts_and_releases():
    n = 32
    env = make_env("pick_place", "numba", n, seed=5)
    phase = np.zeros(n, dtype=int)
    closing = np.zeros(n, dtype=int)
    grasped = np.zeros(n, dtype=bool)
    success = np.zeros(n, dtype=bool)
    for _ in range(45):
        s = env.get_state()
        above = s.object_pos + [0.0, 0.0, 0.08]
        phase[(phase == 0) & (np.linalg.norm(s.tcp_pos - above, axis=1) < 0.01)] = 1
        phase[(phase == 1) & (np.abs(s.tcp_pos[:, 2] - s.object_pos[:, 2]) < 0.005)] = 2
        closing += phase == 2
        phase[(phase == 2) & (closing > 3)] = 3
        target = np.where((phase == 0)[:, None], above, s.object_pos)
        target[phase == 3] = s.goal_pos[phase == 3]
        grip = np.where(phase >= 2, -1.0, 1.0)
        _, _, term, trunc, info = env.step(np.column_stack([move_toward(env, target), grip]))
        grasped |= env.grasped()
        success |= info["success"]
        phase[term | trunc] = 0
        closing[term | trunc] = 0
    assert grasped.mean() > 0.9
    assert success.mean() > 0.7
    # holding: the cube moved up with the TCP; opening drops it back to the table
    env.reset(seed=6)
    s = env.get_state()
    for target, grip, steps in [
        (s.object_pos + [0, 0, 0.08], 1.0, 25),
        (s.object_pos, 1.0, 10),
        (s.object_pos, -1.0, 4),
        (s.object_pos + [0, 0, 0.15], -1.0, 12),
    ]:
        for _ in range(steps):
            env.step(np.column_stack([move_toward(env, target), np.full(n, grip)]))
    held = env.get_state()
    assert np.mean(env.grasped()) > 0.9
    lifted = env.grasped()
    assert np.all(held.object_pos[lifted, 2] > 0.1)
    np.testing.assert_allclose(held.finger_width[lifted], push.CUBE_SIZE)
    for _ in range(12):
        env.step(np.column_stack([np.zeros((n, 3)), np.ones(n)]))
    dropped = env.get_state()
    assert not env.grasped().any()
    np.testing.assert_allclose(dropped.object_pos[lifted, 2], push.CUBE_REST_Z)


def test_scripted_ik_controller_solves_reach():
    n = 64
    env = make_env("reach", "numba", n, seed=11)
    cfg = env.cfg
    scale = cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt
    solved = np.zeros(n, dtype=bool)
    ended = np.zeros(n, dtype=bool)
    for _ in range(cfg.episode_steps):
        s = env.get_state()
        actions = np.empty((n, 7))
        for k in range(n):
            step = s.goal_pos[k] - s.tcp_pos[k]
            step *= min(1.0, 0.03 / (np.linalg.norm(step) + 1e-12))
            actions[k] = np.clip(dls_ik_step(s.joint_pos[k], step, 0.05) / scale, -1, 1)
        _, _, term, trunc, _ = env.step(actions)
        solved |= term & ~ended
        ended |= term | trunc
    assert solved.mean() > 0.8


# --- observations against the task terms --------------------------------------------------
@pytest.mark.parametrize("name", list(TASKS))
def test_observation_reward_success_equal_the_task_terms(name):
    task = TASKS[name]
    n = 64
    env = make_env(name, "numba", n, seed=1)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=2)
    np.testing.assert_allclose(obs, task.observe(env.get_state()), atol=2e-7)
    for _ in range(60):
        obs, rew, term, trunc, info = env.step(rng.uniform(-1, 1, (n, env.action_dim)))
        state = env.get_state()
        np.testing.assert_allclose(obs, task.observe(state), atol=2e-7)
        live = ~(term | trunc)  # envs that were not reset this step
        np.testing.assert_allclose(rew[live], task.reward(state)[live], atol=1e-12)
        np.testing.assert_array_equal(info["success"][live], task.success(state)[live])
        # every term, weighted, as the numpy terms give it
        _, terms = weighted_reward(task.reward_terms(state), task.CONFIG, dense=True)
        for t in task.REWARD_TERMS:
            np.testing.assert_allclose(info[f"reward/{t}"][live], terms[t][live], atol=1e-12)


def test_sparse_reward_option():
    env = NumbaEnv(push, 16, dense_reward=False)
    env.reset(seed=0)
    _, rew, term, _, _ = env.step(np.zeros((16, 3)))
    assert set(np.unique(rew)) <= {-1.0, 0.0}
    np.testing.assert_array_equal(rew == 0.0, term)


# --- gymnasium vector-env behaviour ---------------------------------------------------------
@pytest.mark.parametrize("name", list(TASKS))
def test_smoke_rollout_with_autoreset(name):
    task = TASKS[name]
    n = 32
    env = make_env(name, "numba", n, seed=4)
    assert env.observation_space.shape == (n, task.LAYOUT.dim)
    assert env.action_space.shape == (n, task.CONFIG.action_dim)
    env.action_space.seed(0)
    steps = task.CONFIG.episode_steps
    total_final = 0
    for t in range(steps + 5):
        obs, rew, term, trunc, info = env.step(env.action_space.sample())
        check_obs(obs, env.observation_space, "step")
        assert rew.shape == (n,) and rew.dtype == np.float64 and np.all(np.isfinite(rew))
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_
        assert set(info) == INFO_KEYS | {f"reward/{t}" for t in task.REWARD_TERMS}
        terms = sum(info[f"reward/{t}"] for t in task.REWARD_TERMS)
        np.testing.assert_allclose(terms, rew, rtol=0, atol=1e-12)  # the terms sum to it
        ended = term | trunc
        np.testing.assert_array_equal(info["_final_obs"], ended)
        assert info["final_obs"].shape == (n, task.LAYOUT.dim)
        assert np.all(np.isfinite(info["final_obs"]))
        assert np.all(info["final_obs"][~ended] == 0.0)
        assert np.all(info["episode_length"][ended] >= 1)
        assert np.all(info["episode_length"][trunc] == steps)
        total_final += ended.sum()
        if t == steps - 1:
            assert np.all(ended)  # nothing outlives the episode length
    assert total_final >= n


def test_gymnasium_checks_on_the_vector_env():
    # gymnasium 1.4's env_checker targets single envs; these parts apply to a vector env
    env = make_env("push", "numba", 8, seed=0)
    check_reset_seed_determinism(env)
    assert env.metadata["autoreset_mode"].name == "SAME_STEP"
    assert env.single_observation_space.shape == (push.LAYOUT.dim,)
    assert env.single_action_space.shape == (push.CONFIG.action_dim,)
    # returned data is never reused (check_returned_data_not_reused, vectorised)
    env.action_space.seed(0)
    calls = [env.reset(seed=1)]
    for _ in range(3):
        obs, rew, term, trunc, info = env.step(env.action_space.sample())
        check_obs(obs, env.observation_space, "step")
        calls.append((obs, rew, term, trunc, info))
    calls.append(env.reset(seed=1))
    env.set_state(goal_pos=[0.5, 0.0, 0.02])
    for i, first in enumerate(calls):
        for second in calls[i + 1 :]:
            assert not data_shares_objects(first, second)


@pytest.mark.parametrize("name", ["reach", "pick_place"])
def test_same_seed_same_rollout_different_seed_different(name):
    def rollout(seed, threads=None):
        old = numba.get_num_threads()
        if threads:
            numba.set_num_threads(threads)
        try:
            env = make_env(name, "numba", 24, seed=seed)
            rng = np.random.default_rng(99)
            out = [env.get_state()]
            for _ in range(80):
                out.append(env.step(rng.uniform(-1.5, 1.5, (24, env.action_dim))))
            return out
        finally:
            numba.set_num_threads(old)

    a, b = rollout(123), rollout(123, threads=1)
    assert data_equivalence(a, b, exact=True)
    c = rollout(124)
    assert not np.array_equal(a[0].goal_pos, c[0].goal_pos)
    assert not np.array_equal(a[-1][0], c[-1][0])


def test_reset_without_seed_draws_new_episodes():
    env = make_env("reach", "numba", 8, seed=0)
    first = env.get_state().goal_pos
    env.reset()
    assert not np.array_equal(first, env.get_state().goal_pos)
    env.reset(seed=0)
    np.testing.assert_array_equal(first, env.get_state().goal_pos)


# --- bad input ----------------------------------------------------------------------------
def test_bad_actions_raise_and_leave_the_state_alone():
    env = make_env("pick_place", "numba", 4, seed=0)
    before = env.get_state()
    good = np.zeros((4, 4))
    for bad, match in [
        (np.zeros((4, 3)), "shape"),
        (np.zeros((3, 4)), "shape"),
        (np.zeros(16), "shape"),
        (np.where(np.arange(16).reshape(4, 4) == 6, np.nan, good), "non-finite action at env 1"),
        (np.where(np.arange(16).reshape(4, 4) == 3, np.inf, good), "non-finite"),
        (np.full((4, 4), -np.inf), "non-finite"),
        (np.array([["a"] * 4] * 4), "real numbers"),
    ]:
        with pytest.raises(ValueError, match=match):
            env.step(bad)
    assert data_equivalence(before, env.get_state(), exact=True)
    env.step(np.full((4, 4), 7.0, dtype=np.float32))  # out of range is clipped, not an error
    env.step([[0.1, 0.2, 0.3, 1]] * 4)  # lists and ints are fine


@pytest.mark.parametrize("num_envs", [0, -1, 2.5, "4", None])
def test_bad_num_envs(num_envs):
    with pytest.raises(ValueError, match="num_envs"):
        make_env("reach", "numba", num_envs)
    with pytest.raises(ValueError, match="num_envs"):
        NumbaEnv(reach, num_envs)


def test_unknown_names_and_bad_seeds():
    with pytest.raises(ValueError, match="unknown task"):
        make_env("stack", "numba", 2)
    with pytest.raises(ValueError, match="unknown backend"):
        make_env("reach", "mujoco", 2)
    env = make_env("reach", "numba", 2)
    for seed in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    with pytest.raises(ValueError, match="finite"):
        env.set_state(joint_pos=np.full(7, np.nan))


# --- domain randomization -----------------------------------------------------------------
def test_randomization_draws_stay_in_range():
    rnd = DomainRandomization(action_latency_steps=3)
    cfg = push.CONFIG.__class__(**{**push.CONFIG.__dict__, "randomization": rnd})
    env = make_env("push", "numba", 400, seed=0, config=cfg)
    draws = env.randomization_state()
    assert np.all((draws["friction_scale"] >= 0.7) & (draws["friction_scale"] <= 1.3))
    assert np.all((draws["mass_scale"] >= 0.8) & (draws["mass_scale"] <= 1.2))
    assert set(np.unique(draws["action_delay"])) == {0, 1, 2, 3}
    assert draws["friction_scale"].std() > 0.1


def test_action_latency_delays_each_env_by_its_draw():
    rnd = DomainRandomization(action_latency_steps=2, initial_joint_noise=0.0)
    cfg = reach.CONFIG.__class__(**{**reach.CONFIG.__dict__, "randomization": rnd})
    n = 60
    env = make_env("reach", "numba", n, seed=0, config=cfg)
    delay = env.randomization_state()["action_delay"]
    q0 = env.get_state().joint_pos
    moved_at = np.full(n, -1)
    for t in range(4):
        env.step(np.full((n, 7), 0.5))
        moved = np.any(env.get_state().joint_pos != q0, axis=1)
        moved_at[(moved_at < 0) & moved] = t
    np.testing.assert_array_equal(moved_at, delay)


def test_observation_noise_is_seeded_and_only_in_the_observation():
    rnd = DomainRandomization(observation_noise_std=0.01)
    cfg = push.CONFIG.__class__(**{**push.CONFIG.__dict__, "randomization": rnd})
    env = make_env("push", "numba", 200, seed=0, config=cfg)
    obs, *_ = env.step(np.zeros((200, 3)))
    clean = push.observe(env.get_state())
    sl = push.LAYOUT.slices
    err = (obs - clean)[:, sl["joint_pos"]]
    assert 0.008 < err.std() < 0.012
    np.testing.assert_array_equal(obs[:, sl["joint_vel"]], clean[:, sl["joint_vel"]])
    again = make_env("push", "numba", 200, seed=0, config=cfg)
    np.testing.assert_array_equal(again.step(np.zeros((200, 3)))[0], obs)


def test_friction_scale_changes_how_far_a_flicked_cube_slides():
    # a cube given the same push slides further on a slipperier table
    def slide(scale):
        rnd = DomainRandomization(friction_scale=(scale, scale), initial_joint_noise=0.0)
        cfg = push.CONFIG.__class__(**{**push.CONFIG.__dict__, "randomization": rnd})
        env = make_env("push", "numba", 1, seed=0, config=cfg)
        s = env.get_state()
        cube = s.tcp_pos[0] * [1, 1, 0] + [0.05, 0.0, push.CUBE_REST_Z]
        env.set_state(object_pos=cube, object_yaw=0.0, goal_pos=[0.6, 0.3, 0.02])
        # lower the fingers next to the cube, then hit it fast along +x and stop
        for _ in range(32):
            env.step(move_toward(env, (cube - [0.05, 0, 0.0])[None]))
        assert env.get_state().tcp_pos[0, 2] < 0.03
        start = env.get_state().object_pos[0, 0]
        for _ in range(3):
            env.step(np.array([[1.0, 0.0, 0.0]]))
        for _ in range(8):
            env.step(np.zeros((1, 3)))
        return env.get_state().object_pos[0, 0] - start

    slippery, rough = slide(0.5), slide(1.5)
    assert slippery > rough > 0.01


@pytest.mark.parametrize("name", list(TASKS))
def test_kernel_resets_follow_the_task_samplers(name):
    task = TASKS[name]
    n = 2000
    s = make_env(name, "numba", n, seed=8).get_state()
    noise = task.CONFIG.randomization.initial_joint_noise
    assert np.all(np.abs(s.joint_pos - panda.home_joint_positions) <= noise + 1e-12)
    assert np.all(s.joint_vel == 0.0)
    np.testing.assert_allclose(s.tcp_pos, panda.fk_tcp_batch(s.joint_pos), atol=1e-12)
    if task is reach:
        assert np.all((s.goal_pos >= reach.GOAL_LOW) & (s.goal_pos <= reach.GOAL_HIGH))
        return
    np.testing.assert_allclose(s.finger_width, task.INITIAL_FINGER_WIDTH)
    xy = s.object_pos[:, :2]
    assert np.all((xy >= push.OBJECT_XY_LOW) & (xy <= push.OBJECT_XY_HIGH))
    np.testing.assert_allclose(s.object_pos[:, 2], push.CUBE_REST_Z)
    assert np.all(np.abs(s.object_yaw) <= math.pi / 4) and s.object_yaw.std() > 0.4
    goal_xy = s.goal_pos[:, :2]
    if task is turn:  # in place: the goal is the cube's own centre
        np.testing.assert_array_equal(goal_xy, xy)
        return
    assert np.all((goal_xy >= push.GOAL_XY_LOW) & (goal_xy <= push.GOAL_XY_HIGH))
    dist = np.linalg.norm(goal_xy - xy, axis=1)
    assert np.mean((dist >= 0.1 - 1e-9) & (dist <= 0.25 + 1e-9)) > 0.999
    air = s.goal_pos[:, 2] > push.CUBE_REST_Z
    if task is push:
        assert not air.any()
    else:
        assert 0.45 < air.mean() < 0.55 and s.goal_pos[:, 2].max() <= 0.25


def test_an_env_does_not_depend_on_the_batch_around_it():
    # env k's rollout depends only on (seed, k) and its actions: batch size and chunking
    # (odd sizes leave empty chunks) change nothing
    rng = np.random.default_rng(5)
    actions = rng.uniform(-1, 1, (70, 17, 4))
    small = make_env("pick_place", "numba", 1, seed=9)
    large = make_env("pick_place", "numba", 17, seed=9)
    for a in actions:
        obs_small, rew_small, *_ = small.step(a[:1])
        obs_large, rew_large, *_ = large.step(a)
        np.testing.assert_array_equal(obs_small[0], obs_large[0])
        assert rew_small[0] == rew_large[0]
