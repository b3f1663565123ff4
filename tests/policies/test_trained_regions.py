"""A training config's cube and goal areas (``env.object_region``, ``env.goal_region``) reach
the run's envs, the exported card's envelope and precondition text, the skill's envelope
check and ``miles eval``'s episodes; the defaults keep today's cards; a malformed area or one
for a task without areas is refused before any work."""

import dataclasses

import numpy as np
import pytest

import sims
from policies.card_content import build_card, preconditions, refresh_envelope, task_envelope
from policies.cards import load_card, write_card
from policies.commands import evaluate as base
from policies.export import export_run
from policies.ppo.config import TrainConfig
from policies.ppo.envs import (
    evaluation_task_config,
    make_env,
    training_task_config,
    with_regions,
)
from sims.tasks import pick_place, push, turn
from sims.tasks.registry import names, places_goal, places_object
from tests.policies.tiny_runs import push_run, stopped_evaluations

WIDE_OBJECT = ((0.30, -0.35), (0.65, 0.35))
WIDE_GOAL = ((0.25, -0.40), (0.70, 0.40))
CUBE_OUTSIDE_TODAY = (0.45, 0.30, push.CUBE_REST_Z)
"""Inside WIDE_OBJECT, outside today's cube area (|y| <= 0.20)."""
GOAL_OUTSIDE_TODAY = (0.30, 0.38, push.CUBE_REST_Z)
"""Inside WIDE_GOAL, outside today's goal area, 0.17 m from CUBE_OUTSIDE_TODAY."""


def as_lists(region):
    return [list(region[0]), list(region[1])]


def card(task, provenance=None, **regions):
    return build_card(task, task, {}, provenance or {"task": task}, {"episodes": 0}, **regions)


@pytest.mark.parametrize("module", [push, pick_place])
def test_without_areas_the_card_keeps_todays(module):
    task = module.CONFIG.name
    envelope = card(task).envelope
    assert envelope.object_region.low == tuple(module.OBJECT_XY_LOW)
    assert envelope.object_region.high == tuple(module.OBJECT_XY_HIGH)
    assert envelope.target_region.low[:2] == tuple(module.GOAL_XY_LOW)
    assert envelope.target_region.high[:2] == tuple(module.GOAL_XY_HIGH)
    assert any("within x 0.35-0.60 m, y -0.20-0.20 m" in line for line in preconditions(task))


@pytest.mark.parametrize("module", [push, pick_place])
def test_the_card_declares_the_trained_areas(module):
    task = module.CONFIG.name
    built = card(task, object_region=as_lists(WIDE_OBJECT), goal_region=as_lists(WIDE_GOAL))
    envelope = built.envelope
    assert (envelope.object_region.low, envelope.object_region.high) == WIDE_OBJECT
    assert envelope.target_region.low[:2] == WIDE_GOAL[0]
    assert envelope.target_region.high[:2] == WIDE_GOAL[1]
    if module is pick_place:  # air goals keep their height range
        assert envelope.target_region.low[2] == pick_place.GOAL_Z_RANGE[0]
        assert envelope.target_region.high[2] == pick_place.GOAL_Z_RANGE[1]
    text = " ".join(built.data["preconditions"])
    assert "within x 0.30-0.65 m, y -0.35-0.35 m" in text and "{cube_area}" not in text
    # the skill's envelope check (what the skill node runs) accepts the trained areas
    assert built.envelope_violations(CUBE_OUTSIDE_TODAY, GOAL_OUTSIDE_TODAY) == []
    today = card(task).envelope_violations(CUBE_OUTSIDE_TODAY, GOAL_OUTSIDE_TODAY)
    assert any(v.startswith("object_region: y") for v in today)
    assert any(v.startswith("target_region: y") for v in today)


def test_reach_has_no_areas():
    with pytest.raises(ValueError, match="push/pick_place"):
        task_envelope("reach", object_region=as_lists(WIDE_OBJECT))
    cfg = TrainConfig(task="reach")
    cfg.env.goal_region = WIDE_GOAL
    with pytest.raises(ValueError, match="env.goal_region is a push/pick_place option"):
        evaluation_task_config(cfg)


def test_the_training_config_sets_the_envs_areas():
    data = {"task": "pick_place", "env": {"object_region": as_lists(WIDE_OBJECT)}}
    cfg = TrainConfig.from_dict(data)
    assert cfg.env.object_region == WIDE_OBJECT and cfg.env.goal_region == ()
    assert TrainConfig.from_dict(cfg.to_dict()).env == cfg.env  # YAML round trip
    task_cfg = training_task_config(cfg)
    assert task_cfg.object_xy_range == WIDE_OBJECT
    assert task_cfg.goal_xy_range == pick_place.CONFIG.goal_xy_range
    assert evaluation_task_config(TrainConfig(task="push")) == push.CONFIG  # the default
    assert with_regions(push.CONFIG) is push.CONFIG


@pytest.mark.parametrize(
    "region,words",
    [
        ([0.3, 0.6], "env.object_region must be [[xlo, ylo], [xhi, yhi]]"),
        ([[0.6, -0.2], [0.3, 0.2]], "env.object_region needs xlo < xhi"),
        ("wide", "env.object_region must be"),
    ],
)
def test_a_malformed_training_area_fails_when_the_config_is_read(region, words):
    with pytest.raises(ValueError) as err:
        TrainConfig.from_dict({"task": "push", "env": {"object_region": region}})
    assert words in str(err.value)


def test_export_declares_the_runs_areas_and_evaluates_over_them(tmp_path, monkeypatch):
    runner = push_run(tmp_path / "run", 8, 32, object_region=WIDE_OBJECT, goal_region=WIDE_GOAL)
    assert runner.env.cfg.object_xy_range == WIDE_OBJECT
    assert runner.env.cfg.goal_xy_range == WIDE_GOAL
    calls = stopped_evaluations(monkeypatch, "stop after the episodes' config is known")
    with pytest.raises(RuntimeError, match="stop after"):
        export_run(tmp_path / "run", tmp_path / "evaluated", eval_episodes=2)
    (seen,) = calls
    assert seen["config"].object_xy_range == WIDE_OBJECT
    assert seen["config"].goal_xy_range == WIDE_GOAL
    exported = export_run(tmp_path / "run", tmp_path / "skill", eval_episodes=0)
    envelope = load_card(tmp_path / "skill").envelope
    assert exported.envelope == envelope
    assert (envelope.object_region.low, envelope.object_region.high) == WIDE_OBJECT
    assert (envelope.target_region.low, envelope.target_region.high) == WIDE_GOAL
    # a refreshed envelope reads the areas back from the card's provenance
    refresh_envelope(tmp_path / "skill")
    assert load_card(tmp_path / "skill").envelope == envelope


def test_eval_runs_over_the_cards_areas_unless_told(tmp_path):
    write_card(card("push", object_region=WIDE_OBJECT, goal_region=WIDE_GOAL), tmp_path)
    skill = str(tmp_path)
    assert base.regions_for(skill, "push") == {
        "object_region": WIDE_OBJECT,
        "goal_region": WIDE_GOAL,
    }
    told = base.regions_for(skill, "push", [0.4, -0.1, 0.5, 0.1], None)
    assert told == {"object_region": ((0.4, -0.1), (0.5, 0.1)), "goal_region": WIDE_GOAL}
    default = tmp_path / "default"
    default.mkdir()
    write_card(card("push"), default)
    assert base.regions_for(str(default), "push") == {}
    assert base.regions_for(str(default), "pick_place") == {}
    with pytest.raises(ValueError, match="--object-region is a push/pick_place/turn option"):
        base.regions_for(str(default), "reach", [0.4, -0.1, 0.5, 0.1], None)


def test_eval_passes_the_areas_to_the_episodes(tmp_path, monkeypatch, capsys):
    write_card(card("pick_place", goal_region=WIDE_GOAL), tmp_path)
    calls = stopped_evaluations(monkeypatch, "stop once the episodes are known")
    monkeypatch.setattr(base, "load_any_policy", lambda *a: ("pick_place", None, "fake"))
    with pytest.raises(RuntimeError, match="stop once"):
        base.main([str(tmp_path), "--object-region", "0.3", "-0.3", "0.6", "0.3"])
    (seen,) = calls
    expected = dataclasses.replace(
        pick_place.CONFIG, object_xy_range=((0.3, -0.3), (0.6, 0.3)), goal_xy_range=WIDE_GOAL
    )
    assert seen["config"] == expected


def test_eval_refuses_a_malformed_area_before_any_work(monkeypatch, capsys):
    def forbidden(*args, **kwargs):
        raise AssertionError("work started before the area was checked")

    monkeypatch.setattr(base, "load_any_policy", forbidden)
    monkeypatch.setattr("policies.evaluation.evaluate", forbidden)
    assert base.main(["push", "--goal-region", "0.6", "-0.2", "0.3", "0.2"]) == 2
    assert "--goal-region needs xlo < xhi" in capsys.readouterr().err


def test_the_registry_says_which_tasks_draw_a_cube_and_a_goal_area():
    got = {n: (places_object(sims.get_task(n)), places_goal(sims.get_task(n))) for n in names()}
    assert got["reach"] == (False, False)
    assert got["push"] == got["pick_place"] == (True, True)
    assert got["turn"] == (True, False)  # in place: its goal is the cube's own start


RIGHT_PAD_CUBE = (0.45, -0.25, push.CUBE_REST_Z)
"""A cube on the scene's right pad: inside WIDE_OBJECT, outside turn's default |y| <= 0.20."""


def test_a_turn_card_declares_its_trained_cube_area_for_the_cube_and_its_goal():
    built = card("turn", object_region=as_lists(WIDE_OBJECT))
    envelope = built.envelope
    assert (envelope.object_region.low, envelope.object_region.high) == WIDE_OBJECT
    assert (envelope.target_region.low, envelope.target_region.high) == WIDE_OBJECT
    text = " ".join(built.data["preconditions"])
    assert "within x 0.30-0.65 m, y -0.35-0.35 m" in text
    # turned in place: the goal is the cube's own centre
    assert built.envelope_violations(RIGHT_PAD_CUBE, RIGHT_PAD_CUBE) == []
    today = card("turn").envelope_violations(RIGHT_PAD_CUBE, RIGHT_PAD_CUBE)
    assert any(v.startswith("object_region: y") for v in today)
    with pytest.raises(ValueError, match="goal_region is a push/pick_place option"):
        card("turn", goal_region=as_lists(WIDE_GOAL))


def test_turn_trains_and_is_evaluated_over_its_cube_area_not_a_goal_area(tmp_path):
    data = {"task": "turn", "env": {"object_region": as_lists(WIDE_OBJECT)}}
    task_cfg = training_task_config(TrainConfig.from_dict(data))
    assert task_cfg.object_xy_range == WIDE_OBJECT
    cfg = TrainConfig(task="turn")
    cfg.env.goal_region = WIDE_GOAL
    with pytest.raises(ValueError, match="env.goal_region is a push/pick_place option"):
        evaluation_task_config(cfg)
    write_card(card("turn", object_region=as_lists(WIDE_OBJECT)), tmp_path)
    # the card's target_region is its cube area again: not a goal area of the episodes
    assert base.regions_for(str(tmp_path), "turn") == {"object_region": WIDE_OBJECT}
    told = base.regions_for(str(tmp_path), "turn", [0.4, -0.3, 0.5, -0.2], None)
    assert told == {"object_region": ((0.4, -0.3), (0.5, -0.2))}
    with pytest.raises(ValueError, match="--goal-region is a push/pick_place option"):
        base.regions_for(str(tmp_path), "turn", None, [0.4, -0.3, 0.5, -0.2])
    with pytest.raises(ValueError, match="--goal-distance is a push/pick_place option"):
        base.goal_distance_for(str(tmp_path), "turn", [0.1, 0.2])


def test_turn_episodes_start_their_cubes_in_the_trained_area():
    data = {"task": "turn", "env": {"object_region": [[0.40, -0.30], [0.50, -0.22]]}}
    cfg = TrainConfig.from_dict(data)
    env = make_env(cfg, "numba", 64, training_task_config(cfg))
    obs, _ = env.reset(seed=0)
    cube = obs[:, turn.LAYOUT.slices["object_pos"]]
    assert np.all((cube[:, 0] >= 0.40 - 0.01) & (cube[:, 0] <= 0.50 + 0.01))
    assert np.all((cube[:, 1] >= -0.30 - 0.01) & (cube[:, 1] <= -0.22 + 0.01))  # noise: 2 mm
    goal = obs[:, turn.LAYOUT.slices["goal_pos"]]
    np.testing.assert_allclose(goal[:, :2], cube[:, :2], atol=0.01)  # in place
