"""Scenes with several arms (``arms:``, config/scene_dual.yaml): the dual cell loads, a
scene without ``arms:`` is the single-arm default exactly as before, bad arm lists are
refused with a reason."""

import math
from pathlib import Path

import pytest
import yaml

from sims.scene import SINGLE_ARM, ArmMount, default_scene_path, load_scene

DUAL = Path(__file__).resolve().parents[2] / "config" / "scene_dual.yaml"


def test_the_default_scene_has_one_unnamed_arm_at_the_origin():
    scene = load_scene()
    assert scene.arms == (SINGLE_ARM,)
    assert not scene.multi_arm
    assert scene.arm("") == SINGLE_ARM
    assert SINGLE_ARM.base_position == (0.0, 0.0, 0.0) and SINGLE_ARM.base_yaw == 0.0
    assert scene.objects["red_cube"].position == (0.45, -0.1, 0.02)  # unchanged coordinates


def test_the_dual_scene_holds_two_arms_facing_each_other_across_the_table():
    scene = load_scene(DUAL)
    assert scene.multi_arm
    assert [m.name for m in scene.arms] == ["left_arm", "right_arm"]
    left, right = scene.arm("left_arm"), scene.arm("right_arm")
    assert left.base_position == (0.0, 0.55, 0.0) and right.base_position == (0.0, -0.55, 0.0)
    assert left.base_yaw == pytest.approx(-math.pi / 2)
    assert right.base_yaw == pytest.approx(math.pi / 2)
    for mount in scene.arms:  # each base's x axis points at the table's centre
        cx, cy = scene.table.center_xy
        to_center = (cx - mount.base_position[0], cy - mount.base_position[1])
        heading = (math.cos(mount.base_yaw), math.sin(mount.base_yaw))
        assert heading[0] * to_center[0] + heading[1] * to_center[1] == pytest.approx(
            math.hypot(*to_center)
        )
    assert list(scene.objects) == ["red_cube", "green_cube", "blue_cube"]
    assert list(scene.places) == ["left_pad", "right_pad"]
    sx, sy, _ = scene.table.size
    for name in [*scene.objects, *scene.places]:  # on the table, between the bases
        x, y, _ = scene.position_of(name)
        assert abs(x) < sx / 2 and right.base_position[1] < y < left.base_position[1], name
    with pytest.raises(KeyError, match="left_arm"):
        scene.arm("middle_arm")


def _write(tmp_path, arms) -> Path:
    data = yaml.safe_load(default_scene_path().read_text())
    data["arms"] = arms
    path = tmp_path / "arms.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_arms_in_file_order_with_yaw_in_degrees(tmp_path):
    arms = [
        {"name": "a", "base_position": [0, 0, 0]},
        {"name": "b", "base_position": [1.0, 0.0, 0.1], "base_yaw_deg": 180},
    ]
    scene = load_scene(_write(tmp_path, arms))
    assert scene.arms == (
        ArmMount("a", (0.0, 0.0, 0.0), 0.0),
        ArmMount("b", (1.0, 0.0, 0.1), math.pi),
    )


@pytest.mark.parametrize(
    "arms, message",
    [
        ([], "non-empty list"),
        ({"name": "a"}, "non-empty list"),
        (["left_arm"], r"arms\[0\]: expected a mapping"),
        ([{"name": "a", "base_position": [0, 0, 0], "yaw": 3}], "unknown keys"),
        ([{"base_position": [0, 0, 0]}], r"arms\[0\].name"),
        ([{"name": "left arm", "base_position": [0, 0, 0]}], "ROS namespace"),
        ([{"name": "/left", "base_position": [0, 0, 0]}], "ROS namespace"),
        ([{"name": "a", "base_position": [0, 0]}], r"arms\[0\].base_position"),
        ([{"name": "a", "base_position": [0, "x", 0]}], "base_position: expected numbers"),
        ([{"name": "a", "base_position": [0, float("nan"), 0]}], "finite"),
        ([{"name": "a", "base_position": [0, 0, 0], "base_yaw_deg": "left"}], "base_yaw_deg"),
        ([{"name": "a", "base_position": [0, 0, 0], "base_yaw_deg": float("inf")}], "finite"),
        ([{"name": "a", "base_position": [0, 0, 0], "base_yaw_deg": True}], "base_yaw_deg"),
        (
            [{"name": "a", "base_position": [0, 0, 0]}, {"name": "a", "base_position": [1, 0, 0]}],
            "'a' used twice",
        ),
        (
            [
                {"name": "a", "base_position": [0, 0, 0]},
                {"name": "b", "base_position": [0.1, 0, 0]},
            ],
            "bases of 'a' and 'b' are 0.100 m apart",
        ),
    ],
)
def test_bad_arm_lists_name_the_problem(tmp_path, arms, message):
    with pytest.raises(ValueError, match=message):
        load_scene(_write(tmp_path, arms))
