"""The safety supervisor: a small state machine around the shaping and Cartesian kernels.

Inputs: requested joint targets (:meth:`SafetySupervisor.submit`), the measured robot
state (:meth:`update_robot_state`), the e-stop input and services; output: one command
per control period (:meth:`step`), or None before the robot state is known. Times are
float seconds on one clock chosen by the caller (the node uses ROS time minus its start
time, so differences keep full precision); request stamps must be on the same clock.

Modes (``state()["mode"]``):

* ``waiting``: no robot state yet, nothing is output, requests are refused;
* ``active``: following the latest fresh request within every limit;
* ``hold``: no fresh request for ``watchdog_period`` (or just after a reset): a
  controlled stop within the limits, then the position is held;
* ``stopping``: e-stop latched, decelerating (category 1 style stop, jerk-limited);
* ``estop``: latched and stopped: the stopped position is held; every request is refused
  until :meth:`reset_estop` succeeds (arm measured still, e-stop input released).

Tracking: in every mode, a measured joint further than ``tracking_tolerance`` from the
last command (a reset or hand-guided arm, a controller restart, a driver reconnect)
re-seeds the output state from the measured state (its measured velocity when the robot
reports one, else at rest) and stops and holds there (event ``tracking_reset``): the
supervisor never commands a jump back to where it believed the arm was, and the e-stop
hold is the measured stopped pose.

The pieces that do not touch the mode live beside it: request checks and joint layouts
(:mod:`~miles_ros.safety.requests`), the fingers (:mod:`~miles_ros.safety.fingers`), the
per-joint kernel state (:mod:`~miles_ros.safety.shaping`), the one-period check
(:mod:`~miles_ros.safety.cartesian`), the audit trail (:mod:`~miles_ros.safety.audit`).
The class is one state machine over one output state, written in three modules by
concern: this one (construction, skills, the output period, peers, state reports), its
inputs (:class:`~miles_ros.safety.inputs.SupervisorInputs`: robot state, tracking resets,
requests) and its e-stop latch (:class:`~miles_ros.safety.latch.EstopLatch`: input,
services, faults, rejections).
"""

from __future__ import annotations

import dataclasses
from collections import Counter, deque
from collections.abc import Sequence

import numpy as np

from miles_ros.safety import shaping as sh
from miles_ros.safety.audit import LOG, AuditLog, BurstLogger
from miles_ros.safety.candidate import body_rows
from miles_ros.safety.cartesian import supervise_step
from miles_ros.safety.config import SafetyConfig
from miles_ros.safety.explain import nearest_boundary, zone_names
from miles_ros.safety.fingers import FingerCommand
from miles_ros.safety.inputs import SupervisorInputs
from miles_ros.safety.kinematics import lipschitz_radii
from miles_ros.safety.latch import EstopLatch
from miles_ros.safety.links import link_context, with_boundaries
from miles_ros.safety.permissions import PermissionDecision, PermissionPolicy
from miles_ros.safety.requests import FAULT_KINDS, Command, JointRequest, RequestGate
from miles_ros.safety.schedule import TRACKING_CODES, on_schedule, schedule_target
from miles_ros.safety.separation import Occupancy, PeerMonitor, SeparationConfig, occupancy
from miles_ros.safety.zones import boundary_count, zone_arrays
from sims.robots import panda

__all__ = ["FAULT_KINDS", "Command", "JointRequest", "SafetySupervisor", "warm_up"]


class SafetySupervisor(SupervisorInputs, EstopLatch):
    """Takes requests, the measured state and time; returns the commands that may be sent."""

    def __init__(
        self,
        config: SafetyConfig,
        audit: AuditLog | None = None,
        time_offset: float = 0.0,
        separation: SeparationConfig | None = None,
    ) -> None:
        config.validate()
        self.separation = separation
        """Where this arm stands in the cell and which peers it keeps clear of (None: a
        single arm; :mod:`miles_ros.safety.separation`)."""
        self.peers = PeerMonitor(separation) if separation and separation.peers else None
        """The peers' latest occupancy (None without peers)."""
        self._peer_block = ""
        self.config = config
        self.limits = config.limits
        self.audit = audit or AuditLog(config.audit_path or None, config.audit_throttle)
        self.stats: Counter[str] = Counter()
        """Counts: 'steps', 'accepted', 'rejected', 'rejected:<kind>', 'fallback_joints'."""
        self._time_offset = time_offset
        self._burst = BurstLogger(config.log_burst_gap)
        self._gate = RequestGate(config)
        n = len(config.joint_names)
        self._js = sh.joint_state(self.limits, lipschitz_radii())
        self._out = np.zeros((n, 4))
        self._brake = np.zeros((n, 4))
        self._work = np.zeros((n, 6))
        self._env = np.zeros(2)
        self._res = np.zeros(10)
        self._lk = link_context(
            config.link_checks, config.table_height, config.link_workspace_margin
        )
        self._band_widened = False
        self._ws = np.concatenate(config.workspace)
        self._base_zones = config.zones
        self.policy = PermissionPolicy.from_specs(
            config.allowed_skill_tags, config.permission_zones
        )
        self._boxes, self._spheres = zone_arrays(self._base_zones)
        self._zone_names = zone_names(self._base_zones)
        self._scale = config.limit_mode == "scale"
        self._speed_cap = config.tcp_speed_cap
        # Output state.
        self._initialized = False
        self._t_prev = 0.0
        self._p_prev = np.zeros(3)
        self._stop = False
        self._mode = "waiting"
        self._reason = "waiting for robot state"
        # E-stop.
        self._latched = False
        self._input_pressed = False
        # Requests.
        self._target = np.full(n, np.nan)
        self._request_time: float | None = None
        self._request_stamp: float | None = None
        self._stream_velocity: np.ndarray | None = None
        self._traj: tuple | None = None
        """A trajectory's previous and latest points (x0, u0, t0, x1, u1, t1), or None
        while requests are targets (:meth:`_reference`)."""
        self._stream_period = 0.0
        self._new_request = False
        self._fingers = FingerCommand()
        self._violations: deque[float] = deque()
        # Measured state.
        self._measured_q: np.ndarray | None = None
        self._measured_v: np.ndarray | None = None
        self._measured_time: float | None = None
        # Skill permissions.
        self._skill = ""
        self._skill_block = ""

    # --- inputs (robot state and requests: SupervisorInputs; e-stop: EstopLatch) --------
    def set_skill(self, skill: str, tags: Sequence[str], now: float) -> PermissionDecision:
        """The running skill and its permission tags (empty skill = none). A tag that this
        deployment does not allow refuses its requests; zones forbidding one of its tags
        become keep-out zones while it runs."""
        tags = [t for t in tags if t] if skill else []
        decision = PermissionDecision(True)
        if "*" not in self.policy.allowed_tags:
            bad = sorted(set(tags) - self.policy.allowed_tags)
            if bad:
                decision = PermissionDecision(False, f"skill {skill!r}: tag(s) {bad} not allowed")
        self._skill = skill
        self._skill_block = "" if decision.allowed else decision.reason
        zones = self._base_zones + self.policy.forbidden_zones(tags)
        self._boxes, self._spheres = zone_arrays(zones)
        self._zone_names = zone_names(zones)
        if self._initialized:
            self._clearance_now()
        detail = decision.reason or f"skill {skill!r} tags {sorted(tags)}"
        self._record(now, "skill", requested=sorted(tags), detail=detail)
        return decision

    # --- output -----------------------------------------------------------------------
    def step(self, now: float) -> Command | None:
        """The command for the period at ``now`` (None before the robot state is known or
        when ``now`` does not advance)."""
        self._check_faults(now)
        if not self._initialized:
            return None
        h = now - self._t_prev
        if not h > 0.0:
            return None
        if not self._latched:
            fresh = (
                self._request_time is not None
                and now - self._request_time <= self.config.watchdog_period
            )
            if not fresh and not self._stop:
                if self._mode == "active":
                    self._record(now, "watchdog", detail="no fresh request: stop and hold")
                self._begin_stop()
                self._reason = "no fresh request"
        spheres = self._spheres if self.peers is None else self._peer_spheres(now)
        if self._lk[5].shape[1] != 1 + boundary_count(self._boxes, spheres):
            self._clearance_now(spheres)  # a stale peer's envelopes left this period
        stop = self._stop
        js, out, res = self._js, self._out, self._res
        # A trajectory's joints each track their own reference (clamp mode): its points
        # are already shaped, and scaling every joint by the most lagging one's factor
        # would slow them all. Targets keep the configured limit mode.
        scale = self._scale
        js[:, sh.TRACK] = 0.0
        if stop:
            js[:, sh.TARGET] = np.nan
        elif self._traj is not None:
            js[:, sh.TARGET], js[:, sh.TVEL], js[:, sh.TACC] = self._reference(now)
            js[:, sh.TRACK] = 1.0
            scale = False
        else:
            js[:, sh.TARGET] = self._stream_target(now)
        supervise_step(
            js,
            h,
            stop,
            scale,
            out,
            self._brake,
            self._work,
            self._p_prev,
            self._speed_cap,
            self._ws,
            self._boxes,
            spheres,
            self.config.zone_padding,
            res,
            self._lk,
        )
        self._p_prev = res[2:5].copy()
        self._t_prev = now
        if res[5] or (self._new_request and not stop):
            self._report_step(now, h, out, int(res[5]), spheres)
        if self._band_widened:
            self._band_widened = sh.relax_band(self._js, self.limits)
        if self._latched:
            self._mode = "estop" if res[6] else "stopping"
        else:
            self._mode = "hold" if stop else "active"
        self.stats["steps"] += 1
        return self._command(now, h, stop)

    def update_peer_occupancy(self, occ: Occupancy | str, now: float) -> bool:
        """A peer's occupancy (or its JSON). False when refused (logged) or without peers."""
        return self.peers is not None and self.peers.offer(occ, now)

    def occupancy(self, now: float) -> Occupancy | None:
        """This arm's occupancy at its output state, to publish (None before the robot
        state is known or without a :class:`SeparationConfig`)."""
        if not self._initialized or self.separation is None:
            return None
        js = self._js
        q, v, a = js[:, sh.Q].copy(), js[:, sh.V].copy(), js[:, sh.A].copy()
        return occupancy(self.separation, now, js, q, v, a)

    def restart_at(self, q: np.ndarray, v: np.ndarray, now: float) -> None:
        """Put the output state at ``q`` moving at ``v`` at ``now``, braking until the next
        request, and forget the previous request, writing no event: the next request is
        then checked from that state as a request from a command the supervisor did not
        produce itself. For a supervisor run offline on commands that are never sent (the
        shadow of :mod:`miles_ros.runtime.rollout`); needs a robot state first
        (:meth:`update_robot_state`)."""
        if not self._initialized:
            raise RuntimeError("restart_at before the robot state is known")
        self._seed(np.asarray(q, dtype=np.float64), np.asarray(v, dtype=np.float64))
        self._t_prev = now
        self._request_time = self._request_stamp = None

    def command_state(self) -> tuple[np.ndarray, np.ndarray]:
        """(positions, velocities) [n] of the latest command (what ``/miles/joint_command``
        carries, its velocity the difference to the one before)."""
        return self._js[:, sh.Q].copy(), self._js[:, sh.V].copy()

    def state(self) -> dict[str, object]:
        """The JSON of ``/miles/safety/state``."""
        return {
            "estop": self._latched,
            "mode": self._mode,
            "interventions": self.audit.count,
            "reason": self._reason if self._mode != "active" else "",
        }

    def set_reduced_speed(self, reduced: bool) -> None:
        """Switch the reduced-speed mode (only the node's parameter callback calls this)."""
        cfg = self.config
        self._speed_cap = cfg.tcp_speed_limit
        if reduced:
            self._speed_cap = min(cfg.reduced_tcp_speed, cfg.tcp_speed_limit)

    @property
    def mode(self) -> str:
        """The current mode (see the module docstring)."""
        return self._mode

    @property
    def latched(self) -> bool:
        """True while the e-stop is latched."""
        return self._latched

    # --- internals --------------------------------------------------------------------
    def _clearance_now(self, spheres: np.ndarray | None = None) -> None:
        """The output state's rows (its bodies' braking radii and point clearances per
        boundary: :func:`~miles_ros.safety.links.link_context`) against the zones, or
        ``spheres`` in their place, where the next step reads them as the previous
        output's (``lk[5]``), the context refitted to those zones first; its (ball,
        point) clearances into ``res[1]``, ``res[7]`` and ``res[8:10]``."""
        spheres = self._spheres if spheres is None else spheres
        self._lk = with_boundaries(self._lk, self._boxes, spheres)
        js, res = self._js, self._res
        q, v, a = js[:, sh.Q].copy(), js[:, sh.V].copy(), js[:, sh.A].copy()
        pad = self.config.zone_padding
        p = np.empty(3)
        rows = body_rows(js, q, v, a, self._ws, self._boxes, spheres, pad, p, self._lk)
        res[1], res[7], res[8], res[9] = rows
        self._lk[5][:] = self._lk[6]

    def _peer_spheres(self, now: float) -> np.ndarray:
        """Keep-out spheres with the peers' grown envelopes; a missing or stale peer
        begins a controlled stop (not a latch) that no request ends until it is fresh."""
        keepout, why = self.peers.keepout(now)
        if why:
            if not self._peer_block:
                self._record(now, "peer_stop", detail=why)
                LOG.warning("controlled stop: %s", why)
            self._peer_block = why
            if not self._stop and not self._latched:
                self._begin_stop()
            if not self._latched:
                self._reason = why
            return self._spheres
        if self._peer_block:
            self._record(now, "peer_fresh", detail="every peer's occupancy is fresh")
            self._peer_block = ""
            if not self._latched:  # the stale reason goes; a live request resumes now
                live = self._request_time is not None
                if live and now - self._request_time <= self.config.watchdog_period:
                    self._stop = False
                    self._record(now, "resume", detail="peers fresh, request live")
                else:
                    self._reason = "no fresh request"
        spheres = np.vstack([self._spheres, keepout])
        # The peers moved since the last period: "no deeper than before" compares with
        # the output state against the same keep-out spheres, not last period's.
        self._clearance_now(spheres)
        return spheres

    def _begin_stop(self) -> None:
        sh.begin_stop(self._js, self._env)
        self._stop = True
        self._new_request = False
        self._stream_velocity = None
        self._traj = None

    def _report_step(
        self, now: float, h: float, out: np.ndarray, n_fallback: int, spheres: np.ndarray
    ) -> None:
        self.stats["fallback_joints"] += n_fallback
        names = self.config.joint_names
        on_time = None
        why = "request shaped to the limits"
        if (out[:, sh.OUT_CODE] == sh.CARTESIAN).any():
            why = f"{why}: {self._boundary(spheres)}"
        for i in np.flatnonzero(out[:, sh.OUT_CODE] != sh.FREE):
            code = int(out[i, sh.OUT_CODE])
            if code in TRACKING_CODES and self._new_request:
                if on_time is None:  # approaching a future target is not an override
                    on_time = self._on_schedule(now, h, out)
                if on_time[i]:
                    continue
            if code == sh.INFEASIBLE or self._new_request:
                self._record(
                    now,
                    sh.CODE_NAMES[code],
                    names[i],
                    float(self._target[i]),
                    float(out[i, sh.OUT_Q]),
                    why,
                )
        self._new_request = False

    def _boundary(self, spheres: np.ndarray) -> str:
        """The boundary nearest the output state's braking balls (:mod:`.explain`)."""
        js = self._js
        what = nearest_boundary(
            js,
            js[:, sh.Q],
            js[:, sh.V],
            js[:, sh.A],
            self._ws,
            self._boxes,
            spheres,
            self._zone_names,
            self.config.zone_padding,
            self._lk,
        )
        return f"nearest boundary: {what}"

    def _on_schedule(self, now: float, h: float, out: np.ndarray) -> np.ndarray:
        """Per joint: this output keeps the request on its schedule (:mod:`.schedule`)."""
        js = self._js
        x, rest = schedule_target(
            self._target,
            self._request_stamp,
            self._stream_velocity,
            self._stream_period,
            now,
            js[:, sh.LO],
            js[:, sh.HI],
        )
        return on_schedule(js, out, x, rest, h)

    def _command(self, now: float, h: float, stop: bool) -> Command:
        names = self.config.joint_names
        positions = self._out[:, sh.OUT_Q].copy()
        fingers = self._fingers.step(h, stop) if self._gate.finger_index else None
        if fingers is not None:
            names = names + self.config.finger_joint_names
            positions = np.concatenate([positions, fingers])
        return Command(now, tuple(names), positions, self._mode)

    def _record(self, now: float, kind: str, *event, **fields) -> None:
        """An event into the audit trail (:meth:`AuditLog.add`'s joint, requested,
        allowed, detail), stamped on the audit's clock."""
        self.audit.add(now + self._time_offset, kind, *event, **fields)


def warm_up(config: SafetyConfig | None = None) -> None:
    """Load every numba kernel of the supervisor into this process (seconds the first time
    in a process, with the GIL held). A node calls this before it subscribes, so that
    its first control period is not late and its robot-state timeout does not fire."""
    quiet, LOG.disabled = LOG.disabled, True
    try:
        cfg = config or SafetyConfig()
        sup = SafetySupervisor(dataclasses.replace(cfg, audit_path=""))
        names = cfg.joint_names
        home = panda.home_joint_positions
        sup.update_robot_state(names, home, [0.0] * len(names), 0.0)
        sup.submit(JointRequest(names, home + 0.3, 0.004), 0.004)  # shaped and blended
        for k in range(1, 4):
            sup.step(0.004 * k)
        sup.trigger_estop("warm-up", 0.014)
        sup.step(0.016)
    finally:
        LOG.disabled = quiet
