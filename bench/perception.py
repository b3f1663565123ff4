"""Perception accuracy and cost: the scene's cubes seen by the simulated RGB-D camera.

    .venv/bin/python bench/perception.py --json [--frames 200] [--seed 0] [--scene FILE]
                                         [--calibrate [--frames-per-camera 20]]
                                         [--mode colour|apriltag]

Each frame is a new layout of the scene file's cubes (uniform over the workspace, random
yaws, at least 7 cm apart) and a random arm pose near home, rendered by PyBullet from the
scene's camera through the noise model of its ``camera:`` section
(:class:`sims.camera.CameraNoise`: depth noise growing with distance, invalid edges and
speckle, colour noise) and from a camera pose off by a calibration error drawn per frame
(its ``extrinsic_*`` fields): the perception code believes the scene file's pose
(``camera.believed_pose``), as it would on a real cell. The frame goes through the 16UC1 /
rgb8 encodings a RealSense sends and :class:`miles_ros.perception.Perception` (decode,
detect, fit, track, payload).

A cube counts as visible when at least half the pixels it covers with the arm turned away
are still in view (PyBullet's segmentation, ground truth used for scoring only). The peer
in the same run: the blob's pixel centroid intersected with the plane of cube centres
(the same colour labels, no depth), what a colour-only tracker does.

Prints one JSON object:

- ``xy_error_mm`` {p50, p95}, ``yaw_error_deg`` {p50, p95} (modulo the cube's 90 deg),
  ``z_error_mm`` {p50, p95}: measured visible cubes against the simulator's truth;
  ``xy_error_mm_exact_extrinsics``: the same frames rendered from the believed pose (the
  noise without the calibration error);
- ``measured_fraction``: visible cubes measured; ``false_poses``: measured cubes more
  than 2 cm from the truth;
- ``latency_ms`` {p50, p99}: wall time from a frame's encoded messages to the published
  payload (decode, detect, fit, track, JSON) on this machine; a real camera adds its own
  ``latency_s`` (the noise model's) before that;
- ``rate_hz``: frames per second one core sustains rendering (PyBullet TinyRenderer) and
  perceiving in sequence; ``render_ms`` {p50}: the render alone;
- ``peer``: ``xy_error_mm`` {p50, p95} of the centroid-on-a-plane peer on the same frames;
- ``mode``: how perception found the cubes (``--mode``: ``colour``, the cubes' colour and
  depth; ``apriltag``, the tags on their top faces, for a scene with tags such as
  config/scene_tags.yaml). With ``apriltag`` the keys above are the tags', and
  ``colour`` holds the colour mode's on the same frames and cubes: ``xy_error_mm``,
  ``yaw_error_deg``, ``z_error_mm``, ``xy_error_mm_exact_extrinsics``,
  ``measured_fraction``, ``false_poses``, ``latency_ms``.

With ``--calibrate`` the calibration error is drawn once per camera, not per frame: the
frames come in runs of ``--frames-per-camera``, each run with the camera the sim node
mounts for ``camera_seed`` = the run's index (:meth:`sims.camera.CameraConfig.mounted_pose`),
calibrated first as ``miles calibrate camera --camera-seed K`` does
(:func:`miles_ros.perception.calibration.calibrate_in_sim`). Every frame is then perceived
twice: through the believed pose (the keys above: before calibration) and through the
calibrated one. Added keys:

- ``xy_error_mm_calibrated`` {p50, p95}, ``z_error_mm_calibrated`` {p50, p95},
  ``yaw_error_deg_calibrated`` {p50, p95}: the same visible cubes, perceived through the
  calibrated pose;
- ``calibration``: ``cameras`` (runs), ``poses`` (placements each), ``residual_rms_mm``
  {p50, max}, and the calibrated poses' error against the truth: ``position_mm``,
  ``rotation_deg``, ``workspace_mean_mm`` {p50, max} (the last: the mean displacement of
  a grid of workspace points seen through it).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miles_ros.interfaces import PERCEPTION_COLOUR, PERCEPTION_MODES  # noqa: E402
from miles_ros.perception import (  # noqa: E402
    CubeDetector,
    Perception,
    PerceptionConfig,
    decode_color,
    decode_depth,
    encode_depth_mm,
    yaw_difference,
)
from miles_ros.perception.calibration import (  # noqa: E402
    PARKED_JOINTS,
    calibrate_in_sim,
    target_region,
)
from miles_ros.runtime.scene_world import BodyPose, SceneWorld  # noqa: E402
from sims.camera import add_noise, back_project, to_scene  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.scene import load_scene  # noqa: E402

MIN_GAP = 0.07
"""Cubes of a layout stand at least this far apart (m, centre to centre)."""


def layout(scene, rng) -> dict[str, BodyPose]:
    """Random cube poses inside the trained region (around the table centre for a cell)."""
    lo, hi = target_region(scene)
    while True:
        xy = rng.uniform(lo, hi, size=(len(scene.objects), 2))
        gaps = [np.linalg.norm(a - b) for i, a in enumerate(xy) for b in xy[i + 1 :]]
        if not gaps or min(gaps) >= MIN_GAP:
            break
    yaws = rng.uniform(-math.pi, math.pi, len(xy))
    half = scene.cube_size / 2
    return {
        name: BodyPose((x, y, half), (0.0, 0.0, math.sin(w / 2), math.cos(w / 2)))
        for name, (x, y), w in zip(scene.objects, xy, yaws, strict=True)
    }


def perceive(scene, pose, config, color_msg: bytes, depth_msg: bytes):
    """One frame's encoded messages through a new :class:`Perception` (decode, detect,
    fit, track, JSON): its objects, the wall time (ms) and the decoded frame."""
    k = scene.camera.intrinsics
    perception = Perception(scene, pose, config)
    perception.set_intrinsics(k)
    t0 = time.perf_counter()
    color = decode_color("rgb8", k.height, k.width, k.width * 3, color_msg)
    depth_m = decode_depth("16UC1", k.height, k.width, k.width * 2, depth_msg)
    perception.on_frame(color, depth_m, stamp=0.0)
    payload = json.dumps(perception.payload(0.0, "world"))
    ms = (time.perf_counter() - t0) * 1e3
    return json.loads(payload)["objects"], ms, color, depth_m


def perceive_frame(scene, pose, config, frame) -> dict:
    """The objects a new :class:`Perception` finds in one decoded frame (rgb, depth m)."""
    perception = Perception(scene, pose, config)
    perception.set_intrinsics(scene.camera.intrinsics)
    perception.on_frame(*frame, stamp=0.0)
    return perception.payload(0.0, "world")["objects"]


def centroid_peer(det: CubeDetector, k, rgb, pose, scene) -> dict[str, np.ndarray]:
    """Each cube's blob centroid (the colour mode's labels) on the plane of cube centres."""
    labels = det.labels(rgb)
    out = {}
    for i, name in enumerate(det.cube_names):
        v, u = np.nonzero(labels == i)
        if len(u) < det.config.min_pixels:
            continue
        ray = to_scene(back_project([u.mean()], [v.mean()], [1.0], k), pose)[0] - pose.t
        t = (scene.cube_size / 2 - pose.t[2]) / ray[2]
        out[name] = pose.t + t * ray
    return out


def percentiles(values, *qs) -> dict:
    if not len(values):
        return {f"p{q}": None for q in qs}
    return {f"p{q}": round(float(np.percentile(values, q)), 3) for q in qs}


def run(
    frames: int,
    seed: int,
    scene_file: str | None,
    calibrate: bool = False,
    frames_per_camera: int = 20,
    mode: str = PERCEPTION_COLOUR,
) -> dict:
    scene = load_scene(scene_file)
    config = PerceptionConfig(mode=mode)
    cam = scene.camera
    if cam is None:
        raise SystemExit(f"{scene_file or 'the default scene'} has no camera: section")
    believed = cam.believed_pose
    rng = np.random.default_rng(seed)
    k = cam.intrinsics
    calibrations = []
    if calibrate:  # one camera per run of frames, calibrated before its frames
        for camera_seed in range(math.ceil(frames / frames_per_camera)):
            calibrations.append(calibrate_in_sim(scene, camera_seed, seed=seed + camera_seed))
    colour_labels = CubeDetector(scene, believed)
    world = SceneWorld(scene)
    xy, yaw, z, xy_exact, peer_xy, latency, render = [], [], [], [], [], [], []
    xy_cal, yaw_cal, z_cal = [], [], []
    visible = measured = false_poses = 0
    peer_mode = {"xy": [], "yaw": [], "z": [], "xy_exact": [], "latency": []}
    peer_mode.update(measured=0, false_poses=0)
    """The colour mode on the same frames, when ``mode`` is another."""
    loop_start = time.perf_counter()
    try:
        for frame in range(frames):
            poses = layout(scene, rng)
            fingers = [panda.finger_position_max] * 2
            parked = {arm: [*PARKED_JOINTS, *fingers] for arm in world.arm_names}
            world.mirror(parked if scene.multi_arm else parked[""], poses)
            if calibrate:
                calibration = calibrations[frame // frames_per_camera]
                truth_pose = calibration.truth
            else:
                truth_pose = cam.mounted_pose(rng)
            _, _, seg_alone = world.world.render_rgbd(k, truth_pose, segmentation=True)
            joints = {
                arm: [*(panda.home_joint_positions + rng.normal(0.0, 0.15, 7)), *fingers]
                for arm in world.arm_names
            }
            world.mirror(joints if scene.multi_arm else joints[""], poses)
            t0 = time.perf_counter()
            rgb, depth, seg = world.world.render_rgbd(k, truth_pose, segmentation=True)
            render.append((time.perf_counter() - t0) * 1e3)
            rgb_n, depth_n = add_noise(rgb, depth, cam.noise, rng)
            color_msg, depth_msg = rgb_n.tobytes(), encode_depth_mm(depth_n).tobytes()

            objects, ms, color, depth_m = perceive(scene, believed, config, color_msg, depth_msg)
            latency.append(ms)
            colour_objects = {}
            if mode != PERCEPTION_COLOUR:
                colour_objects, ms, _, _ = perceive(
                    scene, believed, PerceptionConfig(), color_msg, depth_msg
                )
                peer_mode["latency"].append(ms)
            peer = centroid_peer(colour_labels, k, color, believed, scene)
            calibrated_objects = {}
            if calibrate:
                calibrated = Perception(scene, calibration.pose, config)
                calibrated.set_intrinsics(k)
                calibrated.on_frame(color, depth_m, stamp=0.0)
                calibrated_objects = calibrated.payload(0.0, "world")["objects"]

            rgb_e, depth_e, _ = world.world.render_rgbd(k, believed, segmentation=True)
            exact_frame = add_noise(rgb_e, depth_e, cam.noise, rng)
            exact_objects = perceive_frame(scene, believed, config, exact_frame)
            colour_exact = {}
            if mode != PERCEPTION_COLOUR:
                colour_exact = perceive_frame(scene, believed, PerceptionConfig(), exact_frame)

            for name, truth in poses.items():
                body = world.world.decor[name]
                if (seg == body).sum() < 0.5 * max((seg_alone == body).sum(), 1):
                    continue  # hidden by the arm or another cube: not scored
                visible += 1
                true_xy = np.array(truth.position[:2])
                if name in peer:
                    peer_xy.append(np.linalg.norm(peer[name][:2] - true_xy) * 1e3)
                if name in colour_exact:
                    got = np.array(colour_exact[name]["position"][:2])
                    peer_mode["xy_exact"].append(np.linalg.norm(got - true_xy) * 1e3)
                if name in exact_objects:
                    xy_exact.append(
                        np.linalg.norm(np.array(exact_objects[name]["position"][:2]) - true_xy)
                        * 1e3
                    )
                if name in calibrated_objects:
                    got = np.array(calibrated_objects[name]["position"])
                    xy_cal.append(np.linalg.norm(got[:2] - true_xy) * 1e3)
                    z_cal.append(abs(got[2] - truth.position[2]) * 1e3)
                    yaw_cal.append(
                        math.degrees(yaw_difference(calibrated_objects[name]["yaw"], truth.yaw))
                    )
                if name in colour_objects:
                    got = np.array(colour_objects[name]["position"])
                    error = np.linalg.norm(got[:2] - true_xy)
                    peer_mode["measured"] += 1
                    peer_mode["false_poses"] += int(error > 0.02)
                    peer_mode["xy"].append(error * 1e3)
                    peer_mode["z"].append(abs(got[2] - truth.position[2]) * 1e3)
                    peer_mode["yaw"].append(
                        math.degrees(yaw_difference(colour_objects[name]["yaw"], truth.yaw))
                    )
                if name not in objects:
                    continue
                measured += 1
                got = np.array(objects[name]["position"])
                error = np.linalg.norm(got[:2] - true_xy)
                false_poses += int(error > 0.02)
                xy.append(error * 1e3)
                z.append(abs(got[2] - truth.position[2]) * 1e3)
                yaw.append(math.degrees(yaw_difference(objects[name]["yaw"], truth.yaw)))
    finally:
        world.close()
    wall = time.perf_counter() - loop_start
    per_frame_s = (float(np.median(render)) + float(np.median(latency))) / 1e3
    result = {
        "frames": frames,
        "mode": mode,
        "scene": scene_file or "config/scene.yaml",
        "resolution": [k.width, k.height],
        "xy_error_mm": percentiles(xy, 50, 95),
        "yaw_error_deg": percentiles(yaw, 50, 95),
        "z_error_mm": percentiles(z, 50, 95),
        "xy_error_mm_exact_extrinsics": percentiles(xy_exact, 50, 95),
        "extrinsic_error": {
            "position_std_m": cam.noise.extrinsic_position_std,
            "angle_std_deg": cam.noise.extrinsic_angle_std_deg,
        },
        "visible_cubes": visible,
        "measured_fraction": round(measured / max(visible, 1), 4),
        "false_poses": false_poses,
        "latency_ms": percentiles(latency, 50, 99),
        "render_ms": percentiles(render, 50),
        "rate_hz": round(1.0 / per_frame_s, 1),
        "bench_wall_s": round(wall, 1),
        "peer": {
            "name": "blob centroid on the plane of cube centres",
            "xy_error_mm": percentiles(peer_xy, 50, 95),
        },
    }
    if mode != PERCEPTION_COLOUR:
        result[PERCEPTION_COLOUR] = {
            "xy_error_mm": percentiles(peer_mode["xy"], 50, 95),
            "yaw_error_deg": percentiles(peer_mode["yaw"], 50, 95),
            "z_error_mm": percentiles(peer_mode["z"], 50, 95),
            "xy_error_mm_exact_extrinsics": percentiles(peer_mode["xy_exact"], 50, 95),
            "measured_fraction": round(peer_mode["measured"] / max(visible, 1), 4),
            "false_poses": peer_mode["false_poses"],
            "latency_ms": percentiles(peer_mode["latency"], 50, 99),
        }
    if calibrate:
        result["xy_error_mm_calibrated"] = percentiles(xy_cal, 50, 95)
        result["yaw_error_deg_calibrated"] = percentiles(yaw_cal, 50, 95)
        result["z_error_mm_calibrated"] = percentiles(z_cal, 50, 95)

        def p50_max(values) -> dict:
            return {"p50": round(float(np.median(values)), 3), "max": round(max(values), 3)}

        result["calibration"] = {
            "cameras": len(calibrations),
            "poses": len(calibrations[0].placements),
            "residual_rms_mm": p50_max([c.residual_rms_mm for c in calibrations]),
            **{
                key: p50_max([c.error[key] for c in calibrations])
                for key in ("position_mm", "rotation_deg", "workspace_mean_mm")
            },
        }
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object (the default)")
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scene", default=None, help="scene file (default config/scene.yaml)")
    ap.add_argument(
        "--calibrate",
        action="store_true",
        help="one camera per run of frames, calibrated first; report before and after",
    )
    ap.add_argument("--frames-per-camera", type=int, default=20, help="with --calibrate")
    ap.add_argument(
        "--mode",
        choices=PERCEPTION_MODES,
        default=PERCEPTION_COLOUR,
        help="how perception finds the cubes; apriltag (a scene with tags, e.g. "
        "config/scene_tags.yaml) also measures the colour mode on the same frames",
    )
    args = ap.parse_args()
    if args.frames_per_camera < 1:
        ap.error("--frames-per-camera must be >= 1")
    result = run(
        args.frames, args.seed, args.scene, args.calibrate, args.frames_per_camera, args.mode
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
