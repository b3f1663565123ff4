"""AprilTags on cubes: the tag family, its images and a tagged cube's top-face texture.

The family is tag36h11 as OpenCV's ``cv2.aruco`` holds it (``DICT_APRILTAG_36h11``): a
tag is 8 x 8 cells, a black border one cell wide around 6 x 6 data cells. A tag's
``size`` in the scene file is the black border's outer edge (m). The simulator draws a
tagged cube with the tag centred on its top face, the tag's x axis (its image's rows, left
to right) along the cube's x axis and its y axis (its image's columns, bottom to top)
along the cube's y axis, so the tag's frame is the cube's, lifted to its top face. Tag
images are made at run time from the dictionary (nothing downloaded) and cached in the
temp directory.

cv2 is imported only when an image is made: a world without tags never loads it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile

import numpy as np

TAG_FAMILY = "tag36h11"
"""The tag family (AprilTag 3's name)."""
TAG_CELLS = 8
"""Cells across a tag, its black border included."""
TAG_COUNT = 587
"""Ids of the family: 0 to 586."""
TEXTURE_PIXELS_PER_CELL = 8
"""Texture pixels per tag cell in the simulator's top-face texture."""


@functools.lru_cache(maxsize=1)
def tag_dictionary():
    """OpenCV's tag36h11 dictionary (``cv2.aruco.DICT_APRILTAG_36h11``)."""
    import cv2

    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)


def tag_image(tag_id: int, pixels_per_cell: int = TEXTURE_PIXELS_PER_CELL) -> np.ndarray:
    """The tag ``tag_id`` as a grey image [8 * pixels_per_cell]^2 uint8 (0 black, 255
    white), its black border included, as it is printed."""
    import cv2

    if not 0 <= int(tag_id) < TAG_COUNT:
        raise ValueError(f"{TAG_FAMILY} ids are 0-{TAG_COUNT - 1}, got {tag_id}")
    side = TAG_CELLS * int(pixels_per_cell)
    return cv2.aruco.generateImageMarker(tag_dictionary(), int(tag_id), side, borderBits=1)


def top_face_texture(
    tag_id: int,
    tag_size: float,
    cube_size: float,
    color,
    pixels_per_cell: int = TEXTURE_PIXELS_PER_CELL,
) -> np.ndarray:
    """A tagged cube's top face as an RGB image [n, n, 3] uint8: the cube's ``color``
    (RGB(A) in 0..1) with the tag centred on it, ``tag_size`` of the face's
    ``cube_size``. Row 0 is the face's far edge along y (an image's top), column 0 its
    edge at -x."""
    tag = tag_image(tag_id, pixels_per_cell)
    side = int(round(tag.shape[0] * cube_size / tag_size))
    side += (side - tag.shape[0]) % 2  # the same margin on every side
    face = np.empty((side, side, 3), dtype=np.uint8)
    face[:] = np.clip(np.rint(np.asarray(color[:3], dtype=np.float64) * 255.0), 0, 255)
    start = (side - tag.shape[0]) // 2
    face[start : start + tag.shape[0], start : start + tag.shape[0]] = tag[..., None]
    return face


def texture_file(tag_id: int, tag_size: float, cube_size: float, color) -> str:
    """:func:`top_face_texture` as a PNG file in the temp directory (made once; its name
    holds a digest of what it shows), for renderers that load textures from files."""
    import cv2

    key = f"{TAG_FAMILY}:{int(tag_id)}:{tag_size:.6f}:{cube_size:.6f}:{tuple(color[:3])}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    folder = os.path.join(tempfile.gettempdir(), "miles_tags")
    path = os.path.join(folder, f"{TAG_FAMILY}_{int(tag_id)}_{digest}.png")
    if not os.path.isfile(path):
        os.makedirs(folder, exist_ok=True)
        image = top_face_texture(tag_id, tag_size, cube_size, color)
        tmp = f"{path}.{os.getpid()}.tmp.png"
        if not cv2.imwrite(tmp, cv2.cvtColor(image, cv2.COLOR_RGB2BGR)):
            raise OSError(f"could not write the tag texture {tmp}")
        os.replace(tmp, path)
    return path
