"""The Isaac Lab adapter where Isaac Lab is absent: a clear, actionable ImportError."""

import importlib.util

import pytest

from sims import make_env
from sims.backends.isaac_backend import IsaacEnv, IsaacLabNotAvailableError
from sims.tasks import reach

HAS_ISAACLAB = any(importlib.util.find_spec(name) is not None for name in ("isaaclab", "omni"))

pytestmark = pytest.mark.skipif(HAS_ISAACLAB, reason="Isaac Lab is installed here")


def test_missing_isaac_lab_says_what_to_install_and_which_gpu():
    with pytest.raises(IsaacLabNotAvailableError) as info:
        IsaacEnv(reach, 4)
    message = str(info.value)
    assert isinstance(info.value, ImportError)
    for needle in ("Isaac Lab", "Isaac Sim", "NVIDIA RTX GPU", "Installation", "numba"):
        assert needle in message


def test_make_env_isaac_raises_the_same_error():
    with pytest.raises(ImportError, match="NVIDIA RTX GPU"):
        make_env("reach", "isaac", 2)


def test_bad_num_envs_is_reported_before_the_missing_dependency():
    with pytest.raises(ValueError, match="num_envs"):
        IsaacEnv(reach, 0)
