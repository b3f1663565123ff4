"""World frame <-> an arm's base frame: pure functions (no ROS), for a cell of several arms.

A multi-arm scene (:mod:`sims.scene`, ``arms:``) places each arm's base frame in the
world frame by an :class:`~sims.scene.ArmMount` (a position and a yaw about z). The sim
publishes object poses in the world frame; an arm's skill node sees them, the pads and
the table in its own base frame, where its skills were trained:
``p_base = Rz(-yaw) (p_world - base_position)``, a yaw ``psi_base = psi_world - yaw``.
For the single arm of a scene without ``arms:`` (:data:`sims.scene.SINGLE_ARM`) every
function here is the identity.

>>> from sims.scene import ArmMount
>>> mount = ArmMount("left_arm", (0.0, 0.55, 0.0), -math.pi / 2)
>>> [round(float(v), 6) + 0.0 for v in world_to_base(mount, (0.0, 0.0, 0.02))]
[0.55, 0.0, 0.02]
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

from miles_ros.runtime.observation import ObjectPose
from sims.robots import panda
from sims.scene import SINGLE_ARM, ArmMount, Scene, Table


def _rotation(yaw: float) -> np.ndarray:
    """Rz(yaw) in the xy plane, [2, 2]."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s], [s, c]])


def world_to_base(mount: ArmMount, points) -> np.ndarray:
    """Points [..., 3] (m) from the world frame into ``mount``'s base frame."""
    p = np.array(points, dtype=np.float64)
    if p.shape[-1:] != (3,):
        raise ValueError(f"expected points with 3 coordinates, got shape {p.shape}")
    p = p - np.asarray(mount.base_position, dtype=np.float64)
    p[..., :2] = p[..., :2] @ _rotation(mount.base_yaw)  # row vectors: Rz(-yaw) p
    return p


def base_to_world(mount: ArmMount, points) -> np.ndarray:
    """Points [..., 3] (m) from ``mount``'s base frame into the world frame."""
    p = np.array(points, dtype=np.float64)
    if p.shape[-1:] != (3,):
        raise ValueError(f"expected points with 3 coordinates, got shape {p.shape}")
    p[..., :2] = p[..., :2] @ _rotation(mount.base_yaw).T  # Rz(yaw) p
    return p + np.asarray(mount.base_position, dtype=np.float64)


def arm_bodies(scene: Scene) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
    """Arm name -> (its base's x/y, its TCP's x/y at the home pose), world frame (m): where
    each arm stands and where its skills start (the cell dispatcher's ``bodies``)."""
    home = panda.fk_tcp(panda.home_joint_positions)
    out = {}
    for mount in scene.arms:
        tcp = base_to_world(mount, home)
        out[mount.name] = (
            (float(mount.base_position[0]), float(mount.base_position[1])),
            (float(tcp[0]), float(tcp[1])),
        )
    return out


def wrap_angle(angle: float) -> float:
    """``angle`` in [-pi, pi) (rad)."""
    return (float(angle) + math.pi) % (2.0 * math.pi) - math.pi


def yaw_world_to_base(mount: ArmMount, yaw: float) -> float:
    """A rotation about z (rad) seen from ``mount``'s base frame, in [-pi, pi)."""
    return wrap_angle(yaw - mount.base_yaw)


def yaw_base_to_world(mount: ArmMount, yaw: float) -> float:
    """A rotation about z (rad) in ``mount``'s base frame seen from the world, in [-pi, pi)."""
    return wrap_angle(yaw + mount.base_yaw)


def poses_to_base(mount: ArmMount, poses: Mapping[str, ObjectPose]) -> dict[str, ObjectPose]:
    """Object poses (``/miles/scene/objects``, world frame) in ``mount``'s base frame."""
    if mount == SINGLE_ARM:
        return dict(poses)
    return {
        name: ObjectPose(world_to_base(mount, pose.position), yaw_world_to_base(mount, pose.yaw))
        for name, pose in poses.items()
    }


def scene_in_base_frame(scene: Scene, mount: ArmMount) -> Scene:
    """``scene`` as ``mount``'s arm sees it: cube and pad positions in its base frame, the
    table's centre too, with the table's extent the axis-aligned box around the turned
    table (exact for turns by multiples of 90 degrees). The arms keep their world mounts.
    The identity for :data:`sims.scene.SINGLE_ARM`."""
    if mount == SINGLE_ARM:
        return scene
    objects = {
        name: dataclasses.replace(obj, position=_tuple(world_to_base(mount, obj.position)))
        for name, obj in scene.objects.items()
    }
    places = {
        name: dataclasses.replace(place, position=_tuple(world_to_base(mount, place.position)))
        for name, place in scene.places.items()
    }
    sx, sy, thickness = scene.table.size
    c, s = abs(math.cos(mount.base_yaw)), abs(math.sin(mount.base_yaw))
    center = world_to_base(mount, (*scene.table.center_xy, 0.0))
    table = Table(
        size=(_round(c * sx + s * sy), _round(s * sx + c * sy), thickness),
        center_xy=(float(center[0]), float(center[1])),
        color=scene.table.color,
    )
    return dataclasses.replace(scene, table=table, objects=objects, places=places)


def _round(value: float) -> float:
    """Drops the 1e-17 residues of cos/sin at multiples of 90 degrees."""
    return float(round(value, 12))


def _tuple(v: np.ndarray) -> tuple[float, float, float]:
    return (_round(v[0]), _round(v[1]), _round(v[2]))
