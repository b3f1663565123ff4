"""`miles demo`: the whole loop on one machine, with pictures.

With shipped skills (policies/skills/NAME): the ROS 2 graph demo of
:mod:`miles_ros.demo_goal` (:mod:`miles_ros.demo_graph` without the manager):
sim_node -> safety_node -> skill_node and manager_node in one process; a goal in words
(``--goal``, default :data:`~miles_ros.demo_goal.DEFAULT_GOAL`) becomes a plan of
skills, an e-stop mid-motion, hold, reset, the rest of the plan, a report and
pictures. ``--no-manager`` runs a fixed skill sequence instead (no language model).
Without skills, or with ``--scripted``, the scripted version below. ``--dual``: the
two-arm cell of config/scene_dual.yaml (:mod:`miles_ros.demo_dual`): a goal for both arms
(default :data:`~miles_ros.demo_dual.DUAL_GOAL`) by contract net, each arm behind its
safety node, with pictures and a report of bids, awards, per-arm task intervals, the
makespan and the safety interventions per arm.

Scripted version (no ROS, no skills): a scripted Reach in PyBullet physics. The Panda
visits a point above each cube of the default scene (config/scene.yaml) under a simple
Cartesian controller (one damped-least-squares IK step per control period, sent through
the Reach env's joint-delta actions), then reports the final distances and saves
before/after camera pictures. It leaves out the parts of :data:`NOT_IN_SCRIPTED`, which
the graph demo runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from miles_ros.demo_graph import DemoOptions

STOP_DISTANCE = 0.01
"""The controller moves on to the next target once within this distance (m)."""

NOT_IN_SCRIPTED = (
    "trained ONNX skills (miles train / miles export: PPO policies with skill cards)",
    "the ROS 2 node graph (sim_node, skill_node, safety_node, manager_node; miles up)",
    "the safety supervisor between skills and the robot (limits, watchdog, e-stop latch)",
    "the language-model manager that turns a goal into a plan of skills (miles goal)",
)
"""What the scripted demo leaves out; ``miles demo`` without ``--scripted`` runs them all
when skills are shipped (policies/skills)."""


def reach_action(state, cfg, env_index: int = 0, step_max: float = 0.05) -> np.ndarray:
    """Joint-delta action [7] in [-1, 1] moving the TCP of ``env_index`` toward its goal.

    One damped-least-squares IK step for the Cartesian error (capped at ``step_max`` m),
    expressed in the Reach action's units and scaled down as a whole (direction kept)
    when a joint would exceed its velocity budget.
    """
    from sims.kernels.kinematics import dls_ik_step
    from sims.robots import panda

    q = state.joint_pos[env_index]
    error = state.goal_pos[env_index] - state.tcp_pos[env_index]
    norm = float(np.linalg.norm(error))
    if norm > step_max:
        error = error * (step_max / norm)
    dq = dls_ik_step(q, error, cfg.ik_damping)
    action = dq / (cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt)
    peak = float(np.max(np.abs(action)))
    return action / peak if peak > 1.0 else action


def _shipped_skills(library: str | None) -> list[str]:
    from policies.cards import library_skill_dirs

    return [p.name for p in library_skill_dirs(library)]


def _options(args: argparse.Namespace, view: dict | None) -> DemoOptions:
    """The graph demos' options from the command line."""
    from miles_ros.demo_graph import DemoOptions

    return DemoOptions(args.skills, args.domain_id, view=view, perception=args.perception)


def _graph_demo(out: Path, goal: str | None, opts: DemoOptions) -> int:
    from miles_ros.demo_goal import run_goal_demo
    from miles_ros.demo_graph import run_demo

    try:
        report = run_demo(out, opts) if goal is None else run_goal_demo(out, goal, opts)
    except (TimeoutError, RuntimeError) as exc:
        print(f"miles demo: FAILED: {exc}")
        return 1
    if goal is not None:
        return _goal_summary(out, report)
    estop = report["estop"] or {}
    print(
        f"Result: {report['succeeded']}/{report['skills_run']} skill runs succeeded "
        f"({', '.join(f'{k} {v}' for k, v in report['outcomes'].items())}); "
        f"safety interventions: {report['safety']['interventions']}, events "
        f"({', '.join(f'{k} {v}' for k, v in sorted(report['safety']['events_by_kind'].items()))})"
    )
    if estop:
        print(
            f"E-stop: estopped status after {estop['to_estopped_status_ms']:.0f} ms, arm still "
            f"after {estop['to_arm_still_ms']:.0f} ms, held (drift "
            f"{estop['hold_drift_rad'] * 1e3:.3f} mrad), "
            f"reset {'ok' if estop['reset'] else 'refused'}"
        )
    print(
        f"Pictures: {', '.join(str(out / p) for p in report['pictures'])}; report: "
        f"{out / 'report.json'}; {report['wall_time_s']:.1f} s"
    )
    print("Fixed skill sequence (--no-manager); without it the manager plans from a goal")
    return 0 if report["success"] else 1


def _dual_demo(out: Path, goal: str, opts: DemoOptions) -> int:
    from miles_ros.demo_dual import run_dual_demo

    try:
        report = run_dual_demo(out, goal, opts)
    except (TimeoutError, RuntimeError) as exc:
        print(f"miles demo --dual: FAILED: {exc}")
        return 1
    print("Report:")
    print(f"  goal: {report['goal']!r} (trace {report['trace_id']})")
    print(f"  plan: {' -> '.join(_step_text(s) for s in report['plan']) or 'none'}")
    for ann in report["announcements"]:
        bids = [
            b
            for b in report["bids"]
            if (b["task_id"], b["round"]) == (ann["task_id"], ann["round"])
        ]
        offers = ", ".join(
            f"{b['arm']} {b['cost']:.2f}"
            if b["cost"] is not None
            else f"{b['arm']} refused ({b['refusal']})"
            for b in bids
        )
        award = next(
            (
                a
                for a in report["awards"]
                if (a["task_id"], a["round"]) == (ann["task_id"], ann["round"])
            ),
            None,
        )
        won = f" -> {award['arm']}" if award else " -> not awarded"
        print(
            f"  {ann['task_id'].rsplit('/', 1)[-1]} round {ann['round']} "
            f"{_step_text(ann)}: bids {offers or 'none'}{won}"
        )
    for arm, items in report["intervals"].items():
        for i in items:
            end = f"{i['ended_s']:.1f}" if i["ended_s"] is not None else "?"
            why = f" ({i['reason']})" if i["reason"] else ""
            print(f"  {arm}: {_step_text(i)} {i['requested_s']:.1f}-{end} s [{i['state']}]{why}")
        if not items:
            print(f"  {arm}: no task")
    makespan = report["makespan_s"]
    print(
        f"  makespan: {'-' if makespan is None else f'{makespan:.1f} s'} (tasks' busy time "
        f"{report['busy_s']:.1f} s; both arms at once {report['both_arms_at_once_s']:.1f} s: "
        f"{'overlapped' if report['overlapped'] else 'NOT overlapped'}; succeeded tasks at "
        f"once {report['succeeded_at_once_s']:.1f} s)"
    )
    for arm, safety in report["safety"].items():
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(safety["events_by_kind"].items()))
        print(f"  safety {arm}: {safety['interventions']} interventions ({kinds or 'no events'})")
    print(
        f"  outcome: {report['outcome']}" + (f": {report['failure']}" if report["failure"] else "")
    )
    print(f"  planner: {report['model']}")
    print(
        f"Pictures: {', '.join(str(out / p) for p in report['pictures'])}; report: "
        f"{out / 'report.json'}; {report['wall_time_s']:.1f} s"
    )
    print(f"Result: {'succeeded' if report['success'] else 'FAILED'}")
    return 0 if report["success"] else 1


def _goal_summary(out: Path, report: dict) -> int:
    estop = report["estop"] or {}
    goals = report["goals"]
    print("Report:")
    print(f"  goal: {report['goal']!r}")
    print(f"  plan: {' -> '.join(_step_text(s) for s in report['plan']) or 'none'}")
    for g in goals[1:]:
        print(f"  resumed with {g['goal']!r}: {' -> '.join(_step_text(s) for s in g['plan'])}")
    print(f"  goal outcomes: {', '.join(str(g['outcome']) for g in goals)}")
    print(
        f"  skills run: {report['skills_run']} "
        f"({', '.join(f'{k} {v}' for k, v in report['outcomes'].items())}); "
        f"replans: {report['replans']}"
    )
    kinds = sorted(report["safety"]["events_by_kind"].items())
    print(
        f"  safety interventions: {report['safety']['interventions']} "
        f"(events: {', '.join(f'{k} {v}' for k, v in kinds) or 'none'})"
    )
    if estop:
        print(
            f"  e-stop: estopped status after {estop['to_estopped_status_ms']:.0f} ms, arm "
            f"still after {estop['to_arm_still_ms']:.0f} ms, held (drift "
            f"{estop['hold_drift_rad'] * 1e3:.3f} mrad), "
            f"reset {'ok' if estop['reset'] else 'refused'}"
        )
    else:
        print("  e-stop: NOT pressed (the plan never reached a moving step)")
    print(f"  planner: {report['model']}, loaded in {report['model_load_s']:.1f} s")
    print(
        f"Pictures: {', '.join(str(out / p) for p in report['pictures'])}; report: "
        f"{out / 'report.json'}; {report['wall_time_s']:.1f} s"
    )
    print(f"Result: {'succeeded' if report['success'] else 'FAILED'}")
    return 0 if report["success"] else 1


def _step_text(step: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in step.get("params", {}).items())
    return f"{step['skill']}({params})"


def _save_png(image: np.ndarray, path: Path) -> None:
    from PIL import Image

    Image.fromarray(image).save(path)


def main(argv: list[str] | None = None, prog: str = "miles demo") -> int:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="The whole loop on one machine, with pictures "
        "(skills -> safety -> PyBullet in a ROS 2 graph, from a goal in words).",
    )
    parser.add_argument(
        "--out", default=None, help="output folder (default out/demo, with --dual out/demo_dual)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--max-steps", type=int, default=80, help="control steps allowed per target (default 80)"
    )
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="a scripted Reach without ROS, even when skills are shipped",
    )
    parser.add_argument("--skills", default=None, help="skill library (default policies/skills)")
    parser.add_argument(
        "--goal",
        default=None,
        help="the goal in words for the manager (default: "
        "'move to the red cube, go back home, then move to the blue cube and return home')",
    )
    parser.add_argument(
        "--no-manager",
        action="store_true",
        help="no language model: a fixed sequence of the shipped skills",
    )
    parser.add_argument(
        "--dual",
        action="store_true",
        help="the two-arm cell (config/scene_dual.yaml): a goal for both arms by contract "
        "net, each arm behind its safety node (default goal: 'put the red cube on the left "
        "pad and the blue cube on the right pad')",
    )
    parser.add_argument(
        "--view",
        action="store_true",
        help="live 3D view of the graph in the native Rerun viewer (without a display: the "
        "web viewer); it lasts while the demo runs",
    )
    parser.add_argument(
        "--view-web", action="store_true", help="serve the 3D view's web viewer on 127.0.0.1"
    )
    parser.add_argument("--view-port", type=int, default=None, help="the web viewer's port")
    parser.add_argument(
        "--record", metavar="FILE.rrd", default=None, help="save the 3D view as a Rerun recording"
    )
    parser.add_argument(
        "--perception",
        action="store_true",
        help="the object poses from the simulated RGB-D camera through perception_node "
        "(the sim's true poses only on /miles/scene/objects_truth)",
    )
    parser.add_argument(
        "--domain-id",
        type=int,
        default=None,
        help="ROS_DOMAIN_ID of the demo's graph (default: a private one of 201-230, off the "
        "domain a running cell uses)",
    )
    args = parser.parse_args(argv)
    if args.perception and args.scripted:
        parser.error("--perception needs the ROS graph (drop --scripted)")
    view = None
    if args.view or args.view_web or args.record:
        from miles_ros.view.options import RRD_SUFFIX, is_rerun_recording

        if args.record and not is_rerun_recording(args.record):
            parser.error(f"--record must name a Rerun recording (*{RRD_SUFFIX})")
        if args.scripted:
            parser.error("--view, --view-web and --record need the ROS graph (drop --scripted)")
        view = {
            "record": args.record,
            "native": args.view,
            "web": args.view_web,
            "web_port": args.view_port,
        }
    if args.dual and (args.scripted or args.no_manager):
        parser.error("--dual needs the manager and the skills (drop --scripted / --no-manager)")
    if args.out is None:
        args.out = "out/demo_dual" if args.dual else "out/demo"
    if args.max_steps < 1:
        parser.error("--max-steps must be >= 1")
    if args.goal is not None and not args.goal.strip():
        parser.error("--goal must not be empty")
    if args.goal is not None and (args.no_manager or args.scripted):
        parser.error("--goal needs the manager (drop --no-manager / --scripted)")
    if args.dual:
        if not _shipped_skills(args.skills):
            parser.error("--dual needs trained skills (policies/skills or --skills)")
        from miles_ros.demo_dual import DUAL_GOAL

        return _dual_demo(Path(args.out), args.goal or DUAL_GOAL, _options(args, view))
    if not args.scripted and _shipped_skills(args.skills):
        goal = None
        if not args.no_manager:
            from miles_ros.demo_goal import DEFAULT_GOAL

            goal = args.goal or DEFAULT_GOAL
        return _graph_demo(Path(args.out), goal, _options(args, view))
    if view:
        parser.error("--view, --view-web and --record need the ROS graph demo (trained skills)")

    from miles_ros.runtime.goals import HOVER_HEIGHT
    from sims.backends.pybullet.env import make_pybullet_env
    from sims.scene import load_scene
    from sims.tasks import reach

    started = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scene = load_scene()
    # No episode logic here: no time limit and no autoreset, so the arm stays where the
    # controller puts it.
    cfg = dataclasses.replace(reach.CONFIG, episode_steps=10**9)
    print("Miles demo (scripted): Reach in PyBullet physics, Franka Panda, default scene")
    env = make_pybullet_env(reach, 1, cfg, num_workers=0, autoreset=False, scene_objects=True)
    try:
        env.reset(seed=args.seed)
        _save_png(env.render(), out / "before.png")
        cubes = env.body_positions()
        results = []
        for name in scene.objects:
            target = np.asarray(cubes[name]) + np.array([0.0, 0.0, HOVER_HEIGHT])
            env.set_goal(target)
            steps = 0
            state = env.get_state()
            distance = float(np.linalg.norm(state.tcp_pos[0] - target))
            while steps < args.max_steps and distance > STOP_DISTANCE:
                env.step(reach_action(state, cfg)[None, :])
                steps += 1
                state = env.get_state()
                distance = float(np.linalg.norm(state.tcp_pos[0] - target))
            success = bool(reach.success(state, cfg)[0])
            results.append(
                {
                    "object": name,
                    "target": [round(float(v), 4) for v in target],
                    "steps": steps,
                    "sim_time_s": round(steps * cfg.control_dt, 3),
                    "final_distance_m": round(distance, 4),
                    "success": success,
                }
            )
            mark = "ok" if success else "FAILED"
            print(
                f"  reach above {name:<10} target {np.round(target, 3).tolist()}: "
                f"{steps:3d} steps ({steps * cfg.control_dt:.2f} s simulated), "
                f"final distance {distance * 1000:.1f} mm  [{mark}]"
            )
        _save_png(env.render(), out / "after.png")
    finally:
        env.close()

    all_ok = all(r["success"] for r in results)
    report = {
        "demo": "scripted_reach_pybullet",
        "seed": args.seed,
        "success_threshold_m": cfg.success_threshold,
        "targets": results,
        "success": all_ok,
        "pictures": ["before.png", "after.png"],
        "not_in_this_demo": list(NOT_IN_SCRIPTED),
        "wall_time_s": round(time.perf_counter() - started, 2),
    }
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    reached = sum(r["success"] for r in results)
    print(
        f"Result: {reached}/{len(results)} targets reached within "
        f"{cfg.success_threshold * 100:.0f} cm."
    )
    print(f"Pictures: {out / 'before.png'}, {out / 'after.png'}; report: {out / 'report.json'}")
    print("Left out of this scripted demo (`miles demo` without --scripted runs them):")
    for item in NOT_IN_SCRIPTED:
        print(f"  - {item}")
    return 0 if all_ok else 1
