"""The PPO update: clipped surrogate, clipped value loss, entropy bonus.

A distributed run passes a :data:`GradientHook` (:mod:`policies.ppo.distributed`) that
averages the gradients and the approximate KL over ranks after each backward pass, so the
gradient clip, the KL early stop and the adaptive learning rate see the same numbers on
every rank and the parameters stay identical.
"""

from __future__ import annotations

from collections.abc import Callable

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


GradientHook = Callable[[list[torch.Tensor], list[float]], list[float]]
"""``hook(params, scalars) -> scalars``: averages the gradients of ``params`` in place and
returns ``scalars`` averaged, over all ranks of a distributed run."""

LR_SCHEDULES = ("constant", "linear", "adaptive")
ADAPTIVE_LR_BOUNDS = (1e-5, 1e-2)
"""The range the ``adaptive`` schedule keeps the learning rate in (rsl_rl's)."""


class PPO:
    """Owns the optimizer; :meth:`update` consumes a filled :class:`RolloutStorage`.

    ``gradient_hook``: see :data:`GradientHook` (None: one process)."""

    def __init__(
        self,
        actor_critic: ActorCritic,
        cfg: PPOConfig,
        gradient_hook: GradientHook | None = None,
    ):
        if cfg.lr_schedule not in LR_SCHEDULES:
            raise ValueError(
                f"ppo.lr_schedule {cfg.lr_schedule!r}: choose one of {', '.join(LR_SCHEDULES)}"
            )
        self.actor_critic = actor_critic
        self.cfg = cfg
        self.gradient_hook = gradient_hook
        self.learning_rate = cfg.learning_rate
        self.optimizer = Adam(actor_critic.parameters(), lr=cfg.learning_rate)

    def adapt_learning_rate(self, kl: float) -> None:
        """The ``adaptive`` schedule's step for a gradient step of approximate KL ``kl``."""
        low, high = ADAPTIVE_LR_BOUNDS
        target = self.cfg.desired_kl
        if kl > 2.0 * target:
            self.set_learning_rate(max(low, self.learning_rate / 1.5))
        elif 0.0 < kl < 0.5 * target:
            self.set_learning_rate(min(high, self.learning_rate * 1.5))

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
        device = self.optimizer.params[0].device
        for _ in range(cfg.num_epochs):
            for batch in storage.minibatches(cfg.num_minibatches):
                batch = {k: v.to(device) for k, v in batch.items()}
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
                with torch.no_grad():
                    approx_kl = ((ratio - 1.0) - log_ratio).mean().item()
                    clip_frac = ((ratio - 1.0).abs() > cfg.clip_ratio).float().mean().item()
                self.optimizer.zero_grad()
                loss.backward()
                if self.gradient_hook is not None:
                    (approx_kl,) = self.gradient_hook(self.optimizer.params, [approx_kl])
                if cfg.lr_schedule == "adaptive":
                    self.adapt_learning_rate(approx_kl)
                _clip_grad_norm(self.optimizer.params, cfg.max_grad_norm)
                self.optimizer.step()
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
