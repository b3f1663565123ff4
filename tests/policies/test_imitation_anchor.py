"""imitation.anchor_plain: a share of the plain envs' states is labelled in the regression by
the run's starting policy (its own deterministic action at the state the student sees), the
other states by the expert as before; off by default."""

import numpy as np
import pytest
import torch

from policies.ppo import imitation as dagger
from policies.ppo.envs import plain_envs
from policies.ppo.imitation import DAggerRunner
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
