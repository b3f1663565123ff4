"""The skills shipped in policies/skills/: each active version's card validates against its
files and task."""

from pathlib import Path

import jsonschema
import numpy as np
import pytest

import sims
from policies.card_content import build_card
from policies.cards import REQUIRED_KEYS, load_card, validate_card
from policies.library import library_skills
from policies.runtime import SkillPolicy

SKILLS_DIR = Path(__file__).resolve().parents[2] / "policies" / "skills"
SHIPPED = [p.name for p in library_skills(SKILLS_DIR)]


def test_reach_is_shipped():
    assert "reach" in SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_card_matches_files_and_task(name):
    card = validate_card(SKILLS_DIR / name).to_dict()  # sha256 of both files, dims, layout
    assert set(REQUIRED_KEYS) <= set(card)
    task = sims.get_task(card["task"])
    assert card["observation"]["dim"] == task.LAYOUT.dim
    assert card["observation"]["layout"] == task.LAYOUT.describe()
    assert card["action"]["dim"] == task.CONFIG.action_dim
    assert card["action"]["mode"] == task.CONFIG.action_mode
    assert card["episode_steps"] == task.CONFIG.episode_steps
    assert card["control_rate_hz"] == pytest.approx(1.0 / task.CONFIG.control_dt)
    ev = card["evaluation"]
    assert ev["backend"] == "pybullet" and ev["episodes"] >= 200
    assert 0.0 <= ev["ci95"][0] <= ev["success_rate"] <= ev["ci95"][1] <= 1.0
    prov = card["provenance"]
    assert prov["command"].startswith(f"miles train {card['task']}")
    assert prov["steps"] > 0 and prov["git_commit"]
    jsonschema.Draft202012Validator.check_schema(card["parameters"])


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_skill_acts_on_its_task_observations(name):
    policy = SkillPolicy(SKILLS_DIR / name)
    env = sims.make_env(policy.task, "numba", num_envs=4)
    # a card that has the cell measure its finger offset measures it first, as miles eval
    assert set(policy.calibrate(env)) == set(policy.measures)
    obs, _ = env.reset(seed=0)
    actions = policy.act(obs)
    assert actions.shape == (4, policy.action_dim)
    assert np.all(np.isfinite(actions)) and np.all(np.abs(actions) <= 1.0)
    assert np.all(np.isfinite(policy.value(obs)))


@pytest.mark.parametrize("name", SHIPPED)
def test_envelope_block_is_what_build_card_writes(name):
    """The block and the preconditions in words are the sampling ranges the skill was
    trained on: the task module's, or its training config's (``env.goal_distance``,
    ``object_region``, ``goal_region``, kept in the card's provenance); refresh with
    ``python -m policies.card_content refresh-envelope DIR``."""
    card = load_card(SKILLS_DIR / name)
    trained = (card.provenance or {}).get("training_noise") or {}  # the run's env block
    built = build_card(
        card.name,
        str(card.task),
        card.sha256,
        card.provenance,
        card.evaluation,
        goal_distance=trained.get("goal_distance"),
        object_region=trained.get("object_region"),
        goal_region=trained.get("goal_region"),
    )
    assert card.to_dict()["envelope"] == built.to_dict()["envelope"]
    assert card.envelope == built.envelope
    assert card.preconditions == built.preconditions
    keys = list(card.to_dict())
    assert keys.index("envelope") == keys.index("preconditions") + 1
