"""The `miles` command line. Each subcommand lives in its own module with its own
argparse parser (``main(argv) -> int``); this file only dispatches, so importing it is
cheap and a subcommand's heavy imports (torch, rclpy, transformers) load only when used.
"""

from __future__ import annotations

import importlib
import sys

# name -> (module, one-line help). docs/interfaces.md lists them (tests/test_interfaces_doc.py).
COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("miles_ros.commands.train", "train a skill (PPO) on a simulator backend"),
    "eval": ("miles_ros.commands.evaluate", "success rate of a skill in PyBullet physics"),
    "export": ("miles_ros.commands.export", "export a run to ONNX actor/critic + skill card"),
    "skills": ("miles_ros.commands.skills", "list, add, promote and roll back skill versions"),
    "up": ("miles_ros.commands.up", "bring up the ROS 2 node graph in one process"),
    "goal": ("miles_ros.commands.goal", "send a goal to a running manager and follow it"),
    "plan": ("miles_ros.commands.plan", "plan a goal offline and print the plan"),
    "estop": ("miles_ros.commands.estop", "trigger (or --reset) the e-stop on a running graph"),
    "console": ("miles_ros.commands.console", "the operator console (a web page) for a graph"),
    "view": ("miles_ros.commands.view", "the live 3D view (Rerun) of a graph, in its own process"),
    "planner-train": ("miles_ros.commands.planner_train", "fit the planner's LoRA adapter"),
    "demo": ("miles_ros.commands.demo", "the whole loop on one machine, with pictures"),
    "calibrate": (
        "miles_ros.commands.calibrate",
        "measure the camera or the gripper into a scene file",
    ),
    "feedback": ("miles_ros.commands.feedback", "mark a goal or a step good or bad"),
}


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: miles COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "Run `miles COMMAND --help` for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"miles: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(COMMANDS[name][0])
    except ModuleNotFoundError as exc:
        if exc.name and not exc.name.startswith(("miles_ros", "policies", "sims")):
            print(
                f"miles {name}: needs the Python package {exc.name!r}, which is not installed "
                "(pip install -r requirements.txt)",
                file=sys.stderr,
            )
            return 3
        raise
    try:
        return int(module.main(rest, prog=f"miles {name}") or 0)
    except KeyboardInterrupt:  # commands that stop on Ctrl-C themselves (up, train) return
        print(f"\nmiles {name}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
