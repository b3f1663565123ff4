"""Plane geometry of the cell dispatcher's shared-space rule (:mod:`miles_ros.agent.
dispatch`): distances between segments and polylines in the world's x/y (m)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _segment_distance(p1, p2, q1, q2) -> float:
    """Shortest distance (m) between the 2-D segments p1-p2 and q1-q2."""

    def point_segment(p, a, b) -> float:
        ab = (b[0] - a[0], b[1] - a[1])
        n = ab[0] ** 2 + ab[1] ** 2
        t = 0.0 if n == 0.0 else ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / n
        t = min(1.0, max(0.0, t))
        return math.dist(p, (a[0] + t * ab[0], a[1] + t * ab[1]))

    def cross(o, a, b) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    d1, d2 = cross(q1, q2, p1), cross(q1, q2, p2)
    d3, d4 = cross(p1, p2, q1), cross(p1, p2, q2)
    if d1 * d2 < 0.0 and d3 * d4 < 0.0:
        return 0.0  # they cross
    return min(
        point_segment(p1, q1, q2),
        point_segment(p2, q1, q2),
        point_segment(q1, p1, p2),
        point_segment(q2, p1, p2),
    )


def polyline_distance(a: Sequence, b: Sequence) -> float:
    """Shortest distance (m) between two 2-D polylines (a single point is one)."""
    sa = list(zip(a, a[1:], strict=False)) or [(a[0], a[0])]
    sb = list(zip(b, b[1:], strict=False)) or [(b[0], b[0])]
    return min(_segment_distance(p1, p2, q1, q2) for p1, p2 in sa for q1, q2 in sb)
