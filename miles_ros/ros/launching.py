"""The one launch helper: a Miles node with its config/*.yaml defaults, a ``params_file``
on top and a ``namespace`` (``ros2 launch miles_ros <part>.launch.py``). Each per-part
launch file in launch/ is a call to :func:`node_launch_description`; bringup.launch.py
includes them. Needs ``launch`` and ``launch_ros`` (a ROS 2 distro; not on PyPI), so
only launch files import this module.
"""

from __future__ import annotations

# ruff: noqa: I001 - `launch` is the ROS package, not this repository's launch/ folder
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution, PythonExpression
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from miles_ros.params import NODE_CONFIGS, PACKAGE


def node_launch_description(executable: str) -> LaunchDescription:
    """Run ``executable`` (a console script of this package, named after itself) with
    config/<its file> (installed under share/miles_ros/config), then ``params_file`` on
    top when given (a ROS parameter file; keys under ``<executable>:``), in
    ``namespace``."""
    config = NODE_CONFIGS[executable]
    defaults = PathJoinSubstitution([FindPackageShare(PACKAGE), "config", config])
    params_file = LaunchConfiguration("params_file")
    # An empty params_file falls back to the defaults (loading them twice is harmless).
    overrides = PythonExpression(["'", params_file, "' or '", defaults, "'"])
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "params_file",
                default_value="",
                description=f"ROS parameter file applied after config/{config}",
            ),
            DeclareLaunchArgument(
                "namespace",
                default_value="",
                description="namespace of the node (topics are parameters)",
            ),
            Node(
                package=PACKAGE,
                executable=executable,
                name=executable,
                namespace=LaunchConfiguration("namespace"),
                parameters=[defaults, overrides],
                output="screen",
                emulate_tty=True,
            ),
        ]
    )
