"""The control loop's real-time scheduling (:mod:`miles_ros.runtime.realtime`): SCHED_FIFO
on the calling thread only, never inherited by the threads and processes it starts, its
previous policy back after the block, and a refusal that says how to allow it."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading

import pytest

from miles_ros.runtime import realtime as rt


def _fifo_allowed() -> bool:
    """Whether this process may use SCHED_FIFO (root, CAP_SYS_NICE or an rtprio limit)."""
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except PermissionError:
        return False
    os.sched_setscheduler(0, policy, param)
    return True


needs_fifo = pytest.mark.skipif(
    not _fifo_allowed(),
    reason="this process may not use SCHED_FIFO (not root, no CAP_SYS_NICE, rtprio 0)",
)


@pytest.mark.parametrize("priority", [0, 1, 50, rt.RT_PRIORITY_MAX])
def test_priorities_0_to_99_are_accepted(priority):
    assert rt.check_priority(priority) == priority


@pytest.mark.parametrize("priority", [-1, rt.RT_PRIORITY_MAX + 1, 1.5, True, "50", None])
def test_other_priorities_are_refused_with_the_range(priority):
    with pytest.raises(ValueError, match="0 \\(off\\) or 1-99|must be an integer"):
        rt.check_priority(priority)


def test_priority_0_leaves_the_thread_as_it_is():
    before = (os.sched_getscheduler(0), os.sched_getparam(0))
    with rt.realtime(0):
        assert (os.sched_getscheduler(0), os.sched_getparam(0)) == before
        assert not rt.is_fifo()


@needs_fifo
def test_only_the_calling_thread_is_real_time_and_everything_comes_back():
    before = (os.sched_getscheduler(0), os.sched_getparam(0), sys.getswitchinterval())
    seen: dict[str, bool] = {}
    with rt.realtime(20):
        assert rt.is_fifo() and os.sched_getparam(0).sched_priority == 20
        assert sys.getswitchinterval() <= rt.GIL_SWITCH_S  # the GIL comes back sooner
        worker = threading.Thread(target=lambda: seen.setdefault("thread", rt.is_fifo()))
        worker.start()
        worker.join()
        child = subprocess.run(
            [sys.executable, "-c", "import os; print(os.sched_getscheduler(0))"],
            capture_output=True,
            text=True,
            check=True,
        )
    assert seen == {"thread": False}  # a thread it starts runs normally
    assert int(child.stdout) == os.SCHED_OTHER  # and so does a process
    assert (os.sched_getscheduler(0), os.sched_getparam(0), sys.getswitchinterval()) == before


@needs_fifo
def test_the_policy_comes_back_when_the_block_raises():
    with pytest.raises(KeyError), rt.realtime(10):
        raise KeyError("inside")
    assert not rt.is_fifo()


def test_a_refusal_says_how_to_allow_it(monkeypatch):
    def refuse(pid, policy, param):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(rt.os, "sched_setscheduler", refuse)
    entered = []
    with pytest.raises(rt.RealtimeRefused, match="priority 30 refused.*CAP_SYS_NICE"):
        with rt.realtime(30):
            entered.append(True)
    assert not entered  # the block never runs without the priority it asked for
