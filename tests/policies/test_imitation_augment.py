"""Observation augmentation of imitation (``imitation.augment_fields``,
policies.ppo.imitation): the fields are scaled per state within ``augment_scale`` in the
regression and nowhere else, a field the expert reads is refused, bad configs fail before
any work, and a student trained with the augmentation leans less on the augmented field."""

import numpy as np
import pytest
import torch

from policies.experts import get_expert
from policies.ppo.config import TrainConfig
from policies.ppo.envs import make_env, training_task_config
from policies.ppo.imitation import DAggerRunner, augment_columns, expert_ignores
from sims.tasks import push, reach
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    reach_imitation_config,
)


def _moving_observations(task: str, steps: int = 12, num_envs: int = 16) -> tuple:
    """Observations of ``task``'s numba env after ``steps`` steps of its expert (the arm
    moves: joint velocities are not zero), and the task config."""
    cfg = TrainConfig.from_dict({"task": task})
    task_cfg = training_task_config(cfg)
    env = make_env(cfg, "numba", num_envs, task_cfg)
    expert = get_expert(task)
    try:
        obs, _ = env.reset(seed=3)
        for _ in range(steps):
            obs, *_ = env.step(expert(obs, task_cfg))
    finally:
        env.close()
    return np.asarray(obs, dtype=np.float64), task_cfg


def test_the_columns_are_the_fields_of_the_tasks_layout():
    cols = augment_columns("push", ("joint_vel",))
    assert cols.tolist() == list(range(push.LAYOUT.slices["joint_vel"].start, 14))
    with pytest.raises(ValueError, match="not fields of reach's observation"):
        augment_columns("reach", ("joint_speed",))


def test_the_push_expert_ignores_joint_velocities_but_not_the_tcp():
    obs, task_cfg = _moving_observations("push")
    vel = push.LAYOUT.slices["joint_vel"]
    assert np.abs(obs[:, vel]).max() > 0.05  # the probe is not trivially zero
    cols = augment_columns("push", ("joint_vel",))
    assert expert_ignores(get_expert("push"), task_cfg, obs, cols, (0.0, 1.5))
    cols = augment_columns("push", ("tcp_pos",))
    assert not expert_ignores(get_expert("push"), task_cfg, obs, cols, (0.0, 1.5))


def test_augment_scales_only_the_fields_by_one_factor_per_state_in_range(tmp_path):
    runner = DAggerRunner(
        reach_imitation_config(augment_fields=["joint_vel"], augment_scale=[0.5, 2.0]), tmp_path
    )
    try:
        obs = torch.randn(512, runner.obs_dim)
        before = obs.clone()
        out = runner.augment(obs)
        assert torch.equal(obs, before)  # the buffer's states are left alone
        cols = runner.augment_columns
        other = [c for c in range(runner.obs_dim) if c not in set(cols.tolist())]
        assert torch.equal(out[:, other], obs[:, other])
        factor = out[:, cols] / obs[:, cols]
        assert torch.allclose(factor, factor[:, :1].expand_as(factor), atol=1e-5)
        assert float(factor.min()) >= 0.5 - 1e-6 and float(factor.max()) <= 2.0 + 1e-6
        assert float(factor[:, 0].std()) > 0.2  # a factor per state, not one per batch
    finally:
        runner.close()
    runner = DAggerRunner(reach_imitation_config(), tmp_path / "off")
    try:
        obs = torch.randn(8, runner.obs_dim)
        assert torch.equal(runner.augment(obs), obs)  # default: no augmentation
    finally:
        runner.close()


def test_a_field_the_expert_reads_is_refused_before_training(tmp_path):
    cfg = reach_imitation_config(augment_fields=["joint_pos"])  # the reach expert reads them
    runner = DAggerRunner(cfg, tmp_path)
    try:
        with pytest.raises(ValueError, match="expert's actions depend on them"):
            runner.learn()
        assert runner.env_steps == 0
    finally:
        runner.close()


@pytest.mark.parametrize(
    "imitation, message",
    [
        ({"expert": "scripted", "augment_fields": ["joint_speed"]}, "not fields of reach"),
        ({"expert": "scripted", "augment_fields": "joint_vel"}, "list of names"),
        ({"expert": "scripted", "augment_scale": [1.0, 0.5]}, "augment_scale"),
        ({"expert": "scripted", "augment_scale": [-1.0, 0.5]}, "augment_scale"),
        ({"expert": "scripted", "augment_scale": [0.5]}, "augment_scale"),
    ],
)
def test_bad_augment_configs_fail_before_any_work(tmp_path, capsys, imitation, message):
    assert_refused_before_any_work(tmp_path, capsys, imitation, message)


def _velocity_sensitivity(runner) -> float:
    """Mean change of the student's action when the joint velocities of its buffered
    states are zeroed."""
    obs = runner.buffer_obs[: runner.buffer_len]
    flat = obs.clone()
    flat[:, reach.LAYOUT.slices["joint_vel"]] = 0.0
    with torch.no_grad():
        a = runner.model.act_deterministic(obs.to(runner.device))
        b = runner.model.act_deterministic(flat.to(runner.device))
    return float((a - b).abs().mean())


def test_a_student_trained_with_the_augmentation_leans_less_on_the_field(tmp_path):
    sensitivity = {}
    for name, fields in (("plain", []), ("augmented", ["joint_vel"])):
        cfg = reach_imitation_config(
            total_steps=8192, augment_fields=fields, augment_scale=[0.0, 1.5]
        )
        runner = DAggerRunner(cfg, tmp_path / name)
        try:
            runner.learn()
            sensitivity[name] = _velocity_sensitivity(runner)
        finally:
            runner.close()
    assert sensitivity["augmented"] < 0.5 * sensitivity["plain"], sensitivity
