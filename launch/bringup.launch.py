"""The whole Miles graph: sim_node (or a real robot driver), safety_node, skill_node and
the manager.

    ros2 launch miles_ros bringup.launch.py robot:=panda sim:=pybullet use_manager:=true

Arguments: ``robot`` (only ``panda`` so far), ``sim`` (``pybullet``, or ``none`` when a
real robot driver publishes /joint_states and takes /miles/joint_command), ``use_manager``
(``true``/``false``), ``params_file`` (a ROS parameter file applied on top of every
node's config/*.yaml defaults), ``namespace`` (for the node names; topic and service
names are parameters). Command path: skill_node -> /miles/skill_command -> safety_node ->
/miles/joint_command -> robot. ``command_adapter:=true`` also starts the
Float64MultiArray adapter for a ros2_control forward position controller;
``perception:=true`` starts perception_node (object poses from a camera's topics).
"""

# ruff: noqa: I001 - `launch` is the ROS package, not this repository's launch/ folder
from launch import LaunchDescription
from launch.actions import GroupAction, IncludeLaunchDescription
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution, PythonExpression
from launch_ros.actions import Node, PushRosNamespace
from launch_ros.substitutions import FindPackageShare

from miles_ros.ros.launching import launch_arguments

PARTS = ("sim", "safety", "skills", "manager")


def generate_launch_description() -> LaunchDescription:
    share = FindPackageShare("miles_ros")
    sim = LaunchConfiguration("sim")
    params_file = LaunchConfiguration("params_file")

    def part(name: str, condition=None) -> IncludeLaunchDescription:
        return IncludeLaunchDescription(
            PythonLaunchDescriptionSource(
                PathJoinSubstitution([share, "launch", f"{name}.launch.py"])
            ),
            launch_arguments={"params_file": params_file, "namespace": ""}.items(),
            condition=condition,
        )

    is_pybullet = IfCondition(PythonExpression(["'", sim, "' == 'pybullet'"]))
    return LaunchDescription(
        [
            *launch_arguments(
                "robot",
                "sim",
                "use_manager",
                "params_file",
                "namespace",
                "command_adapter",
                "perception",
                namespace="namespace pushed onto every node",
            ),
            GroupAction(
                [
                    PushRosNamespace(LaunchConfiguration("namespace")),
                    part("sim", is_pybullet),
                    part("safety"),
                    part("skills"),
                    part("manager", IfCondition(LaunchConfiguration("use_manager"))),
                    part("perception", IfCondition(LaunchConfiguration("perception"))),
                    Node(
                        package="miles_ros",
                        executable="command_adapter_node",
                        name="command_adapter_node",
                        parameters=[
                            PathJoinSubstitution([share, "config", "command_adapter.yaml"])
                        ],
                        condition=IfCondition(LaunchConfiguration("command_adapter")),
                        output="screen",
                    ),
                ]
            ),
        ]
    )
