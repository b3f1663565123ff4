"""Whole-arm checks: the supervisor keeps every checked link sphere (links 2-7, hand,
fingers; :mod:`miles_ros.safety.links`) out of the keep-out zones, inside the workspace
and above the table, with the TCP rule's braking and blending; property-based over
adversarial command streams, plus the cases a TCP-only check misses."""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from safety_harness import BEHIND, HOME, LINK_ZONES, examples, make_run

from miles_ros.safety import SafetyConfig
from miles_ros.safety.kinematics import lipschitz_radii
from miles_ros.safety.links import (
    Boundaries,
    link_clearance,
    link_context,
    link_violations,
    with_boundaries,
)
from miles_ros.safety.shaping import joint_state
from miles_ros.safety.zones import clearance, parse_zone, zone_arrays
from sims.kernels.kinematics import dls_ik_step
from sims.robots import panda
from sims.robots import panda_spheres as ps

LEAN_BACK = HOME + np.array([0.0, -0.6, 0.0, 0.9, 0.0, 0.0, 0.0])
"""Leans the arm back: links 3-6 enter BEHIND, the TCP stays ahead of it."""


def _violations(run, config):
    return link_violations(
        np.array(run.positions),
        config.workspace,
        config.zones,
        config.table_height,
        config.link_workspace_margin,
        config.zone_padding,
    )


def _tcp_in_box(positions, spec):
    box = parse_zone(spec)[0]
    tcp = panda.fk_tcp_batch(np.ascontiguousarray(positions))
    return np.any(np.all((tcp > box.lower) & (tcp < box.upper), axis=1))


def test_links_are_kept_out_of_a_zone_that_the_tcp_never_enters():
    zones = SafetyConfig().keepout_zones + (BEHIND,)
    checked = SafetyConfig(keepout_zones=zones, fault_violations=0)
    tcp_only = SafetyConfig(keepout_zones=zones, fault_violations=0, link_checks=False)
    runs = {}
    for name, config in (("checked", checked), ("tcp_only", tcp_only)):
        run = make_run(config)
        run.tick()
        run.stream(LEAN_BACK, 500)
        runs[name] = run
        assert not _tcp_in_box(np.array(run.positions), BEHIND)
    # Without link checks the arm leans into the zone; with them it stops at its edge.
    assert _violations(runs["tcp_only"], checked) > 0
    assert np.allclose(runs["tcp_only"].positions[-1], LEAN_BACK, atol=1e-6)
    assert _violations(runs["checked"], checked) == 0
    final = runs["checked"].positions[-1]
    assert not np.allclose(final, LEAN_BACK, atol=0.05)
    centres, radii = ps.link_spheres(final)
    box = parse_zone(BEHIND)[0]
    gap = np.max(np.maximum(np.array(box.lower) - centres, centres - np.array(box.upper)), 1)
    assert np.min(gap - radii) < 0.05  # it got close: limited, not refused far away
    assert runs["checked"].sup.stats["rejected"] == 0


def test_the_hand_stays_above_the_table_where_the_tcp_may_go():
    # The hand tilted sideways and lowered: its body reaches the table while the TCP is
    # still above the workspace floor (1 cm below the table top).
    config = SafetyConfig(fault_violations=0)
    target = np.array([-0.7, 0.41, 0.4, -2.92, 0.91, 2.1, -0.38])
    tcp_z = panda.fk_tcp_batch(np.linspace(HOME, target, 50))[:, 2]
    assert tcp_z.min() > config.workspace_min[2]
    assert (
        link_violations(
            target[None],
            config.workspace,
            (),
            0.0,
            0.1,
        )
        > 0
    )
    run = make_run(config)
    run.tick()
    run.stream(target, 500)
    assert _violations(run, config) == 0
    centres, radii = ps.link_spheres(np.array(run.positions))
    body = ~ps.link_mask(ps.MOUNTED_LINKS + ps.TOOL_LINKS)
    assert np.min(centres[:, body, 2] - radii[body]) >= 0.0


def test_an_arm_started_with_a_link_in_a_zone_moves_out_and_never_deeper():
    start = LEAN_BACK
    zones = SafetyConfig().keepout_zones + (BEHIND,)
    config = SafetyConfig(keepout_zones=zones, fault_violations=0)
    run = make_run(config, q0=start)
    run.tick()
    run.stream(HOME, 800)
    js = joint_state(config.limits, lipschitz_radii())
    ws = np.concatenate(config.workspace)
    boxes, spheres = zone_arrays(config.zones)
    lk = with_boundaries(link_context(True, 0.0, config.link_workspace_margin), boxes, spheres)
    still = np.zeros(7)
    points = [
        link_clearance(q, still, still, js, ws, boxes, spheres, 0.0, lk)[1]
        for q in [start] + run.positions
    ]
    assert points[0] < 0.0  # started inside
    assert np.all(np.diff(points) >= -1e-9)  # never deeper
    assert points[-1] > 0.0  # and out
    assert np.allclose(run.positions[-1], HOME, atol=1e-3)


def test_a_grasp_pose_above_the_table_is_reached_unchanged():
    # The pick skill's lowest pose: the TCP at a cube's centre on the table, hand down.
    q = HOME.copy()
    goal = np.array([0.45, -0.10, 0.02])
    for _ in range(200):
        q = q + dls_ik_step(q, goal - panda.fk_tcp(q), 0.05)
    assert np.allclose(panda.fk_tcp(q), goal, atol=1e-4)
    paths = []
    for link_checks in (True, False):
        config = SafetyConfig(fault_violations=0, link_checks=link_checks)
        run = make_run(config)
        run.tick()
        # Streamed as a skill does (a straight joint path over 1.5 s), then held.
        for target in np.linspace(HOME, q, 375):
            run.request(target)
            run.tick()
        run.stream(q, 200)
        paths.append(np.array(run.positions))
    assert np.allclose(paths[0][-1], q, atol=1e-9)
    assert _violations(run, SafetyConfig()) == 0
    # The link checks did not change a single output on the way.
    np.testing.assert_array_equal(paths[0], paths[1])


CONFIG = SafetyConfig(keepout_zones=LINK_ZONES, fault_violations=0)

offsets = st.lists(st.floats(-3.0, 3.0), min_size=7, max_size=7)
small = st.lists(st.floats(-0.03, 0.03), min_size=7, max_size=7)
op = st.one_of(
    st.tuples(st.just("jump"), offsets, st.integers(1, 120)),
    st.tuples(st.just("stream"), small, st.integers(1, 60)),
    st.tuples(st.just("silence"), st.integers(1, 60)),
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=1, max_size=12), dt=st.floats(0.001, 0.01))
# Found by this test (about 1 in 4,000 examples): at home a link sphere rests 1.6 mm from
# BEHIND, inside the 5 mm standoff band, and the recovery step let its braking ball grow
# into the zone though the ball had been outside; the stop then left the sphere 0.4 mm in.
@example(
    ops=[("jump", [0.0] * 7, 1), ("jump", [-0.25, 0.2578125, -1.4375, 0.0, 0.0, 0.0, 0.0], 49)],
    dt=0.005859375,
)
def test_no_output_puts_a_link_into_a_zone_or_below_the_table(ops, dt):
    run = make_run(CONFIG)
    assert (
        _violations(run, CONFIG) == 0
        and link_violations(
            HOME[None],
            CONFIG.workspace,
            CONFIG.zones,
            0.0,
            CONFIG.link_workspace_margin,
        )
        == 0
    )
    run.tick(dt)
    for item in ops:
        if item[0] == "jump":
            target = np.clip(
                HOME + np.array(item[1]), panda.joint_position_min, panda.joint_position_max
            )
            for _ in range(item[2]):
                run.request(target)
                run.tick(dt, measured_still=False)
        elif item[0] == "stream":
            for _ in range(item[2]):
                run.request(run.positions[-1] + np.array(item[1]))
                run.tick(dt, measured_still=False)
        else:
            for _ in range(item[1]):
                run.tick(dt, measured_still=False)
    assert _violations(run, CONFIG) == 0
    tcp = run.violations()
    assert tcp.total == 0, tcp


@settings(max_examples=examples(60), deadline=None)
@given(
    unit=st.lists(st.floats(0.0, 1.0), min_size=7, max_size=7),
    to=st.lists(st.floats(0.0, 1.0), min_size=7, max_size=7),
)
def test_boundaries_clearance_is_negative_exactly_where_the_supervisor_sees_a_violation(unit, to):
    """Boundaries.clearance (what the home move plans with) is the supervisor's own measure:
    below zero exactly where the TCP leaves its workspace or enters a zone, or a link
    sphere violates (link_violations); along a line, the least over its poses."""
    config = SafetyConfig()
    span = panda.joint_position_max - panda.joint_position_min
    a = panda.joint_position_min + np.array(unit) * span
    b = panda.joint_position_min + np.array(to) * span
    zones, workspace = config.zones, config.workspace
    boxes, spheres = zone_arrays(zones)
    ws = np.concatenate(workspace)
    args = (config.table_height, config.link_workspace_margin, config.zone_padding)
    line = a[None] + np.linspace(0.0, 1.0, 64)[:, None] * (b - a)[None]
    bounds = Boundaries.of(config)
    each = bounds.clearance(line)
    for q, clear in zip(line[::9], each[::9], strict=True):
        tcp = clearance(panda.fk_tcp(q), 0.0, ws, boxes, spheres, config.zone_padding)
        links = link_violations(q[None], workspace, zones, *args, tolerance=1e-9)
        assert clear <= tcp + 1e-12
        assert (clear < -1e-9) == (tcp < -1e-9 or links > 0), (q, clear, tcp, links)
    along = bounds.clearance(a, line_to=b)[0]
    assert along == pytest.approx(float(each.min()), abs=1e-12)
    stop = float(each.min()) + 0.01  # given up early: still below the threshold
    assert bounds.clearance(a, line_to=b, stop_below=stop)[0] < stop
