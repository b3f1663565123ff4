"""The Panda's collision model as spheres per link: the one table of sphere centres (in
their link's frame) and radii, and batched kernels that place them in the base frame
through :mod:`sims.robots.panda`'s forward kinematics.

Where the numbers come from: the collision meshes of pybullet_data's ``franka_panda``
URDF (``meshes/collision/*.obj``), the URDF the PyBullet backend simulates. Each link's
vertices were clustered (k-means) and each cluster enclosed in its smallest ball, plus
4 mm; ``tests/sims/test_panda_spheres.py`` checks that every collision-mesh vertex lies
inside a sphere of its own link over random configurations and finger openings, with
the links placed by PyBullet (so the frames below are checked as well as the radii).

Frames: the URDF's link ``i`` (1..7) is Franka's modified-DH frame ``i``, which is
``panda.fk_frames``'s frame ``i - 1``; ``panda_link0`` is the base frame; the hand's
frame is the flange turned by ``panda.hand_yaw`` about its z axis (the TCP frame less
the flange-to-TCP offset). The fingers are modelled in the hand frame by spheres that
cover both fingers at every opening (0 to ``panda.finger_position_max`` each), so the
model needs only the seven arm joints.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from sims.robots import panda

LINK_NAMES: tuple[str, ...] = tuple(f"panda_link{i}" for i in range(8)) + (
    "panda_hand",
    "panda_fingers",
)
"""Links of the sphere model; ``panda_fingers`` stands for both fingers at any opening."""

MOUNTED_LINKS: tuple[str, ...] = ("panda_link0", "panda_link1")
"""Links that sweep only a fixed volume around the mounting: link 0 does not move and
link 1 turns about the base's vertical axis. A deployment places its fixtures outside
that volume; checks against the environment need not follow them."""

TOOL_LINKS: tuple[str, ...] = ("panda_fingers",)
"""The fingers: the tool, meant to touch the work surface and the objects."""

# (link, centre x, y, z in the link frame (m), radius (m)).
_SPHERES: tuple[tuple[str, float, float, float, float], ...] = (
    ("panda_link0", -0.0022, -0.0030, 0.0885, 0.0823),
    ("panda_link0", -0.0988, -0.0039, 0.0295, 0.0891),
    ("panda_link0", -0.0008, 0.0000, -0.0000, 0.0986),
    ("panda_link1", -0.0000, -0.0749, 0.0005, 0.0609),
    ("panda_link1", -0.0001, -0.0002, -0.1558, 0.0705),
    ("panda_link1", 0.0001, -0.0006, 0.0068, 0.0588),
    ("panda_link2", -0.0003, -0.1564, -0.0000, 0.0710),
    ("panda_link2", -0.0000, 0.0076, 0.0006, 0.0588),
    ("panda_link2", 0.0002, 0.0007, 0.0749, 0.0610),
    ("panda_link3", 0.0902, 0.0008, 0.0079, 0.0581),
    ("panda_link3", 0.0854, 0.0702, 0.0029, 0.0563),
    ("panda_link3", -0.0001, 0.0003, -0.0824, 0.0717),
    ("panda_link4", -0.0823, 0.0836, 0.0003, 0.0727),
    ("panda_link4", 0.0057, -0.0112, 0.0463, 0.0721),
    ("panda_link4", 0.0087, 0.0066, 0.0508, 0.0719),
    ("panda_link5", -0.0021, 0.0692, -0.2158, 0.0574),
    ("panda_link5", 0.0000, 0.0159, 0.0058, 0.0517),
    ("panda_link5", 0.0000, 0.1033, 0.0023, 0.0546),
    ("panda_link5", 0.0001, -0.0002, -0.2415, 0.0622),
    ("panda_link6", 0.0824, -0.0267, 0.0085, 0.0635),
    ("panda_link6", 0.0746, 0.0354, -0.0052, 0.0620),
    ("panda_link6", 0.0013, 0.0004, 0.0186, 0.0639),
    ("panda_link7", 0.0135, 0.0134, 0.0853, 0.0770),
    ("panda_hand", -0.0000, -0.0871, 0.0209, 0.0510),
    ("panda_hand", 0.0060, 0.0676, 0.0286, 0.0526),
    ("panda_hand", -0.0107, -0.0014, -0.0147, 0.0512),
    ("panda_fingers", 0.0000, -0.0506, 0.0849, 0.0364),
    ("panda_fingers", 0.0000, -0.0166, 0.0848, 0.0365),
    ("panda_fingers", 0.0000, 0.0166, 0.0848, 0.0365),
    ("panda_fingers", 0.0000, 0.0506, 0.0849, 0.0364),
)

NUM_SPHERES = len(_SPHERES)
sphere_links: tuple[str, ...] = tuple(row[0] for row in _SPHERES)
"""The link of each sphere."""
sphere_link_index = np.array([LINK_NAMES.index(name) for name in sphere_links], dtype=np.int64)
"""Index into :data:`LINK_NAMES` of each sphere [S]."""
sphere_centers_local = np.array([row[1:4] for row in _SPHERES], dtype=np.float64)
"""Sphere centres [S, 3] in their link's frame (m)."""
sphere_radii = np.array([row[4] for row in _SPHERES], dtype=np.float64)
"""Sphere radii [S] (m)."""

_HAND = 8
sphere_frame = np.array(
    [min(LINK_NAMES.index(name), _HAND) - 1 for name in sphere_links], dtype=np.int64
)
"""Frame slot of each sphere [S]: -1 = base, 0..6 = ``panda.fk_frames`` frame (link
1..7), 7 = the hand frame."""


def _segments() -> np.ndarray:
    """Length [8] of the translation into each DH frame 1..7 and the flange."""
    return np.hypot(panda.dh_a, panda.dh_d)


def _lipschitz() -> np.ndarray:
    """Per sphere and joint [S, 7]: an upper bound on the distance from the joint's axis
    to the sphere's centre over every configuration (0 for joints that do not move it),
    so a joint travel of ``x`` rad moves the centre by at most ``bound * x``.

    Joint ``j`` (0-based) lies on the z axis of ``fk_frames[j]``; a sphere in frame slot
    ``f >= j`` is reached from that frame by the translations into frames ``j+1..f``
    (the hand frame's origin is the flange's) and its local centre, so the distance is at
    most their lengths' sum; for ``f == j`` it is exactly the centre's distance from the
    local z axis."""
    seg = _segments()
    out = np.zeros((NUM_SPHERES, panda.NUM_JOINTS))
    for s in range(NUM_SPHERES):
        f = int(sphere_frame[s])
        c = sphere_centers_local[s]
        for j in range(panda.NUM_JOINTS):
            if f < j:
                continue
            if f == j:
                out[s, j] = math.hypot(c[0], c[1])
            else:
                out[s, j] = seg[j + 1 : f + 1].sum() + float(np.linalg.norm(c))
    return out


sphere_lipschitz = _lipschitz()
"""[S, 7] bound on how far (m) each sphere centre moves per radian of each joint."""


def link_mask(names: tuple[str, ...] | list[str]) -> np.ndarray:
    """Boolean [S]: the spheres that belong to the named links (unknown names raise)."""
    unknown = sorted(set(names) - set(LINK_NAMES))
    if unknown:
        raise ValueError(f"unknown link(s) {unknown}; the model has {list(LINK_NAMES)}")
    return np.array([name in names for name in sphere_links], dtype=bool)


@njit(cache=True)
def sphere_centers_into(q, frames, out):
    """Sphere centres [S, 3] in the base frame for arm positions ``q`` [7], written into
    ``out``; ``frames`` [9, 4, 4] is scratch for ``panda.fk_frames``."""
    panda.fk_frames(q, frames)
    for s in range(sphere_radii.shape[0]):
        f = sphere_frame[s]
        c0 = sphere_centers_local[s, 0]
        c1 = sphere_centers_local[s, 1]
        c2 = sphere_centers_local[s, 2]
        if f < 0:
            out[s, 0] = c0
            out[s, 1] = c1
            out[s, 2] = c2
            continue
        rot = 8 if f == 7 else f  # the hand: the TCP frame's rotation, the flange's origin
        for k in range(3):
            out[s, k] = (
                frames[f, k, 3]
                + frames[rot, k, 0] * c0
                + frames[rot, k, 1] * c1
                + frames[rot, k, 2] * c2
            )


@njit(cache=True)
def sphere_centers(q):
    """Sphere centres [S, 3] in the base frame for one configuration ``q`` [7]."""
    out = np.empty((sphere_radii.shape[0], 3))
    sphere_centers_into(q, np.empty((9, 4, 4)), out)
    return out


@njit(cache=True, parallel=True)
def sphere_centers_batch(q):
    """Sphere centres [N, S, 3] in the base frame for configurations ``q`` [N, 7]."""
    n = q.shape[0]
    out = np.empty((n, sphere_radii.shape[0], 3))
    for k in prange(n):
        sphere_centers_into(q[k], np.empty((9, 4, 4)), out[k])
    return out


def link_spheres(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World (base-frame) sphere centres [..., S, 3] and radii [S] for ``q`` [7] or [N, 7]."""
    q = np.asarray(q, dtype=np.float64)
    if q.shape[-1:] != (panda.NUM_JOINTS,) or q.ndim not in (1, 2):
        raise ValueError(f"q must be [7] or [N, 7], got shape {q.shape}")
    if not np.all(np.isfinite(q)):
        raise ValueError("q must be finite")
    if q.ndim == 1:
        return sphere_centers(np.ascontiguousarray(q)), sphere_radii
    return sphere_centers_batch(np.ascontiguousarray(q)), sphere_radii
