"""The planner's settings (:class:`miles_ros.agent.planner.Planner`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PlannerConfig:
    """Planner settings."""

    mode: str = "grounded"
    """``grounded`` or ``generate``."""
    affordance_weight: float = 1.0
    """Weight of ``log(affordance)`` against the LM log-likelihood (SayCan's product at 1)."""
    max_steps: int = 6
    """Longest plan."""
    retries: int = 2
    """Generate mode: retries of an invalid plan, with the errors in the prompt."""
    fallback: bool = False
    """Use the rule-based fallback when the model gives no valid plan (labelled)."""
    memory_k: int = 2
    """Memories retrieved into the prompt."""
    memory_min_score: float = 0.55
    """Cosine similarity a memory needs to be retrieved."""
    cache_size: int = 256
    """Plans kept in the cache."""
    few_shot: bool | None = None
    """Put worked examples in the prompt; None: only when no adapter is loaded."""
    seed: int | None = None
    """Generate mode: sampling seed (None with temperature 0 is greedy)."""
    temperature: float = 0.0
    """Generate mode: sampling temperature (0: greedy)."""
    exact_scores: bool = False
    """Grounded mode: score every candidate exactly (no branch and bound; the same plans,
    slower: the bench's peer, and ``scores`` with every candidate's true log-probability)."""
    lm_refusal: bool | None = None
    """Offer the model the ``refuse`` line; None: only when the loaded adapter was trained
    on infeasible goals (its card's ``generator_version`` >= 5)."""
