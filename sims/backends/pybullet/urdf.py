"""The Panda URDF that pybullet_data ships, with its fixed links merged (and loaded from a
file written once into the temp directory).

Plain numpy and XML only: a subprocess worker imports this. The joint names are the
URDF's own (``panda_joint1..7``, ``panda_finger_joint1..2``).
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
import xml.etree.ElementTree as ET

import numpy as np
import pybullet_data

ARM_JOINT_NAMES = tuple(f"panda_joint{i}" for i in range(1, 8))
"""The 7 arm joints of the URDF, base to flange."""
FINGER_JOINT_NAMES = ("panda_finger_joint1", "panda_finger_joint2")
"""The two finger joints of the URDF (prismatic, each 0 .. 0.04 m)."""
ARM_MESHES = ("visual", "collision")
"""What an arm can be drawn with (:func:`panda_urdf_path`'s ``meshes``)."""


def panda_urdf_path(fixed_fingers: bool, meshes: str = "visual") -> str:
    """Path of a Panda URDF made from pybullet_data's, with its fixed links merged.

    The hand (and with ``fixed_fingers`` the two fingers, welded closed at width 0) is
    merged into ``panda_link7``: each fixed link is one more body for the solver, so
    this cuts the physics cost per step (a blocked gripper as a rigid part instead of
    two stiff motors halves it). Geometry and masses are unchanged. (PyBullet's own
    ``URDF_MERGE_FIXED_LINKS`` merges collisions correctly but misplaces the merged
    visuals in the TinyRenderer, hence this.) Written once into the temp directory,
    with absolute mesh paths.

    ``meshes`` (:data:`ARM_MESHES`) is what the arm looks like to a camera: ``"visual"``,
    the URDF's detailed meshes (~100k triangles); ``"collision"``, its collision hulls
    drawn in their place (~3.4k triangles; the shape physics sees, slightly fuller than
    the visual). The TinyRenderer transforms every triangle of a frame whether it is in
    view or not: a camera that renders every frame spends ~15 ms a 640x480 frame on the
    detailed arm (~70 ms in all).
    """
    if meshes not in ARM_MESHES:
        raise ValueError(f"meshes must be one of {ARM_MESHES}, got {meshes!r}")
    source = os.path.join(pybullet_data.getDataPath(), "franka_panda", "panda.urdf")
    with open(source, encoding="utf-8") as stream:
        text = stream.read()
    mesh_dir = os.path.join(os.path.dirname(source), "meshes")
    if meshes == "collision":
        text = text.replace("package://meshes/visual/", "package://meshes/collision/")
    text = merge_fixed_links(text.replace("package://meshes", mesh_dir), fixed_fingers)
    variant = ("fixed_fingers" if fixed_fingers else "gripper") + f"_{meshes}"
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"miles_panda_{variant}_{digest}.urdf")
    if not os.path.isfile(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(tmp, path)
    return path


def _rpy_matrix(rpy) -> np.ndarray:
    r, pch, y = rpy
    cr, sr, cp, sp, cy, sy = (
        math.cos(r),
        math.sin(r),
        math.cos(pch),
        math.sin(pch),
        math.cos(y),
        math.sin(y),
    )
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def _matrix_rpy(rot: np.ndarray) -> tuple[float, float, float]:
    pitch = math.atan2(-rot[2, 0], math.hypot(rot[0, 0], rot[1, 0]))
    return (math.atan2(rot[2, 1], rot[2, 2]), pitch, math.atan2(rot[1, 0], rot[0, 0]))


def _origin(elem) -> np.ndarray:
    transform = np.eye(4)
    origin = elem.find("origin") if elem is not None else None
    if origin is not None:
        transform[:3, 3] = [float(v) for v in origin.get("xyz", "0 0 0").split()]
        transform[:3, :3] = _rpy_matrix([float(v) for v in origin.get("rpy", "0 0 0").split()])
    return transform


def _set_origin(elem, transform: np.ndarray) -> None:
    origin = elem.find("origin")
    if origin is None:
        origin = ET.Element("origin")
        elem.insert(0, origin)
    origin.set("xyz", " ".join(f"{v:.12g}" for v in transform[:3, 3]))
    origin.set("rpy", " ".join(f"{v:.12g}" for v in _matrix_rpy(transform[:3, :3])))


def _merge_inertial(parent, child, parent_from_child: np.ndarray) -> None:
    """Add ``child``'s inertial (expressed through ``parent_from_child``) to ``parent``'s."""
    parts = []
    for link, to_parent in ((parent, np.eye(4)), (child, parent_from_child)):
        inertial = link.find("inertial")
        if inertial is None:
            continue
        mass = float(inertial.find("mass").get("value"))
        frame = to_parent @ _origin(inertial)
        i = inertial.find("inertia")
        tensor = np.array(
            [
                [float(i.get("ixx", 0)), float(i.get("ixy", 0)), float(i.get("ixz", 0))],
                [float(i.get("ixy", 0)), float(i.get("iyy", 0)), float(i.get("iyz", 0))],
                [float(i.get("ixz", 0)), float(i.get("iyz", 0)), float(i.get("izz", 0))],
            ]
        )
        parts.append((mass, frame[:3, 3], frame[:3, :3] @ tensor @ frame[:3, :3].T))
    total = sum(m for m, _, _ in parts)
    if total <= 0.0:
        return
    com = sum(m * c for m, c, _ in parts) / total
    tensor = np.zeros((3, 3))
    for m, c, inertia in parts:
        d = c - com
        tensor += inertia + m * (d @ d * np.eye(3) - np.outer(d, d))
    inertial = parent.find("inertial")
    if inertial is None:
        inertial = ET.SubElement(parent, "inertial")
        ET.SubElement(inertial, "mass")
        ET.SubElement(inertial, "inertia")
    frame = np.eye(4)
    frame[:3, 3] = com
    _set_origin(inertial, frame)
    inertial.find("mass").set("value", f"{total:.12g}")
    inertia = inertial.find("inertia")
    for key, (r, c) in {
        "ixx": (0, 0),
        "ixy": (0, 1),
        "ixz": (0, 2),
        "iyy": (1, 1),
        "iyz": (1, 2),
        "izz": (2, 2),
    }.items():
        inertia.set(key, f"{tensor[r, c]:.12g}")


def merge_fixed_links(urdf_text: str, fixed_fingers: bool) -> str:
    """The URDF with every fixed joint's child merged into its parent link.

    Visual and collision elements and joints below a merged link are re-expressed in the
    parent's frame; inertials are combined (mass, centre of mass, parallel-axis inertia).
    With ``fixed_fingers`` the finger joints become fixed at 0 first (and their
    ``<contact>`` blocks are dropped: the merged link keeps the arm's contact model).
    """
    root = ET.fromstring(urdf_text)
    links = {link.get("name"): link for link in root.findall("link")}
    if fixed_fingers:
        for joint in root.findall("joint"):
            if joint.get("name") in FINGER_JOINT_NAMES:
                joint.set("type", "fixed")
                for tag in ("limit", "mimic", "axis"):
                    for elem in joint.findall(tag):
                        joint.remove(elem)
    while True:
        fixed = [j for j in root.findall("joint") if j.get("type") == "fixed"]
        if not fixed:
            break
        joint = fixed[0]
        parent_name = joint.find("parent").get("link")
        child_name = joint.find("child").get("link")
        parent, child = links[parent_name], links.pop(child_name)
        parent_from_child = _origin(joint)
        for tag in ("visual", "collision"):
            for elem in child.findall(tag):
                _set_origin(elem, parent_from_child @ _origin(elem))
                parent.append(elem)
        _merge_inertial(parent, child, parent_from_child)
        for other in root.findall("joint"):
            if other.find("parent").get("link") == child_name:
                other.find("parent").set("link", parent_name)
                _set_origin(other, parent_from_child @ _origin(other))
        root.remove(joint)
        root.remove(child)
    # inertial must come first in a link for some parsers; keep the document tidy.
    for link in links.values():
        inertial = link.find("inertial")
        if inertial is not None:
            link.remove(inertial)
            link.insert(0, inertial)
    return ET.tostring(root, encoding="unicode")
