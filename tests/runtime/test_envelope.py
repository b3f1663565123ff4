"""Every skill's envelope, checked at the door: the card's ``envelope`` block (the region
its policy was trained for, written from the task module) and the executor's refusal of a
goal outside it before any motion."""

import json
import math

import numpy as np
import pytest
import yaml

from miles_ros.runtime.goals import GoalError, goal_from_positions
from miles_ros.runtime.observation import ObjectPose
from policies.card_content import build_card, task_envelope
from policies.cards import CARD_FILE, SkillCard, SkillCardError, load_card, write_card
from policies.envelope import Envelope
from sims.tasks import pick_place, push, reach
from tests.runtime.skill_fixtures import OBJECTS, SCENE, make_executor

UNDER_TABLE = [0.45, 0.0, -0.05]


def card(task: str) -> SkillCard:
    return build_card(task, task, {}, {"task": task}, {"episodes": 0})


def request(rid, skill, **params):
    return json.dumps({"id": rid, "skill": skill, "params": params})


# --- the card's block ---------------------------------------------------------------------
def test_the_block_is_the_task_modules_sampling_ranges():
    assert task_envelope("reach") == {
        "target_region": {"low": list(reach.GOAL_LOW), "high": list(reach.GOAL_HIGH)}
    }
    for module in (push, pick_place):
        env = card(module.CONFIG.name).envelope
        assert env.object_region.low == tuple(module.OBJECT_XY_LOW)
        assert env.object_region.high == tuple(module.OBJECT_XY_HIGH)
        assert env.target_region.low[:2] == tuple(module.GOAL_XY_LOW)
        assert env.target_region.high[:2] == tuple(module.GOAL_XY_HIGH)
        distance = env.object_target_distance_xy
        assert (distance.min, distance.max) == module.GOAL_DISTANCE_RANGE
    assert len(card("push").envelope.target_region.low) == 2  # z is the rest height anyway
    air = card("pick_place").envelope.target_region
    assert (air.low[2], air.high[2]) == pick_place.GOAL_Z_RANGE


def test_every_training_reset_lies_inside_the_envelope():
    rng = np.random.default_rng(0)
    for module in (push, pick_place):
        skill = card(module.CONFIG.name)
        _, cubes, _, goals = module.sample_reset(rng, 500)
        for cube, goal in zip(cubes, goals, strict=True):
            dist = math.hypot(*(goal[:2] - cube[:2]))
            if not module.GOAL_DISTANCE_RANGE[0] <= dist <= module.GOAL_DISTANCE_RANGE[1]:
                continue  # the rare goal clipped into the goal area after rejection sampling
            assert skill.envelope_violations(cube, goal) == []
    skill = card("reach")
    for goal in reach.sample_goal(rng, 500):
        assert skill.envelope_violations(None, goal) == []


@pytest.mark.parametrize("task", ["reach", "push", "pick_place"])
def test_the_block_round_trips_through_the_card_file(task, tmp_path):
    built = card(task)
    assert list(built.data).index("envelope") == list(built.data).index("preconditions") + 1
    loaded = load_card(write_card(built, tmp_path))
    assert loaded.envelope == built.envelope
    assert loaded.to_dict()["envelope"] == task_envelope(task)
    assert Envelope.from_dict(task_envelope(task)).to_dict() == task_envelope(task)


def test_a_card_without_the_block_has_no_envelope_check():
    data = card("reach").to_dict()
    del data["envelope"]
    old = SkillCard.from_dict(data)
    assert old.envelope is None and old.envelope_violations(None, [5.0, 5.0, 5.0]) == []


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ([1, 2], "envelope must be a mapping"),
        ({"target_box": {}}, "unknown keys target_box"),
        ({"target_region": {"low": [0, 0, 0], "high": [1, 1]}}, "2 or 3 numbers"),
        ({"target_region": {"low": [1, 0], "high": [0, 1]}}, "exceeds high"),
        ({"target_region": {"low": ["a", 0], "high": [1, 1]}}, "list of numbers"),
        ({"target_region": {"low": [True, 0], "high": [1, 1]}}, "expected numbers"),
        ({"object_target_distance_xy": {"min": False, "max": 0.1}}, "expected numbers"),
        ({"object_target_distance_xy": {"min": 0.3, "max": 0.1}}, "min <= max"),
    ],
)
def test_a_malformed_block_is_refused_with_a_reason(block, message):
    data = {**card("reach").to_dict(), "envelope": block}
    with pytest.raises(SkillCardError, match=message):
        SkillCard.from_dict(data)


def test_violations_name_the_precondition_the_value_and_the_range():
    (far,) = card("reach").envelope_violations(None, [0.45, 0.0, -0.05])
    assert far == "target_region: z -0.050 m not in [0.050, 0.450] m"
    red, left_pad = SCENE.objects["red_cube"].position, SCENE.places["left_pad"].position
    (distance,) = card("push").envelope_violations(red, [left_pad[0], left_pad[1], 0.02])
    assert distance == "object_target_distance_xy: 0.364 m not in [0.100, 0.250] m"
    assert card("push").envelope_violations([0.9, 0.0, 0.02], [0.8, 0.0, 0.02])[:2] == [
        "target_region: x 0.800 m not in [0.300, 0.650] m",
        "object_region: x 0.900 m not in [0.350, 0.600] m",
    ]
    assert card("reach").envelope_violations(None, [math.nan, 0.0, 0.2])  # NaN is outside


FAR_PAIRS = {("red_cube", "left_pad"), ("green_cube", "right_pad"), ("blue_cube", "right_pad")}


@pytest.mark.parametrize("task", ["push", "pick_place"])
def test_the_default_scenes_far_pairs_are_outside_and_the_near_ones_inside(task):
    skill = card(task)
    objects = {n: o.position for n, o in SCENE.objects.items()}
    places = {n: p.position for n, p in SCENE.places.items()}
    outside, blocked = set(), set()
    for obj in objects:
        for pad in places:
            params = {"object": obj, "target": pad}
            try:
                goal = goal_from_positions(task, params, objects, places)
            except GoalError:  # a push through another cube; its goal is the pad's, as a pick's
                blocked.add((obj, pad))
                goal = goal_from_positions("pick_place", params, objects, places)
            if skill.envelope_violations(objects[obj], goal.goal_pos):
                outside.add((obj, pad))
    assert outside == FAR_PAIRS
    through = {("red_cube", "left_pad"), ("blue_cube", "right_pad")}  # green, red on the way
    assert blocked == (through if task == "push" else set())


# --- the executor refuses before any motion ------------------------------------------------
@pytest.mark.parametrize(
    ("skill", "params", "precondition"),
    [
        ("reach", {"target": [5.0, 5.0, 5.0]}, "target_region: x 5.000 m not in [0.300, 0.650]"),
        ("reach", {"target": UNDER_TABLE}, "target_region: z -0.050 m not in [0.050, 0.450]"),
        # pushes with a clear path (red to the left pad, blue to the right pad pass a cube:
        # refused before the envelope is asked, test_a_push_through_a_cube_is_refused_...)
        (
            "push",
            {"object": "green_cube", "target": "right_pad"},
            "object_target_distance_xy: 0.304 m not in [0.100, 0.250] m",
        ),
        (
            "push",
            {"object": "blue_cube", "target": [0.35, -0.2]},
            "object_target_distance_xy: 0.354 m",
        ),
    ],
)
def test_out_of_envelope_requests_are_refused_before_any_motion(
    library_dir, skill, params, precondition
):
    ex = make_executor(library_dir)
    ex.on_request(request("ok", "reach", target="red_cube"), 0.0)
    assert ex.active is not None and ex.tick(0.04).targets is not None
    ex.tags_changed = False
    (out,) = ex.on_request(request("x", skill, **params), 0.05)
    assert (out["id"], out["state"]) == ("x", "failed")
    assert out["reason"].startswith("refused: precondition ") and precondition in out["reason"]
    # nothing started, nothing preempted: the running skill goes on, untouched
    assert ex.active.request_id == "ok" and not ex.tags_changed
    ex.cancel("ok", 0.06)
    (again,) = ex.on_request(request("y", skill, **params), 0.1)
    assert again["reason"] == out["reason"]
    assert ex.active is None and ex.tick(0.14).targets is None


def test_a_push_through_a_cube_is_refused_before_any_motion(library_dir):
    ex = make_executor(library_dir)
    (out,) = ex.on_request(request("x", "push", object="red_cube", target="left_pad"), 0.0)
    assert (out["id"], out["state"]) == ("x", "failed")
    assert out["reason"].startswith("refused: cannot push red_cube there: green_cube stands")
    assert ex.active is None and ex.tick(0.04).targets is None


def test_the_live_cube_position_is_checked_not_the_scene_file(library_dir):
    ex = make_executor(library_dir)
    (near,) = ex.on_request(request("a", "push", object="red_cube", target="right_pad"), 0.0)
    assert near["state"] == "running"
    ex.cancel("a", 0.01)
    # the red cube was knocked 0.15 m towards the left pad: now it is too close to the right one
    moved = {**OBJECTS, "red_cube": ObjectPose(np.array([0.55, -0.20, 0.02]), 0.0)}
    ex.on_objects(moved)
    (out,) = ex.on_request(request("b", "push", object="red_cube", target="right_pad"), 0.1)
    assert out["state"] == "failed"
    assert "object_target_distance_xy: 0.050 m not in [0.100, 0.250] m" in out["reason"]


def test_a_library_card_without_the_block_is_not_checked(library_dir, tmp_path):
    old = tmp_path / "reach"
    old.mkdir()
    for f in library_dir.joinpath("reach").iterdir():
        (old / f.name).write_bytes(f.read_bytes())
    data = yaml.safe_load((old / CARD_FILE).read_text())
    del data["envelope"]
    write_card(SkillCard.from_dict(data), old)
    ex = make_executor(tmp_path)
    (out,) = ex.on_request(request("a", "reach", target=[0.45, 0.0, -0.05]), 0.0)
    assert out["state"] == "running"  # an older exported card: as before the envelope


# --- turn: how far ------------------------------------------------------------------------
def test_turns_block_holds_the_trained_angle_range_from_the_task_module():
    from sims.tasks import turn

    angle = card("turn").envelope.angle_deg
    assert (angle.min, angle.max) == (turn.TURN_MIN_DEG, turn.TURN_MAX_DEG)
    assert Envelope.from_dict(task_envelope("turn")).angle_deg == angle


@pytest.mark.parametrize(
    ("angle", "why"),
    [
        (5, "angle_deg: turn by 5 deg: below the skill's 15 deg minimum"),
        (-10, "angle_deg: turn by 10 deg: below the skill's 15 deg minimum"),
        (100, "angle_deg: turn by 10 deg: below the skill's 15 deg minimum"),  # 100 ~ 10
        (30, None),
        (-45, None),
        (60, None),  # a turn by -30: the cube looks as after 60
        ("face_robot", None),  # how far depends on the live yaw: not checked here
    ],
)
def test_a_turn_outside_the_trained_angles_violates_the_envelope(angle, why):
    cubes = {n: o.position for n, o in SCENE.objects.items()}
    places = {n: p.position for n, p in SCENE.places.items()}
    goal = goal_from_positions("turn", {"object": "red_cube", "angle": angle}, cubes, places)
    violations = card("turn").envelope_violations(cubes["red_cube"], goal.goal_pos, goal.turn_deg)
    assert violations == ([why] if why else [])


def test_a_turn_request_below_the_trained_angles_is_refused_before_any_motion(tmp_path):
    from tests.runtime.skill_fixtures import random_skill

    random_skill(tmp_path, "turn")
    ex = make_executor(tmp_path, start_from_home=False)
    (out,) = ex.on_request(request("t5", "turn", object="red_cube", angle=5), 0.0)
    assert out["reason"].startswith("refused: precondition angle_deg: turn by 5 deg")
    assert "below the skill's 15 deg minimum" in out["reason"]
    assert ex.active is None and ex.tick(0.04).targets is None
    (out,) = ex.on_request(request("t90", "turn", object="red_cube", angle=90), 0.0)
    assert "nothing to do" in out["reason"] and ex.active is None
    (started,) = ex.on_request(request("t60", "turn", object="red_cube", angle=60), 0.0)
    assert ex.active is not None and ex.active.goal.turn_deg == pytest.approx(-30.0), started
