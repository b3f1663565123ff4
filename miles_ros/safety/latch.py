"""The safety supervisor's e-stop latch (:class:`EstopLatch`, a part of
:class:`~miles_ros.safety.supervisor.SafetySupervisor`): the e-stop input and the
trigger and reset services, the latch on a lost robot state or on repeated rejected
requests (``fault_violations`` within ``fault_window``), and the rejections that count
toward it.

A mixin: its methods read and write the supervisor's state, which the supervisor's
``__init__`` sets up; it is not used alone.
"""

from __future__ import annotations

import numpy as np

from miles_ros.safety.audit import LOG
from miles_ros.safety.requests import FAULT_KINDS


class EstopLatch:
    """The e-stop methods of the supervisor and the rejections that may latch it."""

    def set_estop_input(self, pressed: bool, now: float) -> None:
        """State of an e-stop input (``/miles/estop``): True latches; False only permits a
        later reset."""
        if pressed != self._input_pressed:
            self._record(now, "estop_input", detail="pressed" if pressed else "released")
        self._input_pressed = pressed
        if pressed:
            self.trigger_estop("e-stop input pressed", now)

    def trigger_estop(self, reason: str, now: float) -> bool:
        """Latch the e-stop. Returns False when it was already latched."""
        if self._latched:
            return False
        self._latched = True
        self._reason = reason
        self._begin_stop()
        self._target[:] = np.nan
        self._request_time = None
        self._stream_velocity = None
        self._mode = "stopping" if self._initialized else "waiting"
        self._record(now, "estop", detail=reason)
        LOG.error("e-stop latched: %s", reason)
        return True

    def reset_estop(self, now: float) -> tuple[bool, str]:
        """Reset the latch if the arm is still and no input is pressed; else say why not."""
        if not self._latched:
            return True, "e-stop not latched"
        why = ""
        if self._input_pressed:
            why = "e-stop input still pressed (last /miles/estop was true)"
        elif self._mode == "stopping":
            why = "the controlled stop is still in progress"
        elif self._measured_time is None or now - self._measured_time > self.config.state_timeout:
            why = "no fresh robot state"
        else:
            speed = np.abs(self._measured_v)
            worst = int(np.argmax(speed))
            if speed[worst] > self.config.still_velocity:
                why = (
                    f"arm moving: {self.config.joint_names[worst]} at {speed[worst]:.4f} rad/s "
                    f"(still below {self.config.still_velocity} rad/s)"
                )
        if why:
            self._record(now, "reset_refused", detail=why)
            return False, why
        self._latched = False
        self._reason = "reset: waiting for a fresh request"
        self._mode = "hold" if self._initialized else "waiting"
        self._violations.clear()
        self._record(now, "reset", detail="e-stop reset")
        LOG.warning("e-stop reset")
        return True, "e-stop reset"

    def _reject(
        self,
        now: float,
        kind: str,
        joint: str | None = None,
        value: object = None,
        detail: str = "",
    ) -> bool:
        self.stats["rejected"] += 1
        self.stats[f"rejected:{kind}"] += 1
        self._record(now, kind, joint, value, None, detail)
        self._burst.warn(kind, now, f"request rejected ({kind}): {detail}")
        if kind in FAULT_KINDS and self.config.fault_violations > 0:
            window = self._violations
            window.append(now)
            while window and now - window[0] > self.config.fault_window:
                window.popleft()
            if len(window) >= self.config.fault_violations:
                self.trigger_estop(
                    f"repeated violations: {len(window)} rejected requests within "
                    f"{self.config.fault_window} s",
                    now,
                )
        return False

    def _bad_state(self, now: float, detail: str) -> bool:
        self.stats["bad_state"] += 1
        self._burst.warn("bad_state", now, f"robot state ignored: {detail}")
        return False

    def _check_faults(self, now: float) -> None:
        if (
            not self._latched
            and self._measured_time is not None
            and now - self._measured_time > self.config.state_timeout
        ):
            self.trigger_estop(
                f"robot state lost: no joint_states for {now - self._measured_time:.3f} s", now
            )
