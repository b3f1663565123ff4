"""How abruptly the scripted turn expert's labels switch along a policy's own states, and
how far a student's actions are from those labels near a switch and away from one.

    python bench/turn_switches.py [--skill policies/skills/turn/versions/1] [--steps 450]
        [--envs 64] [--seed 1000] [--config config/train/turn.yaml] [--window 2]
        [--supervised | --plain]

The expert labels with ``--config``'s ``imitation.expert_settings`` (turn: ``orbit_margin``).

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
  1: it moves less than the expert would there), as means and medians;
- why the failed episodes failed (:func:`failure_stats`): the cube slid beyond the
  tolerance or not, and what the arm was doing at the steps that slid it
  (:data:`SLIDE_CAUSES`: coming down onto it, at a face the expert would not push, pushing
  nearer the face's middle than the expert, pushing on after the yaw was reached), the yaw
  left then, the expert's label against the student's action at those steps, and how much
  of the slide tolerance the successes use.

``--supervised`` measures on PyBullet behind the safety supervisor, as ``miles eval
--supervised`` runs a skill (16 envs x 1000 steps, student and expert: 2 min on a quiet
2-core box, 17 min niced on a loaded one). A failed episode there runs the whole 4x budget
(600 steps), so a record shorter than that holds only successes. ``--plain`` measures on
PyBullet's plain quick arm, as ``miles eval`` (without ``--supervised``) runs a skill: the
arm goes where each target sends it, the task's episode length.

Prints one JSON object: ``{"student": {...}, "expert": {...}, "where": ..., ...}``, each
part as :func:`switch_stats` returns it with ``failures`` (:func:`failure_stats`); the
student part also with its errors and, under ``phases``, :func:`phase_stats`.
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
from sims.tasks.turn import TURN_TOLERANCE_DEG, TURN_XY_TOLERANCE, quarter_wrap  # noqa: E402

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


def plain_env(skill: str, num_envs: int):
    """(the PyBullet env of the plain quick arm, its task config), as ``miles eval SKILL``
    builds it: the task's episodes with the action mapping ``skill`` was trained under."""
    import sims
    from policies.commands.evaluate import episode_config

    config, _ = episode_config(skill, "turn")
    config = config or sims.get_task("turn").CONFIG
    return sims.make_env("turn", "pybullet", num_envs=num_envs, config=config), config


def record_labels(
    env,
    task_cfg,
    policy: Policy | None,
    steps: int,
    seed: int,
    settings: dict | None = None,
    episodes: int | None = None,
) -> dict:
    """Roll ``policy`` (None: the expert itself) for ``steps`` steps from ``env.reset(seed)``
    (or until ``episodes`` episodes have ended, where given: with one env, the episodes
    ``miles eval --num-envs 1`` runs) and record, per step and env, the expert's decision
    (with ``settings``, :data:`policies.experts.turn.SETTINGS`) on the visited observation
    and the policy's action. Returns arrays [steps, N]: ``label`` [steps, N, 3], ``action``
    [steps, N, 3], ``normal`` [steps, N, 2] (the chosen face's), ``side``, ``pushing``,
    ``place_error`` (m, :class:`policies.experts.turn.Decision`), ``low`` (the TCP below
    the cube's top), ``at_face`` (the face nearest the TCP is the one the expert chose),
    ``gap`` (m, the pads' gap to the chosen face along its normal), ``tcp`` [steps, N, 3]
    (m, observed),
    ``to_cube`` [steps, N, 2] (unit xy from the TCP to the cube), ``distance`` (m, xy from
    the TCP to the cube's centre), ``pad_gap`` (m, the closed fingers' pads' least xy gap
    to the footprint of a cube of the nominal edge, ``HALF_EDGE``; negative: they overlap
    it; from the observation), ``start`` (True at an
    episode's first step), ``slide`` and ``yaw_left`` (the cube's true xy distance from
    its goal, m, and yaw still to turn, deg, before the step), ``slide_after`` and
    ``yaw_left_after`` (after it; at an episode's end from its last observation), ``ended``
    and ``succeeded`` (the episode ended at this step, with success); plus ``episodes`` and
    ``successes`` (episodes ended within the steps) and ``failed`` [F, 2] (each failed
    episode's yaw still to turn, deg, and slide, m, at its end)."""
    obs, _ = env.reset(seed=seed)
    n = obs.shape[0]
    out: dict[str, list] = {}
    start = np.ones(n, dtype=bool)
    layout = expert.LAYOUT.slices
    slide, yaw_left = true_slide_and_yaw(env.get_state())
    ended = 0
    for _ in range(steps):
        d = expert.decide(obs, task_cfg, **(settings or {}))
        action = d.action if policy is None else np.asarray(policy(obs), dtype=np.float64)
        rel = obs[:, layout["object_rel_tcp"]][:, :2].astype(np.float64)
        sc = obs[:, layout["object_yaw_sincos"]].astype(np.float64)
        pads = expert.pad_offsets(expert.finger_axes(obs[:, layout["joint_pos"]]))
        # pad_clearance keeps CLEAR_HALF_EDGE; the gap to the nominal cube is that much more
        gap = expert.pad_clearance(-rel, np.arctan2(sc[:, 0], sc[:, 1]) / 4.0, pads)
        row = {
            "label": d.action,
            "action": action,
            "normal": d.normal,
            "side": d.side,
            "pushing": d.pushing,
            "place_error": d.place_error,
            "low": obs[:, layout["tcp_pos"]][:, 2] <= expert.PUSH_Z_MAX,
            "at_face": d.at_face,
            "gap": d.gap,
            "tcp": obs[:, layout["tcp_pos"]].astype(np.float64),
            "to_cube": rel / np.maximum(np.linalg.norm(rel, axis=1, keepdims=True), 1e-9),
            "distance": np.linalg.norm(rel, axis=1),
            "pad_gap": gap + expert.CLEAR_HALF_EDGE - expert.HALF_EDGE,
            "start": start,
            "slide": slide,
            "yaw_left": yaw_left,
        }
        obs, _, terminated, truncated, info = env.step(action.astype(np.float32))
        start = np.logical_or(terminated, truncated)
        slide, yaw_left = true_slide_and_yaw(env.get_state())  # a new episode's where it ended
        # after the step: where the episode ended, its last observation (the state is reset)
        final = np.asarray(info["final_obs"], dtype=np.float64)
        final_slide, final_yaw = observed_slide_and_yaw(final)
        row["slide_after"] = np.where(start, final_slide, slide)
        row["yaw_left_after"] = np.where(start, final_yaw, yaw_left)
        row["ended"] = start
        row["succeeded"] = start & np.asarray(info["success"], dtype=bool)
        for key, value in row.items():
            out.setdefault(key, []).append(np.array(value))
        ended += int(np.sum(start))
        if episodes is not None and ended >= episodes:
            break
    rec = {k: np.stack(v) for k, v in out.items()}
    rec["episodes"] = int(rec["ended"].sum())
    rec["successes"] = int(rec["succeeded"].sum())
    lost = rec["ended"] & ~rec["succeeded"]
    rec["failed"] = np.stack([rec["yaw_left_after"][lost], rec["slide_after"][lost]], axis=1)
    return rec


def true_slide_and_yaw(state) -> tuple[np.ndarray, np.ndarray]:
    """[N] the cube's xy distance (m) from its goal and the yaw (deg, unsigned, modulo
    90 deg) still to turn, from a backend's true state (no observation noise)."""
    slide = np.linalg.norm(state.object_pos[:, :2] - state.goal_pos[:, :2], axis=1)
    return slide, np.degrees(np.abs(quarter_wrap(state.goal_yaw - state.object_yaw)))


def observed_slide_and_yaw(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`true_slide_and_yaw` as observations [N, 33] give them."""
    s = expert.LAYOUT.slices
    sin4, cos4 = obs[:, s["yaw_error_sincos"]].T
    slide = np.linalg.norm(obs[:, s["goal_rel_object"]][:, :2], axis=1)
    return slide, np.degrees(np.abs(np.arctan2(sin4, cos4) / 4.0))


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


def phase_stats(rec: dict, within: np.ndarray | None = None) -> dict:
    """Per phase of the expert's labels (``pushing`` or ``approaching``; only the steps
    ``within`` is True at, if given): the share of steps,
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
    within = np.ones_like(pushing) if within is None else within
    for name, mask in (("pushing", pushing & within), ("approaching", ~pushing & within)):
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


SLIDE_CAUSES = ("turned", "above", "other_face", "off_place", "pushing_middle", "pushing")
"""What the arm was doing at a step the cube slid further from its goal
(:func:`slide_causes`): the yaw already turned (the cube pushed on instead of left alone);
the TCP above the cube's top (coming down onto it); low at a face the expert does not push
(it would go to another: knocking the cube on the way, or pushing a face it has left); low
at the expert's face but outside its push band (too far along the face or pressed past
it); in the expert's push phase nearer the face's middle than ``MIDDLE_OFFSET`` from the
expert's place; in the push phase at about the expert's place."""

MIDDLE_OFFSET = expert.LEVER / 2
"""A pusher this far (m) from the expert's place towards the face's middle pushes nearer
the middle than the lever the expert uses (a push through the middle slides the cube)."""

SLIDE_STEP = 0.001
"""A step that moves the cube this much (m) further from its goal is a sliding step."""


def slide_causes(rec: dict) -> np.ndarray:
    """[steps, N] the index in :data:`SLIDE_CAUSES` of what each step of ``rec``
    (:func:`record_labels`) was doing, the first that applies."""
    cause = np.full(rec["pushing"].shape, SLIDE_CAUSES.index("pushing"))
    middle = rec["pushing"] & (rec["place_error"] < -MIDDLE_OFFSET)
    cause[middle] = SLIDE_CAUSES.index("pushing_middle")
    off_place = ~rec["pushing"] & rec["at_face"]
    cause[off_place] = SLIDE_CAUSES.index("off_place")
    cause[~rec["pushing"] & ~rec["at_face"]] = SLIDE_CAUSES.index("other_face")
    cause[~rec["low"]] = SLIDE_CAUSES.index("above")
    cause[rec["yaw_left"] <= TURN_TOLERANCE_DEG] = SLIDE_CAUSES.index("turned")
    return cause


def episode_rows(rec: dict) -> list[tuple[int, int, int]]:
    """(env, first step, last step) of every episode of ``rec`` that both starts and ends
    within it (the record's first steps start episodes)."""
    rows = []
    for k in range(rec["start"].shape[1]):
        first = 0
        for t in np.flatnonzero(rec["ended"][:, k]):
            if rec["start"][first, k]:
                rows.append((k, first, int(t)))
            first = int(t) + 1
    return rows


def failure_stats(rec: dict) -> dict:
    """How the failed episodes of ``rec`` (:func:`record_labels`) failed and what the expert
    would have done where they slid. An episode that failed ``slid`` when the cube went
    beyond ``TURN_XY_TOLERANCE`` of its goal at some step (else the yaw was not reached in
    time); its ``cause`` is the :data:`SLIDE_CAUSES` entry whose steps moved the cube
    furthest from its goal in the episode (the sum of the steps' increases of the
    distance). Returns the shares of failed episodes that slid and of those by cause, the
    shares of all their slide by cause, the yaw still to turn (deg) when the cube first
    passed the tolerance, the share whose yaw came within ``TURN_TOLERANCE_DEG`` after it
    had (done but for the slide), the final slide and yaw; at their sliding steps
    (``SLIDE_STEP``) the label against the action (:func:`phase_stats`) and, per cause,
    each one's component towards the cube (action units); and over the successful
    episodes the slide and yaw left at success and the largest slide on the way (how much
    of the tolerance a success uses)."""
    cause = slide_causes(rec)
    growth = np.maximum(rec["slide_after"] - rec["slide"], 0.0)
    failed, succeeded = [], []
    sliding = np.zeros_like(rec["pushing"])
    for k, first, last in episode_rows(rec):
        span = slice(first, last + 1)
        if rec["succeeded"][last, k]:
            succeeded.append(
                (
                    rec["slide_after"][last, k],
                    rec["yaw_left_after"][last, k],
                    rec["slide_after"][span, k].max(),
                )
            )
            continue
        out = np.flatnonzero(rec["slide_after"][span, k] > TURN_XY_TOLERANCE)
        by_cause = np.bincount(cause[span, k], growth[span, k], minlength=len(SLIDE_CAUSES))
        crossed = int(out[0]) if len(out) else None
        turned_after = crossed is not None and bool(
            np.any(rec["yaw_left_after"][first + crossed : last + 1, k] <= TURN_TOLERANCE_DEG)
        )
        failed.append(
            {
                "slid": crossed is not None,
                "cause": int(np.argmax(by_cause)),
                "by_cause": by_cause,
                "yaw_left_at_crossing": None
                if crossed is None
                else rec["yaw_left"][first + crossed, k],
                "turned_after": turned_after,
                "final": (rec["slide_after"][last, k], rec["yaw_left_after"][last, k]),
            }
        )
        if crossed is not None:
            sliding[span, k] = growth[span, k] >= SLIDE_STEP
    out = {"episodes": len(failed) + len(succeeded), "failed": len(failed)}
    slid = [f for f in failed if f["slid"]]
    if failed:
        out["slid"] = round(len(slid) / len(failed), 3)
        out["final_slide_median_m"] = round(float(np.median([f["final"][0] for f in failed])), 4)
        out["final_yaw_left_median_deg"] = round(
            float(np.median([f["final"][1] for f in failed])), 1
        )
    if slid:
        total = np.sum([f["by_cause"] for f in slid], axis=0)
        out["cause"] = {
            name: round(sum(f["cause"] == i for f in slid) / len(slid), 3)
            for i, name in enumerate(SLIDE_CAUSES)
        }
        out["slide_share"] = {
            name: round(float(total[i] / max(total.sum(), 1e-12)), 3)
            for i, name in enumerate(SLIDE_CAUSES)
        }
        out["yaw_left_at_crossing_median_deg"] = round(
            float(np.median([f["yaw_left_at_crossing"] for f in slid])), 1
        )
        out["turned_after_crossing"] = round(sum(f["turned_after"] for f in slid) / len(slid), 3)
    if sliding.any():
        out["at_sliding_steps"] = {
            "steps": int(sliding.sum()),
            "phases": phase_stats(rec, within=sliding),
            "towards_cube": {
                name: {
                    "steps": int(np.sum(sliding & (cause == i))),
                    "label": _mean(_towards(rec["label"], rec), sliding & (cause == i)),
                    "action": _mean(_towards(rec["action"], rec), sliding & (cause == i)),
                }
                for i, name in enumerate(SLIDE_CAUSES)
                if np.any(sliding & (cause == i))
            },
        }
    if succeeded:
        ends = np.array(succeeded)
        out["at_success"] = {
            "episodes": len(ends),
            "slide_median_m": round(float(np.median(ends[:, 0])), 4),
            "slide_p90_m": round(float(np.percentile(ends[:, 0], 90)), 4),
            "yaw_left_median_deg": round(float(np.median(ends[:, 1])), 2),
            "max_slide_median_m": round(float(np.median(ends[:, 2])), 4),
            "max_slide_p90_m": round(float(np.percentile(ends[:, 2], 90)), 4),
        }
    return out


def around_stats(rec: dict) -> dict:
    """How close ``rec``'s (:func:`record_labels`) way around the cube comes to it: at the
    steps low (the TCP below ``PUSH_Z_MAX``), not pushing and beside a face other than the
    expert's (``at_face`` False: the ``other_face`` of :data:`SLIDE_CAUSES`), their share,
    the TCP's distance from the cube's centre (m: 10th percentile, median) and the pads'
    gap to the cube's footprint (m: 5th, 10th percentile, median; the share at or under 0,
    touching)."""
    around = rec["low"] & ~rec["pushing"] & ~rec["at_face"]
    if not around.any():
        return {"steps": 0}
    dist, gap = rec["distance"][around], rec["pad_gap"][around]
    return {
        "steps": int(around.sum()),
        "share": round(float(around.mean()), 3),
        "distance_p10_m": round(float(np.percentile(dist, 10)), 4),
        "distance_median_m": round(float(np.median(dist)), 4),
        "pad_gap_p5_m": round(float(np.percentile(gap, 5)), 4),
        "pad_gap_p10_m": round(float(np.percentile(gap, 10)), 4),
        "pad_gap_median_m": round(float(np.median(gap)), 4),
        "touching": round(float(np.mean(gap <= 0.0)), 3),
    }


def _towards(actions: np.ndarray, rec: dict) -> np.ndarray:
    """[steps, N] the actions' xy component towards the cube (action units)."""
    return np.sum(actions[..., :2] * rec["to_cube"], axis=2)


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
    p.add_argument(
        "--supervised",
        action="store_true",
        help="on PyBullet behind the safety supervisor as miles eval --supervised runs a "
        "skill (4x the task's episode length), not on the command-path model",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="on PyBullet's plain quick arm as miles eval runs a skill without --supervised",
    )
    args = p.parse_args(argv)
    if args.plain and args.supervised:
        p.error("--plain and --supervised exclude each other")

    from policies.commands.evaluate import load_any_policy
    from policies.experts import expert_settings

    imitation = yaml.safe_load(Path(args.config).read_text()).get("imitation") or {}
    settings = expert_settings("turn", imitation.get("expert_settings"))
    started = time.perf_counter()
    if args.supervised:
        from expert_eval import supervised_env  # bench/, the script's own directory

        env, task_cfg = supervised_env("turn", args.envs)
        where = "pybullet behind the safety supervisor"
    elif args.plain:
        env, task_cfg = plain_env(args.skill, args.envs)
        where = "pybullet's plain quick arm"
    else:
        env, task_cfg = first_stage_env(args.config, args.envs)
        where = f"numba command-path model ({args.config})"
    _, student, _ = load_any_policy(args.skill)
    result = {"skill": args.skill, "where": where, "envs": args.envs}
    result["steps"], result["seed"], result["window"] = args.steps, args.seed, args.window
    if settings:
        result["expert_settings"] = settings
    for name, policy in (("student", student), ("expert", None)):
        rec = record_labels(env, task_cfg, policy, args.steps, args.seed, settings)
        result[name] = switch_stats(rec, args.window)
        result[name]["failures"] = failure_stats(rec)
        result[name]["around"] = around_stats(rec)
        if policy is not None:
            result[name]["phases"] = phase_stats(rec)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
