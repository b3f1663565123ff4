"""Real-time scheduling for the thread that runs the control loop (``miles up --rt-priority``).

On a cell the 250 Hz loop shares the computer with the camera driver, perception, the
planner and the operator's view. Linux's default scheduler shares the cores fairly among
them, so a frame being rendered or decoded can hold a control period back by
milliseconds. Under ``SCHED_FIFO`` the loop's thread runs as soon as it is ready, ahead of
every normal thread, as ros2_control's controller manager runs its update loop.

Only the calling thread becomes real time, and with ``SCHED_RESET_ON_FORK``: the threads
and processes it starts afterwards (a worker, a child process) run as normal ones. A
real-time thread still needs Python's GIL, and a thread holding it lets go only when
another has waited ``sys.getswitchinterval()`` (5 ms by default), so while the loop is
real time the interval is :data:`GIL_SWITCH_S`. The
kernel still caps real-time threads at ``sched_rt_runtime_us`` per ``sched_rt_period_us``
(95% by default), so a runaway loop cannot take a core entirely. Setting it needs root,
``CAP_SYS_NICE`` or an ``rtprio`` limit (``ulimit -r``) at least as high as the priority.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

RT_PRIORITY_MAX = 99
"""The highest SCHED_FIFO priority Linux allows (``sched_get_priority_max``)."""
GIL_SWITCH_S = 0.0005
"""Python's thread switch interval (s) while a thread is real time: the longest the loop
waits for the GIL from another of the process's threads (the console's server, a
worker), a quarter of the 2 ms jitter bar."""


class RealtimeRefused(RuntimeError):
    """The operating system would not run the thread under SCHED_FIFO (the reason says why)."""


def check_priority(priority: int) -> int:
    """``priority`` if it is a SCHED_FIFO priority (1-99) or 0 (normal scheduling); else
    ValueError."""
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise ValueError(f"real-time priority must be an integer, got {priority!r}")
    if not 0 <= priority <= RT_PRIORITY_MAX:
        raise ValueError(
            f"real-time priority must be 0 (off) or 1-{RT_PRIORITY_MAX}, got {priority}"
        )
    return priority


def is_fifo() -> bool:
    """The calling thread runs under SCHED_FIFO."""
    return os.sched_getscheduler(0) & ~os.SCHED_RESET_ON_FORK == os.SCHED_FIFO


@contextmanager
def realtime(priority: int) -> Iterator[None]:
    """The calling thread under SCHED_FIFO at ``priority`` (1-99) and Python's switch
    interval at :data:`GIL_SWITCH_S` for the block, both restored after it; 0 leaves
    them as they are. RealtimeRefused, before the block runs, when the system does not
    allow it."""
    if check_priority(priority) == 0:
        yield
        return
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(priority))
    except PermissionError as exc:
        raise RealtimeRefused(
            f"SCHED_FIFO at priority {priority} refused ({exc.strerror}): run as root, "
            "grant CAP_SYS_NICE, or raise the rtprio limit (ulimit -r)"
        ) from exc
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, GIL_SWITCH_S))
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        os.sched_setscheduler(0, policy, param)
