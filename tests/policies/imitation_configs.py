"""Tiny imitation (DAgger) configs and a spy on its loss, shared by the imitation tests."""

import inspect

import pytest
import yaml

from policies.commands import train as train_cmd
from policies.ppo import imitation as dagger
from policies.ppo.config import TrainConfig, default_train_config
from policies.ppo.stages import StageConfigError, parse_staged_config


def reach_imitation_config(total_steps=4096, task="reach", env=None, **imitation):
    """A reach (``task``) DAgger run of ``total_steps`` on 32 numba envs, no evaluations;
    ``env`` updates the env block, ``imitation`` overrides the scripted-expert block."""
    data = default_train_config(task).to_dict()
    data["env"].update(env or {})
    data["runner"].update(
        num_envs=32,
        rollout_steps=16,
        total_steps=total_steps,
        checkpoint_every=1000,
        eval_every=0,
        final_eval_episodes=0,
        eval_on_train_success=False,
        eval_backend="numba",
        eval_num_envs=50,
        progress=False,
        tensorboard=False,
    )
    data["imitation"] = {"expert": "scripted", "gradient_steps": 10, "minibatch_size": 512}
    data["imitation"].update(imitation)
    return TrainConfig.from_dict(data)


def assert_refused_before_any_work(tmp_path, capsys, imitation: dict, message: str) -> None:
    """A bad ``imitation`` block is refused with ``message`` by the stage parser and by
    ``miles train`` (exit 2) before a run directory exists."""
    data = reach_imitation_config().to_dict()
    data["stages"] = [{"name": "a", "backend": "numba", "overrides": {"imitation": imitation}}]
    with pytest.raises(StageConfigError, match=message):
        parse_staged_config(data)
    path = tmp_path / "bad.yaml"
    data.pop("stages")
    data["imitation"] = imitation
    path.write_text(yaml.safe_dump(data))
    run = tmp_path / "run"
    assert train_cmd.main(["reach", "--config", str(path), "--out", str(run)]) == 2
    assert message in capsys.readouterr().err
    assert not run.exists()


def spy_on_imitation_loss(monkeypatch) -> list[tuple]:
    """Record every call of DAgger's regression loss (``imitation.imitation_loss``) from now
    on as ``(kind, floor, weight)``, in order; the loss itself is computed as before."""
    loss = dagger.imitation_loss
    signature = inspect.signature(loss)
    seen = []

    def spy(*args, **kwargs):
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        seen.append(tuple(call.arguments[name] for name in ("kind", "floor", "weight")))
        return loss(*args, **kwargs)

    monkeypatch.setattr(dagger, "imitation_loss", spy)
    return seen


def one_update(cfg: TrainConfig, run_dir) -> dict:
    """One rollout and one update of a DAgger run of ``cfg`` in ``run_dir``; its stats."""
    from policies.ppo.imitation import DAggerRunner

    runner = DAggerRunner(cfg, run_dir)
    try:
        _, last_values, _, _ = runner._rollout(runner._reset_envs())
        return runner._update(last_values)
    finally:
        runner.close()
