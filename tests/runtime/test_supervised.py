"""A skill behind the safety supervisor in PyBullet (no ROS): the supervisor's
acceleration limits slow the arm the way the robot would be slowed, and `miles eval
--supervised` reports a success rate with its options."""

import json

import numpy as np
import pytest

from miles_ros import cli
from miles_ros.runtime.supervised import SupervisorFilter, supervised_env_kwargs
from sims.backends.pybullet.env import PyBulletEnv
from sims.robots import panda
from sims.tasks import push


def tcp_path(env, action, periods):
    env.reset(seed=3)
    points = [env.get_state().tcp_pos[0].copy()]
    for _ in range(periods):
        env.step(np.asarray(action, dtype=np.float32)[None])
        points.append(env.get_state().tcp_pos[0].copy())
    return np.linalg.norm(np.diff(points, axis=0), axis=1)


def test_behind_the_supervisor_the_arm_accelerates_within_limits_then_keeps_up():
    kwargs = supervised_env_kwargs("push", 1)
    assert kwargs["config"].episode_steps == 4 * push.CONFIG.episode_steps
    assert kwargs["num_workers"] == 0 and isinstance(kwargs["motor_filters"][0], SupervisorFilter)
    plain = PyBulletEnv(push, 1, num_workers=0, autoreset=False)
    supervised = PyBulletEnv(push, 1, autoreset=False, **kwargs)
    try:
        down = [0.0, 0.0, -1.0]  # 2 cm down per period, asked from rest
        free = tcp_path(plain, down, 8)
        shaped = tcp_path(supervised, down, 8)
    finally:
        plain.close()
        supervised.close()
    # PyBullet's motors alone cover most of the first step at once (~100 rad/s^2); the
    # supervisor ramps up within the Panda's acceleration limits ...
    assert free[0] > 0.012 and shaped[0] < 0.5 * free[0]
    # ... and then follows the stream instead of stalling.
    assert shaped[-3:].mean() > 0.6 * free[-3:].mean()
    stats = kwargs["motor_filters"][0].stats
    assert stats["accepted"] >= 8 and stats.get("rejected", 0) == 0


def test_miles_eval_supervised_reports_its_options(capsys):
    code = cli.main(["eval", "reach", "--supervised", "--episodes", "2", "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["supervised"] is True and result["time_scale"] == 4.0
    assert result["episodes"] == 2 and 0.0 <= result["success"] <= 1.0
    assert result["task"] == "reach"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--time-scale", "2"], "--time-scale needs --supervised"),
        (["--safety-params", "x.yaml"], "--safety-params needs --supervised"),
        (["--supervised", "--backend", "numba"], "pybullet backend only"),
        (["--supervised", "--time-scale", "0"], "must be > 0"),
    ],
)
def test_miles_eval_supervised_refuses_bad_options(args, message, capsys):
    assert cli.main(["eval", "reach", "--episodes", "1", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_filter_needs_a_reset_before_use():
    f = SupervisorFilter(0.002)
    with pytest.raises(RuntimeError, match="before reset"):
        f(0, np.zeros(20), panda.home_joint_positions, 0.0)


def test_safety_params_come_from_a_ros_parameter_file(tmp_path, capsys):
    from miles_ros.commands.evaluate import safety_config
    from miles_ros.safety.config import SafetyConfig

    assert safety_config() == SafetyConfig()  # config/safety.yaml = the defaults
    slow = tmp_path / "slow.yaml"
    slow.write_text(
        "safety_node:\n  ros__parameters:\n    velocity_scale: 0.3\n"
        "    workspace_min: [-0.3, -0.7, 0.0]\n"
        "    joint_command_topic: /robot/command\n"
    )
    config = safety_config(slow)
    assert config.velocity_scale == 0.3 and config.workspace_min == (-0.3, -0.7, 0.0)
    kwargs = supervised_env_kwargs("reach", 1, 1.0, config)
    assert kwargs["motor_filters"][0].config is config
    bad = tmp_path / "bad.yaml"
    bad.write_text("safety_node:\n  ros__parameters:\n    velocity_scal: 0.3\n")
    with pytest.raises(ValueError, match="unknown safety_node parameters: velocity_scal"):
        safety_config(bad)
    args = ["eval", "reach", "--supervised", "--episodes", "1", "--safety-params", str(bad)]
    assert cli.main(args) == 2
    assert "velocity_scal" in capsys.readouterr().err


def test_miles_train_composes_the_supervisor_a_config_names(tmp_path, capsys):
    """config/train/*-supervised-finetune.yaml name the supervisor; `miles train` (miles_ros)
    injects its factory, policies' own command refuses the name it has no factory for."""
    from pathlib import Path

    import yaml

    from miles_ros.runtime.supervised import MOTOR_FILTER, MOTOR_FILTERS, pybullet_options
    from policies.commands import train as policies_train

    root = Path(__file__).resolve().parents[2]
    config = root / "config" / "train" / "reach-supervised-finetune.yaml"
    assert yaml.safe_load(config.read_text())["env"]["motor_filter"] == MOTOR_FILTER
    assert MOTOR_FILTERS[MOTOR_FILTER] is pybullet_options
    args = ["reach", "--backend", "pybullet", "--config", str(config), "--num-envs", "1"]
    args += ["--rollout-steps", "2", "--steps", "2", "--eval-every", "0"]
    args += ["--final-eval-episodes", "0", "--no-progress", "--no-tensorboard", "--json"]
    assert policies_train.main([*args, "--out", str(tmp_path / "bare")]) == 2
    assert "env.motor_filter 'safety_supervisor': no factory" in capsys.readouterr().err
    assert cli.main(["train", *args, "--out", str(tmp_path / "run")]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["env_steps"] == 2 and summary["backend"] == "pybullet"
