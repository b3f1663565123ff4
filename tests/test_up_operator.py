"""``miles up --console --view-web`` as a user runs it (a subprocess, no real-time rights
asked): by default the console and the 3D view each run in a process of their own, listed
with their pids, which the graph stops and reaps as it ends (on Ctrl-C, sent once the
console has answered); ``--operator-in-process`` keeps both in the graph's process. Either
layout prints the console's and the view's URLs, and the console's page answers them. Runs
on a ROS domain of its own (tests/ros_domains.py)."""

from __future__ import annotations

import re
import signal
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("rclpy")

from tests.miles_up import lines_until, miles_up  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

CONSOLE = re.compile(r"^console: (http://127\.0\.0\.1:\d+)/\?token=\S+$", re.M)
VIEW = re.compile(r"^view: http://127\.0\.0\.1:\d+/\?url=rerun%2Bhttp\S+$", re.M)
APART = re.compile(r"(console|view) \(process (\d+)\)")


@pytest.mark.parametrize("in_process", [False, True], ids=["apart", "in_process"])
def test_miles_up_runs_the_console_and_view_apart_unless_asked(in_process, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    args = ["--sim", "none", "--no-manager", "--console", "--console-port", "0"]
    args += ["--view-web", "--view-port", "0"]
    args += ["--operator-in-process"] if in_process else []
    with miles_up(*args, "--domain-id", str(domain_id())) as process:
        seen = "".join(lines_until(process, " up ("))
        console = CONSOLE.search(seen)
        assert console, seen
        with urllib.request.urlopen(f"{console.group(1)}/api/state", timeout=30) as answer:
            assert answer.status == 200
        process.send_signal(signal.SIGINT)  # the graph ends now, not after a fixed time
        out, err = process.communicate(timeout=120)
    text = seen + out
    assert process.returncode == 0, f"stdout:\n{text}\nstderr:\n{err[-3000:]}"
    assert "Traceback" not in err and "SIGINT, shutting down" in out
    assert VIEW.search(text), text
    apart = dict(APART.findall(seen))
    if in_process:
        assert apart == {}, seen
    else:
        assert set(apart) == {"console", "view"}, seen
        for pid in apart.values():
            assert not Path(f"/proc/{pid}").exists()  # stopped with the graph, reaped
