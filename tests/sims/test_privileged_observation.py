"""The privileged observation DAgger's expert labels from where training observes the cube
through ``randomization.pose_error``: the same observation (the same noise) with the
cube's true pose. Checked against a twin env without the error model, stepped with the
same actions: the error model changes what is observed, never the physics, so the twin's
observation is what the privileged one must be, through episode ends and resets."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sims import get_task, make_env
from sims.tasks.base import POSE_ERROR_PRESETS, CubePoseError, DomainRandomization

CUBE_FIELDS = ("object_pos", "object_yaw_sincos", "object_rel_tcp", "goal_rel_object")
"""The observation fields made from the cube's pose (and turn's ``yaw_error_sincos``)."""


def _env(task: str, backend: str, n: int, pose_error: CubePoseError, noise_std: float):
    randomization = DomainRandomization(observation_noise_std=noise_std, pose_error=pose_error)
    config = dataclasses.replace(get_task(task).CONFIG, randomization=randomization)
    options = {"num_workers": 0} if backend == "pybullet" else {}
    return make_env(task, backend, n, config=config, **options)


def _cube_columns(task: str) -> np.ndarray:
    slices = get_task(task).LAYOUT.slices
    names = [f for f in slices if f in CUBE_FIELDS or f == "yaw_error_sincos"]
    return np.concatenate([np.arange(slices[f].start, slices[f].stop) for f in names])


def _compare(task: str, backend: str, n: int, steps: int, noise_std: float) -> None:
    camera = POSE_ERROR_PRESETS["camera"]
    seen = _env(task, backend, n, camera, noise_std)
    twin = _env(task, backend, n, CubePoseError(), noise_std)
    try:
        assert twin.privileged_observation() is None  # no error model: the obs is the truth
        obs, _ = seen.reset(seed=7)
        truth, _ = twin.reset(seed=7)
        cube = _cube_columns(task)
        other = np.setdiff1d(np.arange(obs.shape[1]), cube)
        rng = np.random.default_rng(0)
        resets = 0
        for _ in range(steps):
            privileged = seen.privileged_observation()
            assert np.array_equal(privileged, truth)
            assert np.array_equal(obs[:, other], truth[:, other])
            assert np.abs(obs[:, cube] - truth[:, cube]).max() > 1e-4  # the model is on
            actions = rng.uniform(-1.0, 1.0, (n, seen.action_dim))
            obs, *_, info = seen.step(actions)
            truth, *_, twin_info = twin.step(actions)
            assert np.array_equal(info["_final_obs"], twin_info["_final_obs"])
            resets += int(info["_final_obs"].sum())
        assert resets > 0  # the comparison went through resets
    finally:
        seen.close()
        twin.close()


@pytest.mark.parametrize("task", ["push", "pick_place", "turn"])
def test_numba_privileged_observation_is_the_twin_without_the_error_model(task):
    steps = get_task(task).CONFIG.episode_steps + 3
    _compare(task, "numba", 32, steps, noise_std=0.002)


def test_pybullet_privileged_observation_is_the_twin_without_the_error_model():
    # PyBullet draws the error model and the white noise from one generator: the twin
    # draws other noise, so it is compared without white noise; with it, below
    _compare("push", "pybullet", 2, get_task("push").CONFIG.episode_steps + 2, noise_std=0.0)


def test_pybullet_privileged_observation_carries_the_same_white_noise():
    env = _env("push", "pybullet", 2, POSE_ERROR_PRESETS["camera"], noise_std=0.01)
    try:
        obs, _ = env.reset(seed=3)
        cube = _cube_columns("push")
        other = np.setdiff1d(np.arange(obs.shape[1]), cube)
        for _ in range(5):
            privileged = env.privileged_observation()
            assert np.array_equal(privileged[:, other], obs[:, other])
            # the cube's height is the true one in both, with the same noise drawn on it
            z = get_task("push").LAYOUT.slices["object_pos"].start + 2
            assert np.array_equal(privileged[:, z], obs[:, z])
            assert np.abs(privileged[:, cube] - obs[:, cube]).max() > 1e-4
            obs, *_ = env.step(np.zeros((2, env.action_dim)))
    finally:
        env.close()


def test_pybullet_privileged_observation_reads_the_engines_finger_opening():
    # PyBullet's finger reading is a map of the measured opening, not physics: the
    # privileged observation is the twin's without it, in the first episode (the offset's
    # draw moves the generator, so later episodes differ), and only the reading differs
    shifted = DomainRandomization(finger_reading=(0.018, 0.018))
    config = dataclasses.replace(get_task("pick_place").CONFIG, randomization=shifted)
    seen = make_env("pick_place", "pybullet", 2, config=config, num_workers=0)
    twin = _env("pick_place", "pybullet", 2, CubePoseError(), noise_std=0.0)
    width = get_task("pick_place").LAYOUT.slices["finger_width"].start
    try:
        obs, _ = seen.reset(seed=5)
        truth, _ = twin.reset(seed=5)
        actions = np.zeros((2, seen.action_dim))
        actions[:, 3] = -1.0  # close the fingers: a narrow opening reads the whole offset
        for _ in range(15):
            assert np.array_equal(seen.privileged_observation(), truth)
            obs, *_ = seen.step(actions)
            truth, *_ = twin.step(actions)
        other = np.setdiff1d(np.arange(obs.shape[1]), [width])
        assert np.array_equal(obs[:, other], truth[:, other])
        np.testing.assert_allclose(obs[:, width] - truth[:, width], 0.018, atol=1e-6)
    finally:
        seen.close()
        twin.close()
