"""Success rate of a policy over a fixed, seeded set of episodes, with a 95% CI.

The episode set is fixed by (seed, num_envs, episodes): the env is reset with ``seed``
and env ``i`` contributes its first ``episodes // num_envs (+1)`` episodes, so the set
does not depend on how fast episodes end. Policies are deterministic callables
``obs [N, D] float32 -> actions [N, A]``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from policies.grasp_report import GraspTracker, empty_report, tracks_grasps

logger = logging.getLogger(__name__)

PolicyFn = Callable[[np.ndarray], np.ndarray]

FROZEN = 0.01
"""An action shorter than this (action units) leaves the arm where it is: a deterministic
policy whose action is under it at a noiseless observation of a still scene sees the same
observation next step, and stays (a still point of the closed loop)."""


class StallCounter:
    """Counts a batch's episodes in which the policy's action stayed under :data:`FROZEN`
    for at least ``steps`` consecutive steps (the episode stalled), for
    :func:`run_episodes`' ``stalls``."""

    def __init__(self, num_envs: int, steps: int):
        if steps < 1:
            raise ValueError(f"a stall is at least 1 step, not {steps}")
        self.steps = int(steps)
        self._run = np.zeros(num_envs, dtype=np.int64)
        self._held = np.zeros(num_envs, dtype=bool)
        self.stalled = 0
        """Counted episodes that stalled."""

    def step(self, actions: np.ndarray) -> None:
        """One step of the batch's ``actions`` [N, A]."""
        norms = np.linalg.norm(
            np.asarray(actions, dtype=np.float64).reshape(len(actions), -1), axis=1
        )
        self._run = np.where(norms < FROZEN, self._run + 1, 0)
        self._held |= self._run >= self.steps

    def end(self, i: int, counted: bool) -> None:
        """Env ``i``'s episode ended (``counted``: one of the episode set's)."""
        self.stalled += int(counted and self._held[i])
        self._run[i], self._held[i] = 0, False


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% for the default z); it always
    holds the observed rate (clamped there against rounding, e.g. at 100%)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


@dataclass
class EvalResult:
    """Outcome of an evaluation."""

    success: float
    """Success rate over the episodes."""
    ci95: tuple[float, float]
    """Wilson 95% confidence interval of the success rate."""
    mean_return: float
    """Mean undiscounted episode return."""
    mean_length: float
    """Mean episode length (steps)."""
    episodes: int
    """Number of episodes."""
    successes: int
    """Number of successful episodes."""
    backend: str = ""
    """Backend the episodes ran on."""
    seed: int = 0
    """Seed of the episode set."""
    wall_s: float = 0.0
    """Wall time of the evaluation (s)."""
    per_episode_success: list[bool] = field(default_factory=list, repr=False)
    """Outcome of each episode, in (env, episode) order."""
    grasp: dict[str, int] | None = None
    """Tasks that grasp: the episodes by what happened to the cube
    (:data:`policies.grasp_report.OUTCOMES`: success, never grasped, dropped in transit,
    placed off target, knocked at release, held at the end); None for the others."""

    def to_dict(self, per_episode: bool = False) -> dict:
        d = asdict(self)
        d["ci95"] = [round(self.ci95[0], 4), round(self.ci95[1], 4)]
        if not per_episode:
            d.pop("per_episode_success")
        if self.grasp is None:
            d.pop("grasp")
        return d


def _first_frame(frame) -> np.ndarray | None:
    if frame is None:
        return None
    if isinstance(frame, (list, tuple)):
        frame = frame[0] if frame else None
        if frame is None:
            return None
    frame = np.asarray(frame)
    if frame.ndim == 4:
        frame = frame[0]
    if frame.ndim != 3:
        return None
    return frame[..., :3].astype(np.uint8)


def _render(env) -> np.ndarray | None:
    try:
        frame = env.render(env_index=0, width=480, height=360)
    except TypeError:
        frame = env.render()
    return _first_frame(frame)


def run_episodes(
    env,
    policy: PolicyFn,
    episodes: int,
    seed: int,
    video_frames: list | None = None,
    video_episodes: int = 1,
    grasps: GraspTracker | None = None,
    stalls: StallCounter | None = None,
) -> EvalResult:
    """Run ``episodes`` episodes of ``policy`` on an existing batched ``env``.

    The env is reset with ``seed`` first, so calling this again on the same env replays
    the same episode set (given a deterministic policy and backend). Where
    ``video_frames`` is a list, frames of env 0's first ``video_episodes`` episodes are
    appended to it (from ``env.render()``). ``grasps`` (a :class:`GraspTracker` for the
    env's task and batch): the result's :attr:`EvalResult.grasp` report. ``stalls`` (a
    :class:`StallCounter` for the env's batch): counts the episode set's stalled episodes.
    """
    import time

    start = time.perf_counter()
    num_envs = env.num_envs
    quota = np.array(
        [episodes // num_envs + (1 if i < episodes % num_envs else 0) for i in range(num_envs)]
    )
    done_count = np.zeros(num_envs, dtype=np.int64)
    ep_return = np.zeros(num_envs)
    ep_length = np.zeros(num_envs, dtype=np.int64)
    outcomes: list[list[tuple[bool, float, int]]] = [[] for _ in range(num_envs)]
    obs, _ = env.reset(seed=seed)
    report = None if grasps is None else empty_report()
    if grasps is not None:
        grasps.start(obs)
    record = video_frames is not None
    if record:
        frame = _render(env)
        if frame is not None:
            video_frames.append(frame)
    while np.any(done_count < quota):
        actions = np.asarray(policy(np.asarray(obs, dtype=np.float32)), dtype=np.float32)
        obs, reward, terminated, truncated, info = env.step(actions)
        if stalls is not None:
            stalls.step(actions)
        ep_return += reward
        ep_length += 1
        ended = np.logical_or(terminated, truncated)
        if grasps is not None:
            grasps.step(obs, ended, info["final_obs"])
        if record and done_count[0] < video_episodes:
            frame = _render(env)
            if frame is not None:
                video_frames.append(frame)
        for i in np.flatnonzero(ended):
            if done_count[i] < quota[i]:
                success = bool(info["success"][i]) if "success" in info else bool(terminated[i])
                outcomes[i].append((success, float(ep_return[i]), int(ep_length[i])))
                if report is not None:
                    report[grasps.outcome(int(i), success)] += 1
            if stalls is not None:
                stalls.end(int(i), bool(done_count[i] < quota[i]))
            done_count[i] += 1
            ep_return[i] = 0.0
            ep_length[i] = 0
    flat = [o for env_outcomes in outcomes for o in env_outcomes]
    successes = sum(1 for s, _, _ in flat if s)
    n = len(flat)
    return EvalResult(
        success=successes / n if n else 0.0,
        ci95=wilson_interval(successes, n),
        mean_return=float(np.mean([r for _, r, _ in flat])) if n else 0.0,
        mean_length=float(np.mean([length for _, _, length in flat])) if n else 0.0,
        episodes=n,
        successes=successes,
        seed=seed,
        backend=getattr(env, "backend_name", ""),
        wall_s=time.perf_counter() - start,
        per_episode_success=[s for s, _, _ in flat],
        grasp=report,
    )


def merge_results(
    parts: list[EvalResult | None], seed: int = 0, parallel: bool = True
) -> EvalResult:
    """One result from several episode sets' outcomes (the ranks of a distributed run, or
    the two arms of a run with plain-arm episodes); ``None`` and empty parts are skipped.
    ``parallel``: the sets ran at once (wall time: the longest), else one after another
    (the sum)."""
    parts = [p for p in parts if p is not None and p.episodes > 0]
    n = sum(p.episodes for p in parts)
    successes = sum(p.successes for p in parts)
    walls = [p.wall_s for p in parts]
    return EvalResult(
        success=successes / n if n else 0.0,
        ci95=wilson_interval(successes, n),
        mean_return=sum(p.mean_return * p.episodes for p in parts) / n if n else 0.0,
        mean_length=sum(p.mean_length * p.episodes for p in parts) / n if n else 0.0,
        episodes=n,
        successes=successes,
        backend=parts[0].backend if parts else "",
        seed=seed,
        wall_s=(max(walls, default=0.0) if parallel else sum(walls)),
        per_episode_success=[s for p in parts for s in p.per_episode_success],
        grasp=_merge_grasps([p.grasp for p in parts]),
    )


def _merge_grasps(reports: list[dict[str, int] | None]) -> dict[str, int] | None:
    """The parts' grasp reports summed; None unless every part has one."""
    if not reports or any(r is None for r in reports):
        return None
    total = empty_report()
    for report in reports:
        for outcome, count in report.items():
            total[outcome] += count
    return total


def variant_config(task: str, variant: str, config=None):
    """``config`` (default: the task's) running only ``variant`` episodes of ``task`` (its
    module's ``VARIANTS``, e.g. pick_place's ``pads`` and ``stack``); ValueError naming the
    task's variants when it has no such variant."""
    import sims

    module = sims.get_task(task)
    variants = tuple(getattr(module, "VARIANTS", ()))
    if variant not in variants:
        known = f"its variants: {', '.join(variants)}" if variants else "it has none"
        raise ValueError(f"task {task} has no episode variant {variant!r} ({known})")
    return module.variant_config(variant, config if config is not None else module.CONFIG)


def variant_target(task: str, variant: str) -> str | None:
    """The route target kind of ``variant``'s goals (:mod:`policies.library`):
    :data:`~policies.library.ROUTE_CUBE` where its episodes stack (the goal on a cube),
    None where they do not (the table or the air: the active version). ValueError as
    :func:`variant_config`."""
    from policies.library import ROUTE_CUBE

    return ROUTE_CUBE if variant_config(task, variant).stack_fraction > 0 else None


def grasp_tracker(task: str, num_envs: int, cfg) -> GraspTracker | None:
    """A :class:`GraspTracker` for ``task``'s episodes when it grasps (a cube and a
    gripper, ``cfg``: the episodes' task config), else None."""
    import sims

    layout = sims.get_task(task).LAYOUT
    if not (cfg.has_object and cfg.has_gripper and tracks_grasps(layout)):
        return None
    return GraspTracker(layout, num_envs, cfg.success_threshold)


def measured_on_twin(make: Callable[[], Any], calibrate: Callable[[Any], Any]) -> Any:
    """What ``calibrate`` measures on a twin of the cell: an env ``make`` builds for it alone
    (the same task, backend, envs and configuration as the one evaluated) and closes after.
    The measuring episode (the empty gripper closed) then never touches the env whose seeded
    episodes are scored: a PyBullet batch of tower worlds carries something of a previous
    episode through a seeded reset, so measuring on the scored env made its 16-env tower
    runs differ from run to run (docs/stacking.md, part 30)."""
    twin = make()
    try:
        return calibrate(twin)
    finally:
        twin.close()


def evaluate(
    policy: PolicyFn,
    task: str,
    backend: str = "pybullet",
    episodes: int = 100,
    seed: int = 1000,
    num_envs: int = 1,
    config=None,
    video_path: str | Path | None = None,
    variant: str | None = None,
    calibrate=None,
    **env_kwargs,
) -> EvalResult:
    """Build an env, run the episode set, close the env (see :func:`run_episodes`);
    ``variant``: only that episode variant of the task (:func:`variant_config`);
    ``calibrate``: called before the episodes, as a cell calibrates before its first, on a
    twin of the env (:func:`measured_on_twin`; :meth:`policies.runtime.SkillPolicy.calibrate`)."""
    import sims

    if variant is not None:
        config = variant_config(task, variant, config)

    def make():
        return sims.make_env(task, backend, num_envs=num_envs, config=config, **env_kwargs)

    if calibrate is not None:
        measured_on_twin(make, calibrate)
    env = make()
    frames: list | None = [] if video_path is not None else None
    try:
        result = run_episodes(
            env,
            policy,
            episodes,
            seed,
            video_frames=frames,
            video_episodes=3,
            grasps=grasp_tracker(task, env.num_envs, env.cfg),
        )
    finally:
        env.close()
    result.backend = backend
    if video_path is not None:
        if frames:
            write_video(frames, video_path, fps=round(1.0 / env.cfg.control_dt))
        else:
            logger.warning("the %s backend rendered no frames; no video written", backend)
    return result


def write_video(frames: list[np.ndarray], path: str | Path, fps: int = 25) -> Path:
    """An animated GIF (``.gif``) or numbered PNG frames (a directory, any other path)."""
    from PIL import Image

    path = Path(path)
    images = [Image.fromarray(f) for f in frames]
    if path.suffix.lower() == ".gif":
        path.parent.mkdir(parents=True, exist_ok=True)
        images[0].save(
            path,
            save_all=True,
            append_images=images[1:],
            duration=max(1, round(1000 / fps)),
            loop=0,
        )
    else:
        path.mkdir(parents=True, exist_ok=True)
        for i, image in enumerate(images):
            image.save(path / f"frame_{i:04d}.png")
    return path
