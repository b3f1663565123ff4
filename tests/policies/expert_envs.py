"""The arm as it is, for the scripted experts' tests: one training config of the numba
backend on the command-path model (the supervisor's rate limits and the drives' lag), 0..2
periods of command latency, 2 mm observation noise and 1.5x the task's episodes, as the
first stage of every imitation recipe in config/train/ runs them."""

import numpy as np

from policies.ppo.config import TrainConfig
from policies.ppo.envs import make_env, training_task_config

COMMAND_PATH_ENV = {
    "actuator": "panda",
    "action_latency_steps": 2,
    "episode_scale": 1.5,
    "observation_noise_std": 0.002,
}
"""The ``env`` block every expert is measured under; a test adds its task's ranges."""


def cube_observations(task, tcp, cube, goal, width=None, n: int = 1) -> np.ndarray:
    """Observations [N, D] of a cube task (push, pick_place), zero but the TCP, cube and goal
    positions (each [3] or [N, 3]), the cube-TCP and goal-cube fields they give and, when
    given, the finger opening ``width`` (one number or [N]); N: ``n`` or the most rows of
    the others."""
    tcp, cube, goal = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (tcp, cube, goal))
    n = max(n, len(tcp), len(cube), len(goal), np.size(width))
    sl = task.LAYOUT.slices
    obs = np.zeros((n, task.LAYOUT.dim))
    obs[:, sl["tcp_pos"]] = tcp
    obs[:, sl["object_pos"]] = cube
    obs[:, sl["object_rel_tcp"]] = cube - tcp
    obs[:, sl["goal_pos"]] = goal
    obs[:, sl["goal_rel_object"]] = goal - cube
    if width is not None:
        obs[:, sl["finger_width"]] = np.reshape(width, (-1, 1))
    return obs


def command_path_config(task: str, **env) -> TrainConfig:
    """``task``'s training config on the command-path model, ``env`` on top of
    :data:`COMMAND_PATH_ENV`."""
    return TrainConfig.from_dict({"task": task, "env": {**COMMAND_PATH_ENV, **env}})


def command_path_env(task: str, num_envs: int, **env):
    """(the numba env, its task config) of :func:`command_path_config`."""
    cfg = command_path_config(task, **env)
    task_cfg = training_task_config(cfg)
    return make_env(cfg, "numba", num_envs, task_cfg), task_cfg


def assert_memoryless(act, env, task_cfg, periods: int) -> None:
    """:func:`assert_pure` on the states of ``periods`` control periods of ``act``'s own
    episodes in ``env``."""
    obs, _ = env.reset(seed=5)
    rows = []
    for _ in range(periods):
        a = act(obs, task_cfg)
        rows.append(np.array(obs))
        obs, *_ = env.step(a.astype(np.float32))
    assert_pure(act, np.concatenate(rows).astype(np.float32), task_cfg)


def assert_pure(act, batch: np.ndarray, task_cfg, rows=None) -> np.ndarray:
    """``act(obs, task_cfg)`` is a function of the observation alone on ``batch`` [N, D]:
    the batch again gives the same actions, the batch permuted the actions permuted, and
    each row of ``rows`` (default: the first, the 18th and the last) alone its row's.
    Returns the batch's actions."""
    first = act(batch, task_cfg)
    np.testing.assert_array_equal(first, act(batch, task_cfg))
    order = np.random.default_rng(0).permutation(batch.shape[0])
    np.testing.assert_allclose(act(batch[order], task_cfg), first[order], atol=1e-12)
    for i in (0, 17, batch.shape[0] - 1) if rows is None else rows:
        np.testing.assert_allclose(act(batch[i : i + 1], task_cfg)[0], first[i])
    return first
