"""Every skill of a library run once before the graph runs (:func:`warm_up`), so the first
real control period does not pay for JIT compiling (seconds in a fresh clone: a
single-threaded graph would stop publishing joint states) and session setup."""

from __future__ import annotations

import numpy as np

from miles_ros.runtime.actions import action_to_targets
from miles_ros.runtime.command_path import CommandPath
from miles_ros.runtime.homing import home_path, path_target
from miles_ros.runtime.library import SkillLibrary
from miles_ros.runtime.observation import JointReading, ObjectPose, sim_state
from sims.robots import panda
from sims.robots.actuator import ActuatorModel


def warm_up(
    library: SkillLibrary,
    home_speed: float,
    actuator: ActuatorModel | None,
    velocity_scale: float,
) -> None:
    """Run every skill's observation, actor, action mapping and command path (with
    ``actuator``, the executor's command-path model; None: commands not shaped) once on
    the home pose, and the scripted home move's path."""
    q = panda.home_joint_positions.copy()
    reading = JointReading(q, np.zeros(7), 0.0, 0.0)
    for skill in library.skills.values():
        if skill.task is None:
            path_target(home_path(q), home_speed, 0.04)
            continue
        state = sim_state(reading, panda.fk_tcp(q), ObjectPose(np.array([0.5, 0, 0.02]), 0.0))
        skill.task.success(state, skill.cfg)
        obs = skill.task.observe(state)[0]
        if skill.policy.measures and not skill.policy.measured:  # measured at bring-up
            action = np.zeros(skill.policy.action_dim, dtype=np.float32)
        else:
            action = skill.policy.act(obs)
        targets = action_to_targets(skill.cfg, q, action)
        if actuator is not None:  # its numba kernel compiles here, not mid-graph
            path = CommandPath(skill.cfg.control_dt, actuator, velocity_scale=velocity_scale)
            path.sync(q, np.zeros(7))
            path.step(targets.arm)
