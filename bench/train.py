"""Time to a PyBullet-validated Reach skill: Miles vs Stable-Baselines3, same run.

Prints one JSON object::

    {"miles": {"wall_s", "env_steps", "success", ...}, "sb3": {...}, "speedup",
     "onnx_latency_us": {"reach": {"p50", "p99", ...}, ...}}

- Miles: ``miles train reach --stop-at-target`` with the task defaults (numba backend,
  PyBullet evaluation of 50 fixed episodes whenever the training success reaches the
  target, and every 25 updates); stops at the first evaluation >= 95%.
- SB3: PPO (library defaults, ``MultiInputPolicy``, one torch thread like Miles) on
  panda-gym's PandaReachDense-v3 (its own PyBullet env); a callback applies Miles' rule:
  evaluate the deterministic policy over 50 episodes when the training success rate
  reaches the target (or every 10 rollouts), stop at the first evaluation >= 95%.

``wall_s`` runs from the start of training to the end of the evaluation that reached the
target (evaluations included); ``process_wall_s`` is the whole process (imports, env
construction, compilation caches). ``env_steps`` are the training steps at that point.
``confirm_success`` re-evaluates the result over 200 other episodes (not timed), and
``supervised_success`` the same episodes behind the safety supervisor (``miles eval
--supervised``: the datasheet limits of the real arm).
``speedup`` = sb3.wall_s / miles.wall_s. Each trainer runs in its own subprocess, one
after the other; both see the same machine (2 shared cores here: timings vary with load).

Latency: ``SkillPolicy.act`` on one observation (what the skill node pays, pre-bound
buffers; p50/p99 over 5000 calls after 500 warm-up calls), and for reference a plain
``InferenceSession.run`` with a feed dict (raw_*).

Install the bench-only deps listed in bench/requirements.txt first.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _panda_gym():
    """Import panda_gym (registering its envs), stubbing scipy if absent (only its Flip
    task uses scipy; the bench never builds it)."""
    try:
        import scipy.spatial.transform  # noqa: F401
    except ImportError:
        for name in ("scipy", "scipy.spatial", "scipy.spatial.transform"):
            sys.modules.setdefault(name, types.ModuleType(name))
        sys.modules["scipy.spatial.transform"].Rotation = None
    import gymnasium as gym
    import panda_gym  # noqa: F401

    return gym


EVAL_EVERY = 10
"""SB3: rollouts (of 2048 steps) between periodic evaluations."""


def sb3_worker(out: Path, target: float, eval_episodes: int, max_steps: int, seed: int) -> None:
    """Train SB3 PPO on PandaReachDense-v3 until the evaluation reaches ``target``."""
    import numpy as np
    import torch

    torch.set_num_threads(1)  # as Miles; faster for small MLPs on a loaded 2-core machine
    gym = _panda_gym()
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    def evaluate(model, env, episodes, eval_seed):
        successes, returns = 0, []
        obs, _ = env.reset(seed=eval_seed)
        for _ in range(episodes):
            done, total = False, 0.0
            while not done:
                action, _ = model.predict(obs, deterministic=True)
                obs, reward, terminated, truncated, info = env.step(action)
                total += float(reward)
                done = terminated or truncated
            successes += bool(info.get("is_success", False))
            returns.append(total)
            obs, _ = env.reset()
        return successes / episodes, float(np.mean(returns))

    eval_env = gym.make("PandaReachDense-v3")
    history = []

    class StopAtTarget(BaseCallback):
        """The same rule as Miles' runner: evaluate when the training success rate (last
        100 episodes, SB3's Monitor buffer) reaches the target and no evaluation has yet
        confirmed it, or every ``EVAL_EVERY`` rollouts; stop at the first evaluation that
        reaches the target."""

        def __init__(self):
            super().__init__()
            self.solved = None
            self.rollouts = 0
            self.since_eval = 0

        def _on_step(self) -> bool:
            return self.solved is None

        def _on_rollout_end(self) -> None:
            self.rollouts += 1
            self.since_eval += 1
            buffer = list(self.model.ep_success_buffer)
            train_success = float(np.mean(buffer)) if buffer else 0.0
            triggered = len(buffer) >= 20 and train_success >= target and self.since_eval >= 1
            if not (triggered or self.rollouts % EVAL_EVERY == 0):
                return
            self.since_eval = 0
            success, _ = evaluate(self.model, eval_env, eval_episodes, 1000)
            history.append(
                {
                    "env_steps": int(self.num_timesteps),
                    "train_success": round(train_success, 3),
                    "success": success,
                    "wall_s": round(time.perf_counter() - start, 3),
                }
            )
            if success >= target and self.solved is None:
                self.solved = history[-1]

    env = gym.make("PandaReachDense-v3")
    model = PPO("MultiInputPolicy", env, seed=seed, verbose=0)
    callback = StopAtTarget()
    start = time.perf_counter()
    model.learn(total_timesteps=max_steps, callback=callback)
    wall = time.perf_counter() - start
    solved = callback.solved
    confirm, _ = evaluate(model, eval_env, 200, 2000)
    result = {
        "wall_s": solved["wall_s"] if solved else None,
        "env_steps": solved["env_steps"] if solved else None,
        "success": solved["success"] if solved else (history[-1]["success"] if history else None),
        "reached_target": solved is not None,
        "train_wall_s_total": round(wall, 3),
        "confirm_success": confirm,
        "confirm_episodes": 200,
        "eval_episodes": eval_episodes,
        "env": "panda-gym PandaReachDense-v3",
        "algo": "stable-baselines3 PPO (defaults, MultiInputPolicy, 1 torch thread)",
        "evaluations": history,
    }
    out.write_text(json.dumps(result))


def run_miles(target: float, eval_episodes: int, max_steps: int, seed: int) -> dict:
    """``miles train reach`` as a user runs it, then a 200-episode confirmation."""
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        cmd = [
            sys.executable,
            "-m",
            "miles_ros.cli",
            "train",
            "reach",
            "--out",
            str(run),
            "--seed",
            str(seed),
            "--steps",
            str(max_steps),
            "--stop-at-target",
            "--target-success",
            str(target),
            "--eval-episodes",
            str(eval_episodes),
            "--final-eval-episodes",
            "0",
            "--no-progress",
            "--no-tensorboard",
        ]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        process_wall = time.perf_counter() - start
        if proc.returncode != 0:
            return {"error": proc.stderr[-2000:]}
        summary = json.loads((run / "summary.json").read_text())
        solved = summary["solved"]
        confirm_cmd = [
            sys.executable,
            "-m",
            "miles_ros.cli",
            "eval",
            str(run),
            "--checkpoint",
            "last",
            "--episodes",
            "200",
            "--seed",
            "2000",
            "--json",
        ]
        confirm = subprocess.run(confirm_cmd, cwd=ROOT, capture_output=True, text=True)
        confirm_success = (
            json.loads(confirm.stdout)["success"] if confirm.returncode == 0 else None
        )
        # The same 200 episodes behind the safety supervisor (miles eval --supervised):
        # what the skill does on the arm the robot really is.
        supervised = subprocess.run(
            [*confirm_cmd, "--supervised"], cwd=ROOT, capture_output=True, text=True
        )
        supervised_success = (
            json.loads(supervised.stdout)["success"] if supervised.returncode == 0 else None
        )
        return {
            "wall_s": solved["wall_time_s"] if solved else None,
            "env_steps": solved["env_steps"] if solved else None,
            "success": solved["success"] if solved else None,
            "supervised_success": supervised_success,
            "reached_target": solved is not None,
            "process_wall_s": round(process_wall, 3),
            "timing_s": summary["timing_s"],
            "confirm_success": confirm_success,
            "confirm_episodes": 200,
            "eval_episodes": eval_episodes,
            "env": "miles numba reach (training), miles pybullet reach (evaluation)",
            "num_envs": summary["num_envs"],
        }


def run_sb3(target: float, eval_episodes: int, max_steps: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sb3.json"
        cmd = [
            sys.executable,
            __file__,
            "--sb3-worker",
            str(out),
            "--target",
            str(target),
            "--eval-episodes",
            str(eval_episodes),
            "--sb3-max-steps",
            str(max_steps),
            "--seed",
            str(seed),
        ]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        process_wall = time.perf_counter() - start
        if proc.returncode != 0 or not out.exists():
            return {"error": proc.stderr[-2000:] or "no result"}
        result = json.loads(out.read_text())
        result["process_wall_s"] = round(process_wall, 3)
        return result


def onnx_latency(calls: int = 5000, warmup: int = 500) -> dict:
    """Single-observation latency (us) of every shipped skill."""
    import numpy as np

    from policies.cards import library_skill_dirs
    from policies.runtime import SkillPolicy

    out = {}
    for folder in library_skill_dirs():
        policy = SkillPolicy(folder)
        if policy.measures:  # a card that measures its finger offset: a right cell's (0)
            policy.use_measured(dict.fromkeys(policy.measures, 0.0))
        obs = np.random.default_rng(0).normal(size=policy.obs_dim).astype(np.float32)
        batch = obs[None, :]
        session = policy._actor
        for _ in range(warmup):
            policy.act(obs)
            session.run(None, {"obs": batch})
        wrapped, raw = [], []
        for _ in range(calls):
            t0 = time.perf_counter_ns()
            policy.act(obs)
            wrapped.append((time.perf_counter_ns() - t0) / 1e3)
        for _ in range(calls):
            t0 = time.perf_counter_ns()
            session.run(None, {"obs": batch})
            raw.append((time.perf_counter_ns() - t0) / 1e3)
        out[policy.name] = {
            "p50": round(float(np.percentile(wrapped, 50)), 2),
            "p99": round(float(np.percentile(wrapped, 99)), 2),
            "raw_p50": round(float(np.percentile(raw, 50)), 2),
            "raw_p99": round(float(np.percentile(raw, 99)), 2),
            "calls": calls,
        }
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only the JSON object")
    p.add_argument("--target", type=float, default=0.95)
    p.add_argument("--eval-episodes", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--miles-max-steps", type=int, default=3_000_000)
    p.add_argument("--sb3-max-steps", type=int, default=300_000)
    p.add_argument("--skip-sb3", action="store_true")
    p.add_argument("--skip-miles", action="store_true")
    p.add_argument("--sb3-worker", metavar="OUT", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.sb3_worker:
        sb3_worker(
            Path(args.sb3_worker), args.target, args.eval_episodes, args.sb3_max_steps, args.seed
        )
        return 0
    result: dict = {
        "target_success": args.target,
        "machine": {"cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0]},
    }
    result["miles"] = (
        None
        if args.skip_miles
        else run_miles(args.target, args.eval_episodes, args.miles_max_steps, args.seed)
    )
    result["sb3"] = (
        None
        if args.skip_sb3
        else run_sb3(args.target, args.eval_episodes, args.sb3_max_steps, args.seed)
    )
    m, s = result["miles"] or {}, result["sb3"] or {}
    result["speedup"] = (
        round(s["wall_s"] / m["wall_s"], 2) if m.get("wall_s") and s.get("wall_s") else None
    )
    result["onnx_latency_us"] = onnx_latency()
    result["machine"]["load_avg_1m_end"] = os.getloadavg()[0]
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
