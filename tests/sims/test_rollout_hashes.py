"""Regression hashes of seeded rollouts: a refactor of the tasks or the kernels must leave
every observation, reward, flag and info entry bit for bit as it was.

Each case steps a seeded env with seeded random actions (clipped past [-1, 1] on purpose)
and hashes, step after step, the observation, reward, terminated, truncated and the info
arrays (success, final observation and its mask, episode return and length), then the
final state and the episode draws (numba). The digests were recorded at commit 74796b4
(before the task registry) with

    python -m pytest tests/sims/test_rollout_hashes.py

run against an empty ``EXPECTED`` table: each failure message prints its case's digest.
The two ``*_randomized_sparse`` digests were recorded again when the numba finger draw
became ``finger_reading`` (its episode draw reported as the reading offset, twice the
per-finger pad it was): with that draw halved they are still 74796b4's, bit for bit.
The numba cases cover every task in joint and Cartesian mode, dense and sparse rewards,
observation noise, action latency, the contact randomization and the command-path model;
the PyBullet cases (two worlds in this process, a few steps) the task terms on the host.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from sims import get_task, make_env
from sims.tasks.base import DomainRandomization

RANDOMIZED = DomainRandomization(
    observation_noise_std=0.003,
    action_latency_steps=2,
    cube_size=(0.035, 0.045),
    finger_friction_scale=(0.8, 1.2),
    finger_reading=(0.0, 0.008),
)

NUMBA_CASES = {
    # name: (task, config changes, make_env options, steps)
    "reach": ("reach", {}, {}, 120),
    "reach_cartesian_sparse_noisy": (
        "reach",
        {
            "action_mode": "cartesian",
            "randomization": DomainRandomization(
                observation_noise_std=0.003, action_latency_steps=2
            ),
        },
        {"dense_reward": False},
        120,
    ),
    "reach_actuator": (
        "reach",
        {"randomization": DomainRandomization(plain_arm_prob=0.5)},
        {"actuator": "panda"},
        120,
    ),
    "push": ("push", {}, {}, 120),
    "push_joint_randomized_sparse": (
        "push",
        {"action_mode": "joint", "randomization": RANDOMIZED},
        {"dense_reward": False},
        120,
    ),
    "push_actuator_tilt": (
        "push",
        {"ik_tilt_gain": 0.5, "ik_tilt_allowance_deg": 5.0},
        {"actuator": "panda"},
        120,
    ),
    "pick_place": ("pick_place", {}, {}, 160),
    "pick_place_randomized_sparse": (
        "pick_place",
        {"randomization": RANDOMIZED},
        {"dense_reward": False},
        160,
    ),
    "pick_place_actuator": (
        "pick_place",
        {"randomization": DomainRandomization(plain_arm_prob=0.3)},
        {"actuator": "panda"},
        160,
    ),
}

PYBULLET_CASES = {
    "pybullet_reach": ("reach", {}, 12),
    "pybullet_push": ("push", {}, 12),
    "pybullet_pick_place": ("pick_place", {}, 12),
    "pybullet_pick_place_stack": ("pick_place", {"stack_fraction": 1.0}, 12),
}

EXPECTED = {
    "pick_place": "34602de72543afc389b20e5022c8119a",
    "pick_place_actuator": "c3cc31e4cc9577d7768c02d44fd42ca4",
    "pick_place_randomized_sparse": "3b20e884aaedb3434bbcd693d8772f90",
    "push": "6cf63a1f2da5f696ecb2793dd86de9b4",
    "push_actuator_tilt": "75b0886a4dc14286a994bba618b92625",
    "push_joint_randomized_sparse": "593e426b920cd221fadda003c099bc70",
    "pybullet_pick_place": "d36f4c25f6530b98650daf3ad4ba4432",
    "pybullet_pick_place_stack": "9d49a35d86256578b7ec1b20da4a830a",
    "pybullet_push": "3225711f92681e85234ff91ad1a8c2b6",
    "pybullet_reach": "47eff87f695f7820a23dcb8374dba9a7",
    "reach": "b0b84767b3a70741ac65cc54014a5633",
    "reach_actuator": "0b353e8004e24cb9cb69f1bcf52a144f",
    "reach_cartesian_sparse_noisy": "a48047239fef552e00d1c95b8077e875",
}
"""Digest of each case at 74796b4 (see the module docstring)."""

INFO_KEYS = ("success", "final_obs", "_final_obs", "episode_return", "episode_length")


def _config(task: str, changes: dict):
    import dataclasses

    return dataclasses.replace(get_task(task).CONFIG, **changes)


def _feed(h, array) -> None:
    a = np.ascontiguousarray(np.asarray(array))
    h.update(str((a.dtype.str, a.shape)).encode())
    h.update(a.tobytes())


def rollout_digest(env, steps: int, seed: int = 7) -> str:
    """sha256 (first 128 bits) of a seeded rollout of ``env`` (see the module docstring)."""
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    _feed(h, obs)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = rng.uniform(-1.2, 1.2, size=(env.num_envs, env.action_dim))
        obs, reward, terminated, truncated, info = env.step(actions)
        for value in (obs, reward, terminated, truncated):
            _feed(h, value)
        for key in INFO_KEYS:
            _feed(h, info[key])
    for name, value in env.get_state()._asdict().items():
        if value is not None and name not in LATER_STATE_FIELDS:
            _feed(h, value)
    draws = env.randomization_state()
    for key in sorted(draws):
        _feed(h, draws[key])
    return h.hexdigest()[:32]


LATER_STATE_FIELDS = ("finger_centre",)
"""State fields added after the digests were recorded, left out of them: new readings of
the same rollouts (the observations, rewards and other fields stay bit for bit)."""


def _check(name: str, digest: str) -> None:
    assert EXPECTED.get(name) == digest, f"{name}: rollout digest {digest!r}"


@pytest.mark.parametrize("name", sorted(NUMBA_CASES))
def test_numba_rollout_hash(name):
    task, changes, options, steps = NUMBA_CASES[name]
    env = make_env(task, "numba", 16, config=_config(task, changes), **options)
    _check(name, rollout_digest(env, steps))


@pytest.mark.parametrize("name", sorted(PYBULLET_CASES))
def test_pybullet_rollout_hash(name):
    task, changes, steps = PYBULLET_CASES[name]
    env = make_env(task, "pybullet", 2, config=_config(task, changes), num_workers=0)
    try:
        _check(name, rollout_digest(env, steps))
    finally:
        env.close()
