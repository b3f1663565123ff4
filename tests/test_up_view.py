"""``miles up`` with the 3D view, as a user runs it (a subprocess, no display): ``--view``
says there is no display and serves the web viewer instead, whose page answers HTTP 200
on the printed URL while the graph runs; ``--record FILE.rrd`` leaves a Rerun recording
that Rerun's reader loads, with the arm's TCP at the FK of its logged joint positions.
Runs on a ROS domain of its own (tests/ros_domains.py)."""

from __future__ import annotations

import re
import urllib.request

import pytest

pytest.importorskip("rclpy")

from tests.miles_up import lines_until, miles_up  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402
from tests.view.rrd_reader import assert_tcp_at_fk, read_recording  # noqa: E402

URL = re.compile(r"^view: (http://127\.0\.0\.1:\d+/\?url=rerun%2Bhttp://127\.0\.0\.1:\d+/proxy)$")


def test_miles_up_view_without_display_serves_the_web_viewer_and_records(tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    path = tmp_path / "run.rrd"
    args = ("--no-manager", "--view", "--view-port", "0", "--record", str(path))
    with miles_up(*args, "--duration", "4", "--domain-id", str(domain_id())) as process:
        seen = lines_until(process, "view: http")
        urls = [m.group(1) for line in seen if (m := URL.match(line.strip()))]
        assert urls, "no web viewer URL in:\n" + "".join(seen)
        with urllib.request.urlopen(urls[0], timeout=30) as page:
            assert page.status == 200
            assert b"<html" in page.read().lower()
        out, err = process.communicate(timeout=120)
    text = "".join(seen) + out
    assert process.returncode == 0, f"stdout:\n{text}\nstderr:\n{err[-3000:]}"
    assert "Traceback" not in err
    assert "no display" in text and f"recording to {path}" in text

    assert_tcp_at_fk(read_recording(path))


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--record", "run.mcap"], "--record"),
        (["--view", "--scripted"], "--scripted"),
    ],
)
def test_miles_demo_refuses_a_view_it_cannot_give(argv, says, capsys):
    from miles_ros.commands import demo

    with pytest.raises(SystemExit):
        demo.main(argv)
    assert says in capsys.readouterr().err
