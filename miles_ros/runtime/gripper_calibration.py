"""The gripper's finger offset measured on the cell (``miles calibrate gripper``): the arm
held still, the empty gripper commanded closed for
:data:`policies.calibration.CLOSE_PERIODS` control periods, its reading turned into an
offset by :func:`policies.calibration.measured_offset` (the one place that maths lives),
written into a scene file's ``gripper.calibration`` (:class:`sims.scene.GripperCalibration`).

In simulation the cell is the scene's PyBullet world (:class:`~miles_ros.runtime.
scene_world.SceneWorld`, what ``sim_node`` runs), whose gripper reads the scene's
``gripper.finger_reading`` wide. A skill whose card has
``calibration.finger_width.measure: closed_gripper`` reads its finger width through the
measured offset in the skill node (:func:`scene_measurements`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from policies.calibration import CLOSE_PERIODS, measured_offset
from sims.scene import Scene

FIELD = "finger_width"
"""The observation field whose offset the closed gripper measures."""


@dataclass(frozen=True)
class GripperMeasurement:
    """One closed-gripper measurement."""

    reading_m: float
    """What the closed empty gripper read (m, both fingers)."""
    offset_m: float
    """The offset it gives (:func:`policies.calibration.measured_offset`)."""
    periods: int
    """Control periods the gripper was commanded closed."""


def measure_in_sim(
    scene: Scene, periods: int = CLOSE_PERIODS, control_dt: float | None = None
) -> GripperMeasurement:
    """Close the empty gripper of the scene's (first) arm in its PyBullet world for
    ``periods`` control periods of ``control_dt`` s (None: pick_place's, the task that
    grasps), the arm held where it starts, and read it as ``sim_node`` publishes it (the
    scene's ``gripper.finger_reading`` on it)."""
    import sims
    from miles_ros.runtime.scene_world import SceneWorld

    if control_dt is None:
        control_dt = sims.get_task("pick_place").CONFIG.control_dt

    if periods < 1:
        raise ValueError(f"periods must be >= 1, got {periods}")
    world = SceneWorld(scene)
    try:
        world.set_targets(arm=np.array(world.arm_target), finger=0.0)
        per_period = max(1, round(control_dt / world.physics_dt))
        for _ in range(periods):
            world.step(per_period)
        reading = world.finger_reading()
    finally:
        world.close()
    return GripperMeasurement(reading, measured_offset(FIELD, reading), periods)


def gripper_section(measurement: GripperMeasurement, date: str, command: str) -> dict:
    """``gripper.calibration`` of a scene file (the keys :func:`sims.scene.load_scene`
    reads), plain YAML types."""
    return {
        "finger_offset_m": float(measurement.offset_m),
        "periods": int(measurement.periods),
        "date": date,
        "command": command,
    }


def scene_measurements(scene: Scene) -> dict[str, float]:
    """The offsets (m) by observation field that the scene's cell has measured (its
    ``gripper.calibration``), as :meth:`policies.runtime.SkillPolicy.use_measured` takes
    them; {} when nothing was measured."""
    calibration = scene.gripper.calibration
    return {} if calibration is None else {FIELD: float(calibration.finger_offset_m)}
