"""The scripted pick_place expert: it picks and places on the numba backend with the arm's
command-path model, and it is memoryless (its action is a function of the observation)."""

import numpy as np
import pytest
import torch

from policies.evaluation import run_episodes
from policies.experts import get_expert, get_labeller
from policies.experts import pick_place as expert
from policies.ppo.imitation_loss import state_losses, state_weights
from sims.tasks import pick_place
from tests.policies.expert_envs import assert_pure, command_path_env, cube_observations


def model_env(episode_scale=1.5):
    """(64 numba envs, their task config): the arm as it is (command-path model, 0..2
    periods of latency, observation noise), cube-goal distances 0.10-0.45 m, episodes
    ``episode_scale`` x the task's."""
    return command_path_env(
        "pick_place", 64, episode_scale=episode_scale, goal_distance=[0.10, 0.45]
    )


def test_expert_picks_and_places_on_numba_with_the_command_path_model():
    env, task_cfg = model_env()
    result = run_episodes(env, lambda obs: expert.act(obs, task_cfg), 64, seed=7)
    # measured 0.99 over 1000 episodes
    assert result.success >= 0.85, result


def test_expert_recovers_from_perturbed_actions():
    """A student's mistakes: every step's displacement is perturbed (0.3 of a full step,
    Gaussian); reading only the observation, the expert still gets there, given time (the
    knocked or dropped cube is picked up again). Measured 0.99 over 500 episodes."""
    env, task_cfg = model_env(episode_scale=4.0)
    rng = np.random.default_rng(0)

    def perturbed(obs):
        actions = expert.act(obs, task_cfg)
        actions[:, :3] += rng.normal(scale=0.3, size=(len(obs), 3))
        return np.clip(actions, -1.0, 1.0)

    result = run_episodes(env, perturbed, 64, seed=11)
    assert result.success >= 0.85, result


def _observations(n=256, seed=3):
    """Observations of states the expert meets: every phase (far, above, around, held,
    placed), from real resets with the TCP, fingers and cube moved about."""
    rng = np.random.default_rng(seed)
    _, cube, _, goal = pick_place.sample_reset(rng, n)
    offsets = rng.choice([0.0, 0.005, 0.02, 0.1], size=(n, 1)) * rng.normal(size=(n, 3))
    tcp = cube + offsets
    width = rng.choice([0.08, 0.06, 0.05, 0.04, 0.0], size=n)
    goal[: n // 4] = cube[: n // 4] + rng.normal(scale=0.005, size=(n // 4, 3))
    return cube_observations(pick_place, tcp, cube, goal, width).astype(np.float32)


def test_expert_is_memoryless_and_in_range():
    obs = _observations()
    first = assert_pure(expert.act, obs, pick_place.CONFIG, rows=range(16))
    assert first.shape == (len(obs), 4)
    assert np.all(np.isfinite(first)) and np.all(np.abs(first) <= 1.0)
    # the sampled states cover both gripper commands
    assert np.any(first[:, 3] > 0) and np.any(first[:, 3] <= 0)


def _one(tcp, width, cube, goal):
    """One observation [1, 32] from the TCP, finger opening, cube and goal."""
    return cube_observations(pick_place, tcp, cube, goal, width)


CUBE = np.array([0.5, 0.0, pick_place.CUBE_REST_Z])
ON_TARGET = np.array([0.5, 0.2, pick_place.CUBE_REST_Z + pick_place.CUBE_SIZE])
ON_TOWER = np.array([0.5, 0.2, pick_place.level_height(pick_place.TOWER_LEVELS)])
LOWEST_AIR = CUBE + [0.0, 0.2, pick_place.AIR_GOAL_Z_RANGE[0] - pick_place.CUBE_REST_Z]


@pytest.mark.parametrize(
    "name,tcp,width,cube,goal,up,grip_open",
    [
        # far from the cube, fingers open: towards it, staying open
        ("approach", CUBE + [-0.2, 0.0, 0.3], 0.08, CUBE, ON_TARGET, None, True),
        # over the cube, open: straight down
        ("descend", CUBE + [0.0, 0.0, 0.06], 0.08, CUBE, ON_TARGET, False, True),
        # around the cube: close
        ("close", CUBE, 0.08, CUBE, ON_TARGET, None, False),
        # held on the table: lift, closed
        ("lift", CUBE, 0.045, CUBE, ON_TARGET, True, False),
        # held over the target cube: down onto it, closed
        (
            "lower",
            ON_TARGET + [0, 0, 0.05],
            0.045,
            ON_TARGET + [0, 0, 0.05],
            ON_TARGET,
            False,
            False,
        ),
        # resting on the target cube: release
        ("release", ON_TARGET, 0.045, ON_TARGET, ON_TARGET, None, True),
        # released there: rise
        ("rise", ON_TARGET, 0.08, ON_TARGET, ON_TARGET, True, True),
        # at an air goal above the release height: hold it
        (
            "hold",
            CUBE + [0, 0, 0.15],
            0.045,
            CUBE + [0, 0, 0.15],
            CUBE + [0, 0, 0.15],
            None,
            False,
        ),
        # the third level, on a tower of two: down onto it, then release there
        (
            "lower onto a tower",
            ON_TOWER + [0, 0, 0.05],
            0.045,
            ON_TOWER + [0, 0, 0.05],
            ON_TOWER,
            False,
            False,
        ),
        ("release on a tower", ON_TOWER, 0.045, ON_TOWER, ON_TOWER, None, True),
        # at the lowest air goal (a level above the tower's top): hold it
        ("hold low", LOWEST_AIR, 0.045, LOWEST_AIR, LOWEST_AIR, None, False),
        # fingers closed, cube knocked away: open and go back up over it
        ("recover", CUBE + [0.06, 0.0, 0.0], 0.0, CUBE, ON_TARGET, True, True),
    ],
)
def test_phase_from_geometry(name, tcp, width, cube, goal, up, grip_open):
    action = expert.act(_one(tcp, width, cube, goal), pick_place.CONFIG)[0]
    assert (action[3] > 0) == grip_open, (name, action)
    if up is not None:
        assert (action[2] > 0.05) if up else (action[2] < -0.05), (name, action)
    # the release focus: exactly the release steps (the cube in the release box, the
    # fingers not yet open), the same actions
    actions, focus = expert.focus(_one(tcp, width, cube, goal), pick_place.CONFIG)
    np.testing.assert_array_equal(actions[0], action)
    assert bool(focus[0]) == name.startswith("release"), name


def test_release_focus_weighs_the_release_steps_and_no_other():
    """The labeller is the release focus, and ``imitation.focus_weight`` changes the
    regression's loss at the release steps only (a student that keeps the fingers closed
    where the expert opens them pays focus_weight times more there)."""
    assert get_labeller("pick_place") is expert.focus
    held = dict(width=0.045, cube=ON_TOWER, goal=ON_TOWER)
    states = [
        _one(ON_TOWER, **held),  # in the release box, closed: a release step
        _one(ON_TOWER + [0, 0, 0.006], **held),  # 6 mm high, still inside
        _one(ON_TOWER, 0.045, ON_TOWER + [0, 0, 0.012], ON_TOWER),  # 12 mm high: lowering
        _one(ON_TOWER, 0.08, ON_TOWER, ON_TOWER),  # open: rising, no longer a release
        _one(CUBE, 0.08, CUBE, ON_TOWER),  # closing on the cube
    ]
    obs = np.concatenate(states)
    labels, focus = expert.focus(obs, pick_place.CONFIG)
    np.testing.assert_array_equal(focus, [True, True, False, False, False])
    labels = torch.as_tensor(labels, dtype=torch.float32)
    student = labels.clone()
    student[:, 3] = -0.1  # just below zero everywhere: the still point's gripper
    focus = torch.as_tensor(focus)
    still = torch.zeros_like(focus)
    assert state_weights(focus, still, 1.0, 1.0) is None
    plain = state_losses(student, labels)
    weighed = state_losses(student, labels, weight=state_weights(focus, still, 4.0, 1.0))
    torch.testing.assert_close(weighed[focus], 4.0 * plain[focus])
    torch.testing.assert_close(weighed[~focus], plain[~focus])
    assert torch.all(plain[focus] > 0.0)


def test_registry_returns_this_expert_and_bad_observations_are_errors():
    assert get_expert("pick_place") is expert.act
    with pytest.raises(ValueError, match="observations must be"):
        expert.act(np.zeros((2, 5)), pick_place.CONFIG)


def test_every_level_is_a_placement_and_every_air_goal_is_held():
    """The release band and the air goals come from the task's level rule: every level of
    a tower is at most PLACE_Z_MAX high, every air goal above it."""
    assert expert.PLACE_Z_MAX == pick_place.PLACE_Z_MAX
    levels = [pick_place.level_height(k) for k in range(1, pick_place.TOWER_LEVELS + 1)]
    assert max(levels) < expert.PLACE_Z_MAX < pick_place.AIR_GOAL_Z_RANGE[0]
    goals = pick_place.sample_goal(np.random.default_rng(0), 4000)
    air = goals[:, 2] > pick_place.CUBE_REST_Z
    assert 0.4 < air.mean() < 0.6
    assert goals[air, 2].min() >= pick_place.AIR_GOAL_Z_RANGE[0]
    assert goals[air, 2].max() <= pick_place.GOAL_Z_RANGE[1]


def _closing(start, end, fall=0.004):
    """Readings (m) of fingers closing from ``start`` at ``fall`` a period until ``end``."""
    steps = int(np.ceil((start - end) / fall))
    return list(np.maximum(start - fall * np.arange(steps + 1), end))


def _settles(readings, repeat=4):
    """``readings`` then their last one ``repeat`` times more, and whether the fingers hold
    at each: from the GRIP_PERIODS-th period without a fall on."""
    readings = list(readings) + [readings[-1]] * repeat
    first = len(readings) - repeat - 1 + expert.GRIP_PERIODS
    return readings, [i >= first for i in range(len(readings))]


@pytest.mark.parametrize(
    "name,readings,held",
    [
        # a held cube read 18 mm wide of a 58 mm engine reading: the shift fades out towards
        # the open reading, so the reading falls at 18% of the fingers' speed near open
        # (0.7 mm a period; 0.6 here)
        ("settles wide", *_settles(_closing(0.08, 0.076, fall=0.0006))),
        ("settles narrow", *_settles(_closing(0.08, 0.041))),
        ("still closing", _closing(0.08, 0.06), [False] * 7),
        ("closes to empty", _closing(0.08, 0.0) + [0.0] * 3, [False] * 24),
        ("open", [0.08] * 4, [False] * 4),
    ],
)
def test_grip_is_the_fingers_stopped_on_the_cube_at_any_width(name, readings, held):
    """With the reading's history the grip is the fingers stopped between empty and open
    for GRIP_PERIODS periods, at whatever width the gripper reads the cube."""
    watch = expert.GripWatch()
    got = [bool(watch.update(np.array([w]))[0]) for w in readings]
    assert got == held, name


def test_a_grip_lasts_until_the_fingers_open_or_close_on_nothing():
    watch = expert.GripWatch()
    for w in [0.05, 0.05, 0.05]:
        held = watch.update(np.array([w, w]))
    assert held.all()
    # a held cube turning in the fingers: the reading falls a little, the grip stays
    assert watch.update(np.array([0.049, 0.049])).all()
    # one opens (the release), one closes on nothing (the cube slipped out)
    assert not watch.update(np.array([0.0795, 0.01])).any()
    # a new episode: open fingers hold nothing; a batch of another size starts afresh
    assert not watch.update(np.array([0.08, 0.08])).any()
    assert not expert.GripWatch().update(np.array([0.05, 0.05, 0.05])).any()


@pytest.mark.parametrize("width", [0.045, 0.076])
def test_with_the_history_a_stopped_reading_lifts_and_a_closing_one_waits(width):
    """Around the cube with the fingers closing: close and hold still, at 45 mm (a narrow
    grip still closing) as at 76 mm (the widest held reading 18 mm off); once the reading
    stops there: lift the cube, fingers closed. Without the history 76 mm is open."""
    closing, watch = [width + 0.002, width + 0.001], expert.GripWatch()
    for w in closing:
        action = expert.act(_one(CUBE, w, CUBE, ON_TARGET), pick_place.CONFIG, watch)[0]
        assert action[3] <= 0 and abs(action[2]) < 0.05, action
    for _ in range(expert.GRIP_PERIODS + 1):
        action = expert.act(_one(CUBE, width, CUBE, ON_TARGET), pick_place.CONFIG, watch)[0]
    assert action[3] <= 0 and action[2] > 0.05, action
    # rising at the release only once the fingers are open, however wide the grip reads
    for w in (width, width + 0.002):
        action = expert.act(_one(ON_TARGET, w, ON_TARGET, ON_TARGET), pick_place.CONFIG, watch)
        assert action[0, 3] > 0 and abs(action[0, 2]) < 0.05, action
    action = expert.act(_one(ON_TARGET, 0.08, ON_TARGET, ON_TARGET), pick_place.CONFIG, watch)
    assert action[0, 3] > 0 and action[0, 2] > 0.05, action
