"""``env.plain_fraction`` (policies.ppo.envs.with_plain_envs): the last envs of a stage
behind a motor filter run on the plain arm, exactly as PyBullet's plain envs do, and bad
values are refused before any work."""

import numpy as np
import pytest

import sims
from policies.ppo.config import TrainConfig
from policies.ppo.envs import env_options, with_plain_envs


class HoldFilter:
    """A motor filter that holds the arm where it was at the episode start."""

    period_substeps = 1

    def __init__(self):
        self.q0 = None
        self.resets = 0

    def reset(self, row):
        self.q0 = np.array(row[0:7])
        self.resets += 1

    def __call__(self, substep, row, arm, finger):
        return self.q0, finger


def _factory(task, num_envs, task_config):
    return {
        "config": task_config,
        "motor_filters": [HoldFilter() for _ in range(num_envs)],
        "num_workers": 0,
    }


def test_the_last_envs_lose_their_filter():
    filters = [object() for _ in range(8)]
    out = with_plain_envs({"motor_filters": filters, "x": 1}, 0.25)
    assert out["motor_filters"][:6] == filters[:6] and out["motor_filters"][6:] == [None, None]
    assert out["x"] == 1
    assert with_plain_envs({"motor_filters": filters}, 0.0)["motor_filters"] is filters
    assert with_plain_envs({"motor_filters": filters}, 1.0)["motor_filters"] == [None] * 8


def test_config_plain_fraction_reaches_the_env_options():
    cfg = TrainConfig.from_dict(
        {"task": "push", "env": {"motor_filter": "hold", "plain_fraction": 0.5}}
    )
    task_cfg = sims.get_task("push").CONFIG
    options = env_options(cfg, "pybullet", 4, task_cfg, {"hold": _factory})
    assert [f is None for f in options["motor_filters"]] == [False, False, True, True]


def test_plain_envs_step_like_pybullets_plain_arm():
    task_cfg = sims.get_task("push").CONFIG
    options = with_plain_envs(_factory("push", 2, task_cfg), 0.5)
    held = options["motor_filters"][0]
    mixed = sims.make_env("push", "pybullet", num_envs=2, **options)
    plain = sims.make_env("push", "pybullet", num_envs=2, config=task_cfg, num_workers=0)
    try:
        obs_m, _ = mixed.reset(seed=7)
        obs_p, _ = plain.reset(seed=7)
        np.testing.assert_array_equal(obs_m, obs_p)
        q0 = obs_m[0, 0:7].copy()
        actions = np.tile(np.array([[0.6, -0.4, 0.2]], dtype=np.float32), (2, 1))
        for _ in range(5):
            obs_m, *_ = mixed.step(actions)
            obs_p, *_ = plain.step(actions)
        np.testing.assert_array_equal(obs_m[1], obs_p[1])  # env 1: the plain arm
        np.testing.assert_allclose(obs_m[0, 0:7], q0, atol=2e-3)  # env 0: held
        assert np.abs(obs_p[0, 0:7] - q0).max() > 0.02  # the plain arm moved
        assert held.resets == 1
    finally:
        mixed.close()
        plain.close()


@pytest.mark.parametrize(
    "env, message",
    [
        ({"motor_filter": "hold", "plain_fraction": 1.5}, "plain_fraction must lie"),
        ({"motor_filter": "hold", "plain_fraction": -0.1}, "plain_fraction must lie"),
        ({"plain_fraction": 0.5}, "set env.motor_filter"),
    ],
)
def test_bad_plain_fractions_are_refused(env, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig.from_dict({"task": "push", "env": env})
