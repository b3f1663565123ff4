"""The console's web app over a fake cell (Starlette's TestClient, no ROS): each refusal
with its status and reason and no call reaching the cell, the rate limit, the e-stop
during a flood, the websocket's Origin and token checks, the page and its files."""

from __future__ import annotations

import threading
from concurrent.futures import Future

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse

from miles_ros.console.app import Limits, build_app
from miles_ros.console.state import CellState

TOKEN = "secret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ORIGIN = "http://testserver"
"""The TestClient's server address, so the console's own origin."""


class FakeCell:
    """A cell that records every call; its state is a real :class:`CellState`."""

    def __init__(self, reset_answer: dict | None = None) -> None:
        self.state = CellState()
        self.lock = threading.Lock()
        self.goals: list[str] = []
        self.estops = 0
        self.resets = 0
        self.reset_answer = reset_answer or {"success": True, "message": "e-stop reset"}

    def send_goal(self, text: str) -> dict:
        with self.lock:
            self.goals.append(text)
        return {"sent": True, "message": "goal sent"}

    def estop(self) -> Future:
        with self.lock:
            self.estops += 1
        self.state.on_safety("", {"estop": True, "mode": "estop", "reason": "console"})
        future: Future = Future()
        future.set_result({"latched": True, "message": "e-stop latched"})
        return future

    def reset(self, timeout: float) -> dict:
        with self.lock:
            self.resets += 1
        return {**self.reset_answer, "answered": True}

    def snapshot(self) -> dict:
        return self.state.snapshot()

    def wait_newer(self, version: int, timeout: float) -> dict | None:
        return self.state.wait_newer(version, timeout)

    def cards(self) -> list[dict]:
        return [{"name": "reach", "evidence": {"pybullet": {"success_rate": 1.0}}}]

    def calls(self) -> int:
        return len(self.goals) + self.resets


class FrozenClock:
    """The rate limit's clock, moved only by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def cell():
    return FakeCell()


def client_for(cell, limits: Limits | None = None, clock=None, **kwargs) -> TestClient:
    limits, clock = limits or Limits(), clock or FrozenClock()
    app = build_app(cell, token=TOKEN, limits=limits, clock=clock, **kwargs)
    return TestClient(app)


def test_a_goal_with_the_token_reaches_the_cell(cell):
    with client_for(cell) as client:
        r = client.post("/api/goal", json={"goal": "  move to the red cube "}, headers=AUTH)
    assert r.status_code == 202, r.text
    assert cell.goals == ["move to the red cube"]


@pytest.mark.parametrize(
    ("body", "headers", "status", "reason"),
    [
        ({"goal": "x" * 501}, AUTH, 413, "goal too long"),
        (b"{not json", AUTH, 400, "malformed JSON"),
        ({"goal": "a", "extra": 1}, AUTH, 400, "wrong fields"),
        ({"text": "a"}, AUTH, 400, "wrong fields"),
        (["goal"], AUTH, 400, "wrong fields"),
        ({"goal": 5}, AUTH, 400, "must be a string"),
        ({"goal": "   "}, AUTH, 400, "empty goal"),
        ({"goal": "go\nhome"}, AUTH, 400, "printable"),
        (b"x" * 5000, AUTH, 413, "body too large"),
        ({"goal": "go home"}, {}, 401, "missing token"),
        ({"goal": "go home"}, {"Authorization": "Bearer nope"}, 403, "wrong token"),
        ({"goal": "go home"}, {"Authorization": f"Basic {TOKEN}"}, 401, "missing token"),
        ({"goal": "go home"}, {**AUTH, "Origin": "http://evil.example"}, 403, "Origin"),
        ({"goal": "go home"}, {**AUTH, "Host": "evil.example"}, 403, "Host"),
    ],
)
def test_refused_goals_never_reach_the_cell(cell, body, headers, status, reason):
    with client_for(cell) as client:
        if isinstance(body, bytes):
            r = client.post("/api/goal", content=body, headers=headers)
        else:
            r = client.post("/api/goal", json=body, headers=headers)
    assert r.status_code == status, r.text
    assert reason in r.json()["error"]
    assert cell.calls() == 0
    if status == 401:
        assert r.headers["WWW-Authenticate"] == "Bearer"


def test_a_body_is_refused_by_its_declared_length_before_it_is_read(cell):
    with client_for(cell) as client:
        headers = {**AUTH, "Content-Length": "1000000", "Content-Type": "application/json"}
        r = client.post("/api/goal", content=b'{"goal": "go"}', headers=headers)
    assert r.status_code in (400, 413), r.text  # the declared length is the one checked
    assert cell.calls() == 0


def test_reset_needs_the_token_and_carries_the_supervisors_reason():
    cell = FakeCell({"success": False, "message": "the robot is still moving"})
    with client_for(cell) as client:
        assert client.post("/api/reset").status_code == 401
        assert client.post("/api/reset", headers={"Authorization": "Bearer x"}).status_code == 403
        assert cell.resets == 0
        r = client.post("/api/reset", headers=AUTH)
    assert r.status_code == 409
    assert r.json()["error"] == "the robot is still moving"
    assert cell.resets == 1


def test_estop_needs_no_token_and_reports_the_latch(cell):
    with client_for(cell) as client:
        r = client.post("/api/estop")
        state = client.get("/api/state").json()
    assert r.status_code == 200 and r.json()["latched"] is True
    assert cell.estops == 1
    assert state["estop"] is True


def test_wrong_methods_and_paths_are_json_refusals(cell):
    with client_for(cell) as client:
        assert client.get("/api/estop").status_code == 405
        assert "error" in client.get("/api/goal").json()
        assert client.get("/nope").status_code == 404
    assert cell.estops == 0 and cell.calls() == 0


def test_a_flood_is_rate_limited_and_the_estop_still_works(cell):
    limits = Limits(client_burst=10, client_rate=1.0, total_burst=50, total_rate=10.0)
    clock = FrozenClock()  # no refill during the flood: exactly the burst passes
    flooders, per_thread = 4, 30
    estop_answers: list[int] = []
    with client_for(cell, limits, clock) as client:

        def flood() -> None:
            for _ in range(per_thread):
                client.post("/api/goal", json={"goal": "go home"}, headers=AUTH)

        threads = [threading.Thread(target=flood) for _ in range(flooders)]
        for thread in threads:
            thread.start()
        for _ in range(20):
            estop_answers.append(client.post("/api/estop").status_code)
        for thread in threads:
            thread.join()
        refused = client.post("/api/goal", json={"goal": "go home"}, headers=AUTH)
        assert refused.status_code == 429
        assert "rate limit" in refused.json()["error"]
        assert int(refused.headers["Retry-After"]) >= 1
        assert client.get("/api/state").status_code == 429  # every route but the e-stop
        clock.now += 2.0  # two seconds later: two more requests
        assert client.post("/api/goal", json={"goal": "go"}, headers=AUTH).status_code == 202
    assert len(cell.goals) == limits.client_burst + 1
    assert estop_answers == [200] * 20
    assert cell.estops == 20


def test_websocket_refuses_a_foreign_origin_and_a_wrong_token(cell):
    with client_for(cell) as client:
        for headers, query, status, reason in [
            ({"Origin": "http://evil.example"}, f"token={TOKEN}", 403, "Origin"),
            ({}, f"token={TOKEN}", 403, "no Origin"),  # not a page of this console
            ({"Origin": ORIGIN}, "token=wrong", 403, "wrong token"),
            ({"Origin": ORIGIN}, "", 401, "missing token"),
        ]:
            with pytest.raises(WebSocketDenialResponse) as refused:
                with client.websocket_connect(f"/ws?{query}", headers=headers):
                    pass
            assert refused.value.status_code == status, (headers, query)
            assert reason in refused.value.json()["error"]


def test_websocket_pushes_the_snapshot_and_each_change(cell):
    with client_for(cell) as client:
        with client.websocket_connect(f"/ws?token={TOKEN}", headers={"Origin": ORIGIN}) as ws:
            first = ws.receive_json()
            cell.state.on_plan(
                {"trace_id": "t1", "steps": [{"skill": "reach", "params": {"target": "red"}}]}
            )
            second = ws.receive_json()
    assert second["version"] > first["version"]
    assert [s["skill"] for s in second["plan"]["steps"]] == ["reach"]
    assert second["plan"]["steps"][0]["state"] == "pending"


def test_page_files_and_metrics(cell):
    from prometheus_client import CollectorRegistry, Counter

    registry = CollectorRegistry()
    Counter("miles_test_events", "a test counter", registry=registry).inc(3)
    with client_for(cell, metrics_registry=registry, view_url="http://127.0.0.1:9090/") as c:
        page = c.get("/")
        assert page.status_code == 200
        assert 'data-testid="estop"' in page.text
        assert page.headers["Referrer-Policy"] == "no-referrer"
        assert "http://127.0.0.1:9090/" in page.headers["Content-Security-Policy"]
        for path in ("/static/console.js", "/static/console.css"):
            assert c.get(path).status_code == 200, path
        assert c.get("/api/info").json()["view_url"] == "http://127.0.0.1:9090/"
        assert c.get("/api/cards").json()[0]["name"] == "reach"
        assert "miles_test_events_total 3.0" in c.get("/metrics").text
    with client_for(cell) as c:
        assert c.get("/metrics").status_code == 404
        assert c.get("/api/info").json()["metrics"] is False
