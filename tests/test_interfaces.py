"""The public JSON keys of miles_ros/interfaces.py are what the ROS-free producers of those
messages really send: the skill executor's status, the supervisor's state and the first
status of both managers."""

from __future__ import annotations

from miles_ros import interfaces
from miles_ros.manager.cell import CellDriver
from miles_ros.manager.glue import ManagerDriver
from miles_ros.params.manager import ManagerNodeParams
from miles_ros.runtime.execution import status
from miles_ros.safety import SafetyConfig, SafetySupervisor


def ignore(message) -> None:
    """A publisher nobody listens to."""


def test_a_skill_status_has_exactly_the_public_keys():
    message = status("r1", "reach", interfaces.RUNNING, 0.5, "")
    assert tuple(message) == interfaces.SKILL_STATUS_KEYS
    assert message["state"] in interfaces.SKILL_STATES


def test_the_safety_state_has_the_public_keys():
    state = SafetySupervisor(SafetyConfig()).state()
    assert set(interfaces.SAFETY_STATE_KEYS) <= set(state)


def test_both_managers_first_status_has_the_public_keys_and_outcome_idle():
    single: list[dict] = []
    driver = ManagerDriver(ManagerNodeParams(), ignore, single.append, ignore)
    driver.update_status({})
    cell: list[dict] = []
    CellDriver(["left_arm", "right_arm"], ["red_cube"], None, ignore, cell.append).start()
    for message in (single[-1], cell[-1]):
        assert set(interfaces.MANAGER_STATUS_KEYS) <= set(message), message
        assert message["outcome"] == interfaces.IDLE
        assert message["outcome"] in interfaces.GOAL_OUTCOMES


def test_a_plan_message_has_the_public_keys():
    from miles_ros.agent.plans import Plan

    message = Plan("move to the red cube", [], "grounded", "lm", 0.25).to_message()
    assert set(interfaces.PLAN_KEYS) <= set(message)
    assert message["latency_s"] == 0.25


def test_final_states_and_outcomes_are_members_of_their_lists():
    assert set(interfaces.FINAL_SKILL_STATES) < set(interfaces.SKILL_STATES)
    assert set(interfaces.FINAL_GOAL_OUTCOMES) < set(interfaces.GOAL_OUTCOMES)
    assert interfaces.RUNNING not in interfaces.FINAL_SKILL_STATES + interfaces.FINAL_GOAL_OUTCOMES


def test_names_under_a_namespace_and_an_arm():
    assert interfaces.under_namespace("/robot2", interfaces.GOAL) == "/robot2/goal"
    assert interfaces.under_namespace("/miles", interfaces.GOAL) == interfaces.GOAL
    assert interfaces.under_namespace("/robot2", interfaces.JOINT_STATES) == "/joint_states"
    assert interfaces.arm_scoped("left_arm", interfaces.SKILL_STATUS) == (
        "/left_arm/miles/skill/status"
    )
    assert interfaces.arm_scoped("", interfaces.SKILL_STATUS) == interfaces.SKILL_STATUS
    every = interfaces.TOPICS + interfaces.SERVICES
    assert len(set(every)) == len(every)
    # Absolute, but the camera's, which resolve under the driver's namespace.
    relative = [n for n in every if not n.startswith("/")]
    assert relative == list(interfaces.CAMERA_TOPICS)
