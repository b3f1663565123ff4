"""The PPO update: clipped surrogate, clipped value loss, entropy bonus."""

from __future__ import annotations

import torch

from policies.ppo.config import PPOConfig
from policies.ppo.networks import ActorCritic
from policies.ppo.storage import RolloutStorage


class Adam:
    """Adam (Kingma & Ba, 2015) over a few small tensors.

    Numerically the textbook update, as torch.optim.Adam with default options; it exists
    because torch.optim imports torch._dynamo on first use, which costs 3-10 s at start-up
    on a 2-core machine: more than training a Reach skill takes.
    """

    def __init__(
        self, params, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8
    ):
        self.params = [p for p in params if p.requires_grad]
        self.lr = lr
        self.betas = betas
        self.eps = eps
        self.step_count = 0
        self.exp_avg = [torch.zeros_like(p) for p in self.params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.step_count += 1
        beta1, beta2 = self.betas
        bias1 = 1.0 - beta1**self.step_count
        bias2 = 1.0 - beta2**self.step_count
        step_size = self.lr / bias1
        for p, m, v in zip(self.params, self.exp_avg, self.exp_avg_sq, strict=True):
            if p.grad is None:
                continue
            m.mul_(beta1).add_(p.grad, alpha=1.0 - beta1)
            v.mul_(beta2).addcmul_(p.grad, p.grad, value=1.0 - beta2)
            denom = (v / bias2).sqrt_().add_(self.eps)
            p.addcdiv_(m, denom, value=-step_size)

    def state_dict(self) -> dict:
        return {
            "step": self.step_count,
            "lr": self.lr,
            "exp_avg": [m.clone() for m in self.exp_avg],
            "exp_avg_sq": [v.clone() for v in self.exp_avg_sq],
        }

    def load_state_dict(self, state: dict) -> None:
        if len(state["exp_avg"]) != len(self.params):
            raise ValueError("optimizer state does not match the model's parameters")
        self.step_count = int(state["step"])
        self.lr = float(state["lr"])
        for dst, src in zip(
            self.exp_avg + self.exp_avg_sq,
            list(state["exp_avg"]) + list(state["exp_avg_sq"]),
            strict=True,
        ):
            dst.copy_(src)


def _clip_grad_norm(params, max_norm: float) -> None:
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    scale = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(scale)


class PPO:
    """Owns the optimizer; :meth:`update` consumes a filled :class:`RolloutStorage`."""

    def __init__(self, actor_critic: ActorCritic, cfg: PPOConfig):
        self.actor_critic = actor_critic
        self.cfg = cfg
        self.learning_rate = cfg.learning_rate
        self.optimizer = Adam(actor_critic.parameters(), lr=cfg.learning_rate)

    def set_learning_rate(self, lr: float) -> None:
        self.learning_rate = lr
        self.optimizer.lr = lr

    def update(self, storage: RolloutStorage) -> dict[str, float]:
        """Epochs of minibatch gradient steps; returns mean losses and diagnostics."""
        cfg = self.cfg
        ac = self.actor_critic
        sums = {
            "policy_loss": 0.0,
            "value_loss": 0.0,
            "entropy": 0.0,
            "approx_kl": 0.0,
            "clip_fraction": 0.0,
        }
        count = 0
        stop = False
        for _ in range(cfg.num_epochs):
            for batch in storage.minibatches(cfg.num_minibatches):
                log_probs, entropy, values, _ = ac.evaluate(batch["obs"], batch["actions"])
                adv = batch["advantages"]
                if cfg.normalize_advantages and adv.numel() > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                log_ratio = log_probs - batch["log_probs"]
                ratio = log_ratio.exp()
                surrogate = torch.min(
                    ratio * adv,
                    torch.clamp(ratio, 1.0 - cfg.clip_ratio, 1.0 + cfg.clip_ratio) * adv,
                )
                policy_loss = -surrogate.mean()
                if cfg.value_clip > 0:
                    clipped = batch["values"] + torch.clamp(
                        values - batch["values"], -cfg.value_clip, cfg.value_clip
                    )
                    value_loss = torch.max(
                        (values - batch["returns"]) ** 2, (clipped - batch["returns"]) ** 2
                    ).mean()
                else:
                    value_loss = ((values - batch["returns"]) ** 2).mean()
                entropy_mean = entropy.mean()
                loss = (
                    policy_loss
                    + cfg.value_loss_coef * value_loss
                    - cfg.entropy_coef * entropy_mean
                )
                self.optimizer.zero_grad()
                loss.backward()
                _clip_grad_norm(self.optimizer.params, cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    approx_kl = ((ratio - 1.0) - log_ratio).mean().item()
                    clip_frac = ((ratio - 1.0).abs() > cfg.clip_ratio).float().mean().item()
                sums["policy_loss"] += policy_loss.item()
                sums["value_loss"] += value_loss.item()
                sums["entropy"] += entropy_mean.item()
                sums["approx_kl"] += approx_kl
                sums["clip_fraction"] += clip_frac
                count += 1
                if cfg.target_kl > 0 and approx_kl > cfg.target_kl:
                    stop = True
                    break
            if stop:
                break
        stats = {k: v / max(count, 1) for k, v in sums.items()}
        stats["learning_rate"] = self.learning_rate
        stats["action_std"] = ac.log_std.exp().mean().item()
        stats["gradient_steps"] = float(count)
        return stats
