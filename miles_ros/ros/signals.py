"""Ctrl-C as a request, not an exception: :class:`StopSignals`.

Python turns SIGINT into a ``KeyboardInterrupt`` raised wherever the main thread happens
to be. Inside an rclpy executor that can be the middle of ``take_message`` or of a node's
callback, and the exception then escapes as an rclpy error with a traceback (``miles up``
ended so once in 9 runs, rc 1). While a :class:`StopSignals` is active, SIGINT and SIGTERM
only record the request; the spin loop (:func:`miles_ros.ros.node_main.spin_until`) sees it
between two callbacks and returns, and the caller tears the nodes down in order.

Plain Python (no rclpy), so a command can install it before its heavy imports.
"""

from __future__ import annotations

import signal
import threading


class StopSignals:
    """While active (a ``with`` block), SIGINT and SIGTERM set :attr:`requested` instead of
    raising; calling the object answers whether a stop was requested. Leaving the block
    restores the previous handlers. A signal the process was started ignoring (``nohup``,
    a background job) stays ignored. Outside the main thread (where Python cannot install
    handlers) it does nothing and only :meth:`request` stops."""

    def __init__(self, signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> None:
        self.signals = signals
        """The signals that request a stop."""
        self.requested = False
        """True once a stop was requested (a signal or :meth:`request`)."""
        self.signal_name: str | None = None
        """The name of the first signal received (``"SIGINT"``), None if none came."""
        self._previous: dict[int, object] = {}

    def request(self, signum: int | None = None, frame=None) -> None:
        """Request a stop (the signal handler; also callable directly). Only sets flags:
        it may run between any two bytecodes of the main thread."""
        if signum is not None and self.signal_name is None:
            self.signal_name = signal.Signals(signum).name
        self.requested = True

    def __call__(self) -> bool:
        return self.requested

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in self.signals:
                if signal.getsignal(signum) is not signal.SIG_IGN:  # as Python does
                    self._previous[signum] = signal.signal(signum, self.request)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()
