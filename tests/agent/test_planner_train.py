"""`miles planner-train` end to end on a tiny budget."""

import pytest
import yaml

from miles_ros.agent.datagen import GENERATOR_VERSION, generate
from miles_ros.agent.grounding import step_text


def test_generator_is_deterministic_and_covers_the_contrasts(world):
    a = generate(world, 3000, seed=5)
    b = generate(world, 3000, seed=5)
    assert [(e.goal, [step_text(s) for s in e.steps]) for e in a] == [
        (e.goal, [step_text(s) for s in e.steps]) for e in b
    ]
    goals = " ".join(e.goal.lower() for e in a)
    for phrase in (
        "by pushing it",
        "without lifting it",
        "by picking it up",
        "the red one",
        "please",
        "stack",
        "home",
    ):
        assert phrase in goals, phrase
    assert {len(e.steps) for e in a} == {1, 2, 3}
    assert any(isinstance(s.params.get("target"), list) for e in a for s in e.steps)
    # manner words decide the skill
    for e in a:
        if len(e.steps) == 1 and "without lifting" in e.goal.lower():
            assert e.steps[0].skill == "push", e.goal
        if len(e.steps) == 1 and "by picking it up" in e.goal.lower():
            assert e.steps[0].skill == "pick_place", e.goal


@pytest.mark.slow  # ~20 s: loads the planner's model, trains 2 steps, plans 3 goals
def test_planner_train_tiny_end_to_end(tmp_path, capsys):
    pytest.importorskip("peft")
    from miles_ros.commands import planner_train

    out = tmp_path / "adapter"
    skills = tmp_path / "no_trained_skills"  # interface cards only: independent of
    skills.mkdir()  # whichever trained cards are in policies/skills right now
    rc = planner_train.main(
        ["--tiny", "--out", str(out), "--threads", "1", "--skills", str(skills)]
    )
    assert rc == 0
    assert (out / "adapter_model.safetensors").exists()
    assert (out / "adapter_config.json").exists()
    card = yaml.safe_load((out / "adapter_card.yaml").read_text())
    assert card["generator_version"] == GENERATOR_VERSION
    assert card["steps_done"] == 2 and card["seed"] == 0
    assert card["wall_time_s"] > 0 and card["skills"] == [
        "reach",
        "push",
        "pick_place",
        "turn",
        "home",
    ]
    evaluation = card["evaluation"]
    assert evaluation["n_goals"] == 3 and 0.0 <= evaluation["accuracy"] <= 1.0
    assert "adapter written" in capsys.readouterr().out
