"""imitation.loss (policies.ppo.imitation.imitation_loss): the mean squared error by default,
or each state's error relative to its label's norm, so fine actions weigh as much as
large ones; the runner regresses with the configured one; a bad one is refused."""

import pytest
import torch

from policies.ppo import imitation
from policies.ppo.config import ImitationConfig
from policies.ppo.imitation import DAggerRunner, imitation_loss
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    reach_imitation_config,
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


def test_the_runner_regresses_with_the_configured_loss(tmp_path, monkeypatch):
    seen = []

    def spy(actions, labels, kind="mse", floor=0.1):
        seen.append((kind, floor))
        return imitation_loss(actions, labels, kind, floor)

    monkeypatch.setattr(imitation, "imitation_loss", spy)
    cfg = reach_imitation_config(loss="relative", loss_floor=0.05, gradient_steps=3)
    runner = DAggerRunner(cfg, tmp_path)
    try:
        _, last_values, _, _ = runner._rollout(runner._reset_envs())
        stats = runner._update(last_values)
    finally:
        runner.close()
    assert seen == [("relative", 0.05)] * 3
    assert stats["imitation_loss"] > 0.0


@pytest.mark.parametrize(
    "imitation_block, message",
    [
        ({"expert": "scripted", "loss": "huber"}, "imitation.loss"),
        ({"expert": "scripted", "loss": "relative", "loss_floor": 0.0}, "loss_floor"),
    ],
)
def test_bad_loss_configs_fail_before_any_work(tmp_path, capsys, imitation_block, message):
    assert_refused_before_any_work(tmp_path, capsys, imitation_block, message)
