"""`miles feedback`: a mark lands in the feedback file the fine-tuning data read and, as a
``feedback`` fact, in the manager's memory (the manager's own memory builder)."""

from __future__ import annotations

import json

from miles_ros.agent.memory import HashEmbedder, Memory
from miles_ros.cli import main as miles
from miles_ros.commands.feedback import FEEDBACK_FACT
from policies.logs import read_marks


def test_a_mark_goes_to_the_feedback_file_and_the_managers_memory(tmp_path, capsys):
    marks, db = tmp_path / "out" / "feedback.jsonl", tmp_path / "memory.sqlite"
    memory = ["--memory-db", str(db), "--memory-embedder", "hash"]
    args = ["feedback", "trace-7", "bad", "--note", "dropped the cube", "--file", str(marks)]
    assert miles(args + memory + ["--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert read_marks(marks) == [printed]
    assert (printed["id"], printed["mark"], printed["note"]) == (
        "trace-7",
        "bad",
        "dropped the cube",
    )
    stored = Memory(str(db), embedder=HashEmbedder())
    try:
        facts = stored.search("operator marked dropped the cube", k=3)
    finally:
        stored.close()
    assert [f.kind for f in facts] == [FEEDBACK_FACT]
    assert "trace-7 bad: dropped the cube" in facts[0].text


def test_a_mark_other_than_good_or_bad_is_a_usage_error(tmp_path, capsys):
    marks = tmp_path / "feedback.jsonl"
    try:
        miles(["feedback", "r1", "meh", "--file", str(marks), "--no-memory"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "invalid choice: 'meh'" in capsys.readouterr().err
    assert not marks.exists()
