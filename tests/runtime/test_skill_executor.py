"""The skill executor's state machine (no ROS): refusals with reasons, preemption,
cancel, e-stop, timeout, lost state, success by the task's own predicate, home."""

import dataclasses
import json
import shutil

import numpy as np
import pytest

from miles_ros.params.skill import SkillNodeParams, skill_executor
from miles_ros.runtime.observation import JointReading, ObjectPose
from miles_ros.runtime.skills import SkillExecutor, SkillLibrary
from sims.robots import panda
from tests.runtime.skill_fixtures import OBJECTS, SCENE, make_executor, random_skill


def request(rid, skill, **params):
    return json.dumps({"id": rid, "skill": skill, "params": params})


def test_the_executors_defaults_are_config_skills_yaml(library_dir):
    """One set of defaults: every argument of the executor but home_tolerance and rollout
    (built from the shadow and canary parameters) is a skill node parameter, with
    config/skills.yaml's value, and skill_executor passes each one."""
    import dataclasses
    import inspect
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[2] / "config" / "skills.yaml"
    config = yaml.safe_load(path.read_text())["skill_node"]["ros__parameters"]
    arguments = inspect.signature(SkillExecutor).parameters
    names = [n for n in arguments if n not in ("library", "scene", "home_tolerance", "rollout")]
    defaults = {name: getattr(SkillNodeParams(), name) for name in names}
    assert defaults == {name: config[name] for name in names}
    lib = SkillLibrary.load(library_dir)
    ex = skill_executor(lib, SCENE)
    assert {name: getattr(ex, name) for name in defaults} == defaults
    changed = {"home_speed": 0.6, "timeout_scale": 3.0, "stall_window_s": 0.0}
    changed |= {"shape_commands": False, "command_velocity_scale": 0.5}
    ex = skill_executor(lib, SCENE, dataclasses.replace(SkillNodeParams(), **changed))
    assert {name: getattr(ex, name) for name in changed} == changed


def test_library_loads_cards_and_home_and_verifies_hashes(library_dir, tmp_path):
    lib = SkillLibrary.load(library_dir)
    assert sorted(lib.names()) == ["home", "push", "reach"]
    assert lib.skills["reach"].control_rate_hz == pytest.approx(25.0)
    tampered = tmp_path / "lib"
    shutil.copytree(library_dir, tampered)
    with open(tampered / "reach" / "actor.onnx", "ab") as f:
        f.write(b"\0")
    lib = SkillLibrary.load(tampered)
    assert "reach" not in lib.skills and "sha256" in lib.errors["reach"]
    ex = skill_executor(lib, SCENE)
    ex.on_joint_state(JointReading(panda.home_joint_positions, np.zeros(7), 0.0, 0.0), 0.0)
    (refusal,) = ex.on_request(request("a", "reach", target="red_cube"), 0.0)
    assert refusal["state"] == "failed" and "failed to load" in refusal["reason"]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (request("a", "fly"), "unknown skill 'fly'"),
        (request("a", "reach", target="purple_cube"), "invalid params for 'reach': target"),
        (request("a", "reach", target=[1.0, 2.0]), "invalid params"),
        (request("a", "reach", target="red_cube", speed=2), "'speed' was unexpected"),
        (request("a", "push", object="red_cube"), "'target' is a required property"),
        (request("a", "home", x=1), "invalid params for 'home'"),
        (json.dumps({"skill": "home"}), "needs an id"),
        ("{not json", "not JSON"),
        (json.dumps({"id": "a", "skill": "reach", "params": [1]}), "params must be"),
    ],
)
def test_bad_requests_are_refused_with_a_reason(library_dir, payload, reason):
    ex = make_executor(library_dir)
    (out,) = ex.on_request(payload, 0.0)
    assert out["state"] == "failed" and out["reason"].startswith("refused: ")
    assert reason in out["reason"]
    assert ex.active is None and ex.tick(0.04).targets is None


def test_a_new_request_preempts_and_cancel_aborts(library_dir):
    ex = make_executor(library_dir)
    (first,) = ex.on_request(request("a", "reach", target="red_cube"), 0.0)
    assert first["state"] == "running" and ex.active_tags()["skill"] == "reach"
    tick = ex.tick(0.04)
    assert tick.targets is not None and tick.statuses[0]["state"] == "running"
    aborted, started = ex.on_request(request("b", "home"), 0.05)
    assert (aborted["id"], aborted["state"]) == ("a", "aborted")
    assert "preempted by request 'b'" in aborted["reason"]
    assert (started["id"], started["state"]) == ("b", "running")
    assert ex.cancel("zzz", 0.06) == []  # not the running one: nothing happens
    assert ex.active is not None
    (cancelled,) = ex.on_request(json.dumps({"id": "b", "cancel": True}), 0.07)
    assert (cancelled["id"], cancelled["state"], cancelled["reason"]) == (
        "b",
        "aborted",
        "cancelled",
    )
    assert ex.active is None and ex.active_tags() == {"skill": "", "tags": []}


def test_estop_ends_the_skill_and_refuses_new_ones_until_reset(library_dir):
    ex = make_executor(library_dir)
    ex.on_request(request("a", "reach", target="red_cube"), 0.0)
    (out,) = ex.on_safety_state({"estop": True, "mode": "stopping", "reason": "button"}, 0.1)
    assert out["state"] == "estopped" and "button" in out["reason"]
    assert ex.tick(0.14).targets is None
    (refused,) = ex.on_request(request("b", "home"), 0.2)
    assert refused["state"] == "failed" and "e-stop latched" in refused["reason"]
    ex.on_safety_state({"estop": False, "mode": "hold"}, 0.3)
    assert ex.on_request(request("c", "home"), 0.3)[0]["state"] == "running"


def test_timeout_and_lost_state_fail_with_reasons(library_dir):
    ex = make_executor(library_dir, timeout_scale=1.0)
    ex.on_request(request("a", "reach", target="red_cube"), 0.0)
    ex.on_joint_state(ex.joints, 3.9)  # keep the state fresh
    (out,) = ex.tick(4.01).statuses
    assert out["state"] == "failed" and out["reason"] == "timeout after 4.0 s"
    ex.on_request(request("b", "reach", target="red_cube"), 5.0)
    (out,) = ex.tick(5.0 + ex.state_timeout + 3.9).statuses
    assert out["state"] == "failed" and out["reason"] == "robot state lost"


def test_success_is_the_task_predicate(library_dir):
    ex = make_executor(library_dir)
    tcp = panda.fk_tcp(panda.home_joint_positions)  # below it: inside reach's envelope
    (running,) = ex.on_request(request("a", "reach", target=list(tcp - [0.0, 0.0, 0.06])), 0.0)
    assert ex.tick(0.04).statuses[0]["state"] == "running"  # 6 cm away: not yet
    ex.on_request(request("b", "reach", target=list(tcp - [0.0, 0.0, 0.04])), 0.1)
    (done,) = ex.tick(0.14).statuses  # 4 cm: inside the 5 cm threshold
    assert (done["id"], done["state"], done["progress"]) == ("b", "succeeded", 1.0)


def test_the_final_status_carries_the_return_the_policy_earned(library_dir):
    """reach's dense reward is minus the TCP-goal distance: with the arm held still 6 cm
    from the goal, each period after an action earns -0.06, so two rewarded periods and a
    cancel give -0.12. A refusal and the scripted home carry no return."""
    ex = make_executor(library_dir)
    tcp = panda.fk_tcp(panda.home_joint_positions)
    ex.on_request(request("a", "reach", target=list(tcp - [0.0, 0.0, 0.06])), 0.0)
    for t in (0.0, 0.04, 0.08):
        ex.on_joint_state(ex.joints, t)
        (running,) = ex.tick(t).statuses
        assert "return" not in running
    (aborted,) = ex.cancel("a", 0.1)
    assert aborted["state"] == "aborted"
    assert aborted["return"] == pytest.approx(-0.12, abs=1e-6)
    (refused,) = ex.on_request(request("b", "fly"), 0.2)
    assert "return" not in refused
    ex.on_request(request("h", "home"), 0.3)
    (done,) = ex.tick(0.3).statuses  # already at home, still
    assert done["state"] == "succeeded" and "return" not in done


def test_home_moves_toward_home_and_succeeds_there(library_dir):
    start = panda.home_joint_positions + np.array([0.4, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0])
    ex = make_executor(library_dir, q=start, home_speed=0.5)
    ex.on_request(request("h", "home"), 0.0)
    tick = ex.tick(0.0)
    step = tick.targets.arm - start
    moving = np.abs(panda.home_joint_positions - start) > 0
    assert np.all(np.sign(step[moving]) == np.sign((panda.home_joint_positions - start)[moving]))
    assert 0.0 < np.max(np.abs(step)) <= 0.5 * 0.04  # a minimum-jerk start from rest
    ex.on_joint_state(JointReading(panda.home_joint_positions + 0.005, np.zeros(7), 0, 0), 1.0)
    (done,) = ex.tick(1.0).statuses
    assert done["state"] == "succeeded"


def test_home_succeeds_only_once_the_arm_has_settled_at_home(library_dir):
    """A success while the arm still moves would end the stream mid-motion: the supervisor
    extrapolates it and brakes past the home pose."""
    start = panda.home_joint_positions + np.array([0.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0])
    ex = make_executor(library_dir, q=start, home_speed=0.5)
    ex.on_request(request("h", "home"), 0.0)
    ex.tick(0.0)
    moving = np.full(7, 0.0)
    moving[1] = -0.4  # still swinging through the home pose
    ex.on_joint_state(JointReading(panda.home_joint_positions + 0.005, moving, 0, 0), 2.0)
    tick = ex.tick(2.0)  # the 1.1 s move is done: its target is home
    assert tick.statuses[0]["state"] == "running"
    np.testing.assert_allclose(tick.targets.arm, panda.home_joint_positions)
    ex.on_joint_state(JointReading(panda.home_joint_positions + 0.005, moving * 0.01, 0, 0), 2.1)
    (done,) = ex.tick(2.1).statuses
    assert done["state"] == "succeeded"


def test_targets_are_for_one_control_period_later(library_dir):
    """What skill_node stamps: a policy's action is a step the arm covers during the
    control period (as in training), so its target is for one period after the tick,
    Cartesian (push) and joint-space (reach) alike; home's trajectory point is where the
    move is one period after the tick, stamped so."""
    ex = make_executor(library_dir)
    ex.on_request(request("p", "push", object="red_cube", target="right_pad"), 0.0)
    tick = ex.tick(0.0)
    assert tick.targets is not None
    assert tick.lead_s == pytest.approx(ex.library.skills["push"].cfg.control_dt)
    ex.on_request(request("r", "reach", target="red_cube"), 0.02)
    tick = ex.tick(0.02)
    assert tick.targets is not None
    assert tick.lead_s == pytest.approx(ex.library.skills["reach"].cfg.control_dt)
    ex.on_request(request("h", "home"), 0.04)
    away = JointReading(panda.home_joint_positions + 0.3, np.zeros(7), 0.04, 0.04)
    ex.on_joint_state(away, 0.04)
    tick = ex.tick(0.08)
    assert tick.targets is not None
    assert tick.lead_s == pytest.approx(ex.library.skills["reach"].cfg.control_dt)


def test_a_gripper_skill_ends_released_where_it_placed_the_cube(library_dir, tmp_path):
    """pick_place's goal met with the cube still between the fingers: the arm holds there
    and the fingers open before it succeeds (a following move would carry the cube away);
    a cube that leaves the goal while released hands control back to the policy."""
    from miles_ros.runtime.skills import RELEASE_WIDTH
    from sims.control import FINGER_OPEN

    random_skill(tmp_path, "pick_place")
    ex = skill_executor(SkillLibrary.load(tmp_path), SCENE)
    q = panda.home_joint_positions.copy()
    pad = np.array(SCENE.places["left_pad"].position)
    objects = dict(OBJECTS, red_cube=ObjectPose(pad + [0.0, -0.15, 0.02], 0.0))  # in envelope
    ex.on_joint_state(JointReading(q, np.zeros(7), 0.055, 0.0), 0.0)  # a gripped 4 cm cube
    ex.on_objects(objects)
    (running,) = ex.on_request(
        request("p", "pick_place", object="red_cube", target="left_pad"), 0.0
    )
    assert running["state"] == "running", running["reason"]
    placed = ex.active.goal.goal_pos.copy()
    ex.on_objects(dict(objects, red_cube=ObjectPose(placed, 0.0)))
    for t in (0.04, 0.08):  # placed, still gripped: hold and open
        out = ex.tick(t)
        assert [s["state"] for s in out.statuses] == ["running"]
        np.testing.assert_array_equal(out.targets.arm, q)
        assert out.targets.finger == FINGER_OPEN
    ex.on_objects(dict(objects, red_cube=ObjectPose(placed + [0.2, 0.0, 0.0], 0.0)))
    out = ex.tick(0.12)  # knocked off the goal while opening: the policy acts again
    assert out.statuses[0]["state"] == "running" and ex.active.release_q is None
    ex.on_objects(dict(objects, red_cube=ObjectPose(placed, 0.0)))
    ex.on_joint_state(JointReading(q, np.zeros(7), RELEASE_WIDTH + 0.005, 0.16), 0.16)
    (done,) = ex.tick(0.16).statuses  # placed and released
    assert (done["state"], done["progress"]) == ("succeeded", 1.0)


def test_a_learned_skill_asked_for_away_from_home_goes_home_first(library_dir):
    """Its policy was trained from home (joints within initial_joint_noise): from further
    away the scripted home move runs first, then the policy with its whole budget."""
    skill = SkillLibrary.load(library_dir).skills["reach"]
    noise = skill.cfg.randomization.initial_joint_noise
    away = panda.home_joint_positions + np.array([3 * noise, 0, 0, 2 * noise, 0, 0, 0])
    # no stall watchdog: the arm below stands still until the timeout
    ex = make_executor(library_dir, q=away, timeout_scale=1.0, stall_window_s=0.0)
    assert ex.away_from_start(skill)
    ex.on_request(request("a", "reach", target="red_cube"), 0.0)
    tick = ex.tick(0.0)
    assert tick.statuses[0]["phase"] == "home"
    assert tick.lead_s == pytest.approx(skill.cfg.control_dt)
    step = tick.targets.arm - away
    assert step[0] < 0.0 and step[3] < 0.0  # toward home
    ex.on_joint_state(JointReading(away, np.zeros(7), 0.0, 0.0), 3.0)
    assert ex.tick(3.0).statuses[0]["phase"] == "home"
    at_home = JointReading(panda.home_joint_positions + 0.005, np.zeros(7), 0.0, 0.0)
    ex.on_joint_state(at_home, 3.5)
    tick = ex.tick(3.5)  # home reached: the policy runs from here
    assert "phase" not in tick.statuses[0] and tick.lead_s == pytest.approx(skill.cfg.control_dt)
    ex.on_joint_state(at_home, 7.4)
    assert ex.tick(7.4).statuses[0]["state"] == "running"  # its 4 s count from 3.5 s
    ex.on_joint_state(at_home, 7.55)
    (out,) = ex.tick(7.55).statuses
    assert out["state"] == "failed" and out["reason"] == "timeout after 4.0 s"
    # the deployment's choice: start wherever the arm is
    ex = make_executor(library_dir, q=away, start_from_home=False)
    ex.on_request(request("b", "reach", target="red_cube"), 0.0)
    tick = ex.tick(0.0)
    assert "phase" not in tick.statuses[0] and tick.lead_s == pytest.approx(skill.cfg.control_dt)
    # within the training start states: no home move
    near = panda.home_joint_positions + 0.5 * noise
    ex = make_executor(library_dir, q=near)
    ex.on_request(request("c", "reach", target="red_cube"), 0.0)
    assert "phase" not in ex.tick(0.0).statuses[0]


def test_a_stalled_skill_goes_home_and_starts_again_then_fails_stalled(library_dir):
    """A policy settled where it was never trained to stop (the arm does not move here:
    the joint states stay put) is sent home and started again once, then fails early."""
    with pytest.raises(ValueError, match="stall"):
        make_executor(library_dir, stall_window_s=-1.0)
    ex = make_executor(library_dir, stall_window_s=1.0, stall_restarts=1, timeout_scale=10.0)
    ex.on_request(request("a", "push", object="red_cube", target="right_pad"), 0.0)
    reading = ex.joints
    phases, t = [], 0.0
    while ex.active is not None and t < 10.0:
        ex.on_joint_state(reading, t)
        for out in ex.tick(t).statuses:
            phases.append((round(t, 2), out.get("phase", ""), out["state"], out["reason"]))
        t += 0.04
    homes = [p for p in phases if p[1] == "home"]
    assert len(homes) == 1  # already at home: the restart's home move ends at once
    assert 1.0 <= homes[0][0] <= 1.1
    last = phases[-1]
    assert last[2] == "failed" and last[3].startswith("stalled: ")
    assert 2.0 <= last[0] <= 2.2  # a second stall after the restart: no third try
    # without the watchdog the same stall runs on until the timeout
    ex = make_executor(library_dir, stall_window_s=0.0, timeout_scale=10.0)
    ex.on_request(request("b", "push", object="red_cube", target="right_pad"), 0.0)
    for t in np.arange(0.0, 3.0, 0.04):
        ex.on_joint_state(reading, float(t))
        assert ex.tick(float(t)).statuses[0]["state"] == "running"


def test_the_lead_in_also_sets_the_fingers_a_skill_starts_with(library_dir):
    """push episodes start with the fingers closed: open fingers (after a pick_place) are
    closed on the way home, and the policy starts only once they are."""
    from miles_ros.runtime.library import FINGER_START_TOLERANCE, start_width

    push = SkillLibrary.load(library_dir).skills["push"]
    assert start_width(push) == pytest.approx(0.0)
    q = panda.home_joint_positions.copy()
    ex = make_executor(library_dir)
    opened = JointReading(q, np.zeros(7), 0.08, 0.0)
    ex.on_joint_state(opened, 0.0)
    assert ex.away_from_start(push)
    ex.on_request(request("p", "push", object="red_cube", target="right_pad"), 0.0)
    tick = ex.tick(0.0)  # at home, fingers open: the lead-in closes them
    assert tick.statuses[0]["phase"] == "home" and tick.targets.finger == pytest.approx(0.0)
    closing = JointReading(q, np.zeros(7), 2 * FINGER_START_TOLERANCE, 0.0)
    ex.on_joint_state(closing, 0.2)
    assert ex.tick(0.2).statuses[0]["phase"] == "home"
    closed = JointReading(q, np.zeros(7), 0.5 * FINGER_START_TOLERANCE, 0.0)
    ex.on_joint_state(closed, 0.4)
    tick = ex.tick(0.4)
    assert "phase" not in tick.statuses[0] and tick.lead_s > 0.0  # the policy runs


def test_the_command_path_model_is_read_once_not_per_request(library_dir, monkeypatch):
    """Reading config/safety.yaml costs milliseconds (tens under load) in the first control
    period of a request; the executor reads the command path's model once, when built."""
    import json as _json

    from sims.robots.actuator import ActuatorModel
    from tests.runtime.rollout_fixtures import drive

    reads = []
    original = ActuatorModel.panda.__func__

    def counted(cls, *args, **kwargs):
        reads.append(1)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(ActuatorModel, "panda", classmethod(counted))
    ex = make_executor(library_dir, shape_commands=True)
    built = len(reads)
    t = 0.0
    for k in range(2):
        goal = list(panda.fk_tcp(panda.home_joint_positions) + [0.0, 0.0, -0.05])
        request = {"id": f"r{k}", "skill": "reach", "params": {"target": goal}}
        ex.on_request(_json.dumps(request), t)
        _, targets, t = drive(ex, t, 3)
        assert targets  # the policy ran and its targets went through the command path
        ex.cancel(f"r{k}", t)
    assert built == 1 and len(reads) == built


def test_the_card_lift_gate_holds_the_lift_until_the_fingers_stop(tmp_path):
    """A pick_place card with ``lift_after_grip_threshold_m``: the node runs the sims'
    LiftGate on the policy's actions, with the fingers' measured opening; a policy that
    closes and goes up gets no higher TCP target while the opening still changes, and one
    as soon as it stops."""
    from sims.robots import panda as arm

    skill_dir = random_skill(tmp_path, "pick_place")
    card = skill_dir / "skill.yaml"
    text = card.read_text()
    anchor = "  scale:\n"
    assert text.count(anchor) == 1
    card.write_text(text.replace(anchor, anchor + "    lift_after_grip_threshold_m: 0.001\n"))
    params = dataclasses.replace(SkillNodeParams(), shape_commands=False, stall_window_s=0.0)
    ex = skill_executor(SkillLibrary.load(tmp_path), SCENE, params)
    skill = ex.library.skills["pick_place"]
    assert skill.cfg.lift_after_grip_threshold_m == 0.001
    object.__setattr__(skill, "policy", _Up())
    q = panda.home_joint_positions.copy()
    pad = np.array(SCENE.places["left_pad"].position)
    objects = dict(OBJECTS, red_cube=ObjectPose(pad + [0.0, -0.15, 0.02], 0.0))
    ex.on_joint_state(JointReading(q, np.zeros(7), 0.08, 0.0), 0.0)
    ex.on_objects(objects)
    (running,) = ex.on_request(
        request("p", "pick_place", object="red_cube", target="left_pad"), 0.0
    )
    assert running["state"] == "running", running["reason"]
    tcp_z = arm.fk_tcp(q)[2]
    rises = []
    for k, width in enumerate([0.08, 0.076, 0.072, 0.068, 0.0675]):
        t = 0.04 * (k + 1)
        ex.on_joint_state(JointReading(q, np.zeros(7), width, t), t)
        out = ex.tick(t)
        rises.append(arm.fk_tcp(out.targets.arm)[2] - tcp_z)
    assert max(rises[:4]) < 1e-4  # the close and three periods of moving fingers: held
    assert rises[4] > 0.005  # 0.5 mm in the last period: the fingers stopped


class _Up:
    """A policy that closes the fingers and asks for the hand to go up, every period."""

    def act(self, obs):
        return np.array([0.0, 0.0, 1.0, -1.0], dtype=np.float32)
