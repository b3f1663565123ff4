"""A cube with an AprilTag on its top face, as PyBullet draws it: a box mesh whose top face
is mapped onto the tag's texture (:func:`sims.tags.texture_file`) and whose other faces
onto the texture's margin, the cube's own colour. Physics sees the plain box."""

from __future__ import annotations

import numpy as np
import pybullet as p

from sims.tags import texture_file

MARGIN_UV = (0.01, 0.01)
"""Where in the texture the sides and the bottom take their colour: the top face's margin,
outside the tag (the cube's colour)."""
FACES = (
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
    ((0, 1, 0), (-1, 0, 0), (0, 0, 1)),
    ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
)
"""Each face of the box: its outward normal and two axes along it (a right-handed pair,
so its triangles wind outwards); the first is the top face."""


def box_mesh(edge: float):
    """A cube of ``edge`` (m) about its centre as PyBullet mesh arrays: vertices, normals,
    texture coordinates and triangle indices, four vertices per face. The top face's
    texture coordinates span the texture, u along the cube's x and v along its y;
    every other face samples :data:`MARGIN_UV`."""
    half = edge / 2.0
    vertices, normals, uvs, indices = [], [], [], []
    for k, face in enumerate(FACES):
        normal, a, b = (np.asarray(axis, dtype=np.float64) for axis in face)
        first = len(vertices)
        for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            vertices.append((half * (normal + su * a + sv * b)).tolist())
            normals.append(normal.tolist())
            uvs.append([(su + 1) / 2, (sv + 1) / 2] if k == 0 else list(MARGIN_UV))
        indices += [first, first + 1, first + 2, first, first + 2, first + 3]
    return vertices, normals, uvs, indices


def tagged_cube(client: int, edge: float, color, tag_id: int, tag_size: float, **body) -> int:
    """A cube body of ``edge`` (m) drawn in ``color`` with the tag ``tag_id`` (``tag_size``
    m) on its top face; ``body``: createMultiBody's other arguments (mass, collision
    shape, position)."""
    vertices, normals, uvs, indices = box_mesh(edge)
    visual = p.createVisualShape(
        p.GEOM_MESH,
        vertices=vertices,
        indices=indices,
        uvs=uvs,
        normals=normals,
        rgbaColor=[1.0, 1.0, 1.0, 1.0],  # the texture carries the colour
        physicsClientId=client,
    )
    cube = p.createMultiBody(baseVisualShapeIndex=visual, physicsClientId=client, **body)
    texture = p.loadTexture(texture_file(tag_id, tag_size, edge, color), physicsClientId=client)
    p.changeVisualShape(cube, -1, textureUniqueId=texture, physicsClientId=client)
    return cube
