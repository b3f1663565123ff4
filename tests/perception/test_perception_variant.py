"""bench/perception_variant.py: its settings parsed into a PerceptionConfig, the closed
loop's perception made with them, and ``--record`` refused."""

import pytest

from bench import perception_variant as variant
from miles_ros.perception import DetectConfig, PerceptionConfig, closed_loop
from sims.scene import load_scene


def test_settings_are_parsed_into_the_configs_fields():
    got = variant.parse_settings(
        ["held_hidden_across_weight=0.43", "held_yaw_from_opening=true", "forget_after_s=5"]
    )
    assert got == {
        "held_hidden_across_weight": 0.43,
        "held_yaw_from_opening": True,
        "forget_after_s": 5.0,
    }
    assert variant.parse_settings(["held_hidden_across_weight=None"]) == {
        "held_hidden_across_weight": None
    }
    got = variant.parse_settings(["detect.tilted_top_min_deg=5", "min_coverage=0.4"])
    assert got == {"min_coverage": 0.4, "detect": DetectConfig(tilted_top_min_deg=5.0)}
    assert PerceptionConfig(**got).detect.tilted_top_min_deg == 5.0
    for bad in (
        "no_such_field=1",
        "held_yaw_from_opening",
        "min_coverage=lots",
        "detect=1",
        "detect.no_such_field=1",
    ):
        with pytest.raises(ValueError):
            variant.parse_settings([bad])


def test_the_closed_loops_perception_is_made_with_the_variant(monkeypatch):
    monkeypatch.setattr(closed_loop, "Perception", closed_loop.Perception)  # restored after
    config = PerceptionConfig(held_hidden_across_weight=0.43)
    variant.use_config(config)
    scene = load_scene()
    assert closed_loop.Perception(scene, scene.camera.pose).config is config


def test_a_variant_never_records_and_needs_the_eval_arguments(capsys):
    assert variant.main(["held_yaw_from_opening=true", "--", "pick_place", "--record"]) == 2
    assert "--record refused" in capsys.readouterr().err
    assert variant.main(["held_yaw_from_opening=true"]) == 2
    assert variant.main(["bogus=1", "--", "pick_place"]) == 2
