"""Where a pick_place student holds the cube at a placement the expert would release: per
episode, the steps it spent holding the cube while the scripted expert's label on the same
observation is "open" (its release box, :mod:`policies.experts.pick_place`), and its own
gripper command there, against a peer skill on the same seeded episodes.

    python bench/release_stalls.py SKILL [--against policies/skills/pick_place/versions/2]
        [--variant tower] [--episodes 48] [--seed 3000] [--checkpoint last] [--stall 40]

The episodes are ``miles eval SKILL --supervised --variant VARIANT --episodes N --seed S
--num-envs 16`` 's with the card's envelope given as flags (docs/stacking.md, towers, part
4), each episode's outcome the grasp report's (:mod:`policies.grasp_report`). A step
"holds under a release label" where the fingers read narrower than the expert's
``HOLD_WIDTH``, the cube is off the table and the expert's gripper label is open; an
episode with at least ``--stall`` such steps stalled there (the fingers of a released cube
open within ~20 steps behind the supervisor). Prints one JSON object: per skill, the
successes, the outcomes, the stalled episodes (and how many of them failed), the median
of the student's gripper command (> 0 opens) over the stalled episodes' held steps and
over the other episodes', and the grasp report's outcomes of the stalled failures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ENVELOPE = ((0.10, 0.45), (0.30, -0.30, 0.65, 0.30), (0.25, -0.35, 0.70, 0.35))
"""The card's envelope as ``miles eval``'s flags: --goal-distance, --object-region,
--goal-region (docs/stacking.md, towers, part 4)."""
NUM_ENVS = 16


def holding_under_release(obs: np.ndarray, label: np.ndarray) -> np.ndarray:
    """[N] bool: the fingers hold something (narrower than the expert's ``HOLD_WIDTH``),
    the cube is off the table (its centre higher than a lift) and the expert's gripper
    label ``label`` [N, 4] on ``obs`` [N, 32] is open (> 0)."""
    from policies.experts import pick_place as expert
    from sims.tasks import pick_place

    width, cube = (pick_place.LAYOUT.slices[k] for k in ("finger_width", "object_pos"))
    return (
        (obs[:, width.start] < expert.HOLD_WIDTH)
        & (obs[:, cube.start + 2] > pick_place.CUBE_REST_Z + expert.LIFT)
        & (label[:, 3] > 0)
    )


def episodes_of(skill: str, variant: str, episodes: int, seed: int, checkpoint: str) -> list:
    """Per episode ``(outcome, held_steps, gripper commands at them)`` of ``skill``, in the
    order they ended."""
    import sims
    from miles_ros.runtime.supervised import supervised_env_kwargs
    from policies.commands.evaluate import episode_config, load_any_policy
    from policies.evaluation import grasp_tracker
    from policies.experts import pick_place as expert

    task, policy, _ = load_any_policy(skill, checkpoint)
    kwargs = supervised_env_kwargs(task, NUM_ENVS)
    kwargs["config"], _ = episode_config(skill, task, kwargs["config"], *ENVELOPE, variant)
    env = sims.make_env(task, "pybullet", num_envs=NUM_ENVS, **kwargs)
    tracker = grasp_tracker(task, NUM_ENVS, env.cfg)
    quota = [episodes // NUM_ENVS + (i < episodes % NUM_ENVS) for i in range(NUM_ENVS)]
    done = [0] * NUM_ENVS
    grips: list[list[float]] = [[] for _ in range(NUM_ENVS)]
    out = []
    try:
        obs, _ = env.reset(seed=seed)
        tracker.start(obs)
        while any(d < q for d, q in zip(done, quota, strict=True)):
            action = np.asarray(policy(np.asarray(obs, dtype=np.float32)), dtype=np.float32)
            label = expert.act(np.asarray(obs, dtype=np.float64), env.cfg)
            for i in np.flatnonzero(holding_under_release(obs, label)):
                grips[i].append(float(action[i, 3]))
            obs, _, terminated, truncated, info = env.step(action)
            ended = np.logical_or(terminated, truncated)
            tracker.step(obs, ended, info["final_obs"])
            for i in np.flatnonzero(ended):
                if done[i] < quota[i]:
                    success = bool(info["success"][i])
                    out.append((tracker.outcome(int(i), success), grips[i]))
                done[i] += 1
                grips[i] = []
    finally:
        env.close()
    return out


def summary(rows: list, stall: int) -> dict:
    """What the module's doc lists, from :func:`episodes_of`'s rows."""
    stalled = [r for r in rows if len(r[1]) >= stall]
    others = [r for r in rows if len(r[1]) < stall]

    def median(group):
        values = [g for _, grips in group for g in grips]
        return round(float(np.median(values)), 3) if values else None

    return {
        "episodes": len(rows),
        "successes": sum(o == "success" for o, _ in rows),
        "outcomes": dict(Counter(o for o, _ in rows)),
        "stalled": len(stalled),
        "stalled_failed": sum(o != "success" for o, _ in stalled),
        "stalled_failures_by_outcome": dict(Counter(o for o, _ in stalled if o != "success")),
        "gripper_median_stalled": median(stalled),
        "gripper_median_others": median(others),
        "held_steps_median_others": float(np.median([len(g) for _, g in others]))
        if others
        else None,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("skill", help="skill dir/name, run dir or checkpoint (as miles eval)")
    p.add_argument("--against", default="policies/skills/pick_place/versions/2")
    p.add_argument("--variant", default="tower")
    p.add_argument("--episodes", type=int, default=48)
    p.add_argument("--seed", type=int, default=3000)
    p.add_argument("--checkpoint", default="last", help="for a run directory (as miles eval)")
    p.add_argument("--stall", type=int, default=40, help="held steps under a release label")
    args = p.parse_args(argv)
    start = time.perf_counter()
    result = {"variant": args.variant, "episodes": args.episodes, "seed": args.seed}
    for name, skill in (("skill", args.skill), ("against", args.against)):
        rows = episodes_of(skill, args.variant, args.episodes, args.seed, args.checkpoint)
        result[name] = {"path": skill, **summary(rows, args.stall)}
    result["wall_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
