"""An OpenAI-compatible endpoint, faked by a tiny HTTP server on 127.0.0.1."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from miles_ros.agent.lm import EndpointLanguageModel
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.commands import plan as plan_command


class _Handler(BaseHTTPRequestHandler):
    replies: list = []
    requests: list = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, body))
        if self.path.endswith("/chat/completions"):
            content = (
                type(self).replies.pop(0)
                if type(self).replies
                else '{"steps": [{"skill": "home", "params": {}}]}'
            )
            reply = {"choices": [{"message": {"role": "assistant", "content": content}}]}
        elif self.path.endswith("/completions"):
            prompt = body["prompt"]
            n = len(prompt)
            tail = prompt.rsplit("\n", 2)[-2] if prompt.endswith("\n") else ""
            value = 0.0 if tail.startswith("home") or tail == "done" else -3.0
            reply = {
                "choices": [
                    {"logprobs": {"text_offset": [0, n - 1], "token_logprobs": [None, value]}}
                ]
            }
        else:
            self.send_error(404)
            return
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Handler.replies, _Handler.requests = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_endpoint_generate_mode_validates_and_retries(server, registry, world):
    _Handler.replies = [
        '{"steps": [{"skill": "push", "params": {"object": "red_cube"}}]}',
        '{"steps": [{"skill": "push", "params": {"object": "red_cube", "target": "right_pad"}}]}',
    ]
    lm = EndpointLanguageModel(server, model="tiny")
    planner = Planner(registry, world, lm, PlannerConfig(mode="generate"))
    plan = planner.plan("push the red cube to the right pad")  # to the left: through green
    assert plan.valid and [s.key() for s in plan.steps] == ["push red_cube right_pad"]
    first, second = _Handler.requests[0][1], _Handler.requests[1][1]
    assert first["model"] == "tiny"
    assert first["response_format"]["json_schema"]["schema"]["properties"]["steps"]
    assert "required property" in second["messages"][1]["content"]
    assert plan.model.startswith("endpoint:http://127.0.0.1")


def test_endpoint_grounded_mode_scores_with_echo_logprobs(server, registry, world):
    lm = EndpointLanguageModel(server + "/v1")
    planner = Planner(registry, world, lm, PlannerConfig(mode="grounded"))
    plan = planner.plan("go home")
    assert [s.key() for s in plan.steps] == ["home"]
    assert all(r[0] == "/v1/completions" and r[1]["echo"] for r in _Handler.requests)


def test_unreachable_endpoint_is_reported(registry, world):
    lm = EndpointLanguageModel("http://127.0.0.1:9", timeout_s=2)
    plan = Planner(registry, world, lm, PlannerConfig(mode="generate", retries=0)).plan("go home")
    assert not plan.valid and "127.0.0.1:9" in plan.errors[0]


def test_miles_plan_json_and_batch_through_an_endpoint(server, tmp_path, capsys):
    rc = plan_command.main(["go home", "--json", "--mode", "generate", "--endpoint", server])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert set(out) == {"goal", "steps", "mode", "model", "latency_s", "fallback_used"}
    assert out["steps"] == [{"skill": "home", "params": {}}] and out["mode"] == "generate"
    goals = tmp_path / "goals.txt"
    goals.write_text("go home\n# a comment\nreturn home\n")
    rc = plan_command.main(
        ["--batch", str(goals), "--json", "--mode", "generate", "--endpoint", server]
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert rc == 0 and [json.loads(line)["goal"] for line in lines] == ["go home", "return home"]


def test_miles_plan_usage_errors(capsys):
    with pytest.raises(SystemExit):
        plan_command.main([])
    assert "give a goal or --batch" in capsys.readouterr().err


def test_miles_plan_prints_a_readable_plan(monkeypatch, registry, world, capsys):
    from miles_ros.agent.lm import FakeLanguageModel
    from tests.agent.conftest import keyword_scorer

    planner = Planner(
        registry,
        world,
        FakeLanguageModel(keyword_scorer(["pick red left", "home"])),
        PlannerConfig(),
    )
    monkeypatch.setattr(Planner, "from_options", classmethod(lambda cls, **kw: planner))
    rc = plan_command.main(["put the red cube on the left pad and go home", "-v"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "1. pick_place object=red_cube target=left_pad" in out and "2. home" in out
    assert "plan (grounded, fake," in out and "scores 1:" in out
