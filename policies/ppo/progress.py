"""What a run reports while it trains: rolling episode statistics, TensorBoard scalars and
the progress bar (:class:`TrainingLog`), and when to evaluate in physics
(:class:`EvalSchedule`). No training logic: the runner calls these."""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from policies.evaluation import EvalResult
from policies.ppo.config import RunnerConfig

logger = logging.getLogger(__name__)


class EpisodeStats:
    """Per-env running return and length, and the success, return and length of the last
    ``window`` finished episodes.

    ``device`` None: :meth:`step` takes host arrays. A torch device: it takes tensors there
    (GPU-resident envs) and keeps the running sums there; the finished episodes of the
    steps since the last read are gathered and copied to the host once, when a window is
    read (:attr:`success`, :attr:`success_rate`, ...), in the order the host version
    records them (step, then env)."""

    def __init__(self, num_envs: int, window: int, device=None):
        if device is None:
            self.returns = np.zeros(num_envs)
            """Return so far of each env's running episode."""
            self.lengths = np.zeros(num_envs, dtype=np.int64)
            """Steps so far of each env's running episode."""
        else:
            import torch

            self.returns = torch.zeros(num_envs, dtype=torch.float64, device=device)
            self.lengths = torch.zeros(num_envs, dtype=torch.int64, device=device)
        self._success: deque[float] = deque(maxlen=window)
        self._episode_return: deque[float] = deque(maxlen=window)
        self._episode_length: deque[float] = deque(maxlen=window)
        self._pending: list = []
        """Device version: (done, terminated, return, length) of each step not read yet."""
        self._terms: dict[str, tuple] = {}
        """Sum and count of each weighted reward term (``info["reward/<term>"]``) since the
        last :meth:`take_term_means`."""

    def add_terms(self, info: dict) -> None:
        """Add one step's weighted reward terms, ``info["reward/<term>"]`` [N] (arrays or
        tensors: summed where they are, read once in :meth:`take_term_means`)."""
        for key, value in info.items():
            if key.startswith("reward/"):
                total, count = self._terms.get(key, (0.0, 0))
                self._terms[key] = (total + value.sum(), count + len(value))

    def take_term_means(self) -> dict[str, float]:
        """``{"reward/<term>": mean per env and step}`` since the last call (then cleared)."""
        means = {key: float(total) / count for key, (total, count) in self._terms.items()}
        self._terms.clear()
        return means

    def step(self, reward, terminated, done) -> None:
        """Add one step of every env; episodes that ``done`` ends are recorded (a
        terminated episode is a success) and restarted."""
        self.returns += reward
        self.lengths += 1
        if not isinstance(self.returns, np.ndarray):  # tensors: recorded when read
            self._pending.append(
                (done.clone(), terminated.clone(), self.returns.clone(), self.lengths.clone())
            )
            self.returns.masked_fill_(done, 0.0)
            self.lengths.masked_fill_(done, 0)
            return
        for i in np.flatnonzero(done):
            self._success.append(float(terminated[i]))
            self._episode_return.append(float(self.returns[i]))
            self._episode_length.append(float(self.lengths[i]))
        self.returns[done] = 0.0
        self.lengths[done] = 0

    def _flush(self) -> None:
        """Record the finished episodes of the pending device steps (one copy to the host)."""
        if not self._pending:
            return
        import torch

        columns = zip(*self._pending, strict=True)
        done, terminated, returns, lengths = (torch.stack(column) for column in columns)
        self._pending.clear()
        ended = done.nonzero(as_tuple=True)  # row-major: step, then env
        rows = torch.stack(
            (terminated[ended].double(), returns[ended], lengths[ended].double())
        ).cpu()
        for success, ret, length in rows.T.tolist():
            self._success.append(success)
            self._episode_return.append(ret)
            self._episode_length.append(length)

    @property
    def success(self) -> deque[float]:
        """Success (1.0 or 0.0) of the last ``window`` finished episodes."""
        self._flush()
        return self._success

    @property
    def episode_return(self) -> deque[float]:
        """Return of the last ``window`` finished episodes."""
        self._flush()
        return self._episode_return

    @property
    def episode_length(self) -> deque[float]:
        """Length (steps) of the last ``window`` finished episodes."""
        self._flush()
        return self._episode_length

    @property
    def success_rate(self) -> float | None:
        """Mean success of the window (None before the first finished episode)."""
        return float(np.mean(self.success)) if self.success else None

    @property
    def mean_return(self) -> float | None:
        """Mean return of the window (None before the first finished episode)."""
        return float(np.mean(self.episode_return)) if self.episode_return else None

    @property
    def mean_length(self) -> float | None:
        """Mean episode length of the window (None before the first finished episode)."""
        return float(np.mean(self.episode_length)) if self.episode_length else None


class EvalSchedule:
    """When to evaluate in physics: every ``eval_every`` updates, and as soon as the
    training success reaches the target that physics has not confirmed yet (after the
    envs ran ``min_steps``, at most every ``cooldown`` updates; the cooldown doubles each
    time physics refutes such an evaluation)."""

    def __init__(self, rc: RunnerConfig, min_steps: int):
        self.rc = rc
        self.min_steps = min_steps
        """Env steps before a training success can trigger an evaluation (one episode of
        every env)."""
        self.since_eval = 0
        """Updates since the last evaluation."""
        self.cooldown = 3
        """Updates between two triggered evaluations."""

    def due(
        self, iteration: int, env_steps: int, train_success: float, confirmed: bool
    ) -> tuple[bool, bool]:
        """(periodic, triggered) after update ``iteration``; ``confirmed``: the latest
        physics evaluation reached the target."""
        rc = self.rc
        self.since_eval += 1
        periodic = rc.eval_every > 0 and iteration % rc.eval_every == 0
        triggered = (
            rc.eval_on_train_success
            and not confirmed
            and env_steps >= self.min_steps
            and train_success >= rc.target_success
            and self.since_eval >= self.cooldown
        )
        return periodic, triggered

    def evaluated(self, triggered: bool, result: EvalResult | None) -> None:
        """An evaluation ran (``result`` None: it could not)."""
        self.since_eval = 0
        if result is not None and triggered and result.success < self.rc.target_success:
            self.cooldown = min(2 * self.cooldown, max(3, self.rc.eval_every or 3))


class TrainingLog:
    """TensorBoard scalars (``RUN_DIR/tb``) and the tqdm progress bar of a run; each is off
    when the runner config says so."""

    def __init__(self, rc: RunnerConfig, description: str):
        self.rc = rc
        self.description = description
        """The progress bar's label."""
        self.writer = None
        self.bar = None

    def open(self, run_dir: Path, env_steps: int) -> None:
        """Start the TensorBoard writer and the progress bar (at ``env_steps``)."""
        rc = self.rc
        if rc.tensorboard and self.writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(log_dir=str(run_dir / "tb"))
        if rc.progress:
            from tqdm import tqdm

            self.bar = tqdm(
                total=rc.total_steps,
                initial=min(env_steps, rc.total_steps),
                unit="step",
                unit_scale=True,
                dynamic_ncols=True,
                mininterval=0.5,
                desc=self.description,
            )

    def scalar(self, tag: str, value: float, env_steps: int) -> None:
        if self.writer is not None:
            self.writer.add_scalar(tag, value, env_steps)

    def update(
        self,
        env_steps: int,
        stats: dict[str, float],
        episodes: EpisodeStats,
        perf: dict[str, float],
        terms: dict[str, float] | None = None,
    ) -> None:
        """Scalars of one update: PPO ``stats``, the training episodes, ``perf`` timings and
        the reward ``terms`` (``reward/<term>``: its mean per env and step,
        :meth:`EpisodeStats.take_term_means`)."""
        for key, value in stats.items():
            group = "loss" if key.endswith("loss") else "policy"
            self.scalar(f"{group}/{key}", value, env_steps)
        self.scalar("train/success_rate", episodes.success_rate or 0.0, env_steps)
        self.scalar("train/episode_return", episodes.mean_return or 0.0, env_steps)
        if episodes.mean_length is not None:
            self.scalar("train/episode_length", episodes.mean_length, env_steps)
        for key, value in perf.items():
            self.scalar(f"perf/{key}", value, env_steps)
        for key, value in (terms or {}).items():
            self.scalar(key, value, env_steps)

    def evaluation(self, entry: dict[str, Any], result: EvalResult) -> None:
        """Scalars and a log line of one physics evaluation (``entry``: its record)."""
        kind, env_steps = entry["kind"], entry["env_steps"]
        self.scalar(f"eval/{kind}_success_rate", result.success, env_steps)
        self.scalar(f"eval/{kind}_mean_return", result.mean_return, env_steps)
        self.scalar(f"eval/{kind}_episode_length", result.mean_length, env_steps)
        logger.info(
            "%s eval (%s, %d episodes) at %d steps: success %.3f [%.3f, %.3f], return %.2f",
            kind,
            result.backend,
            result.episodes,
            env_steps,
            result.success,
            result.ci95[0],
            result.ci95[1],
            result.mean_return,
        )

    def progress(
        self,
        steps: int,
        stats: dict[str, float],
        episodes: EpisodeStats,
        last_eval: float | None,
    ) -> None:
        """Advance the bar by ``steps`` env steps and show the latest numbers."""
        bar = self.bar
        if bar is None:
            return
        bar.update(min(steps, max(0, self.rc.total_steps - bar.n)))
        postfix = {
            "succ": f"{episodes.success_rate or 0.0:.3f}",
            "ret": f"{episodes.mean_return or 0.0:.2f}",
        }
        if "approx_kl" in stats:  # PPO (an imitation run reports its loss instead)
            postfix["kl"] = f"{stats['approx_kl']:.4f}"
        else:
            postfix["loss"] = f"{stats.get('imitation_loss', 0.0):.4f}"
        if last_eval is not None:
            postfix["eval"] = f"{last_eval:.3f}"
        bar.set_postfix(postfix, refresh=False)

    def close_progress(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def flush(self) -> None:
        if self.writer is not None:
            self.writer.flush()

    def close(self) -> None:
        self.close_progress()
        if self.writer is not None:
            self.writer.close()
            self.writer = None
