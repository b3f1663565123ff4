"""The Isaac backend from the plain .venv: where Isaac Lab is absent, a clear ImportError that
says `make isaac`; its fallback action mapping equals the PyBullet backend's. The backend
itself is tested in .venv-isaac by `make test-isaac` (tests_isaac/)."""

import importlib.util

import pytest

from sims import make_env
from sims.backends.isaac import IsaacLabNotAvailableError, make_isaac_env
from sims.tasks import reach

HAS_ISAACLAB = all(importlib.util.find_spec(name) is not None for name in ("isaaclab", "newton"))

needs_absent = pytest.mark.skipif(HAS_ISAACLAB, reason="Isaac Lab is installed here")


@needs_absent
def test_missing_isaac_lab_says_make_isaac():
    with pytest.raises(IsaacLabNotAvailableError) as info:
        make_isaac_env(reach, 4)
    message = str(info.value)
    assert isinstance(info.value, ImportError)
    for needle in ("Isaac Lab", "make isaac", ".venv-isaac", "numba"):
        assert needle in message
    assert "RTX" not in message


@needs_absent
def test_make_env_isaac_raises_the_same_error():
    with pytest.raises(ImportError, match="make isaac"):
        make_env("reach", "isaac", 2)


@needs_absent
def test_bad_num_envs_is_reported_before_the_missing_dependency():
    with pytest.raises(ValueError, match="num_envs"):
        make_isaac_env(reach, 0)
