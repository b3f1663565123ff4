"""The link-sphere model covers the Panda's URDF collision meshes: every vertex of every
link's collision mesh, placed by PyBullet (not by our kinematics), lies inside a sphere
of its own link over random configurations and finger openings; the Lipschitz bounds
hold for random joint steps."""

import os
import xml.etree.ElementTree as ET

import numpy as np
import pybullet as p
import pybullet_data
import pytest

from sims.robots import panda
from sims.robots import panda_spheres as ps

URDF = os.path.join(pybullet_data.getDataPath(), "franka_panda", "panda.urdf")


def _obj_vertices(path: str) -> np.ndarray:
    with open(path) as handle:
        rows = [line.split()[1:4] for line in handle if line.startswith("v ")]
    return np.array(rows, dtype=np.float64)


def _collision_meshes() -> dict[str, np.ndarray]:
    """Per URDF link: its collision-mesh vertices in the link frame (collision origin applied)."""
    root = ET.parse(URDF).getroot()
    meshes = {}
    for link in root.iter("link"):
        for col in link.findall("collision"):
            mesh = col.find("geometry/mesh")
            filename = mesh.get("filename").replace("package://", "")
            verts = _obj_vertices(os.path.join(os.path.dirname(URDF), filename))
            origin = col.find("origin")
            if origin is not None:
                xyz = np.array(origin.get("xyz", "0 0 0").split(), dtype=float)
                rpy = [float(x) for x in origin.get("rpy", "0 0 0").split()]
                rot = np.array(p.getMatrixFromQuaternion(p.getQuaternionFromEuler(rpy)))
                verts = verts @ rot.reshape(3, 3).T + xyz
            meshes[link.get("name")] = verts
    return meshes


def _model_link(urdf_link: str) -> str:
    return "panda_fingers" if urdf_link.endswith("finger") else urdf_link


@pytest.fixture(scope="module")
def world():
    client = p.connect(p.DIRECT)
    robot = p.loadURDF(URDF, useFixedBase=True, physicsClientId=client)
    index = {"panda_link0": -1}
    arm, fingers = [], []
    for j in range(p.getNumJoints(robot, physicsClientId=client)):
        info = p.getJointInfo(robot, j, physicsClientId=client)
        index[info[12].decode()] = j
        name = info[1].decode()
        if name in panda.JOINT_NAMES:
            arm.append(j)
        elif name in panda.FINGER_JOINT_NAMES:
            fingers.append(j)
    yield client, robot, index, arm, fingers
    p.disconnect(client)


def _link_pose(client, robot, j):
    if j < 0:
        return np.zeros(3), np.eye(3)
    state = p.getLinkState(robot, j, computeForwardKinematics=True, physicsClientId=client)
    rot = np.array(p.getMatrixFromQuaternion(state[5])).reshape(3, 3)
    return np.array(state[4]), rot


def test_every_collision_vertex_lies_in_a_sphere_of_its_link(world):
    client, robot, index, arm, fingers = world
    meshes = _collision_meshes()
    assert {_model_link(n) for n in meshes} == set(ps.LINK_NAMES), sorted(meshes)
    rng = np.random.default_rng(7)
    lo, hi = panda.joint_position_min, panda.joint_position_max
    configs = np.vstack([panda.home_joint_positions, lo, hi, rng.uniform(lo, hi, (40, 7))])
    openings = np.concatenate([[0.0, 0.02, panda.finger_position_max], rng.uniform(0, 0.04, 40)])
    centers_all, radii = ps.link_spheres(configs)
    worst = -np.inf
    for q, opening, centers in zip(configs, openings, centers_all, strict=True):
        for j, value in zip(arm, q, strict=True):
            p.resetJointState(robot, j, value, physicsClientId=client)
        for j in fingers:
            p.resetJointState(robot, j, opening, physicsClientId=client)
        for urdf_link, verts in meshes.items():
            pos, rot = _link_pose(client, robot, index[urdf_link])
            world_verts = verts @ rot.T + pos
            mine = ps.link_mask([_model_link(urdf_link)])
            d = np.linalg.norm(world_verts[:, None, :] - centers[None, mine], axis=2)
            excess = (d - radii[mine][None]).min(axis=1)
            worst = max(worst, float(excess.max()))
            assert np.all(excess <= 1e-6), (urdf_link, q, opening, float(excess.max()))
    # The model is not grossly loose either: some vertex comes within 4 mm (the margin).
    assert worst > -0.0045


def test_batched_centres_match_single_and_radii_are_positive():
    rng = np.random.default_rng(3)
    q = rng.uniform(panda.joint_position_min, panda.joint_position_max, (16, 7))
    batch, radii = ps.link_spheres(q)
    assert batch.shape == (16, ps.NUM_SPHERES, 3)
    for k in range(16):
        np.testing.assert_allclose(batch[k], ps.link_spheres(q[k])[0], atol=1e-12)
    assert np.all(radii > 0.0)
    # The hand frame's origin is the flange: the TCP is 0.105 m along its z axis.
    frames = np.empty((9, 4, 4))
    panda.fk_frames(q[0], frames)
    hand = ps.link_mask(["panda_hand"])
    local = ps.sphere_centers_local[hand]
    expected = frames[7, :3, 3] + local @ frames[8, :3, :3].T
    np.testing.assert_allclose(batch[0][hand], expected, atol=1e-12)


def test_lipschitz_bounds_hold_for_random_steps():
    rng = np.random.default_rng(11)
    lo, hi = panda.joint_position_min, panda.joint_position_max
    q0 = rng.uniform(lo, hi, (200, 7))
    dq = rng.uniform(-0.05, 0.05, (200, 7))
    c0, _ = ps.link_spheres(q0)
    c1, _ = ps.link_spheres(q0 + dq)
    moved = np.linalg.norm(c1 - c0, axis=2)  # [N, S]
    bound = np.abs(dq) @ ps.sphere_lipschitz.T  # [N, S]
    assert np.all(moved <= bound + 1e-9)
    # Joints after a sphere's link do not move it.
    for s in range(ps.NUM_SPHERES):
        f = ps.sphere_frame[s]
        assert np.all(ps.sphere_lipschitz[s, max(f + 1, 0) :] == 0.0)


@pytest.mark.parametrize("bad", [np.zeros(6), np.full(7, np.nan), np.zeros((2, 3, 7))])
def test_bad_configurations_are_refused(bad):
    with pytest.raises(ValueError):
        ps.link_spheres(bad)


def test_link_mask_refuses_unknown_links():
    with pytest.raises(ValueError, match="unknown link"):
        ps.link_mask(["panda_link9"])
    assert ps.link_mask(list(ps.MOUNTED_LINKS)).sum() == 6
