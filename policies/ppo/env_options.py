"""What a training run's ``env`` block does to the task it trains: the randomization it
adds to the task's ``DomainRandomization`` (cube size, finger friction and reading, contact
stiffness; plain-arm episodes; the cube-pose error model), the tool levelling it gives the
task's IK, and the checks of those options (ValueError naming the ``env.`` key). Apart from
the typed configs (:mod:`policies.ppo.config`, which checks a block with these when it is
parsed) because the env builders, the stage runner, the physics evaluation and the
exporter read a run's options through them too.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from policies.ppo.config import EnvConfig

CONTACT_RANDOMIZATION = (
    "object_mass_scale",
    "friction_scale",
    "cube_size",
    "finger_friction_scale",
    "contact_stiffness",
    "finger_reading",
)
"""The ``env`` keys that are ``DomainRandomization`` fields of the same name."""


def contact_randomization(env: EnvConfig) -> dict[str, tuple[float, float]]:
    """The ``DomainRandomization`` fields the run's ``env`` sets (those neither empty nor
    equal to the field's default, which changes nothing: ``finger_reading: [0, 0]``);
    ValueError for a malformed range."""
    from sims.tasks.base import DomainRandomization

    defaults = {f.name: f.default for f in dataclasses.fields(DomainRandomization)}
    changes = {
        k: tuple(getattr(env, k))
        for k in CONTACT_RANDOMIZATION
        if getattr(env, k) and tuple(getattr(env, k)) != defaults[k]
    }
    for key, value in changes.items():
        try:
            DomainRandomization(**{key: value})
        except (ValueError, TypeError) as exc:
            raise ValueError(f"env.{key}: {exc}") from None
    return changes


def plain_arm_randomization(env: EnvConfig) -> dict[str, float]:
    """``{"plain_arm_prob": p}`` when the run's ``env`` sends a fraction p > 0 of its
    episodes past its command-path model (``env.actuator``), else empty (without a model
    every episode is on the plain arm already); ValueError for a p outside [0, 1]."""
    from sims.tasks.base import DomainRandomization

    prob = env.plain_arm_prob
    try:
        DomainRandomization(plain_arm_prob=prob)
    except ValueError as exc:
        raise ValueError(f"env.{exc}") from None
    if not prob or env.actuator == "none":
        return {}
    return {"plain_arm_prob": float(prob)}


def pose_error_fields(value) -> dict[str, float]:
    """``env.pose_error`` as plain numbers (the :class:`~sims.tasks.base.CubePoseError`
    fields, so a run's config and its card record the model itself, not a preset's name):
    from a preset's name (``camera``), a mapping of fields, or empty (off: ``{}``);
    ValueError for an unknown preset or key or a bad value."""
    from sims.tasks.base import cube_pose_error

    try:
        model = cube_pose_error(value)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"env.{exc}") from None
    return {k: float(v) for k, v in dataclasses.asdict(model).items()} if model.on else {}


def pose_error_randomization(env: EnvConfig) -> dict:
    """``{"pose_error": CubePoseError}`` when the run's ``env`` sets one, else empty."""
    from sims.tasks.base import cube_pose_error

    fields = pose_error_fields(env.pose_error)
    return {"pose_error": cube_pose_error(fields)} if fields else {}


def check_plain_fraction(fraction) -> float:
    """``env.plain_fraction``, or ValueError when it is not a number in [0, 1]."""
    if not (isinstance(fraction, (int, float)) and 0.0 <= fraction <= 1.0):
        raise ValueError(f"env.plain_fraction must lie in [0, 1], got {fraction!r}")
    return fraction


def levelling_fields(env, task_config) -> dict:
    """The TaskConfig fields of a training env block's tool levelling (``env``: an
    :class:`EnvConfig` or its dict, as a checkpoint or run stores it):
    ``{"ik_tilt_gain": ..., "ik_tilt_allowance_deg": ...}``, empty when the gain is 0.
    ValueError for a gain that is not a number in (0, 1] on a task with Cartesian actions,
    an allowance outside [0, 90) degrees, or an allowance without a gain."""
    get = env.get if isinstance(env, dict) else lambda key, default: getattr(env, key, default)
    gain = get("ik_tilt_gain", 0.0) or 0.0
    allowance = get("ik_tilt_allowance_deg", 0.0) or 0.0
    if gain == 0:
        if allowance != 0:
            raise ValueError(
                f"env.ik_tilt_allowance_deg ({allowance!r}) needs env.ik_tilt_gain > 0: "
                "it is the tilt the tool levelling leaves alone"
            )
        return {}
    if task_config.action_mode != "cartesian" or not (
        isinstance(gain, (int, float)) and 0.0 < gain <= 1.0
    ):
        raise ValueError(
            f"env.ik_tilt_gain is a Cartesian-task option in (0, 1], not {gain!r} for "
            f"{task_config.name} ({task_config.action_mode} actions)"
        )
    if not (isinstance(allowance, (int, float)) and 0.0 <= allowance < 90.0):
        raise ValueError(
            f"env.ik_tilt_allowance_deg is a tilt in [0, 90) degrees, not {allowance!r}"
        )
    return {"ik_tilt_gain": float(gain), "ik_tilt_allowance_deg": float(allowance)}
