"""The operator console over real rclpy on loopback: sim_node and the real safety node in
an in-process graph, the console's bridge on the same executor, served by the real
uvicorn server on a free port. The e-stop (no token) latches the supervisor; a reset
without the token is refused and leaves it latched; with the token it gets the
supervisor's answer. Prints (never asserts) the e-stop's latency for the bench."""

from __future__ import annotations

import time

import httpx
import pytest

pytest.importorskip("rclpy")

from miles_ros.ros.clients import estop_services  # noqa: E402
from miles_ros.ros.console_node import ConsoleBridge, attach_console  # noqa: E402
from miles_ros.ros.graph import InProcessGraph  # noqa: E402
from tests.nodes.graph_harness import held_trigger  # noqa: E402
from tests.ros_domains import domain_id  # noqa: E402

TIMEOUT = 30.0


@pytest.fixture
def cell():
    graph = InProcessGraph.of_parts(["sim", "safety"], domain_id=domain_id())
    server = None
    try:
        server = attach_console(graph)
        graph.spin_in_thread("test_console_spin")
        bridge = next(n for n in graph.nodes if isinstance(n, ConsoleBridge))
        yield server, bridge
    finally:
        if server is not None:
            server.stop()
        graph.close()


def test_console_estop_latches_and_reset_needs_the_token(capsys, cell):
    server, bridge = cell
    printed = capsys.readouterr().out
    assert f"console: {server.base_url}/?token={server.token}" in printed.splitlines()
    assert "metrics:" not in printed  # no registry given: no metrics served
    state = bridge.state
    assert state.wait_until(lambda: state.safety.get("", {}).get("mode") == "hold", TIMEOUT)
    assert bridge.triggers[""].wait_for_service(timeout_sec=TIMEOUT)
    assert bridge.resets[""].wait_for_service(timeout_sec=TIMEOUT)
    with httpx.Client(base_url=server.base_url, timeout=TIMEOUT) as client:
        sent = time.perf_counter()
        answer = client.post("/api/estop")
        assert state.wait_until(state.latched, TIMEOUT), "the latch was not seen"
        seen = time.perf_counter()
        assert answer.status_code == 200, answer.text
        assert answer.json()["latched"] is True
        print(
            f"\nconsole e-stop: {answer.json()['server_ms']:.2f} ms from the request reaching "
            f"the server to the supervisor's answer; {(seen - sent) * 1e3:.2f} ms from the "
            "POST to the latched /miles/safety/state seen by the bridge"
        )

        refused = client.post("/api/reset")
        assert refused.status_code == 401
        assert refused.json()["error"] == "missing token"
        wrong = client.post("/api/reset", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 403
        assert state.latched() and bridge.snapshot()["safety"][""]["estop"] is True

        reset = client.post("/api/reset", headers={"Authorization": f"Bearer {server.token}"})
        assert reset.status_code == 200, reset.text  # the sim's arm is still: it resets
        assert reset.json()["success"] is True and reset.json()["message"]
        assert state.wait_until(lambda: state.safety[""].get("estop") is False, TIMEOUT)


def test_the_bridge_calls_again_until_a_supervisor_answers():
    """The console's e-stop is resent until it is answered (the service is idempotent): a
    supervisor in another process (here another context) whose first answer is lost, as
    one can be while discovery lags, still answers the console's e-stop, well inside the
    app's wait."""
    from miles_ros.console.app import Limits

    domain = domain_id()
    (service,) = estop_services(False)
    with held_trigger(service, domain) as calls, InProcessGraph([], domain) as graph:
        bridge = graph.add(ConsoleBridge(context=graph.context))
        graph.spin_in_thread("test_bridge_spin")
        assert bridge.triggers[""].wait_for_service(timeout_sec=TIMEOUT)
        answer = bridge.estop().result(timeout=Limits().estop_timeout_s)
    assert answer["latched"] is True and answer["message"].startswith("answer to request")
    assert len(calls) >= 2
