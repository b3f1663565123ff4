"""imitation.loss (policies.ppo.imitation.imitation_loss): the mean squared error by default,
or each state's error relative to its label's norm, so fine actions weigh as much as
large ones; the runner regresses with the configured one; a bad one is refused. States the
expert marks in focus weigh imitation.focus_weight times as much."""

import numpy as np
import pytest
import torch

from policies.ppo.imitation import DAggerRunner, imitation_loss
from policies.ppo.imitation_config import ImitationConfig
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    one_update,
    reach_imitation_config,
    spy_on_imitation_loss,
)


def test_the_default_loss_is_the_mean_squared_error():
    assert ImitationConfig().loss == "mse"
    actions, labels = torch.randn(8, 3), torch.randn(8, 3)
    want = torch.nn.functional.mse_loss(actions, labels)
    assert float(imitation_loss(actions, labels)) == pytest.approx(float(want))


def test_relative_loss_weighs_the_same_fractional_error_the_same_at_any_size():
    labels = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.2, 0.0]])
    actions = 0.5 * labels  # each action half its label
    per_state = [
        float(imitation_loss(actions[k : k + 1], labels[k : k + 1], "relative")) for k in range(2)
    ]
    assert per_state[0] == pytest.approx(per_state[1])
    mse = [float(imitation_loss(actions[k : k + 1], labels[k : k + 1])) for k in range(2)]
    assert mse[0] == pytest.approx(25.0 * mse[1])  # (1 / 0.2)^2: the large label dominates


def test_relative_loss_takes_labels_shorter_than_the_floor_as_the_floor():
    labels = torch.tensor([[0.01, 0.0, 0.0]])
    actions = torch.tensor([[0.11, 0.0, 0.0]])
    loss = imitation_loss(actions, labels, "relative", floor=0.1)
    assert float(loss) == pytest.approx(0.1**2 / 0.1**2 / 3)


def _fit_constant(labels: torch.Tensor, kind: str) -> torch.Tensor:
    """The one action (a student that cannot tell the states apart) that minimises ``kind``'s
    loss over ``labels``, by Adam."""
    action = torch.zeros(1, labels.shape[1], requires_grad=True)
    opt = torch.optim.Adam([action], lr=0.01)
    for _ in range(2000):
        loss = imitation_loss(action.expand_as(labels), labels, kind)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return action.detach()[0]


def test_a_student_that_must_compromise_keeps_the_fine_action_under_relative_loss():
    """Nine large approach labels and one small push label, a student with one action for
    all: under mse it moves 10% of the push along the push's direction, under relative
    loss over 90% (the weights are 1 and 1 / 0.1^2)."""
    approach, push = torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 0.1, 0.0])
    labels = torch.stack([approach] * 9 + [push])
    along = {
        kind: float(_fit_constant(labels, kind) @ push / push.norm() ** 2)
        for kind in ("mse", "relative")
    }
    assert along["mse"] == pytest.approx(0.1, abs=0.01)
    assert along["relative"] > 0.9


@pytest.mark.parametrize("kind", ["mse", "relative"])
def test_a_weighted_state_counts_as_that_many_copies_of_it(kind):
    labels = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.2, 0.0]])
    actions = torch.tensor([[0.5, 0.1, 0.0], [0.0, 0.0, 0.3]])
    ones = imitation_loss(actions, labels, kind, 0.1, torch.ones(2))
    assert float(ones) == pytest.approx(float(imitation_loss(actions, labels, kind, 0.1)))
    weighted = imitation_loss(actions, labels, kind, 0.1, torch.tensor([3.0, 1.0]))
    copies = imitation_loss(actions[[0, 0, 0, 1]], labels[[0, 0, 0, 1]], kind, 0.1)
    assert float(weighted) == pytest.approx(float(copies) * 4 / 2)  # the mean over 2 states


def test_a_compromising_student_moves_towards_the_weighted_states_label():
    """Two states a student with one action cannot tell apart: weighing one 4x moves the
    compromise from halfway to 4/5 of the way to its label."""
    labels = torch.tensor([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    action = torch.zeros(1, 3, requires_grad=True)
    opt = torch.optim.Adam([action], lr=0.01)
    for _ in range(2000):
        loss = imitation_loss(action.expand_as(labels), labels, "mse", 0.1, torch.tensor([4.0, 1]))
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert float(action.detach()[0, 0]) == pytest.approx(0.6, abs=0.01)  # (4 - 1) / (4 + 1)


def test_the_runner_weighs_the_states_its_expert_marks(tmp_path, monkeypatch):
    seen = spy_on_imitation_loss(monkeypatch)
    cfg = reach_imitation_config(focus_weight=3.0, gradient_steps=2)
    runner = DAggerRunner(cfg, tmp_path)
    act = runner.expert

    def marked(obs, task_cfg):  # the even envs' states in focus
        return act(obs, task_cfg), np.arange(len(obs)) % 2 == 0

    runner.labeller = marked
    try:
        _, last_values, _, _ = runner._rollout(runner._reset_envs())
        stats = runner._update(last_values)
        n = runner.buffer_len
        np.testing.assert_array_equal(runner.buffer_focus[:n].numpy(), np.arange(n) % 2 == 0)
    finally:
        runner.close()
    assert stats["focus_share"] == 0.5
    assert len(seen) == 2
    for _, _, weight in seen:
        assert set(weight.tolist()) <= {1.0, 3.0}
        assert 3.0 in weight.tolist()


def test_the_runner_regresses_with_the_configured_loss(tmp_path, monkeypatch):
    seen = spy_on_imitation_loss(monkeypatch)
    cfg = reach_imitation_config(loss="relative", loss_floor=0.05, gradient_steps=3)
    stats = one_update(cfg, tmp_path)
    assert seen == [("relative", 0.05, None)] * 3  # focus_weight 1: every state alike
    assert stats["imitation_loss"] > 0.0


@pytest.mark.parametrize(
    "imitation_block, message",
    [
        ({"expert": "scripted", "loss": "huber"}, "imitation.loss"),
        ({"expert": "scripted", "loss": "relative", "loss_floor": 0.0}, "loss_floor"),
        ({"expert": "scripted", "focus_weight": 0.5}, "focus_weight"),
        ({"expert": "scripted", "expert_settings": {"orbit_margin": 0.01}}, "no setting"),
        ({"expert": "scripted", "expert_settings": [0.01]}, "must be a mapping"),
    ],
)
def test_bad_loss_configs_fail_before_any_work(tmp_path, capsys, imitation_block, message):
    assert_refused_before_any_work(tmp_path, capsys, imitation_block, message)
