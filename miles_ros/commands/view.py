"""``miles view``: the live 3D view (Rerun) of a running graph, from a process of its own.

The same :class:`~miles_ros.ros.view_node.ViewNode` as ``miles up --view`` /
``--view-web`` / ``--record FILE.rrd``, here in a graph of its own on the running
graph's ``ROS_DOMAIN_ID``, drawing in this process (a
:class:`~miles_ros.view.process.LocalView`: the node's executor only feeds the view) at
niceness :data:`~miles_ros.view.process.NICENESS`, so on a loaded machine the graph's
loops get the CPU first. Prints one ``view: `` line per output, then ``miles view:
view_node drawing ...``, and draws until Ctrl-C (or, started by ``miles up``
(:class:`~miles_ros.ros.view_node.ViewNodeProcess`), until its parent is gone).

Why a process of its own: docs/console.md ("The 3D view in a process of its own").
"""

from __future__ import annotations

import argparse
import os
import sys

from miles_ros.commands import check_scene
from miles_ros.ros.processes import orphaned
from miles_ros.ros.signals import StopSignals


def main(argv: list[str] | None = None, prog: str = "miles view") -> int:
    with StopSignals() as stop:
        return _view(argv, prog, stop)


def _view(argv: list[str] | None, prog: str, stop: StopSignals) -> int:
    from miles_ros.view.options import DEFAULT_RATE_HZ, DEFAULT_WEB_PORT

    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain-id", type=int, default=None, help="ROS_DOMAIN_ID to use")
    parser.add_argument(
        "--scene",
        default=None,
        metavar="FILE.yaml",
        help="the running cell's scene (default config/scene.yaml)",
    )
    parser.add_argument(
        "--params-file",
        default=None,
        help="the running graph's ROS parameter file (its safety_node section: the zones)",
    )
    parser.add_argument(
        "--record", metavar="FILE.rrd", default=None, help="save the view as a Rerun recording"
    )
    parser.add_argument(
        "--native",
        action="store_true",
        help="the native Rerun viewer (without a display: the web viewer)",
    )
    parser.add_argument(
        "--web", action="store_true", help="serve the web viewer on 127.0.0.1 (the default)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_WEB_PORT,
        help=f"the web viewer's port (default {DEFAULT_WEB_PORT}; 0: a free one)",
    )
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE_HZ, help="updates per second")
    args = parser.parse_args(argv)
    from miles_ros.view.options import is_rerun_recording

    if args.record and not is_rerun_recording(args.record):
        parser.error(f"--record {args.record}: a Rerun recording ends in .rrd")
    if not args.rate > 0:
        parser.error(f"--rate {args.rate}: must be > 0")
    check_scene(parser, args.scene)
    web = args.web or not (args.native or args.record)

    from dataclasses import replace

    from miles_ros.ros.graph import InProcessGraph
    from miles_ros.ros.view_node import ViewNode, view_spec
    from miles_ros.view.process import NICENESS, LocalView
    from sims.scene import load_scene

    parent_gone = orphaned()
    os.nice(NICENESS)
    spec = replace(
        view_spec(args.scene, args.params_file, args.record, args.native, web, args.port),
        rate_hz=args.rate,
    )
    try:
        graph = InProcessGraph([], domain_id=args.domain_id)
    except Exception as exc:  # no ROS middleware
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    try:
        view = LocalView(spec)
        try:
            arms = tuple(mount.name for mount in load_scene(args.scene).arms)
            graph.add(ViewNode(view, arms, spec.rate_hz, context=graph.context))
        except BaseException:
            view.close()
            raise
        for line in view.lines:
            print(line, flush=True)
        print(
            f"{prog}: view_node drawing (process {os.getpid()}, domain {graph.domain_id})",
            flush=True,
        )
        graph.spin(0.0, lambda: stop() or parent_gone())
    finally:
        graph.close()  # the view finishes its recording when its node is destroyed
    return 0


if __name__ == "__main__":
    sys.exit(main())
