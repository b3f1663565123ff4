"""A push/pick_place card declares the cube-goal distances its policy was trained on (the
training config's ``env.goal_distance``), and the default scene lies inside what the push
training config covers."""

import math

import pytest
import yaml

from policies.card_content import build_card, preconditions, refresh_envelope, task_envelope
from policies.cards import load_card, write_card
from policies.commands.evaluate import goal_distance_for
from policies.ppo.stages import parse_staged_config
from sims.scene import load_scene
from sims.tasks import pick_place, push

PUSH_CONFIG = "config/train/push.yaml"
PICK_PLACE_CONFIG = "config/train/pick_place.yaml"


def card(task, goal_distance=None, provenance=None):
    return build_card(
        task, task, {}, provenance or {"task": task}, {"episodes": 0}, goal_distance=goal_distance
    )


@pytest.mark.parametrize("module", [push, pick_place])
def test_without_a_training_range_the_card_keeps_the_tasks_default(module):
    name = module.CONFIG.name
    distance = card(name).envelope.object_target_distance_xy
    assert (distance.min, distance.max) == module.GOAL_DISTANCE_RANGE
    text = " ".join(preconditions(name))
    assert "0.10-0.25 m from the cube" in text and "{distance}" not in text


@pytest.mark.parametrize("task", ["push", "pick_place"])
def test_the_card_declares_the_trained_range(task):
    built = card(task, [0.1, 0.45])
    distance = built.envelope.object_target_distance_xy
    assert (distance.min, distance.max) == (0.1, 0.45)
    assert any("0.10-0.45 m from the cube" in line for line in built.data["preconditions"])
    assert task_envelope(task, (0.1, 0.45))["object_target_distance_xy"] == {
        "min": 0.1,
        "max": 0.45,
    }


def test_refresh_keeps_the_trained_range(tmp_path):
    provenance = {"task": "push", "training_noise": {"goal_distance": [0.1, 0.45]}}
    path = write_card(card("push", [0.1, 0.45], provenance), tmp_path)
    refresh_envelope(path)
    distance = load_card(path).envelope.object_target_distance_xy
    assert (distance.min, distance.max) == (0.1, 0.45)


def test_eval_uses_the_cards_range_unless_told(tmp_path):
    write_card(card("push", [0.1, 0.45]), tmp_path)
    assert goal_distance_for(str(tmp_path), "push", None) == (0.1, 0.45)
    assert goal_distance_for(str(tmp_path), "push", [0.3, 0.43]) == (0.3, 0.43)
    default = tmp_path / "default"
    default.mkdir()
    write_card(card("push"), default)
    assert goal_distance_for(str(default), "push", None) is None
    with pytest.raises(ValueError, match="push/pick_place"):
        goal_distance_for(str(default), "reach", [0.1, 0.2])


def scene_pairs():
    scene = load_scene()
    for cube, obj in scene.objects.items():
        for pad, place in scene.places.items():
            yield cube, pad, obj.position, place.position


@pytest.mark.parametrize("path", [PUSH_CONFIG, PICK_PLACE_CONFIG])
def test_the_training_configs_cover_every_scene_pair(path):
    data = yaml.safe_load(open(path))
    from miles_ros.runtime.supervised import MOTOR_FILTERS

    staged = parse_staged_config(data, path, MOTOR_FILTERS)
    for index in range(len(staged.stages)):
        lo, hi = staged.stage_config(index).env.goal_distance
        for cube, pad, cube_pos, pad_pos in scene_pairs():
            gap = math.dist(cube_pos[:2], pad_pos[:2])
            assert lo <= gap <= hi, (cube, pad, gap)
    # it ends on the arm the robot really is: the supervisor itself, with command latency
    last = staged.stage_config(len(staged.stages) - 1).env
    assert last.motor_filter == "safety_supervisor" and last.action_latency_steps >= 1
    assert any(staged.stage_config(i).env.actuator == "panda" for i in range(len(staged.stages)))


@pytest.mark.parametrize("task", ["push", "pick_place"])
def test_the_envelope_regions_hold_the_scenes_cubes_and_pads(task):
    envelope = task_envelope(task, (0.1, 0.45))
    obj, target = envelope["object_region"], envelope["target_region"]
    for _, _, cube_pos, pad_pos in scene_pairs():
        for axis in range(2):
            assert obj["low"][axis] <= cube_pos[axis] <= obj["high"][axis]
            assert target["low"][axis] <= pad_pos[axis] <= target["high"][axis]
