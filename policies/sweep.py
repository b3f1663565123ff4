"""Robustness sweep of a skill: success over the same seeded episode set while one thing
about the world or the robot changes at a time (``miles eval SKILL --sweep``).

Axes (:data:`SWEEP_AXES`; a card lists those of its skill under ``robustness: {axes: [...]}``,
see :func:`task_axes`):

- ``command_latency`` (0, 1, 2, 3 control periods): every command reaches the arm exactly
  k periods late, in every episode (:class:`FixedCommandLatency`, a wrapper around the
  env; before an episode's first k commands the arm holds, fingers open, as the backends'
  own random delay does).
- ``observation_noise`` (0, 2, 5, 10 mm or mrad): the task config's
  ``randomization.observation_noise_std``.
- ``cube_mass_scale`` (0.5, 1, 2) and ``friction_scale`` (0.5, 1, 1.5): the cube's mass and
  the cube-table friction fixed at that multiple of nominal (the task config's
  ``randomization.object_mass_scale`` / ``friction_scale`` as a zero-width range); tasks
  with a cube only.
- ``cube_size`` (0.035, 0.04, 0.045 m): the cube's edge (``randomization.cube_size`` as a
  zero-width range; the task's own edge runs the base config); tasks with a cube, not on
  the isaac backend (its cube is the scene's).
- ``finger_reading`` (-4, 0, 4, 9, 18 mm): the finger opening a held cube reads, minus its
  edge (``randomization.finger_reading`` as a zero-width range; 0 runs the base config):
  the numba kernels' pads, PyBullet's reading map on top of its own reading
  (:func:`sims.tasks.base.reported_finger_width`); tasks with a gripper, not on the isaac
  backend.
- ``joint_limit_scale`` (1, 0.5): the safety supervisor's velocity, acceleration and jerk
  scales (a cautious deployment). Both points run behind the supervisor, composed by the
  layer that owns it (``limit_options``); without one the axis is reported
  ``unavailable`` with the reason, never estimated.

Every other setting stays at the episodes' base config (``run_sweep(config=...)``: ``miles eval
--sweep`` passes the card's envelope, as plain ``miles eval`` runs it; default the task's) or
the ``--supervised`` run's; ``robustness.json`` records the distances and areas that ran
(``episode_set``, :func:`policies.robustness.episode_set`).
:func:`run_sweep` returns the ``robustness.json`` document (:data:`ROBUSTNESS_SCHEMA`,
checked by :func:`validate_robustness`); :func:`write_sweep` writes it and a PNG plot.
The axes and the document are :mod:`policies.robustness` (re-exported here).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import sims
from policies.evaluation import PolicyFn, measured_on_twin, run_episodes
from policies.robustness import (  # noqa: F401 - re-exported: the public import path
    PLOT_FILE,
    ROBUSTNESS_FILE,
    ROBUSTNESS_SCHEMA,
    SCHEMA_ID,
    SWEEP_AXES,
    SweepAxis,
    check_axes,
    episode_set,
    plot_sweep,
    task_axes,
    validate_robustness,
    write_sweep,
)
from sims.tasks.base import unsupported_randomization

logger = logging.getLogger(__name__)


class SweepUnavailable(RuntimeError):
    """An axis point that cannot be run here (the reason goes into the output)."""


LimitOptions = Callable[[Any, float], dict]
"""``limit_options(task_config, joint_limit_scale) -> sims.make_env kwargs`` (config
included) with the safety supervisor at that scale; supplied by the layer that owns it."""
EnvOptions = Callable[[Any], dict]
"""``env_options(task_config) -> sims.make_env kwargs`` (config included) of the sweep's
other points (default: ``{"config": task_config}``; ``--supervised`` puts the supervisor in)."""


class FixedCommandLatency:
    """A batched env whose commands reach the arm exactly ``periods`` control periods late.
    Until an episode has had ``periods`` commands the arm gets the idle command (zeros: hold;
    an open gripper), as the backends' own random action delay does."""

    def __init__(self, env, periods: int):
        if periods < 0 or periods >= env.cfg.episode_steps:
            raise ValueError(
                f"a command latency of {periods} periods does not fit an episode of "
                f"{env.cfg.episode_steps} periods"
            )
        self.env, self.periods = env, int(periods)
        self.num_envs, self.cfg = env.num_envs, env.cfg
        self.backend_name = getattr(env, "backend_name", "")
        self._idle = np.zeros(env.cfg.action_dim)
        if env.cfg.has_gripper:
            self._idle[-1] = 1.0
        self._queue = np.tile(self._idle, (self.num_envs, self.periods + 1, 1))

    def reset(self, seed=None, options=None):
        self._queue[:] = self._idle
        return self.env.reset(seed=seed, options=options)

    def step(self, actions):
        q = self._queue
        q[:, 1:] = q[:, :-1].copy()
        q[:, 0] = np.asarray(actions, dtype=np.float64)
        obs, reward, terminated, truncated, info = self.env.step(q[:, self.periods].copy())
        q[np.logical_or(terminated, truncated)] = self._idle
        return obs, reward, terminated, truncated, info

    def render(self, *args, **kwargs):
        return self.env.render(*args, **kwargs)

    def close(self):
        self.env.close()


def _point_config(task_cfg, axis: str, value: float):
    r = task_cfg.randomization
    if axis == "observation_noise":
        r = dataclasses.replace(r, observation_noise_std=float(value))
    elif axis == "cube_mass_scale":
        r = dataclasses.replace(r, object_mass_scale=(float(value), float(value)))
    elif axis == "friction_scale":
        r = dataclasses.replace(r, friction_scale=(float(value), float(value)))
    elif axis == "cube_size" and not np.isclose(value, sims.get_task(task_cfg.name).CUBE_SIZE):
        r = dataclasses.replace(r, cube_size=(float(value), float(value)))
    elif axis == "finger_reading" and value != 0.0:
        r = dataclasses.replace(r, finger_reading=(float(value), float(value)))
    return dataclasses.replace(task_cfg, randomization=r)


_CANNOT_RANDOMIZE = {
    "cube_size": "it keeps the scene's cube",
    "finger_reading": "its fingers report their own opening",
}
"""Why a backend that cannot randomize an axis's field (``SweepAxis.randomization``) runs
none of its points."""


def _run_point(
    policy, task, base, backend, axis, value, episodes, seed, num_envs, env_opts, limits,
    calibrate=None,
):  # fmt: skip
    """One point's evaluation as a ``robustness.json`` point (``base``: the task config)."""
    task_cfg = _point_config(base, axis, value)
    field = SWEEP_AXES[axis].randomization
    if field and backend in sims.BACKENDS and unsupported_randomization([field], backend):
        raise SweepUnavailable(
            f"the {backend} backend cannot randomize {field}: {_CANNOT_RANDOMIZE[field]}"
        )
    supervised = axis == "joint_limit_scale"
    if supervised:
        if limits is None:
            raise SweepUnavailable(
                "the joint limits are the safety supervisor's; run the sweep through "
                "`miles eval --sweep`, which composes it"
            )
        if backend != "pybullet":
            raise SweepUnavailable("the safety supervisor runs on the pybullet backend only")
        kwargs = limits(task_cfg, float(value))
    else:
        kwargs = env_opts(task_cfg) if env_opts is not None else {"config": task_cfg}

    def make():
        return sims.make_env(task, backend, num_envs=num_envs, **kwargs)

    # each point a cell of its own, calibrated (on its twin) before it runs
    measured = measured_on_twin(make, calibrate) if calibrate is not None else None
    env = make()
    try:
        if axis == "command_latency":
            env = FixedCommandLatency(env, int(value))
        result = run_episodes(env, policy, episodes, seed)
    finally:
        env.close()
    point = {"value": value, **result.to_dict()}
    point.pop("backend", None)
    point.pop("seed", None)
    # the same seeded episodes at every point: which failed pairs two points episode by
    # episode (bench/paired_eval.py's exact McNemar), where the counts alone cannot
    point["failed_episodes"] = [i for i, ok in enumerate(result.per_episode_success) if not ok]
    point["success"] = round(point["success"], 4)
    point["wall_s"] = round(point["wall_s"], 2)
    point["supervised"] = supervised
    if measured:
        point["calibration"] = {k: round(float(v), 6) for k, v in measured.items()}
    return point


def run_sweep(
    policy: PolicyFn,
    task: str,
    axes: Sequence[str],
    episodes: int,
    seed: int = 1000,
    backend: str = "pybullet",
    num_envs: int = 1,
    env_options: EnvOptions | None = None,
    limit_options: LimitOptions | None = None,
    supervised: bool = False,
    info: dict | None = None,
    config=None,
    calibrate=None,
) -> dict[str, Any]:
    """Evaluate ``policy`` at every point of ``axes`` (:data:`SWEEP_AXES` names) over the
    same ``episodes`` seeded episodes; returns the ``robustness.json`` document.
    ``supervised``: whether ``env_options`` puts the supervisor in (recorded);
    ``info``: extra top-level keys (skill, policy); ``config``: the task config every point
    starts from (default: the task's; ``miles eval --sweep``: the card's envelope);
    ``calibrate``: called with a twin of each point's env before its episodes
    (:func:`policies.evaluation.measured_on_twin`), returning what it measured
    (:meth:`policies.runtime.SkillPolicy.calibrate`; recorded as the point's
    ``calibration`` where not empty)."""
    unknown = [a for a in axes if a not in SWEEP_AXES]
    if unknown:
        raise ValueError(f"unknown sweep axes: {', '.join(unknown)}")
    base = sims.get_task(task).CONFIG if config is None else config
    if base.name != task:
        raise ValueError(f"config is task {base.name!r}'s, not {task!r}'s")
    start = time.perf_counter()
    doc: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "task": task,
        **(info or {}),
        "backend": backend,
        "supervised": bool(supervised),
        "episodes": int(episodes),
        "seed": int(seed),
        "episode_set": episode_set(base),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "axes": [],
    }
    has_object = base.has_object
    for name in axes:
        axis = SWEEP_AXES[name]
        entry = {
            "name": name,
            "unit": axis.unit,
            "meaning": axis.meaning,
            "nominal": axis.nominal,
            "status": "ok",
            "points": [],
        }
        try:
            if axis.needs_object and not has_object:
                raise SweepUnavailable(f"task {task} has no cube")
            if axis.needs_gripper and not base.has_gripper:
                raise SweepUnavailable(f"task {task} has no gripper")
            for value in axis.values:
                point = _run_point(
                    policy, task, base, backend, name, value, episodes, seed, num_envs,
                    env_options, limit_options, calibrate,
                )  # fmt: skip
                point["supervised"] = point["supervised"] or bool(supervised)
                logger.info("%s = %s: success %.3f", name, value, point["success"])
                entry["points"].append(point)
        except SweepUnavailable as exc:
            entry.update(status="unavailable", reason=str(exc), points=[])
            logger.warning("sweep axis %s unavailable: %s", name, exc)
        doc["axes"].append(entry)
    doc["wall_s"] = round(time.perf_counter() - start, 2)
    return doc
