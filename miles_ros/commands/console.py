"""``miles console``: the operator console (a web page on 127.0.0.1) for a running graph.

Prints ``console: http://HOST:PORT/?token=TOKEN`` (open it in a browser; goals and
resets need the token, the e-stop does not) and serves until Ctrl-C. ``miles up
--console`` serves the same console from this command in a process of its own
(:class:`miles_ros.ros.console_process.ConsoleProcess`), or with
``--operator-in-process`` from inside the graph's process. docs/console.md.
"""

from __future__ import annotations

import argparse
import os
import sys

from miles_ros.ros.processes import orphaned
from miles_ros.ros.signals import StopSignals


def main(argv: list[str] | None = None, prog: str = "miles console") -> int:
    with StopSignals() as stop:
        return _console(argv, prog, stop)


def _console(argv: list[str] | None, prog: str, stop: StopSignals) -> int:
    from miles_ros.console.server import DEFAULT_HOST, TOKEN_ENV

    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain-id", type=int, default=None, help="ROS_DOMAIN_ID to use")
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help="address to listen on (default loopback only)"
    )
    parser.add_argument("--port", type=int, default=0, help="port (default 0: a free one)")
    parser.add_argument(
        "--scene",
        default=None,
        metavar="FILE.yaml",
        help="the running cell's scene (with arms: the e-stop goes to every arm)",
    )
    parser.add_argument("--view-url", default=None, help="a 3D view to embed in the page")
    parser.add_argument(
        "--metrics",
        action="store_true",
        help="the cell's metrics at the console's /metrics (a monitor node in this process)",
    )
    parser.add_argument(
        "--wait-services",
        type=float,
        default=0.0,
        metavar="S",
        help="serve only once every arm's e-stop service is discovered, or fail after S s "
        "(default 0: serve at once)",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: not a port")

    from miles_ros.ros.console_node import attach_console
    from miles_ros.ros.graph import InProcessGraph

    token = os.environ.pop(TOKEN_ENV, None)
    parent_gone = orphaned()

    try:
        graph = InProcessGraph([], domain_id=args.domain_id)
    except Exception as exc:  # no ROS middleware
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    server = None
    try:
        try:
            registry = None
            if args.metrics:
                from miles_ros.ros.monitor_node import add_monitor

                registry = add_monitor(graph, args.scene).metrics.registry
            server = attach_console(
                graph,
                args.scene,
                args.host,
                args.port,
                registry,
                args.view_url,
                token=token,
                wait_services=args.wait_services,
            )
        except (OSError, ValueError, KeyError, TimeoutError) as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 2
        graph.spin(0.0, lambda: stop() or parent_gone())
    finally:
        if server is not None:
            server.stop()
        graph.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
