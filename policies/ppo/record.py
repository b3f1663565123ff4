"""What a training run has done so far (:class:`RunRecord`): its counters, the time split,
its physics evaluations, the best of them and when the target was first reached. The
runner advances it, checkpoints save and restore it, ``summary.json`` reports it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policies.evaluation import EvalResult


def _zero_timing() -> dict[str, float]:
    return {"env_s": 0.0, "policy_s": 0.0, "update_s": 0.0, "eval_s": 0.0}


@dataclass
class RunRecord:
    """A run's progress (see the module docstring)."""

    iteration: int = 0
    """PPO updates done."""
    env_steps: int = 0
    """Env steps done, over all ranks."""
    wall_time_s: float = 0.0
    """Training time (updates and evaluations), across resumes."""
    timing: dict[str, float] = field(default_factory=_zero_timing)
    """Seconds in the env, the policy, the update and evaluations."""
    best_eval: float = -1.0
    """Best physics success so far (-1: none yet)."""
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    """Every physics evaluation's entry (:meth:`add_evaluation`)."""
    solved: dict[str, Any] | None = None
    """When a physics evaluation first reached the target (None: not yet)."""

    def count_update(self, steps: int, env_s: float, policy_s: float, update_s: float) -> None:
        """One update of ``steps`` env steps and its time split."""
        self.env_steps += steps
        self.iteration += 1
        self.timing["env_s"] += env_s
        self.timing["policy_s"] += policy_s
        self.timing["update_s"] += update_s

    def add_evaluation(self, result: EvalResult, kind: str) -> dict[str, Any]:
        """Record an evaluation (``kind``: periodic or final); returns its entry."""
        entry = {
            "kind": kind,
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": round(self.wall_time_s, 3),
            **result.to_dict(),
        }
        self.evaluations.append(entry)
        return entry

    @property
    def last_success(self) -> float | None:
        """The latest evaluation's success (None before the first)."""
        return self.evaluations[-1]["success"] if self.evaluations else None

    def improves(self, result: EvalResult) -> bool:
        """Whether ``result`` is at least as good as the best so far (it then is the best)."""
        if result.success >= self.best_eval:
            self.best_eval = result.success
            return True
        return False

    def mark_solved(self, result: EvalResult) -> None:
        """``result`` reached the target: the first time, remember when."""
        if self.solved is None:
            self.solved = {
                "env_steps": self.env_steps,
                "wall_time_s": round(self.wall_time_s, 3),
                "iteration": self.iteration,
                "success": result.success,
                "episodes": result.episodes,
            }

    def state(self) -> dict[str, Any]:
        """The checkpoint's copy."""
        return {
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": self.wall_time_s,
            "timing": dict(self.timing),
            "best_eval": self.best_eval,
            "evaluations": list(self.evaluations),
            "solved": self.solved,
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Back to a checkpoint's :meth:`state` (older checkpoints may lack some keys)."""
        self.iteration = int(data["iteration"])
        self.env_steps = int(data["env_steps"])
        self.wall_time_s = float(data["wall_time_s"])
        self.timing.update(data.get("timing", {}))
        self.best_eval = float(data.get("best_eval", -1.0))
        self.evaluations = list(data.get("evaluations", []))
        self.solved = data.get("solved")

    def summary(self) -> dict[str, Any]:
        """The keys ``summary.json`` takes from the record."""
        return {
            "iterations": self.iteration,
            "env_steps": self.env_steps,
            "wall_time_s": round(self.wall_time_s, 3),
            "timing_s": {k: round(v, 3) for k, v in self.timing.items()},
        }
