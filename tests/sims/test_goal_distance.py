"""The cube-goal distance of push and pick_place episodes is a config field
(``TaskConfig.goal_distance_range``; training configs: ``env.goal_distance``), honoured by
the task samplers, the numba kernels and PyBullet, with today's range as the default."""

import dataclasses

import numpy as np
import pytest

import sims
from policies.ppo.config import TrainConfig
from policies.ppo.envs import evaluation_task_config, training_task_config, with_goal_distance
from sims.tasks import pick_place, push

NARROW = (0.12, 0.13)
"""A range every cube start of the object area can reach inside the goal area (so no goal
is clipped after rejection sampling)."""


def start_distances(obs: np.ndarray) -> np.ndarray:
    """Cube-goal xy distance at reset from push's observation (goal_rel_object)."""
    return np.linalg.norm(obs[:, push.LAYOUT.slices["goal_rel_object"]][:, :2], axis=1)


def test_the_default_is_todays_range():
    assert push.CONFIG.goal_distance_range == push.GOAL_DISTANCE_RANGE == (0.10, 0.25)
    assert pick_place.CONFIG.goal_distance_range == push.GOAL_DISTANCE_RANGE
    assert TrainConfig().env.goal_distance == ()
    cfg = TrainConfig(task="push")
    assert training_task_config(cfg).goal_distance_range == push.GOAL_DISTANCE_RANGE


@pytest.mark.parametrize("module", [push, pick_place])
def test_the_samplers_take_the_configs_range(module):
    cfg = dataclasses.replace(module.CONFIG, goal_distance_range=NARROW)
    _, cubes, _, goals = module.sample_reset(np.random.default_rng(0), 400, cfg)
    dist = np.linalg.norm(goals[:, :2] - cubes[:, :2], axis=1)
    assert NARROW[0] <= dist.min() and dist.max() <= NARROW[1]
    _, cubes, _, goals = module.sample_reset(np.random.default_rng(0), 400)
    dist = np.linalg.norm(goals[:, :2] - cubes[:, :2], axis=1)
    assert dist.max() > 0.2  # the default range, not the narrow one


def test_the_numba_backend_takes_the_configs_range():
    cfg = dataclasses.replace(push.CONFIG, goal_distance_range=NARROW)
    env = sims.make_env("push", "numba", num_envs=64, config=cfg)
    obs, _ = env.reset(seed=3)
    dist = start_distances(obs)
    assert NARROW[0] - 1e-6 <= dist.min() and dist.max() <= NARROW[1] + 1e-6
    default = sims.make_env("push", "numba", num_envs=64)
    assert start_distances(default.reset(seed=3)[0]).max() > 0.2


def test_pybullet_takes_the_configs_range():
    cfg = dataclasses.replace(push.CONFIG, goal_distance_range=NARROW)
    env = sims.make_env("push", "pybullet", num_envs=4, config=cfg, num_workers=0)
    try:
        dist = start_distances(env.reset(seed=5)[0])
    finally:
        env.close()
    assert NARROW[0] - 1e-6 <= dist.min() and dist.max() <= NARROW[1] + 1e-6


def test_a_training_config_sets_it_for_training_and_evaluation():
    cfg = TrainConfig.from_dict({"task": "push", "env": {"goal_distance": [0.1, 0.45]}})
    assert cfg.env.goal_distance == (0.1, 0.45)
    assert training_task_config(cfg).goal_distance_range == (0.1, 0.45)
    assert evaluation_task_config(cfg).goal_distance_range == (0.1, 0.45)
    assert TrainConfig.from_dict(cfg.to_dict()).env.goal_distance == (0.1, 0.45)


@pytest.mark.parametrize("bad", [[0.3, 0.1], [-0.1, 0.2], [0.1], ["a", "b"]])
def test_a_malformed_range_is_refused(bad):
    with pytest.raises(ValueError, match="goal_distance"):
        with_goal_distance(push.CONFIG, bad)


def test_reach_has_no_goal_distance():
    cfg = TrainConfig.from_dict({"task": "reach", "env": {"goal_distance": [0.1, 0.2]}})
    with pytest.raises(ValueError, match="push/pick_place"):
        training_task_config(cfg)
