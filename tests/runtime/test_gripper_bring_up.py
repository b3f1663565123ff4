"""The skill node's bring-up gripper measurement, period by period (no ROS):
:class:`miles_ros.runtime.gripper_calibration.BringUpMeasurement` on scripted joint states.
It waits for the robot and safety state (at most ``wait_s``, then refuses naming what did
not come), commands the fingers closed with the arm held, takes
the reading once two consecutive readings settle within 0.1 mm (the offset from
:func:`policies.calibration.measured_offset`), opens again; an e-stop, a reading that never
settles or a gripper that does not close refuse it. Over the ROS graph:
tests/nodes/test_skill_node_measures_gripper.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from miles_ros.params.skill import SkillNodeParams, skill_executor
from miles_ros.runtime.gripper_calibration import (
    SETTLE_TIMEOUT_S,
    WAIT_TIMEOUT_S,
    BringUpMeasurement,
)
from miles_ros.runtime.library import SkillLibrary
from miles_ros.runtime.observation import JointReading
from policies.calibration import CLOSE_PERIODS, measured_offset
from sims.control import FINGER_OPEN
from sims.robots import panda
from sims.scene import load_scene
from tests.policies.test_observation_calibration import MEASURED
from tests.runtime.test_measured_skills import library_of

DT = 0.04
HOLD = panda.home_joint_positions


def joints(width: float, stamp: float) -> JointReading:
    return JointReading(HOLD.copy(), np.zeros(7), float(width), float(stamp))


def run(measure: BringUpMeasurement, widths, estop="", start=0.0) -> list:
    """Tick ``measure`` once a period on the readings ``widths(k)`` (k: the period) until it
    ends or ~30 s pass; the targets it sent."""
    sent, k = [], 0
    while not measure.finished and k < 800:
        now = start + k * DT
        sent.append(measure.tick(joints(widths(k), now), HOLD, estop, now))
        k += 1
    return sent


def closing(offset: float, speed: float = 0.004):
    """A gripper that closes from open at ``speed`` m a period and reads ``offset`` wide,
    never under 0 (as PyBullet's reading map: a narrow one reads 0 closed)."""
    return lambda k: max(0.0, max(0.0, 2 * FINGER_OPEN - speed * k) + offset)


@settings(max_examples=25, deadline=None)
@given(st.floats(-0.005, 0.02), st.floats(0.002, 0.008))
def test_a_settled_reading_gives_measured_offset(offset, speed):
    measure = BringUpMeasurement(["pick_place"], DT)
    sent = run(measure, closing(offset, speed))
    assert measure.state == "measured", measure.refusal
    reading = max(0.0, offset)
    assert measure.measurement.offset_m == measured_offset("finger_width", reading)
    closes = [t for t in sent if t is not None and t.finger == 0.0]
    opens = [t for t in sent if t is not None and t.finger == FINGER_OPEN]
    assert len(closes) >= CLOSE_PERIODS and len(opens) == CLOSE_PERIODS
    assert all(np.array_equal(t.arm, HOLD) for t in closes + opens)  # the arm held


def test_it_waits_for_the_robot_and_the_safety_state():
    measure = BringUpMeasurement(["pick_place"], DT)
    assert measure.tick(None, None, "", 0.0) is None
    assert measure.tick(joints(0.08, 0.0), HOLD, None, 0.0) is None  # no safety state yet
    assert measure.state == "waiting"
    assert measure.tick(joints(0.08, 0.04), HOLD, "", 0.04).finger == 0.0


@pytest.mark.parametrize(
    "robot, safety, missing",
    [
        (False, True, "no joint state within"),
        (True, False, "no safety state within"),
        (False, False, "no joint state and no safety state within"),
    ],
)
def test_a_state_that_never_comes_refuses_it_at_the_bound(robot, safety, missing):
    wait_s = 1.0
    measure = BringUpMeasurement(["pick_place"], DT, wait_s=wait_s)
    start, k = 5.0, 0  # the bound counts from its first period, not from 0
    while not measure.finished and k < 200:
        now = start + k * DT
        reading = joints(0.08, now) if robot else None
        sent = measure.tick(reading, HOLD if robot else None, "" if safety else None, now)
        assert sent is None  # nothing commanded while it waits
        k += 1
    assert measure.state == "refused" and missing in measure.refusal, measure.refusal
    assert measure.measurement is None
    elapsed = (k - 1) * DT
    assert wait_s < elapsed <= wait_s + DT + 1e-9
    assert "bring-up measurement was refused" in measure.reason()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 60), st.sampled_from(["robot", "safety"]))
@example(25, "robot")  # the last period within the bound
@example(26, "robot")  # the first past it: the close starts (nothing was missing past it)
@example(27, "safety")  # refused at period 26
def test_a_late_state_starts_the_close_within_the_bound_else_it_was_refused(arrives, late):
    """The joint state or the safety state first heard at period ``arrives``: the close
    starts that period unless an earlier period, past the bound, found it still missing
    (then the measurement was refused there)."""
    wait_s = 1.0
    measure = BringUpMeasurement(["pick_place"], DT, wait_s=wait_s)
    first = None
    for k in range(arrives + 1):
        now = k * DT
        here = k >= arrives
        robot = here or late != "robot"
        safety = "" if here or late != "safety" else None
        sent = measure.tick(joints(0.08, now) if robot else None, HOLD if robot else None,
                            safety, now)  # fmt: skip
        if sent is not None and first is None:
            first = k
    if any(k * DT > wait_s for k in range(arrives)):  # a period past the bound without it
        assert measure.state == "refused" and first is None
    else:
        assert measure.state == "measuring" and first == arrives


def test_the_default_bound_is_the_nodes():
    assert BringUpMeasurement(["pick_place"], DT).wait_s == WAIT_TIMEOUT_S
    assert SkillNodeParams().measure_wait_s == WAIT_TIMEOUT_S
    with pytest.raises(ValueError, match="wait_s"):
        BringUpMeasurement(["pick_place"], DT, wait_s=0.0)


@pytest.mark.parametrize("when", [0, 10])
def test_a_latched_estop_refuses_it(when):
    measure = BringUpMeasurement(["pick_place"], DT)
    for k in range(when):
        measure.tick(joints(0.08 - 0.004 * k, k * DT), HOLD, "", k * DT)
    assert measure.tick(joints(0.04, 1.0), HOLD, "operator", 1.0) is None
    assert measure.state == "refused" and "e-stop latched (operator)" in measure.refusal
    assert measure.measurement is None
    assert "bring-up measurement was refused" in measure.reason()


def test_a_reading_that_does_not_settle_refuses_it_at_the_timeout():
    measure = BringUpMeasurement(["pick_place"], DT)
    sent = run(measure, lambda k: 0.01 + 0.001 * (k % 2))  # 1 mm up and down forever
    assert measure.state == "refused" and "did not settle" in measure.refusal
    elapsed = (len(sent) - 1) * DT
    assert (
        CLOSE_PERIODS * DT + SETTLE_TIMEOUT_S
        < elapsed
        <= CLOSE_PERIODS * DT + SETTLE_TIMEOUT_S + 2 * DT
    )


def test_readings_of_one_stamp_do_not_settle_it():
    measure = BringUpMeasurement(["pick_place"], DT)
    for k in range(CLOSE_PERIODS + 5):  # the joint states stopped: one stale reading
        measure.tick(joints(0.012, 0.0), HOLD, "", k * DT)
    assert measure.state == "measuring"


def test_a_gripper_held_open_refuses_it():
    """The supervisor refused the close (e.g. a deployment that does not allow grasping):
    the reading settles open, wider than any offset a card takes."""
    measure = BringUpMeasurement(["pick_place"], DT)
    run(measure, lambda k: 0.08)
    assert measure.state == "refused" and "did not close" in measure.refusal


def executor_over(tmp_path, measure_gripper: bool = True, **more):
    """skill_node's executor over a library whose pick_place measures its finger offset,
    loaded as the node loads it where the scene has no ``gripper.calibration``."""
    params = SkillNodeParams(measure_gripper=measure_gripper, **more)
    library = SkillLibrary.load(library_of(tmp_path, MEASURED), measured=None)
    return skill_executor(library, load_scene(None), params)


def bring_up(executor, widths, estop: bool = False) -> list:
    """Drive ``executor`` as the node does (joint states, the safety state, a tick each
    period) until the measurement ends; the targets it sent."""
    executor.on_safety_state({"estop": estop, "reason": "operator" if estop else ""}, 0.0)
    sent, k = [], 0
    while executor.measuring and k < 800:
        now = k * DT
        executor.on_joint_state(joints(widths(k), now), now)
        sent.append(executor.tick(now).targets)
        k += 1
    return sent


REQUEST = {
    "id": "p",
    "skill": "pick_place",
    "params": {"object": "red_cube", "target": "left_pad"},
}


def test_the_executor_refuses_requests_until_it_measured_then_reads_through_it(tmp_path):
    executor = executor_over(tmp_path)
    assert executor.period == pytest.approx(DT)  # the node's timer ticks the measurement
    refused = executor.on_request(REQUEST, 0.0)[-1]
    assert refused["state"] == "failed" and "being measured at bring-up" in refused["reason"]
    sent = bring_up(executor, closing(0.012))
    assert any(t is not None and t.finger == 0.0 for t in sent)
    skill = executor.library.skills["pick_place"]
    assert skill.policy.measured == {"finger_width": 0.012}
    assert executor.library.measured == {"finger_width": 0.012}  # versions loaded later too
    assert executor.period is None and executor.active_tags() == {"skill": "", "tags": []}


def test_a_refused_measurement_leaves_the_card_out_with_the_reason(tmp_path):
    executor = executor_over(tmp_path)
    bring_up(executor, closing(0.012), estop=True)
    assert "pick_place" not in executor.library.skills
    assert "e-stop latched (operator)" in executor.library.errors["pick_place"]
    executor.on_safety_state({"estop": False}, 1.0)
    refused = executor.on_request(REQUEST, 1.0)[-1]
    assert refused["state"] == "failed" and "bring-up measurement was refused" in refused["reason"]


def test_without_measure_gripper_nothing_is_measured(tmp_path):
    executor = executor_over(tmp_path, measure_gripper=False)
    assert executor.gripper is None and executor.period is None


def test_an_estop_reset_after_a_measurement_keeps_its_offset(tmp_path):
    """A measured offset is the gripper's: an e-stop and its reset neither drop it nor
    measure again (no close is sent)."""
    executor = executor_over(tmp_path)
    bring_up(executor, closing(0.009))
    executor.on_safety_state({"estop": True, "reason": "operator"}, 10.0)
    executor.on_safety_state({"estop": False, "reason": ""}, 11.0)
    assert executor.measuring is False and executor.period is None
    assert executor.tick(11.04).targets is None
    assert executor.library.skills["pick_place"].policy.measured == {"finger_width": 0.009}


def test_the_executor_refuses_the_card_when_no_state_comes(tmp_path):
    """skill_node's ``measure_wait_s`` bounds the wait: no joint state and no safety state
    by then, the card is left out naming both, and a request for it says so."""
    executor = executor_over(tmp_path, measure_wait_s=0.5)
    k = 0
    while executor.measuring and k < 100:
        assert executor.tick(k * DT).targets is None
        k += 1
    assert executor.measuring is False and "pick_place" not in executor.library.skills
    why = executor.library.errors["pick_place"]
    assert "no joint state and no safety state within 0.5 s" in why
    executor.on_safety_state({"estop": False}, k * DT)
    refused = executor.on_request(REQUEST, k * DT)[-1]
    assert refused["state"] == "failed" and "no joint state" in refused["reason"]
