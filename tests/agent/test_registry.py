"""Skill registry from skill cards, interface cards and scripted skills."""

import pytest
import yaml

from miles_ros.agent.registry import SkillRegistry
from policies.cards import INTERFACE_KEYS, load_card
from tests.agent.conftest import FIXTURES


def test_registry_loads_cards_and_scripted_home(registry):
    assert registry.names == ["reach", "push", "pick_place", "home"]
    assert registry["push"].source == "card"
    assert registry["home"].source == "scripted"
    assert registry["pick_place"].param_names == ["object", "target"]
    assert "grasps" in registry["pick_place"].permissions
    assert registry["push"].critic is None  # the fixture has no critic.onnx beside it


def test_interface_cards_fill_in_missing_skills_and_real_cards_win(tmp_path):
    card = yaml.safe_load((FIXTURES / "skills" / "push" / "skill.yaml").read_text())
    card["description"] = "the trained push"
    (tmp_path / "push").mkdir()
    (tmp_path / "push" / "skill.yaml").write_text(yaml.safe_dump(card))
    reg = SkillRegistry.load([tmp_path])
    assert reg.names == ["reach", "push", "pick_place", "turn", "home"]
    assert reg["push"].source == "card" and reg["push"].description == "the trained push"
    assert reg["reach"].source == "interface" and reg["turn"].source == "interface"
    assert reg["turn"].param_names == ["object", "angle"]
    assert reg["turn"].permissions == ("moves_arm", "contact")
    assert reg["turn"].validate({"object": "red_cube", "angle": -30}) == []
    assert reg["turn"].validate({"object": "red_cube", "angle": "face_robot"}) == []
    assert reg["turn"].validate({"object": "red_cube", "angle": "sideways"})
    assert reg["turn"].validate({"object": "red_cube"})  # angle missing


def test_bad_cards_are_rejected_with_the_reason(tmp_path):
    path = tmp_path / "skill.yaml"
    path.write_text(yaml.safe_dump({"name": "x", "description": "d"}))
    with pytest.raises(ValueError, match="missing keys"):
        load_card(path, required=INTERFACE_KEYS)
    path.write_text(
        yaml.safe_dump({"name": "x", "description": "d", "parameters": {"type": "nonsense"}})
    )
    with pytest.raises(ValueError, match="not a JSON schema"):
        load_card(path, required=INTERFACE_KEYS)


def test_parameter_schema_validation(registry):
    assert registry["push"].validate({"object": "red_cube", "target": "left_pad"}) == []
    assert registry["push"].validate({"object": "red_cube", "target": [0.5, 0.0, 0.02]}) == []
    assert registry["push"].validate({"object": "red_cube"})  # target missing
    assert registry["push"].validate({"object": "purple_cube", "target": "left_pad"})
    assert registry["home"].validate({"speed": 1})  # no parameters allowed
    assert registry["reach"].validate({"target": [0.5, 0.1]})  # a 2-vector


def test_registry_signature_changes_with_skills(registry):
    other = SkillRegistry([s for s in registry if s.name != "home"])
    assert other.signature() != registry.signature()
