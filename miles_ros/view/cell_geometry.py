"""The cell's geometry as the 3D view draws it, ROS-free: logged once, static, when a
:class:`~miles_ros.view.cell_view.CellView` starts (the table; each arm at its mount with
the URDF's meshes and its TCP markers; the safety supervisor's TCP workspace box and its
keep-out and permission zones, from :func:`safety_config`; the names of the arms'
series), and the pads, logged again when a message moves them (:func:`log_pads`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import rerun as rr

from miles_ros.safety.config import SafetyConfig
from miles_ros.safety.zones import Box, Sphere, parse_zone
from miles_ros.view.arm_model import BASE_LINK, FINGERS, LINKS, panda_model
from miles_ros.view.entities import (
    ARM_COLOR,
    COMMANDED_COLOR,
    HAND_COLOR,
    KEEPOUT_COLOR,
    MEASURED_COLOR,
    PERMISSION_COLOR,
    ROOT,
    SINGLE_ARM_PATH,
    WORKSPACE_COLOR,
    arm_path,
    mount_matrix,
    rgba,
    transform3d,
)
from sims.robots import panda
from sims.scene import Scene


def safety_config(params_file: str | Path | None = None) -> SafetyConfig:
    """The supervisor's zones and limits from config/safety.yaml, then ``params_file``
    (their ``safety_node`` sections; names the config does not know are skipped: the
    node validates its own parameters)."""
    from miles_ros.params import config_dir
    from miles_ros.params.safety import load_safety_config

    paths = [p for p in (config_dir() / "safety.yaml", params_file) if p and Path(p).is_file()]
    return load_safety_config(paths, strict=False)


def log_table(rec: rr.RecordingStream, scene: Scene) -> None:
    """The world frame (z up) and the table."""
    rec.log(ROOT, rr.ViewCoordinates.RIGHT_HAND_Z_UP, static=True)
    table = scene.table
    rec.log(
        f"{ROOT}/table",
        rr.Boxes3D(
            centers=[(*table.center_xy, -table.size[2] / 2)],
            sizes=[table.size],
            colors=[rgba(table.color)],
            fill_mode="solid",
        ),
        static=True,
    )


def log_arms(rec: rr.RecordingStream, scene: Scene, safety: SafetyConfig) -> list[str]:
    """Each arm at its mount: the base link, every link's mesh, the measured and commanded
    TCP markers and the supervisor's geometry (:func:`log_safety_geometry`). Returns the
    links to log every tick: those with a mesh, but the base, which is static."""
    log = rec.log
    model = panda_model()
    meshed = {mesh.link for mesh in model.meshes}
    moving = [link for link in LINKS if link in meshed and link != BASE_LINK]
    for mount in scene.arms:
        base = arm_path(mount.name)
        log(base, transform3d(mount_matrix(mount.base_position, mount.base_yaw)), static=True)
        log(f"{base}/links/{BASE_LINK}", transform3d(np.eye(4)), static=True)
        for mesh in model.meshes:
            color = HAND_COLOR if mesh.link in ("panda_hand", *FINGERS) else ARM_COLOR
            path = f"{base}/links/{mesh.link}/mesh"
            log(path, transform3d(mesh.pose), static=True)
            log(path, rr.Asset3D(path=mesh.path, albedo_factor=color), static=True)
        for which, color in (("measured", MEASURED_COLOR), ("commanded", COMMANDED_COLOR)):
            log(f"{base}/tcp/{which}", rr.TransformAxes3D(0.08), static=True)
            log(
                f"{base}/tcp/{which}",
                rr.Points3D([(0.0, 0.0, 0.0)], radii=0.008, colors=[color], labels=[which]),
                static=True,
            )
        log_safety_geometry(rec, safety, base)
    return moving


def log_safety_geometry(rec: rr.RecordingStream, cfg: SafetyConfig, base: str) -> None:
    """The supervisor's TCP workspace box (less its padding) and its zones (grown by it)
    under the arm at ``base``."""
    log = rec.log
    pad = cfg.zone_padding
    lo, hi = cfg.workspace
    lo, hi = lo + pad, hi - pad
    log(
        f"{base}/safety/workspace",
        rr.Boxes3D(mins=[lo], sizes=[hi - lo], colors=[WORKSPACE_COLOR], labels=["TCP workspace"]),
        static=True,
    )
    zones = [(spec, KEEPOUT_COLOR) for spec in cfg.keepout_zones]
    zones += [(spec, PERMISSION_COLOR) for spec in cfg.permission_zones]
    for spec, color in zones:
        zone, forbid = parse_zone(spec)
        label = zone.name + (f" (forbid {','.join(sorted(forbid))})" if forbid else "")
        path = f"{base}/safety/zones/{zone.name}"
        if isinstance(zone, Box):
            lo, hi = np.array(zone.lower) - pad, np.array(zone.upper) + pad
            shape = rr.Boxes3D(mins=[lo], sizes=[hi - lo], colors=[color], labels=[label])
        else:
            assert isinstance(zone, Sphere)
            shape = rr.Ellipsoids3D(
                centers=[zone.center],
                half_sizes=[[zone.radius + pad] * 3],
                colors=[color],
                labels=[label],
            )
        log(path, shape, static=True)


def log_series_names(rec: rr.RecordingStream, scene: Scene) -> None:
    """The names of each arm's series: the joint states' period (mean, max) and its
    joints."""
    for mount in scene.arms:
        name = mount.name or SINGLE_ARM_PATH
        rec.log(
            f"timeline/{name}/joint_states_period_ms",
            rr.SeriesLines(names=["mean", "max"]),
            static=True,
        )
        rec.log(
            f"timeline/{name}/joints",
            rr.SeriesLines(names=list(panda.JOINT_NAMES)),
            static=True,
        )


def log_pads(
    rec: rr.RecordingStream, scene: Scene, places: Mapping[str, Mapping], logged: list
) -> list:
    """The pads of ``places`` (name -> position, size), when they differ from ``logged``
    (what this returned last time); returns what is logged now."""
    names = list(places)
    key = [(n, list(places[n]["position"]), list(places[n]["size"])) for n in names]
    if not names or key == logged:
        return logged
    colors = {n: rgba(p.color) for n, p in scene.places.items()}
    rec.log(
        f"{ROOT}/pads",
        rr.Boxes3D(
            centers=[(*places[n]["position"][:2], 0.001) for n in names],
            sizes=[(*places[n]["size"][:2], 0.002) for n in names],
            colors=[colors.get(n, (200, 200, 200, 255)) for n in names],
            labels=names,
            fill_mode="solid",
        ),
    )
    return key
