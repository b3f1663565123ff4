"""pick_place's stack variant in PyBullet: a scripted grasp-and-place controller stacks a
cube on the target cube, and the success rule counts only a cube resting on the target
and released (not one dropped beside it, not one held above it)."""

import dataclasses

import numpy as np
import pytest

import sims
from sims.backends.pybullet.env import make_pybullet_env
from sims.tasks import pick_place
from sims.tasks.base import SimState

APPROACH = 0.08
"""Height (m) of the TCP above the cube, and above the goal, before going down."""


def stack_config(steps=160, **changes):
    """Stacking episodes only, long enough for a slow scripted controller."""
    return dataclasses.replace(pick_place.variant_config("stack"), episode_steps=steps, **changes)


def move_toward(env, target):
    """Cartesian action toward ``target`` [N, 3], direction kept when saturating."""
    v = (target - env.get_state().tcp_pos) / env.cfg.cartesian_step_max
    return v / np.maximum(np.abs(v).max(axis=1, keepdims=True), 1.0)


def scripted_stack(env, offset=(0.0, 0.0, 0.0), release=True, steps=160):
    """Grasp each env's cube and put it at its goal + ``offset``, then open the fingers
    (``release``) or keep holding. Returns (ever succeeded [N], final state, cube
    centres [N, 3] when each first succeeded (NaN where never))."""
    n = env.num_envs
    phase = np.zeros(n, dtype=int)
    count = np.zeros(n, dtype=int)
    succeeded = np.zeros(n, dtype=bool)
    at_success = np.full((n, 3), np.nan)
    for _ in range(steps):
        s = env.get_state()
        place = s.goal_pos + np.asarray(offset)
        above_cube = s.object_pos + [0.0, 0.0, APPROACH]
        above_goal = place + [0.0, 0.0, APPROACH]
        on_target = np.abs(s.object_pos[:, 2] - place[:, 2]) < 0.006
        near = lambda a, b, tol: np.linalg.norm(a - b, axis=1) < tol  # noqa: E731
        count += 1
        advance = (
            ((phase == 0) & near(s.tcp_pos, above_cube, 0.01))
            | ((phase == 1) & near(s.tcp_pos, s.object_pos, 0.006))
            | ((phase == 2) & (count > 8))
            | ((phase == 3) & (s.tcp_pos[:, 2] > place[:, 2] + APPROACH - 0.01))
            | ((phase == 4) & near(s.object_pos, above_goal, 0.01))
            | ((phase == 5) & near(s.object_pos[:, :2], place[:, :2], 0.006) & on_target)
        )
        phase[advance] += 1
        count[advance] = 0
        lift = s.object_pos + [0.0, 0.0, 2 * APPROACH]
        up = (phase >= 6) & (count > 6) & release  # released at the place: back up
        held = s.tcp_pos - s.object_pos  # the grasp's offset: carry the cube, not the TCP
        goals = [above_cube, s.object_pos, s.object_pos, lift, above_goal + held, place + held]
        goals.append(place + held)
        target = np.choose(np.minimum(phase, 6)[:, None], goals)
        target[up] = above_goal[up]
        grip = np.where((phase >= 2) & ~((phase >= 6) & release), -1.0, 1.0)
        _, _, _, _, info = env.step(np.column_stack([move_toward(env, target), grip]))
        first = info["success"] & ~succeeded
        at_success[first] = env.get_state().object_pos[first]
        succeeded |= info["success"]
    return succeeded, env.get_state(), at_success


@pytest.fixture(scope="module")
def stack_env():
    env = make_pybullet_env(pick_place, 6, stack_config(), num_workers=0, autoreset=False)
    yield env
    env.close()


def test_scripted_controller_stacks_the_cube_on_the_target(stack_env):
    successes = []
    for seed in (0, 1):
        stack_env.reset(seed=seed)
        start = stack_env.get_state()
        assert start.stack.all()
        # the goal is the place pose on the target cube: one cube edge above its centre
        np.testing.assert_allclose(start.goal_pos[:, 2], 3 * pick_place.CUBE_REST_Z, atol=1e-3)
        done, _, at_success = scripted_stack(stack_env)
        successes += list(done)
        # where it succeeded the cube rested on the target cube (not on the table)
        np.testing.assert_allclose(at_success[done, 2], start.goal_pos[done, 2], atol=0.01)
    assert np.mean(successes) >= 0.8, successes


def test_a_cube_dropped_beside_the_target_or_held_above_it_does_not_count(stack_env):
    stack_env.reset(seed=2)
    beside, end, _ = scripted_stack(stack_env, offset=(0.0, 0.07, 0.0))
    assert not beside.any()
    dropped = end.object_pos[:, 2] < pick_place.CUBE_SIZE  # released beside it: on the table
    assert dropped.mean() >= 0.8
    stack_env.reset(seed=2)
    held, end, _ = scripted_stack(stack_env, release=False)
    assert not held.any()
    assert np.mean(pick_place.placed(end)) >= 0.8  # it is there, but still gripped


def hand_made_state(obj, goal, width, stack) -> SimState:
    """A state of ``len(obj)`` envs with the TCP at the cube ``obj`` [N, 3], the fingers
    ``width`` [N] apart, the goal ``goal`` [N, 3] and the episodes' ``stack`` flags."""
    n = len(obj)
    return SimState(
        joint_pos=np.zeros((n, 7)),
        joint_vel=np.zeros((n, 7)),
        tcp_pos=obj.copy(),
        finger_width=width,
        object_pos=obj,
        object_yaw=np.zeros(n),
        goal_pos=goal,
        stack=stack,
    )


def test_success_rule_on_hand_made_states():
    goal = np.array([[0.5, 0.1, 0.06]] * 4)
    obj = goal + [[0.0, 0.0, 0.0], [0.0, 0.025, 0.0], [0.0, 0.0, -0.04], [0.01, 0.01, 0.005]]
    width = np.array([0.08, 0.08, 0.08, 0.055])

    def state(stack):
        return hand_made_state(obj, goal, width, stack)

    stacked = pick_place.success(state(np.ones(4, dtype=bool)))
    np.testing.assert_array_equal(stacked, [True, False, False, False])
    # the same states as pads episodes: within 5 cm of the goal (3-D), held or not
    pads = pick_place.success(state(np.zeros(4, dtype=bool)))
    np.testing.assert_array_equal(pads, [True, True, True, True])
    np.testing.assert_array_equal(pick_place.success(state(None)), pads)
    # the sparse reward follows the variant's rule
    np.testing.assert_array_equal(
        pick_place.reward(state(np.ones(4, dtype=bool)), dense=False), [0.0, -1.0, -1.0, -1.0]
    )


def test_pads_only_episodes_are_unchanged_and_bad_fractions_are_errors():
    a = pick_place.sample_reset(np.random.default_rng(4), 8)
    rng = np.random.default_rng(4)
    b = pick_place.sample_reset(rng, 8)
    stack, target, goal = pick_place.sample_stack(rng, 8, pick_place.CONFIG, b[3])
    assert not stack.any() and np.all(target[:, 2] < 0)
    np.testing.assert_array_equal(goal, a[3])
    for fraction in (-0.1, 1.5, "half"):
        cfg = dataclasses.replace(pick_place.CONFIG, stack_fraction=fraction)
        with pytest.raises(ValueError, match="stack_fraction"):
            make_pybullet_env(pick_place, 1, cfg, num_workers=0)
    with pytest.raises(ValueError, match="pybullet backend only"):
        sims.make_env("pick_place", "numba", 2, config=stack_config())
    with pytest.raises(ValueError, match="unknown pick_place variant 'spiral'"):
        pick_place.variant_config("spiral")
