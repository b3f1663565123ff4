"""GAE kernel against numbers worked out by hand."""

import numpy as np
import pytest

from policies.ppo.gae import compute_gae


def test_gae_single_env_hand_worked():
    # gamma = 0.5, lambda = 0.5, three steps, no episode end, V(s3) = 4.
    rewards = np.array([[1.0], [2.0], [3.0]], dtype=np.float32)
    values = np.array([[1.0], [2.0], [2.0]], dtype=np.float32)
    dones = np.zeros((3, 1), dtype=np.float32)
    adv, ret = compute_gae(rewards, values, dones, np.array([4.0], np.float32), 0.5, 0.5)
    # delta2 = 3 + 0.5*4 - 2 = 3;      A2 = 3
    # delta1 = 2 + 0.5*2 - 2 = 1;      A1 = 1 + 0.25*3 = 1.75
    # delta0 = 1 + 0.5*2 - 1 = 1;      A0 = 1 + 0.25*1.75 = 1.4375
    np.testing.assert_allclose(adv[:, 0], [1.4375, 1.75, 3.0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(ret[:, 0], [2.4375, 3.75, 5.0], rtol=0, atol=1e-6)


def test_gae_does_not_flow_across_episode_ends():
    # Env 0 ends at step 1: step 1 gets no bootstrap, step 0 sees only step 1.
    # Env 1 never ends (gamma = 0.9, lambda = 1: plain discounted returns).
    rewards = np.array([[1.0, 1.0], [1.0, 1.0], [5.0, 1.0]], dtype=np.float32)
    values = np.zeros((3, 2), dtype=np.float32)
    dones = np.array([[0, 0], [1, 0], [0, 0]], dtype=np.float32)
    last = np.array([10.0, 0.0], dtype=np.float32)
    adv, ret = compute_gae(rewards, values, dones, last, 0.9, 1.0)
    # env 0: A2 = 5 + 0.9*10 = 14; A1 = 1 (done); A0 = 1 + 0.9*1 = 1.9
    np.testing.assert_allclose(adv[:, 0], [1.9, 1.0, 14.0], atol=1e-5)
    # env 1: returns 1 + 0.9 + 0.81 = 2.71, 1.9, 1
    np.testing.assert_allclose(ret[:, 1], [2.71, 1.9, 1.0], atol=1e-5)


@pytest.mark.parametrize("lam", [0.0, 0.95])
def test_gae_matches_a_python_reference(lam):
    rng = np.random.default_rng(3)
    steps, envs, gamma = 17, 5, 0.97
    rewards = rng.normal(size=(steps, envs)).astype(np.float32)
    values = rng.normal(size=(steps, envs)).astype(np.float32)
    dones = (rng.random((steps, envs)) < 0.2).astype(np.float32)
    last = rng.normal(size=envs).astype(np.float32)
    adv, ret = compute_gae(rewards, values, dones, last, gamma, lam)
    ref = np.zeros((steps, envs))
    for n in range(envs):
        a, v_next = 0.0, last[n]
        for t in reversed(range(steps)):
            nd = 1.0 - dones[t, n]
            a = rewards[t, n] + gamma * v_next * nd - values[t, n] + gamma * lam * nd * a
            ref[t, n] = a
            v_next = values[t, n]
    np.testing.assert_allclose(adv, ref, atol=1e-4)
    np.testing.assert_allclose(ret, ref + values, atol=1e-4)
