"""The default scene (config/scene.yaml) as typed dataclasses.

One definition of the table, the cubes and the target pads, read by the simulator, the
planner and the tests. Coordinates are in the robot base frame (m): x forward, y left,
z up, table top at z = 0.

A cell with several arms (config/scene_dual.yaml) lists them under ``arms:`` (name, base
position, base yaw in degrees); its coordinates are then in the world frame
(:data:`WORLD_FRAME`), each arm's base frame placed by its :class:`ArmMount`. A scene
without ``arms:`` holds one unnamed arm at the origin (:data:`SINGLE_ARM`): the world frame
is that arm's base frame, and nothing else changes.

>>> scene = load_scene()
>>> scene.objects["red_cube"].position
(0.45, -0.1, 0.02)

The module is one file's schema (over 500 lines): each section's parser (table, objects, tags,
camera and its calibration, gripper and its calibration, arms) beside the dataclass it
builds, all through the same checks (:func:`finite_numbers`, ``_check_keys``), so a key
is read, checked and typed in one place; split by section, each part would import those
checks back from here.
"""

from __future__ import annotations

import datetime
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from sims import yaml_files
from sims.camera import (
    CameraCalibration,
    CameraConfig,
    CameraIntrinsics,
    CameraNoise,
    CameraPose,
    rotation_from_quaternion,
)
from sims.tags import TAG_COUNT, TAG_FAMILY

SCENE_FILE = "scene.yaml"
PACKAGE_NAME = "miles_ros"

RGBA = tuple[float, float, float, float]
Vec3 = tuple[float, float, float]

WORLD_FRAME = "world"
"""Frame id of a multi-arm scene's coordinates (the single-arm scene uses the base's)."""
ARM_NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
"""An arm name: one ROS namespace token (its topics live under ``/NAME/``)."""


@dataclass(frozen=True)
class ArmMount:
    """Where an arm's base stands in the world frame."""

    name: str
    """The arm's name and ROS namespace, e.g. ``left_arm``; "" for the single arm of a
    scene without ``arms:`` (its names stay unnamespaced)."""
    base_position: Vec3
    """Origin of the arm's base frame (``panda_link0``) in the world frame (m)."""
    base_yaw: float
    """Rotation of the base frame about the world z axis (rad): its x axis points along
    (cos yaw, sin yaw)."""


SINGLE_ARM = ArmMount(name="", base_position=(0.0, 0.0, 0.0), base_yaw=0.0)
"""The arm of a scene without ``arms:``: at the origin, base frame = world frame."""


@dataclass(frozen=True)
class Table:
    """A box whose top surface is the plane z = 0."""

    size: Vec3
    """Extent along x and y and the thickness (m)."""
    center_xy: tuple[float, float]
    """Centre of the top surface in the base frame (m)."""
    color: RGBA
    """RGBA in [0, 1]."""


@dataclass(frozen=True)
class CubeTag:
    """An AprilTag on a cube's top face, centred (:mod:`sims.tags`: tag36h11, the tag's
    frame the cube's)."""

    id: int
    """The tag's id in the family (0-586)."""
    size: float
    """Edge of the tag, its black border included (m); at most the cube's."""


@dataclass(frozen=True)
class SceneObject:
    """A cube that skills can reach, push or pick."""

    name: str
    """Name used by skills and the planner, e.g. ``red_cube``."""
    position: Vec3
    """Initial centre of the cube in the base frame (m)."""
    color: RGBA
    """RGBA in [0, 1]."""
    tag: CubeTag | None = None
    """The AprilTag on its top face (``tag: {id: N, size: 0.03}``), None for none."""


@dataclass(frozen=True)
class Place:
    """A flat target pad on the table."""

    name: str
    """Name used by skills and the planner, e.g. ``left_pad``."""
    position: Vec3
    """Centre of the pad on the table surface (m)."""
    size: tuple[float, float]
    """Extent along x and y (m)."""
    color: RGBA
    """RGBA in [0, 1]."""


@dataclass(frozen=True)
class GripperCalibration:
    """``gripper.calibration``: the finger offset measured on the cell (``miles calibrate
    gripper``: the empty gripper closed, its reading less what a right one reads)."""

    finger_offset_m: float
    """How much wider than it is the gripper reads (m, both fingers together): what a
    skill whose card has ``calibration.finger_width.measure: closed_gripper`` takes out of
    its reading (:mod:`policies.calibration`)."""
    periods: int
    """Control periods the empty gripper was commanded closed before it was read."""
    date: str = ""
    """When it was measured (ISO 8601)."""
    command: str = ""
    """The command that measured it."""


@dataclass(frozen=True)
class Gripper:
    """The gripper of the cell (``gripper:``)."""

    finger_reading: float = 0.0
    """Simulation only: the offset (m, both fingers together) of the opening the simulated
    gripper reports for a held cube, from its edge (``sim_node``'s ``finger_reading``
    where that parameter is left at 0; :func:`sims.tasks.base.reported_finger_width`); 0:
    it reads right. A real gripper reads what it reads."""
    calibration: GripperCalibration | None = None
    """The finger offset measured on the cell; None: not measured."""


@dataclass(frozen=True)
class Scene:
    """The whole default scene."""

    table: Table
    """The table the robot stands on."""
    objects: dict[str, SceneObject]
    """Cubes by name, in file order."""
    places: dict[str, Place]
    """Target pads by name, in file order."""
    cube_size: float
    """Edge length of every cube (m)."""
    cube_mass: float
    """Nominal mass of every cube (kg); domain randomization scales it."""
    arms: tuple[ArmMount, ...] = (SINGLE_ARM,)
    """The arms of the cell, in file order (``arms:``); without it the one unnamed arm
    :data:`SINGLE_ARM`, so the default scene is unchanged."""
    camera: CameraConfig | None = None
    """The RGB-D camera looking at the table (``camera:``), None when the scene has none:
    then only the simulator's ground truth knows where the cubes are."""
    gripper: Gripper = Gripper()
    """The gripper (``gripper:``): the simulated one's finger reading offset and, once
    measured, its ``calibration``; left out: it reads right, not measured."""

    @property
    def tags(self) -> dict[int, str]:
        """The cubes with an AprilTag, by tag id."""
        return {o.tag.id: name for name, o in self.objects.items() if o.tag is not None}

    @property
    def multi_arm(self) -> bool:
        """Whether the scene lists its arms (names, namespaces, a world frame)."""
        return self.arms != (SINGLE_ARM,)

    def arm(self, name: str) -> ArmMount:
        """The mount of the arm ``name`` ("" = the single arm of a scene without
        ``arms:``); KeyError lists the arm names."""
        for mount in self.arms:
            if mount.name == name:
                return mount
        known = ", ".join(repr(m.name) for m in self.arms)
        raise KeyError(f"no arm named {name!r} in the scene; arms: {known}")

    def position_of(self, name: str) -> Vec3:
        """The position of an object or a place by name (KeyError lists the names)."""
        if name in self.objects:
            return self.objects[name].position
        if name in self.places:
            return self.places[name].position
        known = ", ".join([*self.objects, *self.places])
        raise KeyError(f"no object or place named {name!r} in the scene; known: {known}")


def default_scene_path() -> Path:
    """config/scene.yaml of the source tree, else the installed share/miles_ros/config copy."""
    candidates = [Path(__file__).resolve().parents[1] / "config" / SCENE_FILE]
    for prefix in dict.fromkeys([sys.prefix, os.environ.get("AMENT_PREFIX_PATH", "")]):
        for root in prefix.split(os.pathsep):
            if root:
                candidates.append(Path(root) / "share" / PACKAGE_NAME / "config" / SCENE_FILE)
    for path in candidates:
        if path.is_file():
            return path
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"default scene {SCENE_FILE} not found; looked in: {tried}")


def finite_numbers(
    value, where: str, n: int | None = None, error: type[ValueError] = ValueError
) -> tuple[float, ...]:
    """A list from a YAML file as finite floats: a list or tuple of ``n`` numbers (None: one
    or more), none of them a boolean (YAML's ``yes``/``true`` are not numbers); else
    ``error`` naming ``where``. The scene's and the skill cards' envelopes' one check."""
    count = "" if n is None else f"{n} "
    if not isinstance(value, list | tuple) or (len(value) != n if n is not None else not value):
        raise error(f"{where}: expected a list of {count}numbers, got {value!r}")
    message = f"{where}: expected numbers, got {value!r} (a list of {count}numbers)"
    if any(isinstance(v, bool) for v in value):
        raise error(message)
    try:
        numbers = tuple(float(v) for v in value)
    except (TypeError, ValueError) as exc:
        raise error(message) from exc
    if not all(math.isfinite(v) for v in numbers):
        raise error(f"{where}: expected finite numbers, got {value!r}")
    return numbers


def _check_keys(value, where: str, keys: tuple[str, ...]) -> None:
    """ValueError naming ``where`` unless ``value`` is a mapping of some of ``keys``."""
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a mapping with {', '.join(keys)}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; known: {', '.join(keys)}")


def _positive(value, where: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: expected a number, got {value!r}") from exc
    if not number > 0:
        raise ValueError(f"{where}: must be > 0, got {number}")
    return number


def parse_scene(data: dict, source: str = "<scene>") -> Scene:
    """A :class:`Scene` from already-parsed YAML data; ValueError names a bad field."""
    if not isinstance(data, dict):
        raise ValueError(f"{source}: expected a mapping at the top level")
    for key in ("table", "objects", "places", "cube_size", "cube_mass"):
        if key not in data:
            raise ValueError(f"{source}: missing key {key!r}")
    t = data["table"]
    table = Table(
        size=finite_numbers(t.get("size"), f"{source}: table.size", 3),
        center_xy=finite_numbers(t.get("center_xy"), f"{source}: table.center_xy", 2),
        color=finite_numbers(t.get("color", [0.8, 0.7, 0.55, 1.0]), f"{source}: table.color", 4),
    )
    objects = {
        name: SceneObject(
            name=name,
            position=finite_numbers(spec.get("position"), f"{source}: objects.{name}.position", 3),
            color=finite_numbers(
                spec.get("color", [0.5, 0.5, 0.5, 1.0]), f"{source}: {name}.color", 4
            ),
            tag=(
                _tag(spec["tag"], f"{source}: objects.{name}.tag")
                if spec.get("tag") is not None
                else None
            ),
        )
        for name, spec in (data["objects"] or {}).items()
    }
    places = {
        name: Place(
            name=name,
            position=finite_numbers(spec.get("position"), f"{source}: places.{name}.position", 3),
            size=finite_numbers(spec.get("size"), f"{source}: places.{name}.size", 2),
            color=finite_numbers(
                spec.get("color", [0.6, 0.6, 0.6, 1.0]), f"{source}: {name}.color", 4
            ),
        )
        for name, spec in (data["places"] or {}).items()
    }
    cube_size = _positive(data["cube_size"], f"{source}: cube_size")
    _check_tags(objects, cube_size, source)
    clash = set(objects) & set(places)
    if clash:
        raise ValueError(f"{source}: names used for both an object and a place: {sorted(clash)}")
    return Scene(
        table=table,
        objects=objects,
        places=places,
        cube_size=cube_size,
        cube_mass=_positive(data["cube_mass"], f"{source}: cube_mass"),
        arms=_arms(data["arms"], source) if "arms" in data else (SINGLE_ARM,),
        camera=_camera(data["camera"], source) if data.get("camera") is not None else None,
        gripper=_gripper(data.get("gripper") or {}, source),
    )


TAG_KEYS = ("id", "size")
"""The keys of an object's ``tag:``."""


def _tag(value, where: str) -> CubeTag:
    """An object's ``tag:``: a tag36h11 id and the tag's size (m, its black border
    included)."""
    if not isinstance(value, dict) or set(value) != set(TAG_KEYS):
        raise ValueError(f"{where}: expected a mapping of {', '.join(TAG_KEYS)}, got {value!r}")
    tag_id = value["id"]
    if isinstance(tag_id, bool) or not isinstance(tag_id, int) or not 0 <= tag_id < TAG_COUNT:
        raise ValueError(
            f"{where}.id: expected a {TAG_FAMILY} id, a whole number 0-{TAG_COUNT - 1}, "
            f"got {tag_id!r}"
        )
    size = finite_numbers([value["size"]], f"{where}.size", 1)[0]
    if not size > 0:
        raise ValueError(f"{where}.size: must be > 0 (m), got {size}")
    return CubeTag(id=tag_id, size=size)


def _check_tags(objects: dict[str, SceneObject], cube_size: float, source: str) -> None:
    """Every tag fits on its cube's top face, and no id is on two cubes (perception could
    not tell them apart)."""
    owners: dict[int, str] = {}
    for name, obj in objects.items():
        if obj.tag is None:
            continue
        if obj.tag.size > cube_size:
            raise ValueError(
                f"{source}: objects.{name}.tag.size: {obj.tag.size} m is larger than the "
                f"cube's top face ({cube_size} m): the tag must fit on it"
            )
        if obj.tag.id in owners:
            raise ValueError(
                f"{source}: objects.{name}.tag.id: tag {obj.tag.id} is already on "
                f"{owners[obj.tag.id]} (each tagged cube needs an id of its own)"
            )
        owners[obj.tag.id] = name


CAMERA_KEYS = (
    "resolution",
    "vfov_deg",
    "position",
    "look_at",
    "rate_hz",
    "frame_id",
    "noise",
    "calibration",
)
"""The keys of ``camera:`` (``rate_hz``, ``frame_id``, ``noise`` and ``calibration`` may be
left out)."""
CALIBRATION_KEYS = ("position", "orientation", "residual_rms_mm", "poses", "date", "command")
"""The keys of ``camera.calibration`` (``date`` and ``command`` may be left out)."""


def _camera(value, source: str) -> CameraConfig:
    """The ``camera:`` section: a pinhole camera (resolution, vertical field of view) at
    ``position`` looking at ``look_at``, its rate, the simulated camera's noise
    (:class:`sims.camera.CameraNoise` fields; left out: a RealSense D4xx's) and, once
    measured, its ``calibration``."""
    where = f"{source}: camera"
    _check_keys(value, where, CAMERA_KEYS)
    width, height = finite_numbers(value.get("resolution"), f"{where}.resolution", 2)
    if width != int(width) or height != int(height) or min(width, height) < 16:
        raise ValueError(f"{where}.resolution: expected two whole numbers >= 16 (pixels)")
    vfov = finite_numbers([value.get("vfov_deg")], f"{where}.vfov_deg", 1)[0]
    if not 1.0 <= vfov <= 150.0:
        raise ValueError(f"{where}.vfov_deg: expected 1-150 degrees, got {vfov}")
    eye = finite_numbers(value.get("position"), f"{where}.position", 3)
    target = finite_numbers(value.get("look_at"), f"{where}.look_at", 3)
    if math.dist(eye, target) < 1e-3:
        raise ValueError(f"{where}: position and look_at are the same point")
    noise = value.get("noise") or {}
    fields = CameraNoise.__dataclass_fields__
    if not isinstance(noise, dict) or set(noise) - set(fields):
        raise ValueError(f"{where}.noise: expected a mapping of {', '.join(fields)}")
    values = finite_numbers(list(noise.values()), f"{where}.noise", len(noise)) if noise else ()
    if any(v < 0 for v in values):
        raise ValueError(f"{where}.noise: values must be >= 0, got {noise}")
    frame_id = value.get("frame_id", CameraConfig.frame_id)
    if not isinstance(frame_id, str) or not frame_id:
        raise ValueError(f"{where}.frame_id: expected a frame name, got {frame_id!r}")
    return CameraConfig(
        intrinsics=CameraIntrinsics.from_fov(int(width), int(height), vfov),
        pose=CameraPose.look_at(eye, target),
        rate_hz=_positive(value.get("rate_hz", CameraConfig.rate_hz), f"{where}.rate_hz"),
        frame_id=frame_id,
        noise=CameraNoise(**dict(zip(noise, values, strict=True))),
        calibration=(
            _calibration(value["calibration"], f"{where}.calibration")
            if value.get("calibration") is not None
            else None
        ),
    )


def _date_and_command(value, where: str) -> tuple[str, str]:
    """A calibration's ``date`` and ``command`` (each may be left out: ""), as text."""
    date, command = value.get("date", ""), value.get("command", "")
    if isinstance(date, datetime.date):  # YAML reads an unquoted timestamp as one
        date = date.isoformat()
    if not isinstance(date, str) or not isinstance(command, str):
        raise ValueError(f"{where}: date and command must be text")
    return date, command


def _calibration(value, where: str) -> CameraCalibration:
    """``camera.calibration``: the measured pose of the optical frame in the scene frame
    (``position`` m, ``orientation`` quaternion x, y, z, w) and what it rests on."""
    _check_keys(value, where, CALIBRATION_KEYS)
    position = finite_numbers(value.get("position"), f"{where}.position", 3)
    quaternion = finite_numbers(value.get("orientation"), f"{where}.orientation", 4)
    if abs(math.hypot(*quaternion) - 1.0) > 1e-3:
        raise ValueError(f"{where}.orientation: expected a unit quaternion, got {quaternion}")
    rms = finite_numbers([value.get("residual_rms_mm")], f"{where}.residual_rms_mm", 1)[0]
    poses = value.get("poses")
    if isinstance(poses, bool) or not isinstance(poses, int) or poses < 3:
        raise ValueError(f"{where}.poses: expected a whole number >= 3, got {poses!r}")
    date, command = _date_and_command(value, where)
    if rms < 0:
        raise ValueError(f"{where}.residual_rms_mm: must be >= 0, got {rms}")
    return CameraCalibration(
        pose=CameraPose.from_matrix(rotation_from_quaternion(quaternion), position),
        residual_rms_mm=rms,
        poses=poses,
        date=date,
        command=command,
    )


GRIPPER_KEYS = ("finger_reading", "calibration")
"""The keys of ``gripper:`` (each may be left out)."""
GRIPPER_CALIBRATION_KEYS = ("finger_offset_m", "periods", "date", "command")
"""The keys of ``gripper.calibration`` (``date`` and ``command`` may be left out)."""


def _gripper(value, source: str) -> Gripper:
    """The ``gripper:`` section: the simulated gripper's ``finger_reading`` offset (m, in
    :data:`sims.tasks.base.FINGER_READING_RANGE`) and, once measured, its ``calibration``."""
    where = f"{source}: gripper"
    _check_keys(value, where, GRIPPER_KEYS)
    if not value:
        return Gripper()
    from sims.tasks.base import FINGER_READING_RANGE  # the robot model: only when used

    lo, hi = FINGER_READING_RANGE
    reading = finite_numbers([value.get("finger_reading", 0.0)], f"{where}.finger_reading", 1)[0]
    if not lo <= reading <= hi:
        raise ValueError(f"{where}.finger_reading: expected {lo} to {hi} (m), got {reading}")
    calibration = None
    if value.get("calibration") is not None:
        cal, at = value["calibration"], f"{where}.calibration"
        _check_keys(cal, at, GRIPPER_CALIBRATION_KEYS)
        offset = finite_numbers([cal.get("finger_offset_m")], f"{at}.finger_offset_m", 1)[0]
        if not lo <= offset <= hi:
            raise ValueError(f"{at}.finger_offset_m: expected {lo} to {hi} (m), got {offset}")
        periods = cal.get("periods")
        if isinstance(periods, bool) or not isinstance(periods, int) or periods < 1:
            raise ValueError(f"{at}.periods: expected a whole number >= 1, got {periods!r}")
        date, command = _date_and_command(cal, at)
        calibration = GripperCalibration(offset, periods, date, command)
    return Gripper(finger_reading=reading, calibration=calibration)


ARM_KEYS = ("name", "base_position", "base_yaw_deg")
"""The keys of one entry of ``arms:`` (``base_yaw_deg`` may be left out: 0)."""
MIN_BASE_SEPARATION = 0.3
"""Two arms' bases closer than this (m, in the xy plane) would stand inside each other
(the Panda's base is about 0.2 m across)."""


def _arms(value, source: str) -> tuple[ArmMount, ...]:
    """The ``arms:`` list: at least one, named ROS namespace tokens, no name twice."""
    if not isinstance(value, list) or not value:
        raise ValueError(f"{source}: arms: expected a non-empty list, got {value!r}")
    mounts: list[ArmMount] = []
    for k, spec in enumerate(value):
        where = f"{source}: arms[{k}]"
        _check_keys(spec, where, ARM_KEYS)
        name = spec.get("name")
        if not isinstance(name, str) or not ARM_NAME_PATTERN.fullmatch(name):
            raise ValueError(
                f"{where}.name: expected a name of letters, digits and _ starting with a "
                f"letter (it becomes a ROS namespace), got {name!r}"
            )
        if any(m.name == name for m in mounts):
            raise ValueError(f"{where}.name: arm name {name!r} used twice")
        position = finite_numbers(spec.get("base_position"), f"{where}.base_position", 3)
        yaw_deg = finite_numbers([spec.get("base_yaw_deg", 0.0)], f"{where}.base_yaw_deg", 1)[0]
        for other in mounts:
            gap = math.dist(position[:2], other.base_position[:2])
            if gap < MIN_BASE_SEPARATION:
                raise ValueError(
                    f"{where}: the bases of {other.name!r} and {name!r} are {gap:.3f} m apart "
                    f"(at least {MIN_BASE_SEPARATION} m)"
                )
        mounts.append(ArmMount(name, position, math.radians(yaw_deg)))
    return tuple(mounts)


def load_scene(path: str | os.PathLike | None = None) -> Scene:
    """The scene in ``path`` (default: :func:`default_scene_path`)."""
    scene_path = Path(path) if path is not None else default_scene_path()
    with open(scene_path, encoding="utf-8") as stream:
        data = yaml_files.safe_load(stream)
    return parse_scene(data, str(scene_path))
