"""A cell of several arms (``miles up --scene`` as separate processes):

    ros2 launch miles_ros cell.launch.py scene_file:=/path/to/scene_dual.yaml

sim_node for every arm of the scene (``sim:=none`` for real drivers), then per arm of
the scene's ``arms:`` a safety_node and a skill_node in the namespace ``/ARM`` with
``arm:=ARM`` (topics under ``/ARM``; occupancy on the shared
``/miles/safety/occupancy``), and with ``use_manager`` an arm_agent_node per arm and
the manager in its cell mode (contract net), as
:func:`miles_ros.ros.graph.cell_factories` composes them. ``params_file`` applies on
top of every node's config/*.yaml. The scene is read when the launch runs
(``OpaqueFunction``); a scene without ``arms:`` gives the single-arm graph.
"""

# ruff: noqa: I001 - `launch` is the ROS package, not this repository's launch/ folder
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction

from miles_ros.params import NODE_CONFIGS, config_dir
from miles_ros.ros.launching import launch_arguments, miles_node


def _nodes(context):
    from sims.scene import load_scene

    scene_file = context.launch_configurations["scene_file"]
    params_file = context.launch_configurations["params_file"]
    scene = load_scene(scene_file)
    arms = [m.name for m in scene.arms]

    def node(executable: str, namespace: str = "", **values):
        config = config_dir() / NODE_CONFIGS.get(executable, f"{executable}.yaml")
        files = [str(config)] if config.is_file() else []
        files += [params_file] if params_file else []
        return miles_node(executable, namespace, [*files, {"scene_file": scene_file, **values}])

    out = []
    if context.launch_configurations["sim"] == "pybullet":
        out.append(node("sim_node"))
    manager = context.launch_configurations["use_manager"].lower() == "true"
    per_arm = ["safety_node", "skill_node"] + (["arm_agent_node"] if manager else [])
    for executable in per_arm:
        out += [node(executable, arm, arm=arm) if arm else node(executable) for arm in arms]
    if manager:
        out.append(node("manager_node"))
    return out


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "scene_file",
                default_value=str(config_dir() / "scene_dual.yaml"),
                description="scene YAML; its arms: get a safety and a skill node each",
            ),
            *launch_arguments(
                "sim",
                "use_manager",
                "params_file",
                sim="pybullet: sim_node is every arm; none: drivers",
            ),
            OpaqueFunction(function=_nodes),
        ]
    )
