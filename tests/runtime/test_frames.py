"""World frame <-> an arm's base frame (miles_ros.runtime.frames): hand-worked values,
round trips and yaw, the identity for the single arm, and the dual cell as each arm sees
it (inside the region its skills were trained for)."""

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.runtime.frames import (
    base_to_world,
    poses_to_base,
    scene_in_base_frame,
    world_to_base,
    wrap_angle,
    yaw_base_to_world,
    yaw_world_to_base,
)
from miles_ros.runtime.observation import ObjectPose
from policies.cards import card_path, load_card, skill_library
from sims.scene import SINGLE_ARM, ArmMount, load_scene

DUAL = Path(__file__).resolve().parents[2] / "config" / "scene_dual.yaml"
LEFT = ArmMount("left_arm", (0.0, 0.55, 0.0), -math.pi / 2)
RIGHT = ArmMount("right_arm", (0.0, -0.55, 0.0), math.pi / 2)

coordinate = st.floats(-3.0, 3.0, allow_nan=False)
angle = st.floats(-10.0, 10.0, allow_nan=False)
mounts = st.builds(ArmMount, st.just("arm"), st.tuples(coordinate, coordinate, coordinate), angle)


def test_hand_worked_points():
    # left_arm at y = +0.55 faces -y: the table centre is 0.55 m straight ahead of it.
    np.testing.assert_allclose(
        world_to_base(LEFT, [0.0, 0.0, 0.02]), [0.55, 0.0, 0.02], atol=1e-12
    )
    # a point on the world's +x side is on the left arm's left (+y base) ...
    np.testing.assert_allclose(world_to_base(LEFT, [0.2, 0.55, 0.0]), [0.0, 0.2, 0.0], atol=1e-12)
    # ... and on the right arm's right (-y base).
    np.testing.assert_allclose(
        world_to_base(RIGHT, [0.2, -0.55, 0.0]), [0.0, -0.2, 0.0], atol=1e-12
    )
    np.testing.assert_allclose(base_to_world(RIGHT, [0.55, 0.0, 0.1]), [0.0, 0.0, 0.1], atol=1e-12)
    batch = world_to_base(LEFT, [[0.0, 0.0, 0.0], [0.1, 0.45, 0.3]])
    np.testing.assert_allclose(batch, [[0.55, 0.0, 0.0], [0.1, 0.1, 0.3]], atol=1e-12)


def test_yaw_hand_worked_and_wrapped():
    assert yaw_world_to_base(LEFT, 0.0) == pytest.approx(math.pi / 2)
    assert yaw_world_to_base(RIGHT, 0.0) == pytest.approx(-math.pi / 2)
    assert yaw_world_to_base(RIGHT, -math.pi / 2) == pytest.approx(-math.pi)  # wrapped
    assert yaw_base_to_world(LEFT, math.pi / 2) == pytest.approx(0.0, abs=1e-12)


def test_bad_points_are_refused():
    with pytest.raises(ValueError, match="3 coordinates"):
        world_to_base(LEFT, [0.0, 1.0])
    with pytest.raises(ValueError, match="3 coordinates"):
        base_to_world(LEFT, [[0.0, 1.0, 2.0, 3.0]])


@settings(max_examples=200, deadline=None)
@given(mounts, st.tuples(coordinate, coordinate, coordinate), angle)
def test_round_trips_keep_points_distances_and_yaws(mount, point, yaw):
    p = np.array(point)
    there = world_to_base(mount, p)
    np.testing.assert_allclose(base_to_world(mount, there), p, atol=1e-9)
    np.testing.assert_allclose(world_to_base(mount, base_to_world(mount, p)), p, atol=1e-9)
    # a rigid motion: distance to the base kept, height only shifted
    base = np.asarray(mount.base_position)
    assert np.linalg.norm(there) == pytest.approx(np.linalg.norm(p - base), abs=1e-9)
    assert there[2] == pytest.approx(p[2] - base[2], abs=1e-12)
    back = yaw_base_to_world(mount, yaw_world_to_base(mount, yaw))
    assert abs(wrap_angle(back - yaw)) < 1e-9
    # a heading turns with the points: the direction of yaw in the world, seen from the
    # base, is the direction of the transformed yaw
    d_world = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    d_base = world_to_base(mount, base + d_world) - world_to_base(mount, base)
    b = yaw_world_to_base(mount, yaw)
    np.testing.assert_allclose(d_base, [math.cos(b), math.sin(b), 0.0], atol=1e-9)


def test_the_single_arm_sees_the_world_unchanged():
    scene = load_scene()
    assert scene_in_base_frame(scene, SINGLE_ARM) is scene
    poses = {"red_cube": ObjectPose(np.array([0.45, -0.1, 0.02]), 0.3)}
    assert poses_to_base(SINGLE_ARM, poses) == poses


def test_object_poses_in_an_arms_base_frame():
    poses = {"cube": ObjectPose(np.array([0.12, -0.02, 0.02]), 0.25)}
    seen = poses_to_base(RIGHT, poses)["cube"]
    np.testing.assert_allclose(seen.position, [0.53, -0.12, 0.02], atol=1e-12)
    assert seen.yaw == pytest.approx(0.25 - math.pi / 2)


MARGIN = 0.02
"""How far (m) every cube and pad of the dual scene lies inside the cards' regions."""


def _inside(region, point, margin: float) -> bool:
    low, high = np.asarray(region.low[:2]), np.asarray(region.high[:2])
    return bool(np.all(low + margin <= point[:2]) and np.all(point[:2] <= high - margin))


def test_each_dual_arm_sees_the_cell_inside_its_skills_trained_regions():
    scene = load_scene(DUAL)
    seen = {m.name: scene_in_base_frame(scene, m) for m in scene.arms}
    cards = {}
    for name in ("push", "pick_place"):
        path = card_path(skill_library() / name)
        card = load_card(path) if path.exists() else None
        if card is None or card.envelope is None or card.envelope.object_region is None:
            pytest.skip(f"needs the shipped {name} card with its envelope")
        cards[name] = card.envelope
    for name, view in seen.items():
        for env in cards.values():
            for obj in view.objects.values():
                assert _inside(env.object_region, obj.position, MARGIN), (name, obj)
            for place in view.places.values():
                assert _inside(env.target_region, place.position, MARGIN), (name, place)
        for obj in view.objects.values():
            assert obj.position[2] == pytest.approx(scene.cube_size / 2)
        # the table turned by 90 degrees: its extent swaps, the base stands on it
        assert view.table.size == (scene.table.size[1], scene.table.size[0], scene.table.size[2])
        cx, cy = view.table.center_xy
        sx, sy, _ = view.table.size
        assert abs(cx) < sx / 2 and abs(cy) < sy / 2
    # point symmetry: the left arm sees red cube and left pad as the right arm sees blue
    # cube and right pad (so a skill measured on one arm holds for the other)
    left, right = seen["left_arm"], seen["right_arm"]
    for a, b in (("red_cube", "blue_cube"), ("green_cube", "green_cube")):
        np.testing.assert_allclose(left.objects[a].position, right.objects[b].position, atol=1e-9)
    np.testing.assert_allclose(
        left.places["left_pad"].position, right.places["right_pad"].position, atol=1e-9
    )
    assert left.arms == scene.arms  # the mounts stay in the world frame
    # each arm's own task and green to either pad are inside push's and pick_place's range
    pairs = [("red_cube", "left_pad"), ("blue_cube", "right_pad")]
    pairs += [("green_cube", "left_pad"), ("green_cube", "right_pad")]
    for cube, pad in pairs:
        gap = math.dist(scene.position_of(cube)[:2], scene.position_of(pad)[:2])
        for env in cards.values():
            span = env.object_target_distance_xy
            assert span.min + 0.01 < gap < span.max, (cube, gap)
