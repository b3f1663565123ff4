"""Staged training (policies.ppo.stages): config errors before any work, stages chained
through their selected checkpoints, and a run resumed mid-stage after a crash."""

import json

import pytest
import yaml

from policies.commands import export as export_cmd
from policies.commands import train as train_cmd
from policies.ppo import runner as runner_mod
from policies.ppo.config import default_train_config
from policies.ppo.stages import StageConfigError, parse_staged_config


def _staged_config(select2="best_eval_success"):
    """Two tiny numba reach stages (128 env steps per update)."""
    data = default_train_config("reach").to_dict()
    rc = data["runner"]
    rc.update(num_envs=16, rollout_steps=8, checkpoint_every=2, eval_every=0)
    rc.update(final_eval_episodes=0, eval_on_train_success=False, eval_backend="numba")
    rc.update(progress=False, tensorboard=False)
    data["stages"] = [
        {"name": "coarse", "backend": "numba", "steps": 512, "select": "last"},
        {
            "name": "fine",
            "backend": "numba",
            "steps": 768,
            "overrides": {"ppo": {"learning_rate": 3e-4}},
            "select": {"rule": select2, "episodes": 4, "seed": 7},
        },
    ]
    return data


def _write(tmp_path, data):
    path = tmp_path / "staged.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(stages=[]), "non-empty list"),
        (lambda d: d["stages"][1].update(backend="mujoco"), "unknown backend 'mujoco'"),
        (lambda d: d["stages"][0].update(select="best_guess"), "unknown select rule"),
        (lambda d: d["stages"][0].update(select={"rule": "last", "k": 1}), "unknown select"),
        (lambda d: d["stages"][0].update(overrides={"runner": {"nope": 1}}), "nope"),
        (lambda d: d["stages"][0].update(steps=0), "steps must be"),
        (lambda d: d["stages"][1].update(name="coarse"), "must be unique"),
        (lambda d: d["stages"][0].update(epochs=3), "unknown keys epochs"),
        (
            lambda d: d["stages"][1].update(overrides={"env": {"motor_filter": "x"}}),
            "no factory",
        ),
    ],
)
def test_bad_stage_configs_fail_before_any_work(tmp_path, capsys, change, message):
    data = _staged_config()
    change(data)
    with pytest.raises(StageConfigError, match=message):
        parse_staged_config(data)
    run = tmp_path / "run"
    code = train_cmd.main(["--config", str(_write(tmp_path, data)), "--out", str(run)])
    assert code == 2
    assert message.split("'")[0] in capsys.readouterr().err
    assert not run.exists()


def test_stage_flags_set_per_stage_are_refused(tmp_path, capsys):
    path = _write(tmp_path, _staged_config())
    assert train_cmd.main(["--config", str(path), "--steps", "10"]) == 2
    assert "--steps is set per stage" in capsys.readouterr().err


def test_stages_chain_resume_mid_stage_after_a_crash_and_export(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, _staged_config())
    run = tmp_path / "run"
    Runner = runner_mod.OnPolicyRunner
    original = Runner._train_one_update
    learned, loaded = [], []

    def crashing(self, obs, schedule):
        if self.run_dir.name == "stage_2_fine" and self.iteration == 3:
            raise RuntimeError("injected crash")
        return original(self, obs, schedule)

    original_learn, original_load = Runner.learn, Runner.load

    def spy_learn(self):
        learned.append(self.run_dir.name)
        return original_learn(self)

    def spy_load(self, ckpt):
        loaded.append(str(ckpt))
        return original_load(self, ckpt)

    monkeypatch.setattr(Runner, "learn", spy_learn)
    monkeypatch.setattr(Runner, "load", spy_load)
    monkeypatch.setattr(Runner, "_train_one_update", crashing)
    with pytest.raises(RuntimeError, match="injected crash"):
        train_cmd.main(["--config", str(path), "--out", str(run), "--seed", "3"])
    summary = json.loads((run / "summary.json").read_text())
    assert [s["status"] for s in summary["stages"]] == ["done", "interrupted"]
    assert summary["interrupted"]["stage"] == "fine"
    coarse = summary["stages"][0]
    assert coarse["env_steps"] == 512 and coarse["selected"]["rule"] == "last"
    assert coarse["selected"]["checkpoint"].endswith("stage_1_coarse/checkpoints/model_000004.pt")
    # stage 2 started from stage 1's selected checkpoint
    meta2 = yaml.safe_load((run / "stage_2_fine" / "meta.yaml").read_text())
    assert meta2["init_from"]["checkpoint"] == coarse["selected"]["checkpoint"]
    cfg2 = yaml.safe_load((run / "stage_2_fine" / "config.yaml").read_text())
    assert cfg2["ppo"]["learning_rate"] == 3e-4 and cfg2["seed"] == 3
    assert learned == ["stage_1_coarse", "stage_2_fine"] and loaded == []

    monkeypatch.setattr(Runner, "_train_one_update", original)
    assert train_cmd.main(["--resume", str(run), "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # stage 1 skipped; stage 2 resumed from the checkpoint the crash left (update 3)
    assert learned == ["stage_1_coarse", "stage_2_fine", "stage_2_fine"]
    assert loaded == [str(run / "stage_2_fine" / "checkpoints" / "model_000003.pt")]
    assert [s["status"] for s in out["stages"]] == ["done", "done"]
    fine = out["stages"][1]
    assert fine["env_steps"] == 768 and out["env_steps"] == 512 + 768
    sel = fine["selected"]
    assert sel["rule"] == "best_eval_success" and sel["episodes"] == 4
    assert [e["checkpoint"] for e in sel["evaluations"]] == [
        f"model_{k:06d}.pt" for k in (2, 3, 4, 6)
    ]
    assert max(e["success"] for e in sel["evaluations"]) == sel["success"]
    assert (run / "checkpoints" / "best.pt").exists()
    assert yaml.safe_load((run / "config.yaml").read_text())["runner"]["total_steps"] == 768
    stored = json.loads((run / "summary.json").read_text())
    assert stored["selected_checkpoint"] == sel["checkpoint"]
    meta = yaml.safe_load((run / "meta.yaml").read_text())
    assert meta["resumed"] and meta["init_from"]["checkpoint"] == coarse["selected"]["checkpoint"]
    # the run exports like any other: the last stage's pick, with the stages as lineage
    skill = tmp_path / "skill"
    assert export_cmd.main([str(run), "--out", str(skill), "--episodes", "0"]) == 0
    card = yaml.safe_load((skill / "skill.yaml").read_text())
    assert card["provenance"]["steps"] == 768
    assert card["provenance"]["init_from"]["checkpoint"] == coarse["selected"]["checkpoint"]
    assert card["provenance"]["command"].startswith("miles train --config")


def test_shipped_staged_configs_parse_with_the_supervisor_composed():
    from pathlib import Path

    from miles_ros.runtime.supervised import MOTOR_FILTERS

    files = [
        p
        for p in sorted((Path(__file__).parents[2] / "config" / "train").glob("*.yaml"))
        if "stages" in yaml.safe_load(p.read_text())
    ]
    assert files, "config/train has an example with stages"
    for path in files:
        staged = parse_staged_config(yaml.safe_load(path.read_text()), str(path), MOTOR_FILTERS)
        last = staged.stage_config(len(staged.stages) - 1)
        assert last.env.motor_filter == "safety_supervisor"
    with pytest.raises(StageConfigError, match="no factory"):
        parse_staged_config(yaml.safe_load(files[0].read_text()), str(files[0]))


def test_train_task_alone_runs_the_shipped_recipe(monkeypatch, tmp_path):
    """``miles train push`` runs config/train/push.yaml; a budget, backend or config of the
    caller keeps the single-run defaults; a task without a recipe too."""
    from types import SimpleNamespace

    from policies.commands import train_staged

    def args(**kw):
        base = {"task": "push", "resume": None, "config": None}
        base.update(backend=None, steps=None, init_from=None)
        return SimpleNamespace(**{**base, **kw})

    assert str(train_staged.default_recipe(args())) == "config/train/push.yaml"
    assert str(train_staged.default_recipe(args(task="pick_place"))).endswith("pick_place.yaml")
    assert train_staged.default_recipe(args(task="reach")) is None
    assert train_staged.default_recipe(args(steps=1000)) is None
    assert train_staged.default_recipe(args(config="mine.yaml")) is None
    assert train_staged.default_recipe(args(resume="runs/x")) is None
    monkeypatch.chdir(tmp_path)  # elsewhere than the repository: no recipe, the defaults
    assert train_staged.default_recipe(args()) is None
