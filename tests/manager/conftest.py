"""The manager tests plan with the planner tests' fixture cards and default world."""

from tests.agent.conftest import (  # noqa: F401
    _loaded_registry,
    _loaded_world,
    registry,
    world,
)
