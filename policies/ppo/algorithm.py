"""The PPO update: clipped surrogate, clipped value loss, entropy bonus."""

from __future__ import annotations

import torch
from torch import nn

from policies.ppo.config import PPOConfig
from policies.ppo.networks import ActorCritic
from policies.ppo.storage import RolloutStorage


class PPO:
    """Owns the optimizer; :meth:`update` consumes a filled :class:`RolloutStorage`."""

    def __init__(self, actor_critic: ActorCritic, cfg: PPOConfig):
        self.actor_critic = actor_critic
        self.cfg = cfg
        self.learning_rate = cfg.learning_rate
        self.optimizer = torch.optim.Adam(actor_critic.parameters(), lr=cfg.learning_rate)

    def set_learning_rate(self, lr: float) -> None:
        self.learning_rate = lr
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def update(self, storage: RolloutStorage) -> dict[str, float]:
        """Epochs of minibatch gradient steps; returns mean losses and diagnostics."""
        cfg = self.cfg
        ac = self.actor_critic
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0,
                "clip_fraction": 0.0}
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
                loss = (policy_loss + cfg.value_loss_coef * value_loss
                        - cfg.entropy_coef * entropy_mean)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(ac.parameters(), cfg.max_grad_norm)
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
