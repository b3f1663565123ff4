"""Plain-arm episodes (``randomization.plain_arm_prob``, ``env.plain_arm_prob``): a share of
the numba episodes bypasses the command-path model and tracks like the quick arm, so a
skill trained on the rate-limited arm also meets the quick one.

A plain episode is the model-free backend's episode, bit for bit; the draw is per episode
and leaves every other draw alone; the backends that cannot apply it, a probability
outside [0, 1] and a probability without a model are refused before any work.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from policies.ppo.config import TrainConfig, default_train_config
from policies.ppo.envs import make_env as run_env
from policies.ppo.envs import training_task_config
from policies.ppo.stage_config import StageConfigError, parse_staged_config
from sims import make_env
from sims.tasks import push, reach


def _config(task_module, prob: float, latency: int = 2):
    rnd = dataclasses.replace(
        task_module.CONFIG.randomization, plain_arm_prob=prob, action_latency_steps=latency
    )
    return dataclasses.replace(task_module.CONFIG, randomization=rnd)


def _rollout(env, actions):
    return np.array([env.step(a)[0] for a in actions])


@pytest.mark.parametrize("task_module", [reach, push], ids=["reach", "push"])
def test_a_plain_episode_is_the_model_free_episode_bit_for_bit(task_module):
    rng = np.random.default_rng(3)
    act_dim = 7 if task_module is reach else 3
    actions = rng.uniform(-1, 1, (task_module.CONFIG.episode_steps + 20, 8, act_dim))
    plain, free, model = (
        make_env(
            task_module.CONFIG.name,
            "numba",
            8,
            seed=5,
            config=_config(task_module, prob),
            actuator=actuator,
        )
        for prob, actuator in ((1.0, "panda"), (0.0, "none"), (0.0, "panda"))
    )
    assert plain.randomization_state()["plain_arm"].all()
    assert not model.randomization_state()["plain_arm"].any()
    runs = [_rollout(env, actions) for env in (plain, free, model)]
    np.testing.assert_array_equal(runs[0], runs[1])  # past an autoreset too
    assert not np.allclose(runs[0], runs[2])


def test_the_draw_is_per_episode_and_leaves_the_other_draws_alone():
    half = make_env("reach", "numba", 400, seed=0, config=_config(reach, 0.3), actuator="panda")
    none = make_env("reach", "numba", 400, seed=0, config=_config(reach, 0.0), actuator="panda")
    first = half.randomization_state()
    assert 0.2 < first["plain_arm"].mean() < 0.4
    for key in ("action_delay", "friction_scale", "mass_scale"):
        np.testing.assert_array_equal(first[key], none.randomization_state()[key])
    obs_half, _ = half.reset(seed=1)
    obs_none, _ = none.reset(seed=1)
    np.testing.assert_array_equal(obs_half, obs_none)  # same goals and start poses
    second = half.randomization_state()["plain_arm"]
    assert 0.2 < np.mean(first["plain_arm"] != second) < 0.6  # redrawn every episode


def test_plain_episodes_move_faster_than_the_model_allows():
    """The quick arm covers more of a large step in one period than the rate limits let
    the model (the reason a skill must meet both)."""
    env = make_env(
        "reach", "numba", 200, seed=2, config=_config(reach, 0.5, latency=0), actuator="panda"
    )
    q0 = env.get_state().joint_pos.copy()
    plain = env.randomization_state()["plain_arm"]
    env.step(np.ones((200, 7), dtype=np.float32))
    moved = np.abs(env.get_state().joint_pos - q0).max(axis=1)
    assert moved[plain].min() > 2.0 * moved[~plain].max()


@pytest.mark.parametrize("prob", [-0.1, 1.5, "half", True])
def test_a_probability_outside_0_1_is_refused(prob):
    with pytest.raises(ValueError, match="plain_arm_prob must be a number in"):
        _config(reach, prob)
    data = default_train_config("reach").to_dict()
    data["env"]["plain_arm_prob"] = prob
    with pytest.raises(ValueError, match="env.plain_arm_prob must be a number in"):
        TrainConfig.from_dict(data)


def test_without_a_model_every_episode_is_plain_and_the_probability_changes_nothing():
    rng = np.random.default_rng(1)
    actions = rng.uniform(-1, 1, (60, 8, 7))
    runs = []
    for prob in (0.0, 0.5):
        env = make_env("reach", "numba", 8, seed=3, config=_config(reach, prob), actuator="none")
        assert env.randomization_state()["plain_arm"].all()
        runs.append(_rollout(env, actions))
    np.testing.assert_array_equal(runs[0], runs[1])
    data = default_train_config("reach").to_dict()
    data["env"].update(plain_arm_prob=0.5, actuator="none")
    cfg = TrainConfig.from_dict(data)  # a stage that turns the model off keeps the key
    assert training_task_config(cfg).randomization.plain_arm_prob == 0.0


def test_pybullet_refuses_it():
    with pytest.raises(ValueError, match="plain_arm_prob: its command-path model runs every"):
        make_env(
            "reach", "pybullet", 1, config=_config(reach, 0.5), actuator="panda", num_workers=0
        )


def test_a_stage_on_another_backend_is_refused():
    data = {
        "task": "reach",
        "env": {"actuator": "panda", "plain_arm_prob": 0.3},
        "stages": [
            {"name": "numba", "backend": "numba", "steps": 100},
            {"name": "physics", "backend": "pybullet", "steps": 100},
        ],
    }
    with pytest.raises(StageConfigError, match="stage 2.*cannot randomize env.plain_arm_prob"):
        parse_staged_config(data)
    for env in ({"plain_arm_prob": 0.0}, {"actuator": "none"}):  # off, or no model to bypass
        data["stages"][1]["overrides"] = {"env": env}
        assert parse_staged_config(data).stage_config(0).env.plain_arm_prob == 0.3


def test_a_training_config_runs_plain_episodes():
    cfg = default_train_config("reach")
    cfg.env.plain_arm_prob = 0.5
    cfg = TrainConfig.from_dict(cfg.to_dict())  # survives the run's config.yaml
    assert cfg.env.plain_arm_prob == 0.5
    env = run_env(cfg, "numba", 200, training_task_config(cfg))
    assert 0.35 < env.randomization_state()["plain_arm"].mean() < 0.65


def test_the_runs_physics_evaluation_ranks_checkpoints_on_both_arms():
    """A run with plain-arm episodes is evaluated on both arms in its proportion: 3 of 10
    episodes in an env without the command-path model, the same seeded episodes as the
    model arm's first ones."""
    import torch

    from policies.evaluation import run_episodes
    from policies.ppo.checkpoints import torch_policy_fn
    from policies.ppo.distributed import SingleProcess
    from policies.ppo.networks import ActorCritic
    from policies.ppo.physics_eval import PhysicsEvaluator

    cfg = default_train_config("reach")
    cfg.env.plain_arm_prob = 0.3
    cfg.runner.eval_backend = "numba"
    cfg.runner.eval_num_envs = 2
    torch.manual_seed(0)
    model = ActorCritic(23, 7)
    evaluator = PhysicsEvaluator(cfg, {}, SingleProcess(torch.device("cpu")))
    try:
        result = evaluator.run(model, 10) if evaluator.ready() else None
        assert evaluator.env.actuator is not None and evaluator.plain_env.actuator is None
        assert result.episodes == 10 and len(result.per_episode_success) == 10
        policy = torch_policy_fn(model)
        seed = cfg.runner.eval_seed
        model_arm = run_episodes(evaluator.env, policy, 7, seed).per_episode_success
        plain_arm = run_episodes(evaluator.plain_env, policy, 3, seed).per_episode_success
        assert result.per_episode_success == model_arm + plain_arm
    finally:
        evaluator.close()
    assert evaluator.env is None and evaluator.plain_env is None
    cfg.env.plain_arm_prob = 0.0
    alone = PhysicsEvaluator(cfg, {}, SingleProcess(torch.device("cpu")))
    assert alone.ready() and alone.plain_env is None
    alone.close()


def test_merged_results_count_every_episode():
    from policies.evaluation import EvalResult, merge_results

    a = EvalResult(0.5, (0, 1), -2.0, 10.0, 4, 2, "numba", 1, 1.0, [True, False, True, False])
    b = EvalResult(1.0, (0, 1), -1.0, 4.0, 2, 2, "numba", 1, 3.0, [True, True])
    merged = merge_results([a, None, b], seed=1, parallel=False)
    assert (merged.episodes, merged.successes, merged.success) == (6, 4, 4 / 6)
    assert merged.mean_return == pytest.approx((-8.0 - 2.0) / 6)
    assert merged.mean_length == pytest.approx(48.0 / 6)
    assert merged.wall_s == 4.0 and merge_results([a, b]).wall_s == 3.0
    assert merged.per_episode_success == [True, False, True, False, True, True]
    assert merge_results([None]).episodes == 0
