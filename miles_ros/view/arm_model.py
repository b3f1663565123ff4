"""The Panda as the view draws it: each URDF link's pose from the project's forward
kinematics (:func:`sims.robots.panda.fk_frames`, the one source of the arm's geometry)
and its mesh from pybullet_data's ``franka_panda/panda.urdf`` (the URDF the PyBullet
backend simulates; nothing is downloaded).

Frames (:mod:`sims.robots.panda_spheres` states the same): URDF link ``i`` (1..7) is
Franka's modified-DH frame ``i``, that is ``fk_frames``'s frame ``i - 1``; ``panda_link8``
is the flange (frame 7); ``panda_link0`` is the base frame; ``panda_hand`` is the flange
turned by ``panda.hand_yaw`` about z (the TCP frame's rotation at the flange's origin);
the fingers slide along the hand's y axis as the URDF's prismatic finger joints say. The
meshes are the URDF's collision meshes (about 0.5 MB for the arm, against 10 MB for the
visual ones), which the link spheres of the safety supervisor were fitted to.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from sims.backends.isaac.assets import find_pybullet_data
from sims.robots import panda

URDF_DIR = "franka_panda"
"""The Panda's folder inside pybullet_data (found as the Isaac assets find it)."""

BASE_LINK = "panda_link0"
"""The base link: the arm's base frame."""
ARM_LINKS: tuple[str, ...] = tuple(f"panda_link{i}" for i in range(9))
"""The arm's links in the URDF: the base (0), the seven moving links and the flange (8)."""
HAND = "panda_hand"
FINGERS: tuple[str, ...] = ("panda_leftfinger", "panda_rightfinger")
"""The fingers, driven by :data:`sims.robots.panda.FINGER_JOINT_NAMES` in this order."""
LINKS: tuple[str, ...] = (*ARM_LINKS, HAND, *FINGERS)
"""Every link the view places, in tree order."""


@dataclass(frozen=True)
class LinkMesh:
    """One link's mesh: the file and its pose in the link frame (the URDF's origin)."""

    link: str
    path: Path
    pose: np.ndarray
    """[4, 4] mesh frame in the link frame."""


def _origin(element: ET.Element | None) -> np.ndarray:
    """The [4, 4] transform of a URDF ``<origin xyz rpy>`` (identity when absent)."""
    out = np.eye(4)
    if element is None:
        return out
    x, y, z = (float(v) for v in element.get("xyz", "0 0 0").split())
    roll, pitch, yaw = (float(v) for v in element.get("rpy", "0 0 0").split())
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll),
        math.sin(roll),
        math.cos(pitch),
        math.sin(pitch),
        math.cos(yaw),
        math.sin(yaw),
    )
    out[:3, :3] = [  # URDF: R = Rz(yaw) Ry(pitch) Rx(roll)
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
    out[:3, 3] = (x, y, z)
    return out


@dataclass(frozen=True)
class PandaModel:
    """What the view needs from the URDF: the meshes per link and the finger joints."""

    meshes: tuple[LinkMesh, ...]
    finger_origin: tuple[np.ndarray, ...]
    """Per finger, its joint's [4, 4] origin in the hand frame."""
    finger_axis: tuple[np.ndarray, ...]
    """Per finger, its joint's unit axis [3] in the hand frame."""


@cache
def panda_model(data_dir: str | None = None) -> PandaModel:
    """The Panda's meshes and finger joints from ``franka_panda/panda.urdf``."""
    folder = find_pybullet_data(data_dir) / URDF_DIR
    root = ET.parse(folder / "panda.urdf").getroot()
    meshes = []
    for link in root.iter("link"):
        if link.get("name") not in LINKS:
            continue
        for shape in link.findall("collision"):
            mesh = shape.find("geometry/mesh")
            if mesh is None:
                continue
            path = folder / mesh.get("filename", "").removeprefix("package://")
            meshes.append(LinkMesh(link.get("name"), path, _origin(shape.find("origin"))))
    joints = {j.get("name"): j for j in root.iter("joint")}
    origins, axes = [], []
    for name in panda.FINGER_JOINT_NAMES:
        joint = joints[name]
        origins.append(_origin(joint.find("origin")))
        axis = np.array([float(v) for v in joint.find("axis").get("xyz").split()])
        axes.append(axis / np.linalg.norm(axis))
    return PandaModel(tuple(meshes), tuple(origins), tuple(axes))


def link_poses(
    q: np.ndarray, fingers: tuple[float, float] | None = None, model: PandaModel | None = None
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``({link: [4, 4] pose in the base frame}, [4, 4] TCP pose)`` for arm positions
    ``q`` [7] and finger positions (m each; None: open). The TCP is ``fk_frames``'s own
    TCP frame, not rebuilt from the links."""
    frames = np.empty((9, 4, 4))
    panda.fk_frames(np.ascontiguousarray(q, dtype=np.float64), frames)
    poses = {BASE_LINK: np.eye(4)}
    for i in range(1, 9):
        poses[f"panda_link{i}"] = frames[i - 1]
    hand = np.eye(4)
    hand[:3, :3] = frames[8, :3, :3]
    hand[:3, 3] = frames[7, :3, 3]
    poses[HAND] = hand
    model = model or panda_model()
    if fingers is None:
        fingers = (panda.finger_position_max, panda.finger_position_max)
    for name, origin, axis, travel in zip(
        FINGERS, model.finger_origin, model.finger_axis, fingers, strict=True
    ):
        slide = origin.copy()
        slide[:3, 3] += origin[:3, :3] @ (axis * float(travel))
        poses[name] = hand @ slide
    return poses, frames[8].copy()
