"""pick_place's tower variant in PyBullet: episodes start with two cubes stacked (the
bottom one on the table, the target on it) and the carried cube on the table; the goal is
the third level, on the target cube, and success is the stack rule there. Backends with
one cube refuse it by name."""

import dataclasses

import numpy as np
import pybullet as p
import pytest

import sims
from sims.backends.pybullet.env import make_pybullet_env
from sims.tasks import pick_place
from tests.sims.test_stacking import hand_made_state, scripted_stack

THIRD_LEVEL_Z = pick_place.level_height(pick_place.TOWER_LEVELS)
"""Height (m) of a cube's centre at the third level: the tower's goal."""


def tower_config(steps=160):
    """Tower episodes only, long enough for a slow scripted controller."""
    return dataclasses.replace(pick_place.variant_config("tower"), episode_steps=steps)


@pytest.fixture(scope="module")
def tower_env():
    env = make_pybullet_env(pick_place, 6, tower_config(), num_workers=0, autoreset=False)
    yield env
    env.close()


def _position(world, body) -> np.ndarray:
    return np.array(p.getBasePositionAndOrientation(body, physicsClientId=world.client)[0])


def test_a_tower_episode_starts_with_two_cubes_stacked_at_rest_and_the_cube_on_the_table(
    tower_env,
):
    tower_env.reset(seed=5)
    still = np.column_stack([np.zeros((tower_env.num_envs, 3)), np.ones(tower_env.num_envs)])
    for _ in range(10):  # 0.4 s of physics: a tower that was not at rest would have moved
        tower_env.step(still)
    state = tower_env.get_state()
    assert state.stack.all()
    np.testing.assert_allclose(state.goal_pos[:, 2], THIRD_LEVEL_Z, atol=1e-3)
    np.testing.assert_allclose(state.object_pos[:, 2], pick_place.CUBE_REST_Z, atol=1e-3)
    for k, world in enumerate(tower_env._worlds.group.worlds):
        (bottom,) = world.under_target
        target, base = _position(world, world.target), _position(world, bottom)
        np.testing.assert_allclose(base[2], pick_place.level_height(1), atol=1e-3)
        np.testing.assert_allclose(target[2], pick_place.level_height(2), atol=1e-3)
        assert np.linalg.norm(target[:2] - base[:2]) < 1e-3  # squarely on the bottom cube
        # the goal: above the top cube, at the third level's height
        np.testing.assert_allclose(state.goal_pos[k, :2], target[:2], atol=1e-6)
        gap = np.linalg.norm(state.object_pos[k, :2] - target[:2])
        assert gap >= pick_place.CONFIG.goal_distance_range[0] - 1e-6


def test_stack_and_pads_worlds_hold_no_cube_under_the_target():
    for variant, under in (("stack", 0), ("tower", 1)):
        env = make_pybullet_env(pick_place, 1, pick_place.variant_config(variant), num_workers=0)
        try:
            assert env.world_spec.cubes_under_target == under
        finally:
            env.close()


def test_a_knocked_over_tower_keeps_the_goal_at_the_third_level():
    fallen = np.array([[0.5, 0.1, pick_place.level_height(1)], [0.5, 0.1, 0.06]])
    goal = pick_place.tower_goal(fallen, 2)
    np.testing.assert_allclose(goal[:, 2], THIRD_LEVEL_Z)
    np.testing.assert_allclose(goal[:, :2], fallen[:, :2])
    # one cube under the target (the stack variant): on top of the target, as it lies
    np.testing.assert_allclose(pick_place.tower_goal(fallen, 1), pick_place.stack_goal(fallen))


def test_scripted_controller_puts_the_cube_on_the_third_level(tower_env):
    tower_env.reset(seed=0)
    start = tower_env.get_state()
    done, _, at_success = scripted_stack(tower_env)
    assert np.mean(done) >= 0.8, done
    # where it succeeded the cube rested on the tower's top cube
    np.testing.assert_allclose(at_success[done, 2], start.goal_pos[done, 2], atol=0.01)


def test_success_on_scripted_states_at_the_third_level():
    goal = np.array([[0.5, 0.1, THIRD_LEVEL_Z]] * 4)
    below = -pick_place.CUBE_SIZE  # fell off the top: resting on the second level's height
    obj = goal + [[0.005, 0.0, 0.002], [0.0, 0.0, below], [0.0, 0.0, 0.0], [0.0, 0.025, 0.0]]
    width = np.array([0.08, 0.08, 0.05, 0.08])  # released, released, gripped, released
    state = hand_made_state(obj, goal, width, np.ones(4, dtype=bool))
    np.testing.assert_array_equal(pick_place.success(state), [True, False, False, False])


def test_backends_with_one_cube_refuse_the_tower_by_name():
    with pytest.raises(ValueError, match="tower episodes .variant tower.*pybullet backend only"):
        sims.make_env("pick_place", "numba", 2, config=tower_config())
    too_high = dataclasses.replace(tower_config(), stack_base_cubes=3)
    with pytest.raises(ValueError, match="at most 3 cubes high"):
        make_pybullet_env(pick_place, 1, too_high, num_workers=0)


@pytest.mark.parametrize("z", [0.0, 0.009, 0.035, 0.075, 0.2])
def test_cube_level_reads_only_resting_heights(z):
    level = pick_place.cube_level(z)
    assert level is None  # between levels, or below the table


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_cube_level_inverts_level_height(level):
    for dz in (-0.009, 0.0, 0.009):
        assert pick_place.cube_level(pick_place.level_height(level) + dz) == level


def test_tower_fraction_puts_some_stacking_episodes_on_a_tower_of_two():
    """``tower_fraction`` of the stacking episodes build the third level, the others the
    second: the worlds hold the cube a tower needs, parked under a one-cube stack."""
    cfg = dataclasses.replace(
        pick_place.variant_config("stack"), tower_fraction=0.5, episode_steps=50
    )
    env = make_pybullet_env(pick_place, 8, cfg, num_workers=0, autoreset=False)
    try:
        assert env.world_spec.cubes_under_target == 1
        env.reset(seed=3)
        still = np.column_stack([np.zeros((8, 3)), np.ones(8)])
        for _ in range(5):
            env.step(still)
        state = env.get_state()
        assert state.stack.all()
        levels = [pick_place.cube_level(z) for z in state.goal_pos[:, 2]]
        assert set(levels) == {2, 3}, levels  # both kinds among 8 episodes of this seed
        for level, world in zip(levels, env._worlds.group.worlds, strict=True):
            (under,) = world.under_target
            base = _position(world, under)
            if level == 3:
                np.testing.assert_allclose(base[2], pick_place.level_height(1), atol=1e-3)
            else:
                assert base[2] < 0.0  # parked below the table
            top = _position(world, world.target)
            np.testing.assert_allclose(top[2], pick_place.level_height(level - 1), atol=1e-3)
    finally:
        env.close()


def test_sample_stack_draws_no_tower_without_tower_fraction():
    cfg = pick_place.variant_config("stack")
    goal = np.tile([0.5, 0.1, pick_place.CUBE_REST_Z], (64, 1))
    rng, same = np.random.default_rng(7), np.random.default_rng(7)
    stack, target, _ = pick_place.sample_stack(rng, 64, cfg, goal)
    same.uniform(size=64)  # the stacking draw alone
    assert rng.bit_generator.state == same.bit_generator.state
    np.testing.assert_allclose(target[stack, 2], pick_place.level_height(1))  # on the table
    mixed = dataclasses.replace(cfg, tower_fraction=1.0)
    _, target, goal_mixed = pick_place.sample_stack(np.random.default_rng(7), 64, mixed, goal)
    np.testing.assert_allclose(target[:, 2], pick_place.level_height(pick_place.TOWER_LEVELS - 1))
    np.testing.assert_allclose(goal_mixed[:, 2], THIRD_LEVEL_Z)


def test_tower_fraction_is_refused_by_name_where_it_cannot_run():
    mixed = dataclasses.replace(pick_place.variant_config("stack"), tower_fraction=0.5)
    with pytest.raises(ValueError, match="tower episodes .variant tower.*pybullet backend only"):
        sims.make_env("pick_place", "numba", 2, config=mixed)
    with pytest.raises(ValueError, match="tower_fraction must be a number in .0, 1."):
        make_pybullet_env(
            pick_place, 1, dataclasses.replace(mixed, tower_fraction=1.5), num_workers=0
        )
    # a variant's episodes are that variant's alone
    for variant in pick_place.VARIANTS:
        assert pick_place.variant_config(variant, mixed).tower_fraction == 0.0


def test_tower_goal_per_episode():
    target = np.array([[0.5, 0.1, 0.02], [0.4, 0.0, 0.02]])  # the second knocked to the table
    goal = pick_place.tower_goal(target, np.array([1, 2]))
    np.testing.assert_allclose(goal[0], pick_place.stack_goal(target[0]))
    np.testing.assert_allclose(goal[1], [0.4, 0.0, THIRD_LEVEL_Z])
