"""Imitation stages (policies.ppo.imitation, DAgger from policies.experts): the mixing of
expert and student actions, a student that learns reach on the arm's command-path model,
an imitation stage chained into a PPO stage, and bad imitation configs refused."""

import json

import numpy as np
import pytest
import torch
import yaml

from policies.commands import train as train_cmd
from policies.experts import get_expert, get_labeller, get_rollout_labeller
from policies.ppo.config import default_train_config
from policies.ppo.imitation import DAggerRunner, clean_envs, runner_class
from policies.ppo.runner import OnPolicyRunner
from policies.ppo.stages import StageConfigError, parse_staged_config
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    reach_imitation_config,
)


def test_runner_class_follows_the_config():
    assert runner_class(reach_imitation_config()) is DAggerRunner
    assert runner_class(default_train_config("reach")) is OnPolicyRunner


def test_beta_one_executes_the_expert_and_beta_zero_the_noisy_student(tmp_path):
    cfg = reach_imitation_config(beta_start=1.0, beta_end=1.0, exploration_std=0.05)
    runner = DAggerRunner(cfg, tmp_path / "a")
    try:
        obs = runner._reset_envs()
        runner._rollout(obs)
        executed = runner.storage.actions
        np.testing.assert_allclose(executed.numpy(), runner.labels.numpy(), atol=1e-6)
    finally:
        runner.close()
    cfg = reach_imitation_config(beta_start=0.0, beta_end=0.0, exploration_std=0.05)
    runner = DAggerRunner(cfg, tmp_path / "b")
    try:
        obs = runner._reset_envs()
        with torch.no_grad():
            first = runner.model.act_deterministic(obs)
        runner._rollout(obs)
        noise = runner.storage.actions[0] - first
        assert 0.03 < float(noise.std()) < 0.07  # the student's action plus its noise
        assert not torch.allclose(runner.storage.actions, runner.labels)
    finally:
        runner.close()


@pytest.mark.parametrize(
    "n, fraction, want",
    [(16, 0.25, [0, 4, 8, 12]), (16, 0.0, []), (4, 1.0, [0, 1, 2, 3]), (10, 0.3, [0, 3, 6])],
)
def test_clean_envs_are_spread_over_the_indices(n, fraction, want):
    assert np.flatnonzero(clean_envs(n, fraction)).tolist() == want


def test_clean_envs_execute_the_deterministic_student_and_the_others_as_before(tmp_path):
    """imitation.clean_fraction: at beta 1 the clean envs still execute the student's own
    action, without noise; the other envs the expert's, and their noise draws are those of a
    run without clean envs (beta 0: the same executed actions there)."""
    env = {"observation_noise_std": 0.0}  # numba: nothing to take off per env
    for beta in (1.0, 0.0):
        runs = {}
        for fraction in (0.0, 0.25):
            cfg = reach_imitation_config(
                env=env, beta_start=beta, beta_end=beta, clean_fraction=fraction
            )
            runner = DAggerRunner(cfg, tmp_path / f"{beta}-{fraction}")
            try:
                runner._rollout(runner._reset_envs())
                with torch.no_grad():
                    own = runner.model.act_deterministic(
                        runner.storage.obs.reshape(-1, runner.obs_dim)
                    )
                own = own.reshape(runner.storage.actions.shape)
                runs[fraction] = (runner.clean.clone(), runner.storage.actions.clone(), own)
                labels = runner.labels.clone()
            finally:
                runner.close()
        clean, executed, own = runs[0.25]
        assert clean.sum() == 8  # 32 envs
        np.testing.assert_allclose(executed[:, clean], own[:, clean], atol=1e-6)
        others = executed[:, ~clean]
        if beta == 1.0:
            np.testing.assert_allclose(others, labels[:, ~clean], atol=1e-6)
        else:
            assert float((others - own[:, ~clean]).std()) > 0.05  # the noisy student
            np.testing.assert_allclose(others, runs[0.0][1][:, ~clean], atol=1e-6)


def test_clean_envs_need_a_backend_that_turns_its_noise_off_per_env(tmp_path):
    cfg = reach_imitation_config(env={"observation_noise_std": 0.002}, clean_fraction=0.25)
    with pytest.raises(ValueError, match="clean_fraction: numba"):
        DAggerRunner(cfg, tmp_path)


def test_under_a_pose_error_the_expert_labels_from_the_true_pose(tmp_path):
    cfg = reach_imitation_config(
        task="pick_place", env={"pose_error": "camera"}, beta_start=1.0, beta_end=1.0
    )
    runner = DAggerRunner(cfg, tmp_path)
    env, seen = runner.env, []
    privileged = env.privileged_observation

    def spy():
        seen.append(privileged())
        return seen[-1]

    env.privileged_observation = spy
    try:
        runner._rollout(runner._reset_envs())
        expert = get_expert("pick_place")
        assert len(seen) == cfg.runner.rollout_steps
        for t, truth in enumerate(seen):
            want = np.clip(expert(truth, env.cfg), -1.0, 1.0)
            np.testing.assert_allclose(runner.labels[t].numpy(), want, atol=1e-6)
            observed = runner.storage.obs[t].numpy()
            assert not np.allclose(observed, truth)  # the student saw the erred pose
    finally:
        runner.close()


def test_the_expert_may_label_what_the_student_sees_with_its_memory(tmp_path):
    """``expert_view: seen`` labels the observation the student saw (not the true pose);
    ``expert_memory`` labels each env's states in order with the expert's memory (pick_place:
    the finger reading's history), where the expert on single states grips earlier."""
    cfg = reach_imitation_config(
        task="pick_place",
        env={"pose_error": "camera"},
        beta_start=1.0,
        beta_end=1.0,
        expert_view="seen",
        expert_memory=True,
    )
    cfg.runner.num_envs, cfg.runner.rollout_steps = 8, 80  # long enough to close on the cube
    runner = DAggerRunner(cfg, tmp_path)
    replay, single = get_rollout_labeller("pick_place"), get_labeller("pick_place")
    differ = 0
    try:
        runner._rollout(runner._reset_envs())
        for t in range(cfg.runner.rollout_steps):
            seen = runner.storage.obs[t].numpy()
            want = np.clip(replay(seen, runner.task_config)[0], -1.0, 1.0)
            np.testing.assert_allclose(runner.labels[t].numpy(), want, atol=1e-6)
            alone = np.clip(single(seen, runner.task_config)[0], -1.0, 1.0)
            differ += int(np.any(np.abs(alone - want) > 1e-6, axis=1).sum())
    finally:
        runner.close()
    assert differ > 0  # the fingers closing on the cube: the memory waits for them to stop


def test_beta_decays_linearly_over_beta_steps(tmp_path):
    runner = DAggerRunner(reach_imitation_config(beta_steps=1000, beta_end=0.2), tmp_path)
    try:
        assert runner.beta() == 1.0
        runner.record.env_steps = 500
        assert runner.beta() == pytest.approx(0.6)
        runner.record.env_steps = 5000
        assert runner.beta() == pytest.approx(0.2)
    finally:
        runner.close()


def test_a_student_learns_reach_on_the_command_path_model(tmp_path):
    """DAgger from the IK expert: the deterministic student succeeds like the expert on
    seeded episodes it never trained on (the rate-limited arm, 0..2 periods of latency)."""
    from policies.evaluation import run_episodes
    from policies.ppo.checkpoints import torch_policy_fn
    from policies.ppo.envs import evaluation_task_config, make_env

    cfg = reach_imitation_config(total_steps=40_000, beta_steps=20_000)
    assert cfg.env.actuator == "panda" and cfg.env.action_latency_steps == 2
    runner = DAggerRunner(cfg, tmp_path)
    try:
        summary = runner.learn()
        env = make_env(cfg, "numba", 50, evaluation_task_config(cfg))
        student = run_episodes(env, torch_policy_fn(runner.model), 200, seed=4242)
        expert = get_expert("reach")
        teacher = run_episodes(env, lambda o: expert(o, env.cfg), 200, seed=4242)
    finally:
        runner.close()
    assert summary["env_steps"] >= 40_000
    assert teacher.success >= 0.95
    assert student.success >= 0.9  # measured 1.0 at 40k steps
    assert float(runner.model.log_std.detach().exp().mean()) == pytest.approx(0.1)


def test_an_imitation_stage_chains_into_a_ppo_stage(tmp_path, capsys):
    data = reach_imitation_config(total_steps=1024).to_dict()
    data["imitation"] = {"expert": ""}
    data["stages"] = [
        {
            "name": "dagger",
            "backend": "numba",
            "steps": 1024,
            "overrides": {"imitation": {"expert": "scripted", "gradient_steps": 4}},
        },
        {"name": "ppo", "backend": "numba", "steps": 512},
    ]
    path = tmp_path / "staged.yaml"
    path.write_text(yaml.safe_dump(data))
    run = tmp_path / "run"
    assert train_cmd.main(["--config", str(path), "--out", str(run), "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [s["status"] for s in out["stages"]] == ["done", "done"]
    cfg1 = yaml.safe_load((run / "stage_1_dagger" / "config.yaml").read_text())
    cfg2 = yaml.safe_load((run / "stage_2_ppo" / "config.yaml").read_text())
    assert cfg1["imitation"]["expert"] == "scripted" and cfg2["imitation"]["expert"] == ""
    meta2 = yaml.safe_load((run / "stage_2_ppo" / "meta.yaml").read_text())
    assert meta2["init_from"]["checkpoint"] == out["stages"][0]["selected"]["checkpoint"]


@pytest.mark.parametrize(
    "imitation, message",
    [
        ({"expert": "human"}, "imitation.expert must be"),
        ({"expert": "scripted", "beta_start": 1.5}, "beta_start"),
        ({"expert": "scripted", "gradient_steps": 0}, "gradient_steps"),
        ({"expert": "scripted", "exploration_std": 0.0}, "exploration_std"),
        ({"expert": "scripted", "epochs": 3}, "epochs"),
        ({"expert": "scripted", "clean_fraction": 1.5}, "clean_fraction"),
    ],
)
def test_bad_imitation_configs_fail_before_any_work(tmp_path, capsys, imitation, message):
    assert_refused_before_any_work(tmp_path, capsys, imitation, message)


def test_a_task_without_an_expert_is_named():
    with pytest.raises(ValueError, match="experts exist for reach"):
        get_expert("stack")


def test_a_later_imitation_stage_carries_the_earlier_stages_states(tmp_path, monkeypatch):
    from policies.ppo import stages as stages_mod
    from policies.ppo.imitation import BUFFER_FILE

    data = reach_imitation_config(total_steps=1024).to_dict()
    data["stages"] = [
        {"name": "first", "backend": "numba", "steps": 1024},
        {
            "name": "second",
            "backend": "numba",
            "steps": 512,
            "overrides": {"imitation": {"carry_states": 300}, "env": {"actuator": "none"}},
        },
    ]
    carried = []
    original = DAggerRunner.carry

    def spy(self, path):
        n = original(self, path)
        carried.append((n, self.buffer_len))
        return n

    monkeypatch.setattr(DAggerRunner, "carry", spy)
    staged = parse_staged_config(data)
    stages_mod.run_stages(staged, tmp_path / "run")
    first = tmp_path / "run" / "stage_1_first" / BUFFER_FILE
    saved = torch.load(first, weights_only=True)
    assert saved["obs"].shape == (1024, 23) and saved["labels"].shape == (1024, 7)
    assert carried == [(300, 300)]  # the second stage started from 300 of them
    assert (tmp_path / "run" / "stage_2_second" / BUFFER_FILE).exists()
    with pytest.raises(StageConfigError, match="carry_states"):
        bad = reach_imitation_config().to_dict()
        bad["stages"] = [
            {"name": "a", "backend": "numba", "overrides": {"imitation": {"carry_states": -1}}}
        ]
        parse_staged_config(bad)


class _PassThrough:
    """A motor filter that passes the targets through and counts its calls."""

    period_substeps = 2
    calls = 0

    def reset(self, row):
        pass

    def __call__(self, substep, row, arm, finger):
        _PassThrough.calls += 1
        return arm, finger


def _pass_through_options(task, num_envs, task_config):
    return {
        "config": task_config,
        "motor_filters": [_PassThrough() for _ in range(num_envs)],
        "num_workers": 0,
    }


def test_an_imitation_runs_card_gets_its_affordance_centre_from_an_evaluation_at_export(
    tmp_path, caplog
):
    """A DAgger run records no evaluation; export measures the checkpoint in the run's own
    evaluation env (episode scale, motor filter) so the card still gets affordance.center
    (the critic learned those episodes' returns, not the card's plain evaluation's)."""
    from policies.evaluation import run_episodes
    from policies.export import (
        _affordance_center,
        evaluate_at_export,
        export_run,
        resolve_checkpoint,
    )
    from policies.ppo.checkpoints import load_policy, torch_policy_fn
    from policies.ppo.envs import evaluation_task_config, make_env

    cfg = reach_imitation_config(total_steps=512)
    cfg.env.episode_scale = 0.5
    cfg.env.plain_arm_prob = 0.0  # one evaluation env (the two-arm split: test_plain_arm.py)
    cfg.runner.eval_num_envs, cfg.runner.eval_episodes = 5, 10
    runner = DAggerRunner(cfg, tmp_path / "run")
    try:
        runner.learn()
    finally:
        runner.close()
    model, data = load_policy(resolve_checkpoint(tmp_path / "run"))
    assert data["evaluations"] == []  # imitation: no periodic or final evaluation
    card = export_run(tmp_path / "run", tmp_path / "skill", eval_episodes=0)
    env = make_env(cfg, "numba", 5, evaluation_task_config(cfg))
    try:
        own = run_episodes(env, torch_policy_fn(model), 10, cfg.runner.eval_seed)
    finally:
        env.close()
    assert env.cfg.episode_steps != sims_episode_steps("reach")
    assert card.affordance["center"] == pytest.approx(own.mean_return, abs=1e-3)
    assert "export evaluation" in card.affordance["source"]
    # behind a motor filter: measured where its factory is injected, else none (and why)
    filtered = json.loads(json.dumps(data["config"]))
    filtered["env"].update(motor_filter="pass_through", episode_scale=0.2, actuator="none")
    filtered["runner"].update(eval_backend="pybullet", eval_num_envs=1, eval_episodes=2)
    with caplog.at_level("WARNING"):
        assert evaluate_at_export(model, filtered, data) is None
    assert "cannot be built here" in caplog.text
    assert (
        _affordance_center(filtered, data, lambda: evaluate_at_export(model, filtered, data))
        is None
    )
    _PassThrough.calls = 0
    centre = _affordance_center(
        filtered,
        data,
        lambda: evaluate_at_export(model, filtered, data, {"pass_through": _pass_through_options}),
    )
    assert centre is not None and "pass_through" in centre["source"]
    assert _PassThrough.calls > 0


def sims_episode_steps(task):
    import sims

    return sims.get_task(task).CONFIG.episode_steps
