"""Why a turn student's push stalls short of the target yaw behind the safety supervisor:
where on the face its fingers push in its failed episodes' last steps, against the
expert's label there and against pushes that did turn the cube.

    python bench/turn_stalls.py [--skill policies/skills/turn/versions/5]
        [--config config/train/turn-orbit.yaml] [--episodes 200] [--seed 1000] [--last 50]
        [--no-expert] [--plain]

The episodes are ``miles eval SKILL --supervised --episodes N --seed S`` 's (``--plain``:
without ``--supervised``, PyBullet's plain quick arm; one env, the paired eval's;
:func:`turn_switches.record_labels` with ``episodes``), the student's and then the scripted
expert's (with ``--config``'s ``imitation.expert_settings``) on the same
seeded episode set. Per group of push steps (the expert's push phase on the visited
state, :class:`policies.experts.turn.Decision`), :func:`push_stats` gives the pads' lever
arm about the face's centre (m, signed towards the end that turns the cube the way still
to go: the expert's ``LEVER`` plus its ``place_error``), their gap to the face (m), the
label's and the action's push into the face (m a step, along the face's inward normal)
and along it, the cosine of the action's xy with the inward normal, the TCP's observed
motion into the face (m a step), and the yaw turned and the cube's slide per step; per
failed episode also how many of its last steps the policy's action stayed under ``FROZEN``
(the arm held still: with the supervised evaluation's noiseless observations a still arm
and a still cube give the same observation, so a policy whose action there is ~0 stays). The
groups: the student's failed episodes' last ``--last`` steps (``stalled``), the student's
push steps with ``STALL_YAW`` deg left in episodes it turned (``student_turning``), and the
expert's in its own episodes (``expert_turning``). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.turn_switches import episode_rows, plain_env, record_labels  # noqa: E402
from policies.evaluation import FROZEN  # noqa: E402 (0.01 action units, 0.2 mm)
from policies.experts import turn as expert  # noqa: E402

STALL_YAW = (5.0, 22.0)
"""The yaw still to turn (deg) of the stalled pushes measured (issue 28: 5-22 deg)."""


def push_stats(rec: dict, mask: np.ndarray, step: float) -> dict:
    """Means and medians over the steps ``mask`` [steps, N] of ``rec``
    (:func:`turn_switches.record_labels` with ``tcp`` and ``gap``): see the module's doc.
    ``step``: the task's ``cartesian_step_max`` (m per action unit)."""
    inward = -rec["normal"]  # [steps, N, 2]
    tangent = np.stack([-rec["normal"][..., 1], rec["normal"][..., 0]], axis=2)
    side = rec["side"][..., None]
    moved = np.zeros_like(rec["tcp"])
    moved[:-1] = rec["tcp"][1:] - rec["tcp"][:-1]
    moved[:-1][rec["ended"][:-1]] = 0.0  # no motion across an episode's end
    act_xy = rec["action"][..., :2]
    cos = np.sum(act_xy * inward, axis=2) / np.maximum(np.linalg.norm(act_xy, axis=2), 1e-9)
    values = {
        "lever_m": expert.LEVER + rec["place_error"],
        "gap_m": rec["gap"],
        "label_press_m": step * np.sum(rec["label"][..., :2] * inward, axis=2),
        "action_press_m": step * np.sum(act_xy * inward, axis=2),
        "label_along_m": step * np.sum(rec["label"][..., :2] * tangent * side, axis=2),
        "action_along_m": step * np.sum(act_xy * tangent * side, axis=2),
        "action_cos_inward": cos,
        "tcp_moved_in_m": np.sum(moved[..., :2] * inward, axis=2),
        "yaw_turned_deg": rec["yaw_left"] - rec["yaw_left_after"],
        "slide_m": rec["slide_after"] - rec["slide"],
        "yaw_left_deg": rec["yaw_left"],
    }
    out = {"steps": int(mask.sum())}
    for name, v in values.items():
        if mask.any():
            out[name] = [round(float(v[mask].mean()), 5), round(float(np.median(v[mask])), 5)]
    return out


def masks(rec: dict, last: int) -> dict[str, np.ndarray]:
    """[steps, N] push steps: in the failed episodes' last ``last`` steps (``stalled``) and
    with ``STALL_YAW`` left in the turned ones (``turning``); ``failed_last``: all the
    failed episodes' last steps, pushing or not."""
    failed_last = np.zeros_like(rec["pushing"])
    turned = np.zeros_like(rec["pushing"])
    for k, first, end in episode_rows(rec):
        if rec["succeeded"][end, k]:
            turned[first : end + 1, k] = True
        else:
            failed_last[max(first, end + 1 - last) : end + 1, k] = True
    lo, hi = STALL_YAW
    band = (rec["yaw_left"] >= lo) & (rec["yaw_left"] <= hi)
    return {
        "failed_last": failed_last,
        "stalled": failed_last & rec["pushing"],
        "turning": turned & rec["pushing"] & band,
    }


def episode_table(rec: dict, last: int, step: float) -> list[dict]:
    """Per failed episode of ``rec``: its index (the order episodes ended), yaw left and
    slide at its end, and :func:`push_stats` over its last ``last`` push steps."""
    rows = []
    order = sorted(episode_rows(rec), key=lambda r: (r[2], r[0]))
    for i, (k, first, end) in enumerate(order):
        if rec["succeeded"][end, k]:
            continue
        m = np.zeros_like(rec["pushing"])
        m[max(first, end + 1 - last) : end + 1, k] = True
        row = {"episode": i, "end_yaw_left_deg": round(float(rec["yaw_left_after"][end, k]), 2)}
        row["end_slide_m"] = round(float(rec["slide_after"][end, k]), 4)
        row["push_share"] = round(float(rec["pushing"][m].mean()), 2)
        norms = np.linalg.norm(rec["action"][first : end + 1, k], axis=1)
        moving = np.flatnonzero(norms >= FROZEN)
        row["frozen_steps"] = int(end - first - (moving[-1] if len(moving) else -1))
        row["last_action_norm"] = round(float(norms[-1]), 5)
        row["last_label_norm"] = round(float(np.linalg.norm(rec["label"][end, k])), 3)
        row["last_lever_m"] = round(float(expert.LEVER + rec["place_error"][end, k]), 4)
        row.update(push_stats(rec, m & rec["pushing"], step))
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--skill", default="policies/skills/turn/versions/5")
    p.add_argument("--config", default="config/train/turn-orbit.yaml")
    p.add_argument("--episodes", type=int, default=200)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--last", type=int, default=50)
    p.add_argument("--no-expert", action="store_true", help="the student's episodes only")
    p.add_argument(
        "--plain", action="store_true", help="on PyBullet's plain quick arm (miles eval's default)"
    )
    args = p.parse_args(argv)

    from expert_eval import supervised_env  # bench/, the script's own directory

    from policies.commands.evaluate import load_any_policy
    from policies.experts import expert_settings

    imitation = yaml.safe_load(Path(args.config).read_text()).get("imitation") or {}
    settings = expert_settings("turn", imitation.get("expert_settings"))
    started = time.perf_counter()
    if args.plain:
        env, task_cfg = plain_env(args.skill, 1)
    else:
        env, task_cfg = supervised_env("turn", 1)
    step = float(task_cfg.cartesian_step_max)
    budget = args.episodes * 100 * int(task_cfg.episode_steps)  # stops at the episodes
    _, student, _ = load_any_policy(args.skill)
    result: dict = {"skill": args.skill, "episodes": args.episodes, "seed": args.seed}
    result["expert_settings"], result["last"] = settings, args.last
    runs = [("student", student)] + ([] if args.no_expert else [("expert", None)])
    for name, policy in runs:
        rec = record_labels(env, task_cfg, policy, budget, args.seed, settings, args.episodes)
        m = masks(rec, args.last)
        part = {"episodes": rec["episodes"], "successes": rec["successes"]}
        part["stalled"] = push_stats(rec, m["stalled"], step)
        part["turning"] = push_stats(rec, m["turning"], step)
        part["failed"] = episode_table(rec, args.last, step)
        part["frozen_failed"] = sum(r["frozen_steps"] >= args.last for r in part["failed"])
        result[name] = part
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
