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
- ``joint_limit_scale`` (1, 0.5): the safety supervisor's velocity, acceleration and jerk
  scales (a cautious deployment). Both points run behind the supervisor, composed by the
  layer that owns it (``limit_options``); without one the axis is reported
  ``unavailable`` with the reason, never estimated.

Every other setting stays at the task's evaluation defaults (or the ``--supervised`` run's).
:func:`run_sweep` returns the ``robustness.json`` document (:data:`ROBUSTNESS_SCHEMA`,
checked by :func:`validate_robustness`); :func:`write_sweep` writes it and a PNG plot.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np

import sims
from policies.evaluation import PolicyFn, run_episodes

logger = logging.getLogger(__name__)

SCHEMA_ID = "miles.robustness/1"
ROBUSTNESS_FILE = "robustness.json"
PLOT_FILE = "robustness.png"


@dataclass(frozen=True)
class SweepAxis:
    """One robustness axis."""

    name: str
    """Key in cards and in ``robustness.json``."""
    values: tuple[float, ...]
    """The points evaluated, nominal included."""
    nominal: float
    """The value of an undisturbed deployment."""
    unit: str
    """Unit of the values."""
    meaning: str
    """What the value changes, in words."""
    needs_object: bool = False
    """Only for tasks with a cube."""


SWEEP_AXES: dict[str, SweepAxis] = {
    a.name: a
    for a in (
        SweepAxis(
            "command_latency",
            (0, 1, 2, 3),
            0,
            "control periods",
            "every command reaches the arm exactly this many periods late",
        ),
        SweepAxis(
            "observation_noise",
            (0.0, 0.002, 0.005, 0.01),
            0.0,
            "m or rad (std)",
            "Gaussian noise on the measured joint, TCP and cube positions",
        ),
        SweepAxis(
            "cube_mass_scale",
            (0.5, 1.0, 2.0),
            1.0,
            "x nominal",
            "the cube's mass",
            needs_object=True,
        ),
        SweepAxis(
            "friction_scale",
            (0.5, 1.0, 1.5),
            1.0,
            "x nominal",
            "cube-table sliding friction",
            needs_object=True,
        ),
        SweepAxis(
            "joint_limit_scale",
            (1.0, 0.5),
            1.0,
            "x datasheet",
            "the safety supervisor's joint velocity, acceleration and jerk scales",
        ),
    )
}
"""Every axis a sweep knows."""


def task_axes(task: str) -> list[str]:
    """The axes that apply to ``task`` (what its card lists by default)."""
    has_object = sims.get_task(task).CONFIG.has_object
    return [n for n, a in SWEEP_AXES.items() if has_object or not a.needs_object]


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


def check_axes(requested: Sequence[str] | None, card_axes: Sequence[str] | None) -> list[str]:
    """The axes to run: ``requested`` (None or empty: every axis the card lists). Raises
    ValueError naming an axis the card does not list (or a card that lists none)."""
    if not card_axes:
        raise ValueError(
            "the skill card lists no robustness axes (robustness: {axes: [...]}); add them "
            "with `python -m policies.card_content refresh-robustness SKILL_DIR`"
        )
    unknown = [a for a in card_axes if a not in SWEEP_AXES]
    if unknown:
        raise ValueError(f"the card lists unknown sweep axes: {', '.join(unknown)}")
    axes = list(requested or card_axes)
    missing = [a for a in axes if a not in card_axes]
    if missing:
        raise ValueError(
            f"sweep axis {', '.join(missing)} is not among the card's axes "
            f"({', '.join(card_axes)})"
        )
    return axes


def _point_config(task_cfg, axis: str, value: float):
    r = task_cfg.randomization
    if axis == "observation_noise":
        r = dataclasses.replace(r, observation_noise_std=float(value))
    elif axis == "cube_mass_scale":
        r = dataclasses.replace(r, object_mass_scale=(float(value), float(value)))
    elif axis == "friction_scale":
        r = dataclasses.replace(r, friction_scale=(float(value), float(value)))
    return dataclasses.replace(task_cfg, randomization=r)


def _run_point(policy, task, backend, axis, value, episodes, seed, num_envs, env_opts, limits):
    """One point's evaluation as a ``robustness.json`` point."""
    task_cfg = _point_config(sims.get_task(task).CONFIG, axis, value)
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
    env = sims.make_env(task, backend, num_envs=num_envs, **kwargs)
    try:
        if axis == "command_latency":
            env = FixedCommandLatency(env, int(value))
        result = run_episodes(env, policy, episodes, seed)
    finally:
        env.close()
    point = {"value": value, **result.to_dict()}
    point.pop("backend", None)
    point.pop("seed", None)
    point["success"] = round(point["success"], 4)
    point["wall_s"] = round(point["wall_s"], 2)
    point["supervised"] = supervised
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
) -> dict[str, Any]:
    """Evaluate ``policy`` at every point of ``axes`` (:data:`SWEEP_AXES` names) over the
    same ``episodes`` seeded episodes; returns the ``robustness.json`` document.
    ``supervised``: whether ``env_options`` puts the supervisor in (recorded);
    ``info``: extra top-level keys (skill, policy)."""
    unknown = [a for a in axes if a not in SWEEP_AXES]
    if unknown:
        raise ValueError(f"unknown sweep axes: {', '.join(unknown)}")
    start = time.perf_counter()
    doc: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "task": task,
        **(info or {}),
        "backend": backend,
        "supervised": bool(supervised),
        "episodes": int(episodes),
        "seed": int(seed),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "axes": [],
    }
    has_object = sims.get_task(task).CONFIG.has_object
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
            for value in axis.values:
                point = _run_point(
                    policy, task, backend, name, value, episodes, seed, num_envs,
                    env_options, limit_options,
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


_POINT = {
    "type": "object",
    "required": ["value", "success", "ci95", "successes", "episodes", "mean_return"],
    "properties": {
        "value": {"type": "number"},
        "success": {"type": "number", "minimum": 0, "maximum": 1},
        "ci95": {
            "type": "array",
            "items": {"type": "number", "minimum": 0, "maximum": 1},
            "minItems": 2,
            "maxItems": 2,
        },
        "successes": {"type": "integer", "minimum": 0},
        "episodes": {"type": "integer", "minimum": 1},
        "mean_return": {"type": "number"},
        "mean_length": {"type": "number"},
        "supervised": {"type": "boolean"},
    },
}
ROBUSTNESS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["schema", "task", "backend", "supervised", "episodes", "seed", "axes"],
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "task": {"enum": list(sims.TASKS)},
        "backend": {"enum": list(sims.BACKENDS)},
        "supervised": {"type": "boolean"},
        "episodes": {"type": "integer", "minimum": 1},
        "seed": {"type": "integer"},
        "axes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "unit", "nominal", "status", "points"],
                "properties": {
                    "name": {"enum": list(SWEEP_AXES)},
                    "status": {"enum": ["ok", "unavailable"]},
                    "reason": {"type": "string"},
                    "points": {"type": "array", "items": _POINT},
                },
                "if": {"properties": {"status": {"const": "unavailable"}}},
                "then": {"required": ["reason"], "properties": {"points": {"maxItems": 0}}},
                "else": {"properties": {"points": {"minItems": 1}}},
            },
        },
    },
}
"""JSON schema of ``robustness.json`` (one entry per axis; an ``unavailable`` axis has a
``reason`` and no points; a point's success has its Wilson 95% CI)."""


def validate_robustness(doc: Any) -> None:
    """Raise ``jsonschema.ValidationError`` when ``doc`` is not a valid robustness document
    (also: every point's CI brackets its success and successes/episodes match it)."""
    jsonschema.validate(doc, ROBUSTNESS_SCHEMA)
    for axis in doc["axes"]:
        for p in axis["points"]:
            if (
                not (p["ci95"][0] <= p["success"] <= p["ci95"][1])
                or p["successes"] > p["episodes"]
                or abs(p["successes"] / p["episodes"] - p["success"]) > 1e-3
            ):
                raise jsonschema.ValidationError(f"{axis['name']}: inconsistent point {p}")


def write_sweep(doc: dict, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``robustness.json`` and ``robustness.png`` into ``out_dir``; returns both paths."""
    validate_robustness(doc)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / ROBUSTNESS_FILE
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path, plot_sweep(doc, out_dir / PLOT_FILE)


def plot_sweep(doc: dict, path: str | Path) -> Path:
    """One panel per axis: success with its 95% CI at each point (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    axes = doc["axes"]
    fig, panels = plt.subplots(1, len(axes), figsize=(3.2 * len(axes), 3.2), squeeze=False)
    for ax, entry in zip(panels[0], axes, strict=True):
        ax.set_title(entry["name"], fontsize=9)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
        if entry["status"] != "ok":
            ax.text(0.5, 0.5, "unavailable", ha="center", va="center", transform=ax.transAxes)
            continue
        x = np.arange(len(entry["points"]))
        y = np.array([p["success"] for p in entry["points"]])
        lo = y - np.array([p["ci95"][0] for p in entry["points"]])
        hi = np.array([p["ci95"][1] for p in entry["points"]]) - y
        ax.errorbar(x, y, yerr=[lo, hi], fmt="o-", capsize=3)
        ax.set_xticks(x, [f"{p['value']:g}" for p in entry["points"]])
        behind = all(p["supervised"] for p in entry["points"]) and not doc["supervised"]
        ax.set_xlabel(entry["unit"] + (" (supervised)" if behind else ""), fontsize=8)
    panels[0][0].set_ylabel("success (95% CI)")
    fig.suptitle(
        f"{doc.get('skill', doc['task'])}: {doc['episodes']} episodes per point, seed "
        f"{doc['seed']}" + (", supervised" if doc["supervised"] else ""),
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Path(path)
