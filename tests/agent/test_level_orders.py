"""One tie rule for every order a reference ranks cubes by (docs/interfaces.md, "Default
scene"): two cubes are level on an order (left to right in y, front to back in x, near to
far from the base, near to far from a place) when they lie 1 cm or less apart on it, 1 cm
itself included, whatever the last bits of the floating-point difference say; a reference
that would have to choose between level cubes is asked back with them as the options."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from miles_ros.agent.conditions import branch_taken
from miles_ros.agent.reference_scene import TIE_M, beyond_level, holds, level
from tests.agent.reading_harness import CUBES, SCENE, _read, moved

ONE_CM_PAIRS = {
    "left to right": [(0.0, 0.01), (0.12, 0.13), (0.20, 0.21)],
    "front to back": [(0.35, 0.36), (0.40, 0.41), (0.30, 0.31)],
    "near to far": [(0.35, 0.36), (0.40, 0.41), (0.30, 0.31)],
}
"""Per order, two values 1 cm apart in decimal, whose double difference reads exactly 0.01
(0.0 / 0.01), just over it (0.12 / 0.13, 0.30 / 0.31, 0.35 / 0.36: 0.010000000000000009) or
just under it (0.20 / 0.21: 0.009999999999999981; 0.40 / 0.41: 0.009999999999999953)."""

ORDERS = {
    "left to right": (
        "Hover over the leftmost cube.",
        lambda p: -p[1],
        lambda a, b: [(0.40, b), (0.55, a), (0.50, -0.25)],
    ),
    "front to back": (
        "Move the cube at the front to the grey pad.",
        lambda p: p[0],
        lambda a, b: [(a, 0.11), (b, -0.19), (0.64, -0.05)],
    ),
    "near to far": (
        "Hover over the cube nearest to you.",
        lambda p: math.hypot(p[0], p[1]),
        lambda a, b: [(0.8 * a, -0.6 * a), (0.8 * b, 0.6 * b), (0.62, 0.0)],
    ),
}
"""Each order: the goal, a cube's value on it (the superlative picks the smallest), and a
scene with the red cube at ``a`` and the green cube at ``b`` on it (a < b), the blue cube
beyond both by far."""


def test_level_is_one_cm_or_less_rounding_included():
    said = {repr(b - a) for pairs in ONE_CM_PAIRS.values() for a, b in pairs}
    assert said == {"0.01", "0.010000000000000009", "0.009999999999999953", "0.009999999999999981"}
    for pairs in ONE_CM_PAIRS.values():
        for a, b in pairs:
            assert level(a, b) and level(b, a)
            assert not beyond_level(b - a) and not beyond_level(a - b)
    assert not level(0.35, 0.362) and beyond_level(0.362 - 0.35)
    assert not beyond_level(-0.05)  # the wrong way along the order is never beyond


def _values(order: str, w) -> dict[str, float]:
    key = ORDERS[order][1]
    return {n: key(p) for n, p in w.objects.items()}


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_two_cubes_one_cm_apart_on_an_order_are_asked(order):
    goal, _, layout = ORDERS[order]
    for a, b in ONE_CM_PAIRS[order]:
        w = moved(layout(a, b))
        values = _values(order, w)
        assert abs(values["green_cube"] - values["red_cube"] - TIE_M) < 1e-9  # 1 cm apart
        assert values["blue_cube"] - values["green_cube"] > 0.05
        _, reading, asks = _read(goal, w)
        assert reading.refusal is None and asks is not None, (order, a, b)
        assert set(asks.options) == {"red_cube", "green_cube"}


@pytest.mark.parametrize("order", sorted(ORDERS))
@pytest.mark.parametrize("apart", [0.012, 0.02])
def test_two_cubes_more_than_one_cm_apart_are_resolved(order, apart):
    goal, _, layout = ORDERS[order]
    for a, _ in ONE_CM_PAIRS[order]:
        w = moved(layout(a, a + apart))
        values = _values(order, w)
        assert min(values, key=values.get) == "red_cube"
        text, reading, asks = _read(goal, w)
        assert asks is None and reading.refusal is None, (order, a, apart)
        assert "red cube" in text.lower() and "green cube" not in text.lower(), text


def test_held_out_32s_front_tie_is_asked():
    harbor = SCENE.copy()
    harbor.objects = {
        "red_cube": (0.35, 0.11, 0.02),
        "blue_cube": (0.64, -0.05, 0.02),
        "green_cube": (0.36, -0.19, 0.02),
    }
    _, reading, asks = _read("Move the cube at the front to the grey pad.", harbor)
    assert asks is not None and set(asks.options) == {"red_cube", "green_cube"}
    assert holds(harbor, "red_cube", "front", "green_cube") is None
    moved_on = harbor.copy()
    moved_on.objects = {**harbor.objects, "green_cube": (0.362, -0.19, 0.02)}
    _, reading, asks = _read("Move the cube at the front to the grey pad.", moved_on)
    assert asks is None and reading.refusal is None
    assert holds(moved_on, "red_cube", "front", "green_cube") is True


COMPARED = {
    "left to right": ("left", "further left"),
    "front to back": ("front", "further forward"),
    "near to far": ("near", "closer to you"),
}


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_a_comparison_of_two_cubes_one_cm_apart_decides_nothing(order):
    relation, said = COMPARED[order]
    layout = ORDERS[order][2]
    goal = f"If the red cube is {said} than the green one, put it on the left pad."
    for a, b in ONE_CM_PAIRS[order]:
        w = moved(layout(a, b))
        assert holds(w, "red_cube", relation, "green_cube") is None, (order, a, b)
        assert branch_taken(goal, w) == goal
        w = moved(layout(a, a + 0.012))
        assert holds(w, "red_cube", relation, "green_cube") is True, (order, a)
        assert branch_taken(goal, w) == "put the red cube on the left pad."


# -- the property: resolved beyond every other by more than 1 cm, or asked among the level --
SUPERLATIVES = {
    "Hover over the leftmost cube.": lambda w, p: -p[1],
    "Hover over the rightmost cube.": lambda w, p: p[1],
    "Hover over the cube at the front.": lambda w, p: p[0],
    "Hover over the cube furthest back.": lambda w, p: -p[0],
    "Hover over the cube nearest to you.": lambda w, p: math.hypot(p[0], p[1]),
    "Hover over the cube farthest from the robot.": lambda w, p: -math.hypot(p[0], p[1]),
    "Hover over the cube closest to the grey pad.": lambda w, p: math.dist(
        p[:2], w.places["right_pad"][:2]
    ),
}

_MM = st.integers(-15, 15).map(lambda v: v / 1000)
"""An offset in whole millimetres: two cubes this close are often exactly 1 cm apart."""


@st.composite
def layouts(draw):
    """Three cubes on the table, often a few millimetres either side of 1 cm apart."""
    x0, y0 = draw(st.integers(320, 600)) / 1000, draw(st.integers(-250, 250)) / 1000
    spots = [(x0, y0)]
    for _ in range(2):
        if draw(st.booleans()):
            spots.append((round(x0 + draw(_MM), 3), round(y0 + draw(_MM), 3)))
        else:
            spots.append((draw(st.integers(300, 650)) / 1000, draw(st.integers(-300, 300)) / 1000))
    return draw(st.permutations(spots))


@settings(max_examples=150, deadline=None)
@given(layouts(), st.sampled_from(sorted(SUPERLATIVES)))
@example([(0.35, 0.11), (0.36, -0.19), (0.64, -0.05)], "Hover over the cube at the front.")
@example([(0.40, 0.0), (0.5, 0.01), (0.6, -0.2)], "Hover over the rightmost cube.")
def test_a_superlative_resolves_beyond_every_other_by_more_than_1_cm_or_asks(layout, goal):
    w = moved(layout)
    key = SUPERLATIVES[goal]
    values = {n: key(w, p) for n, p in w.objects.items()}
    best = min(values.values())
    text, reading, asks = _read(goal, w)
    assert reading.refusal is None, reading.refusal
    if asks is None:  # beyond every other by more than 1 cm, not by a rounding error
        (picked,) = [n for n in CUBES if n.replace("_", " ") in text.lower()]
        assert all(values[n] - values[picked] > TIE_M + 1e-12 for n in values if n != picked)
    else:  # every cube within 1 cm of the first (rounding included) is an option
        options = set(asks.options)
        assert {n for n, v in values.items() if v - best <= TIE_M + 1e-12} <= options, values
        assert options <= {n for n, v in values.items() if v - best <= TIE_M + 1e-6}, values
        assert len(options) >= 2
