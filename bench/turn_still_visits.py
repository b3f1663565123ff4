"""Which of DAgger's rollout noises keeps a turn student away from its still points
(issue 28): the student rolled as ``miles eval`` runs it (its deterministic action on
noiseless observations) and as a DAgger rollout acts (the same action plus Gaussian
``exploration_std`` noise, and/or the training's ``observation_noise_std``), from the same
seeded episode starts, counting the steps at which the arm holds still.

    python bench/turn_still_visits.py [--skill policies/skills/turn/versions/5]
        [--backend supervised|numba] [--config config/train/turn-orbit.yaml] [--envs 8]
        [--steps 600] [--seed 1000] [--action-std 0.1] [--obs-std 0.002]

``--backend supervised``: PyBullet behind the safety supervisor as ``miles eval
--supervised`` builds it; ``numba``: the command-path model of ``--config``'s first stage.
Per condition (``clean``: neither noise; ``action``: the action noise only, turn-quiet's
stage 2; ``obs``: the observation noise only; ``both``: version 5's training rollouts)
it prints the episodes ended and turned, the share of steps the arm held still (the true
TCP moved under ``STILL_M`` in the step, episode not ended) within a run of at least
``RUN`` such steps (``still_share``), how many episodes ended inside such a run, and the
share of steps where the student's own action (before the action noise) was under
``turn_stalls.FROZEN`` (``frozen_share``). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import turn_stalls  # noqa: E402

STILL_M = 2e-4
"""A step whose true TCP moves less than this (m) holds the arm still."""
RUN = 10
"""Still steps count only in a run of at least this many (an arm turning around is still
for a step or two)."""

CONDITIONS = {"clean": (0.0, 0.0), "action": (1.0, 0.0), "obs": (0.0, 1.0), "both": (1.0, 1.0)}
"""Per condition, (action noise on, observation noise on)."""


def with_noise(env_kwargs: dict, std: float) -> dict:
    """``env_kwargs`` (``sims.make_env``'s) with observation noise ``std`` (m)."""
    cfg = env_kwargs["config"]
    rand = dataclasses.replace(cfg.randomization, observation_noise_std=float(std))
    return {**env_kwargs, "config": dataclasses.replace(cfg, randomization=rand)}


def still_runs(still: np.ndarray, ended: np.ndarray, run: int) -> tuple[np.ndarray, int]:
    """([steps, N] still steps inside a run of at least ``run`` consecutive ones, how many
    episodes ended inside such a run); ``still`` and ``ended`` [steps, N] bool."""
    steps, n = still.shape
    inside = np.zeros_like(still)
    ended_still = 0
    for k in range(n):
        length = 0
        for t in range(steps):
            length = length + 1 if still[t, k] else 0
            if length >= run:
                inside[t - length + 1 : t + 1, k] = True
            if ended[t, k]:
                ended_still += int(length >= run)
                length = 0
    return inside, ended_still


def roll(env, policy, steps: int, seed: int, action_std: float, rng) -> dict:
    """``steps`` steps of ``policy`` (+ ``action_std`` Gaussian noise, clipped to [-1, 1])
    from ``env.reset(seed)``; the counts of the module's doc."""
    obs, _ = env.reset(seed=seed)
    tcp = env.get_state().tcp_pos.copy()
    still, ended, frozen = [], [], []
    successes = 0
    for _ in range(steps):
        action = np.asarray(policy(obs), dtype=np.float64)
        frozen.append(np.linalg.norm(action, axis=1) < turn_stalls.FROZEN)
        if action_std:
            action = np.clip(action + rng.normal(0.0, action_std, action.shape), -1.0, 1.0)
        obs, _, terminated, truncated, info = env.step(action.astype(np.float32))
        done = np.logical_or(terminated, truncated)
        after = env.get_state().tcp_pos.copy()
        still.append((np.linalg.norm(after - tcp, axis=1) < STILL_M) & ~done)
        ended.append(done)
        successes += int(np.sum(done & np.asarray(info["success"], dtype=bool)))
        tcp = after
    still, ended, frozen = np.array(still), np.array(ended), np.array(frozen)
    inside, ended_still = still_runs(still, ended, RUN)
    return {
        "episodes": int(ended.sum()),
        "turned": successes,
        "still_share": round(float(inside.mean()), 4),
        "ended_held_still": ended_still,
        "frozen_share": round(float(frozen.mean()), 4),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--skill", default="policies/skills/turn/versions/5")
    p.add_argument("--backend", choices=("supervised", "numba"), default="supervised")
    p.add_argument("--config", default="config/train/turn-orbit.yaml")
    p.add_argument("--envs", type=int, default=8)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--action-std", type=float, default=0.1, help="imitation.exploration_std")
    p.add_argument("--obs-std", type=float, default=0.002, help="env.observation_noise_std")
    p.add_argument("--only", action="append", choices=sorted(CONDITIONS), default=None)
    args = p.parse_args(argv)

    import sims
    from policies.commands.evaluate import load_any_policy

    _, policy, _ = load_any_policy(args.skill)
    if args.backend == "supervised":
        from miles_ros.runtime.supervised import supervised_env_kwargs

        kwargs = supervised_env_kwargs("turn", args.envs)

        def make(std):
            return sims.make_env("turn", "pybullet", num_envs=args.envs, **with_noise(kwargs, std))
    else:
        import yaml

        from policies.ppo.config import TrainConfig
        from policies.ppo.envs import make_env, training_task_config

        data = yaml.safe_load(Path(args.config).read_text())

        def make(std):
            env = dict(data.get("env", {}), observation_noise_std=float(std))
            cfg = TrainConfig.from_dict({"task": data["task"], "env": env})
            return make_env(cfg, "numba", args.envs, training_task_config(cfg))

    result: dict = {"skill": args.skill, "backend": args.backend, "envs": args.envs}
    result.update(steps=args.steps, seed=args.seed, action_std=args.action_std)
    result["obs_std"] = args.obs_std
    started = time.perf_counter()
    for name in args.only or list(CONDITIONS):
        act_on, obs_on = CONDITIONS[name]
        env = make(obs_on * args.obs_std)
        rng = np.random.default_rng(args.seed)
        result[name] = roll(env, policy, args.steps, args.seed, act_on * args.action_std, rng)
        env.close()
        print(name, result[name], file=sys.stderr, flush=True)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
