"""imitation.anchor_plain: a share of the plain envs' states is labelled in the regression by
the run's starting policy (its own deterministic action at the state the student sees), the
other states by the expert as before; off by default. With imitation.anchor_goals: pads only
the plain envs' states whose goal is a pads goal (on the table or in the air) are anchored."""

import numpy as np
import pytest
import torch

from policies.experts import get_pads_goal
from policies.ppo import imitation as dagger
from policies.ppo.envs import plain_envs
from policies.ppo.imitation import DAggerRunner
from sims.tasks import pick_place
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    reach_imitation_config,
)


def _one_update_seen(cfg, tmp_path, monkeypatch):
    """One rollout and update of ``cfg`` (reach, 32 envs, the last 8 plain); returns the
    runner (closed) and, per gradient step, (buffer indices, the states as the regression
    sees them, the expert's labels of them, the labels the loss got)."""
    cfg.env.plain_fraction = 0.25  # the envs are not filtered: only the mask matters here
    batches, used = [], []
    loss = dagger.imitation_loss

    def spy(actions, labels, *args, **kwargs):
        used.append(labels.detach().clone())
        return loss(actions, labels, *args, **kwargs)

    monkeypatch.setattr(dagger, "imitation_loss", spy)
    runner = DAggerRunner(cfg, tmp_path)
    batch = runner.regression_batch

    def seen(i):
        x, labels, focus = batch(i)
        batches.append((i.clone(), x.clone(), labels.clone()))
        return x, labels, focus

    runner.regression_batch = seen
    try:
        _, last_values, _, _ = runner._rollout(runner._reset_envs())
        start = [p.detach().clone() for p in runner.model.actor.parameters()]
        runner._update(last_values)
    finally:
        runner.close()
    return runner, start, [(*b, u) for b, u in zip(batches, used, strict=True)]


def test_anchored_states_take_the_starting_policys_action_and_the_rest_the_experts(
    tmp_path, monkeypatch
):
    cfg = reach_imitation_config(anchor_plain=1.0, gradient_steps=2)
    runner, start, steps = _one_update_seen(cfg, tmp_path, monkeypatch)
    n = runner.env.num_envs
    plain = plain_envs(n, 0.25)
    assert plain.sum() == 8 and plain[-8:].all()
    anchored = runner.buffer_anchor[: runner.buffer_len].numpy()
    np.testing.assert_array_equal(anchored, np.tile(plain, runner.buffer_len // n))
    # the anchor is the model as the run started, not the updated student
    for p, q in zip(runner.anchor_model.actor.parameters(), start, strict=True):
        torch.testing.assert_close(p, q)
    assert any(
        not torch.equal(p, q) for p, q in zip(runner.model.actor.parameters(), start, strict=True)
    )
    assert len(steps) == 2
    for i, x, expert, labels in steps:
        a = runner.buffer_anchor[i]
        assert a.any() and (~a).any()
        own = runner.anchor_model.act_deterministic(x[a]).detach()
        torch.testing.assert_close(labels[a], own)
        assert not torch.allclose(labels[a], expert[a], atol=1e-3)  # the anchor is not the expert
        torch.testing.assert_close(labels[~a], expert[~a])


def test_pads_goals_only_anchors_the_plain_envs_pads_states_and_the_expert_labels_the_rest(
    tmp_path, monkeypatch
):
    # the kernels' air goals moved to the second and third levels: half the episodes' goals
    # lie on cubes' heights (stacking, towers), the other half on the table (pads)
    levels = (pick_place.level_height(2), pick_place.level_height(pick_place.TOWER_LEVELS))
    monkeypatch.setattr(pick_place, "AIR_GOAL_Z_RANGE", levels)
    cfg = reach_imitation_config(
        task="pick_place", anchor_plain=1.0, anchor_goals="pads", gradient_steps=2
    )
    runner, _, steps = _one_update_seen(cfg, tmp_path, monkeypatch)
    n = runner.env.num_envs
    goal_z = runner.buffer_obs[: runner.buffer_len, pick_place.LAYOUT.slices["goal_pos"]][:, 2]
    on_cubes = (goal_z > pick_place.level_height(1) + 0.5 * pick_place.CUBE_SIZE).numpy()
    plain = np.tile(plain_envs(n, 0.25), runner.buffer_len // n)
    assert (plain & on_cubes).any() and (plain & ~on_cubes).any()
    anchored = runner.buffer_anchor[: runner.buffer_len].numpy()
    np.testing.assert_array_equal(anchored, plain & ~on_cubes)
    tower = torch.as_tensor(plain & on_cubes)
    for i, x, expert, labels in steps:
        a = runner.buffer_anchor[i]
        assert a.any() and tower[i].any()
        torch.testing.assert_close(labels[a], runner.anchor_model.act_deterministic(x[a]))
        assert not torch.allclose(labels[a], expert[a], atol=1e-3)
        torch.testing.assert_close(labels[~a], expert[~a])  # the plain envs' towers among them


def test_the_pick_place_expert_tells_pads_goals_by_height_and_grasps_by_the_cube_on_the_table():
    sl = pick_place.LAYOUT.slices
    obs = np.zeros((5, pick_place.LAYOUT.dim))
    levels = [pick_place.level_height(k) for k in (1, 2, 3)]
    air = pick_place.AIR_GOAL_Z_RANGE[0]
    obs[:, sl["goal_pos"].start + 2] = [levels[0], air, levels[1], levels[2], levels[2]]
    on_table = pick_place.CUBE_REST_Z
    obs[:, sl["object_pos"].start + 2] = [levels[1], levels[2], on_table, on_table, levels[1]]
    pads_goal = get_pads_goal("pick_place")
    np.testing.assert_array_equal(pads_goal(obs, pick_place.CONFIG), [1, 1, 0, 0, 0])
    grasp = pads_goal(obs, pick_place.CONFIG, grasp=True)
    np.testing.assert_array_equal(grasp, [1, 1, 1, 1, 0])


def test_pads_goals_need_an_expert_that_tells_them(tmp_path):
    cfg = reach_imitation_config(anchor_plain=1.0, anchor_goals="pads")
    cfg.env.plain_fraction = 0.25
    with pytest.raises(ValueError, match="reach expert does not tell pads goals"):
        DAggerRunner(cfg, tmp_path)


def test_the_anchor_is_off_by_default(tmp_path, monkeypatch):
    cfg = reach_imitation_config(gradient_steps=1)
    assert cfg.imitation.anchor_plain == 0.0
    runner, _, steps = _one_update_seen(cfg, tmp_path, monkeypatch)
    assert runner.anchor_model is None and not runner.buffer_anchor.any()
    (_, _, expert, labels), *_ = steps
    torch.testing.assert_close(labels, expert)


def test_an_anchor_without_plain_envs_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no plain envs"):
        DAggerRunner(reach_imitation_config(anchor_plain=0.5), tmp_path)


@pytest.mark.parametrize("share", [-0.1, 1.5, "all"])
def test_bad_anchor_configs_fail_before_any_work(tmp_path, capsys, share):
    imitation = {"expert": "scripted", "anchor_plain": share}
    assert_refused_before_any_work(tmp_path, capsys, imitation, "imitation.anchor_plain")


@pytest.mark.parametrize("goals", ["towers", 1])
def test_bad_anchor_goals_fail_before_any_work(tmp_path, capsys, goals):
    imitation = {"expert": "scripted", "anchor_plain": 1.0, "anchor_goals": goals}
    assert_refused_before_any_work(tmp_path, capsys, imitation, "imitation.anchor_goals")
