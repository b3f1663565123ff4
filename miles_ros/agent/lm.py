"""Language-model backends behind one small interface.

- :class:`HFLanguageModel`: a local transformers causal LM (the embedded default, any HF
  directory, optionally with a LoRA adapter).
- :class:`EndpointLanguageModel`: an OpenAI-compatible server (vLLM, llama.cpp server,
  Ollama): ``/v1/chat/completions`` for generation (with a ``json_schema`` response
  format), ``/v1/completions`` with ``echo`` + ``logprobs`` for scoring.
- :class:`FakeLanguageModel`: scores and choices you control (tests, dry runs).

Scoring is *constrained step scoring*: candidates are compared through a token trie, and
at every branching token the model's distribution is renormalised over the branches
that exist (tokens every candidate shares cost nothing). The score of a candidate is
the sum of those log-probabilities, i.e. its probability under decoding constrained to
the candidate set. The local backend computes the trie level by level from one KV cache,
so a step costs one prompt pass plus one batched one-token pass per trie level.
"""

from __future__ import annotations

import copy
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Callable

import numpy as np

from miles_ros.agent.constrained import PlanGrammar, TokenIndex, constrained_decode

log = logging.getLogger(__name__)


class LanguageModel:
    """What the planner needs from a language model: ``name``, :meth:`score` and
    :meth:`generate_json`. A backend subclasses it and writes ``_score`` and ``_generate``,
    which receive every argument of the public method (its defaults filled in)."""

    name: str

    def score(
        self,
        segments: list[str],
        continuations: list[str],
        penalties: np.ndarray | None = None,
    ) -> np.ndarray:
        """Log-score of each continuation after the prompt ``"".join(segments)``.

        ``penalties``: what the caller adds to each score before taking the best (<= 0;
        -inf for a continuation it will not take). A backend may then stop early: the
        scores are exact for the best total and for every continuation scoring above it,
        and an upper bound below it for the others (see :func:`_prune`)."""
        return self._score(segments, continuations, penalties)

    def generate_json(
        self, prompt: str, grammar: PlanGrammar, seed: int | None = None, temperature: float = 0.0
    ) -> str:
        """A JSON plan for the prompt, constrained by ``grammar`` where the backend can."""
        return self._generate(prompt, grammar, seed, temperature)

    def _score(
        self, segments: list[str], continuations: list[str], penalties: np.ndarray | None
    ) -> np.ndarray:
        raise NotImplementedError

    def _generate(
        self, prompt: str, grammar: PlanGrammar, seed: int | None, temperature: float
    ) -> str:
        raise NotImplementedError


class FakeLanguageModel(LanguageModel):
    """A language model whose scores are a function you pass (for tests).

    ``score_fn(prompt, continuation) -> float``; ``generate_fn(prompt) -> str`` (default:
    a constrained decode with logits from a seeded random generator).
    """

    def __init__(
        self,
        score_fn: Callable[[str, str], float] | None = None,
        generate_fn: Callable[[str], str] | None = None,
        name: str = "fake",
    ):
        self.score_fn = score_fn or (lambda prompt, cont: 0.0)
        self.generate_fn = generate_fn
        self.name = name
        self.prompts: list[str] = []
        """Every prompt seen, in order (tests inspect them)."""

    def _score(
        self, segments: list[str], continuations: list[str], penalties: np.ndarray | None
    ) -> np.ndarray:
        prompt = "".join(segments)
        self.prompts.append(prompt)
        return np.array([float(self.score_fn(prompt, c)) for c in continuations])

    def _generate(
        self, prompt: str, grammar: PlanGrammar, seed: int | None, temperature: float
    ) -> str:
        self.prompts.append(prompt)
        if self.generate_fn is not None:
            return self.generate_fn(prompt)
        return random_constrained_plan(grammar, seed)


def random_constrained_plan(grammar: PlanGrammar, seed: int | None) -> str:
    """A plan decoded under ``grammar`` one character at a time with random choices."""

    class _CharIndex:
        text: dict[int, str] = {}

        def allowed(self, g, state):
            chars = sorted(set('{}[]":,._- 0123456789abcdefghijklmnopqrstuvwxyz'))
            out = {}
            for i, ch in enumerate(chars):
                nxt = g.advance(state, ch)
                if nxt is not None:
                    out[i] = nxt
                    self.text[i] = ch
            return out

    rng = np.random.default_rng(seed)
    return constrained_decode(
        grammar,
        _CharIndex(),
        lambda text: [],
        lambda new, ids: rng.normal(size=len(ids)),
        seed=seed,
        temperature=1.0,
    )


class _Node:
    __slots__ = ("token", "children", "ends", "logprob", "row")

    def __init__(self, token: int | None):
        self.token = token
        self.children: dict[int, _Node] = {}
        self.ends: list[int] = []
        self.logprob = 0.0
        self.row = -1


def _prune(root: _Node, penalties: np.ndarray) -> None:
    """Drop from the batched pass the first-token branches that cannot hold the best
    candidate (branch and bound on ``log p + penalty``, the planner's total).

    A branch without a fork below its first token holds one line whose score is already
    exact; the best total among those is a floor. Every line of a branch scores at most
    its first token's log-probability (the rest adds log-probabilities <= 0) plus a penalty
    <= 0, so a branch whose first token scores below the floor is left out: its lines
    keep that first-token score, an upper bound below the floor, so the best candidate and
    the order of every candidate scoring above the floor are those of the full pass.
    ``done`` after the last step (log p near 0) usually prunes every branch: no batched pass.
    In bfloat16 a line scored in the batched pass may read ~0.01 nats from its score in
    the full pass: the pass's rounding depends on how many rows it holds (seen on a CPU
    with avx512_bf16; float32 agrees within 1e-6).
    """
    floor = -np.inf
    for child in root.children.values():
        if child.row:
            continue
        node = child
        while node.children:  # a chain: every token after the first is forced
            node = next(iter(node.children.values()))
        for i in node.ends:
            if np.isfinite(penalties[i]):
                floor = max(floor, child.logprob + penalties[i])
    for child in root.children.values():
        if child.row and child.logprob < floor:
            child.row = 0
            _unmark(child)


def _unmark(node: _Node) -> None:
    for child in node.children.values():
        child.row = 0
        _unmark(child)


def _mark_needed(node: _Node) -> bool:
    """Set ``row`` truthy on nodes that must be fed to the model: those with two or more
    children (their children need scoring) or with such a node below them."""
    below = [_mark_needed(c) for c in list(node.children.values())]
    node.row = int(len(node.children) >= 2 or any(below))
    return bool(node.row)


class HFLanguageModel(LanguageModel):
    """A local transformers model (see :func:`miles_ros.agent.models.load_model`)."""

    def __init__(self, loaded):
        import torch

        self.torch = torch
        self.model = loaded.model
        self.tokenizer = loaded.tokenizer
        self.name = loaded.name
        self.load_s = loaded.load_s
        self.decoder = self.model.get_decoder()
        self.head = self.model.get_output_embeddings().weight
        config = self.model.config
        self.softcap = getattr(config, "final_logit_softcapping", None)
        self._index: TokenIndex | None = None
        self._prefix_cache = None

    def encode(self, text: str, bos: bool = False) -> list[int]:
        """Token ids of ``text`` (with ``<bos>`` first when asked)."""
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if bos and self.tokenizer.bos_token_id is not None:
            ids = [self.tokenizer.bos_token_id, *ids]
        return ids

    def encode_segments(self, segments: list[str]) -> list[int]:
        """Concatenated ids of separately tokenized segments (``<bos>`` first)."""
        ids: list[int] = []
        for i, segment in enumerate(segments):
            ids += self.encode(segment, bos=(i == 0))
        return ids

    def _logits(self, hidden, token_ids):
        # in float32 whatever the weights' dtype: log-probabilities are summed and compared
        logits = hidden.float() @ self.head[token_ids].float().T
        if self.softcap:
            logits = self.torch.tanh(logits / self.softcap) * self.softcap
        return logits

    def _prefix(self, segments: list[str]):
        """(KV cache, last hidden state) after the prompt, reusing the previous call's
        work when the prompt only grew by whole segments (the next step of a plan). The
        cache is kept for that reuse: a caller that extends it extends a copy."""
        torch = self.torch
        cached = self._prefix_cache
        if cached is not None and segments[: len(cached[0])] == cached[0]:
            done, cache, hidden = cached
            new_ids = (
                self.encode_segments(segments)[len(self.encode_segments(done)) :]
                if len(segments) > len(done)
                else []
            )
        else:
            cache, hidden, new_ids = None, None, self.encode_segments(segments)
        if new_ids:
            out = self.decoder(input_ids=torch.tensor([new_ids]), cache=cache, use_cache=True)
            cache, hidden = out.past_key_values, out.last_hidden_state[0, -1]
        self._prefix_cache = (list(segments), cache, hidden)
        return cache, hidden

    def _score(
        self, segments: list[str], continuations: list[str], penalties: np.ndarray | None
    ) -> np.ndarray:
        torch = self.torch
        root = _Node(None)
        for i, text in enumerate(continuations):
            node = root
            for token in self.encode(text):
                node = node.children.setdefault(token, _Node(token))
            node.ends.append(i)
        _mark_needed(root)
        with torch.inference_mode():
            cache, hidden = self._prefix(segments)
            self._score_children(root, hidden)
            if penalties is not None:
                _prune(root, np.asarray(penalties, dtype=np.float64))
            # One batched pass: a row per deepest node that needs scoring, holding the
            # path from the root (right-padded; causal attention ignores what follows).
            rows: list[list[_Node]] = []
            stack = [(c, [c]) for c in root.children.values() if c.row]
            while stack:
                node, path = stack.pop()
                below = [c for c in node.children.values() if c.row]
                if not below:
                    rows.append(path)
                stack += [(c, [*path, c]) for c in below]
            if rows:
                width = max(len(p) for p in rows)
                pad = self.tokenizer.pad_token_id or 0
                ids = torch.tensor([[n.token for n in p] + [pad] * (width - len(p)) for p in rows])
                cache = copy.deepcopy(cache)
                cache.reorder_cache(torch.zeros(len(rows), dtype=torch.long))
                out = self.decoder(input_ids=ids, cache=cache, use_cache=True)
                states = out.last_hidden_state
                seen: set[int] = set()
                for r, path in enumerate(rows):
                    for d, node in enumerate(path):
                        if id(node) not in seen:
                            seen.add(id(node))
                            self._score_children(node, states[r, d])
        scores = np.zeros(len(continuations))
        stack = [(root, 0.0)]
        while stack:
            node, total = stack.pop()
            total += node.logprob
            for i in node.ends:
                scores[i] = total
            stack += [(c, total) for c in node.children.values()]
        return scores

    def _score_children(self, node: _Node, hidden) -> None:
        kids = list(node.children.values())
        if len(kids) <= 1:
            kids[0].logprob = 0.0
            return
        logits = self._logits(hidden, [k.token for k in kids])
        logp = self.torch.log_softmax(logits, dim=-1)
        for kid, lp in zip(kids, logp.tolist(), strict=True):
            kid.logprob = float(lp)

    @property
    def index(self) -> TokenIndex:
        """The vocabulary trie for constrained decoding (built once, ~1 s)."""
        if self._index is None:
            self._index = TokenIndex(self.tokenizer)
        return self._index

    def _generate(
        self, prompt: str, grammar: PlanGrammar, seed: int | None, temperature: float
    ) -> str:
        torch = self.torch
        state = {"cache": None, "first": True}

        def next_logits(new_ids: list[int], candidates: list[int]):
            ids = (self.encode(prompt, bos=True) if state["first"] else []) + list(new_ids)
            state["first"] = False
            with torch.inference_mode():
                out = self.decoder(
                    input_ids=torch.tensor([ids]), cache=state["cache"], use_cache=True
                )
                state["cache"] = out.past_key_values
                return self._logits(out.last_hidden_state[0, -1], candidates).tolist()

        return constrained_decode(
            grammar, self.index, self.encode, next_logits, seed=seed, temperature=temperature
        )


class EndpointError(RuntimeError):
    """The endpoint could not be reached or answered something unusable."""


class EndpointLanguageModel(LanguageModel):
    """An OpenAI-compatible server at ``url`` (``http://host:port`` or ``.../v1``)."""

    def __init__(
        self, url: str, model: str = "default", timeout_s: float = 60.0, api_key: str | None = None
    ):
        base = url.rstrip("/")
        self.base = base if base.endswith("/v1") else base + "/v1"
        self.model = model
        self.timeout_s = timeout_s
        self.api_key = api_key
        self.name = f"endpoint:{self.base}#{model}"
        self.load_s = 0.0

    def _post(self, path: str, body: dict) -> dict:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read().decode())
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as exc:
            raise EndpointError(f"{self.base}{path}: {exc}") from exc

    def _generate(
        self, prompt: str, grammar: PlanGrammar, seed: int | None, temperature: float
    ) -> str:
        schema = grammar.registry.plan_schema(grammar.max_steps)
        system = (
            "You plan robot skill calls. Answer with one JSON object matching the "
            "schema, nothing else. Skills:\n"
            + grammar.registry.describe()
            + "\nScene names: "
            + ", ".join(grammar.names)
        )
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            "temperature": temperature,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "plan", "schema": schema},
            },
        }
        if seed is not None:
            body["seed"] = seed
        reply = self._post("/chat/completions", body)
        try:
            return reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise EndpointError(f"unexpected reply: {str(reply)[:200]}") from exc

    def _score(
        self, segments: list[str], continuations: list[str], penalties: np.ndarray | None
    ) -> np.ndarray:
        prompt = "".join(segments)
        scores = []
        for text in continuations:
            reply = self._post(
                "/completions",
                {
                    "model": self.model,
                    "prompt": prompt + text,
                    "max_tokens": 0,
                    "echo": True,
                    "logprobs": 1,
                    "temperature": 0,
                },
            )
            try:
                lp = reply["choices"][0]["logprobs"]
                offsets, values = lp["text_offset"], lp["token_logprobs"]
            except (KeyError, IndexError, TypeError) as exc:
                raise EndpointError(
                    "scoring needs a server that supports echo + logprobs on "
                    "/v1/completions; use --mode generate"
                ) from exc
            scores.append(
                sum(
                    v
                    for o, v in zip(offsets, values, strict=False)
                    if o >= len(prompt) and v is not None
                )
            )
        return np.array(scores)
