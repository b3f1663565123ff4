"""A seeded reset of a PyBullet world is a function of the seed only: after earlier episodes,
``reset(seed)`` gives the rollout a fresh env gives from ``reset(seed)``, bit for bit, and
leaves no contact of the last episode behind (docs/stacking.md, part 30: a tower's two cubes
began an episode with the previous tower's contact points, which a collision pass with the
bodies parked apart had kept)."""

import dataclasses

import numpy as np
import pybullet as p
import pytest

from sims.backends.pybullet.env import make_pybullet_env
from sims.tasks import pick_place
from tests.sims.test_stacking import scripted_stack

OPEN = np.array([[0.0, 0.0, 0.0, 1.0]])
"""Arm still, fingers open."""
EARLIER = ((835, 6, 0), (470, 3, 80))
"""Earlier episodes: (seed, periods held still, then periods of the scripted grasp). On the
code before, this history (a random one, shortened) left the tower variant's seed-639
episode four of the last tower's contact points and another first period than a fresh
env's (2e-6 in the observation, 1.6 mm after 40 scripted periods)."""
SEED = 639


def _env(variant: str):
    cfg = dataclasses.replace(pick_place.variant_config(variant), episode_steps=400)
    return make_pybullet_env(pick_place, 1, cfg, num_workers=0, autoreset=False)


def _seeded_rollout(env) -> tuple[int, list[np.ndarray]]:
    """Contact points right after ``reset(SEED)`` (no step yet), and what follows: each
    observation of three still periods, then the state after 20 periods of the scripted
    grasp."""
    obs, _ = env.reset(seed=SEED)
    worlds = env._worlds.group.worlds
    contacts = sum(len(p.getContactPoints(physicsClientId=w.client)) for w in worlds)
    seen = [obs.copy()]
    for _ in range(3):
        obs, *_ = env.step(OPEN)
        seen.append(obs.copy())
    _, state, _ = scripted_stack(env, steps=20)
    seen += [a.copy() for a in state if a is not None]
    return contacts, seen


@pytest.mark.parametrize("variant", pick_place.VARIANTS)
def test_a_seeded_reset_after_earlier_episodes_replays_a_fresh_env(variant):
    fresh = _env(variant)
    try:
        expected = _seeded_rollout(fresh)
    finally:
        fresh.close()
    env = _env(variant)
    try:
        for seed, still, scripted in EARLIER:
            env.reset(seed=seed)
            for _ in range(still):
                env.step(OPEN)
            if scripted:
                scripted_stack(env, steps=scripted)
        contacts, seen = _seeded_rollout(env)
    finally:
        env.close()
    assert expected[0] == 0  # a fresh world's reset: no contact yet
    assert contacts == 0, f"{contacts} contact points of the last episode kept by the reset"
    assert len(seen) == len(expected[1])
    for k, (got, want) in enumerate(zip(seen, expected[1], strict=True)):
        np.testing.assert_array_equal(got, want, err_msg=f"item {k} after reset(seed={SEED})")
