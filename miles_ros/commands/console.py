"""``miles console``: the operator console (a web page on 127.0.0.1) for a running graph.

Prints ``console: http://HOST:PORT/?token=TOKEN`` (open it in a browser; goals and
resets need the token, the e-stop does not) and serves until Ctrl-C. ``miles up
--console`` serves the same console from inside the graph's process. docs/console.md.
"""

from __future__ import annotations

import argparse
import sys

from miles_ros.ros.signals import StopSignals


def main(argv: list[str] | None = None, prog: str = "miles console") -> int:
    with StopSignals() as stop:
        return _console(argv, prog, stop)


def _console(argv: list[str] | None, prog: str, stop: StopSignals) -> int:
    from miles_ros.console.server import DEFAULT_HOST

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
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: not a port")

    from miles_ros.ros.console_node import attach_console
    from miles_ros.ros.graph import InProcessGraph

    try:
        graph = InProcessGraph([], domain_id=args.domain_id)
    except Exception as exc:  # no ROS middleware
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    server = None
    try:
        try:
            server = attach_console(graph, args.scene, args.host, args.port, None, args.view_url)
        except (OSError, ValueError, KeyError) as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 2
        graph.spin(0.0, stop)
    finally:
        if server is not None:
            server.stop()
        graph.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
