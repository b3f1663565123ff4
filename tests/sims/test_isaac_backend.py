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


@pytest.mark.parametrize("mode", ["joint", "cartesian"])
def test_isaac_fallback_mapping_equals_the_pybullet_backends(mode):
    """Where pybullet cannot be imported (.venv-isaac), the Isaac env maps actions with
    _arm_targets_py: the same numbers as the PyBullet backend's _arm_targets."""
    import numpy as np

    from sims.backends.isaac.actions import _arm_targets_py
    from sims.backends.pybullet.env import _arm_targets
    from sims.robots import panda

    rng = np.random.default_rng(0)
    q = rng.uniform(panda.joint_position_min, panda.joint_position_max, (32, 7))
    actions = rng.uniform(-1.0, 1.0, (32, 7))
    args = (0.3 * panda.joint_velocity_limits, 0.02, 0.05, mode == "cartesian", 0.012)
    expected, got = np.empty((32, 7)), np.empty((32, 7))
    _arm_targets(q, actions, *args, expected)
    _arm_targets_py(q, actions, *args, got)
    np.testing.assert_allclose(got, expected, atol=1e-12)
