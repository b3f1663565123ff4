"""``miles up``: the node graph in one process, like a ROS 2 component container.

The same nodes and parameter files as ``launch/bringup.launch.py`` (config/sim.yaml,
safety.yaml, skills.yaml, manager.yaml), spun by one single-threaded executor (see
:func:`miles_ros.nodes.ros_utils.graph_executor`), for users
with rclpy from pip and no ROS distro. Ctrl-C shuts everything down cleanly.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path

logger = logging.getLogger(__name__)

PARTS: dict[str, tuple[str, str, str]] = {
    "sim": ("miles_ros.nodes.sim_node", "SimNode", "sim.yaml"),
    "safety": ("miles_ros.nodes.safety_node", "SafetyNode", "safety.yaml"),
    "skills": ("miles_ros.nodes.skill_node", "SkillNode", "skills.yaml"),
    "manager": ("miles_ros.nodes.manager_node", "ManagerNode", "manager.yaml"),
}
"""Part -> (module, Node class, parameter file in config/), in start order."""

IN_PROCESS_SIM_OVERRIDES: dict[str, dict] = {
    "safety": {"state_timeout": 2.0},
    "skills": {"state_timeout": 2.0},
}
"""Applied when the PyBullet sim runs in the same Python process (and no params file is
given): a GIL stall on a busy machine (a model loading, a camera frame) can pause
/joint_states for longer than the 0.5 s that config/ keeps for a real robot, which
latched the e-stop with "robot state lost" in tests on 2 loaded cores."""


def node_factories(
    parts: list[str], params_file: str | None = None, overrides: dict[str, dict] | None = None
) -> list[tuple[str, Callable]]:
    """``(part, factory(context) -> Node)`` for each part: the node class with its
    config/*.yaml, then ``params_file``, then ``overrides[part]`` (name -> value)."""
    from rclpy.parameter import Parameter

    from miles_ros.runtime.params import config_dir

    out = []
    defaults = IN_PROCESS_SIM_OVERRIDES if "sim" in parts and not params_file else {}
    for part in parts:
        module_name, class_name, config = PARTS[part]
        cls = getattr(importlib.import_module(module_name), class_name)
        args = ["--ros-args"]
        if (config_dir() / config).is_file():
            args += ["--params-file", str(config_dir() / config)]
        if params_file:
            args += ["--params-file", str(params_file)]
        values = {**defaults.get(part, {}), **((overrides or {}).get(part) or {})}
        extra = [Parameter(k, value=v) for k, v in values.items()]

        def make(context, cls=cls, args=args, extra=extra):
            return cls(context=context, cli_args=args, parameter_overrides=extra)

        out.append((part, make))
    return out


def warm_up_safety() -> None:
    """Load the safety supervisor's numba kernels into this process before the graph
    starts. Otherwise the safety node's first control period loads them (about a second
    with the GIL held) while its robot-state timeout runs, and latches the e-stop with
    "robot state lost" on a slow machine."""
    from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor
    from sims.robots import panda

    safety_log = logging.getLogger("miles_ros.safety")
    disabled, safety_log.disabled = safety_log.disabled, True  # no "e-stop latched: warm-up"
    try:
        _exercise_supervisor(SafetySupervisor(SafetyConfig()), JointRequest, panda)
    finally:
        safety_log.disabled = disabled


def _exercise_supervisor(supervisor, JointRequest, panda) -> None:  # noqa: N803
    home = panda.home_joint_positions
    supervisor.update_robot_state(panda.JOINT_NAMES, home, [0.0] * 7, 0.0)
    supervisor.submit(JointRequest(panda.JOINT_NAMES, home + 0.01, 0.004), 0.004)
    for k in range(1, 4):
        supervisor.step(0.004 * k)
    supervisor.trigger_estop("warm-up", 0.02)
    supervisor.step(0.024)


def available(part: str) -> bool:
    return importlib.util.find_spec(PARTS[part][0]) is not None


def main(argv: list[str] | None = None, prog: str = "miles up") -> int:
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
        help="no GUI (the PyBullet sim is always headless here; pictures come "
        "from the /miles/sim/capture service)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE.mcap",
        default=None,
        help="record every topic of the graph to an MCAP file",
    )
    parser.add_argument(
        "--params-file", default=None, help="a ROS parameter file applied on top of config/*.yaml"
    )
    parser.add_argument("--domain-id", type=int, default=None, help="ROS_DOMAIN_ID to use")
    parser.add_argument(
        "--duration",
        type=float,
        default=0.0,
        help="stop after this many seconds (0: until Ctrl-C)",
    )
    args = parser.parse_args(argv)
    if args.params_file and not Path(args.params_file).is_file():
        parser.error(f"--params-file {args.params_file}: no such file")

    import rclpy
    from rclpy.executors import ExternalShutdownException
    from rclpy.task import Future

    from miles_ros.nodes.ros_utils import graph_executor

    parts = [p for p in PARTS if not (p == "sim" and args.sim == "none")]
    if args.no_manager:
        parts.remove("manager")
    elif not available("manager"):
        print(f"{prog}: the manager node is not in this version yet; starting without it")
        parts.remove("manager")
    if "safety" in parts:
        warm_up_safety()
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=args.domain_id)
    nodes, recorder = [], None
    executor = graph_executor(context)
    try:
        for _part, make in node_factories(parts, args.params_file):
            nodes.append(make(context))
            executor.add_node(nodes[-1])
        if args.record:
            from miles_ros.recording import Recorder

            recorder = Recorder(args.record, context=context)
            executor.add_node(recorder)
        print(
            f"{prog}: {', '.join(n.get_name() for n in nodes)} up "
            f"({'recording to ' + args.record if recorder else 'not recording'}); "
            "Ctrl-C to stop"
        )
        if args.duration > 0:
            executor.spin_until_future_complete(Future(), timeout_sec=args.duration)
        else:
            executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        print(f"\n{prog}: shutting down")
    finally:
        executor.shutdown(timeout_sec=5.0)
        if recorder is not None:
            recorder.close()
            print(f"{prog}: {recorder.count} messages recorded to {args.record}")
        for node in reversed(nodes):
            executor.remove_node(node)
            node.destroy_node()
        rclpy.try_shutdown(context=context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
