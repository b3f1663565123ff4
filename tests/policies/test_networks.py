"""Observation normalizer, Wilson interval, config round trip."""

import numpy as np
import torch

from policies.evaluation import wilson_interval
from policies.ppo.config import TrainConfig, default_train_config
from policies.ppo.networks import ActorCritic, RunningNormalizer


def test_running_normalizer_matches_numpy_over_batches():
    rng = np.random.default_rng(0)
    data = rng.normal(loc=[1.0, -2.0, 5.0], scale=[0.5, 3.0, 0.01], size=(1000, 3))
    norm = RunningNormalizer(3)
    for chunk in np.array_split(data, 7):
        norm.update(torch.from_numpy(chunk).float())
    np.testing.assert_allclose(norm.mean.numpy(), data.mean(0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(norm.var.numpy(), data.var(0), rtol=1e-3, atol=1e-7)
    out = norm(torch.from_numpy(data).float()).numpy()
    np.testing.assert_allclose(out.mean(0), 0.0, atol=1e-3)
    np.testing.assert_allclose(out.std(0), 1.0, atol=1e-2)


def test_deterministic_action_is_the_clipped_mean():
    torch.manual_seed(0)
    model = ActorCritic(5, 2)
    with torch.no_grad():
        model.actor[-1].bias.fill_(3.0)  # push the mean outside the box
    obs = torch.randn(4, 5)
    act = model.act_deterministic(obs)
    assert act.shape == (4, 2)
    assert torch.all(act == 1.0)


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(95, 100)
    assert abs(lo - 0.8883) < 1e-3 and abs(hi - 0.9785) < 1e-3
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and abs(hi - 0.2775) < 1e-3
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_config_round_trips_through_plain_data():
    cfg = default_train_config("push")
    again = TrainConfig.from_dict(cfg.to_dict())
    assert again == cfg
    assert isinstance(again.network.actor_hidden, tuple)


def test_adam_matches_torch_optim_adam():
    from policies.ppo.algorithm import Adam

    torch.manual_seed(0)
    a = torch.nn.Linear(4, 3)
    b = torch.nn.Linear(4, 3)
    b.load_state_dict(a.state_dict())
    ours = Adam(a.parameters(), lr=1e-2)
    ref = torch.optim.Adam(b.parameters(), lr=1e-2)
    for _ in range(5):
        x = torch.randn(8, 4)
        for model, opt in ((a, ours), (b, ref)):
            opt.zero_grad()
            (model(x) ** 2).mean().backward()
            opt.step()
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
