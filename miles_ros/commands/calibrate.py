"""`miles calibrate camera`: measure where the scene's camera is, and write it into a scene
file's ``camera.calibration``; `miles calibrate gripper`: measure the gripper's finger
offset, and write it into the scene file's ``gripper.calibration``.

    miles calibrate camera [--scene FILE] [--poses 12] [--seed 0] [--camera-seed 0]
                           [--out FILE [--overwrite]] [--json]
    miles calibrate gripper [--scene FILE] [--out FILE [--overwrite]] [--json]

In simulation (PyBullet; no ROS graph): the camera stands where ``sim_node`` with
``camera_seed`` = ``--camera-seed`` mounts it (the scene's nominal pose off by the noise
model's calibration error; ``miles up`` runs with camera seed 0). The arm puts the
scene's first cube at ``--poses`` places spread over the workspace, half of them on top of
the second cube, and parks out of view; the camera measures each, and the rigid transform
that best maps the measurements onto the places is the camera's pose
(``miles_ros/perception/calibration.py``). It prints the residual (how well one rigid pose
fits every measurement) and, since the simulator knows the truth, the calibrated pose's
error against it, next to the error of the pose the scene file had.

``--out FILE`` writes the scene file with the ``calibration:`` overlay under ``camera:``
(perception uses it from then on; the nominal ``position`` / ``look_at`` stay, the
simulator still mounts its camera there). Without ``--out`` nothing is written: it prints
the overlay. An existing file is never replaced without ``--overwrite``.

``gripper``, in simulation (PyBullet; no ROS graph): in the scene's world, whose gripper
reads the scene's ``gripper.finger_reading`` wide (sim_node's), the arm held still and the
empty gripper commanded closed for ``policies.calibration.CLOSE_PERIODS`` control periods;
its reading, less what a right one reads (0: the pads meet), read to 0.1 mm and taken as 0
under 0.5 mm (``policies.calibration.measured_offset``), is the offset. The skill node
reads a card's finger width through it where the card says
``calibration.finger_width.measure: closed_gripper``
(``miles_ros/runtime/gripper_calibration.py``). A reading under 0 (pads that squeeze)
cannot be seen closed: it measures 0.

Exit status: 0 when calibrated, 1 when the measurements could not give a pose (a
placement not seen, points on a line), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import sys
from pathlib import Path

from miles_ros.commands import doc_parser
from miles_ros.interfaces import EXIT_FAILED, EXIT_OK, EXIT_USAGE

TARGETS = ("camera", "gripper")
"""What ``miles calibrate`` calibrates."""


def _parser(prog: str) -> argparse.ArgumentParser:
    p = doc_parser(prog, __doc__)
    p.add_argument("target", choices=TARGETS, help="what to calibrate")
    p.add_argument("--scene", type=Path, help="scene YAML (default config/scene.yaml)")
    p.add_argument("--poses", type=int, default=12, help="camera: target placements (>= 3)")
    p.add_argument(
        "--seed", type=int, default=0, help="camera: seed of the placements and the noise"
    )
    p.add_argument(
        "--camera-seed",
        type=int,
        default=0,
        help="camera: sim_node's camera_seed whose camera pose to measure (miles up: 0)",
    )
    p.add_argument("--out", type=Path, help="write the scene with the calibration here")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def scene_with_calibration(scene_path: Path, section: dict, target: str = "camera") -> str:
    """The text of the scene file ``scene_path`` with ``TARGET.calibration`` (``camera`` or
    ``gripper``) set to ``section``. A file without a ``TARGET:`` section keeps its text and
    comments, the section appended; otherwise it is re-emitted from its data (the file's
    comments are not kept)."""
    import yaml

    text = scene_path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    has_section = target in data
    data[target] = {**(data.get(target) or {}), "calibration": section}
    if not has_section:
        block = yaml.safe_dump({target: {"calibration": section}}, sort_keys=False, width=88)
        kept = f"{text.rstrip()}\n# {target}.calibration: written by `{prog_of(section)}`\n{block}"
        if yaml.safe_load(kept) == data:
            return kept
    header = (
        f"# {scene_path.name} with the {target}'s calibration ({target}.calibration), written "
        f"by\n# {section['command']}\n"
    )
    return header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def prog_of(section: dict) -> str:
    """The command a calibration section records, up to its first option (its words)."""
    return str(section["command"]).split(" --")[0]


def _print_unwritten(target: str, section: dict) -> None:
    """Print a measured ``target.calibration`` section that no ``--out`` asked to write."""
    import yaml

    print(f"{target}:\n  calibration:")
    for line in yaml.safe_dump(section, sort_keys=False, default_flow_style=None).splitlines():
        print(f"    {line}")
    print("not written: pass --out FILE to write the scene with this calibration")


def main(argv: list[str] | None = None, prog: str = "miles calibrate") -> int:
    parser = _parser(prog)
    args = parser.parse_args(argv)
    if args.poses < 3:
        parser.error("--poses: a camera pose needs at least 3 placements")
    if args.out is not None and args.out.exists() and not args.overwrite:
        print(
            f"{prog}: {args.out} exists; pass --overwrite to replace it (nothing written)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.target == "gripper":
        return _gripper(args, argv, prog)

    from miles_ros.perception.calibration import (
        CalibrationRefused,
        calibrate_in_sim,
        calibration_section,
    )
    from sims.scene import default_scene_path, load_scene

    scene_path = args.scene if args.scene is not None else default_scene_path()
    scene = load_scene(scene_path)
    if scene.camera is None:
        print(f"{prog}: {scene_path} has no camera: section", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = calibrate_in_sim(scene, args.camera_seed, args.poses, args.seed)
    except CalibrationRefused as exc:
        print(f"{prog} camera: no pose: {exc}", file=sys.stderr)
        return EXIT_FAILED
    command = shlex.join([*prog.split(), *(argv if argv is not None else sys.argv[1:])])
    section = calibration_section(
        result.pose,
        result.residual_rms_mm,
        len(result.placements),
        datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        command,
    )
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(scene_with_calibration(Path(scene_path), section), encoding="utf-8")
    stacked = sum(p.stacked for p in result.placements)
    residual_max_mm = float(result.residuals.max() * 1e3)
    if args.json:
        print(
            json.dumps(
                {
                    "scene": str(scene_path),
                    "camera_seed": args.camera_seed,
                    "poses": len(result.placements),
                    "stacked": stacked,
                    "residual_rms_mm": round(result.residual_rms_mm, 3),
                    "residual_max_mm": round(residual_max_mm, 3),
                    "error": {k: round(v, 3) for k, v in result.error.items()},
                    "error_before": {k: round(v, 3) for k, v in result.error_before.items()},
                    "calibration": section,
                    "out": str(args.out) if args.out is not None else None,
                }
            )
        )
        return EXIT_OK
    e, b = result.error, result.error_before
    print(
        f"calibrate camera: {len(result.placements)} placements of {result.target} "
        f"({len(result.placements) - stacked} on the table, {stacked} on {result.support}), "
        f"sim camera seed {args.camera_seed}"
    )
    print(f"residual: rms {result.residual_rms_mm:.2f} mm, max {residual_max_mm:.2f} mm")
    print(
        f"error against the true pose (sim): position {e['position_mm']:.2f} mm, rotation "
        f"{e['rotation_deg']:.3f} deg; on the workspace {e['workspace_mean_mm']:.2f} mm mean, "
        f"{e['workspace_max_mm']:.2f} mm max"
    )
    print(
        f"the scene file's pose before: position {b['position_mm']:.2f} mm, rotation "
        f"{b['rotation_deg']:.3f} deg; on the workspace {b['workspace_mean_mm']:.2f} mm mean, "
        f"{b['workspace_max_mm']:.2f} mm max"
    )
    if args.out is not None:
        print(f"wrote {args.out} (camera.calibration); perception uses it with --scene {args.out}")
    else:
        _print_unwritten("camera", section)
    return EXIT_OK


def _gripper(args: argparse.Namespace, argv: list[str] | None, prog: str) -> int:
    """``miles calibrate gripper``: the closed empty gripper's reading into
    ``gripper.calibration``."""
    from miles_ros.runtime.gripper_calibration import gripper_section, measure_in_sim
    from sims.scene import default_scene_path, load_scene

    scene_path = args.scene if args.scene is not None else default_scene_path()
    scene = load_scene(scene_path)
    measurement = measure_in_sim(scene)
    command = shlex.join([*prog.split(), *(argv if argv is not None else sys.argv[1:])])
    date = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    section = gripper_section(measurement, date, command)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        text = scene_with_calibration(Path(scene_path), section, "gripper")
        args.out.write_text(text, encoding="utf-8")
    if args.json:
        print(
            json.dumps(
                {
                    "scene": str(scene_path),
                    "reading_m": round(measurement.reading_m, 9),
                    "finger_offset_m": measurement.offset_m,
                    "sim_finger_reading_m": scene.gripper.finger_reading,
                    "calibration": section,
                    "out": str(args.out) if args.out is not None else None,
                }
            )
        )
        return EXIT_OK
    print(
        f"calibrate gripper: the empty gripper closed for {measurement.periods} control periods "
        f"reads {measurement.reading_m * 1e3:.3f} mm: finger offset "
        f"{measurement.offset_m * 1e3:.1f} mm (the sim's gripper reads "
        f"{scene.gripper.finger_reading * 1e3:.1f} mm wide)"
    )
    if args.out is not None:
        print(
            f"wrote {args.out} (gripper.calibration); the skill node uses it with "
            f"scene_file {args.out}"
        )
    else:
        _print_unwritten("gripper", section)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
