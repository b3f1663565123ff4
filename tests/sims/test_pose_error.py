"""The cube-pose error model (``randomization.pose_error``, :class:`CubePoseError`): parsing
and refusals, and what the numba kernels and PyBullet's observation do with it, measured
on the observed cube pose against the true one (same statistics, same tolerances, on both
backends) and, under numba's CUDA simulator, the CUDA kernels as the CPU ones. All-zero
models leave the rollouts bit for bit as they were: ``tests/sims/test_rollout_hashes.py``."""

from __future__ import annotations

import dataclasses
import math
import textwrap

import numpy as np
import pytest

from sims import get_task, make_env
from sims.tasks.base import (
    POSE_ERROR_PRESETS,
    CubePoseError,
    DomainRandomization,
    check_backend_randomization,
    cube_pose_error,
)
from tests.cudasim import run_script

TASK = "push"
ZERO_ACTION_STEPS = 6
"""Steps per episode sampled (push's episode is 100 steps; zero actions leave the cube
resting, so no episode ends inside the sample)."""
SIZES = {"numba": (256, 2), "pybullet": (32, 4)}
"""(envs, episodes) per backend: 512 / 256 bias draws per axis."""
STD_TOLERANCE = 0.2
"""Relative tolerance on a measured std (>= 4.5 sigmas of the estimate at 256 samples)."""


def _config(model: CubePoseError):
    task = get_task(TASK)
    return dataclasses.replace(task.CONFIG, randomization=DomainRandomization(pose_error=model))


def _make(backend: str, model: CubePoseError, n: int):
    if backend == "pybullet":
        return make_env(TASK, backend, n, config=_config(model), num_workers=0)
    return make_env(TASK, backend, n, config=_config(model))


def _observed(obs: np.ndarray) -> np.ndarray:
    """[N, 3] the observed cube x, y and 4 x yaw (rad, wrapped) from push's observation."""
    slices = get_task(TASK).LAYOUT.slices
    pos = obs[:, slices["object_pos"]].astype(np.float64)
    sincos = obs[:, slices["object_yaw_sincos"]].astype(np.float64)
    return np.column_stack([pos[:, 0], pos[:, 1], np.arctan2(sincos[:, 0], sincos[:, 1])])


def _errors(obs: np.ndarray, env) -> np.ndarray:
    """[N, 3] observed minus true cube x, y (m) and yaw (rad, the 90 deg symmetry removed)."""
    seen = _observed(obs)
    state = env.get_state()
    err = seen - np.column_stack([state.object_pos[:, :2], 4.0 * state.object_yaw])
    err[:, 2] = (err[:, 2] + math.pi) % (2.0 * math.pi) - math.pi
    err[:, 2] /= 4.0
    return err


def sample(backend: str, model: CubePoseError, seed: int = 3):
    """(errors [episodes, steps + 1, N, 3], observed poses [episodes, steps + 1, N, 3]) over
    zero-action episodes of push, each started by a reset (the first seeded)."""
    n, episodes = SIZES[backend]
    env = _make(backend, model, n)
    errors, seen = [], []
    try:
        zero = np.zeros((n, env.action_dim))
        for e in range(episodes):
            obs, _ = env.reset(seed=seed if e == 0 else None)
            ep_err, ep_seen = [_errors(obs, env)], [_observed(obs)]
            for _ in range(ZERO_ACTION_STEPS):
                obs, _, terminated, truncated, _ = env.step(zero)
                assert not (terminated | truncated).any()
                ep_err.append(_errors(obs, env))
                ep_seen.append(_observed(obs))
            errors.append(ep_err)
            seen.append(ep_seen)
    finally:
        env.close()
    return np.asarray(errors), np.asarray(seen)


def _assert_std(values: np.ndarray, expected: float, what: str) -> None:
    std = float(np.sqrt(np.mean(np.square(values))))
    assert abs(std - expected) <= STD_TOLERANCE * expected, f"{what}: std {std} vs {expected}"


# --- the config -------------------------------------------------------------------------------
def test_preset_and_mapping_parse_and_bad_entries_are_refused():
    assert cube_pose_error("camera") == POSE_ERROR_PRESETS["camera"]
    assert cube_pose_error("camera").on
    assert cube_pose_error({}) == cube_pose_error(None) == cube_pose_error("") == CubePoseError()
    assert not CubePoseError().on
    assert cube_pose_error({"hold_prob": 0.25}) == CubePoseError(hold_prob=0.25)
    for bad, match in (
        ("fisheye", "unknown preset"),
        ({"bias_xy": 0.01}, "unknown keys"),
        ({"noise_xy_m": -0.001}, "noise_xy_m must be >= 0"),
        ({"bias_yaw_deg": float("nan")}, "bias_yaw_deg must be >= 0"),
        ({"hold_prob": 1.0}, "hold_prob must be < 1"),
        ({"hold_prob": True}, "must be a number"),
        (0.5, "a preset name or a mapping"),
    ):
        with pytest.raises(ValueError, match=match):
            cube_pose_error(bad)


def test_train_config_stores_the_numbers_and_the_training_env_applies_them():
    from policies.ppo.config import TrainConfig, default_train_config
    from policies.ppo.envs import evaluation_task_config, training_task_config

    data = default_train_config(TASK).to_dict()
    data["env"]["pose_error"] = "camera"
    cfg = TrainConfig.from_dict(data)
    preset = POSE_ERROR_PRESETS["camera"]
    assert cfg.env.pose_error == dataclasses.asdict(preset)
    assert cfg.to_dict()["env"]["pose_error"]["hold_prob"] == preset.hold_prob
    assert training_task_config(cfg).randomization.pose_error == preset
    assert not evaluation_task_config(cfg).randomization.pose_error.on
    # a saved run round-trips, and an empty entry is off
    assert TrainConfig.from_dict(cfg.to_dict()).env.pose_error == cfg.env.pose_error
    data["env"]["pose_error"] = {}
    off = TrainConfig.from_dict(data)
    assert not training_task_config(off).randomization.pose_error.on
    for bad, match in (
        ({"hold_prob": -0.1}, "env.pose_error.hold_prob must be >= 0"),
        ({"latency_s": 0.04}, "env.pose_error: unknown keys"),
    ):
        data["env"]["pose_error"] = bad
        with pytest.raises(ValueError, match=match):
            TrainConfig.from_dict(data)
    reach = default_train_config("reach").to_dict()
    reach["env"]["pose_error"] = "camera"
    with pytest.raises(ValueError, match="env.pose_error: task 'reach' has no cube"):
        TrainConfig.from_dict(reach)


def test_backends_without_the_model_refuse_it_by_name():
    on = DomainRandomization(pose_error=POSE_ERROR_PRESETS["camera"])
    check_backend_randomization(on, "numba", "kinematic")
    check_backend_randomization(on, "pybullet", "URDF")
    with pytest.raises(ValueError, match=r"randomization\.pose_error: its observation has no"):
        check_backend_randomization(on, "isaac", "it keeps the scene's fingers")
    check_backend_randomization(DomainRandomization(), "isaac", "it keeps the scene's fingers")
    reach = get_task("reach")
    with pytest.raises(ValueError, match="task 'reach' has no cube"):
        make_env("reach", "numba", 2, config=dataclasses.replace(reach.CONFIG, randomization=on))


# --- the model on both backends ---------------------------------------------------------------
BACKENDS = ["numba", "pybullet"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_bias_is_constant_within_an_episode_and_drawn_per_episode(backend):
    model = CubePoseError(bias_xy_m=0.01, bias_yaw_deg=4.0)
    errors, _ = sample(backend, model)
    # within an episode: every step's error is its first one's
    np.testing.assert_allclose(errors, np.broadcast_to(errors[:, :1], errors.shape), atol=1e-6)
    first = errors[:, 0]  # [episodes, N, 3]
    _assert_std(first[..., :2], model.bias_xy_m, "xy bias")
    _assert_std(first[..., 2], math.radians(model.bias_yaw_deg), "yaw bias")
    # across episodes: a new draw, uncorrelated with the last one
    r = np.corrcoef(first[0, :, 0], first[1, :, 0])[0, 1]
    assert abs(r) < 0.4, f"bias of consecutive episodes correlate: {r}"
    assert np.all(first[0] != first[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_noise_is_drawn_every_step(backend):
    model = CubePoseError(noise_xy_m=0.004, noise_yaw_deg=2.0)
    errors, _ = sample(backend, model)
    _assert_std(errors[..., :2], model.noise_xy_m, "xy noise")
    _assert_std(errors[..., 2], math.radians(model.noise_yaw_deg), "yaw noise")
    steps = errors[:, 1:, :, 0] - errors[:, :-1, :, 0]
    _assert_std(steps, math.sqrt(2.0) * model.noise_xy_m, "step-to-step x noise")
    assert np.all(steps != 0.0)  # no step repeats a pose without dropouts


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dropout_repeats_the_last_observed_pose(backend):
    model = CubePoseError(noise_xy_m=0.004, noise_yaw_deg=2.0, hold_prob=0.4)
    errors, seen = sample(backend, model)
    repeated = np.all(seen[:, 1:] == seen[:, :-1], axis=-1)  # [episodes, steps, N]
    share = float(repeated.mean())
    assert abs(share - model.hold_prob) < 0.05, f"held share {share}"
    # a reset publishes: a pose held from the episode before would be centimetres off
    _assert_std(errors[:, 0, :, :2], model.noise_xy_m, "xy noise at the resets")


CUDASIM = textwrap.dedent(
    """
    import dataclasses, warnings
    import numpy as np
    warnings.simplefilter("ignore")  # uint64 wrap-around warns in the simulator
    from numba import config
    assert config.ENABLE_CUDASIM
    import sims
    from sims import make_env
    from sims.tasks.base import POSE_ERROR_PRESETS, DomainRandomization

    rnd = DomainRandomization(
        observation_noise_std=0.002, pose_error=POSE_ERROR_PRESETS["camera"]
    )
    cfg = dataclasses.replace(sims.get_task("push").CONFIG, randomization=rnd)
    cpu = make_env("push", "numba", 3, seed=5, config=cfg)
    gpu = make_env("push", "numba", 3, seed=5, config=cfg, device="cuda")
    np.testing.assert_array_equal(cpu.reset(seed=9)[0], gpu.reset(seed=9)[0])
    rng = np.random.default_rng(1)
    for _ in range(12):
        actions = rng.uniform(-1, 1, size=(3, cpu.action_dim))
        np.testing.assert_allclose(cpu.step(actions)[0], gpu.step(actions)[0], rtol=0, atol=1e-9)
        np.testing.assert_allclose(cpu._st, gpu.state(), rtol=0, atol=1e-9)
        # DAgger's expert labels the same true pose from the device's state
        np.testing.assert_allclose(
            cpu.privileged_observation(), gpu.privileged_observation(), rtol=0, atol=1e-6
        )
    print("ok")
    """
)


def test_cuda_simulator_applies_the_model_as_the_cpu_kernels_and_labels_the_true_pose():
    assert run_script(CUDASIM).stdout.strip().endswith("ok")


def test_miles_eval_pose_error_observes_through_the_preset(monkeypatch, capsys):
    from miles_ros.commands import evaluate as miles_eval
    from tests.policies.tiny_runs import stopped_evaluations

    calls = stopped_evaluations(monkeypatch, "stop once the episodes are known")
    with pytest.raises(RuntimeError, match="stop once"):
        miles_eval.main(["push", "--backend", "numba", "--pose-error", "camera"])
    (seen,) = calls
    assert seen["task"] == TASK
    assert seen["config"].randomization.pose_error == POSE_ERROR_PRESETS["camera"]
    # the card's envelope still applies
    assert seen["config"].goal_distance_range != get_task(TASK).CONFIG.goal_distance_range
    for flags in (
        ["--record", "--episodes", "200"],
        ["--sweep"],
        ["--supervised", "--perception"],
    ):
        assert miles_eval.main(["push", "--pose-error", "camera", *flags]) == 2
        assert "--pose-error does not go with" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        miles_eval.main(["push", "--pose-error", "fisheye"])
