"""Each reward term's mean per env and step reaches TensorBoard as ``reward/<term>``: the
rollout adds the backend's ``info["reward/<term>"]`` to the episode statistics, and the
training log writes their means once per update."""

from __future__ import annotations

import numpy as np

from policies.ppo.config import RunnerConfig
from policies.ppo.progress import EpisodeStats, TrainingLog
from sims import make_env
from sims.tasks import push


class FakeWriter:
    def __init__(self):
        self.scalars: dict[str, float] = {}

    def add_scalar(self, tag, value, step):
        self.scalars[tag] = value


def test_term_means_per_env_and_step_reach_the_log():
    env = make_env("push", "numba", 6, seed=2)
    episodes = EpisodeStats(env.num_envs, window=10)
    rng = np.random.default_rng(0)
    sums = {name: 0.0 for name in push.REWARD_TERMS}
    for _ in range(5):
        _, reward, term, trunc, info = env.step(rng.uniform(-1, 1, (6, env.action_dim)))
        episodes.step(reward, term, term | trunc)
        episodes.add_terms(info)
        for name in sums:
            sums[name] += float(info[f"reward/{name}"].sum())
    log = TrainingLog(RunnerConfig(tensorboard=False, progress=False), "test")
    log.writer = FakeWriter()
    log.update(100, {}, episodes, {}, episodes.take_term_means())
    for name in push.REWARD_TERMS:
        assert np.isclose(log.writer.scalars[f"reward/{name}"], sums[name] / 30)
    assert log.writer.scalars["reward/object_goal"] < 0.0  # weight -1 on a distance
    assert log.writer.scalars["reward/unsolved"] == 0.0  # dense: no sparse weight
    assert episodes.take_term_means() == {}  # read once
