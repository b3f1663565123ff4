"""``miles up``: the node graph in one process, like a ROS 2 component container (with
``--perception``, perception_node in a process of its own beside it:
:data:`miles_ros.ros.graph.PROCESS_PARTS`).

The same nodes and parameter files as ``launch/bringup.launch.py`` (config/sim.yaml,
safety.yaml, skills.yaml, manager.yaml), built and spun by
:class:`miles_ros.ros.graph.InProcessGraph` (one single-threaded executor), for users
with rclpy from pip and no ROS distro.

Ctrl-C (or SIGTERM) at any moment, even while the nodes are being built, stops the graph
cleanly with exit status 0: the signal only sets a flag (:class:`StopSignals`, installed
before anything heavy is imported), the callback that is running finishes, and the nodes
are destroyed in order (tests/test_up_shutdown.py runs 50 start/Ctrl-C cycles in CI).

``--scene FILE`` brings up the cell of a scene: with ``arms:`` (config/scene_dual.yaml)
one sim_node for every arm, then per arm a safety_node and a skill_node (``arm`` set,
node namespace ``/ARM``, topics under ``/ARM``, occupancy on the shared
``/miles/safety/occupancy``), and with the manager an arm agent per arm and the
manager in its cell mode (contract net; :func:`miles_ros.ros.graph.cell_factories`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from miles_ros.commands import check_scene
from miles_ros.ros.signals import StopSignals


def main(argv: list[str] | None = None, prog: str = "miles up") -> int:
    with StopSignals() as stop:
        return _up(argv, prog, stop)


def _up(argv: list[str] | None, prog: str, stop: StopSignals) -> int:
    from miles_ros.view.options import DEFAULT_WEB_PORT

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Bring up the Miles node graph in one process (sim_node, safety_node, "
        "skill_node, manager_node) with the parameters of config/*.yaml.",
    )
    parser.add_argument(
        "--sim",
        default="pybullet",
        choices=["pybullet", "none"],
        help="pybullet: sim_node is the robot (default); none: a real driver",
    )
    parser.add_argument("--no-manager", action="store_true", help="do not start the manager")
    parser.add_argument(
        "--headless",
        action="store_true",
        help="deprecated, has no effect: the PyBullet sim of `miles up` is always headless "
        "(pictures come from the /miles/sim/capture service); kept so that existing "
        "command lines still work",
    )
    parser.add_argument(
        "--record",
        metavar="FILE.mcap|FILE.rrd",
        default=None,
        help="FILE.mcap: record every topic of the graph to MCAP (Foxglove, ros2 bag); "
        "FILE.rrd (by its extension): save the 3D view as a Rerun recording (`rerun FILE.rrd`)",
    )
    parser.add_argument(
        "--view",
        action="store_true",
        help="live 3D view in the native Rerun viewer (without a display: the web viewer)",
    )
    parser.add_argument(
        "--view-web",
        action="store_true",
        help="serve the 3D view's web viewer on 127.0.0.1 and print its URL (the view runs "
        "from a process of its own, `miles view`, unless --operator-in-process)",
    )
    parser.add_argument(
        "--view-port",
        type=int,
        default=None,
        help=f"the web viewer's port (default {DEFAULT_WEB_PORT}; 0: a free one)",
    )
    parser.add_argument(
        "--params-file", default=None, help="a ROS parameter file applied on top of config/*.yaml"
    )
    parser.add_argument(
        "--scene",
        default=None,
        metavar="FILE.yaml",
        help="scene file (default config/scene.yaml); a scene with arms: gets a safety and "
        "a skill node per arm",
    )
    parser.add_argument("--domain-id", type=int, default=None, help="ROS_DOMAIN_ID to use")
    parser.add_argument(
        "--memory",
        default=None,
        metavar="FILE",
        help="the manager's memory, an SQLite file (':memory:': nothing is kept; default: "
        "config/manager.yaml's memory_db, ~/.cache/miles/memory.sqlite)",
    )
    parser.add_argument(
        "--rt-priority",
        type=int,
        default=0,
        metavar="N",
        help="run the graph's executor (the 250 Hz loop) under SCHED_FIFO at priority N "
        "(1-99; needs root, CAP_SYS_NICE or ulimit -r; default 0: normal scheduling)",
    )
    parser.add_argument(
        "--console",
        action="store_true",
        help="serve the operator console, with the metrics at its /metrics (docs/console.md), "
        "from a process of its own (`miles console`) unless --operator-in-process",
    )
    parser.add_argument("--console-port", type=int, default=0, help="its port (0: a free one)")
    parser.add_argument(
        "--operator-in-process",
        action="store_true",
        help="run the console's and the 3D view's nodes in the graph's process, as before "
        "(default: each in a process of its own, which keeps the 250 Hz loop's jitter lower "
        "with or without --rt-priority: docs/console.md)",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=0.0,
        help="stop after this many seconds (0: until Ctrl-C)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        metavar="PORT",
        help="serve Prometheus metrics on http://127.0.0.1:PORT/metrics (0: a free port)",
    )
    parser.add_argument(
        "--perception",
        action="store_true",
        help="object poses from the camera: perception_node, and with the PyBullet sim its "
        "RGB-D camera (its true poses only on /miles/scene/objects_truth)",
    )
    parser.add_argument(
        "--shadow",
        action="append",
        default=[],
        metavar="SKILL=DIR|VERSION",
        help="run the candidate (a skill directory, or a version number of SKILL in the "
        "library) beside SKILL on its requests, never sent (its record on each final skill "
        "status); repeatable",
    )
    parser.add_argument(
        "--canary",
        action="append",
        default=[],
        metavar="SKILL=DIR|VERSION",
        help="send a share of SKILL's requests to the candidate (a skill directory or a "
        "version number), promoted or rolled back by a sequential test; repeatable",
    )
    parser.add_argument("--canary-share", type=float, default=0.2, help="(default 0.2)")
    parser.add_argument("--canary-seed", type=int, default=0, help="its routing seed")
    parser.add_argument(
        "--drift",
        action="append",
        default=[],
        metavar="SKILL",
        help="watch SKILL's live success against its card's and its requests' mean arm "
        "step against its first 30 requests' (sequential tests: 'drift' on the final skill "
        "statuses, the records in --rollout-log); repeatable",
    )
    parser.add_argument(
        "--rollout-log",
        default=None,
        metavar="FILE.jsonl",
        help="the canaries' and drift monitors' decisions",
    )
    args = parser.parse_args(argv)
    from miles_ros.runtime.rollout import rollout_params

    try:
        rollout = rollout_params(
            args.shadow,
            args.canary,
            args.canary_share,
            args.canary_seed,
            args.rollout_log,
            args.drift,
        )
    except ValueError as exc:
        parser.error(str(exc))
    from miles_ros.runtime.realtime import RealtimeRefused, realtime

    try:
        with realtime(args.rt_priority):  # refused before any node starts
            pass
    except (ValueError, RealtimeRefused) as exc:
        parser.error(f"--rt-priority: {exc}")
    if args.params_file and not Path(args.params_file).is_file():
        parser.error(f"--params-file {args.params_file}: no such file")
    check_scene(parser, args.scene)
    if args.headless:
        print(
            f"{prog}: --headless is deprecated and has no effect (the sim is always headless)",
            file=sys.stderr,
        )

    from miles_ros.ros.graph import PARTS, InProcessGraph

    parts = [p for p in PARTS if not (p == "sim" and args.sim == "none")]
    parts.remove("perception")
    if args.no_manager:
        parts.remove("manager")
    overrides: dict[str, dict] = {"skills": rollout} if rollout else {}
    if args.memory is not None:
        overrides["manager"] = {"memory_db": args.memory}
    if args.perception:
        from miles_ros.ros.graph import with_perception

        parts, overrides = with_perception(parts, overrides)
    if args.scene:
        from miles_ros.ros.graph import cell_factories

        named = cell_factories(args.scene, parts, args.params_file, overrides)
        print(f"{prog}: starting {', '.join(label for label, _ in named)}", flush=True)
        graph = InProcessGraph.of_parts(
            parts, args.params_file, overrides, domain_id=args.domain_id, scene_file=args.scene
        )
    else:
        print(f"{prog}: starting {', '.join(parts)}", flush=True)
        graph = InProcessGraph.of_parts(
            parts, args.params_file, overrides, domain_id=args.domain_id
        )
    nodes, recorder, console, metrics = list(graph.nodes), None, None, None
    view_apart = None
    try:
        from miles_ros.ros.view_node import start_view, view_spec
        from miles_ros.view.options import is_rerun_recording

        apart = not args.operator_in_process  # the operator's parts off the loop's process
        spec = view_spec(
            args.scene, args.params_file, args.record, args.view, args.view_web, args.view_port
        )
        view = start_view(graph, spec, own_process=apart)
        view_apart = view if apart else None
        monitor = None
        console_apart = args.console and apart
        if (args.console and not console_apart) or args.metrics_port is not None:
            from miles_ros.ros.monitor_node import add_monitor

            monitor = add_monitor(graph, args.scene)
        if args.metrics_port is not None:
            from miles_ros.monitor.metrics import serve

            metrics = serve(monitor.metrics.registry, args.metrics_port)
            print(f"metrics: {metrics.url}", flush=True)
        if args.console:
            from miles_ros.ros.console_process import start_console

            console = start_console(
                graph,
                args.scene,
                args.console_port,
                monitor.metrics.registry if monitor is not None else None,
                view.url if view is not None else None,
                own_process=console_apart,
            )
        if args.record and not is_rerun_recording(args.record):
            from miles_ros.ros.recording import Recorder

            recorder = graph.add(Recorder(args.record, args.scene, context=graph.context))
        names = [n.get_fully_qualified_name().lstrip("/") for n in nodes]
        names += [f"{c.node_name.lstrip('/')} (process {c.pid})" for c in graph.processes]
        if view_apart is not None:
            names.append(f"view (process {view_apart.pid})")
        if console_apart:
            names.append(f"console (process {console.pid})")
        print(
            f"{prog}: {', '.join(names)} up "
            f"({'recording to ' + args.record if args.record else 'not recording'}); "
            f"{f'SCHED_FIFO priority {args.rt_priority}; ' if args.rt_priority else ''}"
            "Ctrl-C to stop",
            flush=True,
        )
        graph.spin(args.duration, stop, args.rt_priority)
        if stop():
            print(f"\n{prog}: {stop.signal_name or 'stop requested'}, shutting down")
    finally:
        if console is not None:
            console.stop()
        if view_apart is not None:
            view_apart.stop()  # it finishes its recording
        if metrics is not None:
            metrics.close()
        graph.close()  # the recorder and the view finish their files when destroyed
        if recorder is not None:
            print(f"{prog}: {recorder.count} messages recorded to {args.record}")
    return 0


def _label(node) -> str:
    """``safety_node``, or ``left_arm/safety_node`` for a node in an arm's namespace."""
    return node.get_fully_qualified_name().lstrip("/")


if __name__ == "__main__":
    sys.exit(main())
