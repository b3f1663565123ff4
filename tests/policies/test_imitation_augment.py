"""Observation augmentation of imitation (``imitation.augment_fields``,
policies.ppo.imitation): the fields are scaled per state within ``augment_scale`` in the
regression and nowhere else, a field the expert reads is refused, bad configs fail before
any work, and a student trained with the augmentation leans less on the augmented field."""

import numpy as np
import pytest
import torch

from policies.experts import get_expert
from policies.ppo.config import TrainConfig
from policies.ppo.envs import make_env, training_task_config
from policies.ppo.imitation import DAggerRunner, augment_columns, expert_ignores
from sims.tasks import pick_place, push, reach
from tests.policies.expert_envs import cube_observations
from tests.policies.imitation_configs import (
    assert_refused_before_any_work,
    reach_imitation_config,
)


def _moving_observations(task: str, steps: int = 12, num_envs: int = 16) -> tuple:
    """Observations of ``task``'s numba env after ``steps`` steps of its expert (the arm
    moves: joint velocities are not zero), and the task config."""
    cfg = TrainConfig.from_dict({"task": task})
    task_cfg = training_task_config(cfg)
    env = make_env(cfg, "numba", num_envs, task_cfg)
    expert = get_expert(task)
    try:
        obs, _ = env.reset(seed=3)
        for _ in range(steps):
            obs, *_ = env.step(expert(obs, task_cfg))
    finally:
        env.close()
    return np.asarray(obs, dtype=np.float64), task_cfg


def test_the_columns_are_the_fields_of_the_tasks_layout():
    cols = augment_columns("push", ("joint_vel",))
    assert cols.tolist() == list(range(push.LAYOUT.slices["joint_vel"].start, 14))
    with pytest.raises(ValueError, match="not fields of reach's observation"):
        augment_columns("reach", ("joint_speed",))


def test_the_push_expert_ignores_joint_velocities_but_not_the_tcp():
    obs, task_cfg = _moving_observations("push")
    vel = push.LAYOUT.slices["joint_vel"]
    assert np.abs(obs[:, vel]).max() > 0.05  # the probe is not trivially zero
    cols = augment_columns("push", ("joint_vel",))
    assert expert_ignores(get_expert("push"), task_cfg, obs, cols, (0.0, 1.5))
    cols = augment_columns("push", ("tcp_pos",))
    assert not expert_ignores(get_expert("push"), task_cfg, obs, cols, (0.0, 1.5))


def test_augment_scales_only_the_fields_by_one_factor_per_state_in_range(tmp_path):
    runner = DAggerRunner(
        reach_imitation_config(augment_fields=["joint_vel"], augment_scale=[0.5, 2.0]), tmp_path
    )
    try:
        obs = torch.randn(512, runner.obs_dim)
        before = obs.clone()
        out = runner.augment(obs)
        assert torch.equal(obs, before)  # the buffer's states are left alone
        cols = runner.augment_columns
        other = [c for c in range(runner.obs_dim) if c not in set(cols.tolist())]
        assert torch.equal(out[:, other], obs[:, other])
        factor = out[:, cols] / obs[:, cols]
        assert torch.allclose(factor, factor[:, :1].expand_as(factor), atol=1e-5)
        assert float(factor.min()) >= 0.5 - 1e-6 and float(factor.max()) <= 2.0 + 1e-6
        assert float(factor[:, 0].std()) > 0.2  # a factor per state, not one per batch
    finally:
        runner.close()
    runner = DAggerRunner(reach_imitation_config(), tmp_path / "off")
    try:
        obs = torch.randn(8, runner.obs_dim)
        assert torch.equal(runner.augment(obs), obs)  # default: no augmentation
    finally:
        runner.close()


def test_a_field_the_expert_reads_is_refused_before_training(tmp_path):
    cfg = reach_imitation_config(augment_fields=["joint_pos"])  # the reach expert reads them
    runner = DAggerRunner(cfg, tmp_path)
    try:
        with pytest.raises(ValueError, match="expert's actions depend on them"):
            runner.learn()
        assert runner.env_steps == 0
    finally:
        runner.close()


@pytest.mark.parametrize(
    "imitation, message",
    [
        ({"expert": "scripted", "augment_fields": ["joint_speed"]}, "not fields of reach"),
        ({"expert": "scripted", "augment_fields": "joint_vel"}, "list of names"),
        ({"expert": "scripted", "augment_scale": [1.0, 0.5]}, "augment_scale"),
        ({"expert": "scripted", "augment_scale": [-1.0, 0.5]}, "augment_scale"),
        ({"expert": "scripted", "augment_scale": [0.5]}, "augment_scale"),
        ({"expert": "scripted", "label_augmented": "yes"}, "label_augmented"),
        ({"expert": "scripted", "augment_guard": "never"}, "augment_guard"),
        ({"expert": "scripted", "expert_view": "true"}, "expert_view"),
        ({"expert": "scripted", "expert_memory": 1}, "expert_memory"),
    ],
)
def test_bad_augment_configs_fail_before_any_work(tmp_path, capsys, imitation, message):
    assert_refused_before_any_work(tmp_path, capsys, imitation, message)


def _velocity_sensitivity(runner) -> float:
    """Mean change of the student's action when the joint velocities of its buffered
    states are zeroed."""
    obs = runner.buffer_obs[: runner.buffer_len]
    flat = obs.clone()
    flat[:, reach.LAYOUT.slices["joint_vel"]] = 0.0
    with torch.no_grad():
        a = runner.model.act_deterministic(obs.to(runner.device))
        b = runner.model.act_deterministic(flat.to(runner.device))
    return float((a - b).abs().mean())


def test_a_student_trained_with_the_augmentation_leans_less_on_the_field(tmp_path):
    sensitivity = {}
    for name, fields in (("plain", []), ("augmented", ["joint_vel"])):
        cfg = reach_imitation_config(
            total_steps=8192, augment_fields=fields, augment_scale=[0.0, 1.5]
        )
        runner = DAggerRunner(cfg, tmp_path / name)
        try:
            runner.learn()
            sensitivity[name] = _velocity_sensitivity(runner)
        finally:
            runner.close()
    assert sensitivity["augmented"] < 0.5 * sensitivity["plain"], sensitivity


def _settled_over_the_cube(speeds) -> np.ndarray:
    """pick_place observations, one per joint-speed norm in ``speeds`` (rad/s): the TCP 6 mm
    over the centre of a cube resting on the table, the fingers open, the goal 20 cm away
    on the table (the state where its expert closes once the arm has settled)."""
    sl = pick_place.LAYOUT.slices
    cube = np.array([0.5, 0.0, pick_place.CUBE_REST_Z])
    tcp = cube + [0.0, 0.0, 0.006]
    goal = np.array([0.5, 0.2, pick_place.CUBE_REST_Z])
    obs = cube_observations(pick_place, tcp, cube, goal, 0.08, n=len(speeds))
    n = sl["joint_vel"].stop - sl["joint_vel"].start
    obs[:, sl["joint_vel"]] = np.asarray(speeds)[:, None] / np.sqrt(n)
    return obs


def test_the_pick_place_close_gate_reads_the_joint_speeds():
    expert = get_expert("pick_place")
    grip = expert(_settled_over_the_cube([0.0, 0.3, 0.5, 0.7, 1.0]), pick_place.CONFIG)[:, 3]
    assert grip.tolist() == [-1.0, -1.0, -1.0, 1.0, 1.0]  # closes only once settled


def _pick_place_runner(tmp_path, **imitation) -> DAggerRunner:
    cfg = reach_imitation_config(task="pick_place", augment_fields=["joint_vel"], **imitation)
    return DAggerRunner(cfg, tmp_path)


def _fill_buffer(runner, obs: np.ndarray) -> None:
    labels, focus = runner.label(torch.as_tensor(obs, dtype=torch.float32))
    runner._aggregate(torch.as_tensor(obs, dtype=torch.float32), labels.cpu(), focus)


def test_the_guard_on_the_buffer_refuses_what_the_first_reset_hides(tmp_path):
    runner = _pick_place_runner(tmp_path)
    try:
        runner._reset_envs()  # the first reset's states pass: no arm settled over a cube
        assert runner._augment_checked
        runner.check_buffer()  # an empty buffer: nothing to check
        # a buffer of states near the cube with the arm settled (and a few thousand others)
        others = np.asarray(runner.env.reset(seed=5)[0], dtype=np.float64)
        _fill_buffer(runner, np.repeat(others, 200, axis=0))
        _fill_buffer(runner, _settled_over_the_cube(np.linspace(0.0, 0.5, 64)))
        with pytest.raises(ValueError, match="expert's actions depend on them"):
            runner.check_buffer()
    finally:
        runner.close()


def test_labelled_augmented_states_agree_with_the_expert_and_pass_the_guard(tmp_path):
    expert = get_expert("pick_place")
    states = _settled_over_the_cube(np.full(512, 0.5))  # closed; x1.2 and more opens
    for on in (False, True):
        runner = _pick_place_runner(tmp_path / str(on), label_augmented=on)
        try:
            _fill_buffer(runner, states)
            if on:
                runner.check_buffer()  # nothing to refuse: the labels follow the inputs
            x, labels, _ = runner.regression_batch(torch.arange(runner.buffer_len))
            seen = expert(x.double().numpy(), runner.task_config)[:, 3]
            assert set(seen.tolist()) == {-1.0, 1.0}  # the scaled speeds cross the gate
            if on:
                assert np.array_equal(labels[:, 3].numpy(), seen)
            else:  # the unscaled state's label: closed, also where the input says moving
                assert labels[:, 3].eq(-1.0).all()
        finally:
            runner.close()


@pytest.mark.parametrize(
    "label_augmented, guard", [(False, "buffer"), (True, "buffer"), (False, "first_reset")]
)
def test_a_pick_place_run_is_refused_at_its_rollouts_unless_it_labels_them(
    tmp_path, label_augmented, guard
):
    """The expert settles over the cube within the first rollouts (16 envs, seed 3); a
    recipe that keeps the first-reset check (``augment_guard: first_reset``, as the shipped
    versions' recipes say) runs as those versions did."""
    cfg = reach_imitation_config(
        total_steps=16 * 16 * 4,
        task="pick_place",
        augment_fields=["joint_vel"],
        label_augmented=label_augmented,
        augment_guard=guard,
    )
    cfg.runner.num_envs = 16
    runner = DAggerRunner(cfg, tmp_path)
    try:
        if label_augmented:
            runner.learn()
            assert runner.env_steps == cfg.runner.total_steps
            assert torch.equal(runner.buffer_view, runner.buffer_obs)  # no privileged view
        elif guard == "first_reset":
            runner.learn()
            assert runner.env_steps == cfg.runner.total_steps
            with pytest.raises(ValueError, match="expert's actions depend on them"):
                runner.check_expert_ignores(runner.buffer_obs[: runner.buffer_len])
        else:
            with pytest.raises(ValueError, match="imitation.label_augmented: true"):
                runner.learn()
            assert 0 < runner.env_steps < cfg.runner.total_steps
    finally:
        runner.close()


@pytest.mark.parametrize(
    "recipe, ignores",
    [("push.yaml", True), ("turn.yaml", True), ("pick_place.yaml", False)],
)
def test_the_recipes_experts_on_their_own_rollouts(recipe, ignores):
    """push's and turn's experts ignore the joint speeds their recipes augment on the states
    of their first stage's rollouts; pick_place's close gate reads them."""
    import yaml

    from miles_ros.runtime.supervised import MOTOR_FILTERS
    from policies.ppo.stage_config import parse_staged_config

    path = f"config/train/{recipe}"
    with open(path) as f:
        cfg = parse_staged_config(yaml.safe_load(f), path, MOTOR_FILTERS).stage_config(0)
    assert cfg.imitation.augment_fields == ("joint_vel",) and not cfg.imitation.label_augmented
    # the recipe says which check its runs had: pick_place's versions ran the first reset's
    assert cfg.imitation.augment_guard == ("buffer" if ignores else "first_reset")
    task_cfg = training_task_config(cfg)
    env = make_env(cfg, "numba", 64, task_cfg)
    expert = get_expert(cfg.task, cfg.imitation.expert_settings)
    states = []
    try:
        obs, _ = env.reset(seed=3)
        for _ in range(60):
            states.append(np.asarray(obs, dtype=np.float64))
            obs, *_ = env.step(expert(obs, task_cfg))
    finally:
        env.close()
    cols = augment_columns(cfg.task, cfg.imitation.augment_fields)
    scale = cfg.imitation.augment_scale
    assert expert_ignores(expert, task_cfg, np.concatenate(states), cols, scale) is ignores
