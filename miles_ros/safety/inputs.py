"""The safety supervisor's inputs: the measured robot state and the requested targets
(:class:`SupervisorInputs`, a part of :class:`~miles_ros.safety.supervisor.SafetySupervisor`).

The measured state seeds the output state the first time and re-seeds it on a tracking
reset (see :mod:`miles_ros.safety.supervisor`); a request is validated
(:mod:`~miles_ros.safety.requests`), clipped into the position band and, when requests
come as a stream, extrapolated at the stream's velocity between them.

A mixin: its methods read and write the supervisor's state, which the supervisor's
``__init__`` sets up; it is not used alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from miles_ros.safety import shaping as sh
from miles_ros.safety.kinematics import tcp_position
from miles_ros.safety.requests import JointRequest


class SupervisorInputs:
    """:meth:`update_robot_state` and :meth:`submit` of the supervisor, and their helpers."""

    def update_robot_state(
        self,
        names: Sequence[str],
        positions: Sequence[float],
        velocities: Sequence[float],
        now: float,
    ) -> bool:
        """Record the measured state (``/joint_states``). False when unusable (counted)."""
        layout = self._gate.state_layout(tuple(names))
        if layout is None or len(positions) != len(names):
            return self._bad_state(now, "joint_states without every arm joint")
        order, finger_order = layout
        q = np.asarray(positions, dtype=np.float64)[order]
        if not np.all(np.isfinite(q)):
            return self._bad_state(now, "non-finite measured positions")
        v = None
        if len(velocities) == len(names):
            v = np.asarray(velocities, dtype=np.float64)[order]
            if not np.all(np.isfinite(v)):
                v = None
        reported_v = v
        if v is None and self._measured_q is not None and self._measured_time is not None:
            dt = now - self._measured_time
            v = (q - self._measured_q) / dt if dt > 0.0 else self._measured_v
        if v is None:
            v = np.zeros_like(q)
        if finger_order is not None:
            fingers = np.asarray(positions, dtype=np.float64)[finger_order]
            if np.all(np.isfinite(fingers)):
                self._fingers.measured = fingers
        self._measured_q, self._measured_v, self._measured_time = q, v, now
        if not self._initialized:
            self._initialize(q, now)
        else:
            self._check_tracking(q, reported_v, now)
        return True

    def submit(self, request: JointRequest, now: float) -> bool:
        """Offer a requested target. Returns True when accepted (it then drives the output
        until the next accepted request or the watchdog)."""
        if self._latched:
            return self._reject(now, "estop_latched", detail="e-stop latched: request refused")
        kind, joint, value, detail = self._gate.validate(request, now, self._request_stamp)
        if kind:
            return self._reject(now, kind, joint, value, detail)
        if not self._initialized:
            return self._reject(now, "no_robot_state", detail="no robot state yet")
        if self._skill_block:
            return self._reject(now, "permission", detail=self._skill_block)
        values = np.asarray(request.positions, dtype=np.float64)
        arm_slots, finger_slots = self._gate.request_layout(tuple(request.names))
        arm = values[arm_slots]
        fingers = np.full(len(self._gate.finger_index), np.nan)
        fingers[finger_slots[1]] = values[finger_slots[0]]
        clipped = np.clip(arm, self._js[:, sh.LO], self._js[:, sh.HI])
        for i in np.flatnonzero(clipped != arm) if (clipped != arm).any() else ():
            self._record(
                now,
                "position_limit",
                self.config.joint_names[i],
                float(arm[i]),
                float(clipped[i]),
                "target outside the position limits minus margin",
            )
        if not np.all(np.isnan(fingers)):
            for i, requested, allowed in self._fingers.accept(fingers):
                name = self.config.finger_joint_names[i]
                detail = "finger target outside the gripper travel"
                self._record(now, "finger_range", name, requested, allowed, detail)
        stamp = float(request.stamp)  # type: ignore[arg-type]
        # A stream's velocity, from this request and the previous one (see _stream_target).
        gap = stamp - self._request_stamp if self._request_stamp is not None else 0.0
        fresh_pair = self._request_time is not None and not self._stop and not self._latched
        fresh_pair = fresh_pair and 0.0 < gap <= self.config.watchdog_period
        if fresh_pair:
            self._stream_velocity = (clipped - self._target) / gap
            self._stream_period = gap
        else:
            self._stream_velocity = None
        velocities = request.velocities
        if velocities is not None and len(velocities):  # a trajectory point (see _reference)
            js = self._js
            u1 = np.clip(
                np.asarray(velocities, dtype=np.float64)[arm_slots],
                -js[:, sh.VMAX],
                js[:, sh.VMAX],
            )
            if fresh_pair and self._traj is not None:  # on from the previous point
                start = self._traj[3:]
            else:  # from the command as it is
                start = (js[:, sh.Q].copy(), js[:, sh.V].copy(), self._t_prev)
            self._traj = (*start, clipped, u1, stamp)
            self._stream_velocity = u1
            self._stream_period = max(stamp - start[2], 0.0)
        else:
            self._traj = None
        self._target = clipped
        self._request_time = now
        self._request_stamp = stamp
        self._new_request = True
        self.stats["accepted"] += 1
        if self._stop and not self._latched and not self._peer_block:
            self._stop = False
            self._record(now, "resume", detail="fresh request after hold")
        return True

    def _initialize(self, q: np.ndarray, now: float) -> None:
        self._seed(q, None)
        self._t_prev = now
        self._initialized = True
        if not self._latched:
            self._mode, self._reason = "hold", "no request yet"
        else:
            self._mode = "estop"

    def _seed(self, q: np.ndarray, v: np.ndarray | None) -> None:
        """Output state at the measured ``q`` (moving at ``v``, or at rest), then stop."""
        self._band_widened = sh.start_at(self._js, q, self.limits, v)
        self._p_prev = tcp_position(self._js[:, sh.Q].copy())
        self._clearance_now()
        self._begin_stop()

    def _check_tracking(self, q: np.ndarray, v: np.ndarray | None, now: float) -> None:
        """Re-seed from the measured state when it has left the commanded trajectory."""
        commanded = self._js[:, sh.Q]
        deviation = np.abs(q - commanded)
        worst = int(np.argmax(deviation))
        if not deviation[worst] > self.config.tracking_tolerance:
            return
        was = float(commanded[worst])
        self._seed(q, v)
        if not self._latched:
            self._reason = "tracking reset: holding the measured pose"
        self._record(
            now,
            "tracking_reset",
            self.config.joint_names[worst],
            was,
            float(q[worst]),
            f"measured {deviation[worst]:.3f} rad from the command (tolerance "
            f"{self.config.tracking_tolerance} rad): re-seeded from the measured state, holding",
        )
        self._burst.warn(
            "tracking_reset",
            now,
            f"tracking reset: {self.config.joint_names[worst]} measured "
            f"{deviation[worst]:.3f} rad from the command; holding the measured pose",
        )

    def _reference(self, now: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A trajectory's reference at ``now``: (position, velocity, acceleration) [n].

        Between the previous point ``(x0, u0)`` at ``t0`` (or the command as it was when the
        trajectory started) and the latest ``(x1, u1)`` at ``t1``, the cubic Hermite curve
        through both positions and velocities; after ``t1``, the latest point continued at
        its velocity (a late point: the stream's sender fell behind) until the watchdog
        stops a stream that went silent, at most ``watchdog_period`` past ``t1``; before
        ``t0``, the previous point, moved back along its velocity (at most one period).
        Inside the position band; velocities inside the limits."""
        x0, u0, t0, x1, u1, t1 = self._traj
        js = self._js
        d = t1 - t0
        zero = np.zeros_like(u1)
        if now >= t1 or d <= 1e-9:
            coast = self.config.watchdog_period
            ahead = now - t1
            if ahead < coast:
                r, w = x1 + u1 * max(ahead, 0.0), u1
            else:
                r, w = x1 + u1 * coast, zero
            alpha = zero
        elif now <= t0:
            r, w, alpha = x0 - u0 * min(t0 - now, d), u0, zero
        else:
            s = (now - t0) / d
            s2, s3 = s * s, s * s * s
            r = (
                (2 * s3 - 3 * s2 + 1) * x0
                + (s3 - 2 * s2 + s) * d * u0
                + (3 * s2 - 2 * s3) * x1
                + (s3 - s2) * d * u1
            )
            w = (
                (6 * s2 - 6 * s) * (x0 - x1) / d
                + (3 * s2 - 4 * s + 1) * u0
                + (3 * s2 - 2 * s) * u1
            )
            alpha = ((12 * s - 6) * (x0 - x1) / d + (6 * s - 4) * u0 + (6 * s - 2) * u1) / d
        r = np.clip(r, js[:, sh.LO], js[:, sh.HI])
        w = np.clip(w, -js[:, sh.VMAX], js[:, sh.VMAX])
        return r, w, np.clip(alpha, -js[:, sh.AMAX], js[:, sh.AMAX])

    def _stream_target(self, now: float) -> np.ndarray:
        """The latest target evaluated at ``now``: a stream of requests (two within the
        watchdog period) is extrapolated at its own velocity, at most one request period
        past the latest stamp, so an output period that sees no new request (jitter, or a
        skill slower than the output rate) continues the motion instead of braking toward
        a point the stream has already left. A lone request is the target as is."""
        if self._stream_velocity is None or self._request_stamp is None:
            return self._target
        lead = min(max(now - self._request_stamp, 0.0), self._stream_period)
        if lead == 0.0:
            return self._target
        js = self._js
        return np.clip(self._target + self._stream_velocity * lead, js[:, sh.LO], js[:, sh.HI])
