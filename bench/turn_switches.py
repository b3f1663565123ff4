"""How abruptly the scripted turn expert's labels switch along a policy's own states, and
how far a student's actions are from those labels near a switch and away from one.

    python bench/turn_switches.py [--skill policies/skills/turn/versions/1] [--steps 450]
        [--envs 64] [--seed 1000] [--config config/train/turn.yaml] [--window 2]

Why: DAgger labels the states the student visits with the expert's action there. Where the
expert's choice of face or of the side of the face jumps between neighbouring states, a
regression that blends the labels on both sides pushes somewhere in between (a face's
middle slides the cube instead of turning it). This measures, on the numba command-path
model of the training config's first stage, along the student's states and along the
expert's own:

- how often consecutive labels point apart (cosine < 0) and how often the face
  (:func:`policies.experts.turn.choose_face`), the side of the face or the phase (approach
  or push) changes, per 100 steps;
- how many face changes are undone within ``UNDONE_STEPS`` (the choice chattering);
- the student's error ``|student - label|`` at steps within ``--window`` steps of a face or
  side change ("near") and elsewhere ("away"), and what share of its error lies near them;
- how the failed episodes ended: the yaw not reached, the cube slid too far;
- per phase (the expert's approach or push, :func:`phase_stats`): the label's norm, the
  student's error, and the student's component along the label over the label's norm (below
  1: it moves less than the expert would there), as means and medians.

Prints one JSON object: ``{"student": {...}, "expert": {...}, "config": ..., ...}``, each
part as :func:`switch_stats` returns it (the student part also with its errors and, under
``phases``, :func:`phase_stats`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from policies.experts import turn as expert  # noqa: E402
from sims.tasks.turn import TURN_TOLERANCE_DEG, TURN_XY_TOLERANCE  # noqa: E402

Policy = Callable[[np.ndarray], np.ndarray]

MIN_LABEL = 1e-3
"""A label shorter than this (action units) has no direction to measure a policy along."""

UNDONE_STEPS = 3
"""A face change followed by the face before it within this many steps is undone (the
choice chattered)."""


def first_stage_env(config: str | Path, num_envs: int):
    """(the numba env, its task config) of a training config's first stage (its top-level
    ``env`` block: the command-path model, latency, noise, contact randomization)."""
    from policies.ppo.config import TrainConfig
    from policies.ppo.envs import make_env, training_task_config

    data = yaml.safe_load(Path(config).read_text())
    cfg = TrainConfig.from_dict({"task": data["task"], "env": data.get("env", {})})
    task_cfg = training_task_config(cfg)
    return make_env(cfg, "numba", num_envs, task_cfg), task_cfg


def record_labels(env, task_cfg, policy: Policy | None, steps: int, seed: int) -> dict:
    """Roll ``policy`` (None: the expert itself) for ``steps`` steps from ``env.reset(seed)``
    and record, per step and env, the expert's decision on the visited observation and the
    policy's action. Returns arrays [steps, N]: ``label`` [steps, N, 3], ``action``
    [steps, N, 3], ``normal`` [steps, N, 2] (the chosen face's), ``side``, ``pushing`` and
    ``start`` (True at an episode's
    first step), plus ``episodes`` and ``successes`` (episodes ended within the steps) and
    ``failed`` [F, 2] (each failed episode's yaw still to turn, deg, and slide, m, at its
    end)."""
    obs, _ = env.reset(seed=seed)
    n = obs.shape[0]
    out = {k: [] for k in ("label", "action", "normal", "side", "pushing", "start")}
    start = np.ones(n, dtype=bool)
    episodes = successes = 0
    failed = []  # (yaw left, deg; slide, m) at the end of each failed episode
    layout = expert.LAYOUT.slices
    for _ in range(steps):
        d = expert.decide(obs, task_cfg)
        action = d.action if policy is None else np.asarray(policy(obs), dtype=np.float64)
        for key, value in (
            ("label", d.action),
            ("action", action),
            ("normal", d.normal),
            ("side", d.side),
            ("pushing", d.pushing),
            ("start", start),
        ):
            out[key].append(np.array(value))
        obs, _, terminated, truncated, info = env.step(action.astype(np.float32))
        start = np.logical_or(terminated, truncated)
        ended_ok = np.asarray(info["success"])[start]
        episodes += int(start.sum())
        successes += int(np.sum(ended_ok))
        for k in np.flatnonzero(start)[~ended_ok]:
            final = np.asarray(info["final_obs"][k], dtype=np.float64)
            sin4, cos4 = final[layout["yaw_error_sincos"]]
            slide = np.linalg.norm(final[layout["goal_rel_object"]][:2])
            failed.append((abs(np.degrees(np.arctan2(sin4, cos4) / 4.0)), slide))
    rec = {k: np.stack(v) for k, v in out.items()}
    rec["episodes"], rec["successes"] = episodes, successes
    rec["failed"] = np.array(failed).reshape(-1, 2)
    return rec


def switch_masks(rec: dict, window: int) -> dict[str, np.ndarray]:
    """Boolean masks [steps, N] over ``rec`` (:func:`record_labels`): ``pair`` (the step and
    the one before are in one episode), ``flip`` (consecutive labels point apart: cosine
    < 0), ``face``, ``side`` and ``phase`` (a change from the step before), ``switch``
    (face or side), ``undone`` (a face change back within ``UNDONE_STEPS``) and ``near``
    (within ``window`` steps of a switch, same episode)."""
    label, start = rec["label"], rec["start"]
    pair = np.zeros_like(start)
    pair[1:] = ~start[1:]
    prev, cur = label[:-1], label[1:]
    norms = np.linalg.norm(prev, axis=2) * np.linalg.norm(cur, axis=2)
    cos = np.sum(prev * cur, axis=2) / np.maximum(norms, 1e-12)
    flip = np.zeros_like(pair)
    flip[1:] = (cos < 0.0) & (norms > 1e-12)
    masks = {"pair": pair, "flip": flip & pair}
    for key, source in (("side", "side"), ("phase", "pushing")):
        changed = np.zeros_like(pair)
        changed[1:] = rec[source][1:] != rec[source][:-1]
        masks[key] = changed & pair
    # another face: its normal more than 45 deg from the last one (the face index itself
    # changes when the cube's yaw wraps at +-45 deg; the normal does not)
    turned = np.zeros_like(pair)
    turned[1:] = np.sum(rec["normal"][1:] * rec["normal"][:-1], axis=2) < np.cos(np.pi / 4)
    masks["face"] = turned & pair
    masks["switch"] = masks["face"] | masks["side"]
    # a face change undone: back at the face before it within UNDONE_STEPS, same episode
    undone = np.zeros_like(pair)
    steps = pair.shape[0]
    for t, k in zip(*np.nonzero(masks["face"]), strict=True):
        for u in range(t + 1, min(steps, t + 1 + UNDONE_STEPS)):
            if rec["start"][u, k]:
                break
            if np.dot(rec["normal"][u, k], rec["normal"][t - 1, k]) >= np.cos(np.pi / 4):
                undone[t, k] = True
                break
    masks["undone"] = undone
    # episode index per step and env: a step is near a switch of its own episode only
    episode = np.cumsum(start, axis=0)
    near = np.zeros_like(pair)
    for t, k in zip(*np.nonzero(masks["switch"]), strict=True):
        lo, hi = max(0, t - window), min(steps, t + window + 1)
        near[lo:hi, k] |= episode[lo:hi, k] == episode[t, k]
    masks["near"] = near
    return masks


def switch_stats(rec: dict, window: int) -> dict:
    """Switch rates per 100 steps (label flips, face, side and phase changes), the share of
    face changes undone, of label flips at a face or side change or in the push phase, and
    of steps near a switch; how the failed episodes ended (yaw not reached, slid too far);
    with the policy's error (when it is not the expert) near and away from the
    switches."""
    m = switch_masks(rec, window)
    pairs = max(int(m["pair"].sum()), 1)
    flips = max(int(m["flip"].sum()), 1)
    stats = {
        "steps": int(rec["start"].size),
        "episodes": rec["episodes"],
        "success": round(rec["successes"] / max(rec["episodes"], 1), 4),
        "per_100_steps": {
            k: round(100.0 * m[k].sum() / pairs, 2) for k in ("flip", "face", "side", "phase")
        },
        "face_changes_undone": round(float(m["undone"].sum()) / max(int(m["face"].sum()), 1), 3),
        "flips_at_face_or_side_change": round(float((m["flip"] & m["switch"]).sum()) / flips, 3),
        "flips_while_pushing": round(float((m["flip"] & rec["pushing"]).sum()) / flips, 3),
        "share_near_switch": round(float(m["near"].mean()), 3),
    }
    failed = rec.get("failed", np.zeros((0, 2)))
    if len(failed):
        yaw_left, slide = failed[:, 0], failed[:, 1]
        stats["failed"] = {
            "episodes": len(failed),
            "yaw_not_reached": round(float(np.mean(yaw_left > TURN_TOLERANCE_DEG)), 3),
            "slid_too_far": round(float(np.mean(slide > TURN_XY_TOLERANCE)), 3),
            "median_yaw_left_deg": round(float(np.median(yaw_left)), 1),
            "median_slide_m": round(float(np.median(slide)), 4),
        }
    error = np.linalg.norm(rec["action"] - rec["label"], axis=2)
    if np.any(error > 0.0):
        near, pushing = m["near"], rec["pushing"]
        stats["error"] = {
            "mean": _mean(error, np.ones_like(near)),
            "near_switch": _mean(error, near),
            "away": _mean(error, ~near),
            "share_near_switch": round(float(error[near].sum() / error.sum()), 3),
            "pushing": _mean(error, pushing),
            "approaching": _mean(error, ~pushing),
        }
    return stats


def phase_stats(rec: dict) -> dict:
    """Per phase of the expert's labels (``pushing`` or ``approaching``): the share of steps,
    the label's norm, the error ``|action - label|``, the error over the label's norm and
    ``along`` = (action . label) / |label|^2, the action's component along the label as a
    fraction of it (1: as far as the expert, below 1: it under-moves), as means and
    medians (steps whose label is shorter than ``MIN_LABEL`` have no direction to measure
    along and count only in the norms and errors)."""
    label, action, pushing = rec["label"], rec["action"], rec["pushing"]
    norm = np.linalg.norm(label, axis=2)
    error = np.linalg.norm(action - label, axis=2)
    along = np.sum(action * label, axis=2) / np.maximum(norm, MIN_LABEL) ** 2
    has_direction = norm >= MIN_LABEL
    out = {}
    for name, mask in (("pushing", pushing), ("approaching", ~pushing)):
        if not mask.any():
            continue
        directed = mask & has_direction
        out[name] = {
            "share": round(float(mask.mean()), 3),
            "label_norm": _mean(norm, mask),
            "label_norm_median": _median(norm, mask),
            "error": _mean(error, mask),
            "error_median": _median(error, mask),
            "relative_error_median": _median(error / np.maximum(norm, MIN_LABEL), directed),
            "along": _mean(along, directed),
            "along_median": _median(along, directed),
        }
    return out


def _median(values: np.ndarray, mask: np.ndarray) -> float | None:
    """The median of ``values`` where ``mask`` (4 decimals); None where nothing is."""
    return round(float(np.median(values[mask])), 4) if mask.any() else None


def _mean(values: np.ndarray, mask: np.ndarray) -> float | None:
    """The mean of ``values`` where ``mask`` (4 decimals); None where nothing is."""
    return round(float(values[mask].mean()), 4) if mask.any() else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--skill",
        default="policies/skills/turn/versions/1",
        help="the student: a skill directory, a run directory or a checkpoint",
    )
    p.add_argument("--config", default="config/train/turn.yaml")
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=450)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--window", type=int, default=2)
    args = p.parse_args(argv)

    from policies.commands.evaluate import load_any_policy

    started = time.perf_counter()
    env, task_cfg = first_stage_env(args.config, args.envs)
    _, student, _ = load_any_policy(args.skill)
    result = {"skill": args.skill, "config": args.config, "envs": args.envs}
    result["steps"], result["seed"], result["window"] = args.steps, args.seed, args.window
    for name, policy in (("student", student), ("expert", None)):
        rec = record_labels(env, task_cfg, policy, args.steps, args.seed)
        result[name] = switch_stats(rec, args.window)
        if policy is not None:
            result[name]["phases"] = phase_stats(rec)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
