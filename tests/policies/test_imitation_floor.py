"""imitation.action_floor (policies.ppo.imitation.action_floor_loss): a hinge under the
student's action along the expert's label, only at the states whose label is longer than
the floor and whose action along it is shorter; nothing anywhere else, nothing when off; the
runner adds it to the regression and reports it; a bad setting is refused."""

import pytest
import torch

from policies.ppo import imitation
from policies.ppo.imitation import action_floor_loss, floor_states
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    one_update,
    reach_imitation_config,
)

FLOOR = 0.05


def test_the_hinge_is_on_exactly_where_the_label_moves_and_the_action_falls_short():
    labels = torch.tensor(
        [
            [0.2, 0.0, 0.0],  # action 0: the still point, full cost
            [0.2, 0.0, 0.0],  # action half the floor along it: a quarter
            [0.2, 0.0, 0.0],  # action the label itself: free
            [0.2, 0.0, 0.0],  # a long action sideways: nothing along the label, full cost
            [0.0, 0.04, 0.0],  # a label under the floor: off whatever the action
            [0.0, 0.0, -0.1],  # action past the floor along it: free
        ]
    )
    actions = torch.tensor(
        [
            [0.0, 0.0, 0.0],
            [FLOOR / 2, 0.0, 0.0],
            [0.2, 0.0, 0.0],
            [0.0, 0.9, 0.0],
            [0.0, 0.0, 0.0],
            [0.3, 0.0, -0.06],
        ]
    )
    want = [1.0, 0.25, 0.0, 1.0, 0.0, 0.0]
    for k, cost in enumerate(want):
        got = action_floor_loss(actions[k : k + 1], labels[k : k + 1], FLOOR, 3.0)
        assert float(got) == pytest.approx(3.0 * cost)
    assert floor_states(actions, labels, FLOOR).tolist() == [c > 0 for c in want]
    mean = action_floor_loss(actions, labels, FLOOR, 3.0)
    assert float(mean) == pytest.approx(3.0 * sum(want) / len(want))
    weight = torch.tensor([2.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    weighted = action_floor_loss(actions, labels, FLOOR, 3.0, weight)
    assert float(weighted) == pytest.approx(3.0 * (sum(want) + want[0]) / len(want))


def test_its_gradient_pushes_a_still_action_along_the_label():
    labels = torch.tensor([[0.0, -0.2, 0.1]])
    action = torch.zeros(1, 3, requires_grad=True)
    action_floor_loss(action, labels, FLOOR).backward()
    step = -action.grad[0]
    assert float(torch.dot(step, labels[0])) > 0.0
    assert torch.allclose(torch.linalg.cross(step, labels[0]), torch.zeros(3), atol=1e-7)


def test_the_runner_adds_the_hinge_and_reports_it(tmp_path, monkeypatch):
    seen = []

    def spy(actions, labels, floor, floor_weight=1.0, weight=None):
        out = action_floor_loss(actions, labels, floor, floor_weight, weight)
        seen.append((floor, floor_weight, float(out.detach())))
        return out

    monkeypatch.setattr(imitation, "action_floor_loss", spy)
    cfg = reach_imitation_config(action_floor=FLOOR, action_floor_weight=2.0, gradient_steps=2)
    stats = one_update(cfg, tmp_path)
    assert [s[:2] for s in seen] == [(FLOOR, 2.0)] * 2
    assert stats["floor_loss"] == pytest.approx(sum(s[2] for s in seen) / 2)
    assert 0.0 <= stats["floor_share"] <= 1.0


def test_the_floor_is_off_by_default(tmp_path, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("action_floor_loss called with the floor off")

    monkeypatch.setattr(imitation, "action_floor_loss", never)
    cfg = reach_imitation_config(gradient_steps=1)
    assert cfg.imitation.action_floor == 0.0
    stats = one_update(cfg, tmp_path)
    assert stats["floor_loss"] == 0.0


@pytest.mark.parametrize(
    "imitation_block, message",
    [
        ({"expert": "scripted", "action_floor": -0.1}, "action_floor"),
        ({"expert": "scripted", "action_floor_weight": 0.0}, "action_floor_weight"),
    ],
)
def test_bad_floor_configs_fail_before_any_work(tmp_path, capsys, imitation_block, message):
    assert_refused_before_any_work(tmp_path, capsys, imitation_block, message)
