"""Actor-critic networks with observation normalization inside the module.

The normalizer is a buffer of the module, so it is saved in checkpoints and baked into the
ONNX export; nothing outside needs to know the statistics.
"""

from __future__ import annotations

import torch
from torch import nn

from policies.ppo.config import NetworkConfig

_ACTIVATIONS = {"tanh": nn.Tanh, "elu": nn.ELU, "relu": nn.ReLU}


class RunningNormalizer(nn.Module):
    """Running mean/variance of observations (parallel Welford / Chan et al. merge).

    ``forward`` normalizes and clips to ``[-clip, clip]``; :meth:`update` folds in a batch
    (only called by the runner during training, never at inference).
    """

    def __init__(self, dim: int, clip: float = 10.0, eps: float = 1e-8):
        super().__init__()
        self.clip = clip
        self.eps = eps
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.register_buffer("count", torch.tensor(0.0, dtype=torch.float64))

    @torch.no_grad()
    def update(self, x: torch.Tensor) -> None:
        x = x.reshape(-1, self.mean.shape[0]).to(device=self.mean.device, dtype=torch.float64)
        if x.shape[0] == 0:
            return
        self.update_from_moments(x.mean(dim=0), x.var(dim=0, unbiased=False), x.shape[0])

    @torch.no_grad()
    def update_from_moments(
        self, batch_mean: torch.Tensor, batch_var: torch.Tensor, batch_count: int
    ) -> None:
        """Fold in a batch given by its mean, (biased) variance and size (Chan et al.);
        merging several batches one after another is the exact parallel merge."""
        if batch_count == 0:
            return
        batch_mean = batch_mean.to(device=self.mean.device, dtype=torch.float64)
        batch_var = batch_var.to(device=self.mean.device, dtype=torch.float64)
        mean = self.mean.to(torch.float64)
        var = self.var.to(torch.float64)
        total = self.count + batch_count
        delta = batch_mean - mean
        new_mean = mean + delta * (batch_count / total)
        m2 = (
            var * self.count
            + batch_var * batch_count
            + delta**2 * self.count * batch_count / total
        )
        self.mean.copy_(new_mean.to(self.mean.dtype))
        self.var.copy_((m2 / total).to(self.var.dtype))
        self.count.copy_(total)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        std = torch.sqrt(self.var + self.eps)
        return torch.clamp((x - self.mean) / std, -self.clip, self.clip)


def mlp(
    in_dim: int, hidden: tuple[int, ...], out_dim: int, activation: str, out_gain: float
) -> nn.Sequential:
    """An MLP with orthogonal init (gain sqrt(2) hidden, ``out_gain`` on the last layer)."""
    act = _ACTIVATIONS[activation]
    layers: list[nn.Module] = []
    last = in_dim
    for width in hidden:
        linear = nn.Linear(last, width)
        nn.init.orthogonal_(linear.weight, gain=2**0.5)
        nn.init.zeros_(linear.bias)
        layers += [linear, act()]
        last = width
    head = nn.Linear(last, out_dim)
    nn.init.orthogonal_(head.weight, gain=out_gain)
    nn.init.zeros_(head.bias)
    layers.append(head)
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """Gaussian policy with a state-independent log-std and a separate critic.

    The mean is unbounded; the environment clips actions to [-1, 1] and so does the
    exported actor (its deterministic head is ``clamp(mean, -1, 1)``).
    """

    def __init__(self, obs_dim: int, action_dim: int, cfg: NetworkConfig | None = None):
        super().__init__()
        cfg = cfg if cfg is not None else NetworkConfig()
        self.obs_dim = obs_dim
        self.action_dim = action_dim
        self.normalizer = RunningNormalizer(obs_dim) if cfg.normalize_observations else None
        self.actor = mlp(obs_dim, tuple(cfg.actor_hidden), action_dim, cfg.activation, 0.01)
        self.critic = mlp(obs_dim, tuple(cfg.critic_hidden), 1, cfg.activation, 1.0)
        self.log_std = nn.Parameter(torch.full((action_dim,), float(cfg.init_log_std)))

    def normalize(self, obs: torch.Tensor) -> torch.Tensor:
        return self.normalizer(obs) if self.normalizer is not None else obs

    def distribution(self, obs: torch.Tensor) -> torch.distributions.Normal:
        mean = self.actor(self.normalize(obs))
        return torch.distributions.Normal(mean, self.log_std.exp().expand_as(mean))

    def act(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sampled actions, their log-probabilities and the values, for rollouts."""
        x = self.normalize(obs)
        mean = self.actor(x)
        dist = torch.distributions.Normal(mean, self.log_std.exp().expand_as(mean))
        actions = dist.sample()
        return actions, dist.log_prob(actions).sum(-1), self.critic(x).squeeze(-1)

    def act_deterministic(self, obs: torch.Tensor) -> torch.Tensor:
        """The mean action clipped to the action box (what the exported actor computes)."""
        return torch.clamp(self.actor(self.normalize(obs)), -1.0, 1.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.normalize(obs)).squeeze(-1)

    def evaluate(
        self, obs: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Log-probabilities, entropy, values and means of given actions (for the update)."""
        x = self.normalize(obs)
        mean = self.actor(x)
        dist = torch.distributions.Normal(mean, self.log_std.exp().expand_as(mean))
        return (
            dist.log_prob(actions).sum(-1),
            dist.entropy().sum(-1),
            self.critic(x).squeeze(-1),
            mean,
        )
