"""DAgger's regression loss onto the expert's labels and its per-state weights
(:class:`policies.ppo.imitation.DAggerRunner` calls them each update): the loss
(``imitation.loss``, ``loss_floor``), the weights of focus and still points
(``imitation.focus_weight``, ``still_weight``) and the action floor's hinge
(``imitation.action_floor``). Apart from the runner, whose module holds the rollouts, the
buffer and the guard."""

from __future__ import annotations

import torch


def still_points(student: torch.Tensor, labels: torch.Tensor, least_label: float) -> torch.Tensor:
    """[N] bool (on the CPU): the states where the student's deterministic action ``student``
    [N, A] is shorter than :data:`policies.evaluation.FROZEN` (it holds still there: at a
    noiseless observation of a still scene it stays for good) while the expert's label
    ``labels`` [N, A] is longer than ``least_label`` (the expert would move on),
    ``imitation.still_weight``."""
    from policies.evaluation import FROZEN

    held = torch.linalg.vector_norm(student.detach().cpu(), dim=1) < FROZEN
    return held & (torch.linalg.vector_norm(labels.detach().cpu(), dim=1) > least_label)


def state_weights(
    focus: torch.Tensor, still: torch.Tensor, focus_weight: float, still_weight: float
) -> torch.Tensor | None:
    """[B] each state's weight in the regression: ``focus_weight`` where ``focus``,
    ``still_weight`` where ``still`` (the product where both), else 1; None when both
    weights are 1 (every state alike)."""
    if focus_weight == 1.0 and still_weight == 1.0:
        return None
    weight = torch.ones(focus.shape[0])
    weight = weight * (1.0 + (focus_weight - 1.0) * focus.float())
    return weight * (1.0 + (still_weight - 1.0) * still.float())


def still_loss_share(actions, labels, kind, floor, weight, still) -> float:
    """The share of the regression's (weighted) loss over a minibatch that its still points
    (``still`` [B] bool, :func:`still_points`) carry; 0 when the loss is 0."""
    with torch.no_grad():
        per_state = state_losses(actions, labels, kind, floor, weight)
        total = float(per_state.sum())
        return float(per_state[still.to(per_state.device)].sum()) / total if total > 0 else 0.0


def along_labels(actions: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[B] each label's norm ``|l|`` and [B] the action's component along it, ``a . l / |l|``
    (0 for a zero label)."""
    norm = torch.linalg.vector_norm(labels, dim=1)
    return norm, torch.sum(actions * labels, dim=1) / norm.clamp_min(1e-12)


def floor_states(actions: torch.Tensor, labels: torch.Tensor, floor: float) -> torch.Tensor:
    """[B] bool: the states whose label is longer than ``floor`` while the action's component
    along it is shorter (``imitation.action_floor``'s hinge is on there)."""
    norm, along = along_labels(actions, labels)
    return (norm > floor) & (along < floor)


def action_floor_loss(
    actions: torch.Tensor,
    labels: torch.Tensor,
    floor: float,
    floor_weight: float = 1.0,
    weight: torch.Tensor | None = None,
) -> torch.Tensor:
    """``imitation.action_floor``'s hinge, the mean over the B states of ``floor_weight x
    (relu(floor - a . l / |l|) / floor)^2`` at the states whose label ``l`` is longer than
    ``floor`` (0 elsewhere), each times its ``weight`` [B] (None: 1): the student's action
    ``a`` along the label must reach the floor wherever the expert moves, so it cannot hold
    still there; an action equal to the label costs nothing. Along the label rather than the
    action's norm: a norm can be met moving the wrong way, and has no direction at 0."""
    norm, along = along_labels(actions, labels)
    short = torch.relu(floor - along) * (norm > floor).to(actions.dtype)
    per_state = floor_weight * (short / floor) ** 2
    if weight is not None:
        per_state = per_state * weight
    return torch.mean(per_state)


def imitation_loss(
    actions: torch.Tensor,
    labels: torch.Tensor,
    kind: str = "mse",
    floor: float = 0.1,
    weight: torch.Tensor | None = None,
) -> torch.Tensor:
    """The actor's regression loss of ``actions`` [B, A] onto ``labels`` [B, A]: ``mse``, the
    mean squared error; ``relative``, the same mean with each state's squared errors divided
    by its label's squared norm, the norm taken as at least ``floor`` (``imitation.loss``,
    ``imitation.loss_floor``). Under ``mse`` a 50% error on a label of norm 0.1 weighs 1%
    of the same error on a label of norm 1; under ``relative`` both weigh the same.
    ``weight`` [B]: each state's squared errors times its weight (None: all 1), the mean
    still over the B states (``imitation.focus_weight``, ``still_weight``)."""
    return torch.mean(state_losses(actions, labels, kind, floor, weight))


def state_losses(
    actions: torch.Tensor,
    labels: torch.Tensor,
    kind: str = "mse",
    floor: float = 0.1,
    weight: torch.Tensor | None = None,
) -> torch.Tensor:
    """[B]: each state's term of :func:`imitation_loss` (the mean of its A weighted
    squared errors); the loss is their mean."""
    squared = (actions - labels) ** 2
    if kind == "relative":
        norm = torch.linalg.vector_norm(labels, dim=1, keepdim=True).clamp_min(floor)
        squared = squared / norm**2
    elif kind != "mse":
        raise ValueError(f"unknown imitation loss {kind!r}")
    if weight is not None:
        squared = squared * weight[:, None]
    return torch.mean(squared, dim=1)
