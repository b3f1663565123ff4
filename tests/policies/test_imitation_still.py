"""imitation.still_weight (policies.ppo.imitation): the states where the student holds still
(its deterministic action under policies.evaluation.FROZEN, the stall test) while the
expert's label asks for a move weigh still_weight times as much in the regression, on top
of focus_weight; the rollout marks them, the buffer keeps the mark (also across stages),
the update reports their share of the loss; a bad weight is refused."""

import numpy as np
import pytest
import torch

from policies.evaluation import FROZEN
from policies.ppo.imitation import (
    DAggerRunner,
    state_weights,
    still_loss_share,
    still_points,
)
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    reach_imitation_config,
    spy_on_imitation_loss,
)


def test_a_still_point_is_a_frozen_action_where_the_label_asks_for_a_move():
    student = torch.tensor([[0.0, 0.0, 0.0], [0.6 * FROZEN, 0.0, 0.0], [2 * FROZEN, 0, 0]] * 2)
    labels = torch.tensor([[0.2, 0.0, 0.0]] * 3 + [[0.0, 0.04, 0.0]] * 3)
    got = still_points(student, labels, least_label=0.05)
    assert got.tolist() == [True, True, False, False, False, False]
    assert still_points(student, labels, least_label=0.0)[:2].all()


def test_state_weights_multiply_focus_and_still_and_are_none_when_both_are_one():
    focus = torch.tensor([False, True, False, True])
    still = torch.tensor([False, False, True, True])
    assert state_weights(focus, still, 1.0, 1.0) is None
    assert state_weights(focus, still, 2.0, 10.0).tolist() == [1.0, 2.0, 10.0, 20.0]
    assert state_weights(focus, still, 1.0, 10.0).tolist() == [1.0, 1.0, 10.0, 10.0]


def test_the_still_share_of_the_loss_follows_the_weight():
    actions = torch.zeros(4, 2)
    labels = torch.full((4, 2), 0.2)  # the same error at every state
    still = torch.tensor([True, False, False, False])
    assert still_loss_share(actions, labels, "relative", 0.3, None, still) == pytest.approx(0.25)
    weight = state_weights(torch.zeros(4, dtype=torch.bool), still, 1.0, 10.0)
    share = still_loss_share(actions, labels, "relative", 0.3, weight, still)
    assert share == pytest.approx(10.0 / 13.0)
    assert still_loss_share(labels, labels, "mse", 0.3, None, still) == 0.0  # no loss at all


def test_the_runner_marks_weighs_and_keeps_the_still_points(tmp_path, monkeypatch):
    seen = spy_on_imitation_loss(monkeypatch)
    cfg = reach_imitation_config(still_weight=10.0, still_label=0.0, gradient_steps=2)
    runner = DAggerRunner(cfg, tmp_path)
    act = runner.model.act_deterministic

    def held_on_even_envs(obs):  # the even envs' students hold still
        out = act(obs)
        out[::2] = 0.0
        return out

    runner.model.act_deterministic = held_on_even_envs
    try:
        _, last_values, _, _ = runner._rollout(runner._reset_envs())
        stats = runner._update(last_values)
        n = runner.buffer_len
        still = runner.buffer_still[:n].numpy()
        labels = runner.buffer_labels[:n].norm(dim=1).numpy()
        # the even envs wherever the reach expert asks for a move
        want = (np.arange(n) % 2 == 0) & (labels > 0.0)
        np.testing.assert_array_equal(still, want)
        assert want.any()
        path = runner.save_buffer()
    finally:
        runner.close()
    assert stats["still_share"] == pytest.approx(want.mean())
    assert 0.0 < stats["still_loss_share_unweighted"] < stats["still_loss_share"] <= 1.0
    assert len(seen) == 2
    for _, _, weight in seen:
        assert set(weight.tolist()) <= {1.0, 10.0}
    assert torch.load(path, weights_only=True)["still"].sum() == int(want.sum())

    later = DAggerRunner(reach_imitation_config(carry_states=10_000), tmp_path / "later")
    try:
        assert later.carry(path) == n
        assert int(later.buffer_still[:n].sum()) == int(want.sum())
    finally:
        later.close()


def test_still_weight_is_off_by_default():
    cfg = reach_imitation_config()
    assert cfg.imitation.still_weight == 1.0
    assert (
        state_weights(
            torch.zeros(3, dtype=torch.bool),
            torch.ones(3, dtype=torch.bool),
            cfg.imitation.focus_weight,
            cfg.imitation.still_weight,
        )
        is None
    )


@pytest.mark.parametrize(
    "imitation_block, message",
    [
        ({"expert": "scripted", "still_weight": 0.5}, "still_weight"),
        ({"expert": "scripted", "still_label": -0.1}, "still_label"),
    ],
)
def test_bad_still_configs_fail_before_any_work(tmp_path, capsys, imitation_block, message):
    assert_refused_before_any_work(tmp_path, capsys, imitation_block, message)
