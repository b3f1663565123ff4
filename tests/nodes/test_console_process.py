"""The operator console in a process of its own (``miles up --console --rt-priority N``),
over real rclpy on loopback: sim_node and the real safety node in an in-process graph,
``miles console --metrics`` in a child process on the same domain. Its e-stop latches the
graph's supervisor through the safety node's service; a reset needs the token the parent
chose (never on the child's command line); its /metrics counts the e-stop; it stops
cleanly."""

from __future__ import annotations

import httpx
import pytest

pytest.importorskip("rclpy")

from miles_ros.ros.console_process import ConsoleProcess  # noqa: E402
from miles_ros.ros.graph import InProcessGraph  # noqa: E402
from tests.monitor.test_metrics import samples_of  # noqa: E402
from tests.nodes.graph_harness import wait_for  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

TIMEOUT = 30.0


@pytest.fixture
def cell():
    graph = InProcessGraph.of_parts(["sim", "safety"], domain_id=domain_id())
    console = None
    try:
        graph.spin_in_thread("test_console_process_spin")
        console = ConsoleProcess(graph.domain_id, timeout=TIMEOUT)
        supervisor = next(n for n in graph.nodes if n.get_name() == "safety_node").supervisor
        yield console, supervisor
    finally:
        if console is not None:
            console.stop()
        graph.close()


def estops(client: httpx.Client) -> float:
    return samples_of(client.get("/metrics").text).get(
        ("miles_estops_total", frozenset({("arm", "")})), 0.0
    )


def test_console_process_latches_the_graphs_supervisor(cell):
    console, supervisor = cell
    assert console.running()
    assert console.token not in " ".join(console.command)
    assert console.url == f"{console.base_url}/?token={console.token}"
    wait_for(lambda: supervisor.mode == "hold", "the supervisor to hold")
    with httpx.Client(base_url=console.base_url, timeout=TIMEOUT) as client:
        before = estops(client)
        answer = client.post("/api/estop")
        assert answer.status_code == 200, answer.text
        assert answer.json()["latched"] is True  # served only once the service was seen
        assert supervisor.latched
        wait_for(lambda: estops(client) == before + 1, "the e-stop in the metrics")

        refused = client.post("/api/reset")
        assert refused.status_code == 401
        assert supervisor.latched

        auth = {"Authorization": f"Bearer {console.token}"}
        reset = client.post("/api/reset", headers=auth)
        assert reset.status_code == 200, reset.text
        assert reset.json()["success"] is True
        assert not supervisor.latched
    assert console.stop() == 0
    assert not console.running()


def test_console_process_that_cannot_serve_fails_with_its_status():
    with InProcessGraph([], domain_id()) as graph:
        # No safety node on the domain: the child waits for its e-stop service, then fails.
        with pytest.raises(RuntimeError, match="was not up"):
            ConsoleProcess(graph.domain_id, timeout=1.0)
