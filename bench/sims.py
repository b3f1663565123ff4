"""Simulator throughput: env-steps/s of every backend, against panda-gym in the same run.

    .venv/bin/python bench/sims.py --json

Prints one JSON object:
``{"numba": {task: sps}, "pybullet": {task: sps}, "pybullet_vec": {"num_envs": n,
"reach": sps}, "panda_gym": {"reach": sps, "push": sps}, "ratios": {...}, "config": {...}}``
(sps = env-steps per second; null where a backend is unavailable, with the reason in
``"errors"``).

- numba: ``make_env(task, "numba", 4096)``, random actions.
- pybullet: one env in this process, at panda-gym's physics timestep and control period
  (2 ms, 20 substeps per step: the backend's default), random actions, autoreset.
- pybullet_vec: ``num_envs`` envs in subprocess workers (one per CPU core).
- panda_gym: ``gym.make("PandaReach-v3")`` / ``"PandaPush-v3"`` as users make them,
  random actions, reset when an episode ends. Same 2 ms x 20 physics per step.
  pybullet and panda_gym are timed in alternating rounds and each reports its median
  round, so load from other processes hits both alike.

What differs from panda-gym besides overhead: our Panda for reach/push has its blocked
fingers welded closed and its fixed links merged (panda-gym drives the blocked fingers
with two stiff motors), which roughly halves the arm's physics cost; our reach takes
joint-delta actions and our push Cartesian deltas through a numba IK step (panda-gym
uses PyBullet's IK for both). The cube, table contact and timestep are the same.

panda-gym is a bench-only dependency, installed without its dependencies (see
bench/requirements.txt): ``.venv/bin/pip install --no-deps panda-gym==3.0.7``. With our
pins (gymnasium 1.4.0, numpy 2.4, pybullet 3.2.7) the only package it would add is
scipy, which it imports for its Flip task alone; we stub panda-gym's Flip module here
instead of installing scipy into the project's environment.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from policies.commands._common import stdout_to_stderr  # noqa: E402
from sims import TASKS, make_env  # noqa: E402

logger = logging.getLogger("bench.sims")


def _rate(env, actions: np.ndarray, warmup: int) -> float:
    """Env-steps/s of ``env.step`` over ``actions`` [steps, N, A] after ``warmup`` steps."""
    for k in range(warmup):
        env.step(actions[k % len(actions)])
    start = time.perf_counter()
    for a in actions:
        env.step(a)
    return actions.shape[0] * actions.shape[1] / (time.perf_counter() - start)


def bench_numba(steps: int, num_envs: int) -> tuple[dict, str | None]:
    rates = {}
    try:
        for task in TASKS:
            env = make_env(task, "numba", num_envs, seed=0)
            rng = np.random.default_rng(0)
            actions = rng.uniform(-1, 1, size=(steps, num_envs, env.action_dim))
            actions = actions.astype(np.float32)
            rates[task] = _rate(env, actions, warmup=5)
            env.close()
    except Exception as exc:  # the backend may not exist yet in this checkout
        return {t: rates.get(t) for t in TASKS}, f"numba: {type(exc).__name__}: {exc}"
    return rates, None


def _panda_gym():
    """Import panda_gym (registering its envs); without scipy, stub its Flip task module.

    Only ``panda_gym.envs.tasks.flip`` imports scipy (``Rotation``), and the bench never
    builds Flip. The stub replaces that one panda_gym module, not scipy: numba inspects
    an importable ``scipy`` (version, BLAS), so a fake scipy would break it.
    """
    try:
        import scipy.spatial.transform  # noqa: F401
    except ImportError:
        flip = types.ModuleType("panda_gym.envs.tasks.flip")
        flip.Flip = None  # PandaFlipEnv is unusable; every other env is untouched
        sys.modules.setdefault("panda_gym.envs.tasks.flip", flip)
    import gymnasium as gym
    import panda_gym

    return gym, panda_gym


class _PandaGymStepper:
    """panda-gym env with a ``step(action[1, A])`` that resets at the end of an episode."""

    def __init__(self, gym, env_id: str, seed: int):
        self.env = gym.make(env_id)
        self.env.reset(seed=seed)
        self.action_dim = self.env.action_space.shape[0]

    def step(self, action):
        _, _, terminated, truncated, _ = self.env.step(action[0])
        if terminated or truncated:
            self.env.reset()

    def close(self):
        self.env.close()


def bench_pybullet_vs_panda_gym(steps: int, rounds: int) -> tuple[dict, dict, dict, list]:
    """Alternating timed rounds of our pybullet env and panda-gym's, per task."""
    errors = []
    ours = {}
    rounds_ours: dict[str, list[float]] = {}
    rounds_peer: dict[str, list[float]] = {}
    try:
        gym, panda_gym = _panda_gym()
        peer_version = panda_gym.__version__
    except Exception as exc:
        gym, peer_version = None, None
        errors.append(
            f"panda_gym: {type(exc).__name__}: {exc} "
            "(install: .venv/bin/pip install --no-deps panda-gym==3.0.7)"
        )
    peers = {"reach": "PandaReach-v3", "push": "PandaPush-v3"}
    for task in TASKS:
        env = make_env(task, "pybullet", 1, seed=0, physics_dt=0.002, substeps=20)
        rng = np.random.default_rng(1)
        actions = rng.uniform(-1, 1, size=(steps, 1, env.action_dim))
        peer = None
        if gym is not None and task in peers:
            peer = _PandaGymStepper(gym, peers[task], seed=0)
            peer_actions = rng.uniform(-1, 1, size=(steps, 1, peer.action_dim))
            peer_actions = peer_actions.astype(np.float32)
        for _ in range(rounds):
            rounds_ours.setdefault(task, []).append(_rate(env, actions, warmup=20))
            if peer is not None:
                rounds_peer.setdefault(task, []).append(_rate(peer, peer_actions, warmup=20))
        env.close()
        if peer is not None:
            peer.close()
        ours[task] = statistics.median(rounds_ours[task])
    peer_rates = {
        t: statistics.median(rounds_peer[t]) if t in rounds_peer else None for t in peers
    }
    detail = {
        "rounds_pybullet": rounds_ours,
        "rounds_panda_gym": rounds_peer,
        "panda_gym_version": peer_version,
    }
    return ours, peer_rates, detail, errors


def bench_pybullet_vec(steps: int, num_envs: int, num_workers: int) -> float:
    env = make_env("reach", "pybullet", num_envs, seed=0, num_workers=num_workers)
    try:
        rng = np.random.default_rng(2)
        actions = rng.uniform(-1, 1, size=(steps, num_envs, env.action_dim))
        return _rate(env, actions, warmup=10)
    finally:
        env.close()


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else round(a / b, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/sims.py", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument(
        "--steps",
        type=int,
        default=1000,
        help="timed steps per round, pybullet and panda-gym (default 1000)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--numba-envs", type=int, default=4096)
    parser.add_argument("--numba-steps", type=int, default=200)
    parser.add_argument(
        "--vec-envs", type=int, default=None, help="pybullet_vec envs (default 4 per worker)"
    )
    parser.add_argument(
        "--vec-workers",
        type=int,
        default=None,
        help="pybullet_vec subprocess workers (default: CPU count)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    # PyBullet's C code prints banners to fd 1; keep stdout for the JSON object alone.
    with stdout_to_stderr():
        result = run(args)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))
    return 0


def run(args: argparse.Namespace) -> dict:

    workers = args.vec_workers or os.cpu_count() or 1
    vec_envs = args.vec_envs or 4 * workers
    errors: list[str] = []

    numba_rates, err = bench_numba(args.numba_steps, args.numba_envs)
    if err:
        errors.append(err)
    pybullet, panda_gym, detail, errs = bench_pybullet_vs_panda_gym(args.steps, args.rounds)
    errors += errs
    vec = bench_pybullet_vec(max(args.steps // vec_envs, 50), vec_envs, workers)

    result = {
        "numba": {t: numba_rates.get(t) for t in TASKS},
        "pybullet": pybullet,
        "pybullet_vec": {"num_envs": vec_envs, "num_workers": workers, "reach": vec},
        "panda_gym": panda_gym,
        "ratios": {
            "pybullet_over_panda_gym": {
                t: _ratio(pybullet.get(t), panda_gym.get(t)) for t in panda_gym
            },
            "pybullet_vec_over_pybullet": {"reach": _ratio(vec, pybullet["reach"])},
            "numba_over_pybullet": {t: _ratio(numba_rates.get(t), pybullet[t]) for t in TASKS},
        },
        "config": {
            "cpu_count": os.cpu_count(),
            "numba_num_envs": args.numba_envs,
            "physics_dt": 0.002,
            "substeps": 20,
            "steps_per_round": args.steps,
            "rounds": args.rounds,
            **detail,
        },
        "errors": errors,
    }
    return result


if __name__ == "__main__":
    sys.exit(main())
