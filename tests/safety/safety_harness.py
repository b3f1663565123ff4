"""Helpers shared by the safety tests: a supervisor driven like the node drives it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor, check_commands
from miles_ros.safety.checker import Violations
from miles_ros.safety.links import BOUNDS, ENV, link_flags
from miles_ros.safety.shaping import JMAX, A, V
from miles_ros.safety.zones import Box
from sims.robots import panda
from sims.robots import panda_spheres as ps

HOME = panda.home_joint_positions.copy()
NAMES = panda.JOINT_NAMES
PERIOD = 0.004
OBSTACLES = (
    *SafetyConfig().keepout_zones,
    "obstacle sphere 0.45 0.0 0.3 0.08",
    "post box 0.2 0.3 -0.1 0.3 0.4 0.6",
)
"""The property tests' keep-out zones: the default ones (the robot's base), a sphere and
a post in the arm's reach."""
BEHIND = "behind box -0.6 -0.3 0.3 -0.25 0.3 0.8"
"""A box behind the robot, out of the TCP's way: links reach into it when the arm leans
back."""
LINK_ZONES = (*OBSTACLES, BEHIND, "ceiling box -0.2 -0.4 0.95 0.5 0.4 1.1")
"""The zones of the whole-arm property test (test_safety_links) and of the corner cases
found with them (test_safety_corners)."""


@dataclass
class Run:
    """A supervisor, its clock and everything it output."""

    sup: SafetySupervisor
    t: float = 0.0
    stamps: list[float] = field(default_factory=list)
    positions: list[np.ndarray] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    velocity: list[np.ndarray] = field(default_factory=list)
    accel: list[np.ndarray] = field(default_factory=list)
    q0: np.ndarray = field(default_factory=lambda: HOME.copy())

    def tick(self, dt: float = PERIOD, measured_still: bool = True) -> None:
        """Advance the clock, feed the measured state (echo of the command) and step."""
        self.t += dt
        q = self.positions[-1] if self.positions else self.q0
        vel = np.zeros(7) if measured_still or not self.velocity else self.velocity[-1]
        self.sup.update_robot_state(NAMES, q, vel, self.t)
        cmd = self.sup.step(self.t)
        if cmd is not None:
            self.stamps.append(cmd.stamp)
            self.positions.append(cmd.positions[:7].copy())
            self.modes.append(cmd.mode)
            self.velocity.append(self.sup._js[:, V].copy())
            self.accel.append(self.sup._js[:, A].copy())

    def request(self, target, stamp_offset: float = 0.0, names=NAMES, velocities=None) -> bool:
        """Submit a request stamped now (plus an offset); with ``velocities``, a trajectory
        point."""
        stamp = self.t + stamp_offset
        vel = None if velocities is None else list(velocities)
        return self.sup.submit(JointRequest(names, list(target), stamp, vel), self.t)

    def stream(self, target, periods: int) -> None:
        """Request ``target`` and step, every period for ``periods`` periods."""
        for _ in range(periods):
            self.request(target)
            self.tick()

    def violations(self) -> Violations:
        """What the independent checker finds in everything output, from ``q0`` at rest:
        the supervisor's limits, its config's workspace box and keep-out zones."""
        config = self.sup.config
        return check_commands(
            np.array(self.stamps),
            np.array(self.positions),
            self.sup.limits,
            workspace=config.workspace,
            zones=config.zones,
            initial=(self.q0, 0.0),
        )

    @property
    def jerk_limits(self) -> np.ndarray:
        return self.sup._js[:, JMAX]


def make_run(config: SafetyConfig | None = None, q0: np.ndarray | None = None) -> Run:
    """A supervisor initialised at ``q0`` (home) at t = 0, one hold command emitted."""
    sup = SafetySupervisor(config or SafetyConfig())
    run = Run(sup)
    if q0 is not None:
        run.q0 = np.asarray(q0, dtype=float).copy()
    sup.update_robot_state(NAMES, run.q0, np.zeros(7), 0.0)
    return run


def examples(n: int) -> int:
    """``n`` property-test examples, scaled by the hypothesis profile (tests/conftest.py:
    1x locally, more in CI)."""
    from hypothesis import settings

    return max(1, n * settings.default.max_examples // 100)


def boundary_clearances(
    config: SafetyConfig, positions: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """Each boundary apart, for arm poses ``positions`` [k, 7] at rest, computed here in
    numpy (not by the supervisor's kernels): the TCP's clearance (m) [k, B] and, with
    link checks, every link sphere's [k, S, B], by the link sets of
    :mod:`miles_ros.safety.links` (inf where a boundary does not bound a body; the link
    spheres' walls grown by the link margin). Columns: the workspace walls at x, y, z
    min, at x, y, z max, the table, the keep-out boxes and spheres in config order."""
    qs = np.atleast_2d(np.asarray(positions, dtype=float))
    lo, hi = config.workspace

    def columns(p, grow, table):
        out = [p[..., k] - (lo[k] - grow) for k in range(3)]
        out += [hi[k] + grow - p[..., k] for k in range(3)]
        out.append(p[..., 2] - table)
        for z in config.zones:
            if isinstance(z, Box):
                d = np.maximum(np.array(z.lower) - p, p - np.array(z.upper))
                outside = np.linalg.norm(np.maximum(d, 0.0), axis=-1)
                out.append(np.where(d.max(-1) > 0.0, outside, d.max(-1)))
            else:
                out.append(np.linalg.norm(p - np.array(z.center), axis=-1) - z.radius)
        return np.stack(out, -1) - config.zone_padding

    tcp = columns(panda.fk_tcp_batch(np.ascontiguousarray(qs)), 0.0, -np.inf)
    if not config.link_checks:
        return tcp, None
    centres, radii = ps.link_spheres(qs)
    links = columns(centres, config.link_workspace_margin, config.table_height)
    links -= radii[None, :, None]
    flags = link_flags(True)
    links[:, flags[:, ENV] == 0.0, :] = np.inf
    links[:, flags[:, BOUNDS] == 0.0, :7] = np.inf
    return tcp, links


def deepest_entry(clearances: np.ndarray) -> float:
    """The deepest (m, <= 0) that a body got into a boundary it had been out of:
    ``clearances`` [k, ...] (one column per body and boundary, over k outputs), each
    column from its first output at or above zero on."""
    cl = clearances.reshape(clearances.shape[0], -1)
    outside = cl >= 0.0
    seen = np.maximum.accumulate(outside, axis=0)
    return float(min(0.0, np.where(seen, cl, np.inf).min()))
