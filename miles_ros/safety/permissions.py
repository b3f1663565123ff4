"""Skill permission tags (from skill cards) against a per-deployment policy.

The policy says which tags a skill may carry at all (``allowed_tags``, ``"*"`` = any)
and which tags are forbidden inside named zones (``permission_zones``, e.g. no
``contact`` near the operator). The skill node calls :func:`check_skill_permission`
before dispatching; the safety node, told the active skill's tags on
``/miles/safety/skill_tags``, keeps those zones out while such a skill runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from miles_ros.safety.zones import Zone, clearance, parse_zone, zone_arrays


@dataclass(frozen=True)
class PermissionDecision:
    """Whether a skill may run, and why not."""

    allowed: bool
    """True when the skill may run."""
    reason: str = ""
    """Why it may not (empty when allowed)."""


@dataclass(frozen=True)
class PermissionPolicy:
    """A deployment's permission policy."""

    allowed_tags: frozenset[str] = frozenset({"*"})
    """Tags a skill may carry; '*' allows any."""
    zones: tuple[tuple[Zone, frozenset[str]], ...] = ()
    """(zone, tags forbidden inside it)."""

    @classmethod
    def from_specs(cls, allowed: Sequence[str], zone_specs: Sequence[str]) -> PermissionPolicy:
        """Build from the parameters ``allowed_skill_tags`` and ``permission_zones``."""
        return cls(frozenset(allowed), tuple(parse_zone(spec) for spec in zone_specs))

    def forbidden_zones(self, tags: Iterable[str]) -> tuple[Zone, ...]:
        """Zones a skill with ``tags`` must keep out of."""
        tags = set(tags)
        return tuple(zone for zone, forbid in self.zones if forbid & tags)


def check_skill_permission(
    policy: PermissionPolicy,
    skill: str,
    tags: Iterable[str],
    tcp_position: np.ndarray | None = None,
) -> PermissionDecision:
    """May ``skill`` with ``tags`` start now (TCP at ``tcp_position``, base frame, m)?

    Refused when a tag is not allowed in this deployment, or when the TCP is inside a
    zone that forbids one of its tags.
    """
    tags = sorted(set(tags))
    if "*" not in policy.allowed_tags:
        bad = [t for t in tags if t not in policy.allowed_tags]
        if bad:
            return PermissionDecision(
                False, f"skill {skill!r}: tag(s) {bad} not allowed in this deployment"
            )
    if tcp_position is not None:
        for zone in policy.forbidden_zones(tags):
            boxes, spheres = zone_arrays([zone])
            no_walls = np.array([-1e9, -1e9, -1e9, 1e9, 1e9, 1e9])
            if clearance(np.asarray(tcp_position, float), 0.0, no_walls, boxes, spheres, 0.0) < 0:
                forbid = sorted(dict(policy.zones)[zone] & set(tags))
                return PermissionDecision(
                    False, f"skill {skill!r}: tag(s) {forbid} forbidden inside zone {zone.name!r}"
                )
    return PermissionDecision(True)
