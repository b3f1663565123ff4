"""The manager tests plan with the planner tests' fixture cards and default world."""

from tests.agent.conftest import registry, world  # noqa: F401
