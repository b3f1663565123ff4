"""The scene (:mod:`sims.scene`, config/scene.yaml) as a PyBullet world, and its camera.

One mapping from the scene and the robot model to a :class:`WorldSpec`, shared by the
batched env (:mod:`sims.backends.pybullet.env`) and the ROS sim node's world
(:mod:`miles_ros.runtime.scene_world`), so both hold the same table, cubes and motors.
"""

from __future__ import annotations

from sims.backends.pybullet.spec import WorldSpec
from sims.robots import panda
from sims.scene import Scene

DEFAULT_CAMERA = {
    "target": [0.42, 0.0, 0.18],
    "distance": 1.45,
    "yaw": 60.0,
    "pitch": -28.0,
    "fov": 50.0,
}
"""Fixed camera looking at the table from the front right (PyBullet yaw/pitch, degrees)."""


def world_spec_from_scene(
    scene: Scene,
    *,
    has_object: bool,
    has_gripper: bool,
    physics_dt: float,
    substeps: int,
    scene_objects: bool = False,
) -> WorldSpec:
    """The world of ``scene``: its table, its cube size and mass for the task cube, motor
    forces from the Panda's datasheet (:mod:`sims.robots.panda`); with ``scene_objects``
    also its named cubes (with their AprilTags) and pads. The other arguments are
    :class:`WorldSpec`'s."""
    cubes, pads, tags = (), (), ()
    if scene_objects:
        cubes = tuple((o.name, o.position, o.color) for o in scene.objects.values())
        tags = tuple((o.name, o.tag.id, o.tag.size) for o in scene.objects.values() if o.tag)
        pads = tuple((pl.name, pl.position, pl.size, pl.color) for pl in scene.places.values())
    return WorldSpec(
        has_object=has_object,
        has_gripper=has_gripper,
        physics_dt=physics_dt,
        substeps=substeps,
        arm_forces=tuple(float(f) for f in panda.joint_torque_limits),
        finger_force=float(panda.gripper_force_continuous),
        table_size=scene.table.size,
        table_center_xy=scene.table.center_xy,
        table_color=scene.table.color,
        cube_size=scene.cube_size,
        cube_mass=scene.cube_mass,
        decor_cubes=cubes,
        decor_tags=tags,
        decor_pads=pads,
    )
