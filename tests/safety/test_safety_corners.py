"""Recovery near two boundaries: an arm whose TCP or a link sphere is past one boundary
(its braking ball past it: the recovery step applies) and close to another may move out
of the first, but neither the TCP nor any link sphere enters a boundary it was out of
(each workspace wall, the table, each keep-out zone apart:
:func:`safety_harness.boundary_clearances`)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safety_harness import (
    HOME,
    LINK_ZONES,
    boundary_clearances,
    deepest_entry,
    examples,
    make_run,
)

from miles_ros.safety import SafetyConfig
from miles_ros.safety.links import ENV, link_flags
from sims.robots import panda
from sims.robots import panda_spheres as ps

TCP_ONLY = SafetyConfig(fault_violations=0, link_checks=False)


def _run(config, q0, target, periods=250):
    run = make_run(config, q0=q0)
    run.tick()
    run.stream(target, periods)
    return run, boundary_clearances(config, np.array([q0, *run.positions]))


def test_a_tcp_past_one_wall_stays_out_of_the_next():
    """Found by a search (200 starts past one boundary and within 1 cm of another): the
    TCP 23.4 mm past the workspace's y-min wall and 1.9 mm inside its x-min wall, a far
    target. When the recovery step read only the nearest boundary, the TCP point could
    get as close to the x-min wall as it was to the y-min one: it ended 18.6 mm past it."""
    q0 = np.array([0.5465, -1.7628, -1.1143, -1.1345, 0.1072, 2.9532, 0.7372])
    target = np.array([-2.6026, -0.8767, -1.922, -2.3222, 1.8742, 3.517, -1.1034])
    _, (tcp, _) = _run(TCP_ONLY, q0, target)
    assert -0.025 < tcp[0, 1] < -0.02 and 0.0 < tcp[0, 0] < 0.002  # the corner
    assert deepest_entry(tcp) >= -1e-9, deepest_entry(tcp)
    # That target leads into the x-min wall: the arm holds. Home leads out of the corner:
    # the recovery step still brings the arm back (in 490 periods).
    home, (tcp, _) = _run(TCP_ONLY, q0, HOME, 600)
    assert np.array_equal(home.positions[-1], HOME)
    assert deepest_entry(tcp) >= -1e-9


def test_a_hand_below_the_table_stays_out_of_the_zone_beside_it():
    """Found by the same search, whole arm: a hand sphere 13.3 mm below the table top and
    2.4 mm from the ``post`` zone. When each sphere's recovery step read only its nearest
    boundary, the hand moved up out of the table and 8.7 mm into the post."""
    config = SafetyConfig(fault_violations=0, keepout_zones=LINK_ZONES)
    q0 = np.array([0.4767, 0.3204, 0.1448, -2.8398, 1.5777, 1.8948, 1.6559])
    target = np.array([1.7596, -0.5791, 0.4798, -2.2663, 1.222, 0.641, 0.2762])
    _, (tcp, links) = _run(config, q0, target)
    hand = 23  # panda_hand's first sphere; columns: 6 the table, 9 the post
    assert ps.sphere_links[hand] == "panda_hand"
    assert -0.015 < links[0, hand, 6] < -0.01 and 0.0 < links[0, hand, 9] < 0.003
    assert deepest_entry(links) >= -1e-9, deepest_entry(links)
    assert deepest_entry(tcp) >= -1e-9  # (that target's way passes the post: it holds)


_DIRECTIONS = [(axis, sign) for axis in range(3) for sign in (-1.0, 1.0)]
_CHECKED = np.flatnonzero(link_flags(True)[:, ENV])


def _zone(name, kind, centre, face, axis, sign, size=0.2):
    """The spec of a keep-out box or sphere ``size`` across, beyond the plane ``face`` (a
    distance along the direction (``axis``, ``sign``) from ``centre``) and touching it
    there, centred on ``centre`` across that direction."""
    near = centre.copy()
    near[axis] += sign * face
    if kind == "sphere":
        c = near.copy()
        c[axis] += sign * size / 2
        return f"{name} sphere {c[0]} {c[1]} {c[2]} {size / 2}"
    far = near.copy()
    far[axis] += sign * size
    lo = np.minimum(near, far) - np.where(np.arange(3) == axis, 0.0, size / 2)
    hi = np.maximum(near, far) + np.where(np.arange(3) == axis, 0.0, size / 2)
    return f"{name} box {' '.join(map(str, lo))} {' '.join(map(str, hi))}"


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    offsets=st.lists(st.floats(-1.5, 1.5), min_size=7, max_size=7),
    whole_arm=st.booleans(),
    body=st.integers(0, len(_CHECKED)),
    kinds=st.tuples(st.sampled_from(["box", "sphere"]), st.sampled_from(["box", "sphere"])),
    depth=st.floats(0.0005, 0.03),
    gap=st.floats(0.0005, 0.01),
    sides=st.tuples(st.integers(0, 5), st.integers(0, 4)),
    home=st.booleans(),
    target=st.lists(st.floats(-1.5, 1.5), min_size=7, max_size=7),
)
def test_no_output_brings_a_body_into_a_boundary_from_beside_another(
    offsets, whole_arm, body, kinds, depth, gap, sides, home, target
):
    """Two keep-out zones built around a drawn start: the TCP (or a checked link sphere)
    ``depth`` into the first, ``gap`` from the second, on another side; home or a drawn
    target is requested for 1 s. No output brings the TCP or a link sphere into a
    boundary (a zone, a wall, the table) it was out of at the start or since."""
    lo, hi = panda.joint_position_min, panda.joint_position_max
    q0 = np.clip(HOME + np.array(offsets), lo, hi)
    if whole_arm and body < len(_CHECKED):
        s = _CHECKED[body]
        centre, radius = ps.link_spheres(q0)[0][s], ps.sphere_radii[s]
    else:
        centre, radius = panda.fk_tcp(q0), 0.0
    axis_a, sign_a = _DIRECTIONS[sides[0]]
    axis_b, sign_b = [d for d in _DIRECTIONS if d != (axis_a, sign_a)][sides[1]]
    zones = (
        _zone("past", kinds[0], centre, radius - depth, axis_a, sign_a),
        _zone("beside", kinds[1], centre, radius + gap, axis_b, sign_b),
    )
    config = SafetyConfig(
        fault_violations=0,
        link_checks=whole_arm,
        keepout_zones=SafetyConfig().keepout_zones + zones,
    )
    goal = HOME if home else np.clip(HOME + np.array(target), lo, hi)
    _, (tcp, links) = _run(config, q0, goal)
    assert deepest_entry(tcp) >= -1e-9, deepest_entry(tcp)
    if links is not None:
        assert deepest_entry(links) >= -1e-9, deepest_entry(links)
