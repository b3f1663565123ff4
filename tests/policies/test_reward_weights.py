"""A training config weighs a task's named reward terms (``env.rewards``,
``env.sparse_rewards``, as Isaac Lab's ``RewardsCfg`` weights): the run's task config
carries them, the backends' rewards follow them term by term, and a term the task does not
have is refused by name before any work."""

from __future__ import annotations

import numpy as np
import pytest

from policies.ppo.config import TrainConfig
from policies.ppo.envs import evaluation_task_config, training_task_config
from sims import make_env
from sims.tasks import push


def config(**env) -> TrainConfig:
    return TrainConfig.from_dict({"task": "push", "env": env})


def weights(task_cfg, dense=True) -> dict[str, float]:
    return {t.name: t.weight for t in (task_cfg.rewards if dense else task_cfg.sparse_rewards)}


def test_named_terms_take_the_run_weights_and_the_others_keep_theirs():
    default = weights(push.CONFIG)
    cfg = config(rewards={"object_goal": -2.5}, sparse_rewards={"unsolved": -3})
    for task_cfg in (evaluation_task_config(cfg), training_task_config(cfg)):
        assert weights(task_cfg) == {**default, "object_goal": -2.5}
        assert weights(task_cfg, dense=False) == {"unsolved": -3.0}
    dropped = evaluation_task_config(config(rewards={"tcp_object": 0}))
    assert weights(dropped) == {"object_goal": default["object_goal"]}
    assert weights(evaluation_task_config(config())) == default


@pytest.mark.parametrize("backend", ["numba", "pybullet"])
def test_the_backend_reward_follows_the_run_weights(backend):
    """Same seed and actions, the task's weights and the run's: each term's weighted value
    scales by the weight ratio, and the reward is their sum."""
    run = evaluation_task_config(config(rewards={"object_goal": -3.0, "tcp_object": -0.5}))
    base = push.CONFIG
    infos = []
    for task_cfg in (base, run):
        env = make_env("push", backend, 2, seed=7, config=task_cfg)
        env.reset()
        actions = np.random.default_rng(1).uniform(-1, 1, (3, 2, env.action_dim))
        for a in actions:
            _, reward, _, _, info = env.step(a)
        env.close()
        infos.append((reward, info))
    (_, before), (reward, after) = infos
    old, new = weights(base), weights(run)
    for term in ("object_goal", "tcp_object"):
        ratio = new[term] / old[term]
        np.testing.assert_allclose(after[f"reward/{term}"], ratio * before[f"reward/{term}"])
    total = sum(after[f"reward/{t}"] for t in push.REWARD_TERMS)
    np.testing.assert_allclose(reward, total, atol=1e-12)


@pytest.mark.parametrize(
    "env, match",
    [
        ({"rewards": {"distance": -1.0}}, "'distance' is not a reward term of push"),
        ({"rewards": {"object_goal": "heavy"}}, "a number"),
        ({"rewards": {"object_goal": True}}, "a number"),
        ({"sparse_rewards": {"unsolved": float("nan")}}, "finite"),
        ({"rewards": [1.0]}, "mapping"),
    ],
)
def test_a_bad_weight_is_refused_when_the_config_is_read(env, match):
    with pytest.raises(ValueError, match=match):
        config(**env)
