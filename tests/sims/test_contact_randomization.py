"""Contact randomization per episode (``DomainRandomization.cube_size``,
``finger_friction_scale``, ``contact_stiffness``): the numba kernels and PyBullet draw the
cube's edge, PyBullet the finger pads' friction and the cube's contact stiffness; with the
defaults nothing changes; bad ranges fail before any work. The finger reading
(``finger_reading``) is tests/sims/test_finger_reading.py's."""

import dataclasses

import numpy as np
import pytest

from policies.experts import pick_place as pick_expert
from policies.ppo.config import TrainConfig
from policies.ppo.env_options import contact_randomization
from policies.ppo.stage_config import StageConfigError, parse_staged_config
from sims.backends.numba_backend import NumbaEnv
from sims.backends.numba_params import CONTACT_MODELS, kernel_params
from sims.backends.pybullet import spec
from sims.backends.pybullet.env import PyBulletEnv
from sims.backends.pybullet.rows import sample_reset_rows
from sims.tasks import pick_place, push
from sims.tasks.base import CUBE_SIZE_LEVELS, DomainRandomization, cube_sizes

SIZES = (0.035, 0.045)


def with_randomization(task, **fields):
    return dataclasses.replace(task.CONFIG, randomization=DomainRandomization(**fields))


def test_numba_draws_the_cube_edge_per_episode():
    env = NumbaEnv(push, 512, with_randomization(push, cube_size=SIZES))
    env.reset(seed=2)
    size = env.randomization_state()["cube_size"]
    assert np.all((size >= SIZES[0]) & (size <= SIZES[1]))
    assert size.std() > 0.002  # spread over the range, not one value
    np.testing.assert_allclose(env.get_state().object_pos[:, 2], size / 2)  # on the table
    env.reset(seed=3)
    assert not np.allclose(env.randomization_state()["cube_size"], size)  # per episode


def test_numba_scales_the_finger_friction_range():
    lo, hi = CONTACT_MODELS["push"].mu_finger
    env = NumbaEnv(push, 2000, with_randomization(push, finger_friction_scale=(0.5, 2.0)))
    env.reset(seed=1)
    mu = env.randomization_state()["finger_friction"]
    assert mu.min() >= 0.5 * lo and mu.max() <= 2.0 * hi
    assert mu.min() < lo and mu.max() > hi  # wider than the contact model's own range


def test_numba_defaults_keep_the_task_cube():
    env = NumbaEnv(pick_place, 64)
    env.reset(seed=0)
    np.testing.assert_allclose(env.randomization_state()["cube_size"], pick_place.CUBE_SIZE)


@pytest.mark.parametrize("edge", SIZES)
def test_numba_fingers_close_on_the_episode_cube(edge):
    """The scripted expert grasps cubes of either end of the range; the fingers stop at
    that cube's edge (a kernel that kept the nominal 4 cm would stop at 0.04)."""
    cfg = dataclasses.replace(
        with_randomization(pick_place, cube_size=(edge, edge)), episode_steps=80
    )
    env = NumbaEnv(pick_place, 32, cfg)
    obs, _ = env.reset(seed=4)
    widths = []
    for _ in range(60):
        obs, *_ = env.step(pick_expert.act(obs, cfg))
        held = env.grasped()
        widths.extend(env.get_state().finger_width[held])
    assert len(widths) > 100
    np.testing.assert_allclose(widths, edge)


def test_pybullet_worlds_hold_a_cube_of_each_level():
    """A randomized PyBullet world rests a cube of the drawn edge on the table: a 4 cm
    body put at a 3.5 cm cube's height would be pushed up out of the table."""
    cfg = with_randomization(push, cube_size=SIZES)
    levels = cube_sizes(cfg.randomization, push.CUBE_SIZE)
    assert len(levels) == CUBE_SIZE_LEVELS and levels[0] == SIZES[0] and levels[-1] == SIZES[1]
    env = PyBulletEnv(push, 6, cfg, num_workers=0, autoreset=False)
    try:
        env.reset(seed=5)
        start = env.get_state().object_pos[:, 2].copy()
        for _ in range(10):  # 0.4 s at rest: the cube settles on the table
            env.step(np.zeros((6, cfg.action_dim)))
        rest = env.get_state().object_pos[:, 2]
        drawn = 2 * start
        assert len(np.unique(np.round(drawn, 4))) > 1
        assert all(np.isclose(d, levels, atol=1e-9).any() for d in drawn)
        np.testing.assert_allclose(rest, start, atol=5e-4)
    finally:
        env.close()


def test_reset_rows_draw_finger_friction_and_log_uniform_stiffness():
    cfg = with_randomization(
        pick_place, finger_friction_scale=(0.5, 1.5), contact_stiffness=(1e4, 1e6)
    )
    rows, _, _, goal_yaw = sample_reset_rows(
        pick_place, cfg, np.random.default_rng(0), 4000, 0.1, 0
    )
    assert goal_yaw is None  # pick_place has no yaw goal
    friction = rows[:, spec.RESET_FINGER_FRICTION] / spec.FINGER_LATERAL_FRICTION
    assert friction.min() >= 0.5 and friction.max() <= 1.5
    assert abs(np.median(friction) - 1.0) < 0.05
    log_k = np.log10(rows[:, spec.RESET_CONTACT_STIFFNESS])
    assert log_k.min() >= 4.0 and log_k.max() <= 6.0
    assert abs(np.median(log_k) - 5.0) < 0.05  # log-uniform: the median is the geometric mean
    plain, _, _, _ = sample_reset_rows(
        pick_place, pick_place.CONFIG, np.random.default_rng(0), 10, 0.1, 0
    )
    extra = [spec.RESET_CUBE_SIZE, spec.RESET_FINGER_FRICTION, spec.RESET_CONTACT_STIFFNESS]
    assert not plain[:, extra].any()  # the defaults leave the world as built


def test_soft_contacts_let_the_cube_sink_into_the_table():
    def resting_z(**fields):
        env = PyBulletEnv(push, 1, with_randomization(push, **fields), num_workers=0)
        try:
            env.reset(seed=1)
            for _ in range(10):
                env.step(np.zeros((1, push.CONFIG.action_dim)))
            return env.get_state().object_pos[0, 2]
        finally:
            env.close()

    rigid = resting_z()
    soft = resting_z(contact_stiffness=(500.0, 500.0))
    assert rigid - soft > 2e-4  # ~1 N on 500 N/m springs


@pytest.mark.parametrize(
    "env, message",
    [
        ({"cube_size": [0.045, 0.035]}, "env.cube_size"),
        ({"cube_size": [0.02, 0.07]}, "env.cube_size"),
        ({"finger_friction_scale": [0.0, 1.0]}, "env.finger_friction_scale"),
        ({"contact_stiffness": [1e5]}, "env.contact_stiffness"),
        ({"finger_reading": [0.0, 0.03]}, "env.finger_reading"),
        ({"finger_reading": [-0.01, 0.005]}, "env.finger_reading"),
    ],
)
def test_bad_ranges_fail_when_the_config_loads(env, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig.from_dict({"task": "push", "env": env})


def test_a_task_without_a_cube_refuses_contact_randomization():
    env = {"cube_size": [0.035, 0.045], "finger_friction_scale": [0.7, 1.3]}
    with pytest.raises(ValueError, match="env.cube_size, env.finger_friction_scale: .*no cube"):
        TrainConfig.from_dict({"task": "reach", "env": env})
    data = {"task": "reach", "stages": [{"name": "a", "backend": "numba", "steps": 100}]}
    data["stages"][0]["overrides"] = {"env": {"cube_size": [0.035, 0.045]}}
    with pytest.raises(StageConfigError, match="stage 1.*no cube"):
        parse_staged_config(data)


def test_backends_refuse_what_they_cannot_randomize():
    with pytest.raises(ValueError, match="kinematic"):
        kernel_params(push, with_randomization(push, contact_stiffness=(1e4, 1e5)), True)
    data = {
        "task": "push",
        "env": {"contact_stiffness": [1e4, 1e5]},
        "stages": [{"name": "numba", "backend": "numba", "steps": 100}],
    }
    with pytest.raises(StageConfigError, match="stage 1.*cannot randomize env.contact_stiffness"):
        parse_staged_config(data)
    cfg = with_randomization(pick_place, plain_arm_prob=0.5)
    with pytest.raises(ValueError, match="pybullet backend cannot randomize .*plain_arm_prob"):
        PyBulletEnv(pick_place, 1, cfg)
    data["env"] = {"finger_reading": [0.0, 0.01]}
    data["stages"][0]["backend"] = "isaac"
    with pytest.raises(StageConfigError, match="stage 1.*isaac .*randomize env.finger_reading"):
        parse_staged_config(data)


def test_a_default_range_is_no_randomization():
    """``finger_reading: [0, 0]`` (or friction x[1, 1]) changes nothing, so a PyBullet
    stage may switch off what the run's numba stages draw."""
    data = {
        "task": "pick_place",
        "env": {"finger_reading": [0.0, 0.02], "finger_friction_scale": [0.7, 1.3]},
        "stages": [
            {"name": "numba", "backend": "numba", "steps": 100},
            {"name": "pybullet", "backend": "pybullet", "steps": 100},
        ],
    }
    data["stages"][1]["overrides"] = {"env": {"finger_reading": [0.0, 0.0]}}
    staged = parse_staged_config(data)
    pybullet = contact_randomization(staged.stage_config(1).env)
    assert pybullet == {"finger_friction_scale": (0.7, 1.3)}
    assert contact_randomization(staged.stage_config(0).env)["finger_reading"] == (0.0, 0.02)


def test_a_training_config_widens_the_cube_mass_and_table_friction():
    """``env.object_mass_scale`` and ``env.friction_scale`` replace the task's default
    ranges (x0.8-1.2, x0.7-1.3) in the training envs, which draw over the wider ranges;
    a range that is not positive fails when the config loads."""
    from policies.ppo.envs import training_task_config

    wide = {"object_mass_scale": [0.5, 2.0], "friction_scale": [0.4, 1.6]}
    cfg = training_task_config(TrainConfig.from_dict({"task": "pick_place", "env": wide}))
    assert cfg.randomization.object_mass_scale == (0.5, 2.0)
    assert cfg.randomization.friction_scale == (0.4, 1.6)
    env = NumbaEnv(pick_place, 2000, cfg)
    env.reset(seed=0)
    draws = env.randomization_state()
    for key, (lo, hi), (default_lo, default_hi) in (
        ("mass_scale", (0.5, 2.0), (0.8, 1.2)),
        ("friction_scale", (0.4, 1.6), (0.7, 1.3)),
    ):
        assert draws[key].min() >= lo and draws[key].max() <= hi
        assert draws[key].min() < default_lo and draws[key].max() > default_hi
    with pytest.raises(ValueError, match="env.friction_scale"):
        TrainConfig.from_dict({"task": "pick_place", "env": {"friction_scale": [0.0, 1.0]}})
