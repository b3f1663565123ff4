"""Fine-tuning a skill from logged episodes (``miles train SKILL --from-logs DIR``).

The active version's actor is the start: its weights are read back from its ``actor.onnx``
into the project's torch network (:func:`model_from_onnx`; the normalizer and every
layer are initializers of the exported graph). Then DAgger relabelling with the skill's
scripted expert (:mod:`policies.experts`): the expert labels every logged state (the
observation the skill saw at each control period, :mod:`policies.logs`) and the states the
parent actor visits (with exploration noise) in the numba simulator restarted near the
states of the logged failures (:func:`policies.sim_states.restart_states`: the arm's
joints near the logged ones, the cube and the goal where they were),
and the actor's mean regresses onto those labels. The restarts run the simulator's own
dynamics: a cell whose physics changed (a heavier cube) is relabelled from its logged
states, not simulated.

Against forgetting, rehearsal: the parent actor runs the card's own evaluation episodes
(its backend, seed and envelope), and every minibatch draws :data:`REHEARSAL_FRACTION` of
its states from those. With ``anchor="parent"`` (the default) the parent's own actions
label the rehearsal states and the logged states of episodes that succeeded, and the
expert only the logged failures and the restarts: the parent was fine-tuned past its
expert in physics (PyBullet behind the supervisor), so regressing every state onto the
expert undoes what the parent learned there. ``anchor="expert"``: the expert labels every
state.

The result is a new skill directory, written by the project's export path
(:func:`policies.export.export_run`: ONNX files, card, physics evaluation) from a one-
checkpoint run directory; its card has ``version`` = parent + 1 and a ``fine_tune``
provenance block naming the parent (card version, actor sha256), the data (files and their
sha256) and the command. Never written into an existing directory.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from policies.cards import SkillCard, sha256_file, validate_card, write_card
from policies.library import CARD_FILE, active_skill_dir
from policies.logs import Dataset, dataset_refusal, read_dataset
from policies.ppo.config import NetworkConfig
from policies.ppo.networks import ActorCritic
from policies.sim_states import rehearsal_states, restart_states

if TYPE_CHECKING:
    from policies.ppo.envs import MotorFilterFactory

logger = logging.getLogger(__name__)

REHEARSAL_FRACTION = 0.5
"""Share of each minibatch drawn from the rehearsal states (the card's evaluation episodes)."""
_ACTIVATIONS = {"Tanh": "tanh", "Elu": "elu", "Relu": "relu"}


class FromLogsError(ValueError):
    """Logs that may not fine-tune this skill, or an output directory that exists."""


def _onnx_network(path: Path) -> tuple[dict[str, torch.Tensor], list[int], str, np.ndarray]:
    """(state-dict tensors by name, hidden widths, activation, the normalizer's divisor) of
    an exported actor or critic."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    divs = [n.input[1] for n in graph.node if n.op_type == "Div" and n.input[1] in init]
    acts = {n.op_type for n in graph.node if n.op_type in _ACTIVATIONS}
    if len(divs) != 1 or len(acts) != 1:
        raise ValueError(f"{path}: not an exported Miles network (normalizer, one activation)")
    tensors = {k: torch.as_tensor(v.copy()) for k, v in init.items() if k != divs[0]}
    weights = sorted(
        (k for k in tensors if k.endswith(".weight")), key=lambda k: int(k.split(".")[1])
    )
    hidden = [int(tensors[k].shape[0]) for k in weights[:-1]]
    return tensors, hidden, _ACTIVATIONS[acts.pop()], init[divs[0]]


def onnx_network_config(skill_dir: str | Path) -> NetworkConfig:
    """The architecture of an exported skill's networks (hidden widths, activation)."""
    skill_dir = active_skill_dir(skill_dir)
    _, actor_hidden, activation, _ = _onnx_network(skill_dir / "actor.onnx")
    _, critic_hidden, _, _ = _onnx_network(skill_dir / "critic.onnx")
    return NetworkConfig(
        actor_hidden=tuple(actor_hidden), critic_hidden=tuple(critic_hidden), activation=activation
    )


def model_from_onnx(skill_dir: str | Path) -> ActorCritic:
    """The torch actor-critic of an exported skill, read from its ``actor.onnx`` and
    ``critic.onnx`` (weights, biases, the normalizer's mean; its variance from the
    exported divisor ``sqrt(var + eps)``). Its deterministic actor reproduces the ONNX
    actor (tests: within 1e-5); ``log_std`` is not exported and keeps its default."""
    skill_dir = active_skill_dir(skill_dir)
    actor, actor_hidden, _, div = _onnx_network(skill_dir / "actor.onnx")
    critic, _, _, _ = _onnx_network(skill_dir / "critic.onnx")
    obs_dim = actor["actor.0.weight"].shape[1]
    action_dim = actor[f"actor.{2 * len(actor_hidden)}.weight"].shape[0]
    model = ActorCritic(int(obs_dim), int(action_dim), onnx_network_config(skill_dir))
    state = model.state_dict()
    for name, value in {**critic, **actor}.items():
        state[name] = value.to(state[name].dtype)
    eps = model.normalizer.eps
    var = np.asarray(div, dtype=np.float64) ** 2 - eps
    state["normalizer.var"] = torch.as_tensor(var, dtype=state["normalizer.var"].dtype)
    model.load_state_dict(state)
    return model.eval()


def is_skill_dir(path: str | Path) -> bool:
    """Whether ``path`` is an exported skill (a version's directory, or a versioned skill
    whose active version runs) rather than a training run or checkpoint."""
    path = Path(path)
    return path.is_dir() and (active_skill_dir(path) / CARD_FILE).is_file()


def skill_init_data(skill_dir: str | Path) -> dict:
    """What ``miles train --init-from SKILL_DIR`` starts from, as a checkpoint would give
    it: ``model`` (:func:`model_from_onnx`'s state dict, the normalizer counting the steps
    the skill was trained on, so new states adjust its statistics at their weight, not
    replace them), ``task``, ``env_steps``, ``backend`` (the card's provenance) and
    ``init_ckpt`` (the version's directory). No training config: the run gives its own."""
    skill_dir = active_skill_dir(skill_dir)
    card = validate_card(skill_dir)
    model = model_from_onnx(skill_dir)
    steps = int(card.provenance.get("total_steps") or card.provenance.get("steps") or 0)
    if model.normalizer is not None:
        model.normalizer.count.fill_(float(max(steps, 1)))
    return {
        "model": model.state_dict(),
        "task": card.task,
        "env_steps": steps,
        "backend": card.provenance.get("backend", "unknown"),
        "init_ckpt": str(skill_dir),
    }


@dataclass
class LoggedData:
    """The logged states of the datasets that fit a card, and where they came from."""

    obs: np.ndarray
    failed: np.ndarray
    """Per state: whether its episode failed (its status, or an operator's bad mark)."""
    files: list[dict] = field(default_factory=list)
    episode: np.ndarray | None = None
    """Per state: its episode, numbered across the datasets (None: unknown)."""


def load_logged(paths: Sequence[str | Path], card: SkillCard, marks=()) -> LoggedData:
    """The states of the datasets ``paths`` (operator ``marks`` applied); FromLogsError
    naming the file and the difference for a dataset of another skill or layout, or when
    none holds a state."""
    obs, failed, episode, files = [], [], [], []
    for path in paths:
        data: Dataset = read_dataset(path, marks)
        refusal = dataset_refusal(data.header, card)
        if refusal:
            raise FromLogsError(f"{path}: {refusal}")
        bad = np.array([data.failed(int(e)) for e in data.arrays["episode"]], dtype=bool)
        obs.append(data.arrays["obs"].astype(np.float32))
        failed.append(bad)
        first = sum(f["episodes"] for f in files)
        episode.append(first + data.arrays["episode"].astype(np.int64))
        files.append(
            {
                "file": str(path),
                "sha256": sha256_file(path),
                "episodes": len(data.episodes),
                "failed_episodes": sum(data.failed(i) for i in range(len(data.episodes))),
                "states": int(len(bad)),
            }
        )
    if not obs or sum(len(o) for o in obs) == 0:
        raise FromLogsError("no logged states of this skill")
    return LoggedData(np.concatenate(obs), np.concatenate(failed), files, np.concatenate(episode))


def expert_labels(card: SkillCard, obs: np.ndarray) -> np.ndarray:
    """The skill's scripted expert's actions for ``obs`` under the card's task config."""
    from policies.experts import get_expert

    actions = get_expert(card.task)(np.asarray(obs, dtype=np.float64), card.task_config())
    return np.clip(np.asarray(actions, dtype=np.float32), -1.0, 1.0)


def parent_labels(model: ActorCritic, obs: np.ndarray) -> np.ndarray:
    """The parent actor's own deterministic actions for ``obs`` (call before training)."""
    device = next(model.parameters()).device
    with torch.no_grad():
        obs = torch.as_tensor(np.asarray(obs, dtype=np.float32), device=device)
        actions = model.act_deterministic(obs)
    return np.clip(actions.cpu().numpy().astype(np.float32), -1.0, 1.0)


METHODS = {
    "parent": "DAgger: the scripted expert labels the logged failures and the states the "
    "parent visits in sim restarted near them; the parent's own actions label the logged "
    "states of succeeded episodes and the rehearsal of the card's evaluation episodes "
    "({fraction:g} of each minibatch)",
    "expert": "DAgger: the scripted expert labels the logged states and the states the "
    "parent visits in sim restarted near the logged failures; rehearsal of the card's "
    "evaluation episodes ({fraction:g} of each minibatch)",
}
"""The card's ``fine_tune.method`` by anchor."""
ANCHORS = tuple(METHODS)


@dataclass
class FineTuneConfig:
    gradient_steps: int = 2000
    minibatch: int = 256
    learning_rate: float = 3e-4
    restarts: int = 64
    """Simulator restarts near logged failure states (0: relabel the logged states only)."""
    restart_horizon: int = 20
    """Periods the parent actor runs from each restart."""
    exploration_std: float = 0.1
    """Gaussian noise on the parent's actions from a restart (as DAgger's student explores)."""
    rehearsal_episodes: int = 20
    """Episodes of the card's evaluation set whose states are rehearsed (0: none)."""
    rehearsal_fraction: float = REHEARSAL_FRACTION
    anchor: str = "parent"
    """Who labels the rehearsal states and the logged states of succeeded episodes:
    ``parent`` (its own actions) or ``expert`` (module docstring)."""

    def __post_init__(self) -> None:
        if self.anchor not in ANCHORS:
            raise ValueError(f"fine-tune anchor must be one of {ANCHORS}, got {self.anchor!r}")

    eval_episodes: int = 50
    """Episodes of the new version's physics evaluation (the card's seed and backend)."""
    seed: int = 0


def regress(
    model: ActorCritic,
    logged: tuple[np.ndarray, np.ndarray],
    rehearsal: tuple[np.ndarray, np.ndarray] | None,
    cfg: FineTuneConfig,
) -> dict[str, float]:
    """Regress the actor's mean onto the labels (normalizer fixed: the parent's); each
    minibatch mixes ``rehearsal_fraction`` rehearsal states. Returns the final losses."""
    gen = torch.Generator().manual_seed(cfg.seed)
    x_log, y_log = (torch.as_tensor(a) for a in logged)
    x_reh = y_reh = None
    n_reh = 0
    if rehearsal is not None and len(rehearsal[0]) and cfg.rehearsal_fraction > 0:
        x_reh, y_reh = (torch.as_tensor(a) for a in rehearsal)
        n_reh = int(round(cfg.minibatch * cfg.rehearsal_fraction))
    n_log = cfg.minibatch - n_reh
    optimizer = torch.optim.Adam(model.actor.parameters(), lr=cfg.learning_rate)
    model.train()
    loss = torch.tensor(0.0)
    for _ in range(cfg.gradient_steps):
        i = torch.randint(0, len(x_log), (n_log,), generator=gen)
        x, y = x_log[i], y_log[i]
        if n_reh:
            j = torch.randint(0, len(x_reh), (n_reh,), generator=gen)
            x, y = torch.cat([x, x_reh[j]]), torch.cat([y, y_reh[j]])
        loss = torch.mean((model.actor(model.normalize(x)) - y) ** 2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        logged_loss = float(torch.mean((model.act_deterministic(x_log) - y_log) ** 2))
        rehearsal_loss = (
            float(torch.mean((model.act_deterministic(x_reh) - y_reh) ** 2)) if n_reh else None
        )
    return {
        "relabelled_mse": logged_loss,
        "rehearsal_mse": rehearsal_loss,
        "last_batch_mse": float(loss.detach()),
    }


def start_fine_tune(
    skill_dir: str | Path,
    datasets: Sequence[str | Path],
    out_dir: str | Path,
    marks,
    seed: int,
) -> tuple[Path, SkillCard, LoggedData, ActorCritic]:
    """What every fine-tune starts from: ``out_dir`` (FromLogsError where it exists: a
    fine-tune writes a new skill directory), the parent's validated card, the logged data
    of ``datasets`` with the operator's ``marks``, and the parent's actor-critic; the
    random generators seeded with ``seed``."""
    from policies.provenance import seed_everything

    out_dir = Path(out_dir)
    if out_dir.exists():
        raise FromLogsError(f"{out_dir} exists: a fine-tune writes a new skill directory")
    parent = validate_card(skill_dir)
    logged = load_logged(datasets, parent, marks)
    seed_everything(seed)
    return out_dir, parent, logged, model_from_onnx(parent.directory)


def fine_tune(
    skill_dir: str | Path,
    datasets: Sequence[str | Path],
    out_dir: str | Path,
    cfg: FineTuneConfig | None = None,
    marks=(),
    command: str = "",
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
) -> SkillCard:
    """A new version of the skill in ``skill_dir`` fine-tuned on ``datasets`` (module
    docstring), exported to ``out_dir`` (which must not exist); returns its card."""
    from policies.ppo.checkpoints import checkpoint_path, write_checkpoint, write_run_config
    from policies.ppo.config import TrainConfig, _env_config
    from policies.provenance import git_commit

    cfg = cfg or FineTuneConfig()
    out_dir, parent, logged, model = start_fine_tune(skill_dir, datasets, out_dir, marks, cfg.seed)
    if parent.calibration:  # its networks read calibrated observations, the logs raw ones
        raise FromLogsError(
            f"{parent.directory}: a version with an observation calibration is fine-tuned "
            "in simulation (--method sim), not by relabelling its raw logged states"
        )
    started = time.perf_counter()
    states = logged.obs
    failures = logged.obs[logged.failed]
    restarted = np.zeros((0, logged.obs.shape[1]), np.float32)
    if cfg.restarts > 0 and len(failures):
        rng = np.random.default_rng(cfg.seed)
        starts = failures[rng.choice(len(failures), cfg.restarts)]
        restarted = restart_states(
            model, parent, starts, cfg.restart_horizon, cfg.exploration_std, cfg.seed
        )
        states = np.concatenate([states, restarted])
    labels = expert_labels(parent, states)
    if cfg.anchor == "parent":
        kept = np.concatenate([~logged.failed, np.zeros(len(restarted), dtype=bool)])
        labels[kept] = parent_labels(model, states[kept])
    rehearsal = None
    if cfg.rehearsal_episodes > 0:
        rehearsed = rehearsal_states(model, parent, cfg.rehearsal_episodes)
        if cfg.anchor == "parent":
            rehearsal = (rehearsed, parent_labels(model, rehearsed))
        else:
            rehearsal = (rehearsed, expert_labels(parent, rehearsed))
    losses = regress(model, (states, labels), rehearsal, cfg)
    train_s = time.perf_counter() - started
    train_cfg = TrainConfig(task=parent.task, seed=cfg.seed)
    train_cfg.network = onnx_network_config(parent.directory)
    train_cfg.env = _env_config(dict(parent.provenance.get("training_noise") or {}))
    train_cfg.backend = str(parent.provenance.get("backend", train_cfg.backend))
    with tempfile.TemporaryDirectory(prefix="miles-finetune-") as run:
        run_dir = Path(run)
        meta = {"command": command, "git_commit": git_commit()}
        write_run_config(run_dir, train_cfg, meta)
        write_checkpoint(
            checkpoint_path(run_dir, 0),
            {
                "model": model.state_dict(),
                "obs_dim": model.obs_dim,
                "action_dim": model.action_dim,
                "config": train_cfg.to_dict(),
                "task": parent.task,
                "env_steps": 0,
                "iteration": 0,
                "wall_time_s": train_s,
                "evaluations": [],
            },
        )
        card = export_as(parent, run_dir, out_dir, cfg.eval_episodes, command, motor_filters)
    block = {
        "method": METHODS[cfg.anchor].format(fraction=cfg.rehearsal_fraction),
        "anchor": cfg.anchor,
        "logged_states": int(len(logged.obs)),
        "failed_states": int(logged.failed.sum()),
        "restart_states": int(len(restarted)),
        "restarts": cfg.restarts if len(failures) else 0,
        "rehearsal_states": 0 if rehearsal is None else int(len(rehearsal[0])),
        "rehearsal_episodes": cfg.rehearsal_episodes,
        "gradient_steps": cfg.gradient_steps,
        "losses": {k: (None if v is None else round(v, 6)) for k, v in losses.items()},
        "train_wall_time_s": round(train_s, 2),
    }
    return as_next_version(card, parent, logged, block, out_dir, command)


def export_as(
    parent: SkillCard,
    run_dir: Path,
    out_dir: Path,
    eval_episodes: int,
    command: str,
    motor_filters: Mapping[str, MotorFilterFactory] | None,
    calibration: dict | None = None,
) -> SkillCard:
    """Export ``run_dir``'s last checkpoint to ``out_dir`` under ``parent``'s name, its
    physics evaluation on the parent's evaluation seed and backend (through the new
    version's observation ``calibration``, where it has one)."""
    from policies.export import export_run

    evaluation = parent.evaluation or {}
    return export_run(
        run_dir,
        out_dir,
        name=parent.name,
        checkpoint="last",
        eval_episodes=eval_episodes,
        eval_seed=int(evaluation.get("seed", 1000)),
        eval_backend=str(evaluation.get("backend", "pybullet")),
        command=command,
        motor_filters=motor_filters,
        calibration=calibration,
    )


def as_next_version(
    card: SkillCard,
    parent: SkillCard,
    logged: LoggedData,
    block: dict,
    out_dir: Path,
    command: str,
) -> SkillCard:
    """Rewrite the card exported to ``out_dir`` as the version after ``parent``'s, with the
    ``provenance.fine_tune`` ``block`` completed by the parent, the data and the command."""
    data = card.to_dict()
    data["version"] = int(parent.version) + 1
    data["provenance"]["fine_tune"] = {
        **block,
        "parent": {
            "name": parent.name,
            "version": int(parent.version),
            "actor_sha256": parent.sha256.get("actor"),
            "path": str(parent.directory),
        },
        "data": logged.files,
        "command": command,
    }
    new = SkillCard.from_dict(data, card.path)
    write_card(new, out_dir)
    return validate_card(out_dir)
