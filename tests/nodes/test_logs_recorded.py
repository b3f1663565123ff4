"""Logs -> dataset on a real recorded run: the shipped reach skill runs one request in the
graph (sim_node, safety_node, skill_node) while the Recorder writes the MCAP; the dataset
converted from it holds one episode whose observations are the ones the executor fed its
policy, and whose outcome is the request's final status; `miles train reach --from-logs`
fine-tunes a new version from that recording directory."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("rclpy")
pytest.importorskip("mcap")

from miles_ros import interfaces  # noqa: E402
from miles_ros.cli import main as miles  # noqa: E402
from miles_ros.ros.recording import Recorder  # noqa: E402
from miles_ros.runtime.logs import (  # noqa: E402
    convert_recording,
    decode_joint_state,
    decode_string,
    recorded_messages,
)
from policies.cards import load_card  # noqa: E402
from policies.logs import add_mark, read_dataset, read_marks  # noqa: E402
from tests.nodes.graph_harness import skill_graph  # noqa: E402
from tests.runtime.skill_fixtures import shipped_reach  # noqa: E402

OBS_TOLERANCE = 1e-5
"""Largest difference allowed between a rebuilt observation and the executor's: the
dataset stores float32 (about 1e-7 relative); the inputs are the very messages the
executor used (the status names them by stamp)."""


pytestmark = pytest.mark.skipif(shipped_reach() is None, reason="needs the shipped reach skill")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """(recording, final status, observations the executor's policy got) of one reach."""
    library = shipped_reach().parent
    path = tmp_path_factory.mktemp("logs") / "run.mcap"
    graph = skill_graph(library, {"timeout_scale": 4.0})
    try:
        recorder = graph.graph.add(Recorder(path, context=graph.context))
        seen = []
        policy = graph.nodes[2].skills.library.skills["reach"].policy
        act = policy.act

        def recording_act(obs):
            seen.append(np.array(obs, dtype=np.float64))
            return act(obs)

        policy.act = recording_act
        recorded = (interfaces.JOINT_STATES, interfaces.SCENE_OBJECTS)
        graph.wait(lambda: all(recorder.counts[t] for t in recorded), what="recording")
        skill_node = graph.nodes[2]
        publishers = (graph.pub_request, skill_node.pub_status, skill_node.pub_command)
        graph.wait(  # checked on every message: the recorder's readers matched, none lost
            lambda: min(p.get_subscription_count() for p in publishers) >= 2,
            what="the recorder subscribed to the request, status and command topics",
        )
        graph.request("r1", "reach", target="red_cube")
        final = graph.final("r1")
        graph.wait(
            lambda: (
                recorder.counts[interfaces.SKILL_STATUS]
                >= len([s for s in graph.statuses if s["id"] == "r1"])
            ),
            what="every status recorded",
        )
    finally:
        graph.close()
    return path, final, np.stack(seen)


def test_a_recorded_reach_request_converts_to_the_executors_episode(recorded, tmp_path):
    path, final, executed = recorded
    out = convert_recording(path, tmp_path / "run.npz", shipped_reach())
    data = read_dataset(out)
    assert data.header["skill"] == "reach" and len(data.episodes) == 1
    episode = data.episodes[0]
    assert (episode["id"], episode["state"]) == ("r1", final["state"])
    assert episode["reason"] == final["reason"]
    assert episode["return"] == pytest.approx(final[interfaces.SKILL_RETURN], abs=1e-6)
    obs = data.arrays["obs"]
    assert obs.shape == executed.shape, (obs.shape, executed.shape)
    error = np.abs(obs - executed).max(axis=0)
    print(f"rebuilt vs executor: max abs difference per field {np.round(error, 7)}")
    assert float(error.max()) < OBS_TOLERANCE
    assert np.isfinite(data.arrays["commands"]).all()
    # each period's status names its command's stamp: the pairing does not rest on the
    # recorder logging the two close together (a loaded recorder may not)
    commands, named = [], []
    for topic, _, raw in recorded_messages(path):
        if topic == interfaces.SKILL_COMMAND:
            commands.append(decode_joint_state(raw).stamp)
        elif topic == interfaces.SKILL_STATUS:
            status = json.loads(decode_string(raw))
            if interfaces.SKILL_INPUTS in status:
                named.append(status[interfaces.SKILL_COMMAND_STAMP])
    assert len(named) == len(obs)
    assert all(np.min(np.abs(np.asarray(commands) - t)) <= 1e-6 for t in named)

    # an operator's bad mark turns the success into a failure in the dataset
    marks = tmp_path / "feedback.jsonl"
    add_mark(marks, "r1", "bad", note="hovered too low")
    marked = read_dataset(out, read_marks(marks))
    assert marked.episodes[0]["state"] == "failed"
    assert "hovered too low" in marked.episodes[0]["reason"]


@pytest.mark.slow  # ~12 s: a fine-tuning run
def test_miles_train_from_logs_fine_tunes_a_new_version_from_the_recording(
    recorded, tmp_path, capsys
):
    path, _, executed = recorded
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / path.name).write_bytes(path.read_bytes())
    marks = tmp_path / "feedback.jsonl"
    assert miles(["feedback", "r1", "bad", "--file", str(marks), "--no-memory"]) == 0
    out = tmp_path / "reach_v2"
    args = [
        "train",
        "reach",
        "--from-logs",
        str(logs),
        "--out",
        str(out),
        "--feedback",
        str(marks),
    ]
    fast = ["--method", "relabel", "--gradient-steps", "20", "--restarts", "4"]
    fast += ["--restart-horizon", "3"]
    fast += ["--rehearsal-episodes", "1", "--eval-episodes", "1"]
    assert miles(args + fast) == 0
    assert (logs / "run.npz").exists()  # the dataset beside its recording
    card, parent = load_card(out), load_card(shipped_reach())
    assert card.version == parent.version + 1
    tune = card.provenance["fine_tune"]
    assert tune["logged_states"] == len(executed) == tune["failed_states"]  # marked bad
    assert tune["restart_states"] == 4 * 3  # restarted near the (marked) failure's states
    assert tune["command"].startswith("miles train reach --from-logs")
    assert f"wrote {out}: reach version {card.version}" in capsys.readouterr().out
    # DAgger in simulation from the same logs: the next version too, made another way
    in_sim = tmp_path / "reach_v2_sim"
    sim_args = ["--method", "sim", "--steps", "1", "--rehearsal-episodes", "1"]
    sim_args += ["--eval-episodes", "1", "--feedback", str(marks)]
    assert (
        miles(["train", "reach", "--from-logs", str(logs), "--out", str(in_sim), *sim_args]) == 0
    )
    tune = load_card(in_sim).provenance["fine_tune"]
    assert tune["method"].startswith("DAgger on-policy") and tune["identified"]["offset"] is None
    assert "reading offset None m identified" in capsys.readouterr().out
    # another skill's active version refuses these logs before anything is written
    other = tmp_path / "push_v2"
    refused = ["train", "push", "--from-logs", str(logs), "--out", str(other)]
    refused += ["--skill-dir", str(shipped_reach().parent / "push")]
    assert miles(refused) == 2
    assert "logs of skill 'reach', not 'push'" in capsys.readouterr().err
    assert not other.exists()
