"""Helpers shared by the safety tests: a supervisor driven like the node drives it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor, check_commands
from miles_ros.safety.checker import Violations
from miles_ros.safety.shaping import JMAX, A, V
from miles_ros.safety.zones import parse_zone
from sims.robots import panda

HOME = panda.home_joint_positions.copy()
NAMES = panda.JOINT_NAMES
PERIOD = 0.004


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
            workspace=(np.array(config.workspace_min), np.array(config.workspace_max)),
            zones=tuple(parse_zone(z)[0] for z in config.keepout_zones),
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
