"""The one launch helper: a Miles node with its config/*.yaml defaults, a ``params_file``
on top and a ``namespace`` (``ros2 launch miles_ros <part>.launch.py``), and the launch
arguments the launch files share. Each per-part launch file in launch/ is a call to
:func:`node_launch_description`; bringup.launch.py includes them; cell.launch.py starts
:func:`miles_node` per arm. Needs ``launch`` and ``launch_ros`` (a ROS 2 distro; not on
PyPI), so only launch files import this module.
"""

from __future__ import annotations

# ruff: noqa: I001 - `launch` is the ROS package, not this repository's launch/ folder
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution, PythonExpression
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from miles_ros.params import NODE_CONFIGS, PACKAGE

LAUNCH_ARGUMENTS: dict[str, tuple[str, list[str] | None, str]] = {
    "params_file": ("", None, "ROS parameter file applied after the defaults"),
    "namespace": ("", None, "namespace of the nodes (topics are parameters)"),
    "robot": ("panda", ["panda"], "robot model (limits from sims/robots/panda.py)"),
    "sim": ("pybullet", ["pybullet", "none"], "pybullet: sim_node is the robot; none: drivers"),
    "use_manager": ("true", None, "start the language-model manager"),
    "command_adapter": ("false", None, "also run the Float64MultiArray command adapter"),
    "perception": (
        "false",
        None,
        "also run perception_node: object poses from the camera's topics (with sim:=pybullet "
        "set sim_node's publish_camera and publish_truth_only in params_file)",
    ),
}
"""name -> (default, choices or None, description) of each launch argument that more than
one launch file declares."""


def launch_arguments(*names: str, **descriptions: str) -> list[DeclareLaunchArgument]:
    """The arguments ``names`` as :data:`LAUNCH_ARGUMENTS` has them; ``descriptions[name]``
    says what ``name`` does in this launch file instead."""
    out = []
    for name in names:
        default, choices, description = LAUNCH_ARGUMENTS[name]
        more = {"choices": choices} if choices else {}
        text = descriptions.get(name, description)
        out.append(DeclareLaunchArgument(name, default_value=default, description=text, **more))
    return out


def miles_node(executable: str, namespace, parameters: list) -> Node:
    """``executable`` (a console script of this package, named after itself) in
    ``namespace`` with ``parameters``, its output on the screen."""
    return Node(
        package=PACKAGE,
        executable=executable,
        name=executable,
        namespace=namespace,
        parameters=parameters,
        output="screen",
        emulate_tty=True,
    )


def node_launch_description(executable: str) -> LaunchDescription:
    """Run ``executable`` with config/<its file> (installed under share/miles_ros/config),
    then ``params_file`` on top when given (a ROS parameter file; keys under
    ``<executable>:``), in ``namespace``."""
    config = NODE_CONFIGS[executable]
    defaults = PathJoinSubstitution([FindPackageShare(PACKAGE), "config", config])
    params_file = LaunchConfiguration("params_file")
    # An empty params_file falls back to the defaults (loading them twice is harmless).
    overrides = PythonExpression(["'", params_file, "' or '", defaults, "'"])
    after = f"ROS parameter file applied after config/{config}"
    return LaunchDescription(
        [
            *launch_arguments("params_file", "namespace", params_file=after),
            miles_node(
                executable, LaunchConfiguration("namespace"), parameters=[defaults, overrides]
            ),
        ]
    )
