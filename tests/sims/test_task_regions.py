"""The cube start area and the goal area of push and pick_place are config fields
(``TaskConfig.object_xy_range`` / ``goal_xy_range``; training configs: ``env.object_region``
/ ``env.goal_region``): today's areas by default (seeded resets identical to sampling from
the module constants), honoured by the task samplers, the numba kernels and PyBullet when
widened, and a malformed area is refused before any world is built."""

import dataclasses

import numpy as np
import pytest

import sims
from sims.backends.numba_params import kernel_params
from sims.kernels import layout
from sims.tasks import pick_place, push

WIDE_OBJECT = ((0.30, -0.35), (0.65, 0.35))
"""A cube area wider than today's in y (issue 16's two-arm cell needs |y| up to ~0.35 m)."""
WIDE_GOAL = ((0.25, -0.40), (0.70, 0.40))
SHIFTED_OBJECT = ((0.62, 0.22), (0.66, 0.26))
"""A cube area disjoint from today's: every cube of a few envs shows the config was read."""
SHIFTED_GOAL = ((0.55, 0.15), (0.75, 0.35))


def inside(xy: np.ndarray, region, tol: float = 1e-9) -> np.ndarray:
    low, high = np.asarray(region[0]), np.asarray(region[1])
    return np.all((xy >= low - tol) & (xy <= high + tol), axis=-1)


def constants_reset(module, rng, n, cfg):
    """The reset as it was drawn from the module constants before the areas became config
    fields (the reference the defaults must reproduce bit for bit)."""
    q = module.reset_distribution(rng, n, cfg)
    pos = np.empty((n, 3))
    pos[:, :2] = rng.uniform(module.OBJECT_XY_LOW, module.OBJECT_XY_HIGH, size=(n, 2))
    pos[:, 2] = module.CUBE_REST_Z
    yaw = rng.uniform(-np.pi / 4, np.pi / 4, size=n)
    goal = np.empty((n, 2))
    todo = np.arange(n)
    for _ in range(module.GOAL_SAMPLE_TRIES):
        if todo.size == 0:
            break
        dist = rng.uniform(*cfg.goal_distance_range, size=todo.size)
        angle = rng.uniform(-np.pi, np.pi, size=todo.size)
        cand = pos[todo, :2] + dist[:, None] * np.stack([np.cos(angle), np.sin(angle)], 1)
        ok = np.all((cand >= module.GOAL_XY_LOW) & (cand <= module.GOAL_XY_HIGH), axis=1)
        goal[todo[ok]] = cand[ok]
        todo = todo[~ok]
        goal[todo] = np.clip(cand[~ok], module.GOAL_XY_LOW, module.GOAL_XY_HIGH)
    return q, pos, yaw, goal


@pytest.mark.parametrize("module", [push, pick_place])
def test_the_defaults_are_the_module_constants(module):
    cfg = module.CONFIG
    assert cfg.object_xy_range == (tuple(push.OBJECT_XY_LOW), tuple(push.OBJECT_XY_HIGH))
    assert cfg.goal_xy_range == (tuple(push.GOAL_XY_LOW), tuple(push.GOAL_XY_HIGH))
    assert sims.get_task("reach").CONFIG.object_xy_range is None


@pytest.mark.parametrize("module", [push, pick_place])
def test_default_resets_are_bit_identical_to_the_constants_sampling(module):
    ref = constants_reset(module, np.random.default_rng(21), 300, module.CONFIG)
    unset = dataclasses.replace(module.CONFIG, object_xy_range=None, goal_xy_range=None)
    for cfg in (module.CONFIG, unset):
        q, pos, yaw, goal = module.sample_reset(np.random.default_rng(21), 300, cfg)
        assert np.array_equal(q, ref[0]) and np.array_equal(pos, ref[1])
        assert np.array_equal(yaw, ref[2]) and np.array_equal(goal[:, :2], ref[3])


def test_the_numba_kernels_get_the_constants_by_default():
    fp, _ = kernel_params(push, push.CONFIG, dense=True)
    assert np.array_equal(fp[[layout.P_OBJ_X_LO, layout.P_OBJ_Y_LO]], push.OBJECT_XY_LOW)
    assert np.array_equal(fp[[layout.P_OBJ_X_HI, layout.P_OBJ_Y_HI]], push.OBJECT_XY_HIGH)
    assert np.array_equal(fp[[layout.P_GOAL_X_LO, layout.P_GOAL_Y_LO]], push.GOAL_XY_LOW)
    assert np.array_equal(fp[[layout.P_GOAL_X_HI, layout.P_GOAL_Y_HI]], push.GOAL_XY_HIGH)
    unset = dataclasses.replace(push.CONFIG, object_xy_range=None, goal_xy_range=None)
    assert np.array_equal(kernel_params(push, unset, dense=True)[0], fp)


@pytest.mark.parametrize("module", [push, pick_place])
def test_the_samplers_take_the_configs_areas(module):
    cfg = dataclasses.replace(module.CONFIG, object_xy_range=WIDE_OBJECT, goal_xy_range=WIDE_GOAL)
    _, cubes, _, goals = module.sample_reset(np.random.default_rng(0), 2000, cfg)
    assert inside(cubes[:, :2], WIDE_OBJECT).all() and inside(goals[:, :2], WIDE_GOAL).all()
    assert np.abs(cubes[:, 1]).max() > 0.3  # beyond today's |y| <= 0.20
    assert np.abs(goals[:, 1]).max() > 0.3
    uniform = module.sample_goal(np.random.default_rng(1), 500, region=SHIFTED_GOAL)
    assert inside(uniform[:, :2], SHIFTED_GOAL).all()


def reset_xy(module, obs):
    s = module.LAYOUT.slices
    return obs[:, s["object_pos"]][:, :2], obs[:, s["goal_pos"]][:, :2]


@pytest.mark.parametrize("module", [push, pick_place])
def test_the_numba_backend_takes_the_configs_areas(module):
    cfg = dataclasses.replace(module.CONFIG, object_xy_range=WIDE_OBJECT, goal_xy_range=WIDE_GOAL)
    env = sims.make_env(module.CONFIG.name, "numba", num_envs=256, config=cfg)
    cubes, goals = reset_xy(module, env.reset(seed=4)[0])
    assert inside(cubes, WIDE_OBJECT, 1e-6).all() and inside(goals, WIDE_GOAL, 1e-6).all()
    assert np.abs(cubes[:, 1]).max() > 0.3 and np.abs(goals[:, 1]).max() > 0.3
    default = sims.make_env(module.CONFIG.name, "numba", num_envs=256)
    cubes, _ = reset_xy(module, default.reset(seed=4)[0])
    assert inside(cubes, module.CONFIG.object_xy_range, 1e-6).all()


def test_pybullet_takes_the_configs_areas():
    cfg = dataclasses.replace(
        push.CONFIG, object_xy_range=SHIFTED_OBJECT, goal_xy_range=SHIFTED_GOAL
    )
    env = sims.make_env("push", "pybullet", num_envs=4, config=cfg, num_workers=0)
    try:
        cubes, goals = reset_xy(push, env.reset(seed=5)[0])
    finally:
        env.close()
    assert inside(cubes, SHIFTED_OBJECT, 1e-3).all()  # the cube settles a little on the table
    assert inside(goals, SHIFTED_GOAL, 1e-6).all()


@pytest.mark.parametrize(
    "region,words",
    [
        ([0.3, -0.2, 0.6, 0.2], "must be [[xlo, ylo], [xhi, yhi]]"),
        ([[0.3, -0.2, 0.0], [0.6, 0.2, 0.1]], "must be [[xlo, ylo], [xhi, yhi]]"),
        ([[0.6, -0.2], [0.3, 0.2]], "xlo < xhi and ylo < yhi"),
        ([[0.3, 0.2], [0.6, 0.2]], "xlo < xhi and ylo < yhi"),
        ([[0.3, float("nan")], [0.6, 0.2]], "finite"),
        ([["a", 0], [1, 1]], "must be"),
        (0.5, "must be"),
    ],
)
def test_a_malformed_area_is_refused(region, words):
    with pytest.raises(ValueError, match="object_region") as err:
        push.check_xy_region(region, "object_region")
    assert words in str(err.value)


BACKEND_OPTIONS = {"numba": {}, "pybullet": {"num_workers": 0}}


@pytest.mark.parametrize("backend", ["numba", "pybullet"])
def test_a_backend_refuses_a_malformed_area_before_building_anything(backend, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a world was built before the area was checked")

    monkeypatch.setattr("sims.backends.pybullet.env.open_worlds", forbidden)
    monkeypatch.setattr("sims.backends.numba_backend.kernel_params", forbidden, raising=False)
    bad = dataclasses.replace(push.CONFIG, goal_xy_range=((0.6, -0.2), (0.3, 0.2)))
    with pytest.raises(ValueError, match="goal_xy_range needs xlo < xhi"):
        sims.make_env("push", backend, num_envs=2, config=bad, **BACKEND_OPTIONS[backend])
