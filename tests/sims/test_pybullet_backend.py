"""The PyBullet backend: rollouts, determinism, limits, camera, bad input, subprocess parity."""

import dataclasses
import gc

import numpy as np
import pybullet as p
import pytest

from sims import make_env
from sims.backends.pybullet.env import PyBulletEnv, make_pybullet_env
from sims.backends.pybullet.urdf import ARM_JOINT_NAMES, FINGER_JOINT_NAMES
from sims.robots import panda
from sims.tasks import pick_place, push, reach, turn
from sims.tasks.base import DomainRandomization
from tests.sims.scripted_reach import scripted_reach

TASKS = {"reach": reach, "push": push, "pick_place": pick_place, "turn": turn}
INFO_KEYS = {"success", "final_obs", "_final_obs", "episode_return", "episode_length"}


def short(task, **changes):
    """The task's config with a short episode (and any other changes)."""
    return dataclasses.replace(task.CONFIG, **{"episode_steps": 6, **changes})


def randomized_env(task, num_envs, **randomization):
    """An in-process env of ``task`` with these domain randomization settings."""
    cfg = dataclasses.replace(task.CONFIG, randomization=DomainRandomization(**randomization))
    return make_pybullet_env(task, num_envs, cfg, num_workers=0)


def random_actions(env, steps, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, size=(steps, env.num_envs, env.action_dim))


@pytest.mark.parametrize("name", list(TASKS))
def test_smoke_rollout_shapes_finite_values_and_autoreset(name):
    task = TASKS[name]
    env = make_pybullet_env(task, 2, short(task), num_workers=0)
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == (2, task.LAYOUT.dim) and obs.dtype == np.float32
        assert env.single_observation_space.contains(obs[0])
        assert env.action_space.shape == (2, task.CONFIG.action_dim)
        ended = np.zeros(2, dtype=int)
        for action in random_actions(env, 13):
            obs, reward, terminated, truncated, info = env.step(action)
            assert obs.shape == (2, task.LAYOUT.dim) and np.all(np.isfinite(obs))
            assert reward.shape == (2,) and np.all(np.isfinite(reward))
            assert terminated.dtype == bool and truncated.dtype == bool
            assert set(info) >= INFO_KEYS
            assert info["final_obs"].shape == obs.shape
            done = terminated | truncated
            np.testing.assert_array_equal(info["_final_obs"], done)
            np.testing.assert_array_equal(terminated, info["success"])
            ended += done
            for i in np.flatnonzero(done):
                assert 1 <= info["episode_length"][i] <= 6
                # The returned row is the new episode's first observation.
                assert not np.array_equal(obs[i], info["final_obs"][i])
                np.testing.assert_array_equal(obs[i], task.observe(_row(env, i))[0])
        # Episodes last at most 6 steps, so 13 steps end each env at least twice.
        assert np.all(ended >= 2)
    finally:
        env.close()


def _row(env, i):
    state = env.get_state()
    return type(state)(*(None if a is None else a[i : i + 1] for a in state))


def test_observation_equals_task_observe_of_state():
    for task in TASKS.values():
        env = make_pybullet_env(task, 1, num_workers=0)
        try:
            obs, _ = env.reset(seed=3)
            np.testing.assert_array_equal(obs, task.observe(env.get_state()))
            for action in random_actions(env, 3):
                obs, *_ = env.step(action)
                np.testing.assert_array_equal(obs, task.observe(env.get_state()))
        finally:
            env.close()


def test_state_matches_pybullet_and_the_numba_fk():
    env = make_pybullet_env(push, 1, num_workers=0)
    try:
        env.reset(seed=5)
        env.step(np.array([[0.5, -0.3, -0.2]]))
        state = env.get_state()
        world = env._worlds.group.worlds[0]
        joints = p.getJointStates(world.robot, world.arm_joints, physicsClientId=world.client)
        np.testing.assert_allclose(state.joint_pos[0], [j[0] for j in joints])
        np.testing.assert_allclose(state.tcp_pos[0], panda.fk_tcp(state.joint_pos[0]))
        pos, _ = p.getBasePositionAndOrientation(world.cube, physicsClientId=world.client)
        np.testing.assert_allclose(state.object_pos[0], pos)
        assert state.finger_width[0] == 0.0  # push: fingers welded closed
    finally:
        env.close()


def test_observation_noise_perturbs_positions_only():
    env = randomized_env(push, 2, observation_noise_std=0.01)
    try:
        obs, _ = env.reset(seed=0)
        clean = push.observe(env.get_state())
        diff = np.abs(obs - clean)
        s = push.LAYOUT.slices
        assert diff[:, s["joint_pos"]].max() > 1e-4
        assert diff[:, s["object_pos"]].max() > 1e-4
        assert diff.max() < 0.1
        np.testing.assert_array_equal(diff[:, s["joint_vel"]], 0.0)
        np.testing.assert_array_equal(diff[:, s["goal_pos"]], 0.0)
    finally:
        env.close()


def test_quiet_envs_observe_without_noise_and_leave_the_others_draws():
    """imitation.clean_fraction's envs: set_quiet_envs takes the white noise off those envs'
    observations (through steps and autoresets) and leaves the others' noise as it was
    (a twin env without quiet envs, the same seed and actions, observes the same there)."""
    quiet = np.array([True, False, True])
    rnd = DomainRandomization(observation_noise_std=0.01)
    cfg = dataclasses.replace(push.CONFIG, episode_steps=20, randomization=rnd)
    env, twin = (make_pybullet_env(push, 3, cfg, num_workers=0) for _ in range(2))
    try:
        env.set_quiet_envs(quiet)
        obs, _ = env.reset(seed=3)
        twin_obs, _ = twin.reset(seed=3)
        resets = 0
        for actions in random_actions(env, 60):
            np.testing.assert_array_equal(obs[quiet], push.observe(env.get_state())[quiet])
            np.testing.assert_array_equal(obs[~quiet], twin_obs[~quiet])
            assert np.abs(obs[~quiet] - push.observe(env.get_state())[~quiet]).max() > 1e-4
            obs, *_, info = env.step(actions)
            twin_obs, *_ = twin.step(actions)
            resets += int(info["_final_obs"].sum())
        assert resets > 0  # through autoresets
        with pytest.raises(ValueError, match="shape"):
            env.set_quiet_envs([True])
    finally:
        env.close()
        twin.close()


def test_same_seed_same_rollout_and_reset_seed_reproduces():
    actions = None
    rollouts = []
    for _ in range(2):
        env = make_pybullet_env(push, 2, short(push), num_workers=0)
        actions = random_actions(env, 9, seed=4) if actions is None else actions
        try:
            for _ in range(2):  # the second reset(seed) must replay the first exactly
                obs, _ = env.reset(seed=11)
                trace = [obs]
                for a in actions:
                    obs, reward, *_ = env.step(a)
                    trace += [obs, reward]
                rollouts.append(trace)
        finally:
            env.close()
    for other in rollouts[1:]:
        for x, y in zip(rollouts[0], other, strict=True):
            np.testing.assert_array_equal(x, y)
    env = make_pybullet_env(push, 2, short(push), num_workers=0)
    try:
        assert not np.array_equal(env.reset(seed=12)[0], rollouts[0][0])
    finally:
        env.close()


def test_joint_targets_are_clipped_to_the_datasheet_limits():
    """Drive joints 1, 4 and 6 hard toward limits where the URDF is wider than the
    datasheet; the measured joints must stop at the datasheet's limits."""
    cfg = dataclasses.replace(reach.CONFIG, episode_steps=10_000)
    env = make_pybullet_env(reach, 1, cfg, num_workers=0, autoreset=False)
    try:
        env.reset(seed=0)
        action = np.zeros((1, 7))
        action[0, 0], action[0, 3], action[0, 5] = 1.0, 1.0, -1.0
        trace = []
        for _ in range(70):
            env.step(action)
            trace.append(env.get_state().joint_pos[0])
        trace = np.array(trace)
        tol = 2e-3
        assert trace[:, 0].max() <= panda.joint_position_max[0] + tol
        assert trace[:, 3].max() <= panda.joint_position_max[3] + tol
        assert trace[:, 5].min() >= panda.joint_position_min[5] - tol
        # ... and they did get there (so the test exercised the clipping).
        assert trace[-1, 0] > panda.joint_position_max[0] - 0.01
        assert trace[-1, 3] > panda.joint_position_max[3] - 0.01
        assert trace[-1, 5] < panda.joint_position_min[5] + 0.01
        assert np.all(trace >= panda.joint_position_min - tol)
        assert np.all(trace <= panda.joint_position_max + tol)
    finally:
        env.close()


def test_position_control_tracks_most_of_a_commanded_step():
    """The contract's tracking_gain (0.8) is matched to PyBullet: check it stays so."""
    env = make_pybullet_env(reach, 1, num_workers=0, autoreset=False)
    try:
        env.reset(seed=0)
        action = np.full((1, 7), 0.3)
        q0 = env.get_state().joint_pos[0].copy()
        env.step(action)
        env.step(action)
        q1 = env.get_state().joint_pos[0].copy()
        env.step(action)
        cfg = env.cfg
        joint_step = cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt
        covered = (env.get_state().joint_pos[0] - q1) / (0.3 * joint_step)
        assert np.all(covered > 0.6) and np.all(covered < 1.0), covered
        assert not np.allclose(q0, q1)
    finally:
        env.close()


def test_scripted_reach_succeeds_on_sampled_goals():
    env = make_pybullet_env(reach, 3, num_workers=0)
    try:
        env.reset(seed=2)
        succeeded = np.zeros(3, dtype=bool)
        for _ in range(40):
            _, _, terminated, truncated, info = env.step(scripted_reach(env.get_state(), env.cfg))
            assert not truncated.any()
            succeeded |= terminated
            if succeeded.all():
                break
        assert succeeded.all()
        assert info["success"].dtype == bool
    finally:
        env.close()


def test_pick_place_fingers_grasp_and_lift_the_cube():
    cfg = dataclasses.replace(pick_place.CONFIG, episode_steps=10_000)
    env = make_pybullet_env(pick_place, 2, cfg, num_workers=0, autoreset=False)
    try:
        env.reset(seed=3)
        cube = env.get_state().object_pos.copy()
        plan = [(30, 0.08, 1.0), (20, 0.0, 1.0), (12, 0.0, -1.0), (35, 0.18, -1.0)]
        for steps, height, grip in plan:
            for _ in range(steps):
                s = env.get_state()
                actions = np.zeros((2, 4))
                target = cube + np.array([0.0, 0.0, height])
                actions[:, :3] = np.clip((target - s.tcp_pos) / cfg.cartesian_step_max, -1, 1)
                actions[:, 3] = grip
                env.step(actions)
        s = env.get_state()
        assert np.all(s.object_pos[:, 2] > 0.15), s.object_pos
        assert np.all(s.finger_width > 0.03) and np.all(s.finger_width < 0.07)
        for k in range(2):  # the cube sits between the fingers, at their midpoint
            tcp, hand = panda.fk_tcp_pose(np.ascontiguousarray(s.joint_pos[k]))
            along = np.dot(s.object_pos[k] - tcp, hand[:, 1])
            assert along == pytest.approx(s.finger_centre[k], abs=0.003)
    finally:
        env.close()


def test_cube_mass_and_friction_are_randomized_per_episode():
    cfg = short(push, randomization=DomainRandomization(action_latency_steps=2))
    env = make_pybullet_env(push, 2, cfg, num_workers=0)
    try:
        env.reset(seed=0)
        first = env.randomization_state()
        world = env._worlds.group.worlds[0]
        mass = p.getDynamicsInfo(world.cube, -1, physicsClientId=world.client)[0]
        assert mass == pytest.approx(env.scene.cube_mass * first["mass_scale"][0])
        table_mu = p.getDynamicsInfo(world.table, -1, physicsClientId=world.client)[1]
        assert table_mu == pytest.approx(first["friction_scale"][0])
        for action in random_actions(env, 6):
            env.step(action)
        second = env.randomization_state()
        assert not np.array_equal(first["mass_scale"], second["mass_scale"])
        for draws in (first, second):
            assert np.all((draws["mass_scale"] >= 0.8) & (draws["mass_scale"] <= 1.2))
            assert np.all((draws["friction_scale"] >= 0.7) & (draws["friction_scale"] <= 1.3))
            assert np.all((draws["action_delay"] >= 0) & (draws["action_delay"] <= 2))
    finally:
        env.close()


def test_action_latency_replays_earlier_actions():
    """An env with delay d behaves as a delay-free env fed the actions d steps late."""
    delayed = randomized_env(reach, 4, action_latency_steps=2)
    plain = make_pybullet_env(reach, 4, num_workers=0)
    try:
        delayed.reset(seed=7)
        plain.reset(seed=7)
        delay = delayed.randomization_state()["action_delay"]
        assert delay.max() > 0  # the seed gives at least one delayed env
        actions = random_actions(delayed, 8, seed=1)
        for t in range(8):
            late = np.stack(
                [actions[t - d, i] if t >= d else np.zeros(7) for i, d in enumerate(delay)]
            )
            obs_delayed, *_ = delayed.step(actions[t])
            obs_plain, *_ = plain.step(late)
            np.testing.assert_array_equal(obs_delayed, obs_plain)
    finally:
        delayed.close()
        plain.close()


def test_camera_image_has_the_right_shape_and_is_not_blank():
    env = make_pybullet_env(push, 1, num_workers=0, render=True)
    try:
        env.reset(seed=0)
        image = env.render(width=96, height=64)
        assert image.shape == (64, 96, 3) and image.dtype == np.uint8
        assert image.std() > 10.0
        assert len(np.unique(image.reshape(-1, 3), axis=0)) > 20
        assert env.render_mode == "rgb_array"
        assert env.render().shape == (480, 640, 3)
        # The robot moves between frames, so the pictures differ.
        for _ in range(5):
            env.step(np.array([[1.0, 1.0, -1.0]]))
        assert not np.array_equal(image, env.render(width=96, height=64))
    finally:
        env.close()


def test_bad_inputs_raise_clear_errors():
    env = make_pybullet_env(reach, 2, num_workers=0)
    try:
        with pytest.raises(RuntimeError, match="reset"):
            env.step(np.zeros((2, 7)))
        env.reset(seed=0)
        with pytest.raises(ValueError, match="shape"):
            env.step(np.zeros((2, 3)))
        with pytest.raises(ValueError, match="non-finite"):
            env.step(np.array([[0.0] * 7, [0.0] * 6 + [np.nan]]))
        with pytest.raises(IndexError, match="env_index"):
            env.render(env_index=2)
        with pytest.raises(ValueError, match="width"):
            env.render(width=0)
        with pytest.raises(ValueError, match="finite"):
            env.set_goal([np.inf, 0.0, 0.0])
    finally:
        env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=0)
    with pytest.raises(ValueError, match="num_envs"):
        make_pybullet_env(reach, 0)
    with pytest.raises(ValueError, match="physics_dt"):
        make_pybullet_env(reach, 1, physics_dt=-0.001)
    with pytest.raises(ValueError, match="control period"):
        make_pybullet_env(reach, 1, physics_dt=0.002, substeps=7)
    with pytest.raises(ValueError, match="num_workers"):
        make_pybullet_env(reach, 2, num_workers=-1)
    with pytest.raises(TypeError):
        make_pybullet_env(reach, 1, no_such_option=True)
    with pytest.raises(ValueError, match="unknown backend"):
        make_env("reach", "mujoco")


def test_make_env_and_set_goal():
    env = make_env("reach", "pybullet", 1, seed=0, num_workers=0)
    try:
        assert isinstance(env, PyBulletEnv)
        env.set_goal([0.5, 0.1, 0.3])
        obs, *_ = env.step(np.zeros((1, 7)))
        s = reach.LAYOUT.slices["goal_pos"]
        np.testing.assert_allclose(obs[0, s], [0.5, 0.1, 0.3], atol=1e-6)
    finally:
        env.close()
    env.close()  # closing twice is harmless


def test_subprocess_workers_match_in_process_for_the_same_seed():
    traces = []
    for workers in (0, 2):
        env = make_pybullet_env(push, 3, short(push), num_workers=workers)
        try:
            assert env.num_workers == workers
            obs, _ = env.reset(seed=21)
            trace = [obs]
            for action in random_actions(env, 8, seed=5):
                obs, reward, terminated, truncated, info = env.step(action)
                trace += [obs, reward, terminated, truncated, info["final_obs"]]
            trace.append(env.render(env_index=2, width=32, height=24))
            traces.append(trace)
            procs = [w.proc for w in env._worlds.workers] if workers else []
        finally:
            env.close()
        for proc in procs:  # close() ends the workers
            assert not proc.is_alive() and proc.exitcode == 0
    for x, y in zip(*traces, strict=True):
        np.testing.assert_array_equal(x, y)


def test_dropping_an_env_disconnects_its_worlds():
    env = make_pybullet_env(reach, 1, num_workers=0)
    client = env._worlds.group.worlds[0].client
    assert p.getConnectionInfo(physicsClientId=client)["isConnected"] == 1
    del env
    gc.collect()
    assert p.getConnectionInfo(physicsClientId=client)["isConnected"] == 0


def test_the_urdf_joint_names_are_the_robot_models():
    """The worlds name joints without importing the robot model (no numba in a worker)."""
    assert ARM_JOINT_NAMES == panda.JOINT_NAMES
    assert FINGER_JOINT_NAMES == panda.FINGER_JOINT_NAMES
