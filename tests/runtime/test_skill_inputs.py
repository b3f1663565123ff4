"""A running status of a period the policy ran carries that period's inputs
(``interfaces.SKILL_INPUTS``): the joint reading, the resolved goal and the cube's pose,
from which the task's own observation code rebuilds exactly what the policy got; the home
lead-in's statuses carry none (no policy ran)."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from miles_ros.interfaces import SKILL_INPUTS
from miles_ros.runtime.observation import (
    JointReading,
    ObjectPose,
    decode_inputs,
    encode_inputs,
    sim_state,
)
from sims.robots import panda
from tests.runtime.skill_fixtures import make_executor


def test_a_policy_periods_status_carries_the_inputs_of_its_observation(library_dir):
    q = panda.home_joint_positions + 0.01
    ex = make_executor(library_dir, q=q)
    ex.on_joint_state(JointReading(q, np.full(7, 0.03), 0.0, 12.5), 0.0)
    ex.on_objects({"red_cube": ObjectPose(np.array([0.5, 0.1, 0.02]), 0.3)})
    skill = ex.library.skills["push"]
    seen = []
    act = skill.policy.act
    skill.policy.act = lambda obs: seen.append(np.array(obs)) or act(obs)
    ex.on_request(
        {"id": "p", "skill": "push", "params": {"object": "red_cube", "target": [0.55, 0.2]}}, 0.0
    )
    (status,) = ex.tick(0.0).statuses
    inputs = status[SKILL_INPUTS]
    assert inputs["stamp"] == 12.5 and inputs["q"] == q.tolist() and inputs["dq"] == [0.03] * 7
    assert inputs["object"] == [0.5, 0.1, 0.02, 0.3]
    joints = JointReading(np.array(inputs["q"]), np.array(inputs["dq"]), inputs["finger_width"], 0)
    cube = ObjectPose(np.array(inputs["object"][:3]), inputs["object"][3])
    rebuilt = skill.task.observe(sim_state(joints, np.array(inputs["goal"]), cube))[0]
    np.testing.assert_array_equal(rebuilt, seen[-1])


def test_the_home_lead_in_carries_no_inputs(library_dir):
    away = panda.home_joint_positions + np.array([0.4, 0, 0, 0.3, 0, 0, 0])
    ex = make_executor(library_dir, q=away)
    ex.on_request({"id": "a", "skill": "reach", "params": {"target": "red_cube"}}, 0.0)
    (status,) = ex.tick(0.0).statuses
    assert status["phase"] == "home" and SKILL_INPUTS not in status


@given(
    q=st.lists(st.floats(-3, 3), min_size=7, max_size=7),
    dq=st.lists(st.floats(-2, 2), min_size=7, max_size=7),
    width=st.floats(0, 0.08),
    stamp=st.floats(0, 1e6),
    goal=st.lists(st.floats(-1, 1), min_size=3, max_size=3),
    cube=st.none() | st.lists(st.floats(-1, 1), min_size=4, max_size=4),
)
def test_inputs_read_back_exactly_through_json(q, dq, width, stamp, goal, cube):
    joints = JointReading(np.array(q), np.array(dq), width, stamp)
    poses = {} if cube is None else {"object": ObjectPose(np.array(cube[:3]), cube[3])}
    record = json.loads(json.dumps(encode_inputs(joints, np.array(goal), poses)))
    back, back_goal, back_poses = decode_inputs(record)
    assert np.array_equal(back.arm_pos, joints.arm_pos) and back.stamp == stamp
    assert np.array_equal(back.arm_vel, joints.arm_vel) and back.finger_width == width
    assert np.array_equal(back_goal, goal) and set(back_poses) == set(poses)
    for role, pose in poses.items():
        assert np.array_equal(back_poses[role].position, pose.position)
        assert back_poses[role].yaw == pose.yaw
