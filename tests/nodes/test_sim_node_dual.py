"""A two-arm cell over real rclpy on loopback (config/scene_dual.yaml): sim_node publishes
each arm's joint states under its namespace and follows each arm's commands only for that
arm, object poses in the world frame; a skill node with ``arm`` set drives its arm
through that arm's safety node, seeing the cell in its arm's base frame."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from miles_ros.interfaces import arm_scoped  # noqa: E402
from miles_ros.params.safety import SafetyNodeNames  # noqa: E402
from miles_ros.ros.graph import IN_PROCESS_SIM_OVERRIDES  # noqa: E402
from miles_ros.ros.qos import COMMAND_QOS, SENSOR_QOS  # noqa: E402
from miles_ros.ros.safety_node import SafetyNode  # noqa: E402
from miles_ros.ros.sim_node import SimNode  # noqa: E402
from miles_ros.ros.skill_node import SkillNode  # noqa: E402
from miles_ros.runtime.frames import base_to_world, world_to_base  # noqa: E402
from policies.card_content import HOVER_HEIGHT  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.scene import load_scene  # noqa: E402
from tests.nodes.graph_harness import SIM, SKILL, Graph, overrides  # noqa: E402
from tests.runtime.skill_fixtures import shipped_reach  # noqa: E402

DUAL = str(Path(__file__).resolve().parents[2] / "config" / "scene_dual.yaml")
ARMS = ("left_arm", "right_arm")


def listen_to_arms(graph: Graph) -> dict[str, list[JointState]]:
    """Each arm's joint states, kept by the probe."""
    states: dict[str, list[JointState]] = {arm: [] for arm in ARMS}
    for arm in ARMS:
        topic = arm_scoped(arm, SIM.joint_states_topic)
        graph.probe.create_subscription(JointState, topic, graph._keep(states[arm]), SENSOR_QOS)
    return states


def arm_q(states: list[JointState]) -> np.ndarray:
    return np.asarray(states[-1].position[:7])


@pytest.fixture
def graph():
    g = Graph(
        [lambda ctx: SimNode(context=ctx, parameter_overrides=overrides({"scene_file": DUAL}))]
    )
    yield g
    g.close()


def test_each_arm_has_its_own_joint_states_and_commands(graph):
    states = listen_to_arms(graph)
    graph.wait(lambda: all(len(s) >= 5 for s in states.values()), what="both arms' states")
    for arm in ARMS:
        msg = states[arm][-1]
        assert list(msg.name) == list(panda.JOINT_NAMES) + list(panda.FINGER_JOINT_NAMES)
        np.testing.assert_allclose(msg.position[:7], panda.home_joint_positions, atol=1e-3)
    # no unnamespaced robot in a multi-arm cell
    probe = graph.probe
    assert probe.count_publishers(SIM.joint_states_topic) == 0
    assert probe.count_subscribers(SIM.joint_command_topic) == 0
    command_topic = arm_scoped("right_arm", SIM.joint_command_topic)
    assert command_topic == "/right_arm/miles/joint_command"
    graph.wait(lambda: probe.count_subscribers(command_topic) > 0, what="right arm's command sub")
    target = panda.home_joint_positions.copy()
    target[0] += 0.3
    pub = probe.create_publisher(JointState, command_topic, COMMAND_QOS)
    pub.publish(JointState(name=list(panda.JOINT_NAMES), position=target.tolist()))
    graph.wait(lambda: arm_q(states["right_arm"])[0] > 0.29, what="right arm's joint 1 moved")
    n = len(states["left_arm"])
    graph.wait(lambda: len(states["left_arm"]) > n + 10, what="left arm's states after")
    for msg in states["left_arm"][n:]:
        np.testing.assert_allclose(msg.position[:7], panda.home_joint_positions, atol=1e-3)
    np.testing.assert_allclose(
        graph.nodes[0].world.arms["left_arm"].arm, panda.home_joint_positions
    )
    # a malformed command for one arm is refused like any other
    pub.publish(JointState(name=["panda_joint1"], position=[float("nan")]))
    graph.wait(lambda: graph.nodes[0].rejected >= 1, what="a rejection")


def test_object_poses_stay_in_the_world_frame(graph):
    graph.wait(lambda: len(graph.objects) >= 1, what="object poses")
    payload, scene = graph.objects[-1], load_scene(DUAL)
    assert payload["frame_id"] == "world"
    for name, obj in scene.objects.items():
        np.testing.assert_allclose(payload["objects"][name]["position"], obj.position, atol=2e-3)
    for name, place in scene.places.items():
        assert payload["places"][name]["position"] == list(place.position)


def test_a_skill_node_refuses_a_multi_arm_scene_without_an_arm():
    with pytest.raises(ValueError, match="set the arm parameter"):
        Graph(
            [
                lambda ctx: SkillNode(
                    context=ctx, parameter_overrides=overrides({"scene_file": DUAL})
                )
            ]
        )
    with pytest.raises(ValueError, match="no arm named 'middle_arm'"):
        Graph(
            [
                lambda ctx: SkillNode(
                    context=ctx,
                    parameter_overrides=overrides({"scene_file": DUAL, "arm": "middle_arm"}),
                )
            ]
        )


@pytest.mark.skipif(shipped_reach() is None, reason="needs the shipped reach skill")
def test_the_shipped_reach_runs_on_the_right_arm_in_its_base_frame():
    """reach blue_cube on /right_arm/miles/skill/request: the right arm's skill node sees
    the cube in its base frame, its commands pass the right arm's safety node, the right
    arm's TCP ends above the cube in the world, and the left arm never moves."""
    arm = "right_arm"
    names = SafetyNodeNames()
    safety = {
        **IN_PROCESS_SIM_OVERRIDES["safety"],
        **{f: arm_scoped(arm, getattr(names, f)) for f in names.__dataclass_fields__},
    }
    skills = {
        "skill_library": str(shipped_reach().parent),
        "scene_file": DUAL,
        "arm": arm,
        "timeout_scale": 4.0,  # a loaded box slows the real-time sim (as test_skill_node)
        **IN_PROCESS_SIM_OVERRIDES["skills"],
    }
    graph = Graph(
        [
            lambda ctx: SimNode(context=ctx, parameter_overrides=overrides({"scene_file": DUAL})),
            lambda ctx: SafetyNode(context=ctx, parameter_overrides=overrides(safety)),
            lambda ctx: SkillNode(context=ctx, parameter_overrides=overrides(skills)),
        ]
    )
    try:
        states = listen_to_arms(graph)
        statuses: list[dict] = []
        status_topic = arm_scoped(arm, SKILL.status_topic)
        graph.probe.create_subscription(
            String, status_topic, graph._keep(statuses, json.loads), COMMAND_QOS
        )
        node = graph.nodes[2]
        graph.wait(lambda: node.skills.joints is not None and node.skills.objects, what="state")
        scene, mount = load_scene(DUAL), load_scene(DUAL).arm(arm)
        cube_world = np.asarray(scene.objects["blue_cube"].position)
        np.testing.assert_allclose(
            node.skills.objects["blue_cube"].position, world_to_base(mount, cube_world), atol=2e-3
        )
        np.testing.assert_allclose(
            node.skills.scene.places["right_pad"].position,
            world_to_base(mount, scene.places["right_pad"].position),
        )
        request = graph.probe.create_publisher(
            String, arm_scoped(arm, SKILL.request_topic), COMMAND_QOS
        )
        graph.wait(lambda: graph.probe.count_subscribers(request.topic_name) > 0, what="sub")
        request.publish(
            String(
                data=json.dumps({"id": "r", "skill": "reach", "params": {"target": "blue_cube"}})
            )
        )

        def final():
            return next((s for s in statuses if s["id"] == "r" and s["state"] != "running"), None)

        graph.wait(lambda: final() is not None, timeout=60.0, what="reach's final status")
        assert final()["state"] == "succeeded", final()
        assert graph.nodes[1].supervisor.stats["accepted"] >= 3  # through the safety node
        tcp_world = base_to_world(mount, panda.fk_tcp(arm_q(states[arm])))
        goal_world = cube_world + np.array([0.0, 0.0, HOVER_HEIGHT])
        assert np.linalg.norm(tcp_world - goal_world) < 0.05, (tcp_world, goal_world)
        for msg in states["left_arm"]:
            np.testing.assert_allclose(msg.position[:7], panda.home_joint_positions, atol=1e-3)
    finally:
        graph.close()
