"""The 3D view in a process of its own (``miles view``, started by
:class:`~miles_ros.ros.view_node.ViewNodeProcess`), over real rclpy on loopback: sim_node in
an in-process graph, the view's node in a child process on the same domain. The graph sees
the child's readers of its fast topics; the child serves the web viewer on the URL it
printed and records the arm, whose TCP in the recording is the FK of the logged joint
positions (1e-6 m); it stops cleanly. A view that cannot start fails with its status."""

from __future__ import annotations

import urllib.request

import pytest

pytest.importorskip("rclpy")

from miles_ros.ros.graph import InProcessGraph  # noqa: E402
from miles_ros.ros.view_node import ViewNodeProcess, start_view, view_spec  # noqa: E402
from miles_ros.view.process import ViewSpec  # noqa: E402
from tests.nodes.graph_harness import wait_for  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402
from tests.view.rrd_reader import assert_tcp_at_fk, read_recording  # noqa: E402

TIMEOUT = 60.0
STATES_AFTER_MATCH = 100
"""Joint states the sim publishes after the graph sees the view's reader (0.4 s at 250 Hz:
about a dozen of the view's updates)."""


def test_view_in_its_own_process_reads_the_graph_serves_and_records(tmp_path):
    path = tmp_path / "view.rrd"
    graph = InProcessGraph.of_parts(["sim"], domain_id=domain_id())
    view = None
    try:
        sim = graph.nodes[0]
        states = sim.pub_joints[""]
        alone = states.get_subscription_count()
        published = []
        publish = states.publish
        states.publish = lambda msg: (published.append(msg), publish(msg))[1]
        graph.spin_in_thread("test_view_process_spin")
        spec = view_spec(record=str(path), web=True, web_port=0)
        view = start_view(graph, spec, own_process=True)
        assert isinstance(view, ViewNodeProcess) and view.running()
        assert any(line.startswith(f"view: recording to {path}") for line in view.lines)
        assert view.url is not None and view.url.startswith("http://127.0.0.1:")
        wait_for(lambda: states.get_subscription_count() > alone, "the view's reader", TIMEOUT)
        matched = len(published)
        wait_for(lambda: len(published) >= matched + STATES_AFTER_MATCH, "joint states", TIMEOUT)
        with urllib.request.urlopen(view.url, timeout=TIMEOUT) as page:
            assert page.status == 200
            assert b"<html" in page.read().lower()
        assert view.stop(TIMEOUT) == 0  # SIGKILL only past the test's deadline (load)
        assert not view.running()
    finally:
        if view is not None:
            view.stop()
        graph.close()
    assert_tcp_at_fk(read_recording(path))


def test_view_process_that_cannot_start_fails_with_its_status(tmp_path):
    missing = str(tmp_path / "no_such_scene.yaml")
    with pytest.raises(RuntimeError, match=r"view .* was not up .*exit status 2"):
        ViewNodeProcess(domain_id(), ViewSpec(scene_file=missing, web=True, web_port=0))
