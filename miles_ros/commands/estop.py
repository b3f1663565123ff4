"""``miles estop`` / ``miles estop --reset``: trigger or reset the e-stop of a running
graph through the safety node's std_srvs/Trigger services."""

from __future__ import annotations

import argparse
import sys

from miles_ros.safety.config import SafetyNodeNames


def _service_name(namespace: str, default: str) -> str:
    """``/miles/safety/x`` under another namespace: ``/NS/safety/x``."""
    if namespace.rstrip("/") in ("", "/miles"):
        return default
    return "/" + namespace.strip("/") + default[len("/miles") :]


def main(argv: list[str] | None = None, prog: str = "miles estop") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--reset", action="store_true", help="reset instead of triggering")
    parser.add_argument("--namespace", default="/miles", help="the graph's namespace")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait")
    args = parser.parse_args(argv)

    import rclpy  # heavy: only when used
    from rclpy.executors import SingleThreadedExecutor
    from std_srvs.srv import Trigger

    names = SafetyNodeNames()
    default = names.reset_service if args.reset else names.trigger_service
    service = _service_name(args.namespace, default)
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("miles_estop_cli", context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        client = node.create_client(Trigger, service)
        if not client.wait_for_service(timeout_sec=args.timeout):
            print(f"{prog}: no service {service} (is the safety node running?)", file=sys.stderr)
            return 2
        future = client.call_async(Trigger.Request())
        executor.spin_until_future_complete(future, timeout_sec=args.timeout)
        if not future.done() or future.result() is None:
            print(f"{prog}: no answer from {service} within {args.timeout} s", file=sys.stderr)
            return 2
        result = future.result()
        print(f"{'reset' if args.reset else 'trigger'}: {result.message}")
        return 0 if result.success else 1
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown(context=context)
