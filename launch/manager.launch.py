"""The language-model manager: /miles/goal -> skill requests.

`ros2 launch miles_ros manager.launch.py [params_file:=FILE] [namespace:=NS]`: runs
`manager_node` with config/manager.yaml (installed under share/miles_ros/config), then
`params_file` on top when given (a ROS parameter file; keys under `manager_node:`).
"""

# ruff: noqa: I001 - `launch` is the ROS package, not this repository's launch/ folder
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution, PythonExpression
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

EXECUTABLE = "manager_node"
CONFIG = "manager.yaml"


def generate_launch_description() -> LaunchDescription:
    defaults = PathJoinSubstitution([FindPackageShare("miles_ros"), "config", CONFIG])
    params_file = LaunchConfiguration("params_file")
    # An empty params_file falls back to the defaults (loading them twice is harmless).
    overrides = PythonExpression(["'", params_file, "' or '", defaults, "'"])
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "params_file",
                default_value="",
                description="ROS parameter file applied after config/manager.yaml",
            ),
            DeclareLaunchArgument(
                "namespace",
                default_value="",
                description="namespace of the node (topics are parameters)",
            ),
            Node(
                package="miles_ros",
                executable=EXECUTABLE,
                name=EXECUTABLE,
                namespace=LaunchConfiguration("namespace"),
                parameters=[defaults, overrides],
                output="screen",
                emulate_tty=True,
            ),
        ]
    )
