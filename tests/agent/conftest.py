"""Shared fixtures for the planner tests: fixture skill cards, the default world, a fake
language model whose scores the test controls, and (session-scoped, loaded once) the
embedded default model with the shipped adapter, and its tokenizer alone."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import load_world

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def _loaded_registry() -> SkillRegistry:
    """The fixture cards loaded once (11 ms a load: 140 tests take ``registry``)."""
    return SkillRegistry.load([FIXTURES / "skills"], interface_cards=False)


@pytest.fixture(scope="session")
def _loaded_world():
    return load_world()


@pytest.fixture
def registry(_loaded_registry) -> SkillRegistry:
    """Fixture cards (reach, push, pick_place) + scripted home; no interface cards. Each
    test's own copy of one load (a test may change it), 0.5 ms against a load's 11."""
    return copy.deepcopy(_loaded_registry)


@pytest.fixture
def world(_loaded_world):
    """The default scene, each test's own copy (:meth:`World.copy`) of one load."""
    return _loaded_world.copy()


def keyword_scorer(wanted: list[str]):
    """A fake LM score: the plan line wanted next (by count of lines so far) scores 0,
    everything else -5; after the wanted lines, ``done`` scores 0."""

    def score(prompt: str, line: str) -> float:
        plan = prompt.rsplit("Plan:\n", 1)[1]
        n = plan.count("\n")
        target = wanted[n] if n < len(wanted) else "done"
        return 0.0 if line.strip() == target else -5.0

    return score


@pytest.fixture(scope="session")
def real_lm():
    """The embedded default model + shipped adapter, loaded once per session (the first
    run on a machine converts the GGUF to safetensors: about 20 CPU s)."""
    pytest.importorskip("transformers")
    from miles_ros.agent import models
    from miles_ros.agent.lm import HFLanguageModel
    from miles_ros.agent.planner import DEFAULT_ADAPTER

    adapter = DEFAULT_ADAPTER if (DEFAULT_ADAPTER / "adapter_config.json").exists() else None
    try:
        loaded = models.load_model(
            adapter=adapter, threads=models.default_threads(), dtype=models.PLANNING_DTYPE
        )
    except models.ModelUnavailable as exc:
        pytest.skip(str(exc))
    return HFLanguageModel(loaded)


@pytest.fixture(scope="session")
def real_tokenizer():
    """The embedded default model's tokenizer, as :func:`real_lm` has it, without loading
    the weights (a test that needs only the vocabulary does not pay for the model)."""
    pytest.importorskip("transformers")
    from miles_ros.agent import models

    try:
        return models.load_tokenizer()
    except models.ModelUnavailable as exc:
        pytest.skip(str(exc))
