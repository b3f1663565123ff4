"""A tiny training run to export from, and an evaluation that only records what it was
asked, for the export and evaluation tests."""

from __future__ import annotations

from pathlib import Path

from policies.ppo.runner import OnPolicyRunner


def push_run(run_dir: Path, num_envs: int, total_steps: int, **env) -> OnPolicyRunner:
    """A push run of ``num_envs`` numba envs in 4-step rollouts, ``total_steps`` in all,
    with ``env`` (EnvConfig fields) and no evaluation, progress bar or TensorBoard, that
    wrote its checkpoint into ``run_dir`` and closed."""
    from policies.ppo.config import default_train_config

    cfg = default_train_config("push")
    cfg.backend = "numba"
    rc = cfg.runner
    rc.num_envs, rc.rollout_steps, rc.total_steps = num_envs, 4, total_steps
    rc.eval_every, rc.final_eval_episodes = 0, 0
    rc.progress = rc.tensorboard = False
    for name, value in env.items():
        setattr(cfg.env, name, value)
    runner = OnPolicyRunner(cfg, run_dir)
    runner.checkpoint()
    runner.close()
    return runner


def stopped_evaluations(monkeypatch, message: str) -> list[dict]:
    """Replace ``policies.evaluation.evaluate`` by one that appends its keyword arguments
    (and ``task``) to the list returned, then raises ``RuntimeError(message)``."""
    seen: list[dict] = []

    def fake_evaluate(policy, task, **kwargs):
        seen.append({**kwargs, "task": task})
        raise RuntimeError(message)

    monkeypatch.setattr("policies.evaluation.evaluate", fake_evaluate)
    return seen
