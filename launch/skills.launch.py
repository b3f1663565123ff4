"""The ONNX skill executor: /miles/skill/request -> /miles/skill_command.

`ros2 launch miles_ros skills.launch.py [params_file:=FILE] [namespace:=NS]`: runs
`skill_node` with config/skills.yaml (installed under share/miles_ros/config), then
`params_file` on top when given (a ROS parameter file; keys under `skill_node:`).
"""

from miles_ros.ros.launching import node_launch_description


def generate_launch_description():
    return node_launch_description("skill_node")
