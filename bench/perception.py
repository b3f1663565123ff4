"""Perception accuracy and cost: the scene's cubes seen by the simulated RGB-D camera.

    .venv/bin/python bench/perception.py --json [--frames 200] [--seed 0] [--scene FILE]

Each frame is a new layout of the scene file's cubes (uniform over the workspace, random
yaws, at least 7 cm apart) and a random arm pose near home, rendered by PyBullet from the
scene's camera through the noise model of its ``camera:`` section
(:class:`sims.camera.CameraNoise`: depth noise growing with distance, invalid edges and
speckle, colour noise) and from a camera pose off by a calibration error drawn per frame
(its ``extrinsic_*`` fields): the perception code believes the scene file's pose, as it
would on a real cell. The frame goes through the 16UC1 / rgb8 encodings a RealSense sends
and :class:`miles_ros.perception.Perception` (decode, detect, fit, track, payload).

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
- ``peer``: ``xy_error_mm`` {p50, p95} of the centroid-on-a-plane peer on the same frames.
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

from miles_ros.perception import (  # noqa: E402
    Perception,
    decode_color,
    decode_depth,
    encode_depth_mm,
    yaw_difference,
)
from miles_ros.runtime.scene_world import BodyPose, SceneWorld  # noqa: E402
from sims.camera import add_noise, back_project, to_scene  # noqa: E402
from sims.robots import panda  # noqa: E402
from sims.scene import load_scene  # noqa: E402

PARKED = [math.pi * 0.9, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8]
"""An arm pose turned away from the table (behind its base): the unoccluded view."""
MIN_GAP = 0.07
"""Cubes of a layout stand at least this far apart (m, centre to centre)."""


def layout(scene, rng) -> dict[str, BodyPose]:
    """Random cube poses inside the trained region (around the table centre for a cell)."""
    cx, cy = scene.table.center_xy
    lo, hi = ((0.3, -0.28), (0.65, 0.28)) if not scene.multi_arm else ((-0.3, -0.12), (0.3, 0.12))
    if not scene.multi_arm:
        cx = cy = 0.0
    while True:
        xy = rng.uniform(lo, hi, size=(len(scene.objects), 2)) + (cx, cy)
        gaps = [np.linalg.norm(a - b) for i, a in enumerate(xy) for b in xy[i + 1 :]]
        if not gaps or min(gaps) >= MIN_GAP:
            break
    yaws = rng.uniform(-math.pi, math.pi, len(xy))
    half = scene.cube_size / 2
    return {
        name: BodyPose((x, y, half), (0.0, 0.0, math.sin(w / 2), math.cos(w / 2)))
        for name, (x, y), w in zip(scene.objects, xy, yaws, strict=True)
    }


def centroid_peer(perception: Perception, rgb, pose, scene) -> dict[str, np.ndarray]:
    """Each cube's blob centroid (same colour labels) on the plane of cube centres."""
    det, k = perception.detector, perception.intrinsics
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


def run(frames: int, seed: int, scene_file: str | None) -> dict:
    scene = load_scene(scene_file)
    cam = scene.camera
    if cam is None:
        raise SystemExit(f"{scene_file or 'the default scene'} has no camera: section")
    rng = np.random.default_rng(seed)
    world = SceneWorld(scene)
    k = cam.intrinsics
    xy, yaw, z, xy_exact, peer_xy, latency, render = [], [], [], [], [], [], []
    visible = measured = false_poses = 0
    loop_start = time.perf_counter()
    try:
        for _ in range(frames):
            poses = layout(scene, rng)
            fingers = [panda.finger_position_max] * 2
            parked = {arm: [*PARKED, *fingers] for arm in world.arm_names}
            world.mirror(parked if scene.multi_arm else parked[""], poses)
            truth_pose = cam.pose.perturbed(
                rng, cam.noise.extrinsic_position_std, cam.noise.extrinsic_angle_std_deg
            )
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

            perception = Perception(scene, cam.pose)
            perception.set_intrinsics(k)
            t0 = time.perf_counter()
            color = decode_color("rgb8", k.height, k.width, k.width * 3, color_msg)
            depth_m = decode_depth("16UC1", k.height, k.width, k.width * 2, depth_msg)
            perception.on_frame(color, depth_m, stamp=0.0)
            payload = json.dumps(perception.payload(0.0, "world"))
            latency.append((time.perf_counter() - t0) * 1e3)
            objects = json.loads(payload)["objects"]
            peer = centroid_peer(perception, color, cam.pose, scene)

            exact = Perception(scene, cam.pose)
            exact.set_intrinsics(k)
            rgb_e, depth_e, _ = world.world.render_rgbd(k, cam.pose, segmentation=True)
            exact.on_frame(*add_noise(rgb_e, depth_e, cam.noise, rng), stamp=0.0)
            exact_objects = exact.payload(0.0, "world")["objects"]

            for name, truth in poses.items():
                body = world.world.decor[name]
                if (seg == body).sum() < 0.5 * max((seg_alone == body).sum(), 1):
                    continue  # hidden by the arm or another cube: not scored
                visible += 1
                true_xy = np.array(truth.position[:2])
                if name in peer:
                    peer_xy.append(np.linalg.norm(peer[name][:2] - true_xy) * 1e3)
                if name in exact_objects:
                    xy_exact.append(
                        np.linalg.norm(np.array(exact_objects[name]["position"][:2]) - true_xy)
                        * 1e3
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
    return {
        "frames": frames,
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object (the default)")
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scene", default=None, help="scene file (default config/scene.yaml)")
    args = ap.parse_args()
    print(json.dumps(run(args.frames, args.seed, args.scene)))


if __name__ == "__main__":
    main()
