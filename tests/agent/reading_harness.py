"""What the reading tests share (one copy, imported by each module): the default scene and its
three cubes moved or stacked, the shipped cards, the colours and spots hypothesis draws, and
the reading of a goal in scope against the shipped cards."""

from __future__ import annotations

import re

from hypothesis import strategies as st

from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.no_motion import asks_no_motion
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import load_world

CUBES = ("red_cube", "green_cube", "blue_cube")
SCENE = load_world()
SHIPPED = SkillRegistry.load()
COLOURS = frozenset({"red", "green", "blue"})
colours = st.permutations(["red", "green", "blue"])
table = st.tuples(st.floats(0.3, 0.65), st.floats(-0.3, 0.3))
"""One spot on the table a cube may be moved to (x, y)."""


def moved(positions, world=SCENE):
    out = world.copy()
    out.objects = {n: (x, y, 0.02) for n, (x, y) in zip(CUBES, positions, strict=True)}
    return out


def _tower(order, x=0.5, y=0.05):
    """The scene with its three cubes in one tower, ``order`` bottom first."""
    world = SCENE.copy()
    world.objects = {f"{c}_cube": (x, y, 0.02 + 0.04 * i) for i, c in enumerate(order)}
    return world


def two_high(top: str, bottom: str, other: str):
    """The default scene with ``top`` standing on ``bottom``, ``other`` on the table apart."""
    world = SCENE.copy()
    world.objects = {
        f"{bottom}_cube": (0.5, 0.05, 0.02),
        f"{top}_cube": (0.5, 0.05, 0.06),
        f"{other}_cube": (0.4, 0.2, 0.02),
    }
    return world


def _read(goal: str, world=SCENE):
    return read_in_scope(goal, SHIPPED, world)


def read_as_nothing(goal: str) -> None:
    """``goal`` (its first letter raised) is the empty plan: no motion asked
    (:func:`~miles_ros.agent.no_motion.asks_no_motion`), and read so, with no refusal and
    no question back."""
    goal = goal[:1].upper() + goal[1:]
    assert asks_no_motion(goal), goal
    _, reading, asks = _read(goal)
    assert reading.nothing and reading.refusal is None and asks is None, goal


def _said(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(" .")


def plain(said: str, world=SCENE) -> str:
    """``said`` read in ``world`` to a plan's text (no refusal, no question), said plainly."""
    text, reading, asked = _read(said, world)
    assert reading.refusal is None and asked is None, (said, reading.refusal, asked)
    return _said(text)


def read_like(plain: str, goals, world=SCENE):
    """Each of ``goals`` read in ``world`` to the text ``plain`` reads to (but for case and a
    closing full stop); each one's reading (text, reading, asks), for what else a test asks."""
    want = read_in_scope(plain, SHIPPED, world)[0].lower().rstrip(".")
    readings = []
    for goal in goals:
        text, reading, asks = read_in_scope(goal, SHIPPED, world)
        assert text.lower().rstrip(".") == want, goal
        readings.append((text, reading, asks))
    return readings
