"""bench/push_clearance.py's placements: the second cube it puts beside, behind or near the
approach of a push is one the goal resolver accepts (property tests over random pushes),
so the hits it counts are hits of pushes the path rule lets through."""

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench import push_clearance
from miles_ros.runtime.goals import push_path_error
from sims.tasks import push


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.35, 0.60),
    st.floats(-0.20, 0.20),
    st.floats(-math.pi, math.pi),
    st.floats(0.10, 0.40),
    st.sampled_from(push_clearance.FAMILIES),
    st.integers(0, 2**31),
)
def test_every_placement_is_one_the_rule_accepts(x, y, heading, length, family, seed):
    cube = np.array([x, y])
    goal = cube + length * np.array([math.cos(heading), math.sin(heading)])
    frame = push_clearance.Frame(np.array([0.31, 0.0]), cube, goal)  # the TCP over its home
    rng = np.random.default_rng(seed)
    xy = push_clearance.place_other(frame, family, rng, 0.16, 0.03, 0.0)
    if xy is None:  # none found: the bench leaves the cube parked and counts it
        return
    positions = {"cube": (*cube, push.CUBE_REST_Z), "other": (*xy, push.CUBE_REST_Z)}
    assert push_path_error("cube", goal, positions) is None
    where = frame.where(xy)
    assert push.PATH_CLEARANCE * 100 < where["path_gap_cm"] <= 16.0 + 1e-6 or family == "approach"
    if family == "behind":  # behind the path's start, off the line
        assert where["along_cm"] <= -push.PATH_BEHIND * 100 + 1e-6
    if family == "approach":
        assert where["approach_gap_cm"] <= 3.0 + 1e-6
    assert push_clearance.TABLE_X[0] <= xy[0] <= push_clearance.TABLE_X[1]
    assert push_clearance.TABLE_Y[0] <= xy[1] <= push_clearance.TABLE_Y[1]


def test_hits_are_counted_by_the_cubes_distance_from_the_path_and_side():
    sides = (True, False, True, True, False)
    gaps = (5.8, 6.9, 7.5, 15.0, 40.0)
    where = [{"path_gap_cm": gap, "arm_side": side} for gap, side in zip(gaps, sides, strict=True)]
    placements = [("beside", None, 0.0, w) for w in where] + [("beside", None, 0.0, None)]
    hits = [True, False, True, False, True, True]
    counts = push_clearance.by_gap(placements, hits)
    assert counts == {"0-7": [1, 2], "7-8.5": [1, 1], "14-16": [0, 1], "16-100": [1, 1]}
    assert push_clearance.by_gap(placements, hits, True) == {
        "0-7": [1, 1],
        "7-8.5": [1, 1],
        "14-16": [0, 1],
    }
    assert push_clearance.by_gap(placements, hits, False) == {"0-7": [0, 1], "16-100": [1, 1]}


@given(st.floats(0.35, 0.60), st.floats(-0.20, 0.20), st.floats(-math.pi, math.pi))
@example(0.5, 5e-324, 0.0)  # the base a denormal off the line: the sides' product underflowed
def test_the_arms_side_is_the_side_of_the_push_line_the_base_stands_on(x, y, heading):
    cube = np.array([x, y])
    unit = np.array([math.cos(heading), math.sin(heading)])
    frame = push_clearance.Frame(np.array([0.31, 0.0]), cube, cube + 0.2 * unit)
    base_side = -np.sign(cube @ frame.n)  # the origin's offset from the line, along n
    if base_side == 0:
        return
    assert frame.arm_side(cube + 0.1 * unit + base_side * 0.08 * frame.n)
    assert not frame.arm_side(cube + 0.1 * unit - base_side * 0.08 * frame.n)
