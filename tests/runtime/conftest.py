"""Fixtures of the runtime tests."""

import pytest

from tests.runtime.skill_fixtures import random_skill


@pytest.fixture(scope="module")
def library_dir(tmp_path_factory):
    """A skill library of untrained reach and push skills (one per test module)."""
    root = tmp_path_factory.mktemp("skills")
    random_skill(root, "reach")
    random_skill(root, "push")
    return root
