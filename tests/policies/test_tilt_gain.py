"""``env.ik_tilt_gain`` (the IK's tool levelling, :func:`sims.kernels.kinematics.level_step`)
reaches the run's envs, the exported card's action block, the skill node's config and
``miles eval``'s episodes; the default keeps today's cards; a task without Cartesian actions
or a gain outside (0, 1] is refused before any work."""

import dataclasses

import pytest

from miles_ros.runtime.library import card_config
from policies.card_content import build_card
from policies.cards import SkillCard, load_card, write_card
from policies.commands import evaluate as base
from policies.ppo.config import TrainConfig
from policies.ppo.envs import evaluation_task_config, training_task_config
from sims.tasks import pick_place, push


def test_the_training_config_sets_the_envs_gain():
    cfg = TrainConfig.from_dict({"task": "push", "env": {"ik_tilt_gain": 0.3}})
    assert evaluation_task_config(cfg).ik_tilt_gain == 0.3
    assert training_task_config(cfg).ik_tilt_gain == 0.3
    assert evaluation_task_config(TrainConfig.from_dict({"task": "push"})).ik_tilt_gain == 0.0


@pytest.mark.parametrize(("task", "gain"), [("reach", 0.3), ("push", 1.5), ("pick_place", -0.1)])
def test_a_bad_gain_or_a_joint_space_task_is_refused_when_the_config_loads(task, gain):
    with pytest.raises(ValueError, match="env.ik_tilt_gain"):
        TrainConfig.from_dict({"task": task, "env": {"ik_tilt_gain": gain}})


@pytest.mark.parametrize("module", [push, pick_place])
def test_the_card_records_the_gain_and_the_skill_node_applies_it(module, tmp_path):
    task = module.CONFIG.name
    plain = build_card(task, task, {}, {"task": task}, {"episodes": 0})
    assert plain.action["scale"]["ik_tilt_gain"] == 0.0
    assert card_config(module, plain) == module.CONFIG  # today's cards: nothing changes
    level = build_card(
        task, task, {}, {"task": task}, {"episodes": 0}, levelling={"ik_tilt_gain": 0.3}
    )
    assert level.action["scale"]["ik_tilt_gain"] == 0.3
    assert "null space" in level.action["meaning"]
    assert card_config(module, level) == dataclasses.replace(module.CONFIG, ik_tilt_gain=0.3)
    # A card written before the key existed keeps the plain IK.
    data = level.to_dict()
    del data["action"]["scale"]["ik_tilt_gain"]
    assert SkillCard.from_dict(data).task_config() == module.CONFIG
    # miles eval runs the card's episodes with its gain.
    write_card(level, tmp_path)
    config, _ = base.episode_config(str(tmp_path), task)
    assert config.ik_tilt_gain == 0.3
    assert load_card(tmp_path).task_config().ik_tilt_gain == 0.3


def test_the_allowance_reaches_the_envs_and_the_card():
    env = {"ik_tilt_gain": 0.3, "ik_tilt_allowance_deg": 25}
    cfg = TrainConfig.from_dict({"task": "push", "env": env})
    assert training_task_config(cfg).ik_tilt_allowance_deg == 25.0
    assert evaluation_task_config(cfg).ik_tilt_allowance_deg == 25.0
    card = build_card("push", "push", {}, {"task": "push"}, {"episodes": 0}, levelling=env)
    assert card.action["scale"]["ik_tilt_allowance_deg"] == 25
    assert "ik_tilt_allowance_deg" in card.action["meaning"]
    expected = dataclasses.replace(push.CONFIG, ik_tilt_gain=0.3, ik_tilt_allowance_deg=25.0)
    assert card_config(push, card) == expected
    # a card without levelling does not carry the allowance
    plain = build_card("push", "push", {}, {"task": "push"}, {"episodes": 0})
    assert "ik_tilt_allowance_deg" not in plain.action["scale"]


@pytest.mark.parametrize(
    ("env", "match"),
    [
        ({"ik_tilt_allowance_deg": 20}, "needs env.ik_tilt_gain"),
        ({"ik_tilt_gain": 0.3, "ik_tilt_allowance_deg": 90}, r"\[0, 90\)"),
        ({"ik_tilt_gain": 0.3, "ik_tilt_allowance_deg": -5}, r"\[0, 90\)"),
    ],
)
def test_a_bad_allowance_is_refused_when_the_config_loads(env, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig.from_dict({"task": "push", "env": env})
