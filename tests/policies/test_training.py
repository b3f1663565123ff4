"""PPO on the numba Reach env: learning, seeding, resume, and train -> export -> eval."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

import sims
from policies.commands import evaluate as eval_cmd
from policies.commands import export as export_cmd
from policies.commands import train as train_cmd
from policies.evaluation import run_episodes
from policies.library import active_skill_dir
from policies.ppo.config import default_train_config
from policies.ppo.runner import OnPolicyRunner, latest_checkpoint, torch_policy_fn


def _tiny_config(steps, num_envs=64, seed=0):
    cfg = default_train_config("reach")
    cfg.seed = seed
    rc = cfg.runner
    rc.num_envs, rc.rollout_steps, rc.total_steps = num_envs, 16, steps
    rc.eval_every, rc.final_eval_episodes = 0, 0
    rc.eval_on_train_success = False
    rc.progress = rc.tensorboard = False
    # The runner's mechanics, on the plain tracking arm (the default reach trains on the
    # command-path model with latency, which needs more than these tiny budgets).
    cfg.env.actuator, cfg.env.action_latency_steps = "none", 0
    return cfg


def _numba_return(model, episodes=64, seed=123):
    env = sims.make_env("reach", "numba", num_envs=16)
    return run_episodes(env, torch_policy_fn(model), episodes, seed)


def test_ppo_improves_reach_return_on_a_tiny_budget(tmp_path):
    cfg = _tiny_config(steps=64 * 16 * 40)  # 40 updates, ~41k env steps
    runner = OnPolicyRunner(cfg, tmp_path / "run")
    before = _numba_return(runner.model)
    summary = runner.learn()
    after = _numba_return(runner.model)
    runner.close()
    assert summary["env_steps"] == 64 * 16 * 40
    # An untrained policy barely moves (return about -15 over 50 steps); after 40
    # updates the arm heads for the goal. Seeded; the margin is generous.
    assert after.mean_return > before.mean_return + 4.0, (before, after)
    assert after.success > before.success + 0.2, (before, after)
    for name in ("config.yaml", "summary.json"):
        assert (tmp_path / "run" / name).exists()


def test_same_seed_gives_the_same_weights(tmp_path):
    params = []
    for i in range(2):
        runner = OnPolicyRunner(_tiny_config(steps=64 * 16 * 2, seed=5), tmp_path / f"r{i}")
        runner.learn()
        params.append(torch.cat([p.detach().flatten() for p in runner.model.parameters()]))
        runner.close()
    assert torch.equal(params[0], params[1])
    other = OnPolicyRunner(_tiny_config(steps=64 * 16 * 2, seed=6), tmp_path / "r3")
    other.learn()
    other.close()
    assert not torch.equal(
        params[0], torch.cat([p.detach().flatten() for p in other.model.parameters()])
    )


def test_train_export_eval_round_trip_and_resume(tmp_path, capsys):
    run = tmp_path / "run"
    base = [
        "--num-envs",
        "32",
        "--rollout-steps",
        "8",
        "--eval-every",
        "2",
        "--eval-episodes",
        "2",
        "--final-eval-episodes",
        "2",
        "--checkpoint-every",
        "2",
        "--no-progress",
        "--no-tensorboard",
        "--seed",
        "3",
    ]
    assert train_cmd.main(["reach", "--steps", str(32 * 8 * 4), "--out", str(run), *base]) == 0
    # The export command it suggests writes next to the run, not over the shipped skill.
    assert f"export: miles export {run} --out {run / 'skill'} " in capsys.readouterr().out
    ckpt = latest_checkpoint(run)
    assert ckpt.name == "model_000004.pt"
    assert torch.load(ckpt, weights_only=False)["env_steps"] == 32 * 8 * 4
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    assert cfg["task"] == "reach" and cfg["runner"]["num_envs"] == 32
    summary = json.loads((run / "summary.json").read_text())
    assert summary["final_eval"]["backend"] == "pybullet"
    assert summary["final_eval"]["episodes"] == 2
    assert (run / "tb").is_dir() is False  # --no-tensorboard

    # Resume continues from the checkpoint's step up to the new budget.
    assert (
        train_cmd.main(
            [
                "--resume",
                str(run),
                "--steps",
                str(32 * 8 * 6),
                "--no-progress",
                "--no-tensorboard",
                "--json",
            ]
        )
        == 0
    )
    resumed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert resumed["iterations"] == 6
    assert resumed["env_steps"] == 32 * 8 * 6
    assert latest_checkpoint(run).name == "model_000006.pt"
    meta = yaml.safe_load((run / "meta.yaml").read_text())
    assert meta["command"].startswith("miles train reach")
    assert meta["resumed"][0]["command"].startswith("miles train --resume")

    # A budget the run has already reached is refused before any work, with the step.
    quiet = ["--no-progress", "--no-tensorboard"]
    for steps in (["--steps", str(32 * 8 * 5)], []):  # below the saved step, or its own
        assert train_cmd.main(["--resume", str(run), *steps, *quiet]) == 2
        err = capsys.readouterr().err
        assert f"is at {32 * 8 * 6} env steps" in err and "--steps above" in err
    assert latest_checkpoint(run).name == "model_000006.pt"
    assert len(yaml.safe_load((run / "meta.yaml").read_text())["resumed"]) == 1

    # Export (evaluated through onnxruntime in PyBullet) and evaluate the skill.
    skill = tmp_path / "skill"
    assert export_cmd.main([str(run), "--out", str(skill), "--episodes", "2"]) == 0
    card = yaml.safe_load((skill / "skill.yaml").read_text())
    assert card["provenance"]["command"].startswith("miles train reach")
    assert card["provenance"]["steps"] > 0
    assert card["evaluation"]["episodes"] == 2
    assert card["evaluation"]["backend"] == "pybullet"
    capsys.readouterr()
    assert eval_cmd.main([str(skill), "--episodes", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"success", "ci95", "mean_return", "episodes"} <= set(result)
    assert result["episodes"] == 3
    assert 0.0 <= result["ci95"][0] <= result["success"] <= result["ci95"][1] <= 1.0


def test_init_from_starts_a_new_run_from_another_runs_weights(tmp_path):
    src, tiny = tmp_path / "src", ["--num-envs", "16", "--rollout-steps", "8"]
    quiet = [
        "--eval-every",
        "0",
        "--final-eval-episodes",
        "0",
        "--no-progress",
        "--no-tensorboard",
    ]
    args = ["reach", *tiny, *quiet, "--steps", "256", "--time-limit", "500"]
    assert train_cmd.main([*args, "--out", str(src)]) == 0

    def init_from(source, out, steps, *extra):
        argv = ["reach", *quiet, "--init-from", str(source), "--steps", str(steps)]
        return train_cmd.main([*argv, *extra, "--out", str(tmp_path / out)])

    # Without --config the source run's config is reused, but not its time limit ...
    assert init_from(src, "a", 128) == 0
    a = yaml.safe_load((tmp_path / "a" / "config.yaml").read_text())
    assert a["runner"]["num_envs"] == 16 and a["runner"]["time_limit_s"] == 0.0
    meta = yaml.safe_load((tmp_path / "a" / "meta.yaml").read_text())
    assert meta["init_from"]["env_steps"] == 256
    # ... while a --config given with it is taken whole, its time limit included.
    cfg = yaml.safe_load((src / "config.yaml").read_text())
    cfg["runner"]["time_limit_s"] = 77.0
    (tmp_path / "ft.yaml").write_text(yaml.safe_dump(cfg))
    assert init_from(src, "b", 128, "--config", str(tmp_path / "ft.yaml")) == 0
    b = yaml.safe_load((tmp_path / "b" / "config.yaml").read_text())
    assert b["runner"]["time_limit_s"] == 77.0
    # The card of a run started from a run started from another lists both sources.
    skill = tmp_path / "skill"
    assert export_cmd.main([str(tmp_path / "b"), "--out", str(skill), "--episodes", "0"]) == 0
    card = yaml.safe_load((skill / "skill.yaml").read_text())
    assert card["provenance"]["steps"] == 128
    b_src = card["provenance"]["init_from"]
    assert b_src["env_steps"] == 256 and b_src["command"].startswith("miles train reach")
    assert "init_from" not in b_src
    assert init_from(tmp_path / "b", "c", 64) == 0
    assert export_cmd.main([str(tmp_path / "c"), "--out", str(skill), "--episodes", "0"]) == 0
    lineage = yaml.safe_load((skill / "skill.yaml").read_text())["provenance"]["init_from"]
    assert lineage["env_steps"] == 128 and "--config" in lineage["command"]
    assert lineage["init_from"]["env_steps"] == 256


def test_eval_writes_a_gif(tmp_path, capsys):
    # The shipped reach skill ends its episode in about ten steps: few frames to render.
    gif = tmp_path / "episode.gif"
    assert eval_cmd.main(["reach", "--episodes", "1", "--video", str(gif)]) == 0
    assert "skill reach" in capsys.readouterr().out
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames > 1
        assert im.size[0] > 100 and im.size[1] > 100


def test_train_rejects_bad_arguments(tmp_path, capsys):
    assert train_cmd.main(["fly", "--out", str(tmp_path)]) == 2
    assert train_cmd.main(["--resume", str(tmp_path)]) == 2
    assert "nothing to resume" in capsys.readouterr().err


@pytest.mark.parametrize("episodes,num_envs", [(5, 2), (4, 4)])
def test_episode_set_is_fixed_by_the_seed(episodes, num_envs):
    env = sims.make_env("reach", "numba", num_envs=num_envs)
    rng = np.random.default_rng(0)
    weights = rng.normal(scale=0.3, size=(23, 7)).astype(np.float32)

    def policy(obs):
        return np.tanh(obs @ weights)

    a = run_episodes(env, policy, episodes, seed=11)
    b = run_episodes(env, policy, episodes, seed=11)
    assert a.episodes == episodes
    assert a.per_episode_success == b.per_episode_success
    assert a.mean_return == b.mean_return


class _CountingFilter:
    """A motor filter that passes the targets through and counts what it saw."""

    period_substeps = 2

    def __init__(self):
        self.calls = self.resets = 0

    def reset(self, row):
        self.resets += 1

    def __call__(self, substep, row, arm, finger):
        self.calls += 1
        return arm, finger


FILTERS: list[_CountingFilter] = []


def counting_filter_options(task, num_envs, task_config):
    """The ``counting`` motor filter's factory in the test below (injected by name)."""
    FILTERS[:] = [_CountingFilter() for _ in range(num_envs)]
    return {"config": task_config, "motor_filters": list(FILTERS), "num_workers": 0}


def test_a_motor_filter_and_longer_episodes_reach_training_and_evaluation(tmp_path):
    cfg = _tiny_config(2 * 2 * 16, num_envs=2)
    cfg.backend = "pybullet"
    cfg.env.episode_scale = 0.2  # 10-step reach episodes: resets inside the tiny budget
    cfg.env.motor_filter = "counting"
    filters = {"counting": counting_filter_options}
    runner = OnPolicyRunner(cfg, tmp_path / "run", motor_filters=filters)
    assert runner.env.cfg.episode_steps == 10
    runner.learn()
    steps = runner.env_steps
    assert steps == 64
    # every physics step pair of every env passed the filter (20 substeps per period)
    assert sum(f.calls for f in FILTERS) == steps * 10
    assert sum(f.resets for f in FILTERS) >= 2 + 2 * (steps // 2 // 10)  # initial + episodes
    result = runner.evaluate(episodes=2)
    assert result is not None and result.mean_length <= 10
    assert len(FILTERS) == cfg.runner.eval_num_envs  # the evaluation env got its own
    cfg.env.motor_filter = "no_such_filter"
    with pytest.raises(ValueError, match="env.motor_filter 'no_such_filter': no factory"):
        OnPolicyRunner(cfg, tmp_path / "bad", motor_filters=filters)
    cfg.env.motor_filter = "counting"  # named, but nothing injected: refused, not imported
    with pytest.raises(ValueError, match="env.motor_filter 'counting': no factory"):
        OnPolicyRunner(cfg, tmp_path / "bad")


def test_a_filtered_runs_card_centres_the_planners_affordance_on_its_own_evaluation():
    from policies.export import _affordance_center

    evaluations = [
        {
            "kind": "periodic",
            "env_steps": 1024,
            "episodes": 100,
            "seed": 2000,
            "mean_return": -3.6151,
        }
    ]
    plain = {"env": {"motor_filter": "", "episode_scale": 1.0}}
    assert _affordance_center(plain, {"evaluations": evaluations}) is None
    filtered = {"env": {"motor_filter": "m:f", "episode_scale": 2.0}}
    centre = _affordance_center(filtered, {"evaluations": evaluations})
    assert centre["center"] == -3.6151 and "m:f" in centre["source"]
    assert _affordance_center(filtered, {"evaluations": []}) is None


def test_an_interrupted_run_keeps_a_checkpoint_and_a_summary(tmp_path, capsys, monkeypatch):
    """Ctrl-C in learn(): the last checkpoint and summary.json marked interrupted are
    written on the way out; `miles train` says where and how to continue; --resume does."""
    update = OnPolicyRunner._update
    calls = []

    def interrupt_the_third(self, last_values):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return update(self, last_values)

    monkeypatch.setattr(OnPolicyRunner, "_update", interrupt_the_third)
    run = tmp_path / "run"
    tiny = ["--num-envs", "16", "--rollout-steps", "8", "--eval-every", "0"]
    quiet = ["--final-eval-episodes", "0", "--no-progress", "--no-tensorboard"]
    argv = ["reach", *tiny, *quiet, "--checkpoint-every", "50", "--steps", str(16 * 8 * 5)]
    assert train_cmd.main([*argv, "--out", str(run)]) == 130
    err = capsys.readouterr().err
    assert "interrupted at 256 env steps" in err and f"--resume {run}" in err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"]["reason"] == "KeyboardInterrupt"
    assert summary["env_steps"] == 16 * 8 * 2 and summary["iterations"] == 2
    assert summary["interrupted"]["checkpoint"] == str(latest_checkpoint(run))
    assert latest_checkpoint(run).name == "model_000002.pt"

    monkeypatch.setattr(OnPolicyRunner, "_update", update)
    assert train_cmd.main(["--resume", str(run), *quiet[2:], "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert resumed["env_steps"] == 16 * 8 * 5 and resumed["interrupted"] is None


def test_an_error_in_learn_also_writes_the_summary(tmp_path):
    runner = OnPolicyRunner(_tiny_config(steps=16 * 8 * 3, num_envs=16), tmp_path / "run")

    def broken(obs):
        raise RuntimeError("the env died")

    runner._rollout = broken
    with pytest.raises(RuntimeError, match="the env died"):
        runner.learn()
    runner.close()
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert "the env died" in summary["interrupted"]["reason"]
    assert summary["env_steps"] == 0
    assert (tmp_path / "run" / "checkpoints" / "model_000000.pt").is_file()


def _tree(folder):
    return {str(f.relative_to(folder)): f.read_bytes() for f in folder.rglob("*") if f.is_file()}


def test_export_never_writes_into_a_versioned_skill(tmp_path, capsys, monkeypatch):
    """The shipped skills are versioned: export refuses them even with --force and says how
    to add a new version."""
    from policies.cards import SHIPPED_LIBRARY

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(yaml.safe_dump({"task": "reach"}))
    shipped = SHIPPED_LIBRARY / "reach"
    before = _tree(shipped)
    monkeypatch.chdir(SHIPPED_LIBRARY.parents[1])  # the default --out is policies/skills/TASK
    for argv in ([str(run)], [str(run), "--out", str(shipped)], [str(run), "--force"]):
        assert export_cmd.main([*argv, "--episodes", "0"]) == 2
        err = capsys.readouterr().err
        assert "is a versioned skill" in err and f"miles skills add reach {run / 'skill'}" in err
    assert _tree(shipped) == before


def test_export_replaces_a_plain_shipped_skill_only_with_force(tmp_path, capsys, monkeypatch):
    from policies import cards
    from policies.library import active_skill_dir

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(yaml.safe_dump({"task": "reach"}))
    library = tmp_path / "skills"
    plain = library / "reach"
    shutil.copytree(active_skill_dir(cards.SHIPPED_LIBRARY / "reach"), plain)
    monkeypatch.setattr(cards, "SHIPPED_LIBRARY", library)
    before = _tree(plain)
    assert export_cmd.main([str(run), "--out", str(plain), "--episodes", "0"]) == 2
    err = capsys.readouterr().err
    assert "is a shipped skill" in err and "--force" in err and str(run / "skill") in err
    # --force gets past the guard (and then fails here on the fake run: no checkpoint).
    assert export_cmd.main([str(run), "--out", str(plain), "--episodes", "0", "--force"]) == 2
    assert "is a shipped skill" not in capsys.readouterr().err
    assert _tree(plain) == before


def test_init_from_an_exported_skill_starts_from_its_onnx_weights(tmp_path):
    """``--init-from SKILL_DIR``: the run starts from the version's ONNX networks (its
    normalizer weighted by the steps it was trained on) and says so in its meta; the
    skill carries no training config, so the run must give one."""
    from policies.cards import load_card
    from policies.finetune import onnx_network_config, skill_init_data
    from policies.ppo.networks import ActorCritic
    from policies.runtime import SkillPolicy

    skill = Path("policies/skills/reach")
    card = load_card(active_skill_dir(skill))
    data = skill_init_data(skill)
    assert data["task"] == "reach" and data["init_ckpt"] == str(card.directory)
    trained = card.provenance.get("total_steps") or card.provenance["steps"]
    assert data["env_steps"] == trained > 0
    assert float(data["model"]["normalizer.count"]) == data["env_steps"]
    network = onnx_network_config(skill)
    model = ActorCritic(card.obs_dim, card.action_dim, network)
    model.load_state_dict(data["model"])
    obs = np.random.default_rng(0).normal(0.0, 0.3, (64, card.obs_dim)).astype(np.float32)
    with torch.no_grad():
        ours = model.act_deterministic(torch.as_tensor(obs)).numpy()
    assert np.abs(ours - SkillPolicy(card.directory).act(obs)).max() < 1e-5

    quiet = ["--eval-every", "0", "--final-eval-episodes", "0", "--no-progress"]
    quiet += ["--no-tensorboard", "--num-envs", "16", "--rollout-steps", "8", "--steps", "128"]
    argv = ["reach", *quiet, "--init-from", str(skill)]
    assert train_cmd.main([*argv, "--out", str(tmp_path / "no_config")]) == 2
    cfg = _tiny_config(steps=128, num_envs=16)
    cfg.network = network
    (tmp_path / "ft.yaml").write_text(yaml.safe_dump(cfg.to_dict()))
    out = tmp_path / "ft"
    assert train_cmd.main([*argv, "--config", str(tmp_path / "ft.yaml"), "--out", str(out)]) == 0
    meta = yaml.safe_load((out / "meta.yaml").read_text())
    assert meta["init_from"]["checkpoint"] == str(card.directory)
    assert meta["init_from"]["env_steps"] == data["env_steps"]
    assert meta["init_from"]["backend"] == card.provenance["backend"]
