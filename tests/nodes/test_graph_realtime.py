"""``miles up --rt-priority``: the graph's executor thread under SCHED_FIFO (what runs the
250 Hz loop), checked from inside a callback; a priority out of range refused before any
node starts."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
import rclpy

from miles_ros.ros.graph import InProcessGraph
from miles_ros.runtime.realtime import is_fifo
from tests.miles_up import miles_up
from tests.ros_domains import domain_id
from tests.runtime.test_realtime import needs_fifo

PART_URLS = {
    "console": r"http://127\.0\.0\.1:\d+/\?token=\S+",
    "view": r"http://127\.0\.0\.1:\d+/\?url=rerun%2Bhttp\S+",
}
"""The line each operator part prints: its URL."""


def _callback_sees_fifo(spin) -> bool:
    """Whether a timer callback of a graph spun by ``spin(graph)`` runs under SCHED_FIFO."""
    seen: list[bool] = []
    fired = threading.Event()
    with InProcessGraph([], domain_id()) as graph:
        node = graph.add(rclpy.create_node("realtime_probe", context=graph.context))

        def probe() -> None:
            seen.append(is_fifo())
            fired.set()

        node.create_timer(0.01, probe)
        spin(graph)
        assert fired.wait(10.0), "the timer never fired"
    return seen[0]


@needs_fifo
def test_spin_in_thread_runs_the_callbacks_under_fifo_only_when_asked():
    assert _callback_sees_fifo(lambda g: g.spin_in_thread("rt_probe", rt_priority=30))
    assert not _callback_sees_fifo(lambda g: g.spin_in_thread("plain_probe"))
    assert not is_fifo()  # the caller's thread was never changed


@needs_fifo
def test_spin_runs_the_callbacks_under_fifo_and_gives_the_policy_back():
    seen: list[bool] = []
    with InProcessGraph([], domain_id()) as graph:
        node = graph.add(rclpy.create_node("realtime_spin_probe", context=graph.context))
        node.create_timer(0.01, lambda: seen.append(is_fifo()))
        graph.spin(stop=lambda: len(seen) >= 3, rt_priority=30)
    assert seen[:3] == [True, True, True]
    assert not is_fifo()


@pytest.mark.parametrize("priority", ["100", "-1"])
def test_miles_up_refuses_a_priority_out_of_range_before_starting(priority):
    with miles_up("--sim", "none", "--no-manager", "--rt-priority", priority) as process:
        out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "--rt-priority: real-time priority must be 0 (off) or 1-99" in err
    assert "starting" not in out  # no node was built


@needs_fifo
def test_miles_up_runs_the_loop_under_fifo_and_the_console_and_view_in_processes_of_their_own():
    """One `miles up` (each one costs a process start and the nodes' bring-up): it says
    its loop runs under SCHED_FIFO, and the console and the view, each in a process of its
    own, print their URLs and are stopped with the graph and reaped."""
    args = ("--sim", "none", "--no-manager", "--console", "--console-port", "0")
    args += ("--view-web", "--view-port", "0", "--rt-priority", "40", "--duration", "3")
    with miles_up(*args, "--domain-id", str(domain_id())) as process:
        out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err[-2000:]
    assert "SCHED_FIFO priority 40" in out
    for part, url in PART_URLS.items():
        found = re.search(rf"{part} \(process (\d+)\)", out)
        assert found, out
        assert re.search(rf"^{part}: {url}$", out, re.M), out
        assert not Path(f"/proc/{found.group(1)}").exists()  # stopped with the graph, reaped
