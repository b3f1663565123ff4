"""Fine-tuning in simulation from logs (``miles train SKILL --from-logs DIR --method sim``):
DAgger on-policy, in the backend the active version was last trained in, on the cell the
logs describe, starting from the active version's own weights.

:mod:`policies.finetune` regresses the actor once onto labelled logged states; here the
student drives the simulator and the scripted expert labels every state it visits (the
training recipe's own last stage, :class:`~policies.ppo.imitation.DAggerRunner`), so the
states it learns on are the ones it reaches. The cell comes from two places:

- the active version's training environment (its card's ``provenance.training_noise``:
  backend, motor filter, envelope, randomization), as it was trained;
- what the logs identify (:func:`reading_offset`): how much wider than in that
  environment the fingers read on a held cube. Each logged request's median held reading
  is compared with the parent's own on the card's evaluation episodes in its training
  environment (:func:`reference_states`), so the simulator's own reading cancels; a
  bootstrap over the episodes gives the estimate's interval. The training then draws the
  reading offset per episode from 0 (the original cell, against forgetting) to the
  interval's far end (:func:`reading_range`, ``env.finger_reading``). Recalibrated
  (:attr:`SimFineTuneConfig.calibrate`; by default half the estimate, with no DAgger
  steps: the measured recipe), the new version's card carries the calibration, the
  estimate and its interval as the observation's ``calibration``
  (:mod:`policies.calibration`: the reading with the offset taken out is what its
  networks see) and the training draws what the interval leaves of the offset, its ends
  less the calibration (:attr:`SimFineTuneConfig.calibrate`: all of the estimate, or a
  share of it); ``steps`` 0: the calibration alone, the parent's networks.

Masses and frictions do not show in the observation and cannot be identified: the training
draws them per episode over ranges wider than the parent's
(:attr:`SimFineTuneConfig.object_mass_scale`, :attr:`SimFineTuneConfig.friction_scale`).
The result is a new skill directory of the next version, with the parent, the data and the
identification in its card's ``provenance.fine_tune``
(:func:`policies.finetune.as_next_version`).
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from policies.cards import SkillCard
from policies.finetune import (
    as_next_version,
    export_as,
    onnx_network_config,
    start_fine_tune,
)
from policies.ppo.imitation_config import ImitationConfig

if TYPE_CHECKING:
    from policies.ppo.envs import MotorFilterFactory

logger = logging.getLogger(__name__)

HELD_LIFT = 0.02
"""m: a cube whose centre is this far above its rest height, near the TCP, is held."""
HELD_NEAR = 0.03
"""m: the most a held cube's centre lies from the TCP."""
MIN_HELD_STATES = 20
"""Held states needed on each side (logs, reference) to identify a reading offset."""
MIN_OFFSET = 0.002
"""m: identified offsets smaller than this are noise (the cell trains as it was)."""
RESAMPLES = 200
"""Bootstrap resamples of the identification, episodes drawn with replacement on each side."""
INTERVAL = (0.025, 0.975)
"""Quantiles of the resampled offsets that bound the identification's interval: the
training range reaches to its far end."""
MAX_PAIRS_SIDE = 1500
"""Held states per side (an even subsample beyond it) in one shift estimate: its pairwise
differences stay ~2 million."""


@dataclass
class SimFineTuneConfig:
    steps: int = 0
    """Env steps of the DAgger stage; 0 (the default): none, the parent's networks under
    the calibration (docs/training.md: every DAgger stage measured, 60,000 steps and more,
    left the changed cell at 86-96%; the calibration alone, at :attr:`calibrate` 0.5, 97%
    and the original cell 99%)."""
    num_envs: int = 16
    rollout_steps: int = 64
    beta_start: float = 0.2
    """Share of the expert's actions in the executed mixture at the start (to 0 at
    ``beta_steps``): the student drives from its own, already good, weights."""
    beta_steps: int = 30_000
    learning_rate: float = 1e-4
    augment_fields: tuple[str, ...] = ("joint_vel",)
    """Observation fields scaled randomly in the regression (the recipe's)."""
    label_augmented: bool = True
    """Each scaled state labelled by the expert as the student sees it
    (``imitation.label_augmented``): pick_place's expert reads ``joint_vel`` in its close
    gate, so without it the run's guard refuses the field; for an expert that ignores the
    fields (push, reach) the labels are the same either way."""
    loss: str = ImitationConfig.loss
    """The actor's regression loss (``imitation.loss``: ``mse`` or ``relative``,
    :func:`policies.ppo.imitation_loss.imitation_loss`)."""
    loss_floor: float = ImitationConfig.loss_floor
    """``relative``: the shortest label norm its error is divided by (``imitation.loss_floor``)."""
    reference_episodes: int = 20
    """Episodes of the card's evaluation set whose held readings are the reference."""
    calibrate: float = 0.5
    """The share of the identified reading offset the new version takes out of its
    observation (its card's ``calibration``, :mod:`policies.calibration`) before training
    around what the interval leaves (:func:`reading_range`): 0 none, the observation as
    the cell forms it; 1 all of it (the gripper recalibrated to the logged cell: the
    original cell then reads the whole offset off); 0.5 (the default) the midpoint, each
    of the logged cell and the original reading half the offset off, which the parent
    tolerates. docs/training.md measures them."""
    object_mass_scale: tuple[float, ...] = ()
    """[lo, hi]: the cube's mass, x its nominal, drawn per training episode; (): the
    parent's range. Mass does not show in the observation, so the logs cannot identify
    it; a wider range is a guess at the cells the skill may meet (docs/training.md: x0.8-3
    measured, a range that holds the loop's own x3, so not the default)."""
    friction_scale: tuple[float, ...] = ()
    """[lo, hi]: the cube-table friction, x its nominal, per training episode; (): the
    parent's range; unidentified for the same reason."""
    eval_episodes: int = 50
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= float(self.calibrate) <= 1.0:
            raise ValueError(f"calibrate is a share in [0, 1], got {self.calibrate!r}")


def held_readings(obs: np.ndarray, task: str) -> np.ndarray:
    """The finger readings (m) of the states in ``obs`` where the cube is held (lifted, near
    the TCP); empty for a task without a finger reading."""
    import sims

    slices = sims.get_task(task).LAYOUT.slices
    if "finger_width" not in slices or "object_pos" not in slices:
        return np.zeros(0)
    from sims.tasks.push import CUBE_REST_Z

    obs = np.asarray(obs, dtype=np.float64)
    cube, tcp = obs[:, slices["object_pos"]], obs[:, slices["tcp_pos"]]
    held = (cube[:, 2] > CUBE_REST_Z + HELD_LIFT) & (
        np.linalg.norm(cube - tcp, axis=1) < HELD_NEAR
    )
    return obs[held, slices["finger_width"]].reshape(-1)


def shift_estimate(a: np.ndarray, b: np.ndarray) -> float:
    """How much ``a`` lies above ``b``: the median of their pairwise differences (the
    Hodges-Lehmann two-sample shift), each side evenly subsampled to
    :data:`MAX_PAIRS_SIDE`. Held readings come in modes (how the cube sits between the
    pads), and each side's median jumps between modes with its mix; the pairwise median
    moves with the whole distribution."""

    def thin(x: np.ndarray) -> np.ndarray:
        x = np.sort(np.asarray(x, dtype=np.float64))
        if len(x) <= MAX_PAIRS_SIDE:
            return x
        return x[np.linspace(0, len(x) - 1, MAX_PAIRS_SIDE).round().astype(int)]

    return float(np.median(np.subtract.outer(thin(a), thin(b))))


def episode_readings(obs: np.ndarray, episode: np.ndarray | None, task: str) -> np.ndarray:
    """The median held reading (m) of each episode of ``obs`` that holds the cube
    (``episode``: each state's episode; None: each state its own)."""
    if episode is None:
        return held_readings(obs, task)
    episode = np.asarray(episode)
    held = (held_readings(obs[episode == e], task) for e in np.unique(episode))
    return np.array([np.median(r) for r in held if len(r)])


def reading_offset(
    logged: np.ndarray,
    reference: np.ndarray,
    task: str,
    logged_episode: np.ndarray | None = None,
    reference_episode: np.ndarray | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> dict:
    """How much wider (m) the fingers read on a held cube in ``logged`` than in
    ``reference``, with the evidence and its uncertainty. Each episode counts once, by its
    median held reading (:func:`episode_readings`): a request that hesitates with the cube
    in the hand holds it for many periods, and counting states would let a few such
    requests decide. The offset is the :func:`shift_estimate` of the logged episodes'
    readings against the reference's; ``resamples`` bootstrap resamples of the episodes
    of each side give its standard deviation (``spread``) and :data:`INTERVAL` quantiles
    (``interval``, widened to hold the estimate). ``offset`` None when either side has
    fewer than :data:`MIN_HELD_STATES` held states or the task has no reading."""
    held = [held_readings(logged, task), held_readings(reference, task)]
    out = {"logged_held_states": int(len(held[0])), "reference_held_states": int(len(held[1]))}
    if min(len(h) for h in held) < MIN_HELD_STATES:
        return {**out, "offset": None}
    a = episode_readings(logged, logged_episode, task)
    b = episode_readings(reference, reference_episode, task)
    offset = shift_estimate(a, b)
    rng = np.random.default_rng(seed)
    draws = np.array(
        [shift_estimate(rng.choice(a, len(a)), rng.choice(b, len(b))) for _ in range(resamples)]
    )
    lo, hi = np.quantile(draws, INTERVAL) if resamples else (offset, offset)
    return {
        **out,
        "logged_episodes": int(len(a)),
        "reference_episodes": int(len(b)),
        "logged_median": round(float(np.median(a)), 5),
        "reference_median": round(float(np.median(b)), 5),
        "offset": round(offset, 5),
        "resamples": int(resamples),
        "spread": round(float(draws.std()), 5) if resamples else None,
        "interval": [round(min(float(lo), offset), 5), round(max(float(hi), offset), 5)],
    }


def reference_states(
    model,
    parent: SkillCard,
    cfg: SimFineTuneConfig,
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The observations the parent visits on ``cfg.reference_episodes`` of its card's
    evaluation seed in the environment it was trained in (its backend, motor filter,
    episode length and envelope, without the training noise: its run's own evaluation
    env), and each state's episode. A cell runs its skill behind the same safety
    supervisor, so both sides grasp and carry the cube at the same pace."""
    from policies.ppo.envs import evaluation_task_config, make_env
    from policies.sim_states import visited_states

    train_cfg = sim_train_config(parent, [], cfg)
    env = make_env(
        train_cfg, train_cfg.backend, 1, evaluation_task_config(train_cfg), motor_filters
    )
    seed = int((parent.evaluation or {}).get("seed", 1000))
    return visited_states(model, env, cfg.reference_episodes, seed)


def reading_range(identified: dict, calibration: float = 0.0) -> list[float]:
    """The reading offsets (m) a fine-tune draws from, per episode; [] when nothing was
    identified or it is under :data:`MIN_OFFSET`. Uncalibrated: from 0 (the original
    cell, against forgetting) to the far end of the identification's ``interval`` (the
    offsets the logs do not rule out, the cell's among them; the estimate itself without
    one). With a ``calibration`` (m: the offset the new version takes out of its
    reading): what is left of the interval, its ends less the calibration. Within the
    simulators' range."""
    from sims.tasks.base import FINGER_READING_RANGE

    offset = identified.get("offset")
    if offset is None or abs(offset) < MIN_OFFSET:
        return []
    interval = identified.get("interval") or (offset, offset)
    if calibration:
        return [round(float(np.clip(v - calibration, *FINGER_READING_RANGE)), 5) for v in interval]
    reach = interval[1] if offset > 0 else interval[0]
    return sorted([0.0, float(np.clip(reach, *FINGER_READING_RANGE))])


def identified_calibration(identified: dict, share: float = 1.0) -> dict:
    """The new version's ``calibration`` block for an identification (:func:`reading_offset`):
    ``share`` of its estimate, with the estimate's interval; {} when nothing was identified
    or it is under :data:`MIN_OFFSET`, or ``share`` is 0 (the version reads as its parent)."""
    from policies.calibration import reading_calibration

    offset = identified.get("offset")
    if offset is None or abs(offset) < MIN_OFFSET or not share:
        return {}
    source = (
        "identified from the logs' held cubes: the Hodges-Lehmann shift of the logged "
        f"requests' median held readings ({identified.get('logged_episodes')}) against the "
        f"parent's on its card's evaluation episodes ({identified.get('reference_episodes')}), "
        f"{identified.get('resamples')} bootstrap resamples for the interval"
    )
    return reading_calibration(identified, source, share)


def sim_train_config(parent: SkillCard, finger_reading: Sequence[float], cfg: SimFineTuneConfig):
    """The DAgger stage's :class:`~policies.ppo.config.TrainConfig`: the parent's network,
    backend and training environment, the reading offset drawn in ``finger_reading``
    ([lo, hi] m; []: as the parent was trained) and, for a task with a cube, its mass and
    friction in ``cfg``'s ranges; ValueError for an imitation setting the training would
    refuse (an unknown loss)."""
    import sims
    from policies.ppo.config import RunnerConfig, TrainConfig, _env_config
    from policies.ppo.imitation_config import imitation_from_dict

    env = dict(parent.provenance.get("training_noise") or {})
    if finger_reading:
        env["finger_reading"] = [float(v) for v in finger_reading]
    if sims.get_task(parent.task).CONFIG.has_object:
        for key in ("object_mass_scale", "friction_scale"):
            if getattr(cfg, key):
                env[key] = [float(v) for v in getattr(cfg, key)]
    backend = str(parent.provenance.get("backend", "pybullet"))
    return TrainConfig(
        task=parent.task,
        backend=backend,
        seed=cfg.seed,
        network=onnx_network_config(parent.directory),
        runner=RunnerConfig(
            num_envs=cfg.num_envs,
            rollout_steps=cfg.rollout_steps,
            total_steps=cfg.steps,
            checkpoint_every=10**6,
            eval_every=0,
            eval_backend=backend,
            final_eval_episodes=0,
            eval_on_train_success=False,
            progress=False,
            tensorboard=False,
        ),
        env=_env_config(env),
        imitation=imitation_from_dict(
            {
                "expert": "scripted",
                "beta_start": cfg.beta_start,
                "beta_steps": cfg.beta_steps,
                "learning_rate": cfg.learning_rate,
                "augment_fields": tuple(cfg.augment_fields),
                "label_augmented": bool(cfg.label_augmented),
                "loss": cfg.loss,
                "loss_floor": cfg.loss_floor,
            }
        ),
    )


def sim_fine_tune(
    skill_dir: str | Path,
    datasets: Sequence[str | Path],
    out_dir: str | Path,
    cfg: SimFineTuneConfig | None = None,
    marks=(),
    command: str = "",
    motor_filters: Mapping[str, MotorFilterFactory] | None = None,
) -> SkillCard:
    """A new version of the skill in ``skill_dir`` trained by DAgger in simulation on the
    cell ``datasets`` describe (module docstring), exported to ``out_dir`` (which must not
    exist); returns its card."""
    from policies.ppo.imitation import runner_class
    from policies.provenance import git_commit

    cfg = cfg or SimFineTuneConfig()
    out_dir, parent, logged, model = start_fine_tune(skill_dir, datasets, out_dir, marks, cfg.seed)
    started = time.perf_counter()
    reference, reference_episode = reference_states(model, parent, cfg, motor_filters)
    identified = reading_offset(
        logged.obs, reference, parent.task, logged.episode, reference_episode, seed=cfg.seed
    )
    calibration = identified_calibration(identified, cfg.calibrate)
    taken = float(calibration["finger_width"]["offset_m"]) if calibration else 0.0
    train_cfg = sim_train_config(parent, reading_range(identified, taken), cfg)
    logger.info(
        "fine-tune in sim: reading offset %s, calibration %s, %d steps",
        identified,
        calibration,
        cfg.steps,
    )
    with tempfile.TemporaryDirectory(prefix="miles-finetune-sim-") as run:
        meta = {"command": command, "git_commit": git_commit()}
        runner = runner_class(train_cfg)(
            train_cfg, Path(run), meta=meta, motor_filters=motor_filters
        )
        runner.model.load_state_dict(model.state_dict())
        if runner.model.normalizer is not None:  # the parent's statistics, at their weight
            seen = parent.provenance.get("total_steps") or parent.provenance.get("steps") or 0
            runner.model.normalizer.count.fill_(float(max(int(seen), 1)))
        runner.learn()
        train_s = time.perf_counter() - started
        card = export_as(
            parent, Path(run), out_dir, cfg.eval_episodes, command, motor_filters, calibration
        )
    reading = (
        f"{cfg.calibrate:g} of the finger reading offset identified from the logs' held cubes "
        "taken out of the observation (the card's calibration), what its interval leaves of "
        "it drawn per episode"
        if calibration
        else "the finger reading offset identified from the logs' held cubes drawn per "
        "episode from 0 to its interval's far end"
    )
    method = (
        "DAgger on-policy in simulation from the parent's weights "
        f"({cfg.steps} env steps): the training environment of the parent, {reading}, the "
        "cube's mass and friction over the config's ranges (the parent's by default); the "
        "scripted expert labels every state"
    )
    if cfg.steps == 0:
        method = "the parent's networks, no training (0 env steps), " + (
            f"{cfg.calibrate:g} of the finger reading offset identified from the logs' "
            "held cubes taken out of the observation (the card's calibration)"
            if calibration
            else "nothing identified to take out of the observation"
        )
    block = {
        "method": method,
        "config": dataclasses.asdict(cfg),
        "identified": identified,
        "env_finger_reading": list(train_cfg.env.finger_reading),
        "backend": train_cfg.backend,
        "logged_states": int(len(logged.obs)),
        "failed_states": int(logged.failed.sum()),
        "train_wall_time_s": round(train_s, 2),
    }
    return as_next_version(card, parent, logged, block, out_dir, command)
