"""Training on towers: ``env.tower_fraction`` turns a share of a PyBullet stage's stacking
episodes into tower episodes (the third level); the recipes (config/train/pick_place-tower.yaml
then pick_place-tower-more.yaml, from version 1; pick_place-tower-plain.yaml and
pick_place-tower-plain2.yaml, from version 2) fine-tune pick_place with it, part of their
envs on the plain arm; config/train/pick_place-towers-scratch.yaml is the shipped recipe with
towers in its PyBullet stage, and pick_place-towers-label.yaml the same with its augmented
states labelled by the expert (imitation.label_augmented); pick_place-tower-clean.yaml is
pick_place-tower-more.yaml from version 2 with a quarter of its envs rolled as the evaluation
runs the student (imitation.clean_fraction) and its augmented states labelled."""

import re
from pathlib import Path

import pytest
import yaml

from policies.ppo.config import TrainConfig
from policies.ppo.envs import evaluation_task_config

RECIPES = (
    Path("config/train/pick_place-tower.yaml"),
    Path("config/train/pick_place-tower-more.yaml"),
    Path("config/train/pick_place-tower-plain.yaml"),
    Path("config/train/pick_place-tower-plain2.yaml"),
    Path("config/train/pick_place-tower-clean.yaml"),
    Path("config/train/pick_place-tower-release.yaml"),
)
LIBRARY = Path("policies/skills/pick_place/versions")
SHIPPED = Path("config/train/pick_place.yaml")
SCRATCH = Path("config/train/pick_place-towers-scratch.yaml")
LABEL = Path("config/train/pick_place-towers-label.yaml")
MORE = Path("config/train/pick_place-tower-more.yaml")
CLEAN = Path("config/train/pick_place-tower-clean.yaml")
RELEASE = Path("config/train/pick_place-tower-release.yaml")


def _config(**env) -> TrainConfig:
    return TrainConfig.from_dict({"task": "pick_place", "backend": "pybullet", "env": env})


LABELLED = {"label_augmented": (False, True), "augment_guard": ("first_reset", "buffer")}
"""The ``imitation`` changes of a recipe whose augmented states are labelled: name ->
(the base recipe's value, the labelled one's)."""


def _differ_in_imitation(base: dict, derived: dict, changes: dict[str, tuple]) -> None:
    """``derived`` (a config's ``to_dict``) is ``base`` but for ``changes``: ``imitation``
    field name -> (base's value, derived's value), types included (``True``, not 1)."""
    for name, expected in changes.items():
        got = (base["imitation"].pop(name), derived["imitation"].pop(name))
        assert got == expected and list(map(type, got)) == list(map(type, expected)), name
    assert derived == base


def test_tower_fraction_reaches_the_task_config():
    task_cfg = evaluation_task_config(_config(stack_fraction=0.5, tower_fraction=0.25))
    assert (task_cfg.stack_fraction, task_cfg.tower_fraction) == (0.5, 0.25)
    assert evaluation_task_config(_config(stack_fraction=0.5)).tower_fraction == 0.0


@pytest.mark.parametrize(
    "env", [{"tower_fraction": 0.5}, {"stack_fraction": 0.5, "tower_fraction": 2.0}]
)
def test_tower_fraction_without_stacking_or_out_of_range_is_refused_by_name(env):
    with pytest.raises(ValueError, match="env.tower_fraction is a share in .0, 1. of env.stack"):
        evaluation_task_config(_config(**env))


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.name)
def test_the_tower_recipe_fine_tunes_on_pybullet_with_towers_and_says_how(recipe):
    text = recipe.read_text()
    versions = re.findall(r"--init-from policies/skills/pick_place/versions/(\d+)", text)
    assert versions, "a recipe says which library version it fine-tunes"
    assert all((LIBRARY / v / "skill.yaml").is_file() for v in versions)
    assert f"--config {recipe}" in text
    cfg = TrainConfig.from_dict(yaml.safe_load(text))
    assert cfg.task == "pick_place" and cfg.backend == "pybullet"
    assert cfg.env.motor_filter == "safety_supervisor"
    # some envs on PyBullet's plain arm, so plain pads are rehearsed with the towers
    assert round(cfg.env.plain_fraction * cfg.runner.num_envs) >= 1
    assert cfg.env.plain_fraction < 1.0
    task_cfg = evaluation_task_config(cfg)
    assert 0.0 < task_cfg.tower_fraction < 1.0 and 0.0 < task_cfg.stack_fraction < 1.0


def test_the_scratch_recipe_is_the_shipped_one_with_towers_in_its_pybullet_stage():
    from miles_ros.runtime.supervised import MOTOR_FILTERS
    from policies.ppo.stage_config import parse_staged_config

    text = SCRATCH.read_text()
    assert f"--config {SCRATCH}" in text
    shipped = parse_staged_config(yaml.safe_load(SHIPPED.read_text()), str(SHIPPED), MOTOR_FILTERS)
    scratch = parse_staged_config(yaml.safe_load(text), str(SCRATCH), MOTOR_FILTERS)
    assert [(s.name, s.backend, s.steps) for s in scratch.stages] == [
        (s.name, s.backend, s.steps) for s in shipped.stages
    ]
    towers = {"stack_fraction", "tower_fraction"}
    for i, stage in enumerate(scratch.stages):
        ours, theirs = scratch.stage_config(i).to_dict(), shipped.stage_config(i).to_dict()
        assert {k: v for k, v in ours["env"].items() if k not in towers} == {
            k: v for k, v in theirs["env"].items() if k not in towers
        }
        assert {k: v for k, v in ours.items() if k != "env"} == {
            k: v for k, v in theirs.items() if k != "env"
        }
        task_cfg = evaluation_task_config(scratch.stage_config(i))
        if stage.backend == "pybullet":
            assert 0.0 < task_cfg.tower_fraction < 1.0 and 0.0 < task_cfg.stack_fraction < 1.0
        else:  # one cube in the numba kernels: no stacking to put a tower in
            assert task_cfg.tower_fraction == 0.0 == task_cfg.stack_fraction


def test_the_label_recipe_is_the_scratch_one_with_its_augmented_states_labelled():
    from miles_ros.runtime.supervised import MOTOR_FILTERS
    from policies.ppo.stage_config import parse_staged_config

    text = LABEL.read_text()
    assert f"--config {LABEL}" in text
    scratch = parse_staged_config(yaml.safe_load(SCRATCH.read_text()), str(SCRATCH), MOTOR_FILTERS)
    label = parse_staged_config(yaml.safe_load(text), str(LABEL), MOTOR_FILTERS)
    assert len(label.stages) == len(scratch.stages)
    for i in range(len(label.stages)):
        ours, theirs = label.stage_config(i).to_dict(), scratch.stage_config(i).to_dict()
        assert ours["imitation"]["augment_fields"] == ["joint_vel"]  # the augmentation kept
        # the scratch recipe keeps the first-reset check its run had (config.augment_guard)
        _differ_in_imitation(theirs, ours, LABELLED)


@pytest.mark.parametrize(
    "base, derived, changes",
    [
        # clean: a quarter of the envs rolled as the evaluation runs the student
        (MORE, CLEAN, {"clean_fraction": (0.0, 0.25), **LABELLED}),
        # release: the release steps weighed
        (CLEAN, RELEASE, {"focus_weight": (1.0, 4.0)}),
    ],
    ids=["clean-is-more", "release-is-clean"],
)
def test_a_recipe_is_its_base_but_for_its_imitation_changes(base, derived, changes):
    base_cfg = TrainConfig.from_dict(yaml.safe_load(base.read_text())).to_dict()
    derived_cfg = TrainConfig.from_dict(yaml.safe_load(derived.read_text())).to_dict()
    _differ_in_imitation(base_cfg, derived_cfg, changes)
