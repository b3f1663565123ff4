"""A task added through the registry alone: the toy task ``toy_hover`` below (its layout,
numpy and scalar terms, reset and config, nothing else) steps in the numba CPU kernels,
numba's CUDA simulator and PyBullet with no edit to a kernel or a backend, and its reward
terms come back by name (the Isaac half: ``tests_isaac/test_isaac_env.py``)."""

from __future__ import annotations

import dataclasses
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest
from numba.extending import register_jitable

from sims import make_env
from sims.kernels import layout as L
from sims.kernels.kinematics import arm_physics
from sims.kernels.observe import distance3, obs_noise
from sims.kernels.rng import uniform
from sims.tasks import reach, registry
from sims.tasks.base import (
    ObservationLayout,
    RewardTerm,
    SimState,
    TaskConfig,
    goal_distance,
    weighted_reward,
)
from sims.tasks.registry import TaskKernel
from tests.cudasim import run_script

# --- the toy task: hold the TCP at a goal, joints slow ----------------------------------------
CONFIG = TaskConfig(
    name="toy_hover",
    action_mode="joint",
    episode_steps=20,
    success_threshold=0.02,
    rewards=(RewardTerm("tcp_goal", -1.0), RewardTerm("joint_speed", -0.01)),
    sparse_rewards=(RewardTerm("tcp_goal", -2.0),),
)
LAYOUT = ObservationLayout(
    [
        ("joint_pos", 7, "joint positions (rad)"),
        ("tcp_pos", 3, "TCP position (m)"),
        ("goal_rel_tcp", 3, "goal minus TCP (m)"),
    ]
)
REWARD_TERMS = ("tcp_goal", "joint_speed")
GOAL_LOW = np.array([0.40, -0.10, 0.30])
GOAL_HIGH = np.array([0.50, 0.10, 0.40])


def observe(state: SimState) -> np.ndarray:
    parts = [state.joint_pos, state.tcp_pos, state.goal_pos - state.tcp_pos]
    return np.concatenate(parts, axis=1).astype(np.float32)


def reward_terms(state: SimState, cfg: TaskConfig = CONFIG) -> dict[str, np.ndarray]:
    speed = np.zeros(len(state.joint_vel))
    for i in range(7):  # in the kernel's order
        speed = speed + state.joint_vel[:, i] * state.joint_vel[:, i]
    return {"tcp_goal": goal_distance(state.tcp_pos, state.goal_pos), "joint_speed": speed}


def reward(state: SimState, cfg: TaskConfig = CONFIG, dense: bool = True) -> np.ndarray:
    return weighted_reward(reward_terms(state, cfg), cfg, dense)[0]


def success(state: SimState, cfg: TaskConfig = CONFIG) -> np.ndarray:
    return goal_distance(state.tcp_pos, state.goal_pos) < cfg.success_threshold


def sample_goal(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(GOAL_LOW, GOAL_HIGH, size=(n, 3))


@register_jitable
def kernel_observe(k, st, out, noise_std, key, base):
    for i in range(7):
        out[k, i] = st[k, L.S_Q + i] + obs_noise(noise_std, key, base + i)
    for i in range(3):
        t = st[k, L.S_TCP + i] + obs_noise(noise_std, key, base + 7 + i)
        out[k, 7 + i] = t
        out[k, 10 + i] = st[k, L.S_GOAL + i] - t


@register_jitable
def kernel_evaluate(k, fp, st):
    d = distance3(st, k, L.S_TCP, L.S_GOAL)
    speed = 0.0
    for i in range(7):
        speed += st[k, L.S_QD + i] * st[k, L.S_QD + i]
    return (d, speed), d < fp[L.P_SUCCESS]


@register_jitable
def kernel_reset(k, fp, ip, key, st):
    d = np.int64(0)
    for i in range(3):
        st[k, L.S_GOAL + i] = uniform(key, d + 15 + i, GOAL_LOW[i], GOAL_HIGH[i])


def kernel_pack(cfg: TaskConfig, fp: np.ndarray, ip: np.ndarray) -> None:
    if cfg.has_gripper:
        raise ValueError("toy_hover has no gripper")


TOY = SimpleNamespace(
    CONFIG=CONFIG,
    LAYOUT=LAYOUT,
    REWARD_TERMS=REWARD_TERMS,
    observe=observe,
    reward_terms=reward_terms,
    reward=reward,
    success=success,
    reset_distribution=reach.reset_distribution,
    sample_goal=sample_goal,
    KERNEL=TaskKernel(
        observe=kernel_observe,
        evaluate=kernel_evaluate,
        reset=kernel_reset,
        physics=arm_physics,
        pack=kernel_pack,
    ),
)
"""The toy task, as a task module would hold it (an object with the same attributes)."""


@pytest.fixture
def toy():
    registry.register(TOY)
    yield TOY
    registry.unregister(CONFIG.name)


def check_rollout(env, task, steps: int = 25) -> None:
    """Steps ``env`` with random joint actions: the observation is the task's numpy observe
    of the state, the reward its weighted terms, the terms come back by name, and episodes
    end by time and restart."""
    obs, _ = env.reset(seed=3)
    np.testing.assert_allclose(obs, task.observe(env.get_state()), rtol=0, atol=2e-7)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        actions = rng.uniform(-1, 1, size=(env.num_envs, env.action_dim))
        obs, rew, term, trunc, info = env.step(actions)
        state = env.get_state()
        live = ~(term | trunc)
        want, terms = weighted_reward(task.reward_terms(state, env.cfg), env.cfg, True)
        np.testing.assert_allclose(rew[live], want[live], rtol=0, atol=1e-9)
        for name in task.REWARD_TERMS:
            np.testing.assert_allclose(
                info[f"reward/{name}"][live], terms[name][live], rtol=0, atol=1e-9
            )
        np.testing.assert_array_equal(info["success"][live], task.success(state)[live])
        np.testing.assert_allclose(obs, task.observe(state), rtol=0, atol=2e-7)
        assert np.all((state.goal_pos >= GOAL_LOW) & (state.goal_pos <= GOAL_HIGH))
        ended += int(info["_final_obs"].sum())
    assert ended >= env.num_envs  # every env reached episode_steps (20) and restarted
    assert np.any(info["reward/joint_speed"] < 0.0)


def test_registry_refuses_incomplete_or_clashing_tasks(toy):
    assert registry.get("toy_hover") is toy
    assert "toy_hover" in registry.names()
    with pytest.raises(ValueError, match="KERNEL|reward_terms"):
        registry.register(SimpleNamespace(CONFIG=CONFIG, LAYOUT=LAYOUT))
    with pytest.raises(ValueError, match="different task"):
        registry.register(SimpleNamespace(**vars(toy)))
    with pytest.raises(ValueError, match="unknown task"):
        registry.get("no_such_task")
    cfg = dataclasses.replace(CONFIG, rewards=(RewardTerm("no_such_term", 1.0),))
    with pytest.raises(ValueError, match="no_such_term"):
        make_env("toy_hover", "numba", 2, config=cfg)


@pytest.mark.slow  # ~35 s from cold caches (a fresh clone, CI): the toy task's kernels
def test_a_registered_task_steps_in_the_numba_cpu_kernels(toy):
    env = make_env("toy_hover", "numba", 8)
    check_rollout(env, toy)
    sparse = make_env("toy_hover", "numba", 8, seed=1, dense_reward=False)
    _, rew, _, _, info = sparse.step(np.zeros((8, 7)))
    np.testing.assert_array_equal(rew, info["reward/tcp_goal"])
    np.testing.assert_array_equal(info["reward/joint_speed"], 0.0)  # weight 0 when sparse


def test_a_registered_task_steps_in_pybullet(toy):
    env = make_env("toy_hover", "pybullet", 2, num_workers=0)
    try:
        check_rollout(env, toy)
    finally:
        env.close()


SIMULATED = textwrap.dedent(
    """
    import sys, warnings
    import numpy as np
    warnings.simplefilter("ignore")  # uint64 wrap-around warns in the simulator
    from numba import config
    assert config.ENABLE_CUDASIM
    sys.path.insert(0, "tests/sims")
    import test_task_registry as t
    from sims import make_env
    from sims.tasks import registry
    from tests.cudasim import assert_steps_alike

    registry.register(t.TOY)
    cpu = make_env("toy_hover", "numba", 4, seed=5)
    gpu = make_env("toy_hover", "numba", 4, seed=5, device="cuda")
    t.check_rollout(gpu, t.TOY)
    cpu.reset(seed=3)
    gpu.reset(seed=3)
    assert_steps_alike(cpu, gpu, 22)
    print("TOY_CUDASIM_OK")
    """
)


def test_a_registered_task_steps_in_the_cuda_simulator():
    assert "TOY_CUDASIM_OK" in run_script(SIMULATED, timeout=1200).stdout
