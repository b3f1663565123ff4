"""The supervisor's state machine: pass-through, rejection, watchdog, e-stop, reset,
faults, Cartesian limits, fingers, audit trail."""

import json
import logging
import math
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from safety_harness import HOME, NAMES, PERIOD, make_run

from miles_ros.safety import (
    AuditLog,
    JointLimits,
    JointRequest,
    PermissionPolicy,
    SafetyConfig,
    SafetySupervisor,
    check_commands,
    check_skill_permission,
)
from miles_ros.safety.kinematics import tcp_position
from miles_ros.safety.zones import parse_zone
from sims.robots import panda


def test_request_inside_limits_passes_unchanged():
    run = make_run()
    run.tick()
    target = HOME + 1e-4
    assert run.request(target)
    run.tick()
    np.testing.assert_array_equal(run.positions[-1], target)
    assert run.sup.mode == "active"
    assert run.sup.audit.count == 0


def test_far_request_is_shaped_and_reported():
    events = []
    run = make_run()
    run.sup.audit.listeners.append(lambda event, line: events.append(json.loads(line)))
    run.tick()
    target = HOME + 0.5
    run.request(target)
    run.tick()
    assert not np.allclose(run.positions[-1], target)
    kinds = {e["kind"] for e in events}
    assert kinds & {"acceleration_limit", "jerk_limit", "scaled"}
    event = next(e for e in events if e["joint"] == NAMES[0])
    assert set(event) >= {"time", "kind", "joint", "requested", "allowed"}
    assert event["requested"] == pytest.approx(target[0])


def test_target_beyond_position_limit_is_clipped_to_the_band():
    run = make_run()
    run.tick()
    target = HOME.copy()
    target[0] = 10.0
    run.stream(target, 600)
    upper = panda.joint_position_max[0] - 0.1
    assert max(p[0] for p in run.positions) <= upper + 1e-12
    assert run.positions[-1][0] == pytest.approx(upper, abs=1e-6)


@pytest.mark.parametrize(
    ("names", "positions", "stamp_offset", "kind"),
    [
        (NAMES, [math.nan] + list(HOME[1:]), 0.0, "non_finite"),
        (NAMES, [math.inf] + list(HOME[1:]), 0.0, "non_finite"),
        (NAMES, list(HOME[:6]), 0.0, "wrong_length"),
        (NAMES[:6] + ("elbow",), list(HOME), 0.0, "unknown_joint"),
        (NAMES[:6], list(HOME[:6]), 0.0, "missing_joint"),
        (NAMES[:6] + (NAMES[0],), list(HOME), 0.0, "duplicate_joint"),
        (NAMES, list(HOME), -1.0, "stale"),
        (NAMES, list(HOME), 1.0, "future_stamp"),
    ],
)
def test_malformed_requests_are_refused_and_counted(names, positions, stamp_offset, kind):
    run = make_run()
    run.tick()
    before = run.positions[-1].copy()
    assert not run.request(positions, stamp_offset=stamp_offset, names=names)
    run.tick()
    np.testing.assert_array_equal(run.positions[-1], before)
    assert run.sup.stats[f"rejected:{kind}"] == 1


def test_missing_and_reordered_stamps_are_refused():
    run = make_run()
    run.tick()
    assert not run.sup.submit(JointRequest(NAMES, HOME, None), run.t)
    assert not run.sup.submit(JointRequest(NAMES, HOME, 0.0), run.t)
    assert run.request(HOME + 1e-4)
    assert not run.request(HOME + 2e-4, stamp_offset=-0.001)  # older than the last one
    assert run.sup.stats["rejected:missing_stamp"] == 2
    assert run.sup.stats["rejected:out_of_order"] == 1


def test_rejections_are_logged_once_per_burst(caplog):
    run = make_run(SafetyConfig(fault_violations=0))
    run.tick()
    with caplog.at_level(logging.WARNING, logger="miles_ros.safety"):
        run.stream([math.nan] * 7, 50)
        run.t += 2.0  # a quiet period ends the burst
        run.request([math.nan] * 7)
    lines = [r.getMessage() for r in caplog.records if "non_finite" in r.getMessage()]
    assert len(lines) == 2
    assert "49 more" in lines[1]
    assert run.sup.stats["rejected:non_finite"] == 51


def test_arm_only_request_leaves_fingers_and_finger_range_is_clipped():
    names = NAMES + panda.FINGER_JOINT_NAMES
    run = make_run()
    run.tick()
    run.sup.update_robot_state(names, list(HOME) + [0.02, 0.02], [0.0] * 9, run.t)
    assert run.request(HOME)
    cmd = run.sup.step(run.t + PERIOD)
    assert cmd.names == NAMES  # fingers never requested: not commanded
    t = run.t + PERIOD
    assert run.sup.submit(JointRequest(names, list(HOME) + [0.5, -0.5], t), t)
    assert run.sup.stats["rejected"] == 0
    assert run.sup.audit.count == 2  # both fingers clipped into the gripper's travel
    fingers = []
    for _ in range(200):
        t += PERIOD
        run.sup.update_robot_state(names, list(HOME) + [0.02, 0.02], [0.0] * 9, t)
        run.sup.submit(JointRequest(NAMES, list(HOME), t), t)  # arm only from now on
        cmd = run.sup.step(t)
        fingers.append(cmd.positions[7:])
    assert cmd.names == names
    np.testing.assert_allclose(fingers[0], [0.02 + 0.05 * PERIOD, 0.02 - 0.05 * PERIOD])
    np.testing.assert_allclose(fingers[-1], [panda.finger_position_max, 0.0])


def test_watchdog_stops_and_holds_after_silence():
    events = []
    run = make_run()
    run.sup.audit.listeners.append(lambda event, line: events.append(event.kind))
    run.tick()
    target = HOME.copy()
    target[0] += 1.0
    run.stream(target, 75)  # chasing a far target for 0.3 s, then silence
    assert run.sup.mode == "active"
    moving_at = len(run.positions)
    for _ in range(200):
        run.tick()
    assert "watchdog" in events
    assert run.sup.mode == "hold"
    assert np.all(run.positions[-1] == run.positions[-2])
    assert run.positions[-1][0] < target[0] - 0.1  # stopped short of the target
    # It decelerated within the limits rather than freezing in one period.
    v = check_commands(np.array(run.stamps), np.array(run.positions), run.sup.limits)
    assert v.total == 0
    assert run.positions[-1][0] - run.positions[moving_at + 25][0] > 0.01


def test_estop_input_latches_and_release_alone_does_not_reset():
    run = make_run()
    run.tick()
    run.sup.set_estop_input(True, run.t)
    assert run.sup.latched
    run.sup.set_estop_input(False, run.t)
    assert run.sup.latched
    assert not run.request(HOME + 1e-4)
    assert run.sup.stats["rejected:estop_latched"] == 1
    for _ in range(5):
        run.tick()
    ok, why = run.sup.reset_estop(run.t)
    assert ok, why
    assert not run.sup.latched and run.sup.mode == "hold"


def test_reset_refused_while_input_pressed_moving_or_stopping():
    run = make_run()
    run.tick()
    for k in range(100):
        run.request(HOME + 0.8 * PERIOD * (k + 1))
        run.tick()
    run.sup.set_estop_input(True, run.t)
    run.tick()
    ok, why = run.sup.reset_estop(run.t)
    assert not ok and "pressed" in why
    run.sup.set_estop_input(False, run.t)
    ok, why = run.sup.reset_estop(run.t)
    assert not ok and "in progress" in why
    for _ in range(200):
        run.tick(measured_still=False)  # measured velocity echoes the command
    assert run.sup.mode == "estop"
    run.sup.update_robot_state(NAMES, run.positions[-1], np.full(7, 0.05), run.t)
    ok, why = run.sup.reset_estop(run.t)
    assert not ok and "moving" in why
    run.sup.update_robot_state(NAMES, run.positions[-1], np.zeros(7), run.t)
    assert run.sup.reset_estop(run.t)[0]


def test_lost_robot_state_latches():
    run = make_run()
    run.tick()
    t = run.t
    for _ in range(200):  # no joint_states from now on
        t += PERIOD
        run.sup.step(t)
    assert run.sup.latched
    assert "robot state lost" in run.sup.state()["reason"]
    ok, why = run.sup.reset_estop(t)
    assert not ok and "robot state" in why


def test_repeated_violations_latch():
    run = make_run(SafetyConfig(fault_violations=10, fault_window=1.0))
    run.tick()
    for _ in range(9):
        run.request([math.nan] * 7)
    assert not run.sup.latched
    run.request([math.nan] * 7)
    assert run.sup.latched
    assert "repeated violations" in run.sup.state()["reason"]


def test_state_json_fields():
    run = make_run()
    state = run.sup.state()
    assert set(state) == {"estop", "mode", "interventions", "reason"}
    assert json.loads(json.dumps(state)) == state


def test_reduced_speed_caps_the_tcp_speed():
    run = make_run(SafetyConfig(reduced_speed=True))
    run.tick()
    target = HOME.copy()
    target[0] += 1.0  # joint 1 sweeps the TCP sideways
    run.stream(target, 300)
    p = np.array([tcp_position(q) for q in run.positions])
    speed = np.linalg.norm(np.diff(p, axis=0), axis=1) / np.diff(run.stamps)
    assert speed.max() <= 0.25 + 1e-9
    assert speed.max() > 0.2  # it did move at about the cap


def test_keepout_sphere_is_never_entered():
    zone = "obstacle sphere 0.31 0.15 0.49 0.05"
    run = make_run(SafetyConfig(keepout_zones=(zone,)))
    run.tick()
    target = HOME.copy()
    target[0] += 0.9  # the TCP's arc passes through the sphere
    run.stream(target, 500)
    violations = check_commands(
        np.array(run.stamps),
        np.array(run.positions),
        run.sup.limits,
        zones=(parse_zone(zone)[0],),
        initial=(HOME, 0.0),
    )
    assert violations.total == 0
    assert violations.worst["clearance"] >= 0.0
    assert run.positions[-1][0] < target[0] - 0.1  # it stopped short of the zone


def _cartesian_details(config: SafetyConfig, target: np.ndarray, periods: int) -> list[str]:
    audit = AuditLog(None, throttle=0.0)
    events = []
    audit.listeners.append(lambda event, line: events.append(event))
    run = make_run(config)
    run.sup.audit = audit
    run.tick()
    run.stream(target, periods)
    return [e.detail for e in events if e.kind == "cartesian"]


@pytest.mark.parametrize(
    ("config", "joint", "delta", "boundary"),
    [
        # The hand's arc passes through a sphere in front of it.
        (
            SafetyConfig(keepout_zones=("obstacle sphere 0.31 0.15 0.49 0.05",)),
            0,
            0.9,
            "panda_hand at zone obstacle",
        ),
        # Shoulder forward: the TCP alone (no link checks) goes down to the floor.
        (SafetyConfig(link_checks=False), 1, 1.2, "TCP at workspace z min"),
        # The same with the links checked: the hand meets the table first.
        (SafetyConfig(), 1, 1.2, "panda_hand at the table"),
    ],
)
def test_cartesian_events_name_the_boundary_they_met(config, joint, delta, boundary):
    target = HOME.copy()
    target[joint] += delta
    details = _cartesian_details(config, target, 600)
    assert details, "the request never met a Cartesian limit"
    assert all("nearest boundary: " in d for d in details)
    assert any(boundary in d for d in details), sorted(set(details))[:5]


def test_scale_mode_keeps_the_direction():
    run = make_run(SafetyConfig(limit_mode="scale"))
    run.tick()
    direction = np.array([1.0, 0.5, -0.5, 0.3, 0.2, -0.4, 0.6])
    run.request(HOME + direction)
    run.tick()
    step = run.positions[-1] - HOME
    cos = step @ direction / (np.linalg.norm(step) * np.linalg.norm(direction))
    assert cos == pytest.approx(1.0, abs=1e-9)


def test_joint_started_outside_the_band_does_not_go_further_out():
    q0 = HOME.copy()
    q0[0] = panda.joint_position_max[0] - 0.05  # inside the 0.1 rad margin
    run = make_run(q0=q0)
    run.tick()
    target = q0.copy()
    target[0] = 10.0
    run.stream(target, 100)
    assert max(p[0] for p in run.positions) <= q0[0]


def test_audit_jsonl_and_throttle(tmp_path):
    path = tmp_path / "audit.jsonl"
    audit = AuditLog(path, throttle=0.1)
    sup = SafetySupervisor(SafetyConfig(), audit=audit, time_offset=1000.0)
    published = []
    audit.listeners.append(lambda event, line: published.append(json.loads(line)))
    sup.update_robot_state(NAMES, HOME, [0.0] * 7, 0.0)
    for k in range(20):
        sup.submit(JointRequest(NAMES, [math.nan] * 7, 0.01 * k + 0.001), 0.01 * k + 0.001)
    sup.trigger_estop("test", 0.3)
    audit.close()
    assert audit.count == 21
    # The file keeps every event; the published stream one per kind per window, with the
    # count of the ones left out.
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["kind"] for e in lines].count("non_finite") == 20
    assert all(e["suppressed"] == 0 for e in lines)
    assert [e["kind"] for e in published].count("non_finite") == 2
    assert published[1]["suppressed"] == 9
    for events in (lines, published):
        assert events[-1]["kind"] == "estop" and events[-1]["time"] == pytest.approx(1000.3)


def test_published_events_are_throttled_per_kind_not_per_joint():
    """A limited skill: every joint shaped every period is one event per kind per window
    on the stream (was one per kind and joint, ~70 messages/s)."""
    audit = AuditLog(None, throttle=0.1)
    published = []
    audit.listeners.append(lambda event, line: published.append(event))
    for k in range(250):  # 1 s at 250 Hz, 7 joints
        for joint in NAMES:
            audit.add(0.004 * k, "velocity_limit", joint, 1.0, 0.5, "shaped")
    assert audit.count == 250 * 7
    assert 9 <= len(published) <= 11
    assert sum(e.suppressed for e in published) + len(published) <= audit.count
    assert published[1].suppressed == 25 * 7 - 1


def test_skill_permissions():
    policy = PermissionPolicy.from_specs(
        ["move", "contact"], ["operator box 0.2 0.2 0.0 0.6 0.6 0.5 forbid=contact"]
    )
    assert check_skill_permission(policy, "reach", ["move"]).allowed
    refused = check_skill_permission(policy, "fly", ["move", "airborne"])
    assert not refused.allowed and "airborne" in refused.reason
    inside = np.array([0.4, 0.4, 0.2])
    assert not check_skill_permission(policy, "push", ["contact"], inside).allowed
    assert check_skill_permission(policy, "push", ["contact"], np.array([0.4, -0.4, 0.2])).allowed


def test_supervisor_refuses_requests_of_a_disallowed_skill():
    run = make_run(SafetyConfig(allowed_skill_tags=("move",)))
    run.tick()
    decision = run.sup.set_skill("push", ["contact"], run.t)
    assert not decision.allowed
    assert not run.request(HOME + 1e-4)
    assert run.sup.stats["rejected:permission"] == 1
    assert run.sup.set_skill("reach", ["move"], run.t).allowed
    assert run.request(HOME + 1e-4)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("position_margin", -0.1),
        ("velocity_scale", 1.5),
        ("limit_mode", "wobble"),
        ("keepout_zones", ("bad cube 1 2 3",)),
        ("workspace_min", (1.0, 0.0, 0.0)),
        ("position_margin", 0.9),
        ("joint_names", ("a", "b")),
        ("tracking_tolerance", 0.0),
        ("tracking_tolerance", math.inf),
    ],
)
def test_invalid_config_is_refused(field, value):
    with pytest.raises(ValueError):
        SafetySupervisor(SafetyConfig(**{field: value}))


def test_band_too_narrow_to_stop_in_is_refused():
    limits = JointLimits.from_robot()
    narrow = JointLimits(
        limits.position_min,
        limits.position_min + 0.5,
        limits.velocity,
        limits.acceleration,
        limits.jerk,
        margin=0.1,
    )
    with pytest.raises(ValueError, match="too narrow"):
        narrow.validate()


def test_config_yaml_mirrors_the_defaults():
    import yaml

    from miles_ros.params.safety import SafetyNodeNames

    path = Path(__file__).resolve().parents[2] / "config" / "safety.yaml"
    params = yaml.safe_load(path.read_text())["safety_node"]["ros__parameters"]
    defaults = {**asdict(SafetyConfig()), **asdict(SafetyNodeNames())}
    for name, value in params.items():
        expected = defaults.pop(name)
        assert (list(expected) if isinstance(expected, tuple) else expected) == value, name
    assert all(v == () for v in defaults.values()), defaults  # only empty lists left out


def test_tcp_position_matches_the_robot_model():
    rng = np.random.default_rng(0)
    for _ in range(200):
        q = rng.uniform(panda.joint_position_min, panda.joint_position_max)
        np.testing.assert_allclose(tcp_position(q), panda.fk_tcp(q), atol=1e-12)


def test_a_slower_stream_is_followed_without_stop_and_go():
    """A skill at 50 Hz under a 250 Hz output: the output continues the stream's motion
    between requests instead of braking toward each request's point."""
    run = make_run()
    run.tick()
    speed = 0.3
    t0 = run.t
    for k in range(400):
        if k % 5 == 0:  # a request every 20 ms, stamped with its own time
            target = HOME.copy()
            target[0] += speed * (run.t - t0)
            assert run.request(target)
        run.tick()
    v = np.diff(np.array(run.positions)[:, 0]) / np.diff(run.stamps)
    steady = v[100:]
    assert np.all(np.abs(steady - speed) < 1e-6)
    assert run.sup.stats["rejected"] == 0


def test_warm_up_runs_quietly_and_leaves_no_audit_file(tmp_path, caplog):
    from miles_ros.safety.supervisor import warm_up

    with caplog.at_level(logging.DEBUG, logger="miles_ros.safety"):
        warm_up(SafetyConfig(audit_path=str(tmp_path / "audit.jsonl")))
    assert not (tmp_path / "audit.jsonl").exists()
    assert not caplog.records
