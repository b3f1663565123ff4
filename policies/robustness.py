"""What a robustness sweep measures and how it is recorded: the axes (:data:`SWEEP_AXES`,
:func:`task_axes` for a task's card, :func:`check_axes` for a request) and the
``robustness.json`` document (:data:`ROBUSTNESS_SCHEMA`, :func:`validate_robustness`,
:func:`write_sweep` with its PNG plot). Running a sweep is :mod:`policies.sweep`, which
re-exports these names.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np

import sims

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
    needs_gripper: bool = False
    """Only for tasks with a gripper."""
    randomization: str = ""
    """The ``DomainRandomization`` field a point sets (``sims.tasks.base``); a backend that
    cannot randomize it reports the axis ``unavailable``. '': every backend can."""


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
            "cube_size",
            (0.035, 0.04, 0.045),
            0.04,
            "m",
            "the cube's edge",
            needs_object=True,
            randomization="cube_size",
        ),
        SweepAxis(
            "finger_reading",
            (-0.004, 0.0, 0.004, 0.009, 0.018),
            0.0,
            "m",
            "the finger opening a held cube reads, minus its edge (under 0: compliant pads; "
            "PyBullet: on top of its own reading)",
            needs_object=True,
            needs_gripper=True,
            randomization="finger_reading",
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
    cfg = sims.get_task(task).CONFIG
    return [
        n
        for n, a in SWEEP_AXES.items()
        if (cfg.has_object or not a.needs_object) and (cfg.has_gripper or not a.needs_gripper)
    ]


def episode_set(task_cfg) -> dict[str, Any]:
    """The episodes a sweep ran, as ``robustness.json`` records them (``episode_set``):
    ``goal_distance`` [lo, hi] (m, cube-goal in the table plane), ``object_region`` and
    ``goal_region`` ([[xlo, ylo], [xhi, yhi]] m, base frame) of a task with a cube; empty
    for other tasks. ``miles eval --sweep`` adds ``source`` (where they came from)."""
    if not task_cfg.has_object:
        return {}
    out: dict[str, Any] = {"goal_distance": [float(v) for v in task_cfg.goal_distance_range]}
    for key, region in (
        ("object_region", task_cfg.object_xy_range),
        ("goal_region", task_cfg.goal_xy_range),
    ):
        if region is not None:
            out[key] = [[float(v) for v in corner] for corner in region]
    return out


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
        "failed_episodes": {"type": "array", "items": {"type": "integer", "minimum": 0}},
    },
}
"""A sweep point; ``failed_episodes`` (the indices of the episodes that failed, in
:func:`policies.evaluation.run_episodes`' order: env 0's episodes first; files written
before it have none) pairs two points, which run the same seeded episodes."""
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
        "episode_set": {
            "type": "object",
            "properties": {
                "goal_distance": {"type": "array", "items": {"type": "number"}, "maxItems": 2},
                "object_region": {"type": "array", "maxItems": 2},
                "goal_region": {"type": "array", "maxItems": 2},
                "source": {"type": "string"},
            },
        },
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
