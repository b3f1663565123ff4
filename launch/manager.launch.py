"""The language-model manager: /miles/goal -> skill requests.

`ros2 launch miles_ros manager.launch.py [params_file:=FILE] [namespace:=NS]`: runs
`manager_node` with config/manager.yaml (installed under share/miles_ros/config), then
`params_file` on top when given (a ROS parameter file; keys under `manager_node:`).
"""

from miles_ros.ros.launching import node_launch_description


def generate_launch_description():
    return node_launch_description("manager_node")
