"""``miles estop`` / ``miles estop --reset``: trigger or reset the e-stop of a running
graph through the safety node's std_srvs/Trigger services."""

from __future__ import annotations

import argparse
import sys

from miles_ros.interfaces import NAMESPACE


def main(argv: list[str] | None = None, prog: str = "miles estop") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--reset", action="store_true", help="reset instead of triggering")
    parser.add_argument("--namespace", default=NAMESPACE, help="the graph's namespace")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait")
    parser.add_argument("--domain-id", type=int, default=None, help="ROS_DOMAIN_ID to use")
    args = parser.parse_args(argv)

    from miles_ros.ros.clients import estop  # rclpy: heavy, only when used

    service, result = estop(args.reset, args.namespace, args.domain_id, args.timeout)
    if not result.answered:
        hint = " (is the safety node running?)" if result.message.startswith("no service") else ""
        print(f"{prog}: {result.message}{hint}", file=sys.stderr)
        return 2
    print(f"{'reset' if args.reset else 'trigger'}: {result.message}")
    return 0 if result.success else 1
